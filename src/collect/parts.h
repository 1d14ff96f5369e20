/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Optional parts of a collector (enum hc_part, abi/common.h): a kernel may
 * refuse one (a verifier whose rules changed, a kfunc it lacks) while the
 * collector's core loads. parts_load() then goes on without it, says so in
 * one line with the kernel's reason, and counts it: a profiler that dies on
 * a kernel update is worse than one that records a little less.
 */
#ifndef HC_COLLECT_PARTS_H
#define HC_COLLECT_PARTS_H

#include <stdint.h>

#include <linux/types.h>

#include "abi/common.h"
#include "collect/collector.h"

#define PART_BIT(p) (1u << (p))

/* the error of a collector whose core programs the kernel refused (cli: EXIT_KERNEL) */
#define HC_EKERNEL ENOPKG

/*
 * Open, configure and load a collector's skeleton with the parts in
 * @parts, first destroying the one a previous call loaded. On failure the
 * skeleton is destroyed, so another call can try again. 0 or -errno.
 */
typedef int (*parts_load_fn)(void *ctx, unsigned int parts);

/*
 * Load with every part in *@parts. If the kernel refuses, leave parts out,
 * the cheapest loss first, until it loads; then take back each part left
 * out before the last one, one at a time, since those were not the cause.
 * *@parts: the parts kept; *@refused: those left out, each said once on
 * stderr with the kernel's reason. 0, or the error of the load without
 * any optional part (the core refused: said in one line, with what the
 * core @needs).
 */
int parts_load(const char *who, const char *needs, parts_load_fn fn, void *ctx,
	       unsigned int *parts, unsigned int *refused);

/*
 * HOTCOLD_TEST_REFUSE=cfi,task_work,wakers,holders,branches,core: the parts
 * whose BPF code is made invalid (bpf/lib/refuse.bpf.h), for tests of the
 * fallbacks. 0 when unset.
 */
unsigned int parts_test_refuse(void);

/* "cfi", "task_work", ...; NULL past the last */
const char *part_name(enum hc_part p);

/* @refused as collector stats: one line per part, shown when non-zero */
void parts_stats_add(struct collector_stats *st, unsigned int refused);


#endif /* HC_COLLECT_PARTS_H */
