/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The web view's timeline (/timeline.json): per stored interval and kind the
 * total weight of its folded file, in the kind's unit (on-CPU samples,
 * nanoseconds for the waits), so the page can draw bars and a range's merged
 * flame graph can be checked against the sum of its intervals. A total is
 * read once (profile__read_folded, as the merge reads it) and kept in a memo
 * by file name: stored files never change. One request reads at most a byte
 * budget of files, newest first; the rest are null ("complete":false) until
 * the next request.
 */
#ifndef HC_AGENT_TIMELINE_H
#define HC_AGENT_TIMELINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/store.h"
#include "analysis/profile.h"

struct timeline_row {
	char stamp[STORE_STAMP_LEN];
	int64_t start_ms, end_ms;	/* end 0: unknown */
	bool partial;
	unsigned int has;		/* 1u << kind: a folded file of that kind is stored */
	unsigned int known;		/* 1u << kind: its total below is known */
	uint64_t total[PROFILE_KIND_NR];
};

/* Totals already read, by folded file name, sorted by name. */
struct timeline_memo_entry {
	char name[STORE_NAME_LEN];
	uint64_t total;
};

struct timeline_memo {
	struct timeline_memo_entry *e;
	size_t nr;
};

void timeline_memo_release(struct timeline_memo *m);

/*
 * Every interval of @st, oldest first, into a malloc'd *@rows (*@nr; NULL
 * when 0) with the totals known from @m or read now, newest first, until
 * @budget bytes of folded text are read (*@complete false if some are left).
 * @mu guards @st as in view_load(); @m is the caller's alone (one at a time).
 * @m is rebuilt to hold only the files still stored. 0 or -errno.
 */
int timeline_rows(const struct store *st, pthread_mutex_t *mu, struct timeline_memo *m,
		  uint64_t budget, struct timeline_row **rows, size_t *nr, bool *complete);

/*
 * The rows as JSON: {"period_ns":N,"complete":B,"units":{KIND:UNIT,...},
 * "intervals":[{"t":STAMP,"start_ms":N,"end_ms":N,"partial":B,KIND:TOTAL|null,...}]}
 * with a KIND key only where that kind is stored. 0 or -EIO. Pure.
 */
int timeline_write_json(const struct timeline_row *rows, size_t nr, uint64_t period_ns,
			bool complete, FILE *out);

/*
 * A range of intervals as a query gives it: "STAMP" (one) or "FROM..TO"
 * (both ends included, either order). Stamps are digits, 'T', 'Z' and '.',
 * shorter than STORE_STAMP_LEN. @from and @to hold STORE_STAMP_LEN bytes;
 * FROM <= TO on return. 0 or -EINVAL. Pure.
 */
int timeline_range_parse(const char *s, char *from, char *to);

#endif /* HC_AGENT_TIMELINE_H */
