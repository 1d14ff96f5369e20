// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Levenshtein over the names a word could have meant: a typo gets a suggestion, not the whole help. */
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

const char *suggest__nearest(const char *word, const char *const *name, size_t nr, size_t stride)
{
	size_t len = strlen(word), best_d = (size_t)-1, limit;
	const char *best = NULL;

	if (!len || len > MAXLEN)
		return NULL;
	for (size_t i = 0; i < nr; i++, name = (const char *const *)((const char *)name + stride)) {
		size_t d = suggest__distance(word, *name);

		if (!d)
			return NULL;
		if (d < best_d) {
			best_d = d;
			best = *name;
		}
	}
	limit = len / 3 > 2 ? len / 3 : 2;
	return best_d <= limit ? best : NULL;
}

const char *suggest__option(const char *arg, const struct option *opts)
{
	char name[MAXLEN + 1];
	size_t len, nr = 0;

	while (*arg == '-')
		arg++;
	len = strcspn(arg, "=");
	if (!len || len > MAXLEN)
		return NULL;
	memcpy(name, arg, len);
	name[len] = '\0';
	while (opts[nr].name)
		nr++;
	return suggest__nearest(name, &opts[0].name, nr, sizeof(opts[0]));
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
