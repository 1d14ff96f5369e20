// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Opening the history directory (what a previous run left) and reading files back. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "agent/store.h"
#include "agent/store_int.h"
#include "output/outfile.h"
#include "util/log.h"

/* "20250102T030405.678Z" -> Unix ms; -1 if malformed. */
#define STORE_MAX_READ (256u << 20)	/* a profile larger than this is not served */

/* Only files the store lists are read: no path from a request reaches open(). */
static bool store_has_file(const struct store *st, const char *name)
{
	for (size_t i = 0; i < st->nr; i++)
		for (size_t j = 0; j < st->iv[i].nr_files; j++)
			if (!strcmp(st->iv[i].files[j].name, name))
				return true;
	return false;
}

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

/* A file name of ours: stamp, kind and format (profiles: pprof or folded; counters: json). */
static bool parse_name(const char *name, char *stamp, char *kind, enum store_format *fmt)
{
	static const char *const kinds[] = { "oncpu", "offcpu", "runq", "lock", "counters" };
	const char *rest = name + 20;

	if (strlen(name) < 21 || name[20] != '-' || stamp_ms(name) < 0)
		return false;
	rest++;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i]);
		bool counters = !strcmp(kinds[i], "counters");

		if (strncmp(rest, kinds[i], n) || rest[n] != '.')
			continue;
		if (counters ? strcmp(rest + n, ".json") :
			       strcmp(rest + n, ".pb.gz") && strcmp(rest + n, ".folded.gz"))
			return false;
		memcpy(stamp, name, 20);
		stamp[20] = '\0';
		strcpy(kind, kinds[i]);
		*fmt = counters ? STORE_JSON : !strcmp(rest + n, ".pb.gz") ? STORE_PPROF : STORE_FOLDED;
		return true;
	}
	return false;
}

static struct store_interval *find_or_add(struct store *st, const char *stamp)
{
	void *p;

	for (size_t i = 0; i < st->nr; i++)
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
	strcpy(st->iv[st->nr].stamp, stamp);
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
	char path[4096], line[2048], stamp[STORE_STAMP_LEN], partial[8];
	long long start, end;
	FILE *f;

	snprintf(path, sizeof(path), "%s/index.jsonl", st->dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "{\"start_ms\":%lld,\"end_ms\":%lld,\"partial\":%7[a-z],",
			   &start, &end, partial) != 3)
			continue;
		store_stamp(start, stamp, sizeof(stamp));
		for (size_t i = 0; i < st->nr; i++)
			if (!strcmp(st->iv[i].stamp, stamp)) {
				st->iv[i].end_ms = end;
				st->iv[i].partial = !strcmp(partial, "true");
			}
	}
	fclose(f);
}

/* Our files into the list; temporaries of a crashed run removed. */
static int scan_dir(struct store *st)
{
	char stamp[STORE_STAMP_LEN], kind[8], path[4096];
	struct store_interval *iv;
	struct dirent *de;
	struct stat sb;
	enum store_format fmt;
	DIR *d = opendir(st->dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", st->dir, de->d_name);
		if (strstr(de->d_name, ".tmp.")) {
			unlink(path);
			continue;
		}
		if (!parse_name(de->d_name, stamp, kind, &fmt) || lstat(path, &sb) ||
		    !S_ISREG(sb.st_mode))
			continue;
		iv = find_or_add(st, stamp);
		if (!iv) {
			closedir(d);
			return -ENOMEM;
		}
		if (iv->nr_files == STORE_MAX_FILES)
			continue;
		snprintf(iv->files[iv->nr_files].name, sizeof(iv->files[0].name), "%s",
			 de->d_name);
		strcpy(iv->files[iv->nr_files].kind, kind);
		iv->files[iv->nr_files].format = fmt;
		iv->files[iv->nr_files++].bytes = sb.st_size;
	}
	closedir(d);
	qsort(st->iv, st->nr, sizeof(*st->iv), cmp_stamp);
	read_old_index(st);
	for (size_t i = 0; i < st->nr; i++) {
		char line[2048];

		st->iv[i].index_bytes = 2 * ((uint64_t)store_index_line(&st->iv[i], line,
									 sizeof(line)) + 1);
	}
	return 0;
}

/* Can we create files here? (root ignores modes, but not read-only mounts.) */
static int check_writable(const char *dir)
{
	struct outfile of;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/.hotcold-probe", dir);
	err = outfile_open(&of, path, 0600);
	if (!err)
		outfile_discard(&of);
	return err;
}

int store__open(struct store **out, const char *dir, const struct retention *r)
{
	struct store *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	st->dir = strdup(dir);
	st->keep = *r;
	err = st->dir ? 0 : -ENOMEM;
	if (!err && mkdir(dir, 0750) && errno != EEXIST)
		err = -errno;
	if (!err)
		err = check_writable(dir);
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

/* All of @f into a malloc'd buffer, at most STORE_MAX_READ bytes. */
static int read_all(gzFile gz, FILE *f, char **data, size_t *len)
{
	char *buf = NULL, *p;
	size_t cap = 0, n = 0;
	int r;

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
		r = gz ? gzread(gz, buf + n, cap - n) : (int)fread(buf + n, 1, cap - n, f);
		if (r < 0 || (f && ferror(f))) {
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
	char path[4096];
	gzFile gz = NULL;
	FILE *f = NULL;
	int err;

	if (strchr(name, '/') || !store_has_file(st, name))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", st->dir, name);
	if (gunzip)
		gz = gzopen(path, "rb");
	else
		f = fopen(path, "re");
	if (!gz && !f)
		return errno ? -errno : -ENOMEM;
	err = read_all(gz, f, data, len);
	if (gz)
		gzclose(gz);
	if (f)
		fclose(f);
	return err;
}
