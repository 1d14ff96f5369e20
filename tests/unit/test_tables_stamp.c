// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Table stamps (abi/unwind.h, hc_unwind_map.stamp): the BPF walker caches
 * rules per CPU by (stamp, vaddr) and never flushes that cache, so a
 * published table's stamp must never come again, even when its object id
 * does. With max_objects 1 the second object evicts the first (idle) and
 * gets its id; its stamp must differ. Real BPF maps (root, as the suite
 * runs); a fake /proc whose process maps this test's own binary and libc,
 * its root a link to "/" so the files open.
 */
#include "unwind/tables.h"

#include <bpf/bpf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi/unwind.h"

#define TGID 4243u

static char root[64];
static char exe_line[512], libc_line[512];

/* This process's executable mapping of a file whose path ends in @suffix. */
static bool own_mapping(const char *suffix, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = 0;
		if (strstr(line, " r-xp ") && n >= strlen(suffix) &&
		    !strcmp(line + n - strlen(suffix), suffix)) {
			snprintf(out, len, "%s\n", line);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static void write_maps(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/maps", root, TGID);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The first mapping of TGID as published: obj and stamp. */
static struct hc_unwind_map published(struct unwind_tables *ut)
{
	static struct hc_unwind_proc v;
	__u32 key = TGID;

	assert_int_equal(bpf_map_lookup_elem(unwind_tables__procs_fd(ut), &key, &v), 0);
	assert_int_equal(v.nr, 1);
	return v.maps[0];
}

static int setup(void **state)
{
	struct unwind_tables_opts o = { .proc_root = root, .sync_build = true, .debug_root = "",
					.max_objects = 1 };
	struct unwind_tables *ut;
	char path[128], self[256] = "";
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	if (!own_mapping(self, exe_line, sizeof(exe_line)) ||
	    !own_mapping("/libc.so.6", libc_line, sizeof(libc_line)))
		return -1;
	strcpy(root, "/tmp/hc-stamp.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/%u", root, TGID);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%u/root", root, TGID);
	if (symlink("/", path))
		return -1;
	if (unwind_tables__new(&ut, &o))
		return -1;	/* no BPF here (not root?): the suite runs as root */
	*state = ut;
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	unwind_tables__free(*state);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void a_reused_id_never_comes_with_an_old_stamp(void **state)
{
	struct unwind_tables *ut = *state;
	struct unwind_tables_stats st;
	struct hc_unwind_map a, b, c;

	write_maps(exe_line);
	assert_int_equal(unwind_tables__add_process(ut, TGID), 0);
	a = published(ut);
	assert_int_not_equal(a.obj, 0);
	assert_int_not_equal(a.stamp, 0);

	/* the process goes: its object idles; another object needs the only id */
	unwind_tables__remove_process(ut, TGID);
	write_maps(libc_line);
	assert_int_equal(unwind_tables__add_process(ut, TGID), 0);
	b = published(ut);
	unwind_tables__stats(ut, &st);
	assert_int_equal(st.objects, 1);
	assert_int_equal(b.obj, a.obj);		/* the id came round ... */
	assert_int_not_equal(b.stamp, 0);
	assert_int_not_equal(b.stamp, a.stamp);	/* ... its stamp did not */

	/* and the first object again: built anew, a third stamp */
	unwind_tables__remove_process(ut, TGID);
	write_maps(exe_line);
	assert_int_equal(unwind_tables__add_process(ut, TGID), 0);
	c = published(ut);
	assert_int_equal(c.obj, a.obj);
	assert_int_not_equal(c.stamp, a.stamp);
	assert_int_not_equal(c.stamp, b.stamp);
	assert_int_not_equal(c.stamp, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_reused_id_never_comes_with_an_old_stamp, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
