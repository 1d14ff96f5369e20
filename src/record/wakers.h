/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Waker stacks waiting for the off-CPU record of the block they ended: the
 * BPF side emits the waker's stacks at wakeup and the blocked task's record
 * later (ring order), both tagged with the wakee's tid and the block's start.
 */
#ifndef HC_RECORD_WAKERS_H
#define HC_RECORD_WAKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wakers;

/*
 * A waker's identity as it travels in front of its stack's words (so that
 * stacks of different wakers stay apart): (tgid << 32 | tid), then its
 * thread name, 16 bytes NUL-padded.
 */
#define WAKER_ID_WORDS 3

struct waker_stack {
	const uint64_t *words;	/* kernel ips, then normalized user frames (leaf first) */
	uint16_t nr_kernel;	/* leading words that are kernel ips */
	uint16_t nr_user;	/* following words of user frames */
	uint64_t id[WAKER_ID_WORDS];	/* who woke */
};

struct wakers_stats {
	uint64_t stored;
	uint64_t joined;
	uint64_t evicted;	/* overwritten before their block's record came */
	uint64_t unjoined;	/* blocks whose waker was sent (BPF) but not found here */
};

/* @slots: pending stacks kept at once (a fixed table). NULL + errno. */
struct wakers *wakers__new(size_t slots);
void wakers__free(struct wakers *w);	/* NULL is a no-op */

/*
 * Keep a copy of the stack for (@pid, @block_ts), woken by thread @waker_tid
 * of process @waker_tgid named @waker_comm (16 bytes); replaces what was in
 * its slot.
 */
int wakers__put(struct wakers *w, uint32_t pid, uint64_t block_ts, const uint64_t *words,
		uint16_t nr_kernel, uint16_t nr_user, uint32_t waker_tgid, uint32_t waker_tid,
		const char *waker_comm);

/* Find and remove the stack for (@pid, @block_ts); *out valid until the next put. */
bool wakers__take(struct wakers *w, uint32_t pid, uint64_t block_ts, struct waker_stack *out);

/*
 * A long block's record came without its waker's stack: @state, the
 * record's state with HC_OFFCPU_F_* flags (abi/sched.h), says whether BPF
 * sent one (then it was evicted here and is counted); BPF counts the rest.
 */
void wakers__missed(struct wakers *w, uint32_t state);

void wakers__stats(const struct wakers *w, struct wakers_stats *st);

#endif /* HC_RECORD_WAKERS_H */
