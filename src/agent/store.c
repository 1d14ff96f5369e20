// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The history directory: admission under the retention limits, atomic files,
 * the index, and reading files back for the web view.
 *
 * Byte accounting: st_size of every profile file plus index.jsonl. The index
 * is replaced atomically, so for an instant the old and the new index both
 * exist: each interval's index line is therefore counted twice, and the sum
 * stays within max_bytes even at that instant.
 */
#include "agent/store.h"
#include "agent/store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output/outfile.h"
#include "util/log.h"

#define STORE_INDEX "index.jsonl"


size_t retention_victims(const struct retention_item *items, size_t nr,
			 const struct retention *r, int64_t now_ms, uint64_t incoming)
{
	uint64_t total = incoming, max_keep;
	size_t k = 0;

	for (size_t i = 0; i < nr; i++)
		total += items[i].bytes;
	/* age: ends are ascending, so the expired ones are a prefix */
	while (r->max_age_ns && k < nr &&
	       items[k].end_ms < now_ms - (int64_t)(r->max_age_ns / 1000000))
		total -= items[k++].bytes;
	if (r->max_intervals) {
		max_keep = r->max_intervals - (incoming ? 1 : 0);
		while (nr - k > max_keep)
			total -= items[k++].bytes;
	}
	while (r->max_bytes && k < nr && total > r->max_bytes)
		total -= items[k++].bytes;
	return k;
}

void store_stamp(int64_t ms, char *buf, size_t len)
{
	time_t t = ms / 1000;
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d%02d%02dT%02d%02d%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static int path_of(const struct store *st, const char *name, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/%s", st->dir, name) >= (int)len ? -ENAMETOOLONG : 0;
}

static uint64_t interval_bytes(const struct store_interval *iv)
{
	uint64_t b = iv->index_bytes;

	for (size_t i = 0; i < iv->nr_files; i++)
		b += iv->files[i].bytes;
	return b;
}

int store_index_line(const struct store_interval *iv, char *buf, size_t len)
{
	char s[40], e[40];
	int n;

	store_stamp(iv->start_ms, s, sizeof(s));
	store_stamp(iv->end_ms, e, sizeof(e));
	n = snprintf(buf, len, "{\"start_ms\":%lld,\"end_ms\":%lld,\"partial\":%s,"
		     "\"start\":\"%s\",\"end\":\"%s\",\"files\":[",
		     (long long)iv->start_ms, (long long)iv->end_ms,
		     iv->partial ? "true" : "false", iv->stamp, iv->end_ms ? e : "");
	for (size_t i = 0; i < iv->nr_files && n < (int)len; i++)
		n += snprintf(buf + n, len - n, "%s{\"kind\":\"%s\",\"format\":\"%s\","
			      "\"name\":\"%s\",\"bytes\":%llu}", i ? "," : "",
			      iv->files[i].kind, store_format_name(iv->files[i].format),
			      iv->files[i].name, (unsigned long long)iv->files[i].bytes);
	if (n < (int)len)
		n += snprintf(buf + n, len - n, "]}");
	return n;
}

const char *store_format_name(enum store_format f)
{
	return f == STORE_PPROF ? "pprof" : f == STORE_JSON ? "json" : "folded";
}

const char *store_format_ext(enum store_format f)
{
	return f == STORE_PPROF ? ".pb.gz" : f == STORE_JSON ? ".json" : ".folded.gz";
}

static void account(struct store *st)
{
	st->stats.bytes = 0;
	for (size_t i = 0; i < st->nr; i++)
		st->stats.bytes += interval_bytes(&st->iv[i]) - st->iv[i].index_bytes / 2;
}

int store_write_index(struct store *st)
{
	struct outfile of;
	char path[4096], line[2048];
	int err;

	err = path_of(st, STORE_INDEX, path, sizeof(path));
	if (!err)
		err = outfile_open(&of, path, 0644);
	if (err)
		return err;
	for (size_t i = 0; i < st->nr; i++) {
		store_index_line(&st->iv[i], line, sizeof(line));
		fprintf(of.f, "%s\n", line);
	}
	err = outfile_commit(&of);
	if (err)
		outfile_discard(&of);
	account(st);
	return err;
}

/* Delete the oldest interval's files. */
static void delete_oldest(struct store *st)
{
	char path[4096];

	if (!st->nr)
		return;
	for (size_t i = 0; i < st->iv[0].nr_files; i++)
		if (!path_of(st, st->iv[0].files[i].name, path, sizeof(path)) && unlink(path) &&
		    errno != ENOENT)
			pr_warn("agent: cannot delete '%s': %s\n", path, strerror(errno));
	pr_debug("agent: deleted interval %s\n", st->iv[0].stamp);
	memmove(st->iv, st->iv + 1, (st->nr - 1) * sizeof(*st->iv));
	st->nr--;
}

/* Delete by retention before admitting @incoming bytes; counts by reason. */
static void apply_retention(struct store *st, int64_t now_ms, uint64_t incoming)
{
	struct retention_item *items = calloc(st->nr + 1, sizeof(*items));
	struct retention age_only = { .max_age_ns = st->keep.max_age_ns };
	size_t k, k_age;

	if (!items)
		return;
	for (size_t i = 0; i < st->nr; i++) {
		items[i].end_ms = st->iv[i].end_ms ? st->iv[i].end_ms : st->iv[i].start_ms;
		items[i].bytes = interval_bytes(&st->iv[i]);
	}
	k = retention_victims(items, st->nr, &st->keep, now_ms, incoming);
	k_age = retention_victims(items, st->nr, &age_only, now_ms, 0);
	free(items);
	for (size_t i = 0; i < k; i++) {
		if (i < k_age)
			st->stats.deleted_age++;
		else if (st->keep.max_intervals && st->nr > st->keep.max_intervals - !!incoming)
			st->stats.deleted_count++;
		else
			st->stats.deleted_bytes++;
		delete_oldest(st);
	}
}

/* One blob into place; a full disk sacrifices the oldest intervals. 0 or -errno. */
static int write_blob(struct store *st, const char *name, const struct store_blob *b)
{
	struct outfile of;
	char path[4096];
	int err;

	err = path_of(st, name, path, sizeof(path));
	if (err)
		return err;
	for (;;) {
		err = outfile_open(&of, path, 0644);
		if (!err) {
			if (fwrite(b->data, 1, b->len, of.f) != b->len)
				err = -errno ? -errno : -EIO;
			if (!err)
				err = outfile_commit(&of);
			if (err)
				outfile_discard(&of);
		}
		/* outfile_commit reports a failed flush as -EIO; ENOSPC is in errno */
		if (err && (err == -ENOSPC || errno == ENOSPC || errno == EDQUOT) && st->nr) {
			pr_warn("agent: disk full writing '%s': deleting interval %s\n", path,
				st->iv[0].stamp);
			st->stats.deleted_nospace++;
			delete_oldest(st);
			continue;
		}
		return err;
	}
}

int store__write(struct store *st, int64_t start_ms, int64_t end_ms, bool partial,
		 const struct store_blob *b, size_t nr)
{
	struct store_interval iv = { .start_ms = start_ms, .end_ms = end_ms, .partial = partial };
	char line[2048];
	uint64_t incoming;
	int err = 0;

	char stamp[STORE_STAMP_LEN];

	store_stamp(start_ms, stamp, sizeof(stamp));
	memcpy(iv.stamp, stamp, sizeof(stamp));
	for (size_t i = 0; i < nr && i < STORE_MAX_FILES; i++) {
		struct store_file *f = &iv.files[iv.nr_files++];

		snprintf(f->name, sizeof(f->name), "%s-%s%s", stamp, b[i].kind,
			 store_format_ext(b[i].format));
		snprintf(f->kind, sizeof(f->kind), "%s", b[i].kind);
		f->format = b[i].format;
		f->bytes = b[i].len;
	}
	iv.index_bytes = 2 * ((uint64_t)store_index_line(&iv, line, sizeof(line)) + 1);
	incoming = interval_bytes(&iv);
	if (st->keep.max_bytes && incoming > st->keep.max_bytes) {
		st->stats.dropped_too_big++;
		pr_warn("agent: interval %s not kept: %llu bytes exceed the budget of %llu\n",
			iv.stamp, (unsigned long long)incoming,
			(unsigned long long)st->keep.max_bytes);
		return -EFBIG;
	}
	apply_retention(st, end_ms, incoming);
	for (size_t i = 0; !err && i < iv.nr_files; i++)
		err = write_blob(st, iv.files[i].name, &b[i]);
	if (!err && st->nr == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;
		void *p = realloc(st->iv, cap * sizeof(*st->iv));

		if (!p)
			err = -ENOMEM;
		else
			st->iv = p, st->cap = cap;
	}
	if (err) {
		char path[4096];

		for (size_t i = 0; i < iv.nr_files; i++)
			if (!path_of(st, iv.files[i].name, path, sizeof(path)))
				unlink(path);
		st->stats.dropped_errors++;
		pr_warn("agent: interval %s not written: %s\n", iv.stamp, strerror(-err));
		store_write_index(st);
		return err;
	}
	st->iv[st->nr++] = iv;
	st->stats.intervals_written++;
	err = store_write_index(st);
	if (err)
		pr_warn("agent: cannot write '%s/%s': %s\n", st->dir, STORE_INDEX, strerror(-err));
	return err;
}

void store__expire(struct store *st, int64_t now_ms)
{
	size_t before = st->nr;

	apply_retention(st, now_ms, 0);
	if (st->nr != before)
		store_write_index(st);
}
