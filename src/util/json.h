/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one piece of JSON output that is easy to get wrong: strings from untrusted input. */
#ifndef HC_UTIL_JSON_H
#define HC_UTIL_JSON_H

#include <stdio.h>

/*
 * Write @s as a quoted JSON string: '"' and '\\' escaped, control characters
 * as \u00XX, and bytes that are not valid UTF-8 (symbol names are arbitrary
 * bytes) as \ufffd, so the document always parses. 0 or -EIO.
 */
int json_write_string(FILE *out, const char *s);

#endif /* HC_UTIL_JSON_H */
