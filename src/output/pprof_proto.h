/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Field numbers of google/pprof's proto/profile.proto: the writer's and the pusher's one list. */
#ifndef HC_OUTPUT_PPROF_PROTO_H
#define HC_OUTPUT_PPROF_PROTO_H

/* Profile */
#define PF_SAMPLE_TYPE		1
#define PF_SAMPLE		2
#define PF_MAPPING		3
#define PF_LOCATION		4
#define PF_FUNCTION		5
#define PF_STRING_TABLE		6
#define PF_DROP_FRAMES		7
#define PF_KEEP_FRAMES		8
#define PF_TIME_NANOS		9
#define PF_DURATION_NANOS	10
#define PF_PERIOD_TYPE		11
#define PF_PERIOD		12
#define PF_COMMENT		13
#define PF_DEFAULT_SAMPLE_TYPE	14
/* ValueType */
#define VT_TYPE		1
#define VT_UNIT		2
/* Sample */
#define SA_LOCATION_ID	1
#define SA_VALUE	2
#define SA_LABEL	3
/* Label */
#define LA_KEY		1
#define LA_STR		2
#define LA_NUM		3
#define LA_NUM_UNIT	4
/* Mapping */
#define MA_ID		1
#define MA_MEMORY_START	2
#define MA_MEMORY_LIMIT	3
#define MA_FILE_OFFSET	4
#define MA_FILENAME	5
#define MA_BUILD_ID	6
#define MA_HAS_FUNCTIONS 7
/* Location */
#define LO_ID		1
#define LO_MAPPING_ID	2
#define LO_ADDRESS	3
#define LO_LINE		4
/* Line */
#define LI_FUNCTION_ID	1
#define LI_LINE		2
/* Function */
#define FU_ID		1
#define FU_NAME		2
#define FU_SYSTEM_NAME	3
#define FU_FILENAME	4

#endif /* HC_OUTPUT_PPROF_PROTO_H */
