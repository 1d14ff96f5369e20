// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * collect/parts.c: which optional parts a collector keeps when the kernel
 * refuses some, against a fake kernel that refuses given parts; and
 * util/log.c's one-line reason from libbpf's messages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/parts.h"
#include "util/log.h"

#define CFI PART_BIT(HC_PART_CFI)
#define TW PART_BIT(HC_PART_TASK_WORK)
#define WK PART_BIT(HC_PART_WAKERS)
#define HD PART_BIT(HC_PART_HOLDERS)

/* a kernel that refuses any load holding a part of @refuses; @core: every load */
struct fake {
	unsigned int refuses;
	bool core;
	int err;		/* the error of a refused load */
	const char *log;	/* what libbpf would print on a refusal */
	int calls;
	bool loaded;
	unsigned int loaded_parts;	/* the parts of the loaded skeleton */
};

static int fake_load(void *ctx, unsigned int parts)
{
	struct fake *f = ctx;

	f->calls++;
	f->loaded = false;	/* a load destroys the previous skeleton first */
	if (f->core || (parts & f->refuses)) {
		if (f->log)
			log_capture_feed(f->log);
		return f->err;
	}
	f->loaded = true;
	f->loaded_parts = parts;
	return 0;
}

static void all_load_in_one_try(void **state)
{
	struct fake f = { .err = -E2BIG };
	unsigned int parts = CFI | TW | WK, refused = 9;

	(void)state;
	assert_int_equal(parts_load("t", "x", fake_load, &f, &parts, &refused), 0);
	assert_int_equal(parts, CFI | TW | WK);
	assert_int_equal(refused, 0);
	assert_int_equal(f.calls, 1);
}

/* the cheaper parts go first, then come back: only the culprit stays out */
static void only_the_refused_part_is_left_out(void **state)
{
	struct fake f = { .refuses = CFI, .err = -E2BIG };
	unsigned int parts = CFI | TW | WK, refused;

	(void)state;
	assert_int_equal(parts_load("t", "x", fake_load, &f, &parts, &refused), 0);
	assert_int_equal(parts, TW | WK);
	assert_int_equal(refused, CFI);
	assert_true(f.loaded);
	assert_int_equal(f.loaded_parts, TW | WK);
}

static void two_refused_parts_both_stay_out(void **state)
{
	struct fake f = { .refuses = CFI | TW, .err = -EACCES };
	unsigned int parts = CFI | TW | WK | HD, refused;

	(void)state;
	assert_int_equal(parts_load("t", "x", fake_load, &f, &parts, &refused), 0);
	assert_int_equal(refused, CFI | TW);
	assert_int_equal(parts, WK | HD);
	assert_true(f.loaded);
	assert_int_equal(f.loaded_parts, WK | HD);
}

/* the last part taken back fails: the skeleton is loaded again without it */
static void a_failed_take_back_reloads_the_kept_set(void **state)
{
	struct fake f = { .refuses = TW | CFI, .err = -EINVAL };
	unsigned int parts = TW | CFI, refused;

	(void)state;
	assert_int_equal(parts_load("t", "x", fake_load, &f, &parts, &refused), 0);
	assert_int_equal(parts, 0);
	assert_int_equal(refused, TW | CFI);
	assert_true(f.loaded);
	assert_int_equal(f.loaded_parts, 0);
}

static void a_refused_core_is_the_kernel_error(void **state)
{
	struct fake f = { .core = true, .err = -EACCES };
	unsigned int parts = CFI | WK, refused;

	(void)state;
	assert_int_equal(parts_load("t", "x", fake_load, &f, &parts, &refused), -HC_EKERNEL);
	assert_false(f.loaded);
	assert_int_equal(refused, 0);
	/* all of them, then each part less: 1 + 2 loads */
	assert_int_equal(f.calls, 3);
}

static void a_signal_while_loading_is_not_a_kernel_error(void **state)
{
	struct fake f = { .core = true, .err = -EINTR };
	unsigned int parts = 0, refused;

	(void)state;
	assert_int_equal(parts_load("t", "x", fake_load, &f, &parts, &refused), -EINTR);
}

/* the verifier's last line, not its statistics, and not libbpf's consequences */
static void reason_is_the_verifiers_last_line(void **state)
{
	char buf[LOG_REASON_LEN];

	(void)state;
	log_capture_begin();
	log_capture_feed("libbpf: prog 'offcpu_switch': BPF program load failed: Argument list "
			 "too long\n");
	log_capture_feed("libbpf: prog 'offcpu_switch': -- BEGIN PROG LOAD LOG --\n"
			 "0: (79) r6 = *(u64 *)(r1 +8)\n"
			 "BPF program is too large. Processed 1000001 insn\n"
			 "processed 1000001 insns (limit 1000000) max_states_per_insn 101\n"
			 "\n"
			 "-- END PROG LOAD LOG --\n");
	log_capture_feed("libbpf: failed to load object 'sched_bpf'\n");
	assert_string_equal(log_capture_end(buf, sizeof(buf)),
			    "BPF program is too large. Processed 1000001 insn");
}

static void reason_without_a_log_is_libbpfs_first_warning(void **state)
{
	char buf[LOG_REASON_LEN];

	(void)state;
	log_capture_begin();
	log_capture_feed("libbpf: extern (func ksym) 'bpf_task_from_pid': not found in kernel or "
			 "module BTFs\n");
	log_capture_feed("libbpf: failed to load object 'locks_bpf'\n");
	assert_string_equal(log_capture_end(buf, sizeof(buf)),
			    "extern (func ksym) 'bpf_task_from_pid': not found in kernel or "
			    "module BTFs");
	/* a new capture starts empty */
	log_capture_begin();
	assert_string_equal(log_capture_end(buf, sizeof(buf)), "");
}

/* the reason a part was left out for comes from the first refusal */
static void parts_load_keeps_the_first_reason(void **state)
{
	struct fake f = { .refuses = CFI, .err = -E2BIG,
			  .log = "libbpf: prog 'p': -- BEGIN PROG LOAD LOG --\nsome insn\n"
				 "R0 invalid mem access 'scalar'\n-- END PROG LOAD LOG --\n" };
	unsigned int parts = CFI, refused;
	char path[] = "/tmp/test_parts.XXXXXX", line[512] = "";
	int fd = mkstemp(path), saved = dup(2);
	FILE *in;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	assert_int_equal(parts_load("oncpu", "x", fake_load, &f, &parts, &refused), 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	in = fopen(path, "r");
	assert_non_null(in);
	assert_non_null(fgets(line, sizeof(line), in));
	fclose(in);
	close(fd);
	unlink(path);
	assert_string_equal(line, "oncpu: the kernel refused CFI unwinding (R0 invalid mem access "
			    "'scalar'); going on with frame-pointer user stacks\n");
}

static void test_refuse_names_parts(void **state)
{
	(void)state;
	setenv("HOTCOLD_TEST_REFUSE", "cfi,wakers,core", 1);
	assert_int_equal(parts_test_refuse(), CFI | WK | PART_BIT(HC_PART_CORE));
	unsetenv("HOTCOLD_TEST_REFUSE");
	assert_int_equal(parts_test_refuse(), 0);
	assert_string_equal(part_name(HC_PART_TASK_WORK), "task_work");
	assert_null(part_name(HC_PART_NR));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_load_in_one_try),
		cmocka_unit_test(only_the_refused_part_is_left_out),
		cmocka_unit_test(two_refused_parts_both_stay_out),
		cmocka_unit_test(a_failed_take_back_reloads_the_kept_set),
		cmocka_unit_test(a_refused_core_is_the_kernel_error),
		cmocka_unit_test(a_signal_while_loading_is_not_a_kernel_error),
		cmocka_unit_test(reason_is_the_verifiers_last_line),
		cmocka_unit_test(reason_without_a_log_is_libbpfs_first_warning),
		cmocka_unit_test(parts_load_keeps_the_first_reason),
		cmocka_unit_test(test_refuse_names_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
