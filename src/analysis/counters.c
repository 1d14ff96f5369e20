// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Derived counter numbers, the stall cost model and its classes, top-down level 1, verdicts. */
#include "analysis/counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void counters_model_default(struct counters_model *m)
{
	m->mispredict_penalty = COUNTERS_MISPREDICT_PENALTY;
	m->dram_latency = COUNTERS_DRAM_LATENCY;
	m->mlp = COUNTERS_MLP;
}

/* [0, 1]; NaN and negatives are 0 */
static double clamp01(double x)
{
	if (!(x > 0))
		return 0;
	return x > 1 ? 1 : x;
}

double counters_ipc(double instructions, double cycles)
{
	return cycles > 0 ? instructions / cycles : 0;
}

double counters_branch_miss_pct(double branch_misses, double branches)
{
	return branches > 0 ? branch_misses / branches * 100 : 0;
}

double counters_llc_mpki(double llc_misses, double instructions)
{
	return instructions > 0 ? llc_misses * 1000 / instructions : 0;
}

double counters_branch_stall(double branch_misses, double penalty, double cycles)
{
	return cycles > 0 ? clamp01(branch_misses * penalty / cycles) : 0;
}

double counters_memory_stall(double llc_misses, double latency, double mlp, double cycles)
{
	if (!(mlp >= 1))
		mlp = 1;
	return cycles > 0 ? clamp01(llc_misses * latency / mlp / cycles) : 0;
}

enum counters_class counters_classify(double memory_stall, double branch_stall)
{
	if (memory_stall >= COUNTERS_MEMORY_THRESHOLD && memory_stall >= branch_stall)
		return COUNTERS_CLASS_MEMORY;
	if (branch_stall >= COUNTERS_BRANCH_THRESHOLD)
		return COUNTERS_CLASS_BRANCH;
	return COUNTERS_CLASS_COMPUTE;
}

const char *counters_class_name(enum counters_class c)
{
	switch (c) {
	case COUNTERS_CLASS_MEMORY:
		return "Memory";
	case COUNTERS_CLASS_BRANCH:
		return "Branch mispredict";
	case COUNTERS_CLASS_COMPUTE:
		return "Compute";
	default:
		return "unknown";
	}
}

const char *counters_class_advice(enum counters_class c)
{
	switch (c) {
	case COUNTERS_CLASS_MEMORY:
		return "cut cache misses: data layout and locality, fewer pointer chases, "
		       "prefetching";
	case COUNTERS_CLASS_BRANCH:
		return "make hot branches predictable: sorted or partitioned data, branchless "
		       "code, PGO";
	case COUNTERS_CLASS_COMPUTE:
		return "do less work or do it wider: the flame graph's hottest frames, algorithm, "
		       "SIMD";
	default:
		return "needs cycles, instructions, branch-misses and LLC misses";
	}
}

static struct counters_num num(double v, bool ok)
{
	return (struct counters_num){ ok ? v : 0, ok };
}

void counters_derive(const struct counters_input *in, const struct counters_model *m,
		     struct counters_derived *out)
{
	bool cyc = in->cycles.ok, ins = in->instructions.ok, bm = in->branch_misses.ok;
	bool llc = in->llc_misses.ok;

	memset(out, 0, sizeof(*out));
	out->ipc = num(counters_ipc(in->instructions.v, in->cycles.v), ins && cyc);
	out->branch_miss_pct = num(counters_branch_miss_pct(in->branch_misses.v, in->branches.v),
				   bm && in->branches.ok);
	out->llc_mpki = num(counters_llc_mpki(in->llc_misses.v, in->instructions.v), llc && ins);
	out->branch_stall = num(counters_branch_stall(in->branch_misses.v, m->mispredict_penalty,
						      in->cycles.v), bm && cyc);
	out->memory_stall = num(counters_memory_stall(in->llc_misses.v, m->dram_latency, m->mlp,
						      in->cycles.v), llc && cyc);
	if (out->branch_stall.ok && out->memory_stall.ok)
		out->cls = counters_classify(out->memory_stall.v, out->branch_stall.v);
}

static int td_finish(struct topdown *out, double ret, double bs, double fe, double be, double smt)
{
	out->retiring = clamp01(ret);
	out->bad_spec = clamp01(bs);
	out->frontend = clamp01(fe);
	out->backend = clamp01(be);
	out->smt = clamp01(smt);
	return 0;
}

/* op_retired / op_spec, perf's d_ratio: 0 when nothing was speculated */
static double retire_ratio(double retired, double spec)
{
	return spec > 0 ? clamp01(retired / spec) : 0;
}

int topdown_compute(enum topdown_method m, const double *v, size_t nr, double param,
		    struct topdown *out)
{
	double slots, sum, busy, r;

	memset(out, 0, sizeof(*out));
	switch (m) {
	case TOPDOWN_INTEL_METRICS:
		if (nr < 5 || !((sum = v[1] + v[2] + v[3] + v[4]) > 0))
			return -EINVAL;
		return td_finish(out, v[1] / sum, v[2] / sum, v[3] / sum, v[4] / sum, 0);
	case TOPDOWN_INTEL_4WIDE:
		if (nr < 5 || !(v[0] > 0))
			return -EINVAL;
		slots = v[0];
		/* backend = 1 - frontend - bad speculation - retiring */
		return td_finish(out, v[2] / slots, (v[1] - v[2] + v[4]) / slots, v[3] / slots,
				 1 - (v[3] + v[1] + v[4]) / slots, 0);
	case TOPDOWN_AMD_ZEN:
		if (nr < 5 || !((slots = v[0] * param) > 0))
			return -EINVAL;
		return td_finish(out, v[1] / slots, (v[2] - v[1]) / slots, v[3] / slots,
				 v[4] / slots, nr > 5 ? v[5] / slots : 0);
	case TOPDOWN_ARM_SLOTS:
		if (nr < 6 || !((slots = v[0] * param) > 0))
			return -EINVAL;
		busy = clamp01(1 - v[3] / slots);
		r = retire_ratio(v[1], v[2]);
		return td_finish(out, r * busy, (1 - r) * busy, v[4] / slots, v[5] / slots, 0);
	case TOPDOWN_ARM_CYCLES:
		if (nr < 5 || !(v[0] > 0))
			return -EINVAL;
		busy = clamp01(1 - (v[3] + v[4]) / v[0]);
		r = retire_ratio(v[1], v[2]);
		return td_finish(out, r * busy, (1 - r) * busy, v[3] / v[0], v[4] / v[0], 0);
	}
	return -EINVAL;
}

enum topdown_focus topdown_focus(const struct topdown *td)
{
	enum topdown_focus f = TOPDOWN_FOCUS_NONE;
	double best = 0;

	if (td->retiring > TOPDOWN_RETIRING_PEAK)
		return TOPDOWN_FOCUS_PEAK;
	if (td->bad_spec > TOPDOWN_BAD_SPEC_HIGH && td->bad_spec > best) {
		f = TOPDOWN_FOCUS_BAD_SPEC;
		best = td->bad_spec;
	}
	if (td->frontend > TOPDOWN_FRONTEND_HIGH && td->frontend > best) {
		f = TOPDOWN_FOCUS_FRONTEND;
		best = td->frontend;
	}
	if (td->backend > TOPDOWN_BACKEND_HIGH && td->backend > best)
		f = TOPDOWN_FOCUS_BACKEND;
	return f;
}

const char *topdown_verdict(const struct topdown *td, char *buf, size_t len)
{
	switch (topdown_focus(td)) {
	case TOPDOWN_FOCUS_PEAK:
		snprintf(buf, len,
			 "Retiring %.1f%% (> 80%%): near peak; only doing less work helps "
			 "(algorithm, vectorization)",
			 td->retiring * 100);
		break;
	case TOPDOWN_FOCUS_BAD_SPEC:
		snprintf(buf, len,
			 "Bad Speculation %.1f%% (> 15%%): work thrown away; check branch-miss "
			 "%% and make hot branches predictable",
			 td->bad_spec * 100);
		break;
	case TOPDOWN_FOCUS_FRONTEND:
		snprintf(buf, len,
			 "Frontend Bound %.1f%% (> 20%%): instruction supply; i-cache/iTLB "
			 "misses, code layout (PGO, BOLT, huge pages for text)",
			 td->frontend * 100);
		break;
	case TOPDOWN_FOCUS_BACKEND:
		snprintf(buf, len,
			 "Backend Bound %.1f%% (> 40%%): memory or execution units; check "
			 "LLC MPKI, then level 2 (memory vs core bound)",
			 td->backend * 100);
		break;
	default:
		snprintf(buf, len,
			 "no level-1 category over its threshold: look at the hottest code "
			 "in the flame graph");
		break;
	}
	return buf;
}

const struct counters_row *counters_row_find(const struct counters_snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->rows[i].name, name))
			return &s->rows[i];
	return NULL;
}

static struct counters_num row_num(const struct counters_snapshot *s, const char *name)
{
	const struct counters_row *r = counters_row_find(s, name);

	return num(r ? r->value : 0, r && r->supported && r->counted);
}

void counters_snapshot_derive(struct counters_snapshot *s)
{
	struct counters_input in;

	in.cycles = row_num(s, "cycles");
	in.instructions = row_num(s, "instructions");
	in.branches = row_num(s, "branches");
	in.branch_misses = row_num(s, "branch-misses");
	in.llc_misses = row_num(s, "LLC-load-misses");
	if (!in.llc_misses.ok)
		in.llc_misses = row_num(s, "cache-misses");	/* LLC misses on Intel and AMD */
	counters_derive(&in, &s->model, &s->derived);
}
