/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Text for a terminal from names a user controls (process names, frames):
 * control characters would move the cursor, retitle the window or worse,
 * so they are written as visible \xNN escapes instead.
 */
#ifndef HC_UTIL_TERMSAFE_H
#define HC_UTIL_TERMSAFE_H

#include <stdio.h>

/*
 * Write @s to @out with C0 controls and DEL as "\xNN", and C1 controls
 * (U+0080..U+009F as UTF-8, or a bare byte 0x80..0x9f after ASCII) as
 * "\xNN" of their code point. Other bytes, valid UTF-8 included, as they are.
 */
void termsafe_put(const char *s, FILE *out);

/* The same into @buf (always NUL-terminated, truncated to @len). Returns @buf. */
char *termsafe_str(const char *s, char *buf, size_t len);

#endif /* HC_UTIL_TERMSAFE_H */
