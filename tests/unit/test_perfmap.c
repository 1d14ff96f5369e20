// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* perf-PID.map parsing and the ownership/symlink checks of perfmap__load(). */
#include "sym/perfmap.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HC_SRCDIR
#define HC_SRCDIR "."
#endif
#define FIXTURE_DIR HC_SRCDIR "/tests/fixtures/sym"

static void assert_jit(const struct perfmap *pm, uint64_t addr, const char *want,
		       uint64_t want_off)
{
	uint64_t off = ~0ull;
	const char *name = perfmap__lookup(pm, addr, &off);

	if (!want) {
		if (name)
			fail_msg("0x%llx: expected no entry, got '%s'", (unsigned long long)addr,
				 name);
		return;
	}
	if (!name)
		fail_msg("0x%llx: expected '%s', got none", (unsigned long long)addr, want);
	assert_string_equal(name, want);
	assert_int_equal(off, want_off);
}

static int setup(void **state)
{
	/* the fixture is ours (or root's when run as root): the owner check passes */
	*state = perfmap__load(FIXTURE_DIR, 1234, geteuid());
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	perfmap__free(*state);
	return 0;
}

static void keeps_well_formed_entries_newest_per_start(void **state)
{
	/* 11 lines: one garbage, one zero size, one without name; a duplicate start */
	assert_int_equal(perfmap__nr(*state), 7);
}

static void names_addresses_within_an_entry(void **state)
{
	assert_jit(*state, 0x7f0000001000, "Interpreter", 0);
	assert_jit(*state, 0x7f00000010ff, "Interpreter", 0xff);
	assert_jit(*state, 0x7f0000001100, NULL, 0);
	assert_jit(*state, 0x7f0000000fff, NULL, 0);
}

static void accepts_0x_prefixes_and_names_with_spaces(void **state)
{
	assert_jit(*state, 0x7f0000002010, "LazyCompile:*foo /app/x.js:1", 0x10);
	assert_jit(*state, 0x7f0000007004, "spaced   name", 4);
	assert_jit(*state, 0x7f0000008000, "upper_prefix", 0);
}

static void later_line_wins_for_the_same_code(void **state)
{
	assert_jit(*state, 0x7f0000003008, "newer_at_same_start", 8);
	assert_jit(*state, 0x7f0000006044, "inner_newer", 4);
	assert_jit(*state, 0x7f0000006050, "outer_stub", 0x50);
}

static void drops_zero_sized_and_nameless_entries(void **state)
{
	assert_jit(*state, 0x7f0000004000, NULL, 0);
	assert_jit(*state, 0x7f0000005000, NULL, 0);
}

struct tmpdir {
	char dir[64];
	char path[128];
};

static void tmp_map(struct tmpdir *t, uint32_t pid)
{
	FILE *f;

	strcpy(t->dir, "/tmp/hc-perfmap-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/perf-%u.map", t->dir, pid);
	f = fopen(t->path, "w");
	assert_non_null(f);
	fputs("1000 10 owned\n", f);
	fclose(f);
}

static void tmp_cleanup(struct tmpdir *t)
{
	unlink(t->path);
	rmdir(t->dir);
}

static void map_owned_by_the_process_user_is_loaded(void **state)
{
	struct tmpdir t;
	struct perfmap *pm;

	(void)state;
	tmp_map(&t, 42);
	pm = perfmap__load(t.dir, 42, geteuid());
	assert_non_null(pm);
	assert_jit(pm, 0x1008, "owned", 8);
	perfmap__free(pm);
	tmp_cleanup(&t);
}

static void map_owned_by_another_user_is_rejected(void **state)
{
	uid_t file_uid = geteuid();
	struct tmpdir t;

	(void)state;
	tmp_map(&t, 43);
	/* as root, give the file away; otherwise it is ours and the target is not us */
	if (!geteuid()) {
		file_uid = 12345;
		assert_int_equal(chown(t.path, file_uid, 12345), 0);
	}
	errno = 0;
	assert_null(perfmap__load(t.dir, 43, file_uid + 1));
	assert_int_equal(errno, EPERM);
	tmp_cleanup(&t);
}

static void map_owned_by_root_is_accepted_for_any_user(void **state)
{
	struct tmpdir t;
	struct perfmap *pm;

	(void)state;
	if (geteuid()) {
		skip();	/* only root can create a root-owned file */
		return;
	}
	tmp_map(&t, 44);
	pm = perfmap__load(t.dir, 44, 12345);
	assert_non_null(pm);
	perfmap__free(pm);
	tmp_cleanup(&t);
}

static void symlinked_map_is_rejected(void **state)
{
	struct tmpdir t;
	char link[160];

	(void)state;
	tmp_map(&t, 45);
	snprintf(link, sizeof(link), "%s/perf-46.map", t.dir);
	assert_int_equal(symlink(t.path, link), 0);
	errno = 0;
	assert_null(perfmap__load(t.dir, 46, geteuid()));
	assert_int_equal(errno, ELOOP);
	unlink(link);
	tmp_cleanup(&t);
}

static void non_regular_file_is_rejected(void **state)
{
	struct tmpdir t;
	char fifo[160];

	(void)state;
	tmp_map(&t, 47);
	snprintf(fifo, sizeof(fifo), "%s/perf-48.map", t.dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	errno = 0;
	assert_null(perfmap__load(t.dir, 48, geteuid()));	/* must not block either */
	assert_int_equal(errno, EPERM);
	unlink(fifo);
	tmp_cleanup(&t);
}

static void missing_map_fails_with_enoent(void **state)
{
	(void)state;
	errno = 0;
	assert_null(perfmap__load("/nonexistent-dir", 1, geteuid()));
	assert_int_equal(errno, ENOENT);
}

/* Over 8 MiB only the map's tail is read (the newest code), and the skip is counted. */
static void a_huge_map_is_read_from_its_last_8_mib_counted(void **state)
{
	uint64_t capped0, skipped0, capped, skipped;
	struct tmpdir t;
	struct perfmap *pm;
	FILE *f;

	(void)state;
	perfmap_stats(&capped0, &skipped0);
	tmp_map(&t, 43);	/* "1000 10 owned" first: 9 MiB from the end */
	f = fopen(t.path, "r+");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 9 << 20), 0);	/* a hole, no newline */
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	fputs("\n2000 10 newest\n", f);
	assert_int_equal(fclose(f), 0);
	pm = perfmap__load(t.dir, 43, geteuid());
	assert_non_null(pm);
	assert_jit(pm, 0x2004, "newest", 4);
	assert_null(perfmap__lookup(pm, 0x1008, NULL));
	assert_int_equal(perfmap__nr(pm), 1);
	perfmap__free(pm);
	perfmap_stats(&capped, &skipped);
	assert_int_equal(capped, capped0 + 1);
	assert_true(skipped - skipped0 >= (1u << 20));
	tmp_cleanup(&t);
}

/* A line longer than any name is skipped whole; the next one still counts. */
static void an_overlong_line_is_skipped(void **state)
{
	char *buf;
	size_t len;
	struct perfmap *pm;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	fputs("1000 10 ", f);
	for (int i = 0; i < 100000; i++)
		fputc('x', f);
	fputs("\n3000 10 after\n", f);
	fclose(f);
	f = fmemopen(buf, len, "r");
	pm = perfmap__parse(f);
	fclose(f);
	free(buf);
	assert_non_null(pm);
	assert_int_equal(perfmap__nr(pm), 1);
	assert_jit(pm, 0x3001, "after", 1);
	perfmap__free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_well_formed_entries_newest_per_start),
		cmocka_unit_test(names_addresses_within_an_entry),
		cmocka_unit_test(accepts_0x_prefixes_and_names_with_spaces),
		cmocka_unit_test(later_line_wins_for_the_same_code),
		cmocka_unit_test(drops_zero_sized_and_nameless_entries),
		cmocka_unit_test(map_owned_by_the_process_user_is_loaded),
		cmocka_unit_test(map_owned_by_another_user_is_rejected),
		cmocka_unit_test(map_owned_by_root_is_accepted_for_any_user),
		cmocka_unit_test(symlinked_map_is_rejected),
		cmocka_unit_test(non_regular_file_is_rejected),
		cmocka_unit_test(missing_map_fails_with_enoent),
		cmocka_unit_test(a_huge_map_is_read_from_its_last_8_mib_counted),
		cmocka_unit_test(an_overlong_line_is_skipped),
	};

	return cmocka_run_group_tests_name("perfmap", tests, setup, teardown);
}
