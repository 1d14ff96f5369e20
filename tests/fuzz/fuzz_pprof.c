// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer target: pprof protobuf decoding (annotate reads profiles from anywhere). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/annotate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_data d;
	struct annotate_sel s;

	if (pprof_decode(data, size, &d))
		return 0;
	/* every resolved string is in the table; selection walks every sample */
	for (size_t i = 0; i < d.nr_mappings; i++)
		if (strlen(d.mappings[i].file) == SIZE_MAX)
			abort();
	for (size_t i = 0; i < d.nr_functions; i++)
		if (!annotate_select(&d, d.functions[i].name, &s))
			annotate_sel_release(&s);
	pprof_data_release(&d);
	return 0;
}
