// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A small LRU of merged views (see http_cache.h). */
#include "agent/http_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int http_cache_init(struct http_cache *c)
{
	memset(c, 0, sizeof(*c));
	return -pthread_mutex_init(&c->mu, NULL);
}

void http_cache_release(struct http_cache *c)
{
	for (size_t i = 0; i < HTTP_CACHE_ENTRIES; i++)
		free(c->e[i].body);
	pthread_mutex_destroy(&c->mu);
}

static bool fresh(const struct http_cache_entry *e, const char *key, const char *gen,
		  int64_t now_ms)
{
	return e->body && !strcmp(e->key, key) && !strcmp(e->gen, gen) &&
	       now_ms - e->at_ms < HTTP_CACHE_TTL_MS && now_ms >= e->at_ms;
}

bool http_cache_get(struct http_cache *c, const char *key, const char *gen, int64_t now_ms,
		    char **body, size_t *len, char *type, size_t type_len, char *note,
		    size_t note_len)
{
	bool hit = false;

	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < HTTP_CACHE_ENTRIES && !hit; i++) {
		struct http_cache_entry *e = &c->e[i];

		if (!fresh(e, key, gen, now_ms))
			continue;
		*body = malloc(e->len ? e->len : 1);
		if (!*body)
			break;
		memcpy(*body, e->body, e->len);
		*len = e->len;
		snprintf(type, type_len, "%s", e->type);
		snprintf(note, note_len, "%s", e->note);
		e->used = ++c->clock;
		hit = true;
	}
	if (hit)
		c->hits++;
	else
		c->misses++;
	pthread_mutex_unlock(&c->mu);
	return hit;
}

/* @key's entry, else a free one, else the least recently used. */
static struct http_cache_entry *slot_for(struct http_cache *c, const char *key)
{
	struct http_cache_entry *lru = &c->e[0];

	for (size_t i = 0; i < HTTP_CACHE_ENTRIES; i++)
		if (c->e[i].body && !strcmp(c->e[i].key, key))
			return &c->e[i];
	for (size_t i = 0; i < HTTP_CACHE_ENTRIES; i++) {
		if (!c->e[i].body)
			return &c->e[i];
		if (c->e[i].used < lru->used)
			lru = &c->e[i];
	}
	return lru;
}

void http_cache_put(struct http_cache *c, const char *key, const char *gen, int64_t now_ms,
		    const char *body, size_t len, const char *type, const char *note)
{
	struct http_cache_entry *e;
	char *copy;

	if (len > HTTP_CACHE_ENTRY_MAX || strlen(key) >= sizeof(e->key) ||
	    strlen(gen) >= sizeof(e->gen))
		return;
	copy = malloc(len ? len : 1);
	if (!copy)
		return;
	memcpy(copy, body, len);
	pthread_mutex_lock(&c->mu);
	e = slot_for(c, key);
	free(e->body);
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->gen, sizeof(e->gen), "%s", gen);
	snprintf(e->type, sizeof(e->type), "%s", type);
	snprintf(e->note, sizeof(e->note), "%s", note);
	e->body = copy;
	e->len = len;
	e->at_ms = now_ms;
	e->used = ++c->clock;
	pthread_mutex_unlock(&c->mu);
}
