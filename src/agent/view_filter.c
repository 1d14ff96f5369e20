// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The web view's process filter (p=REGEX): the root frame of a stored stack
 * is its process (comm) or, with label = cmdline, its command line, so a
 * filter on it selects processes. Thread names are not in the stored folded
 * files, so they cannot be filtered here.
 */
#include "agent/view.h"

#include <errno.h>
#include <regex.h>
#include <string.h>

int view_filter_root(const struct profile *in, const char *re, struct profile **out)
{
	struct profile *p;
	regex_t rx;
	int err = 0;

	/* back-references (a glibc extension to EREs) are the exponential case: refused */
	for (const char *c = strchr(re, '\\'); c; c = strchr(c + 2, '\\'))
		if (c[1] >= '1' && c[1] <= '9')
			return -EINVAL;
		else if (!c[1])
			break;
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
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
