// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * FlameGraph folded writer and the merging sink in front of it. The sink
 * keys lines by their final (sanitized, joined) text, so two stacks that
 * print the same are one line.
 */
#include "output/folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FOLDED_UNKNOWN		"[unknown]"
#define FOLDED_UNKNOWN_LEN	(sizeof(FOLDED_UNKNOWN) - 1)
/* ';' separates frames; the others would end the line or read as field breaks */
#define FOLDED_SPECIAL		";\n\r\t"
#define FOLDED_MIN_SLOTS	256

/* One merged line; the text is not NUL-terminated. */
struct folded_line {
	uint64_t count;
	uint64_t hash;
	size_t len;
	char text[];
};

struct folded_sink {
	struct folded_line **slots;	/* open addressing, linear probing; NULL = empty */
	size_t slot_mask;
	size_t nr_lines;
	uint64_t total;
	char *buf;			/* scratch for the line being added */
	size_t buf_cap;
};

static char sanitize(char c)
{
	return c == ';' ? ':' : ' ';	/* only called for FOLDED_SPECIAL chars */
}

/* NULL is treated like "": both mean the symbolizer had nothing */
static bool frame_empty(const char *f)
{
	return !f || !*f;
}

static int write_frame(FILE *out, const char *f)
{
	size_t n;

	if (frame_empty(f))
		return fputs(FOLDED_UNKNOWN, out) == EOF ? -EIO : 0;
	while (*f) {
		n = strcspn(f, FOLDED_SPECIAL);
		if (n && fwrite(f, 1, n, out) != n)
			return -EIO;
		f += n;
		if (!*f)
			break;
		if (putc(sanitize(*f), out) == EOF)
			return -EIO;
		f++;
	}
	return 0;
}

/*
 * Ends a line. Also checks the stream's sticky error flag: glibc's fwrite() on
 * an unbuffered stream can return the full count after a failed write(2), so
 * return values alone miss errors. A stream broken before this line counts too.
 */
static int write_count(FILE *out, uint64_t count)
{
	if (fprintf(out, " %" PRIu64 "\n", count) < 0 || ferror(out))
		return -EIO;
	return 0;
}

/*
 * No flush here: a profile is many lines and buffered write errors surface at
 * the caller's fflush()/fclose(). folded_sink__write() flushes once at the end.
 */
int folded_write_frames(FILE *out, const char *const frames[], size_t nr, uint64_t count)
{
	size_t i;
	int err;

	if (nr == 0)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (i && putc(';', out) == EOF)
			return -EIO;
		err = write_frame(out, frames[i]);
		if (err)
			return err;
	}
	return write_count(out, count);
}

/* Same bytes as write_frame(); returns the length written to @dst. */
static size_t copy_frame(char *dst, const char *f)
{
	char *d = dst;

	if (frame_empty(f)) {
		memcpy(dst, FOLDED_UNKNOWN, FOLDED_UNKNOWN_LEN);
		return FOLDED_UNKNOWN_LEN;
	}
	for (; *f; f++)
		*d++ = strchr(FOLDED_SPECIAL, *f) ? sanitize(*f) : *f;
	return d - dst;
}

/* wyhash-style: a 64x64->128 multiply folded to 64 bits per 16 input bytes */
static uint64_t mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = 0xa0761d6478bd642fULL ^ len, a, b;

	for (; len >= 16; p += 16, len -= 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		h = mum(a ^ 0xe7037ed1a0b428dbULL, b ^ h);
	}
	a = b = 0;
	memcpy(&a, p, len > 8 ? 8 : len);
	if (len > 8)
		memcpy(&b, p + 8, len - 8);
	h = mum(a ^ 0x8ebc6af09c88c6e3ULL, b ^ h);
	return mum(h ^ 0x589965cc75374cc3ULL, 0x1d8e4e27c47d124fULL);
}

struct folded_sink *folded_sink__new(void)
{
	struct folded_sink *fs = calloc(1, sizeof(*fs));

	if (!fs)
		goto err;
	fs->slots = calloc(FOLDED_MIN_SLOTS, sizeof(*fs->slots));
	if (!fs->slots)
		goto err;
	fs->slot_mask = FOLDED_MIN_SLOTS - 1;
	return fs;
err:
	free(fs);
	errno = ENOMEM;
	return NULL;
}

void folded_sink__free(struct folded_sink *fs)
{
	size_t i;

	if (!fs)
		return;
	for (i = 0; i <= fs->slot_mask; i++)
		free(fs->slots[i]);
	free(fs->slots);
	free(fs->buf);
	free(fs);
}

static size_t slot_find(const struct folded_sink *fs, uint64_t h, const char *text, size_t len)
{
	const struct folded_line *l;
	size_t pos = h & fs->slot_mask;

	for (; (l = fs->slots[pos]); pos = (pos + 1) & fs->slot_mask) {
		if (l->hash == h && l->len == len && !memcmp(l->text, text, len))
			break;
	}
	return pos;
}

static int slots_grow(struct folded_sink *fs)
{
	size_t nr = (fs->slot_mask + 1) * 2, i, pos;
	struct folded_line **slots = calloc(nr, sizeof(*slots));
	struct folded_line *l;

	if (!slots)
		return -ENOMEM;
	for (i = 0; i <= fs->slot_mask; i++) {
		l = fs->slots[i];
		if (!l)
			continue;
		for (pos = l->hash & (nr - 1); slots[pos]; pos = (pos + 1) & (nr - 1))
			;
		slots[pos] = l;
	}
	free(fs->slots);
	fs->slots = slots;
	fs->slot_mask = nr - 1;
	return 0;
}

/* Build the line's text in fs->buf and its length in *out_len. */
static int build_line(struct folded_sink *fs, const char *const frames[], size_t nr,
		      size_t *out_len)
{
	size_t len = nr - 1, i;
	char *buf;

	for (i = 0; i < nr; i++)
		len += frame_empty(frames[i]) ? FOLDED_UNKNOWN_LEN : strlen(frames[i]);
	if (len > fs->buf_cap) {
		buf = realloc(fs->buf, len);
		if (!buf)
			return -ENOMEM;
		fs->buf = buf;
		fs->buf_cap = len;
	}
	for (i = 0, len = 0; i < nr; i++) {
		if (i)
			fs->buf[len++] = ';';
		len += copy_frame(fs->buf + len, frames[i]);
	}
	*out_len = len;
	return 0;
}

int folded_sink__add(struct folded_sink *fs, const char *const frames[], size_t nr,
		     uint64_t count)
{
	struct folded_line *l;
	uint64_t total, sum, h;
	size_t pos, len;
	int err;

	if (nr == 0)
		return -EINVAL;
	/* exact integer counts or an error: a saturated count would be a lie */
	if (__builtin_add_overflow(fs->total, count, &total))
		return -EOVERFLOW;
	err = build_line(fs, frames, nr, &len);
	if (err)
		return err;
	h = hash_bytes(fs->buf, len);
	pos = slot_find(fs, h, fs->buf, len);
	l = fs->slots[pos];
	if (l) {
		if (__builtin_add_overflow(l->count, count, &sum))
			return -EOVERFLOW;
		l->count = sum;
		fs->total = total;
		return 0;
	}
	if ((fs->nr_lines + 1) > (fs->slot_mask + 1) / 4 * 3) {
		if (slots_grow(fs))
			return -ENOMEM;
		pos = slot_find(fs, h, fs->buf, len);
	}
	l = malloc(sizeof(*l) + len);
	if (!l)
		return -ENOMEM;
	l->count = count;
	l->hash = h;
	l->len = len;
	memcpy(l->text, fs->buf, len);
	fs->slots[pos] = l;
	fs->nr_lines++;
	fs->total = total;
	return 0;
}

size_t folded_sink__nr_lines(const struct folded_sink *fs)
{
	return fs->nr_lines;
}

uint64_t folded_sink__total(const struct folded_sink *fs)
{
	return fs->total;
}

/* count descending, then text ascending bytewise (a prefix sorts first) */
static int line_cmp(const void *pa, const void *pb)
{
	const struct folded_line *a = *(const struct folded_line *const *)pa;
	const struct folded_line *b = *(const struct folded_line *const *)pb;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	c = memcmp(a->text, b->text, a->len < b->len ? a->len : b->len);
	if (c)
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

int folded_sink__write(const struct folded_sink *fs, FILE *out)
{
	const struct folded_line **sorted;
	size_t i, n = 0;
	int err = 0;

	sorted = malloc((fs->nr_lines ? fs->nr_lines : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i <= fs->slot_mask; i++) {
		if (fs->slots[i])
			sorted[n++] = fs->slots[i];
	}
	qsort(sorted, n, sizeof(*sorted), line_cmp);
	for (i = 0; i < n && !err; i++) {
		if (fwrite(sorted[i]->text, 1, sorted[i]->len, out) != sorted[i]->len)
			err = -EIO;
		else
			err = write_count(out, sorted[i]->count);
	}
	free(sorted);
	/* surface errors that buffering would otherwise hide until fclose() */
	if (!err && fflush(out) == EOF)
		err = -EIO;
	return err;
}
