// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Control characters in user-controlled names, made visible before a terminal sees them. */
#include "util/termsafe.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool c1(unsigned char c)
{
	return c >= 0x80 && c <= 0x9f;
}

void termsafe_put(const char *s, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char prev = 0;

	for (; *p; prev = *p++) {
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\x%02x", *p);
		} else if (*p == 0xc2 && c1(p[1])) {
			/* U+0080..U+009F: an 8-bit terminal control in UTF-8 */
			fprintf(out, "\\x%02x", p[1]);
			prev = *++p;
		} else if (c1(*p) && prev < 0x80) {
			/* a bare 0x9b is CSI to a terminal in 8-bit mode */
			fprintf(out, "\\x%02x", *p);
		} else {
			putc(*p, out);
		}
	}
}

char *termsafe_str(const char *s, char *buf, size_t len)
{
	FILE *f = len ? fmemopen(buf, len, "w") : NULL;

	if (!f) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	/* fmemopen keeps the last byte for the NUL when the text is longer */
	setbuf(f, NULL);
	termsafe_put(s, f);
	fclose(f);
	buf[len - 1] = '\0';
	return buf;
}
