// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Lock table rows: locks grouped by site (see locks_group.h). */
#include "record/locks_group.h"

#include <stdlib.h>
#include <string.h>

static bool groupable(const struct locks_member *x)
{
	return x->tgid && x->site[0];
}

/*
 * Process name, class, site: members of one site row end up adjacent. By
 * name, not pid: processes of one program share locks in shared memory
 * (PostgreSQL's backends sleep on their own semaphores for one LWLock).
 */
static int cmp_member(const void *a, const void *b)
{
	const struct locks_member *x = a, *y = b;
	int c;

	if (groupable(x) != groupable(y))
		return groupable(x) ? -1 : 1;
	c = strcmp(x->comm, y->comm);
	if (c)
		return c;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	c = strcmp(x->site, y->site);
	if (c)
		return c;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static bool same_site(const struct locks_member *x, const struct locks_member *y)
{
	return groupable(x) && groupable(y) && !strcmp(x->comm, y->comm) && x->cls == y->cls &&
	       !strcmp(x->site, y->site);
}

static unsigned int g_sort_key;

static int cmp_disp(const void *a, const void *b)
{
	const struct locks_disp *x = a, *y = b;
	uint64_t vx = g_sort_key == 1 ? x->max_ns : g_sort_key == 2 ? x->count : x->total_ns;
	uint64_t vy = g_sort_key == 1 ? y->max_ns : g_sort_key == 2 ? y->count : y->total_ns;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

size_t locks_group(struct locks_member *m, size_t n, bool by_site, bool all_waits,
		   unsigned int sort_key, struct locks_disp *rows)
{
	size_t nr = 0, j;

	qsort(m, n, sizeof(*m), cmp_member);
	for (size_t i = 0; i < n; i = j) {
		struct locks_disp *d = &rows[nr];

		j = i + 1;
		if (by_site)
			while (j < n && same_site(&m[i], &m[j]))
				j++;
		if (!all_waits && !lockwait_is_contention(m[i].cls))
			continue;
		memset(d, 0, sizeof(*d));
		d->first = i;
		d->nr = j - i;
		d->by_site = d->nr > 1;
		for (size_t k = i; k < j; k++) {
			if (k == i || m[k].tgid != m[k - 1].tgid)
				d->nr_procs++;
			d->count += m[k].count;
			d->total_ns += m[k].total_ns;
			if (m[k].max_ns > d->max_ns)
				d->max_ns = m[k].max_ns;
		}
		nr++;
	}
	g_sort_key = sort_key;
	qsort(rows, nr, sizeof(*rows), cmp_disp);
	return nr;
}
