/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The store's insides, shared by store.c (admission, retention), store_load.c and store_dir.c. */
#ifndef HC_AGENT_STORE_INT_H
#define HC_AGENT_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "agent/config.h"
#include "agent/store.h"

#define STORE_INDEX "index.jsonl"
/* one index line: its fixed part plus, per file, the quoted name, kind and numbers */
#define STORE_LINE_MAX (256 + STORE_MAX_FILES * (64 + 2 * STORE_NAME_LEN + STORE_KIND_LEN))

struct store {
	char *dir;			/* for messages only: every file goes through dirfd */
	int dirfd;
	uid_t uid;			/* ours: files of anyone else are never read nor deleted */
	struct retention keep;
	struct store_interval *iv;	/* oldest first */
	size_t nr, cap;
	struct store_stats stats;
};

/* @iv's index.jsonl line (no newline) into @buf; returns its length (< @len). */
int store_index_line(const struct store_interval *iv, char *buf, size_t len);
/* Rewrite index.jsonl atomically (fsync'ed) and recount the bytes. 0 or -errno. */
int store_write_index(struct store *st);

/* store_dir.c: the directory fd and the files in it (see there). */

/* Create @dir 0750 or check the existing one and its parents; an fd or -errno (-EPERM: refused). */
int store_dir_open(const char *dir, uid_t uid);
/* A regular file owned by us with one link. */
bool store_stat_ours(const struct store *st, const struct stat *sb);
/* Open @name read-only without following links; an fd or -errno (-ELOOP, -EPERM: not ours). */
int store_open_file(const struct store *st, const char *name, struct stat *sb);
/* Create "<name>.tmp.XXXXXX" exclusively, its name into @tmp; an fd or -errno. */
int store_tmp_open(const struct store *st, const char *name, char *tmp, size_t len);
/* Write @name atomically: temporary file, fsync, rename. 0 or -errno (-ENOSPC kept as is). */
int store_put(const struct store *st, const char *name, const void *data, size_t len);
/* Delete @name if it is ours (else warned, -EPERM); a missing file is not an error. */
int store_unlink(const struct store *st, const char *name);
/* fsync the directory: the renames and unlinks of an interval reach the disk. */
void store_sync_dir(const struct store *st);

#endif /* HC_AGENT_STORE_INT_H */
