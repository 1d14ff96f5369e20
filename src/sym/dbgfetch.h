/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Debug files fetched by build-id from debuginfod servers (DEBUGINFOD_URLS,
 * libdebuginfod, dlopen()ed only then), on a worker thread: a request never waits, its result is
 * picked up whenever the object is next named. libdebuginfod caches what it
 * fetched (and what it did not find) in its cache directory
 * (DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), so a later run
 * does not ask again.
 *
 * A fetch is bounded by a timeout (DEBUGINFOD_TIMEOUT seconds, else
 * DBGFETCH_TIMEOUT_S). After one times out, the requests queued during the
 * next DBGFETCH_DEAD_S are not sent but failed (counted as skipped): a dead
 * server costs one timeout, not one per object.
 */
#ifndef HC_SYM_DBGFETCH_H
#define HC_SYM_DBGFETCH_H

#include <stddef.h>
#include <stdint.h>

#define DBGFETCH_TIMEOUT_S	10
#define DBGFETCH_DEAD_S		60
#define DBGFETCH_MAX		1024	/* distinct build-ids asked about per run */

struct dbgfetch;

struct dbgfetch_stats {
	uint64_t requested;	/* distinct build-ids queued */
	uint64_t fetched;	/* debug files received (from the server or the cache) */
	uint64_t failed;	/* not found, or the server failed (refused, error) */
	uint64_t timed_out;	/* cut at the timeout */
	uint64_t skipped;	/* not sent: a fetch timed out just before */
	uint64_t dropped;	/* not queued: DBGFETCH_MAX reached */
	uint64_t pending;	/* queued or in flight now */
	uint64_t busy_ns;	/* time spent in fetches (what a dead server costs) */
};

/*
 * Start the worker when DEBUGINFOD_URLS is set and not empty. @timeout_ms
 * 0: DEBUGINFOD_TIMEOUT, else DBGFETCH_TIMEOUT_S. NULL + errno: ENOENT (no
 * URLs: the feature is off), or the thread could not start.
 */
struct dbgfetch *dbgfetch__new(unsigned int timeout_ms);

/*
 * Stop the worker (an in-flight fetch is cancelled within about a second:
 * libdebuginfod polls its progress callback once a second) and free all.
 * NULL is a no-op.
 */
void dbgfetch__free(struct dbgfetch *f);

/*
 * Queue build-id @id unless known (a failure is not retried in this run).
 * Its slot (>= 0) for dbgfetch__result(); -ENOSPC: DBGFETCH_MAX reached;
 * -EINVAL: bad length. Never blocks on I/O.
 */
int dbgfetch__request(struct dbgfetch *f, const uint8_t *id, size_t len);

/*
 * The outcome for @slot: 0 with the debug file's path in a malloc'd *@path
 * (the caller frees it and checks the file); -EINPROGRESS: queued or in
 * flight; -ENOENT: failed, or no such slot.
 */
int dbgfetch__result(struct dbgfetch *f, int slot, char **path);

void dbgfetch__stats(struct dbgfetch *f, struct dbgfetch_stats *st);

#endif /* HC_SYM_DBGFETCH_H */
