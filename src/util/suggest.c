// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Levenshtein over a command's long options: a typo gets a suggestion, not the whole help. */
#include "util/suggest.h"

#include <string.h>

#include "util/log.h"

#define MAXLEN 64

size_t suggest__distance(const char *a, const char *b)
{
	size_t la = strnlen(a, MAXLEN), lb = strnlen(b, MAXLEN);
	size_t row[MAXLEN + 1];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *suggest__option(const char *arg, const struct option *opts)
{
	char name[MAXLEN + 1];
	const char *best = NULL;
	size_t len, best_d = (size_t)-1, limit;

	while (*arg == '-')
		arg++;
	len = strcspn(arg, "=");
	if (!len || len > MAXLEN)
		return NULL;
	memcpy(name, arg, len);
	name[len] = '\0';
	for (const struct option *o = opts; o->name; o++) {
		size_t d = suggest__distance(name, o->name);

		if (!d)
			return NULL;
		if (d < best_d) {
			best_d = d;
			best = o->name;
		}
	}
	limit = len / 3 > 2 ? len / 3 : 2;
	return best_d <= limit ? best : NULL;
}

void suggest__unknown_option(const char *who, const char *arg, const struct option *opts)
{
	const char *s = arg[0] == '-' && arg[1] == '-' ? suggest__option(arg, opts) : NULL;

	if (s)
		pr_warn("%s: unknown option '%s'; did you mean '--%s'?\n", who, arg, s);
	else
		pr_warn("%s: unknown option '%s'\n", who, arg);
	pr_warn("'hotcold %s --help' lists its options\n", who);
}
