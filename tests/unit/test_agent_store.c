// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Retention: which intervals go, oldest first; the store holds its byte
 * budget on disk, keeps its index true to the files on a full disk (writes
 * fail past a simulated capacity, see agent_store.mk), and trusts nothing in
 * its directory it did not write.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/store.h"

/* The simulated disk: writes into @disk_dir past @disk_cap bytes fail. */
static const char *disk_dir;
static long long disk_cap = -1;
static int disk_errno = ENOSPC;

static uint64_t all_bytes(const char *dir)
{
	char path[512];
	struct dirent *de;
	struct stat sb;
	uint64_t sum = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!lstat(path, &sb) && S_ISREG(sb.st_mode))
			sum += sb.st_size;
	}
	if (d)
		closedir(d);
	return sum;
}

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	uint64_t used;

	if (disk_dir && disk_cap >= 0) {
		used = all_bytes(disk_dir);
		if (used + n > (uint64_t)disk_cap) {
			if (used >= (uint64_t)disk_cap) {
				errno = disk_errno;
				return -1;
			}
			n = disk_cap - used;	/* a short write, then the error */
		}
	}
	return __real_write(fd, buf, n);
}

#define MIN_MS 60000

static const struct retention_item ten[] = {
	{ 1 * MIN_MS, 100 }, { 2 * MIN_MS, 100 }, { 3 * MIN_MS, 100 }, { 4 * MIN_MS, 100 },
	{ 5 * MIN_MS, 100 }, { 6 * MIN_MS, 100 }, { 7 * MIN_MS, 100 }, { 8 * MIN_MS, 100 },
	{ 9 * MIN_MS, 100 }, { 10 * MIN_MS, 100 },
};

static void no_limits_delete_nothing(void **state)
{
	struct retention r = { 0 };

	(void)state;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 0);
}

static void age_deletes_intervals_that_ended_too_long_ago(void **state)
{
	struct retention r = { .max_age_ns = 5ull * MIN_MS * 1000000 };

	(void)state;
	/* at 11 min, ends before 6 min are older than 5 min */
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 0), 5);
}

static void count_keeps_room_for_the_new_interval(void **state)
{
	struct retention r = { .max_intervals = 4 };

	(void)state;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 1), 7);
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 0), 6);
}

static void bytes_delete_oldest_until_the_new_one_fits(void **state)
{
	struct retention r = { .max_bytes = 550 };

	(void)state;
	/* 1000 + 250 incoming: keep at most 300 old bytes -> delete 7 */
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 250), 7);
	/* exactly at the budget is allowed */
	r.max_bytes = 1100;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 0);
	/* larger than the whole budget: everything goes (the caller refuses it) */
	r.max_bytes = 50;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 10);
}

static void the_strictest_limit_wins(void **state)
{
	struct retention r = { .max_age_ns = 8ull * MIN_MS * 1000000, .max_intervals = 6,
			       .max_bytes = 350 };

	(void)state;
	assert_int_equal(retention_victims(ten, 10, &r, 11 * MIN_MS, 100), 8);
}

static uint64_t dir_bytes(const char *dir, size_t *files)
{
	char path[512];
	struct dirent *de;
	struct stat sb;
	uint64_t sum = 0;
	DIR *d = opendir(dir);

	*files = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!stat(path, &sb)) {
			sum += sb.st_size;
			++*files;
		}
	}
	closedir(d);
	return sum;
}

static void the_store_never_exceeds_its_budget_on_disk(void **state)
{
	char dir[] = "/tmp/hc-store-XXXXXX", blob[700];
	struct retention r = { .max_bytes = 8192 };
	struct store_blob b[2] = { { "oncpu", STORE_PPROF, blob, 700 },
				    { "oncpu", STORE_FOLDED, blob, 300 } };
	struct store *st;
	size_t files;

	(void)state;
	memset(blob, 'x', sizeof(blob));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(store__open(&st, dir, &r), 0);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(store__write(st, 1700000000000ll + i * 1000,
					      1700000000000ll + i * 1000 + 1000, false, b, 2), 0);
		assert_true(dir_bytes(dir, &files) <= r.max_bytes);
	}
	assert_true(store__nr(st) >= 5);
	/* the newest are kept */
	assert_int_equal(store__get(st, store__nr(st) - 1)->start_ms, 1700000039000ll);
	assert_int_equal(files, 2 * store__nr(st) + 1);
	/* too big for the budget: refused, nothing deleted */
	b[0].len = 700;
	r.max_bytes = 1000;
	store__set_retention(st, &r);
	assert_int_equal(store__write(st, 1700000100000ll, 1700000101000ll, false, b, 2), -EFBIG);
	store__free(st);

	/* a restart finds what is there */
	r.max_bytes = 8192;
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_true(store__nr(st) >= 5);
	assert_int_equal(store__get(st, 0)->end_ms, store__get(st, 0)->start_ms + 1000);
	store__free(st);
	snprintf(blob, sizeof(blob), "rm -rf '%s'", dir);
	assert_int_equal(system(blob), 0);
}

/* The agent's counters file is a kind of its own, JSON, and found again after a restart. */
static void counters_json_is_stored_and_found_again(void **state)
{
	char dir[] = "/tmp/hc-store-XXXXXX", cmd[64];
	static const char json[] = "{\"seconds\":1,\"processes\":[]}\n";
	struct retention r = { 0 };
	struct store_blob b[3] = { { "oncpu", STORE_PPROF, "p", 1 }, { "oncpu", STORE_FOLDED, "f", 1 },
				   { "counters", STORE_JSON, json, sizeof(json) - 1 } };
	const struct store_interval *iv;
	struct store *st;
	char *data;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_int_equal(store__write(st, 1700000000000ll, 1700000001000ll, false, b, 3), 0);
	store__free(st);
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_int_equal(store__nr(st), 1);
	iv = store__get(st, 0);
	assert_int_equal(iv->nr_files, 3);
	for (size_t i = 0; i < iv->nr_files; i++) {
		if (strcmp(iv->files[i].kind, "counters"))
			continue;
		assert_int_equal(iv->files[i].format, STORE_JSON);
		assert_string_equal(iv->files[i].name, "20231114T221320.000Z-counters.json");
		assert_int_equal(store__read(st, iv->files[i].name, false, &data, &len), 0);
		assert_int_equal(len, sizeof(json) - 1);
		assert_memory_equal(data, json, len);
		free(data);
	}
	store__free(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static bool is_profile_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 6 && !strcmp(n + l - 6, ".pb.gz")) ||
	       (l > 10 && !strcmp(n + l - 10, ".folded.gz")) || (l > 5 && !strcmp(n + l - 5, ".json"));
}

/*
 * index.jsonl lists exactly the profile files in @dir (no index: no files),
 * no temporary is left, and the store lists as many intervals. Returns the
 * number of files.
 */
static size_t assert_index_matches_disk(const char *dir, const struct store *st)
{
	char path[512], line[8192], listed[256][64];
	size_t nlisted = 0, nlines = 0, ondisk = 0;
	struct dirent *de;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/index.jsonl", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		nlines++;
		for (char *p = line; (p = strstr(p, "\"name\":\"")); ) {
			p += 8;
			assert_true(nlisted < 256);
			snprintf(listed[nlisted++], 64, "%.*s", (int)strcspn(p, "\""), p);
		}
	}
	if (f)
		fclose(f);
	assert_int_equal(nlines, store__nr(st));
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		bool found = false;

		assert_null(strstr(de->d_name, ".tmp."));
		if (!is_profile_name(de->d_name))
			continue;
		ondisk++;
		for (size_t i = 0; i < nlisted; i++)
			found |= !strcmp(listed[i], de->d_name);
		if (!found)
			fail_msg("'%s' is on disk but not in the index", de->d_name);
	}
	closedir(d);
	if (ondisk != nlisted)
		fail_msg("the index lists %zu files, %zu are on disk", nlisted, ondisk);
	return ondisk;
}

/* A disk of a few intervals, no budget: only ENOSPC deletes, and the index stays true. */
static void a_full_disk_never_leaves_a_stale_index(void **state)
{
	char dir[] = "/tmp/hc-store-XXXXXX", blob[700];
	struct retention r = { 0 };
	struct store_blob b[2] = { { "oncpu", STORE_PPROF, blob, 700 },
				    { "oncpu", STORE_FOLDED, blob, 300 } };
	struct store_stats ss;
	struct store *st;
	int64_t t = 1700000000000ll;
	int err;

	(void)state;
	memset(blob, 'x', sizeof(blob));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(store__open(&st, dir, &r), 0);
	disk_dir = dir;
	/* room for about five intervals and their index lines */
	disk_cap = 6000;
	for (int i = 0; i < 30; i++, t += 1000) {
		err = store__write(st, t, t + 1000, false, b, 2);
		assert_int_equal(err, 0);
		assert_index_matches_disk(dir, st);
		assert_true(all_bytes(dir) <= (uint64_t)disk_cap);
	}
	store__stats(st, &ss);
	assert_true(ss.deleted_nospace >= 20);
	assert_true(store__nr(st) >= 3);
	/* room for the new blobs but not for the index: the index costs old intervals */
	for (int i = 0; i < 5; i++, t += 1000) {
		disk_cap = all_bytes(dir) + 1000;
		assert_int_equal(store__write(st, t, t + 1000, false, b, 2), 0);
		assert_index_matches_disk(dir, st);
	}
	/* a blob larger than the disk: everything goes, the interval is dropped */
	disk_cap = 500;
	err = store__write(st, t, t + 1000, false, b, 2);
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(store__nr(st), 0);
	assert_int_equal(assert_index_matches_disk(dir, st), 0);
	/* an I/O error: nothing half-written, the index as before */
	disk_cap = 100000;
	t += 1000;
	assert_int_equal(store__write(st, t, t + 1000, false, b, 2), 0);
	disk_cap = all_bytes(dir) + 100;
	t += 1000;
	disk_errno = EIO;
	assert_int_equal(store__write(st, t, t + 1000, false, b, 2), -EIO);
	assert_int_equal(store__nr(st), 1);
	assert_int_equal(assert_index_matches_disk(dir, st), 2);
	disk_errno = ENOSPC;
	disk_cap = -1;
	disk_dir = NULL;
	store__free(st);
	/* and a restart agrees */
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_int_equal(store__nr(st), 1);
	assert_index_matches_disk(dir, st);
	store__free(st);
	rm_rf(dir);
}

/* sshd StrictModes: a directory another user can write into is refused. */
static void a_directory_others_can_write_is_refused(void **state)
{
	char top[] = "/tmp/hc-store-XXXXXX", dir[64];
	struct retention r = { 0 };
	struct store *st;
	struct stat sb;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/hist", top);
	assert_int_equal(store__open(&st, dir, &r), 0);	/* created 0750 */
	store__free(st);
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 0027, 0);
	assert_int_equal(chmod(dir, 0770), 0);
	assert_int_equal(store__open(&st, dir, &r), -EPERM);
	assert_int_equal(chmod(dir, 0702), 0);
	assert_int_equal(store__open(&st, dir, &r), -EPERM);
	assert_int_equal(chmod(dir, 0755), 0);	/* readable by others is fine */
	assert_int_equal(store__open(&st, dir, &r), 0);
	store__free(st);
	/* a parent others can write: they could swap the directory */
	assert_int_equal(chmod(top, 0777), 0);
	assert_int_equal(store__open(&st, dir, &r), -EPERM);
	assert_int_equal(chmod(top, 01777), 0);	/* sticky, as /tmp: they cannot */
	assert_int_equal(store__open(&st, dir, &r), 0);
	store__free(st);
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(store__open(&st, dir, &r), -EPERM);
	}
	rm_rf(top);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static bool exists(const char *dir, const char *name)
{
	char path[512];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &sb);
}

/*
 * Links and other users' files under our names are neither listed, served
 * nor deleted; only our own temporaries are cleaned up.
 */
static void links_and_foreign_files_are_never_read_nor_deleted(void **state)
{
	char dir[] = "/tmp/hc-store-XXXXXX", secret[] = "/tmp/hc-secret-XXXXXX", path[512];
	struct retention r = { .max_intervals = 1 };
	struct store_blob b[1] = { { "oncpu", STORE_FOLDED, "ours", 4 } };
	static const char *const planted[] = {
		"20231114T221400.000Z-counters.json",	/* symlink */
		"20231114T221401.000Z-oncpu.pb.gz",	/* hard link */
		"20231114T221402.000Z-oncpu.folded.gz",	/* another user's (root only) */
		"20231114T221403.000Z-lock.pb.gz.tmp.abcdef",	/* another user's temporary */
		"notes.tmp.abcdef",			/* not our pattern */
	};
	bool root = geteuid() == 0;
	struct store_stats ss;
	struct store *st;
	char *data;
	size_t len;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fd = mkstemp(secret);
	assert_true(fd >= 0);
	close(fd);
	put_file(secret, "SECRET\n");
	snprintf(path, sizeof(path), "%s/%s", dir, planted[0]);
	assert_int_equal(symlink(secret, path), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, planted[1]);
	assert_int_equal(link(secret, path), 0);
	for (int i = 2; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, planted[i]);
		put_file(path, "theirs");
		if (root && i < 4)
			assert_int_equal(chown(path, 65534, 65534), 0);
	}
	/* a temporary of ours from a crash: cleaned up */
	snprintf(path, sizeof(path), "%s/20231114T221404.000Z-oncpu.pb.gz.tmp.x1y2z3", dir);
	put_file(path, "ours");
	assert_int_equal(store__open(&st, dir, &r), 0);
	assert_false(exists(dir, "20231114T221404.000Z-oncpu.pb.gz.tmp.x1y2z3"));
	store__stats(st, &ss);
	assert_int_equal(store__nr(st), root ? 0 : 1);	/* non-root: the "foreign" file is ours */
	assert_int_equal(ss.ignored_files, root ? 4 : 2);
	assert_int_equal(store__read(st, planted[0], false, &data, &len), -ENOENT);
	assert_int_equal(store__read(st, planted[1], false, &data, &len), -ENOENT);
	/* retention deletes only what we wrote */
	for (int64_t t = 1700000000000ll; t < 1700000005000ll; t += 1000)
		assert_int_equal(store__write(st, t, t + 1000, false, b, 1), 0);
	assert_int_equal(store__nr(st), 1);
	for (int i = 0; i < 5; i++)
		if (root || i != 2)
			assert_true(exists(dir, planted[i]));
	/* a listed file swapped for a link after the scan: not one byte through it */
	snprintf(path, sizeof(path), "%s/%s", dir, store__get(st, 0)->files[0].name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(secret, path), 0);
	data = NULL;
	assert_int_equal(store__read(st, store__get(st, 0)->files[0].name, false, &data, &len),
			 -ELOOP);
	assert_int_equal(store__read(st, store__get(st, 0)->files[0].name, true, &data, &len),
			 -ELOOP);
	assert_null(data);
	store__free(st);
	fd = open(secret, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, path, sizeof(path)), 7);	/* the target is untouched */
	close(fd);
	unlink(secret);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_limits_delete_nothing),
		cmocka_unit_test(age_deletes_intervals_that_ended_too_long_ago),
		cmocka_unit_test(count_keeps_room_for_the_new_interval),
		cmocka_unit_test(bytes_delete_oldest_until_the_new_one_fits),
		cmocka_unit_test(the_strictest_limit_wins),
		cmocka_unit_test(the_store_never_exceeds_its_budget_on_disk),
		cmocka_unit_test(counters_json_is_stored_and_found_again),
		cmocka_unit_test(a_full_disk_never_leaves_a_stale_index),
		cmocka_unit_test(a_directory_others_can_write_is_refused),
		cmocka_unit_test(links_and_foreign_files_are_never_read_nor_deleted),
	};

	return cmocka_run_group_tests_name("agent_store", tests, NULL, NULL);
}
