// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* perf event attributes and the hardware -> software fallback rule, without a PMU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "pmu/dither.h"
#include "pmu/perf_event.h"
#include "collect/opts.h"

static void fallback_on_no_pmu_errors_including_eopnotsupp(void **state)
{
	(void)state;
	assert_true(pmu_should_fallback(ENOENT));
	assert_true(pmu_should_fallback(ENXIO));
	assert_true(pmu_should_fallback(ENODEV));
	assert_true(pmu_should_fallback(EOPNOTSUPP));
}

static void no_fallback_on_permission_or_invalid_errors(void **state)
{
	(void)state;
	assert_false(pmu_should_fallback(EACCES));
	assert_false(pmu_should_fallback(EPERM));
	assert_false(pmu_should_fallback(EINVAL));
	assert_false(pmu_should_fallback(EMFILE));
	assert_false(pmu_should_fallback(EBUSY));
}

static void cycles_attr_is_hardware_frequency_sampled(void **state)
{
	struct perf_event_attr a;

	(void)state;
	pmu_sampling_attr(&a, PMU_EV_CYCLES, 99);
	assert_int_equal(a.type, PERF_TYPE_HARDWARE);
	assert_int_equal(a.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(a.freq, 1);
	assert_int_equal(a.sample_freq, 99);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.exclude_idle, 0);
}

static void cpu_clock_attr_is_software_in_period_mode(void **state)
{
	struct perf_event_attr a;

	(void)state;
	pmu_sampling_attr(&a, PMU_EV_CPU_CLOCK, 19);
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, 52631578);
}

static void dither_ticks_8_times_per_interval_at_99_and_19_hz(void **state)
{
	struct pmu_dither d;

	(void)state;
	pmu_dither_plan(99, &d);
	assert_int_equal(d.period_ns, 10101010);
	assert_int_equal(d.tick_hz, 792);
	/* 3 nominal ticks: a 1.25x tick plus a re-draw's restart still fits */
	assert_int_equal(d.max_late_ns, 3 * (1000000000 / 792));
	/* a 10 ms scheduler tick of lag in the kernel's account, plus two ticks */
	assert_int_equal(d.max_ahead_ns, 10000000 + 2 * (1000000000 / 792));
	pmu_dither_plan(19, &d);
	assert_int_equal(d.period_ns, 52631578);
	assert_int_equal(d.tick_hz, 152);
}

static void dither_keeps_ticks_at_or_above_100_us_and_stops_when_2_do_not_fit(void **state)
{
	struct pmu_dither d;

	(void)state;
	pmu_dither_plan(999, &d);	/* 1 ms interval: 10 ticks would fit, 8 used */
	assert_int_equal(d.tick_hz, 999 * 8);
	pmu_dither_plan(4000, &d);	/* 250 us: 2 ticks of 125 us */
	assert_int_equal(d.tick_hz, 8000);
	pmu_dither_plan(5001, &d);	/* 199 us: one 100 us tick only: not dithered */
	assert_int_equal(d.period_ns, 0);
	assert_int_equal(d.tick_hz, 5001);
	assert_int_equal(d.max_late_ns, 0);
}

static void dither_redraw_spans_three_quarters_to_five_quarters_of_the_tick(void **state)
{
	struct pmu_dither d;
	uint64_t tick;

	(void)state;
	pmu_dither_plan(99, &d);
	tick = 1000000000 / d.tick_hz;
	assert_int_equal(pmu_dither_redraw(&d, PMU_EV_CPU_CLOCK, 0), tick * 3 / 4);
	assert_int_equal(pmu_dither_redraw(&d, PMU_EV_CPU_CLOCK, 1u << 31), tick);
	assert_in_range(pmu_dither_redraw(&d, PMU_EV_CPU_CLOCK, UINT32_MAX), tick * 5 / 4 - 1,
			tick * 5 / 4);
	/* cycles are frequency-sampled: the rate moves inversely */
	assert_int_equal(pmu_dither_redraw(&d, PMU_EV_CYCLES, 1u << 31), 792);
	assert_int_equal(pmu_dither_redraw(&d, PMU_EV_CYCLES, 0), 1056);
	assert_in_range(pmu_dither_redraw(&d, PMU_EV_CYCLES, UINT32_MAX), 633, 634);
}

static void event_names_parse_and_print(void **state)
{
	enum pmu_event ev = PMU_EV_AUTO;

	(void)state;
	assert_int_equal(pmu_event_parse("cycles", &ev), 0);
	assert_int_equal(ev, PMU_EV_CYCLES);
	assert_int_equal(pmu_event_parse("cpu-clock", &ev), 0);
	assert_int_equal(ev, PMU_EV_CPU_CLOCK);
	assert_int_equal(pmu_event_parse("instructions", &ev), -EINVAL);
	assert_int_equal(ev, PMU_EV_CPU_CLOCK);
	assert_string_equal(pmu_event_name(PMU_EV_CYCLES), "cycles");
	assert_null(pmu_event_name(PMU_EV_AUTO));
}

static void options_reject_contradictions(void **state)
{
	struct record_opts o;
	uint32_t pid = 1;
	char *argv[] = { "true", NULL };

	(void)state;
	record_opts_init(&o);
	assert_int_equal(record_opts_validate(&o), 0);
	o.user_stacks = o.kernel_stacks = false;
	assert_int_equal(record_opts_validate(&o), -EINVAL);
	record_opts_init(&o);
	o.system_wide = true;
	o.pids = &pid;
	o.nr_pids = 1;
	assert_int_equal(record_opts_validate(&o), -EINVAL);
	record_opts_init(&o);
	o.cmd_argv = argv;
	o.tids = &pid;
	o.nr_tids = 1;
	assert_int_equal(record_opts_validate(&o), -EINVAL);
	record_opts_init(&o);
	o.idle = true;
	o.cmd_argv = argv;
	assert_int_equal(record_opts_validate(&o), -EINVAL);
	record_opts_init(&o);
	o.ring_bytes = 3u << 20;
	assert_int_equal(record_opts_validate(&o), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fallback_on_no_pmu_errors_including_eopnotsupp),
		cmocka_unit_test(no_fallback_on_permission_or_invalid_errors),
		cmocka_unit_test(cycles_attr_is_hardware_frequency_sampled),
		cmocka_unit_test(cpu_clock_attr_is_software_in_period_mode),
		cmocka_unit_test(dither_ticks_8_times_per_interval_at_99_and_19_hz),
		cmocka_unit_test(dither_keeps_ticks_at_or_above_100_us_and_stops_when_2_do_not_fit),
		cmocka_unit_test(dither_redraw_spans_three_quarters_to_five_quarters_of_the_tick),
		cmocka_unit_test(event_names_parse_and_print),
		cmocka_unit_test(options_reject_contradictions),
	};

	return cmocka_run_group_tests_name("pmu", tests, NULL, NULL);
}
