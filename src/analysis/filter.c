// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Stack filters by regular expression, applied by copying the kept stacks. */
#include "analysis/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static int compile(regex_t *re, const char *expr, const char *what)
{
	char msg[256];
	int rc;

	/* REG_NOSUB: only "does it match" is needed, which lets glibc skip submatch tracking */
	rc = regcomp(re, expr, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, re, msg, sizeof(msg));
		pr_warn("filter: bad %s expression '%s': %s\n", what, expr, msg);
		regfree(re);
		return -EINVAL;
	}
	return 0;
}

int stack_filter__init(struct stack_filter *f, const char *grep, const char *exclude)
{
	memset(f, 0, sizeof(*f));
	if (grep) {
		if (compile(&f->grep, grep, "--grep"))
			return -EINVAL;
		f->has_grep = true;
	}
	if (exclude) {
		if (compile(&f->exclude, exclude, "--exclude")) {
			stack_filter__release(f);
			return -EINVAL;
		}
		f->has_exclude = true;
	}
	return 0;
}

void stack_filter__release(struct stack_filter *f)
{
	if (f->has_grep)
		regfree(&f->grep);
	if (f->has_exclude)
		regfree(&f->exclude);
	f->has_grep = f->has_exclude = false;
}

static bool keep(const struct stack_filter *f, const char *text)
{
	if (f->has_grep && regexec(&f->grep, text, 0, NULL, 0))
		return false;
	return !(f->has_exclude && !regexec(&f->exclude, text, 0, NULL, 0));
}

int stack_filter__apply(const struct stack_filter *f, const struct profile *in,
			struct profile **out)
{
	struct profile *p = profile__new();
	size_t i, cap_text = 0;
	const struct profile_stack *s;
	char *text = NULL;
	int err = p ? 0 : -ENOMEM;

	for (i = 0; !err && i < profile__nr_stacks(in); i++) {
		s = profile__stack(in, i);
		err = profile_stack_text(in, s, &text, &cap_text);
		if (!err && keep(f, text))
			err = profile__copy_stack(p, in, s);
	}
	free(text);
	if (err) {
		profile__free(p);
		return err;
	}
	profile__copy_meta(p, in);
	*out = p;
	return 0;
}
