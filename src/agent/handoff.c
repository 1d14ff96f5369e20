// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The loop -> writer hand-off as a bounded queue with counted outcomes (see handoff.h). */
#include "agent/handoff.h"

#include <errno.h>
#include <string.h>

void handoff_init(struct handoff *h)
{
	memset(h, 0, sizeof(*h));
}

int handoff_put(struct handoff *h, const struct interval_job *j)
{
	if (h->stopping)
		return -ESHUTDOWN;
	if (h->nr == HANDOFF_SLOTS)
		return -EBUSY;
	h->q[(h->head + h->nr++) % HANDOFF_SLOTS] = *j;
	h->st.queued++;
	return 0;
}

/* The oldest waiting interval out of the queue into *@out. */
static bool pop(struct handoff *h, struct interval_job *out)
{
	if (!h->nr)
		return false;
	*out = h->q[h->head];
	memset(&h->q[h->head], 0, sizeof(h->q[h->head]));
	h->head = (h->head + 1) % HANDOFF_SLOTS;
	h->nr--;
	return true;
}

bool handoff_take(struct handoff *h, struct interval_job *out)
{
	/* one at a time: the store is written by one thread, in order */
	if (h->busy || !pop(h, out))
		return false;
	h->busy = true;
	return true;
}

void handoff_done(struct handoff *h, int err)
{
	if (!h->busy)
		return;
	h->busy = false;
	if (err)
		h->st.failed++;
	else
		h->st.written++;
}

bool handoff_idle(const struct handoff *h)
{
	return !h->busy && !h->nr;
}

void handoff_stop(struct handoff *h)
{
	h->stopping = true;
}

bool handoff_drop(struct handoff *h, struct interval_job *out)
{
	if (!pop(h, out))
		return false;
	h->st.lost_at_stop++;
	return true;
}
