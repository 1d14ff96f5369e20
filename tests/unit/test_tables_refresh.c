// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * unwind_tables__refresh(): when a walk that ended in unmapped code re-reads
 * the process's mappings. A fake /proc (opts.proc_root) holds the maps
 * file; its mappings are anonymous, so no table is built and only the
 * refresh logic runs (against real BPF maps: root, as the suite runs).
 * - a pc in a mapping read since: not re-read (the walk is stale);
 * - a pc in no mapping: re-read at once; not found: backed off (1 ms,
 *   doubling), found: no backoff;
 * - the backoff of made-up pcs (an FP step's) does not hold back a pc from
 *   the registers or a CFI step (a dlopen()ed library): the fault that left
 *   half of a stage's samples at the plugin in CI.
 * And table stamps (abi/unwind.h, hc_unwind_map.stamp): the BPF walker
 * caches rules per CPU by (stamp, vaddr) and never flushes that cache, so a
 * published table's stamp must never come again, even when its object id
 * does. With max_objects 1 the second object evicts the first (idle) and
 * gets its id; its stamp must differ. There the fake process maps this
 * test's own binary and libc, its root a link to "/" so the files open.
 */
#include "unwind/tables.h"

#include <bpf/bpf.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "abi/unwind.h"

#define TGID 4242u

static char root[64];
static bool with_builder;	/* setup_with(): a builder thread, not sync_build */

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

/* The fake /proc with TGID's directory (its root a link to "/" if @root_link) and tables. */
static int setup_with(void **state, struct unwind_tables_opts *o, bool root_link)
{
	struct unwind_tables *ut;
	char dir[128];

	strcpy(root, "/tmp/hc-refresh.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/%u", root, TGID);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/%u/root", root, TGID);
	if (root_link && symlink("/", dir))
		return -1;
	o->proc_root = root;
	o->sync_build = !with_builder;
	o->debug_root = "";
	if (unwind_tables__new(&ut, o))
		return -1;	/* no BPF here (not root?): the suite runs as root */
	*state = ut;
	return 0;
}

static int setup(void **state)
{
	struct unwind_tables_opts o = { 0 };

	return setup_with(state, &o, false);
}

static int teardown(void **state)
{
	char cmd[160];

	unwind_tables__free(*state);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static struct unwind_tables_stats stats(struct unwind_tables *ut)
{
	struct unwind_tables_stats st;

	unwind_tables__stats(ut, &st);
	return st;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* two anonymous executable mappings; 0x300000.. comes later (the "dlopen") */
#define MAPS_A "100000-200000 r-xp 00000000 00:00 0 \n" \
	       "400000-500000 r-xp 00000000 00:00 0 \n"
#define MAPS_B MAPS_A "300000-380000 r-xp 00000000 00:00 0 \n"

static void test_stale_and_found(void **state)
{
	struct unwind_tables *ut = *state;

	write_maps(MAPS_A);
	assert_true(unwind_tables__add_process(ut, TGID) >= 0);
	/* a leaf in a mapping published already: nothing to re-read */
	assert_int_equal(unwind_tables__refresh(ut, TGID, 0x150000, 0), 0);
	assert_int_equal(stats(ut).refreshes, 0);
	assert_int_equal(stats(ut).refresh_stale, 1);
	/* a return address is looked up at pc - 1: 0x200000 is the end of 0x100000.. */
	unwind_tables__refresh(ut, TGID, 0x200000, 0x150000);
	assert_int_equal(stats(ut).refresh_stale, 2);
	assert_int_equal(stats(ut).refreshes, 0);

	/* the library appears: the first walk that meets it re-reads at once */
	write_maps(MAPS_B);
	unwind_tables__refresh(ut, TGID, 0x300010, 0);
	assert_int_equal(stats(ut).refreshes, 1);
	assert_int_equal(stats(ut).refresh_missed, 0);
	/* the walks queued behind it are stale now */
	unwind_tables__refresh(ut, TGID, 0x300020, 0);
	unwind_tables__refresh(ut, TGID, 0x300030, 0x150000);
	assert_int_equal(stats(ut).refreshes, 1);
	assert_int_equal(stats(ut).refresh_stale, 4);
	/* unknown tgid: its first sight registers it, not a refresh */
	assert_int_equal(unwind_tables__refresh(ut, TGID + 1, 0x300010, 0), 0);
	assert_int_equal(stats(ut).refreshes, 1);
}

static void test_backoff_apart(void **state)
{
	struct unwind_tables *ut = *state;

	write_maps(MAPS_A);
	assert_true(unwind_tables__add_process(ut, TGID) >= 0);
	/*
	 * Made-up pcs: the frame before is in a mapping without a table (anon:
	 * walked by frame pointer), so the pc may be any word. Re-read once,
	 * not found: the next ones within the backoff are put off.
	 */
	unwind_tables__refresh(ut, TGID, 0x9000000, 0x150000);
	assert_int_equal(stats(ut).refreshes, 1);
	assert_int_equal(stats(ut).refresh_missed, 1);
	unwind_tables__refresh(ut, TGID, 0x9100000, 0x150000);
	assert_int_equal(stats(ut).refreshes, 1);
	assert_int_equal(stats(ut).refresh_backoff, 1);
	sleep_ms(2);	/* past the first backoff (1 ms) */
	unwind_tables__refresh(ut, TGID, 0x9200000, 0x150000);
	assert_int_equal(stats(ut).refreshes, 2);
	unwind_tables__refresh(ut, TGID, 0x9300000, 0x150000);	/* within 2 ms: off */
	assert_int_equal(stats(ut).refresh_backoff, 2);

	/* a leaf pc is real code: re-read at once whatever the other backoff */
	write_maps(MAPS_B);
	unwind_tables__refresh(ut, TGID, 0x300010, 0);
	assert_int_equal(stats(ut).refreshes, 3);
	assert_int_equal(stats(ut).refresh_missed, 2);
	/* found: both backoffs gone */
	unwind_tables__refresh(ut, TGID, 0x9400000, 0x150000);
	assert_int_equal(stats(ut).refreshes, 4);
}

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

/* The first mapping of TGID as published: obj and stamp. */
static struct hc_unwind_map published(struct unwind_tables *ut)
{
	static struct hc_unwind_proc v;
	__u32 key = TGID;

	assert_int_equal(bpf_map_lookup_elem(unwind_tables__procs_fd(ut), &key, &v), 0);
	assert_int_equal(v.nr, 1);
	return v.maps[0];
}

/* this test binary's own executable mapping as a maps line, in exe_line */
static bool own_exe_mapping(void)
{
	char self[256] = "";
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = 0;
	return own_mapping(self, exe_line, sizeof(exe_line));
}

static int setup_one_object(void **state)
{
	struct unwind_tables_opts o = { .max_objects = 1 };

	if (!own_exe_mapping() || !own_mapping("/libc.so.6", libc_line, sizeof(libc_line)))
		return -1;
	return setup_with(state, &o, true);
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

static int setup_builder(void **state)
{
	struct unwind_tables_opts o = { 0 };
	int err;

	if (!own_exe_mapping())
		return -1;
	with_builder = true;
	err = setup_with(state, &o, true);
	with_builder = false;
	return err;
}

/* Mapping @i of TGID as published. */
static struct hc_unwind_map published_at(struct unwind_tables *ut, uint32_t i)
{
	static struct hc_unwind_proc v;
	__u32 key = TGID;

	assert_int_equal(bpf_map_lookup_elem(unwind_tables__procs_fd(ut), &key, &v), 0);
	assert_true(i < v.nr);
	return v.maps[i];
}

/*
 * t_unwind's stage_dlopen in CI: the plugin's table, built in line in the
 * re-read, took 563 ms, and the process's mappings were published only
 * after it: the plugin's samples ended in "unmapped code" all that time. A
 * re-read's new objects (this test's own binary, 220 KiB: in line before)
 * go to the builder thread, first in its queue, waited for a bounded time.
 */
static void a_reread_builds_no_table_in_line(void **state)
{
	struct unwind_tables *ut = *state;
	struct unwind_tables_stats st0, st;
	char maps[1024];
	unsigned long start;
	struct hc_unwind_map m;
	int i;

	assert_int_equal(sscanf(exe_line, "%lx-", &start), 1);
	write_maps(MAPS_A);
	assert_int_equal(unwind_tables__add_process(ut, TGID), 0);
	st0 = stats(ut);
	snprintf(maps, sizeof(maps), "%s%s", MAPS_A, exe_line);	/* the "dlopen" */
	write_maps(maps);
	assert_int_equal(unwind_tables__refresh(ut, TGID, start + 0x10, 0), 1);
	st = stats(ut);
	assert_int_equal(st.refreshes, st0.refreshes + 1);
	assert_int_equal(st.objects_queued, st0.objects_queued + 1);
	assert_true(st.build_loop_ns == st0.build_loop_ns);	/* nothing built in line */
	/* published at once: with its table (within the wait) or walked by FP until it comes */
	m = published_at(ut, 2);
	assert_true(m.start == start);
	assert_true(m.obj || m.height == HC_UNWIND_HEIGHT_BUILDING);
	for (i = 0; i < 200 && !published_at(ut, 2).obj; i++) {
		sleep_ms(10);
		unwind_tables__poll(ut);
	}
	assert_int_not_equal(published_at(ut, 2).obj, 0);
	assert_int_equal(stats(ut).objects_built, st0.objects_built + 1);
}

/*
 * The session's builder thread (deferred processes, the agent) holds the
 * tables' lock for its call: with every table left to the tables' builder,
 * that call builds nothing in line, so it holds no re-read for long.
 */
static void an_async_add_builds_no_table_in_line(void **state)
{
	struct unwind_tables *ut = *state;
	struct unwind_tables_stats st;
	int i;

	write_maps(exe_line);
	assert_int_equal(unwind_tables__add_process_async(ut, TGID), 0);
	st = stats(ut);
	assert_int_equal(st.objects_queued, 1);
	assert_true(st.build_loop_ns == 0);
	assert_int_equal(published_at(ut, 0).height, HC_UNWIND_HEIGHT_BUILDING);
	for (i = 0; i < 200 && !published_at(ut, 0).obj; i++) {
		sleep_ms(10);
		unwind_tables__poll(ut);
	}
	assert_int_not_equal(published_at(ut, 0).obj, 0);
}

/*
 * Demand (unwind_tables__demand()): samples of a process walked while its
 * table is being built raise that table in the builder's queue (the order
 * itself: test_tables_build). Counted per process's tables still awaited,
 * whether or not the builder took the job yet; nothing for a process not
 * registered, nor once the table is in.
 */
static void demand_counts_the_tables_a_process_awaits(void **state)
{
	struct unwind_tables *ut = *state;
	int i;

	write_maps(exe_line);
	assert_int_equal(unwind_tables__add_process_async(ut, TGID), 0);
	assert_int_equal(unwind_tables__demand(ut, TGID, 7), 1);
	assert_int_equal(unwind_tables__demand(ut, TGID + 1, 7), 0);	/* not registered */
	assert_int_equal(unwind_tables__demand(ut, TGID, 0), 0);	/* no sample: nothing */
	assert_int_equal(stats(ut).demand_samples, 7);
	for (i = 0; i < 200 && !published_at(ut, 0).obj; i++) {
		sleep_ms(10);
		unwind_tables__poll(ut);
	}
	assert_int_not_equal(published_at(ut, 0).obj, 0);
	assert_int_equal(unwind_tables__demand(ut, TGID, 3), 0);
	assert_int_equal(stats(ut).demand_samples, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stale_and_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backoff_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(a_reread_builds_no_table_in_line, setup_builder,
						teardown),
		cmocka_unit_test_setup_teardown(an_async_add_builds_no_table_in_line, setup_builder,
						teardown),
		cmocka_unit_test_setup_teardown(demand_counts_the_tables_a_process_awaits,
						setup_builder, teardown),
		cmocka_unit_test_setup_teardown(a_reused_id_never_comes_with_an_old_stamp,
						setup_one_object, teardown),
	};

	if (geteuid()) {
		fprintf(stderr, "test_tables_refresh: needs root (BPF maps); skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
