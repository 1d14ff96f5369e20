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

#include <string.h>
#include <unistd.h>

#include "record/labels.h"

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
		cmocka_unit_test(the_cgroup_is_the_v2_path),
		cmocka_unit_test(cgroups_are_read_when_asked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
