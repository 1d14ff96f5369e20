// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: pprof protobuf decoding (annotate reads profiles from
 * anywhere; the agent's web view reads its stored ones back into profiles).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/annotate.h"
#include "analysis/pprof_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_add_stats st;
	struct pprof_data d;
	struct annotate_sel s;
	struct profile *p;

	if (pprof_decode(data, size, &d))
		return 0;
	/* every resolved string is in the table; selection walks every sample */
	for (size_t i = 0; i < d.nr_mappings; i++)
		if (strlen(d.mappings[i].file) == SIZE_MAX)
			abort();
	for (size_t i = 0; i < d.nr_functions; i++)
		if (!annotate_select(&d, d.functions[i].name, &s))
			annotate_sel_release(&s);
	for (size_t i = 0; i < d.nr_samples; i++)
		for (size_t j = 0; j < d.samples[i].nr_labels; j++)
			if (strlen(d.samples[i].labels[j].key) == SIZE_MAX ||
			    (d.samples[i].labels[j].str && strlen(d.samples[i].labels[j].str) == SIZE_MAX))
				abort();
	for (int k = 0; k < PROFILE_KIND_NR; k++) {
		p = profile__new();
		if (p)
			pprof_add_samples(&d, k, NULL, NULL, p, &st);
		profile__free(p);
	}
	pprof_data_release(&d);
	return 0;
}
