// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Source lines and inline chains against tests/fixtures/sym/inline.c built
 * -O2 -g at test time: inside inl_outer's loop, inl_leaf's line, inlined in
 * inl_mid (its call line), inlined in inl_outer (its call line). The marked
 * lines are found in the source; symbol values are read with plain libelf.
 */
#include "sym/srcline.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures/sym/fixture_elf.h"

static char tmp[64];

static int build(void **state)
{
	(void)state;
	strcpy(tmp, "/tmp/hc-srcline-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	/* clang emits no .debug_aranges: the CU walk must find its code */
	return fx_sh("cd %s && cc -O2 -g -o inl %s/inline.c && objcopy --strip-debug inl inl_nodw"
		     " && clang -O2 -g -o inl_clang %s/inline.c",
		     tmp, FX_DIR, FX_DIR);
}

static int cleanup(void **state)
{
	(void)state;
	return fx_sh("rm -rf %s", tmp);
}

/* The line of the fixture source holding @mark. */
static int mark_line(const char *mark)
{
	FILE *f = fopen(FX_DIR "/inline.c", "r");
	char buf[256];
	int n = 0, found = 0;

	assert_non_null(f);
	while (!found && fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, mark))
			found = n;
	}
	fclose(f);
	assert_true(found > 0);
	return found;
}

/* st_value and st_size of @name in tmp/@file's .symtab. */
static void sym_range_in(const char *file, const char *name, uint64_t *value, uint64_t *size)
{
	char path[128];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	bool found = false;
	Elf *elf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, file);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !d)
			continue;
		for (size_t i = 0; !found && i < sh.sh_size / sh.sh_entsize; i++) {
			if (gelf_getsym(d, (int)i, &s) &&
			    !strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name)) {
				*value = s.st_value;
				*size = s.st_size;
				found = true;
			}
		}
	}
	elf_end(elf);
	close(fd);
	assert_true(found && *size);
}

static void sym_range(const char *name, uint64_t *value, uint64_t *size)
{
	sym_range_in("inl", name, value, size);
}

static struct srcline *open_inl(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	return srcline__open(fd);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void inlined_leaf_has_its_line_and_its_callers_call_lines(void **state)
{
	struct srcline *sl = open_inl("inl");
	struct srcline_frame f[8];
	uint64_t v, sz;
	int leaf = mark_line("MARK_LEAF"), mid = mark_line("MARK_MID");
	int outer = mark_line("MARK_OUTER"), hits = 0, n;

	(void)state;
	assert_non_null(sl);
	sym_range("inl_outer", &v, &sz);
	for (uint64_t a = v; a < v + sz; a++) {
		n = srcline__lookup(sl, a, f, 8);
		assert_true(n >= 1);
		/* every address of inl_outer ends in inl_outer */
		assert_string_equal(f[n - 1].func, "inl_outer");
		if (n != 3 || f[0].line != leaf)
			continue;
		assert_string_equal(f[0].func, "inl_leaf");
		assert_true(ends_with(f[0].file, "/inline.c"));
		assert_string_equal(f[1].func, "inl_mid");
		assert_int_equal(f[1].line, mid);
		assert_true(ends_with(f[1].file, "/inline.c"));
		assert_int_equal(f[2].line, outer);
		hits++;
	}
	/* the multiply of inl_leaf is there: at least one instruction of it */
	assert_true(hits > 0);
	srcline__free(sl);
}

static void max_bounds_the_frames_written(void **state)
{
	struct srcline *sl = open_inl("inl");
	struct srcline_frame f[8];
	uint64_t v, sz;
	int n, full = 0;

	(void)state;
	sym_range("inl_outer", &v, &sz);
	for (uint64_t a = v; a < v + sz && full < 3; a++)
		if (srcline__lookup(sl, a, f, 8) == 3)
			full = 3, v = a;
	assert_int_equal(full, 3);
	n = srcline__lookup(sl, v, f, 1);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].func, "inl_leaf");
	assert_int_equal(srcline__lookup(sl, v, f, 0), 0);
	srcline__free(sl);
}

static void address_outside_every_unit_has_no_line(void **state)
{
	struct srcline *sl = open_inl("inl");
	struct srcline_frame f[4];

	(void)state;
	assert_int_equal(srcline__lookup(sl, 1, f, 4), 0);
	srcline__free(sl);
}

static void object_without_dwarf_is_refused(void **state)
{
	(void)state;
	errno = 0;
	assert_null(open_inl("inl_nodw"));
	assert_int_equal(errno, ENOENT);
}

/* The inline chain over inl_outer in @file: how many addresses gave all three frames. */
static int full_chains(const char *file, bool cached)
{
	struct srcline *sl = open_inl(file);
	struct srcline_frame f[8];
	uint64_t v, sz;
	int n, hits = 0;

	assert_non_null(sl);
	sym_range_in(file, "inl_outer", &v, &sz);
	for (uint64_t a = v; a < v + sz; a++) {
		n = cached ? srcline__get(sl, a, true, f, 8) : srcline__lookup(sl, a, f, 8);
		assert_true(n >= 1);
		assert_string_equal(f[n - 1].func, "inl_outer");
		if (n == 3 && !strcmp(f[0].func, "inl_leaf") && !strcmp(f[1].func, "inl_mid"))
			hits++;
	}
	srcline__free(sl);
	return hits;
}

static void clang_dwarf_without_aranges_is_found_by_its_units(void **state)
{
	(void)state;
	/* negative control of the premise: clang wrote no aranges */
	assert_int_equal(fx_sh("! readelf -S %s/inl_clang | grep -q debug_aranges", tmp), 0);
	assert_true(full_chains("inl_clang", false) > 0);
}

static void cached_lookups_give_the_same_frames(void **state)
{
	struct srcline *sl = open_inl("inl");
	struct srcline_frame a[8], b[8];
	uint64_t v, sz;

	(void)state;
	assert_int_equal(full_chains("inl", true), full_chains("inl", false));
	sym_range("inl_outer", &v, &sz);
	for (uint64_t x = v; x < v + sz; x++) {
		int n = srcline__get(sl, x, true, a, 8);

		/* asked twice: the remembered answer, the same as a fresh lookup */
		assert_int_equal(srcline__get(sl, x, true, b, 8), n);
		assert_int_equal(srcline__lookup(sl, x, a, 8), n);
		for (int i = 0; i < n; i++) {
			assert_string_equal(a[i].func, b[i].func);
			assert_int_equal(a[i].line, b[i].line);
		}
	}
	srcline__free(sl);
}

static void the_cache_is_bounded_and_keeps_what_it_knows(void **state)
{
	struct srcline *sl = open_inl("inl");
	struct srcline_frame f[8];
	uint64_t v, sz;
	int n;

	(void)state;
	sym_range("inl_outer", &v, &sz);
	n = srcline__get(sl, v, true, f, 8);
	assert_true(n >= 1);
	/* addresses in no unit are remembered too (as no lines): fill the rest */
	for (uint64_t i = 1; i < SRCLINE_CACHE_MAX; i++)
		assert_int_equal(srcline__get(sl, 1ull << 40 | i, true, f, 8), 0);
	assert_int_equal(srcline__get(sl, v + 1, true, f, 8), -ENOSPC);
	assert_int_equal(srcline__get(sl, v, true, f, 8), n);
	srcline__free(sl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inlined_leaf_has_its_line_and_its_callers_call_lines),
		cmocka_unit_test(max_bounds_the_frames_written),
		cmocka_unit_test(address_outside_every_unit_has_no_line),
		cmocka_unit_test(object_without_dwarf_is_refused),
		cmocka_unit_test(clang_dwarf_without_aranges_is_found_by_its_units),
		cmocka_unit_test(cached_lookups_give_the_same_frames),
		cmocka_unit_test(the_cache_is_bounded_and_keeps_what_it_knows),
	};

	return cmocka_run_group_tests_name("srcline", tests, build, cleanup);
}
