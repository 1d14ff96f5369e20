// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A direct-mapped table of waker stacks keyed by (wakee tid, block start). */
#include "record/wakers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "abi/sched.h"

/* kernel ips + user frames of two words each, both capped at 127 by the BPF side */
#define WAKER_MAX_WORDS (128 * 3)

struct waker_slot {
	uint32_t pid;
	bool used;
	uint16_t nr_kernel, nr_user;
	uint64_t block_ts;
	uint64_t id[WAKER_ID_WORDS];
	uint64_t words[WAKER_MAX_WORDS];
};

struct wakers {
	struct waker_slot *slots;
	size_t nr;
	struct wakers_stats st;
};

struct wakers *wakers__new(size_t slots)
{
	struct wakers *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->nr = slots ? slots : 1;
	w->slots = calloc(w->nr, sizeof(*w->slots));
	if (!w->slots) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

void wakers__free(struct wakers *w)
{
	if (!w)
		return;
	free(w->slots);
	free(w);
}

static struct waker_slot *slot_of(struct wakers *w, uint32_t pid, uint64_t ts)
{
	uint64_t h = (ts ^ ((uint64_t)pid << 32 | pid)) * 0x9e3779b97f4a7c15ull;

	return &w->slots[(h >> 32) % w->nr];
}

int wakers__put(struct wakers *w, uint32_t pid, uint64_t block_ts, const uint64_t *words,
		uint16_t nr_kernel, uint16_t nr_user, uint32_t waker_tgid, uint32_t waker_tid,
		const char *waker_comm)
{
	struct waker_slot *s = slot_of(w, pid, block_ts);

	if ((size_t)nr_kernel + nr_user > WAKER_MAX_WORDS)
		return -E2BIG;
	if (s->used)
		w->st.evicted++;
	s->used = true;
	s->pid = pid;
	s->block_ts = block_ts;
	s->nr_kernel = nr_kernel;
	s->nr_user = nr_user;
	s->id[0] = (uint64_t)waker_tgid << 32 | waker_tid;
	memset(&s->id[1], 0, 2 * sizeof(uint64_t));
	memcpy(&s->id[1], waker_comm, strnlen(waker_comm, 2 * sizeof(uint64_t)));
	memcpy(s->words, words, ((size_t)nr_kernel + nr_user) * sizeof(*words));
	w->st.stored++;
	return 0;
}

bool wakers__take(struct wakers *w, uint32_t pid, uint64_t block_ts, struct waker_stack *out)
{
	struct waker_slot *s = slot_of(w, pid, block_ts);

	if (!s->used || s->pid != pid || s->block_ts != block_ts)
		return false;
	s->used = false;
	out->words = s->words;
	out->nr_kernel = s->nr_kernel;
	out->nr_user = s->nr_user;
	memcpy(out->id, s->id, sizeof(out->id));
	w->st.joined++;
	return true;
}

void wakers__missed(struct wakers *w, uint32_t state)
{
	uint32_t flags = state >> HC_OFFCPU_FLAGS_SHIFT;

	if (((flags >> HC_OFFCPU_F_WK_SHIFT) & 3) == HC_OFFCPU_WK_SENT)
		w->st.unjoined++;
}

void wakers__stats(const struct wakers *w, struct wakers_stats *st)
{
	*st = w->st;
}
