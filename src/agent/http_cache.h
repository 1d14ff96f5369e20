/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The web view's answers to merged views (/flame?minutes=N, /diff), kept
 * until the history changes: a reload or a second viewer costs a copy, not
 * another merge. A few entries, bounded in bytes, least recently used out,
 * each valid for one history generation (see http.c) and at most
 * HTTP_CACHE_TTL_MS. Thread-safe (its own mutex).
 */
#ifndef HC_AGENT_HTTP_CACHE_H
#define HC_AGENT_HTTP_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_CACHE_ENTRIES	4
#define HTTP_CACHE_ENTRY_MAX	(16u << 20)	/* larger answers are not kept */
#define HTTP_CACHE_TTL_MS	60000

struct http_cache_entry {
	char key[256];		/* the view and its arguments */
	char gen[96];		/* the history it was built from */
	char type[48];		/* Content-Type */
	char note[96];		/* X-Hotcold-Window */
	char *body;		/* NULL: free slot */
	size_t len;
	int64_t at_ms;
	uint64_t used;		/* LRU clock */
};

struct http_cache {
	pthread_mutex_t mu;
	struct http_cache_entry e[HTTP_CACHE_ENTRIES];
	uint64_t clock;
	uint64_t hits, misses;
};

int http_cache_init(struct http_cache *c);	/* 0 or -errno */
void http_cache_release(struct http_cache *c);

/*
 * The answer for @key built from generation @gen, not older than the TTL at
 * @now_ms: a malloc'd copy in *@body (*@len), its @type and @note. false on a
 * miss (or no memory for the copy).
 */
bool http_cache_get(struct http_cache *c, const char *key, const char *gen, int64_t now_ms,
		    char **body, size_t *len, char *type, size_t type_len, char *note,
		    size_t note_len);

/* Keep a copy of an answer (replacing @key's or the least recently used). */
void http_cache_put(struct http_cache *c, const char *key, const char *gen, int64_t now_ms,
		    const char *body, size_t len, const char *type, const char *note);

#endif /* HC_AGENT_HTTP_CACHE_H */
