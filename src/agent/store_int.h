/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The store's insides, shared by store.c (admission, retention) and store_load.c. */
#ifndef HC_AGENT_STORE_INT_H
#define HC_AGENT_STORE_INT_H

#include <stddef.h>

#include "agent/config.h"
#include "agent/store.h"

struct store {
	char *dir;
	struct retention keep;
	struct store_interval *iv;	/* oldest first */
	size_t nr, cap;
	struct store_stats stats;
};

/* @iv's index.jsonl line (no newline) into @buf; returns its length. */
int store_index_line(const struct store_interval *iv, char *buf, size_t len);
/* Rewrite index.jsonl atomically and recount the bytes on disk. 0 or -errno. */
int store_write_index(struct store *st);

#endif /* HC_AGENT_STORE_INT_H */
