// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The history: admission under the retention limits, deletion, and the index
 * kept true to the files on disk (see store.h).
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

#include "util/log.h"

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
	size_t n;

	store_stamp(iv->start_ms, s, sizeof(s));
	store_stamp(iv->end_ms, e, sizeof(e));
	n = snprintf(buf, len, "{\"start_ms\":%lld,\"end_ms\":%lld,\"partial\":%s,"
		     "\"start\":\"%s\",\"end\":\"%s\",\"files\":[",
		     (long long)iv->start_ms, (long long)iv->end_ms,
		     iv->partial ? "true" : "false", iv->stamp, iv->end_ms ? e : "");
	for (size_t i = 0; i < iv->nr_files && n < len; i++)
		n += snprintf(buf + n, len - n, "%s{\"kind\":\"%s\",\"format\":\"%s\","
			      "\"name\":\"%s\",\"bytes\":%llu}", i ? "," : "",
			      iv->files[i].kind, store_format_name(iv->files[i].format),
			      iv->files[i].name, (unsigned long long)iv->files[i].bytes);
	if (n < len)
		n += snprintf(buf + n, len - n, "]}");
	/* STORE_LINE_MAX holds the longest line: truncation here is a bug, not input */
	return n < len ? (int)n : (int)len - 1;
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

static bool no_space(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/* index.jsonl listing the intervals from @first on. 0 or -errno. */
static int write_index_from(struct store *st, size_t first)
{
	char line[STORE_LINE_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	for (size_t i = first; i < st->nr; i++) {
		store_index_line(&st->iv[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	err = ferror(f) ? -ENOMEM : 0;
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err)
		err = store_put(st, STORE_INDEX, buf, len);
	free(buf);
	return err;
}

int store_write_index(struct store *st)
{
	int err = write_index_from(st, 0);

	account(st);
	return err;
}

static void unlink_files(struct store *st, const struct store_interval *iv)
{
	int err;

	for (size_t i = 0; i < iv->nr_files; i++) {
		err = store_unlink(st, iv->files[i].name);
		if (err && err != -EPERM)
			pr_warn("agent: cannot delete '%s/%s': %s\n", st->dir, iv->files[i].name,
				strerror(-err));
	}
	pr_debug("agent: deleted interval %s\n", iv->stamp);
}

static void forget_oldest(struct store *st, size_t n)
{
	memmove(st->iv, st->iv + n, (st->nr - n) * sizeof(*st->iv));
	st->nr -= n;
}

/*
 * The index, rewritten; while the disk is too full for it, the oldest
 * intervals go (files first: the space is what is missing), counted. With
 * nothing left and still no room, or on another error, the index itself goes:
 * no index is better than one listing files that are gone (a restart
 * rebuilds it from the files). 0 or -errno.
 */
static int commit_index(struct store *st)
{
	int err;

	for (;;) {
		err = store_write_index(st);
		if (!no_space(err) || !st->nr)
			break;
		pr_warn("agent: disk full writing '%s/%s': deleting interval %s\n", st->dir,
			STORE_INDEX, st->iv[0].stamp);
		st->stats.deleted_nospace++;
		unlink_files(st, &st->iv[0]);
		forget_oldest(st, 1);
	}
	if (err) {
		st->stats.index_errors++;
		pr_warn("agent: cannot write '%s/%s': %s; removing it\n", st->dir, STORE_INDEX,
			strerror(-err));
		unlinkat(st->dirfd, STORE_INDEX, 0);
	}
	return err;
}

/*
 * Delete the @n oldest intervals: out of the index first, so that it never
 * lists a file that is gone, then their files. If the index cannot be
 * written for lack of space, the files go anyway and commit_index() retries.
 */
static int drop_oldest(struct store *st, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = write_index_from(st, n);
	for (size_t i = 0; i < n; i++)
		unlink_files(st, &st->iv[i]);
	forget_oldest(st, n);
	account(st);
	return err ? commit_index(st) : 0;
}

/* Delete by retention before admitting @incoming bytes; counts by reason. */
static void apply_retention(struct store *st, int64_t now_ms, uint64_t incoming)
{
	struct retention_item *items = calloc(st->nr + 1, sizeof(*items));
	struct retention age_only = { .max_age_ns = st->keep.max_age_ns };
	size_t k, k_age, left = st->nr;

	if (!items)
		return;
	for (size_t i = 0; i < st->nr; i++) {
		items[i].end_ms = st->iv[i].end_ms ? st->iv[i].end_ms : st->iv[i].start_ms;
		items[i].bytes = interval_bytes(&st->iv[i]);
	}
	k = retention_victims(items, st->nr, &st->keep, now_ms, incoming);
	k_age = retention_victims(items, st->nr, &age_only, now_ms, 0);
	free(items);
	for (size_t i = 0; i < k; i++, left--) {
		if (i < k_age)
			st->stats.deleted_age++;
		else if (st->keep.max_intervals && left > st->keep.max_intervals - !!incoming)
			st->stats.deleted_count++;
		else
			st->stats.deleted_bytes++;
	}
	drop_oldest(st, k);
}

/* One blob into place; a full disk sacrifices the oldest intervals. 0 or -errno. */
static int write_blob(struct store *st, const char *name, const struct store_blob *b)
{
	int err;

	for (;;) {
		err = store_put(st, name, b->data, b->len);
		if (!no_space(err) || !st->nr)
			return err;
		pr_warn("agent: disk full writing '%s/%s': deleting interval %s\n", st->dir, name,
			st->iv[0].stamp);
		st->stats.deleted_nospace++;
		drop_oldest(st, 1);
	}
}

/* @iv from the blobs: names checked to fit (a kind is ours, but say so if not). */
static int interval_of(struct store_interval *iv, const struct store_blob *b, size_t nr)
{
	char stamp[STORE_STAMP_LEN];	/* a copy: snprintf's source must not overlap *iv */

	if (nr > STORE_MAX_FILES)
		return -E2BIG;
	store_stamp(iv->start_ms, stamp, sizeof(stamp));
	memcpy(iv->stamp, stamp, sizeof(stamp));
	for (size_t i = 0; i < nr; i++) {
		struct store_file *f = &iv->files[iv->nr_files++];

		if (snprintf(f->kind, sizeof(f->kind), "%s", b[i].kind) >= (int)sizeof(f->kind) ||
		    snprintf(f->name, sizeof(f->name), "%s-%s%s", stamp, b[i].kind,
			     store_format_ext(b[i].format)) >= (int)sizeof(f->name))
			return -ENAMETOOLONG;
		f->format = b[i].format;
		f->bytes = b[i].len;
	}
	return 0;
}

int store__write(struct store *st, int64_t start_ms, int64_t end_ms, bool partial,
		 const struct store_blob *b, size_t nr)
{
	struct store_interval iv = { .start_ms = start_ms, .end_ms = end_ms, .partial = partial };
	char line[STORE_LINE_MAX];
	uint64_t incoming;
	size_t written = 0;
	int err;

	err = interval_of(&iv, b, nr);
	if (err) {
		st->stats.dropped_errors++;
		pr_warn("agent: interval %s not written: %s\n", iv.stamp, strerror(-err));
		return err;
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
	if (st->nr == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;
		void *p = realloc(st->iv, cap * sizeof(*st->iv));

		if (!p)
			err = -ENOMEM;
		else
			st->iv = p, st->cap = cap;
	}
	for (; !err && written < iv.nr_files; written++)
		err = write_blob(st, iv.files[written].name, &b[written]);
	if (err) {
		/* the index does not list them yet: delete what was written */
		for (size_t i = 0; i < written; i++)
			store_unlink(st, iv.files[i].name);
		st->stats.dropped_errors++;
		pr_warn("agent: interval %s not written: %s\n", iv.stamp, strerror(-err));
		store_sync_dir(st);
		return err;
	}
	st->iv[st->nr++] = iv;
	st->stats.intervals_written++;
	err = commit_index(st);
	store_sync_dir(st);
	return err;
}

void store__expire(struct store *st, int64_t now_ms)
{
	size_t before = st->nr;

	apply_retention(st, now_ms, 0);
	if (st->nr != before)
		store_sync_dir(st);
}
