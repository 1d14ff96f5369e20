// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Top-down level 2 from recorded counts (topdown2.h). */
#include "analysis/topdown2.h"
#include "analysis/counters.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static double clamp(double x, double hi)
{
	return x < 0 ? 0 : x > hi ? hi : x;
}

/* Split @whole into @part (clamped to it) and the rest. */
static void split(double whole, double part, double *a, double *b)
{
	*a = clamp(part, whole);
	*b = whole - *a;
}

size_t topdown2_nr_inputs(enum topdown2_method m)
{
	switch (m) {
	case TOPDOWN2_INTEL_METRICS:
	case TOPDOWN2_AMD_ZEN:
		return 8;
	case TOPDOWN2_ARM:
		return 4;
	}
	return 0;
}

int topdown2_compute(enum topdown2_method m, const struct topdown *l1, const double *v,
		     size_t nr, double param, struct topdown2 *o)
{
	double sum, r;

	for (double *p = &o->light_ops; p <= &o->core_bound; p++)
		*p = NAN;
	if (nr < topdown2_nr_inputs(m) || !topdown2_nr_inputs(m))
		return -EINVAL;
	switch (m) {
	case TOPDOWN2_INTEL_METRICS:
		if (!((sum = v[0] + v[1] + v[2] + v[3]) > 0))
			return -EINVAL;
		/* heavy, mispredicts, fetch latency and memory are counted; the rest is the other half */
		split(l1->retiring, v[4] / sum, &o->heavy_ops, &o->light_ops);
		split(l1->bad_spec, v[5] / sum, &o->br_mispredict, &o->machine_clears);
		split(l1->frontend, v[6] / sum, &o->fetch_latency, &o->fetch_bandwidth);
		split(l1->backend, v[7] / sum, &o->memory_bound, &o->core_bound);
		return 0;
	case TOPDOWN2_AMD_ZEN:
		if (!(v[5] > 0) || !(param > 0))
			return -EINVAL;
		/* microcode ops of all retired ones; mispredicts of mispredicts + restarts */
		r = v[0] > 0 ? clamp(v[1] / v[0], 1) : NAN;
		if (!isnan(r))
			split(l1->retiring, r * l1->retiring, &o->heavy_ops, &o->light_ops);
		r = v[2] + v[3] > 0 ? v[2] / (v[2] + v[3]) : NAN;
		if (!isnan(r))
			split(l1->bad_spec, r * l1->bad_spec, &o->br_mispredict, &o->machine_clears);
		/* cycles where the frontend delivered nothing: width slots each */
		split(l1->frontend, v[4] / v[5], &o->fetch_latency, &o->fetch_bandwidth);
		r = v[6] > 0 ? clamp(v[7] / v[6], 1) : NAN;
		if (!isnan(r))
			split(l1->backend, r * l1->backend, &o->memory_bound, &o->core_bound);
		return 0;
	case TOPDOWN2_ARM:
		if (!(v[0] > 0) && !(v[2] > 0))
			return -EINVAL;
		if (v[0] > 0)
			split(l1->frontend, clamp(v[1] / v[0], 1) * l1->frontend,
			      &o->fetch_latency, &o->fetch_bandwidth);
		if (v[2] > 0)
			split(l1->backend, clamp(v[3] / v[2], 1) * l1->backend,
			      &o->memory_bound, &o->core_bound);
		return 0;
	}
	return -EINVAL;
}

const char *topdown2_focus(const struct topdown *l1, const struct topdown2 *l2)
{
	double a, b;
	const char *na, *nb;

	switch (topdown_focus(l1)) {
	case TOPDOWN_FOCUS_BAD_SPEC:
		a = l2->br_mispredict, b = l2->machine_clears;
		na = "branch mispredicts", nb = "machine clears";
		break;
	case TOPDOWN_FOCUS_FRONTEND:
		a = l2->fetch_latency, b = l2->fetch_bandwidth;
		na = "fetch latency (i-cache, iTLB, resteers)", nb = "fetch bandwidth (decode)";
		break;
	case TOPDOWN_FOCUS_BACKEND:
		a = l2->memory_bound, b = l2->core_bound;
		na = "memory bound (cache or DRAM misses: stat --mode cache)";
		nb = "core bound (execution ports, dividers, dependencies)";
		break;
	default:
		return NULL;
	}
	if (isnan(a) || isnan(b))
		return NULL;
	return a >= b ? na : nb;
}

static void put_pair(FILE *out, const char *sep, const char *what, const char *na, double a,
		     const char *nb, double b)
{
	if (isnan(a) || isnan(b))
		fprintf(out, "%s%s not measured", sep, what);
	else
		fprintf(out, "%s%s = %s %.1f%% + %s %.1f%%", sep, what, na, a * 100, nb, b * 100);
}

int topdown2_write_text(FILE *out, const struct topdown2 *l, const char *pfx)
{
	fprintf(out, "%s  level 2: ", pfx);
	put_pair(out, "", "retiring", "light", l->light_ops, "heavy", l->heavy_ops);
	put_pair(out, "; ", "bad speculation", "mispredicts", l->br_mispredict, "clears",
		 l->machine_clears);
	fprintf(out, "\n%s           ", pfx);
	put_pair(out, "", "frontend", "latency", l->fetch_latency, "bandwidth", l->fetch_bandwidth);
	put_pair(out, "; ", "backend", "memory", l->memory_bound, "core", l->core_bound);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int topdown2_write_json(FILE *out, const struct topdown2 *l)
{
	static const char *const names[] = {
		"light_ops", "heavy_ops", "br_mispredict", "machine_clears",
		"fetch_latency", "fetch_bandwidth", "memory_bound", "core_bound",
	};
	const double *v = &l->light_ops;

	fputc('{', out);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", names[i]);
		if (isnan(v[i]))
			fputs("null", out);
		else
			fprintf(out, "%.6f", v[i]);
	}
	fputc('}', out);
	return ferror(out) ? -EIO : 0;
}
