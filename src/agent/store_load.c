// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Opening the history directory (what a previous run left) and reading files back. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "agent/store.h"
#include "agent/store_int.h"
#include "util/log.h"

#define STORE_MAX_READ (256u << 20)	/* a profile larger than this is not served */

static const char *const store_kinds[] = { "oncpu", "offcpu", "runq", "lock", "counters" };
_Static_assert(sizeof("counters") <= STORE_KIND_LEN, "the longest kind must fit store_file.kind");

/* Only files the store lists are read: no path from a request reaches open(). */
static bool store_has_file(const struct store *st, const char *name)
{
	for (size_t i = 0; i < st->nr; i++)
		for (size_t j = 0; j < st->iv[i].nr_files; j++)
			if (!strcmp(st->iv[i].files[j].name, name))
				return true;
	return false;
}

/* "20250102T030405.678Z" -> Unix ms; -1 if malformed. */
static int64_t stamp_ms(const char *s)
{
	struct tm tm = { 0 };
	int ms, n = 0;

	if (sscanf(s, "%4d%2d%2dT%2d%2d%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &n) != 7 || n != 20)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000 + ms;
}

/*
 * A file name of ours: stamp, kind and format (profiles: pprof or folded;
 * counters: json). @stamp holds STORE_STAMP_LEN, @kind @kind_len bytes.
 */
static bool parse_name(const char *name, char *stamp, char *kind, size_t kind_len,
		       enum store_format *fmt)
{
	const char *rest = name + 21;

	if (strlen(name) < 21 || name[20] != '-' || stamp_ms(name) < 0)
		return false;
	for (size_t i = 0; i < sizeof(store_kinds) / sizeof(store_kinds[0]); i++) {
		size_t n = strlen(store_kinds[i]);
		bool counters = !strcmp(store_kinds[i], "counters");

		if (strncmp(rest, store_kinds[i], n) || rest[n] != '.')
			continue;
		if (n >= kind_len)
			return false;
		if (counters ? strcmp(rest + n, ".json") :
			       strcmp(rest + n, ".pb.gz") && strcmp(rest + n, ".folded.gz"))
			return false;
		memcpy(stamp, name, 20);
		stamp[20] = '\0';
		memcpy(kind, store_kinds[i], n + 1);
		*fmt = counters ? STORE_JSON : !strcmp(rest + n, ".pb.gz") ? STORE_PPROF : STORE_FOLDED;
		return true;
	}
	return false;
}

/*
 * One of our temporaries: "<our name>.tmp.XXXXXX" (store_tmp_open(); the
 * ".hotcold-probe" ones of earlier versions too). Anything else is left alone.
 */
static bool is_our_tmp(const char *name)
{
	char base[NAME_MAX + 1], stamp[STORE_STAMP_LEN], kind[STORE_KIND_LEN];
	const char *t = strstr(name, ".tmp.");
	enum store_format fmt;
	size_t n;

	if (!t || strlen(t + 5) != 6 || (size_t)(t - name) >= sizeof(base))
		return false;
	for (const char *p = t + 5; *p; p++)
		if (!isalnum((unsigned char)*p))
			return false;
	n = t - name;
	memcpy(base, name, n);
	base[n] = '\0';
	return !strcmp(base, STORE_INDEX) || !strcmp(base, ".hotcold-probe") ||
	       parse_name(base, stamp, kind, sizeof(kind), &fmt);
}

static struct store_interval *find_or_add(struct store *st, const char *stamp)
{
	void *p;

	for (size_t i = st->nr; i-- > 0;)	/* readdir order is often creation order */
		if (!strcmp(st->iv[i].stamp, stamp))
			return &st->iv[i];
	if (st->nr == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;

		p = realloc(st->iv, cap * sizeof(*st->iv));
		if (!p)
			return NULL;
		st->iv = p;
		st->cap = cap;
	}
	memset(&st->iv[st->nr], 0, sizeof(st->iv[0]));
	snprintf(st->iv[st->nr].stamp, sizeof(st->iv[0].stamp), "%s", stamp);
	st->iv[st->nr].start_ms = stamp_ms(stamp);
	return &st->iv[st->nr++];
}

static int cmp_stamp(const void *a, const void *b)
{
	return strcmp(((const struct store_interval *)a)->stamp,
		      ((const struct store_interval *)b)->stamp);
}

/* Ends and partial flags from the old index; intervals it lacks keep end 0. */
static void read_old_index(struct store *st)
{
	char line[STORE_LINE_MAX], partial[8];
	struct store_interval key, *iv;
	long long start, end;
	struct stat sb;
	FILE *f;
	int fd;

	fd = store_open_file(st, STORE_INDEX, &sb);
	if (fd < 0) {
		if (fd != -ENOENT)
			pr_warn("agent: ignoring '%s/%s': %s\n", st->dir, STORE_INDEX,
				fd == -EPERM ? "not a regular file of ours" : strerror(-fd));
		return;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
	/* lines longer than ours are read in pieces, each failing the pattern */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "{\"start_ms\":%lld,\"end_ms\":%lld,\"partial\":%7[a-z],",
			   &start, &end, partial) != 3)
			continue;
		store_stamp(start, key.stamp, sizeof(key.stamp));
		iv = st->nr ? bsearch(&key, st->iv, st->nr, sizeof(*st->iv), cmp_stamp) : NULL;
		if (iv) {
			iv->end_ms = end;
			iv->partial = !strcmp(partial, "true");
		}
	}
	fclose(f);
}

/* A directory entry: ours, listed; a temporary of ours, deleted; else left alone. */
static int scan_entry(struct store *st, const char *name)
{
	char stamp[STORE_STAMP_LEN], kind[STORE_KIND_LEN];
	struct store_interval *iv;
	enum store_format fmt;
	struct stat sb;
	bool tmp = is_our_tmp(name);
	size_t len = strlen(name);

	if (!tmp && (len >= STORE_NAME_LEN || !parse_name(name, stamp, kind, sizeof(kind), &fmt)))
		return 0;
	if (fstatat(st->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (!store_stat_ours(st, &sb)) {
		st->stats.ignored_files++;
		pr_warn("agent: ignoring '%s/%s': not written by us (%s)\n", st->dir, name,
			S_ISLNK(sb.st_mode) ? "a symlink" : !S_ISREG(sb.st_mode) ? "not a file" :
			sb.st_uid != st->uid ? "another user's" : "a hard link");
		return 0;
	}
	if (tmp) {
		store_unlink(st, name);
		return 0;
	}
	iv = find_or_add(st, stamp);
	if (!iv)
		return -ENOMEM;
	if (iv->nr_files == STORE_MAX_FILES)
		return 0;
	memcpy(iv->files[iv->nr_files].name, name, len + 1);	/* len < STORE_NAME_LEN */
	memcpy(iv->files[iv->nr_files].kind, kind, sizeof(kind));
	iv->files[iv->nr_files].format = fmt;
	iv->files[iv->nr_files++].bytes = sb.st_size;
	return 0;
}

/* Our files into the list; our temporaries of a crashed run removed. */
static int scan_dir(struct store *st)
{
	struct dirent *de;
	int fd, err = 0;
	DIR *d;

	/* a descriptor of its own: readdir's position is not dirfd's */
	fd = openat(st->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	while (!err && (de = readdir(d)))
		err = scan_entry(st, de->d_name);
	closedir(d);
	if (err)
		return err;
	if (st->nr)	/* qsort(NULL, 0) is undefined */
		qsort(st->iv, st->nr, sizeof(*st->iv), cmp_stamp);
	read_old_index(st);
	for (size_t i = 0; i < st->nr; i++) {
		char line[STORE_LINE_MAX];

		st->iv[i].index_bytes = 2 * ((uint64_t)store_index_line(&st->iv[i], line,
									 sizeof(line)) + 1);
	}
	return 0;
}

/* Can we create files here? (root ignores modes, but not read-only mounts.) */
static int check_writable(const struct store *st)
{
	char tmp[NAME_MAX + 1];
	int fd;

	fd = store_tmp_open(st, STORE_INDEX, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	close(fd);
	unlinkat(st->dirfd, tmp, 0);
	return 0;
}

int store__open(struct store **out, const char *dir, const struct retention *r)
{
	struct store *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	st->dirfd = -1;
	st->uid = geteuid();
	st->dir = strdup(dir);
	st->keep = *r;
	if (!st->dir) {
		store__free(st);
		return -ENOMEM;
	}
	st->dirfd = store_dir_open(dir, st->uid);
	if (st->dirfd < 0) {
		err = st->dirfd;
		store__free(st);
		return err;
	}
	err = check_writable(st);
	if (err) {
		pr_warn("agent: cannot write to directory '%s': %s\n", dir, strerror(-err));
		store__free(st);
		return err;
	}
	err = scan_dir(st);
	if (!err)
		err = store_write_index(st);
	if (err) {
		pr_warn("agent: cannot open history '%s': %s\n", dir, strerror(-err));
		store__free(st);
		return err;
	}
	*out = st;
	return 0;
}

void store__free(struct store *st)
{
	if (!st)
		return;
	if (st->dirfd >= 0)
		close(st->dirfd);
	free(st->dir);
	free(st->iv);
	free(st);
}

void store__set_retention(struct store *st, const struct retention *r)
{
	st->keep = *r;
}

size_t store__nr(const struct store *st)
{
	return st->nr;
}

const struct store_interval *store__get(const struct store *st, size_t i)
{
	return i < st->nr ? &st->iv[i] : NULL;
}

const struct store_interval *store__find(const struct store *st, const char *stamp)
{
	for (size_t i = 0; i < st->nr; i++)
		if (!strcmp(st->iv[i].stamp, stamp))
			return &st->iv[i];
	return NULL;
}

const char *store__dir(const struct store *st)
{
	return st->dir;
}

void store__stats(const struct store *st, struct store_stats *ss)
{
	*ss = st->stats;
}

/* All of @fd (gunzipped when @gz) into a malloc'd buffer, at most STORE_MAX_READ bytes. */
static int read_all(gzFile gz, int fd, char **data, size_t *len)
{
	char *buf = NULL, *p;
	size_t cap = 0, n = 0;
	ssize_t r;

	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			p = cap > STORE_MAX_READ ? NULL : realloc(buf, cap);
			if (!p) {
				free(buf);
				return cap > STORE_MAX_READ ? -EFBIG : -ENOMEM;
			}
			buf = p;
		}
		r = gz ? gzread(gz, buf + n, cap - n) : read(fd, buf + n, cap - n);
		if (r < 0 && !gz && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -EIO;
		}
		if (!r)
			break;
		n += r;
	}
	*data = buf;
	*len = n;
	return 0;
}

int store__read(const struct store *st, const char *name, bool gunzip, char **data,
		size_t *len)
{
	gzFile gz = NULL;
	struct stat sb;
	int fd, err;

	if (!store_has_file(st, name))
		return -ENOENT;
	fd = store_open_file(st, name, &sb);
	if (fd < 0) {
		if (fd != -ENOENT)
			pr_warn("agent: not serving '%s/%s': %s\n", st->dir, name,
				fd == -EPERM ? "no longer a regular file of ours" : strerror(-fd));
		return fd;
	}
	if ((uint64_t)sb.st_size > STORE_MAX_READ) {
		close(fd);
		return -EFBIG;
	}
	if (gunzip) {
		gz = gzdopen(fd, "rb");	/* on success gzclose() closes fd */
		if (!gz) {
			close(fd);
			return -ENOMEM;
		}
	}
	err = read_all(gz, fd, data, len);
	if (gz)
		gzclose(gz);
	else
		close(fd);
	return err;
}
