// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sym/v8_elf.c against objects compiled at test time
 * (tests/fixtures/sym/v8dbg.c): the v8dbg_* ints read from the file, the
 * zeros from .bss, the embedded builtins from .symtab (or not, stripped),
 * a file without the table said apart, and which paths are candidates.
 */
#include "sym/v8_elf.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fixtures/sym/fixture_elf.h"

static char tmp[64];

static int build(void **state)
{
	(void)state;
	strcpy(tmp, "/tmp/hc-v8-elf-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	return fx_sh("cd %s && cc -O1 -shared -fPIC -o libnode.so.1 %s/v8dbg.c", tmp, FX_DIR) ||
	       fx_sh("cd %s && strip -o stripped.so libnode.so.1", tmp) ||
	       fx_sh("cd %s && cc -O1 -o node %s/nov8.c", tmp, FX_DIR);
}

static int cleanup(void **state)
{
	(void)state;
	return fx_sh("rm -rf %s", tmp);
}

static int open_fx(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	return fd;
}

static void the_table_is_read_from_the_file(void **state)
{
	struct v8_layout l;
	struct load_layout ll;
	char why[128] = "";
	int fd = open_fx("libnode.so.1");

	(void)state;
	assert_int_equal(v8_elf_read(fd, &l, &ll), 0);
	close(fd);
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), 0);
	assert_int_equal(l.v[V8_FP_FUNCTION], -16);
	assert_int_equal(l.v[V8_TYPE_SFI], 262);
	/* the zeros, in .bss */
	assert_true(v8_layout_has(&l, V8_HEAPOBJECT_MAP));
	assert_int_equal(l.v[V8_HEAPOBJECT_MAP], 0);
	assert_true(v8_layout_has(&l, V8_TWO_BYTE_TAG));
	/* the builtins, from .symtab */
	assert_true(l.blob_vaddr != 0);
	assert_int_equal(l.blob_size, 256);
	assert_true(ll.nr > 0);
}

static void a_stripped_binary_has_its_table_but_not_its_builtins(void **state)
{
	struct v8_layout l;
	char why[128] = "";
	int fd = open_fx("stripped.so");

	(void)state;
	assert_int_equal(v8_elf_read(fd, &l, NULL), 0);
	close(fd);
	assert_int_equal(v8_layout_check(&l, why, sizeof(why)), 0);
	assert_int_equal(l.blob_vaddr, 0);
	assert_int_equal(l.blob_size, 0);
}

static void a_file_without_the_table_is_no_v8(void **state)
{
	struct v8_layout l;
	int fd = open_fx("node");

	(void)state;
	assert_int_equal(v8_elf_read(fd, &l, NULL), -ENOENT);
	close(fd);
}

static void candidates_are_node_and_libnode(void **state)
{
	(void)state;
	assert_true(v8_elf_candidate("/usr/bin/node"));
	assert_true(v8_elf_candidate("/opt/node20/bin/node20"));
	assert_true(v8_elf_candidate("/usr/lib/x86_64-linux-gnu/libnode.so.108"));
	assert_true(v8_elf_candidate("node"));
	assert_false(v8_elf_candidate("/usr/bin/nodejs-helper"));
	assert_false(v8_elf_candidate("/usr/lib/libc.so.6"));
	assert_false(v8_elf_candidate("/srv/node_modules/x.node"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_table_is_read_from_the_file),
		cmocka_unit_test(a_stripped_binary_has_its_table_but_not_its_builtins),
		cmocka_unit_test(a_file_without_the_table_is_no_v8),
		cmocka_unit_test(candidates_are_node_and_libnode),
	};

	return cmocka_run_group_tests_name("v8_elf", tests, build, cleanup);
}
