/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Bounded aggregation of weighted stacks in user space: (key, words[]) ->
 * weight. A stack is an opaque array of 64-bit words (the caller decides
 * what they mean); no BPF, no I/O, no abi/ types.
 */
#ifndef HC_STACK_STACK_AGG_H
#define HC_STACK_STACK_AGG_H

#include <stddef.h>
#include <stdint.h>

#define STACK_AGG_COMM_LEN 16

/* Identity of a stack besides its words; compared bytewise, so zero-fill. */
struct stack_key {
	uint32_t kind;		/* caller-defined (e.g. on-CPU, off-CPU) */
	uint32_t tgid;
	uint32_t pid;
	uint16_t nr_kernel;	/* leading words that are kernel frames */
	uint16_t nr_user;	/* following words that are user frames */
	char comm[STACK_AGG_COMM_LEN];	/* NUL-padded */
	char pcomm[STACK_AGG_COMM_LEN];	/* NUL-padded */
	uint32_t aux;		/* caller-defined label, e.g. an off-CPU reason; 0 if none */
	uint32_t aux2;		/* caller-defined; 0 if none */
};

struct stack_entry {
	struct stack_key key;
	uint64_t weight;
	uint64_t count;		/* number of add() calls merged into this entry */
	size_t nr_words;	/* == key.nr_kernel + key.nr_user */
	const uint64_t *words;	/* owned by the aggregator */
};

struct stack_agg;

/*
 * What is not kept when the aggregator is full: one entry per kind with this
 * comm (and pcomm), no words, tgid and pid 0, aux STACK_AGG_OTHER_AUX.
 */
#define STACK_AGG_OTHER_NAME	"[other stacks]"
#define STACK_AGG_OTHER_AUX	UINT32_MAX

/*
 * @max_entries bounds distinct stacks (memory); 0 means 1<<20. When full, the
 * heaviest stacks are kept and the rest merged into "[other stacks]" entries
 * (stack_agg.c explains how), so the total weight stays exact.
 * Returns NULL and sets errno on failure.
 */
struct stack_agg *stack_agg__new(size_t max_entries);
void stack_agg__free(struct stack_agg *agg);	/* NULL is a no-op */

/*
 * Add @weight to the stack (@key, @words[0..key->nr_kernel+key->nr_user)).
 * Returns 0 (kept, possibly evicting the lightest entry into "[other
 * stacks]"), -ENOSPC when the stack is new, the aggregator is full and it is
 * lighter than every entry (its weight is then merged into "[other stacks]"),
 * or -ENOMEM.
 */
int stack_agg__add(struct stack_agg *agg, const struct stack_key *key,
		   const uint64_t *words, uint64_t weight);

/*
 * Visit every entry in unspecified order, the "[other stacks]" entries last;
 * stop early if @fn returns non-zero (returned).
 */
int stack_agg__for_each(const struct stack_agg *agg,
			int (*fn)(const struct stack_entry *e, void *arg), void *arg);

/*
 * Entry @i into *@e: the kept stacks 0 .. nr_entries - 1 in insertion order,
 * then the nr_other "[other stacks]" entries (the order of for_each). An
 * index names the same stack until stack_agg__evicted() grows or a clear.
 * 0, or -ENOENT past the end.
 */
int stack_agg__entry(const struct stack_agg *agg, size_t i, struct stack_entry *e);
size_t stack_agg__nr_entries(const struct stack_agg *agg);	/* kept stacks, not [other] */
size_t stack_agg__nr_other(const struct stack_agg *agg);	/* "[other stacks]" entries */
/* Kept stacks evicted for a heavier one (their index reused) since the last clear. */
uint64_t stack_agg__evicted(const struct stack_agg *agg);
uint64_t stack_agg__total_weight(const struct stack_agg *agg);	/* of all adds, [other] too */
/* Stacks merged into "[other stacks]" (refused, or evicted later), and their weight. */
uint64_t stack_agg__dropped(const struct stack_agg *agg);
uint64_t stack_agg__dropped_weight(const struct stack_agg *agg);

/* Remove every entry (keeps the table's memory for reuse); dropped counters reset too. */
void stack_agg__clear(struct stack_agg *agg);

#endif /* HC_STACK_STACK_AGG_H */
