/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Nearest name for a typo: long options (from getopt_long's own array), commands, config keys. */
#ifndef HC_UTIL_SUGGEST_H
#define HC_UTIL_SUGGEST_H

#include <getopt.h>
#include <stddef.h>

/* Edit distance (insert, delete, substitute = 1) of two strings, capped at 64 chars each. */
size_t suggest__distance(const char *a, const char *b);

/*
 * The name @word most likely meant among @nr names, the first at @name and
 * each next @stride bytes on (a member of an array of structs): the closest
 * by edit distance if within max(2, len / 3), else NULL; NULL for an exact
 * name (not a typo).
 */
const char *suggest__nearest(const char *word, const char *const *name, size_t nr, size_t stride);

/*
 * The long option @arg ("--frq", "--frq=3", "frq") most likely meant, from
 * @opts (terminated by a zero entry): the closest by edit distance if within
 * max(2, len / 3), else NULL. An exact name is NULL (not a typo).
 */
const char *suggest__option(const char *arg, const struct option *opts);

/*
 * "@who: unknown option '@arg'", then "did you mean '--x'?" when there is a
 * close one, and where to find the list; to stderr through the logger.
 */
void suggest__unknown_option(const char *who, const char *arg, const struct option *opts);

#endif /* HC_UTIL_SUGGEST_H */
