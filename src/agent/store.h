/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The agent's on-disk history: per interval, files
 * "<DIR>/<UTC start>-<kind>.pb.gz" and "<...>-<kind>.folded.gz" (the start as
 * 20250102T030405.678Z), with counters "<...>-counters.json", each written
 * atomically, and "<DIR>/index.jsonl", one
 * JSON object per interval, oldest first. Retention by age, count and bytes:
 * an interval is admitted only after the oldest ones are deleted to make room,
 * so the byte budget is never exceeded. The index never lists a file that is
 * not on disk: it is rewritten without an interval before that interval's
 * files go, and lists a new one only once its files are in place; a full
 * disk while writing it costs the oldest intervals, not its truth.
 * The directory must be ours (see store_dir.c). Not thread-safe: in the
 * agent the writer thread changes it and the web view reads it, both under
 * the sink's store_mu (sink.h).
 */
#ifndef HC_AGENT_STORE_H
#define HC_AGENT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/config.h"

#define STORE_MAX_FILES 12
#define STORE_STAMP_LEN 24
#define STORE_NAME_LEN 64	/* "<stamp>-<kind><ext>", 20 + 1 + kind + at most 10 */
#define STORE_KIND_LEN 16	/* the longest kind, "counters", with room to grow */

enum store_format {
	STORE_FOLDED = 0,	/* gzip'd folded stacks: .folded.gz */
	STORE_PPROF,		/* gzip'd pprof: .pb.gz */
	STORE_JSON,		/* JSON (counters): .json */
};

struct store_file {
	char name[STORE_NAME_LEN];	/* relative to the directory */
	char kind[STORE_KIND_LEN];	/* "oncpu", "offcpu", "runq", "lock", "counters" */
	enum store_format format;
	uint64_t bytes;
};

/* "folded", "pprof", "json" (as index.jsonl says) and the file name suffix. */
const char *store_format_name(enum store_format f);
const char *store_format_ext(enum store_format f);

struct store_interval {
	char stamp[STORE_STAMP_LEN];	/* start, UTC, as in the file names */
	int64_t start_ms, end_ms;	/* Unix ms; end 0: unknown (found on disk) */
	bool partial;			/* cut short by a stop or a reload */
	size_t nr_files;
	struct store_file files[STORE_MAX_FILES];
	uint64_t index_bytes;		/* its index.jsonl line, counted twice (see store.c) */
};

/* One file of a new interval, already encoded (gzip'd) in memory. */
struct store_blob {
	const char *kind;
	enum store_format format;
	const void *data;
	size_t len;
};

struct store_stats {
	uint64_t intervals_written;
	uint64_t deleted_age, deleted_count, deleted_bytes;	/* intervals, by reason */
	uint64_t deleted_nospace;	/* intervals deleted because the disk was full */
	uint64_t dropped_too_big;	/* intervals larger than the whole budget */
	uint64_t dropped_errors;	/* intervals not written (disk full with nothing left, EIO) */
	uint64_t bytes;			/* on disk now: profiles + index */
	uint64_t ignored_files;		/* at open: our names, but links or not ours */
	uint64_t index_errors;		/* index.jsonl could not be rewritten */
};

/* One interval for retention_victims(): oldest first. */
struct retention_item {
	int64_t end_ms;
	uint64_t bytes;
};

/*
 * How many of the @nr oldest-first @items must be deleted, oldest first, so
 * that at @now_ms nothing is older than max_age, and a new interval of
 * @incoming bytes (0: none) fits max_intervals and max_bytes. Pure.
 */
size_t retention_victims(const struct retention_item *items, size_t nr,
			 const struct retention *r, int64_t now_ms, uint64_t incoming);

struct store;

/*
 * Open (creating it, mode 0750) the directory @dir, check that it and the
 * directories above it are not writable by another user (-EPERM: refused),
 * check it is writable, remove our temporary files left by a crash and load
 * what exists: regular files of ours with our names (symlinks, hard links and
 * other users' files are ignored, warned). 0 or -errno (reported with pr_warn).
 */
int store__open(struct store **out, const char *dir, const struct retention *r);
void store__free(struct store *st);	/* NULL is a no-op */
void store__set_retention(struct store *st, const struct retention *r);

/*
 * Admit an interval: delete what retention says, then write @nr blobs and
 * the index. A full disk deletes the oldest intervals and retries; when
 * nothing is left to delete the interval is dropped (counted). 0 or -errno
 * (-EFBIG: larger than the budget).
 */
int store__write(struct store *st, int64_t start_ms, int64_t end_ms, bool partial,
		 const struct store_blob *b, size_t nr);
/* Apply max_age now (between writes). */
void store__expire(struct store *st, int64_t now_ms);

size_t store__nr(const struct store *st);
const struct store_interval *store__get(const struct store *st, size_t i);	/* oldest first */
const struct store_interval *store__find(const struct store *st, const char *stamp);
const char *store__dir(const struct store *st);
void store__stats(const struct store *st, struct store_stats *ss);

/*
 * Read a stored file whole (gunzipped when @gunzip), at most 256 MiB, only
 * if the store lists it and it is still a regular file of ours (never through
 * a symlink). *data malloc'd. 0 or -errno (-ENOENT: not listed or gone).
 */
int store__read(const struct store *st, const char *name, bool gunzip, char **data,
		size_t *len);

/* "20250102T030405.678Z" for Unix ms @ms. */
void store_stamp(int64_t ms, char *buf, size_t len);

#endif /* HC_AGENT_STORE_H */
