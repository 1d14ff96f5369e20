// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The web view's filters. By process (p=REGEX): the root frame of a stored
 * stack is its process (comm) or, with label = cmdline, its command line,
 * so a filter on it selects processes. By thread (th=REGEX): thread names
 * and TIDs are not in the stored folded files, but every sample of the
 * interval's stored pprof carries them as labels (thread_name, tid: see
 * output/pprof.h), so a thread view is built from the pprof files instead.
 */
#include "agent/view.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/pprof_profile.h"

int view_regcomp(regex_t *rx, const char *re)
{
	/* back-references (a glibc extension to EREs) are the exponential case: refused */
	for (const char *c = strchr(re, '\\'); c; c = strchr(c + 2, '\\'))
		if (c[1] >= '1' && c[1] <= '9')
			return -EINVAL;
		else if (!c[1])
			break;
	return regcomp(rx, re, REG_EXTENDED | REG_NOSUB) ? -EINVAL : 0;
}

int view_filter_root(const struct profile *in, const char *re, struct profile **out)
{
	struct profile *p;
	regex_t rx;
	int err = view_regcomp(&rx, re);

	if (err)
		return err;
	p = profile__new();
	if (!p) {
		regfree(&rx);
		return -ENOMEM;
	}
	profile__copy_meta(p, in);
	for (size_t i = 0; !err && i < profile__nr_stacks(in); i++) {
		const struct profile_stack *s = profile__stack(in, i);
		const struct profile_frame *root = profile__frame(in, s->frames[0]);

		if (root && !regexec(&rx, root->name, 0, NULL, 0))
			err = profile__copy_stack(p, in, s);
	}
	regfree(&rx);
	if (err) {
		profile__free(p);
		return err;
	}
	*out = p;
	return 0;
}

bool view_thread_match(const regex_t *rx, const char *name, int64_t tid)
{
	char both[64];

	if (!name || !*name)
		return false;	/* no thread identity: matches no thread filter */
	if (!regexec(rx, name, 0, NULL, 0))
		return true;
	if (tid <= 0)
		return false;
	/* "name-TID", as record --per-thread names the root (a name has at most 15 bytes) */
	snprintf(both, sizeof(both), "%.40s-%lld", name, (long long)tid);
	return !regexec(rx, both, 0, NULL, 0);
}

struct keep_arg {
	const regex_t *rx;
	uint64_t *unnamed;
};

static bool keep_thread(const struct pprof_sample *s, void *arg)
{
	const struct pprof_label *name = pprof_sample_label(s, "thread_name");
	const struct pprof_label *tid = pprof_sample_label(s, "tid");
	struct keep_arg *ka = arg;

	if (!name || !name->str || !*name->str)
		(*ka->unnamed)++;
	return view_thread_match(ka->rx, name ? name->str : NULL, tid && !tid->str ? tid->num : 0);
}

int view_add_pprof(struct profile *p, const void *pb, size_t len, enum profile_kind kind,
		   const regex_t *rx, uint64_t *unnamed)
{
	struct keep_arg ka = { rx, unnamed };
	struct pprof_add_stats st;
	struct pprof_data d;
	int err = pprof_decode(pb, len, &d);

	if (err)
		return err;
	err = pprof_add_samples(&d, kind, keep_thread, &ka, p, &st);
	pprof_data_release(&d);
	return err;
}
