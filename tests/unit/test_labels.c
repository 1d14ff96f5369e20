// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Root labels (record/labels.c): a cmdline's NUL-separated argv (or a
 * process title written over it) as one printable, bounded line; and the
 * table's life cycle on this test's own process (read, exit, purge).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/labels.h"
#include "util/clock.h"

#define FMT(raw, out) labels_format(raw, sizeof(raw) - 1, out, sizeof(out))

static void argv_is_joined_by_spaces(void **state)
{
	char out[LABELS_LEN + 1];

	(void)state;
	assert_int_equal(FMT("/usr/bin/python3\0-m\0http.server\0", out), 31);
	assert_string_equal(out, "/usr/bin/python3 -m http.server");
	/* an empty argument is still a separator */
	FMT("a\0\0b\0", out);
	assert_string_equal(out, "a  b");
}

static void a_title_over_argv_drops_its_padding(void **state)
{
	char out[LABELS_LEN + 1];

	(void)state;
	/* PostgreSQL's setproctitle: the title, then NULs (or spaces) to the old end */
	FMT("postgres: walwriter \0\0\0\0\0\0\0\0", out);
	assert_string_equal(out, "postgres: walwriter");
	FMT("postgres: user db [local] COMMIT\0        ", out);
	assert_string_equal(out, "postgres: user db [local] COMMIT");
	/* nothing printable: no label (the comm is kept) */
	assert_int_equal(FMT("\0\0\0", out), 0);
	assert_string_equal(out, "");
}

static void control_bytes_and_separators_are_replaced(void **state)
{
	char out[LABELS_LEN + 1];

	(void)state;
	FMT("a\nb\tc\x1b[31md\x7f;e", out);
	assert_string_equal(out, "a?b?c?[31md??e");
	/* invalid UTF-8 cannot pass: a lone continuation byte, a cut sequence */
	FMT("x\x80y\xc3", out);
	assert_string_equal(out, "x?y?");
	/* valid UTF-8 is kept */
	FMT("caf\xc3\xa9 \xe2\x82\xac", out);
	assert_string_equal(out, "caf\xc3\xa9 \xe2\x82\xac");
}

static void the_length_is_bounded_without_cutting_a_character(void **state)
{
	char raw[400], out[LABELS_LEN + 1], small[6];

	(void)state;
	memset(raw, 'x', sizeof(raw));
	assert_int_equal(labels_format(raw, sizeof(raw), out, sizeof(out)), LABELS_LEN);
	assert_int_equal(strlen(out), LABELS_LEN);
	/* "abcd" + a 2-byte character: 6 bytes do not fit in 5 */
	assert_int_equal(labels_format("abcd\xc3\xa9", 6, small, sizeof(small)), 4);
	assert_string_equal(small, "abcd");
	assert_int_equal(labels_format("abc\xc3\xa9", 5, small, sizeof(small)), 5);
}

static void the_table_keeps_an_exited_label_until_purged(void **state)
{
	struct labels *l = labels__new();
	struct labels_stats st;
	uint32_t self = (uint32_t)getpid();

	(void)state;
	assert_non_null(l);
	labels__read(l, self);
	assert_non_null(labels__get(l, self));
	assert_non_null(strstr(labels__get(l, self), "test_labels"));
	assert_null(labels__get(l, 0));		/* [other stacks], idle */
	/* a process that does not exist keeps its comm, and that is counted */
	labels__read(l, 0x7ffffff0);
	assert_null(labels__get(l, 0x7ffffff0));
	/* tried once: the sample path does not read it again per sample */
	labels__ensure(l, 0x7ffffff0);
	labels__ensure(l, self);
	labels__exit(l, self);
	labels__refresh(l);	/* an exited one is not re-read; the live (empty) one is */
	assert_non_null(labels__get(l, self));	/* the profile still to be written needs it */
	labels__purge(l);
	assert_null(labels__get(l, self));
	labels__stats(l, &st);
	assert_int_equal(st.reads, 3);
	assert_int_equal(st.missed, 1);	/* a failed re-read is not a new miss */
	labels__free(l);
	labels__free(NULL);
}

/*
 * A child that waits for a byte on @p[0] (the pipe made here), then execs
 * "sleep 30" (a new title); it exits when the test does (the pipe's end),
 * even after a failure.
 */
static pid_t child_exec_on_byte(int p[2])
{
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(1);
	}
	return pid;
}

/* Wait (up to 1 s) until @pid, a child_exec_on_byte() child, has exec'd sleep. */
static void wait_exec_sleep(pid_t pid)
{
	char path[64], buf[64] = "";

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	for (int i = 0; i < 500 && strcmp(buf, "sleep"); i++) {
		FILE *f = fopen(path, "r");

		buf[0] = '\0';
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		usleep(2000);
	}
	assert_string_equal(buf, "sleep");
}


static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * t_labels' postgres backends at their bare comm: a record that came after
 * the exit (an off-CPU drain) made the lifecycle read the process again as
 * a first sight; that read failed (gone) and wiped the label kept for it.
 */
static void an_exited_label_survives_a_failed_late_read(void **state)
{
	struct labels *l = labels__new();
	struct labels_stats st;
	int p[2];
	pid_t pid;

	(void)state;
	pid = child_exec_on_byte(p);
	labels__read(l, (uint32_t)pid);
	assert_non_null(strstr(labels__get(l, (uint32_t)pid), "test_labels"));
	reap(pid);
	labels__exit(l, (uint32_t)pid);
	labels__read(l, (uint32_t)pid);		/* gone: the read fails */
	assert_non_null(labels__get(l, (uint32_t)pid));
	assert_non_null(strstr(labels__get(l, (uint32_t)pid), "test_labels"));
	labels__purge(l);			/* still dead: goes with the profile */
	assert_null(labels__get(l, (uint32_t)pid));
	labels__stats(l, &st);
	assert_int_equal(st.missed, 0);
	close(p[0]);
	close(p[1]);
	labels__free(l);
}

/* An exited label whose tgid is read alive again: a new process, its own label. */
static void a_live_process_under_an_exited_tgid_is_read_anew(void **state)
{
	struct labels *l = labels__new();
	uint32_t self = (uint32_t)getpid();

	(void)state;
	labels__read(l, self);
	labels__exit(l, self);
	labels__read(l, self);		/* readable: not the one that exited */
	labels__purge(l);		/* live again: kept */
	assert_non_null(labels__get(l, self));
	labels__free(l);
}

/* The settle state machine: a title set after the first read is read again, later, and settles. */
static void a_title_set_after_the_first_read_is_read_once_settled(void **state)
{
	struct labels *l = labels__new();
	struct labels_stats st;
	uint64_t t0, t1;
	int p[2];
	pid_t pid;

	(void)state;
	pid = child_exec_on_byte(p);
	t0 = clock_mono_ns();
	labels__read(l, (uint32_t)pid);		/* before its title: the parent's */
	t1 = clock_mono_ns();
	assert_non_null(strstr(labels__get(l, (uint32_t)pid), "test_labels"));
	assert_int_equal(write(p[1], "x", 1), 1);
	wait_exec_sleep(pid);
	/*
	 * young: not yet (< LABELS_SETTLE_NS after the read, which was at or
	 * after t0). Not clock_mono_ns(): the exec can take longer than that
	 * on a loaded machine (CI, session 11, load 8), and then it settles.
	 */
	labels__settle(l, t0 + LABELS_SETTLE_NS - 1);
	assert_non_null(strstr(labels__get(l, (uint32_t)pid), "test_labels"));
	labels__settle(l, t1 + LABELS_SETTLE_NS);	/* at or after t1: old enough */
	assert_string_equal(labels__get(l, (uint32_t)pid), "sleep 30");
	labels__settle(l, clock_mono_ns() + 2 * LABELS_SETTLE_NS);	/* once */
	labels__stats(l, &st);
	assert_int_equal(st.reads, 2);
	reap(pid);
	close(p[0]);
	close(p[1]);
	labels__free(l);
}

/*
 * A title set later than the first settle read (a loaded machine: the
 * program's first 50 ms of CPU took over a second at nice 19): the read
 * that found it unchanged comes again after twice the gap, until one finds
 * it set or the last gap (LABELS_SETTLE_LAST_NS) was read.
 */
static void a_title_set_after_the_first_settle_read_is_read_later(void **state)
{
	struct labels *l = labels__new();
	struct labels_stats st;
	uint64_t t1, now;
	int p[2];
	pid_t pid;

	(void)state;
	pid = child_exec_on_byte(p);
	labels__read(l, (uint32_t)pid);
	t1 = clock_mono_ns();
	now = t1 + LABELS_SETTLE_NS;
	labels__settle(l, now);			/* due: read, still the parent's */
	assert_non_null(strstr(labels__get(l, (uint32_t)pid), "test_labels"));
	assert_int_equal(write(p[1], "x", 1), 1);
	wait_exec_sleep(pid);
	labels__settle(l, now + 2 * LABELS_SETTLE_NS - 1);	/* the doubled gap: not yet */
	assert_non_null(strstr(labels__get(l, (uint32_t)pid), "test_labels"));
	labels__settle(l, now + 2 * LABELS_SETTLE_NS);
	assert_string_equal(labels__get(l, (uint32_t)pid), "sleep 30");
	labels__settle(l, now + 1000 * LABELS_SETTLE_NS);	/* changed: settled, no more reads */
	labels__stats(l, &st);
	assert_int_equal(st.reads, 3);
	reap(pid);
	close(p[0]);
	close(p[1]);
	labels__free(l);
}

/* A title that never changes: read at +0.1, 0.3, 0.7, 1.5 and 3.1 s, then settled. */
static void an_unchanged_title_is_read_five_more_times_then_settled(void **state)
{
	struct labels *l = labels__new();
	struct labels_stats st;
	uint64_t now = clock_mono_ns(), step = LABELS_SETTLE_NS / 2;

	(void)state;
	labels__read(l, (uint32_t)getpid());
	/* a look every LABELS_SETTLE_NS / 2, as the loop does, for 10 s */
	for (uint64_t t = now; t < now + 100 * step; t += step)
		labels__settle(l, t);
	labels__stats(l, &st);
	assert_int_equal(st.reads, 1 + 5);
	labels__free(l);
}

/*
 * An agent's interval that ends just after a fork: its refresh reads the
 * process before its title is set. That read is no settle read: the drain
 * at least LABELS_SETTLE_NS after the first read still reads it again.
 */
static void a_refresh_right_after_the_first_read_does_not_settle_it(void **state)
{
	struct labels *l = labels__new();
	int p[2];
	pid_t pid;

	(void)state;
	pid = child_exec_on_byte(p);
	labels__read(l, (uint32_t)pid);
	labels__refresh(l);			/* the interval's end, < 100 ms later */
	assert_non_null(strstr(labels__get(l, (uint32_t)pid), "test_labels"));
	assert_int_equal(write(p[1], "x", 1), 1);
	wait_exec_sleep(pid);
	labels__settle(l, clock_mono_ns() + LABELS_SETTLE_NS);
	assert_string_equal(labels__get(l, (uint32_t)pid), "sleep 30");
	reap(pid);
	close(p[0]);
	close(p[1]);
	labels__free(l);
}

static void the_cgroup_is_the_v2_path(void **state)
{
	static const char v2[] = "0::/system.slice/nginx.service\n";
	static const char hybrid[] = "12:pids:/user.slice\n1:name=systemd:/system.slice/a.service\n"
				     "0::/system.slice/b.service\n";
	static const char v1[] = "3:cpu:/x\n1:name=systemd:/system.slice/a.service\n";
	char out[64];

	(void)state;
	assert_int_equal(labels_cgroup_parse(v2, sizeof(v2) - 1, out, sizeof(out)), 27);
	assert_string_equal(out, "/system.slice/nginx.service");
	assert_true(labels_cgroup_parse(hybrid, sizeof(hybrid) - 1, out, sizeof(out)) > 0);
	assert_string_equal(out, "/system.slice/b.service");	/* v2 first */
	assert_true(labels_cgroup_parse(v1, sizeof(v1) - 1, out, sizeof(out)) > 0);
	assert_string_equal(out, "/system.slice/a.service");
	assert_int_equal(labels_cgroup_parse("0::\n", 4, out, sizeof(out)), 0);
	assert_int_equal(labels_cgroup_parse("garbage", 7, out, sizeof(out)), 0);
	assert_int_equal(labels_cgroup_parse(v2, sizeof(v2) - 1, out, 8), 7);	/* cut */
	assert_string_equal(out, "/system");
}

static void cgroups_are_read_when_asked(void **state)
{
	struct labels *l = labels__new();
	uint32_t self = (uint32_t)getpid();

	(void)state;
	labels__read(l, self);
	assert_null(labels__cgroup(l, self));	/* off by default: record --label cmdline */
	labels__set_cgroups(l, true);
	labels__read(l, self);
	assert_non_null(labels__cgroup(l, self));
	assert_int_equal(labels__cgroup(l, self)[0], '/');
	labels__free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(argv_is_joined_by_spaces),
		cmocka_unit_test(a_title_over_argv_drops_its_padding),
		cmocka_unit_test(control_bytes_and_separators_are_replaced),
		cmocka_unit_test(the_length_is_bounded_without_cutting_a_character),
		cmocka_unit_test(the_table_keeps_an_exited_label_until_purged),
		cmocka_unit_test(an_exited_label_survives_a_failed_late_read),
		cmocka_unit_test(a_live_process_under_an_exited_tgid_is_read_anew),
		cmocka_unit_test(a_title_set_after_the_first_read_is_read_once_settled),
		cmocka_unit_test(a_refresh_right_after_the_first_read_does_not_settle_it),
		cmocka_unit_test(a_title_set_after_the_first_settle_read_is_read_later),
		cmocka_unit_test(an_unchanged_title_is_read_five_more_times_then_settled),
		cmocka_unit_test(the_cgroup_is_the_v2_path),
		cmocka_unit_test(cgroups_are_read_when_asked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
