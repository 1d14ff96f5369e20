// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /proc/PID/maps parsing against tests/fixtures/sym/maps.txt and single lines. */
#include "sym/procmaps.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#ifndef HC_SRCDIR
#define HC_SRCDIR "."
#endif
#define FIXTURE(name) HC_SRCDIR "/tests/fixtures/sym/" name

static int parse(const char *text, struct procmap *m, char **copy)
{
	*copy = strdup(text);
	assert_non_null(*copy);
	return procmaps_parse_line(*copy, m);
}

static void parses_a_file_mapping_with_every_field(void **state)
{
	struct procmap m;
	char *line;

	(void)state;
	assert_int_equal(parse("55d0c8a02000-55d0c8a07000 r-xp 00002000 fd:01 1835014"
			       "                    /usr/bin/cat\n", &m, &line), 0);
	assert_int_equal(m.start, 0x55d0c8a02000);
	assert_int_equal(m.end, 0x55d0c8a07000);
	assert_int_equal(m.pgoff, 0x2000);
	assert_int_equal(m.dev_major, 0xfd);
	assert_int_equal(m.dev_minor, 1);
	assert_int_equal(m.inode, 1835014);
	assert_int_equal(m.perms, PROCMAP_R | PROCMAP_X);
	assert_int_equal(m.kind, PROCMAP_FILE);
	assert_false(m.deleted);
	assert_string_equal(m.path, "/usr/bin/cat");
	free(line);
}

static void keeps_spaces_inside_a_path(void **state)
{
	struct procmap m;
	char *line;

	(void)state;
	assert_int_equal(parse("7f1c2a000000-7f1c2a022000 r-xp 00000000 08:02 42      "
			       "   /opt/my app/lib with spaces.so\n", &m, &line), 0);
	assert_string_equal(m.path, "/opt/my app/lib with spaces.so");
	assert_int_equal(m.kind, PROCMAP_FILE);
	free(line);
}

static void strips_and_flags_the_deleted_suffix(void **state)
{
	struct procmap m;
	char *line;

	(void)state;
	assert_int_equal(parse("7f1c2a100000-7f1c2a101000 r-xp 00001000 08:02 43 "
			       "/tmp/gone.so (deleted)\n", &m, &line), 0);
	assert_string_equal(m.path, "/tmp/gone.so");
	assert_true(m.deleted);
	free(line);
}

static void anonymous_mapping_has_an_empty_path(void **state)
{
	struct procmap m;
	char *line;

	(void)state;
	/* the kernel prints a space after the inode even without a path */
	assert_int_equal(parse("7f1c2a200000-7f1c2a210000 rwxp 00000000 00:00 0 \n", &m,
			       &line), 0);
	assert_string_equal(m.path, "");
	assert_int_equal(m.kind, PROCMAP_ANON);
	assert_int_equal(m.perms, PROCMAP_R | PROCMAP_W | PROCMAP_X);
	free(line);
	assert_int_equal(parse("7f1c2a200000-7f1c2a210000 r-xp 00000000 00:00 0", &m, &line), 0);
	assert_int_equal(m.kind, PROCMAP_ANON);
	free(line);
}

static void classifies_pseudo_paths(void **state)
{
	static const struct {
		const char *path;
		enum procmap_kind kind;
	} cases[] = {
		{ "[vdso]", PROCMAP_VDSO },
		{ "[anon:jit code]", PROCMAP_ANON },
		{ "[heap]", PROCMAP_ANON },
		{ "[stack]", PROCMAP_ANON },
		{ "[vsyscall]", PROCMAP_SPECIAL },
		{ "[uprobes]", PROCMAP_SPECIAL },
		{ "anon_inode:[perf_event]", PROCMAP_OTHER },
		{ "/memfd:doublemapper", PROCMAP_FILE },
	};
	struct procmap m;
	char text[256], *line;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "1000-2000 r-xp 00000000 00:00 0   %s\n",
			 cases[i].path);
		assert_int_equal(parse(text, &m, &line), 0);
		assert_string_equal(m.path, cases[i].path);
		assert_int_equal(m.kind, cases[i].kind);
		free(line);
	}
}

static void rejects_malformed_lines(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		"garbage line",
		"1000 r-xp 00000000 00:00 0",
		"2000-1000 r-xp 00000000 00:00 0 /backwards",
		"1000-1000 r-xp 00000000 00:00 0 /empty",
		"1000-2000 r-zp 00000000 00:00 0 /bad/perms",
		"1000-2000 r-xp zz 00:00 0 /bad/offset",
		"1000-2000 r-xp 00000000 0000 0 /bad/dev",
		"1000-2000 r-xp 00000000 00:00 x /bad/inode",
		"1000-2000 r-xp 00000000 00:00 12abc /bad/inode",
		"1000-2000 r-x",
		"ffffffffffffffffffff-1 r-xp 00000000 00:00 0 /overflow",
		"-1000-2000 r-xp 00000000 00:00 0 /sign",
	};
	struct procmap m;
	char *line;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &m, &line) != -EINVAL)
			fail_msg("accepted malformed line '%s'", bad[i]);
		free(line);
	}
}

static void loads_only_executable_mappings_sorted(void **state)
{
	struct procmaps *pm = procmaps__load(FIXTURE("maps.txt"), PROCMAPS_EXEC_ONLY);
	const struct procmap *m;
	size_t i;

	(void)state;
	assert_non_null(pm);
	/* cat r-x, spaces, deleted, anon, [anon:], memfd, nvme, vdso, vsyscall, bare anon */
	assert_int_equal(procmaps__nr(pm), 10);
	for (i = 1; i < procmaps__nr(pm); i++)
		assert_true(procmaps__entry(pm, i - 1)->start < procmaps__entry(pm, i)->start);
	for (i = 0; i < procmaps__nr(pm); i++)
		assert_true(procmaps__entry(pm, i)->perms & PROCMAP_X);
	assert_null(procmaps__entry(pm, procmaps__nr(pm)));

	m = procmaps__find(pm, 0x55d0c8a02000);
	assert_non_null(m);
	assert_string_equal(m->path, "/usr/bin/cat");
	assert_null(procmaps__find(pm, 0x55d0c8a01fff));	/* r--p, dropped */
	assert_null(procmaps__find(pm, 0x55d0c8a07000));	/* end is exclusive */

	m = procmaps__find(pm, 0x7f1c2a400010);
	assert_non_null(m);
	assert_string_equal(m->path, "/memfd:doublemapper");
	assert_true(m->deleted);
	assert_true(m->perms & PROCMAP_SHARED);

	m = procmaps__find(pm, 0x7f1c2a500fff);
	assert_non_null(m);
	assert_int_equal(m->dev_major, 0x103);
	assert_int_equal(m->dev_minor, 2);
	assert_int_equal(m->pgoff, 0x3000);

	m = procmaps__find(pm, 0x7ffd5a1f1000);
	assert_non_null(m);
	assert_int_equal(m->kind, PROCMAP_VDSO);

	m = procmaps__find(pm, 0xffffffffff600000);
	assert_non_null(m);
	assert_int_equal(m->kind, PROCMAP_SPECIAL);
	procmaps__free(pm);
}

static void loads_every_mapping_without_the_exec_filter(void **state)
{
	struct procmaps *pm = procmaps__load(FIXTURE("maps.txt"), 0);

	(void)state;
	assert_non_null(pm);
	assert_int_equal(procmaps__nr(pm), 12);
	assert_non_null(procmaps__find(pm, 0x7f1c2a600000));	/* [heap] */
	procmaps__free(pm);
}

static void reads_the_maps_of_this_process(void **state)
{
	struct procmaps *pm = procmaps__load("/proc/self/maps", PROCMAPS_EXEC_ONLY);
	const struct procmap *m;

	(void)state;
	assert_non_null(pm);
	m = procmaps__find(pm, (uint64_t)(uintptr_t)&reads_the_maps_of_this_process);
	assert_non_null(m);
	assert_int_equal(m->kind, PROCMAP_FILE);
	assert_non_null(strstr(m->path, "test_procmaps"));
	procmaps__free(pm);
}

/* The ioctl (Linux 6.11+) and the text give the same executable mappings. */
static void query_and_text_agree_on_this_process(void **state)
{
	struct procmaps *q, *t;
	size_t nt;
	FILE *f;

	(void)state;
	q = procmaps__load("/proc/self/maps", PROCMAPS_EXEC_ONLY);
	f = fopen("/proc/self/maps", "r");
	assert_non_null(q);
	assert_non_null(f);
	t = procmaps__parse(f, PROCMAPS_EXEC_ONLY);
	fclose(f);
	assert_non_null(t);
	/* [vsyscall] is no VMA (the gate area): the ioctl cannot find it, and it names nothing */
	nt = procmaps__nr(t);
	if (nt && !strcmp(procmaps__entry(t, nt - 1)->path, "[vsyscall]"))
		nt--;
	assert_int_equal(procmaps__nr(q), nt);
	for (size_t i = 0; i < procmaps__nr(q); i++) {
		const struct procmap *a = procmaps__entry(q, i), *b = procmaps__entry(t, i);

		assert_int_equal(a->start, b->start);
		assert_int_equal(a->end, b->end);
		assert_int_equal(a->pgoff, b->pgoff);
		assert_int_equal(a->inode, b->inode);
		assert_int_equal(a->dev_major, b->dev_major);
		assert_int_equal(a->dev_minor, b->dev_minor);
		assert_int_equal(a->perms, b->perms);
		assert_int_equal(a->kind, b->kind);
		assert_int_equal(a->deleted, b->deleted);
		assert_string_equal(a->path, b->path);
	}
	procmaps__free(q);
	procmaps__free(t);
}

static void missing_file_fails_with_errno(void **state)
{
	(void)state;
	errno = 0;
	assert_null(procmaps__load("/proc/999999999/maps", 0));
	assert_int_equal(errno, ENOENT);
}

static void random_bytes_do_not_crash_the_parser(void **state)
{
	char buf[8192];
	struct procmaps *pm;
	unsigned int seed = 7;
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = "0123456789abcdef-:rwxps [](deleted)/\n "[(seed >> 16) % 38];
	}
	f = fmemopen(buf, sizeof(buf), "r");
	assert_non_null(f);
	pm = procmaps__parse(f, 0);
	fclose(f);
	assert_non_null(pm);
	procmaps__find(pm, 0x1000);
	procmaps__free(pm);
}

/* @nr mappings of @path (each path made distinct by its index when @distinct), parsed. */
static struct procmaps *parse_many(const char *path, size_t nr, bool distinct)
{
	struct procmaps *pm;
	size_t len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < nr; i++) {
		fprintf(f, "%zx-%zx r-xp 00000000 08:01 42 %s", 0x10000 + i * 0x1000,
			0x11000 + i * 0x1000, path);
		if (distinct)
			fprintf(f, "%zu", i);
		fputc('\n', f);
	}
	fclose(f);
	f = fmemopen(buf, len, "r");
	pm = procmaps__parse(f, 0);
	fclose(f);
	free(buf);
	assert_non_null(pm);
	return pm;
}

/* One long path mapped many times costs one copy; distinct long paths are capped, counted. */
static void long_paths_are_shared_and_capped(void **state)
{
	char path[4001];
	size_t nr = 6000;
	uint64_t dropped0 = procmaps_dropped();
	struct procmaps *pm;

	(void)state;
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	pm = parse_many(path, nr, false);
	assert_int_equal(procmaps__nr(pm), nr);
	assert_int_equal(procmaps_dropped(), dropped0);
	procmaps__free(pm);
	/* 6000 distinct 4 KB paths: 24 MB, over the 16 MiB cap */
	pm = parse_many(path, nr, true);
	assert_true(procmaps__nr(pm) < nr && procmaps__nr(pm) > nr / 2);
	assert_int_equal(procmaps_dropped() - dropped0, nr - procmaps__nr(pm));
	procmaps__free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_a_file_mapping_with_every_field),
		cmocka_unit_test(keeps_spaces_inside_a_path),
		cmocka_unit_test(strips_and_flags_the_deleted_suffix),
		cmocka_unit_test(anonymous_mapping_has_an_empty_path),
		cmocka_unit_test(classifies_pseudo_paths),
		cmocka_unit_test(rejects_malformed_lines),
		cmocka_unit_test(loads_only_executable_mappings_sorted),
		cmocka_unit_test(loads_every_mapping_without_the_exec_filter),
		cmocka_unit_test(reads_the_maps_of_this_process),
		cmocka_unit_test(query_and_text_agree_on_this_process),
		cmocka_unit_test(missing_file_fails_with_errno),
		cmocka_unit_test(random_bytes_do_not_crash_the_parser),
		cmocka_unit_test(long_paths_are_shared_and_capped),
	};

	return cmocka_run_group_tests_name("procmaps", tests, NULL, NULL);
}
