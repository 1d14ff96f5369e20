// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * abi/oncpu.h hc_dither_charge(): how a thread's ticks charge its CPU time,
 * driven the way bpf/oncpu.bpf.c drives it (tick_elapsed(), dither_take()),
 * on one simulated CPU that runs one thread, whose account the kernel
 * updates at the thread's syscalls and at its own scheduler ticks, as
 * sum_exec_runtime is. The thread runs the split workload's round: a long
 * function, then a clock read (a syscall: its account is updated), a
 * shorter one, a read, the shortest, a read.
 *
 * With a hypervisor stealing the vCPU, the ticks' wall-time spacing holds
 * the steal and the account does not. A lead kept at a fixed bound (the
 * old code: a jiffy plus two ticks) piles up to it, and from then on the
 * instants are crossed only when the account moves: the long function's
 * samples go to the function after its syscall. These tests hold the
 * sampled shares to the simulated truth with and without steal, and show
 * the old bound failing with it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/types.h>

#include "abi/oncpu.h"

#define TICK_NS		125000ull	/* 999 Hz x 8 ticks per interval, as pmu_dither_plan() */
#define PERIOD_NS	1001001ull
#define MAX_LATE_NS	(3 * TICK_NS)
#define MAX_AHEAD_NS	(10000000ull + 2 * TICK_NS)
#define JIFFY_NS	4000000ull	/* HZ=250, this machine's kernels */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

/* uniform in [lo, hi) */
static uint64_t uni(struct rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rnd(r) % (hi - lo);
}

struct sim {
	/* the machine */
	uint64_t steal_every_ns;	/* mean gap between steals (0: none) */
	uint64_t steal_max_ns;		/* each steal lasts uniform [0.1 ms, this) */
	/*
	 * Gaps the kernel counts as the thread's run time but without ticks
	 * (the host throttling the vCPU with no steal reported): mean gap
	 * between them and their length (0: none)
	 */
	uint64_t throttle_every_ns, throttle_ns;
	bool old_bound;			/* the lead bound before the fix */
	bool one_per_tick;		/* a tick takes one instant, the next the rest (before) */
	/*
	 * t_python's pysplit.py instead of the round: slices of 0.5-1.5 ms
	 * of two functions, the next one whichever is behind 70/30 by the
	 * workload's own clock (the true runtime, gaps included)
	 */
	bool pysplit;
	/* the thread */
	uint64_t run_ns;		/* true runtime (steal left out) */
	uint64_t sum_ns;		/* the kernel's account of it */
	uint64_t in_fn[3];		/* true runtime in each function */
	uint64_t samples[3];
	/* the ticks' state (dither_take's, one CPU, one thread) */
	uint64_t cpu_ns, target_ns, last_sum_ns, given_ns, kept_ns;
	uint64_t steal_ns;		/* the steal kept in the account */
};

/* a tick at the thread's current function @fn after @dt ns of wall time */
static void sim_tick(struct sim *s, struct rng *r, int fn, uint64_t dt)
{
	__u64 lead = MAX_AHEAD_NS, given, kept, steal = s->steal_ns;

	/* tick_elapsed(): the account moved since the previous tick */
	if (!s->old_bound && s->sum_ns != s->last_sum_ns && dt < MAX_AHEAD_NS)
		lead = dt;
	s->last_sum_ns = s->sum_ns;
	if (dt > MAX_LATE_NS)
		dt = MAX_LATE_NS;
	/* one thread, never switched out: every tick is its own (old: never) */
	s->cpu_ns = hc_dither_charge(s->cpu_ns, dt, s->sum_ns, &steal, lead, !s->old_bound,
				     &given, &kept);
	s->steal_ns = steal;
	s->given_ns += given;
	s->kept_ns += kept;
	if (s->target_ns > s->cpu_ns)
		return;
	if (s->one_per_tick) {
		s->samples[fn]++;
		s->target_ns = hc_dither_instant(s->target_ns / PERIOD_NS + 1, PERIOD_NS,
						 (__u32)rnd(r));
		return;
	}
	__u64 next;

	s->samples[fn] += hc_dither_next(s->target_ns, s->cpu_ns, PERIOD_NS, (__u32)rnd(r),
					 (__u32)rnd(r), &next);
	s->target_ns = next;
}

/*
 * Runs the round for @total_ns of runtime. Time moves in steps of 1 us:
 * small against the ticks (125 us) and the functions (0.2-2.7 ms).
 */
static void sim_run(struct sim *s, uint64_t seed, uint64_t total_ns)
{
	struct rng r = { seed };
	const uint64_t step = 1000;
	uint64_t wall = 0, next_tick = TICK_NS, next_jiffy = JIFFY_NS, last_tick = 0;
	uint64_t next_steal = s->steal_every_ns ? uni(&r, 1, 2 * s->steal_every_ns) : UINT64_MAX;
	uint64_t next_throttle = s->throttle_every_ns ? uni(&r, 1, 2 * s->throttle_every_ns) :
							 UINT64_MAX;
	/* the round: 60, 25 and 15 units of 30 us on average, each x0.5..1.5 */
	const uint64_t mean[3] = { 1800000, 750000, 450000 };
	int fn = 0;
	uint64_t left = uni(&r, mean[0] / 2, mean[0] * 3 / 2);

	s->target_ns = rnd(&r) % PERIOD_NS;
	while (s->run_ns < total_ns) {
		if (wall >= next_steal) {
			/* the vCPU is gone: wall time passes, nothing runs or ticks */
			wall += uni(&r, 100000, s->steal_max_ns);
			next_steal = wall + uni(&r, 1, 2 * s->steal_every_ns);
		}
		if (wall >= next_throttle) {
			/*
			 * Throttled: no tick, but the kernel's clock (unaware)
			 * runs the thread's account on; its current function
			 * holds the time, as the workload's own clock says
			 */
			wall += s->throttle_ns;
			s->run_ns += s->throttle_ns;
			s->in_fn[fn] += s->throttle_ns;
			next_throttle = wall + uni(&r, 1, 2 * s->throttle_every_ns);
		}
		/* timers that expired meanwhile fire now, the scheduler's first */
		if (wall >= next_jiffy) {
			s->sum_ns = s->run_ns;
			next_jiffy = wall + JIFFY_NS - (wall - next_jiffy) % JIFFY_NS;
		}
		if (wall >= next_tick) {
			sim_tick(s, &r, fn, wall - last_tick);
			last_tick = wall;
			next_tick = wall + uni(&r, TICK_NS * 3 / 4, TICK_NS * 5 / 4);
		}
		wall += step;
		s->run_ns += step;
		s->in_fn[fn] += step;
		if (left > step) {
			left -= step;
			continue;
		}
		/* the function returns; its clock read updates the account */
		s->sum_ns = s->run_ns;
		if (s->pysplit) {
			fn = s->in_fn[0] * 10 <= (s->in_fn[0] + s->in_fn[1]) * 7 ? 0 : 1;
			left = uni(&r, 500000, 1500000);
			continue;
		}
		fn = (fn + 1) % 3;
		left = uni(&r, mean[fn] / 2, mean[fn] * 3 / 2);
	}
}

/* the largest gap, in pp, between a function's share of samples and of runtime */
static double sim_worst_pp(const struct sim *s)
{
	uint64_t n = s->samples[0] + s->samples[1] + s->samples[2];
	double worst = 0;

	for (int i = 0; i < 3; i++) {
		double d = 100.0 * s->samples[i] / n - 100.0 * s->in_fn[i] / s->run_ns;

		if (d < 0)
			d = -d;
		if (d > worst)
			worst = d;
	}
	return worst;
}

/*
 * 60 s of runtime at 1 ms: ~60,000 samples, a share's standard deviation
 * at most 0.2 pp; 1 pp is 5 of them. The total is the runtime in
 * intervals (with the steal its ticks kept) to within one interval and
 * the lead.
 */
static void check_fair(const struct sim *s)
{
	uint64_t n = s->samples[0] + s->samples[1] + s->samples[2];
	uint64_t want = (s->run_ns + s->steal_ns) / PERIOD_NS;

	assert_true(sim_worst_pp(s) < 1.0);
	assert_in_range(n, want - 12, want + 12);
}

static void shares_hold_without_steal(void **state)
{
	struct sim s = { 0 }, old = { .old_bound = true };

	(void)state;
	sim_run(&s, 88172645463325252ull, 60000000000ull);
	check_fair(&s);
	assert_int_equal(s.given_ns, 0);
	sim_run(&old, 88172645463325252ull, 60000000000ull);
	check_fair(&old);
}

/*
 * Steals of 0.1 ms up to the given length, at random instants the given
 * mean apart: from short frequent ones (a busy host's vCPU threads
 * preempting each other) to long rare ones (a host quantum). The wall
 * time stolen: 29 %, 17 %, 17 %, 20 % (mean steal / (mean gap + it)).
 */
static const struct {
	uint64_t every_ns, max_ns;
} steals[] = {
	{ 300000, 150000 },
	{ 1000000, 300000 },
	{ 5000000, 2000000 },
	{ 20000000, 10000000 },
};

static void shares_hold_under_steal(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(steals) / sizeof(steals[0]); i++) {
		struct sim s = { .steal_every_ns = steals[i].every_ns,
				 .steal_max_ns = steals[i].max_ns };

		sim_run(&s, 88172645463325252ull, 60000000000ull);
		check_fair(&s);
		/* the ticks charged steal, and it was kept, none given back */
		assert_true(s.steal_ns > 100000000ull);
		assert_int_equal(s.given_ns, 0);
	}
}

/* the old bound under the same steals: the long function loses its samples */
static void the_fixed_bound_sends_samples_past_the_syscall(void **state)
{
	struct sim old = { .steal_every_ns = steals[1].every_ns, .steal_max_ns = steals[1].max_ns,
			   .old_bound = true };
	uint64_t n;

	(void)state;
	sim_run(&old, 88172645463325252ull, 60000000000ull);
	n = old.samples[0] + old.samples[1] + old.samples[2];
	assert_true(100.0 * old.samples[0] / n < 100.0 * old.in_fn[0] / old.run_ns - 3);
}

/*
 * 100 ms throttles of the vCPU the guest does not see as steal (a host's
 * CPU quota: CFS periods are 100 ms), one a second on average: the
 * thread's account jumps by 100 ms at the next tick. One sample per tick
 * from there (before) gave the gap's ~100 samples to the code that ran
 * after it; all at the tick that sees the gap, the function it stopped
 * in keeps them. 60 s of runtime, ~60 throttles; both workloads.
 */
static void a_gap_the_account_counts_is_sampled_where_it_was(void **state)
{
	struct sim s = { .throttle_every_ns = 1000000000ull, .throttle_ns = 100000000ull,
			 .pysplit = true },
		   old = { .throttle_every_ns = 1000000000ull, .throttle_ns = 100000000ull,
			   .pysplit = true, .one_per_tick = true },
		   round = { .throttle_every_ns = 1000000000ull, .throttle_ns = 100000000ull };

	(void)state;
	sim_run(&s, 88172645463325252ull, 60000000000ull);
	check_fair(&s);
	sim_run(&round, 88172645463325252ull, 60000000000ull);
	check_fair(&round);
	/*
	 * before: a gap in caller_a (70 % of them) made the workload run
	 * caller_b to catch up, and the gap's samples went there; one in
	 * caller_b gave caller_a its. Net: caller_a loses 0.4 x 100 samples
	 * a gap, 60 gaps in 60,000 samples: ~4 pp (t_python: 3-6.6 pp).
	 */
	sim_run(&old, 88172645463325252ull, 60000000000ull);
	assert_true(sim_worst_pp(&old) > 2.0);
}

/* hc_dither_next()'s cases: the instants a tick passed, and the next one */
static void the_instants_up_to_the_charge_are_counted(void **state)
{
	__u64 next;

	(void)state;
	/* within the target's interval: one, the next interval's instant (r 0: its start) */
	assert_int_equal(hc_dither_next(1500, 1900, 1000, 0, 0, &next), 1);
	assert_int_equal(next, 2000);
	/* in the next interval, before its instant (r 2^31: its middle) */
	assert_int_equal(hc_dither_next(1500, 2400, 1000, 1u << 31, 0, &next), 1);
	assert_int_equal(next, 2500);
	/* ... past it: two, and the instant after that */
	assert_int_equal(hc_dither_next(1500, 2600, 1000, 1u << 31, 1u << 31, &next), 2);
	assert_int_equal(next, 3500);
	/* 100 intervals on: the 99 between, the 100th's instant behind the charge */
	assert_int_equal(hc_dither_next(1500, 101700, 1000, 1u << 31, 0, &next), 101);
	assert_int_equal(next, 102000);
	/* ... ahead of it */
	assert_int_equal(hc_dither_next(1500, 101300, 1000, 1u << 31, 0, &next), 100);
	assert_int_equal(next, 101500);
}

/* each of the charge's cases */
static void charge_advances_within_the_account_and_the_lead(void **state)
{
	__u64 given, kept, steal = 0;

	(void)state;
	assert_int_equal(hc_dither_charge(1000, 100, 500, &steal, 1000, 1, &given, &kept), 1100);
	assert_int_equal(given + kept + steal, 0);
	/* behind the account: caught up to it, nothing given or kept */
	assert_int_equal(hc_dither_charge(100, 100, 500, &steal, 400, 1, &given, &kept), 500);
	assert_int_equal(given + kept + steal, 0);
	/* past the account plus the lead after a switch: pulled back, the excess given */
	assert_int_equal(hc_dither_charge(1000, 100, 500, &steal, 400, 0, &given, &kept), 900);
	assert_int_equal(given, 200);
	assert_int_equal(kept + steal, 0);
	/* with no switch: the excess kept, and the account holds it from then on */
	assert_int_equal(hc_dither_charge(1000, 100, 500, &steal, 400, 1, &given, &kept), 1100);
	assert_int_equal(kept, 200);
	assert_int_equal(steal, 200);
	assert_int_equal(given, 0);
	assert_int_equal(hc_dither_charge(1100, 100, 500, &steal, 400, 1, &given, &kept), 1200);
	assert_int_equal(kept, 100);
	assert_int_equal(steal, 300);
	/* and the catch-up counts it: behind 500 + 300 is raised to it */
	assert_int_equal(hc_dither_charge(700, 0, 500, &steal, 400, 1, &given, &kept), 800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(charge_advances_within_the_account_and_the_lead),
		cmocka_unit_test(shares_hold_without_steal),
		cmocka_unit_test(shares_hold_under_steal),
		cmocka_unit_test(the_fixed_bound_sends_samples_past_the_syscall),
		cmocka_unit_test(the_instants_up_to_the_charge_are_counted),
		cmocka_unit_test(a_gap_the_account_counts_is_sampled_where_it_was),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
