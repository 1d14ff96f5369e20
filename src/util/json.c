// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON string escaping with UTF-8 validation. */
#include "util/json.h"

#include <errno.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at @s (1-4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and code points past U+10FFFF are invalid */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int json_write_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	putc('"', out);
	while (*s) {
		n = utf8_len(s);
		if (!n) {
			fputs("\\ufffd", out);
			s++;
		} else if (*s == '"' || *s == '\\') {
			putc('\\', out);
			putc(*s++, out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, out);
			s += n;
		}
	}
	putc('"', out);
	return ferror(out) ? -EIO : 0;
}
