// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Python code object names read from the target's memory, cached for the session. */
#include "sym/python_names.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "sym/python_layout.h"

#define PY_NAME_CHARS 256	/* characters of a name or file name kept */
#define PY_CODE_BYTES 192	/* the head of a PyCodeObject: every field read lies in it */
#define PY_UNI_HEAD 72		/* sizeof(PyCompactUnicodeObject) in 3.11, the largest */

#define PY_LINETABLE_MAX 4096	/* location table bytes kept per code object */

struct py_code {
	char *text;		/* "qualname (file:first line)" */
	uint8_t *lt;		/* co_linetable's bytes, or NULL */
	uint32_t lt_len;
	int32_t first;		/* co_firstlineno */
};

struct python_names {
	struct keymap ids;	/* (tgid << 32 | gen, code) -> id */
	struct py_code *code;	/* [id - 1] */
	size_t nr, cap, max;
	struct python_names_stats st;
};

struct python_names *python_names__new(size_t max)
{
	struct python_names *pn = calloc(1, sizeof(*pn));

	if (!pn)
		return NULL;
	keymap__init(&pn->ids);
	pn->max = max;
	return pn;
}

void python_names__free(struct python_names *pn)
{
	if (!pn)
		return;
	for (size_t i = 0; i < pn->nr; i++) {
		free(pn->code[i].text);
		free(pn->code[i].lt);
	}
	free(pn->code);
	keymap__release(&pn->ids);
	free(pn);
}

static int read_mem(uint32_t tgid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { .iov_base = buf, .iov_len = n };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = n };
	ssize_t got = process_vm_readv((pid_t)tgid, &local, 1, &remote, 1, 0);

	if (got < 0)
		return -errno;
	return (size_t)got == n ? 0 : -EFAULT;
}

/* One UTF-8 encoded code point into @buf at *@o (< @len - 1 kept for the NUL). */
static void put_utf8(char *buf, size_t len, size_t *o, uint32_t c)
{
	char tmp[4];
	size_t k;

	if (c < 0x80) {
		tmp[0] = (char)c;
		k = 1;
	} else if (c < 0x800) {
		tmp[0] = (char)(0xc0 | c >> 6);
		tmp[1] = (char)(0x80 | (c & 0x3f));
		k = 2;
	} else if (c < 0x10000) {
		tmp[0] = (char)(0xe0 | c >> 12);
		tmp[1] = (char)(0x80 | (c >> 6 & 0x3f));
		tmp[2] = (char)(0x80 | (c & 0x3f));
		k = 3;
	} else {
		tmp[0] = (char)(0xf0 | (c >> 18 & 7));
		tmp[1] = (char)(0x80 | (c >> 12 & 0x3f));
		tmp[2] = (char)(0x80 | (c >> 6 & 0x3f));
		tmp[3] = (char)(0x80 | (c & 0x3f));
		k = 4;
	}
	if (*o + k >= len)
		return;
	memcpy(buf + *o, tmp, k);
	*o += k;
}

long python_unicode_utf8(const uint8_t *obj, size_t n, const struct python_layout *l, char *buf,
			 size_t len)
{
	uint64_t length;
	uint32_t state, kind;
	size_t data, need, o = 0;

	if (!len || n < (size_t)l->uni_state + 4 || n < (size_t)l->uni_length + 8)
		return -EINVAL;
	buf[0] = '\0';
	memcpy(&length, obj + l->uni_length, sizeof(length));
	memcpy(&state, obj + l->uni_state, sizeof(state));
	/* state: interned:2, kind:3, compact:1, ascii:1 (3.11 and 3.12) */
	kind = state >> 2 & 7;
	if (!(state >> 5 & 1) || (kind != 1 && kind != 2 && kind != 4))
		return -EINVAL;
	if (length > PY_NAME_CHARS)
		length = PY_NAME_CHARS;
	data = state >> 6 & 1 ? l->uni_ascii_data : l->uni_compact_data;
	need = data + length * kind;
	if (need > n)
		return (long)(need - n);
	for (size_t i = 0; i < length; i++) {
		const uint8_t *p = obj + data + i * kind;
		uint32_t c = kind == 1 ? p[0] : kind == 2 ? (uint32_t)(p[0] | p[1] << 8) :
			     (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);

		/* names end up in folded lines: no separators, no control characters */
		if (c < 0x20 || c == ';' || c == 0x7f)
			c = '?';
		put_utf8(buf, len, &o, c);
	}
	buf[o] = '\0';
	return 0;
}

/* Objects/locations.md: 6-bit chunks, low first, 0x40 says another follows. */
static uint32_t lt_varint(const uint8_t *lt, size_t n, size_t *i)
{
	uint32_t v = 0;
	unsigned int shift = 0;

	while (*i < n && shift < 30) {
		uint8_t b = lt[(*i)++];

		v |= (uint32_t)(b & 0x3f) << shift;
		shift += 6;
		if (!(b & 0x40))
			break;
	}
	return v;
}

static int32_t lt_svarint(const uint8_t *lt, size_t n, size_t *i)
{
	uint32_t v = lt_varint(lt, n, i);

	return v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
}

int python_line_at(const uint8_t *lt, size_t n, int first, uint32_t idx)
{
	uint32_t unit = 0;
	int line = first;
	size_t i = 0;

	/* entries: 1 (start bit) | code (4 bits) | code units covered - 1 (3 bits), then data */
	while (i < n) {
		uint8_t h = lt[i++];
		uint32_t code = h >> 3 & 15, len = (h & 7) + 1;
		bool none = false;

		if (!(h & 0x80))
			return 0;	/* not at an entry: a table we misread */
		if (code == 15) {
			none = true;			/* no location */
		} else if (code == 14) {
			line += lt_svarint(lt, n, &i);	/* long form */
			lt_varint(lt, n, &i);		/* end line delta */
			lt_varint(lt, n, &i);		/* start column + 1 */
			lt_varint(lt, n, &i);		/* end column + 1 */
		} else if (code == 13) {
			line += lt_svarint(lt, n, &i);	/* no columns */
		} else if (code >= 10) {
			line += (int)code - 10;		/* one line: two column bytes */
			i += 2;
		} else {
			i += 1;				/* short form: same line, a column byte */
		}
		if (idx < unit + len)
			return none || line < 0 ? 0 : line;
		unit += len;
	}
	return 0;
}

/* The str object at @addr of @tgid into @buf; 0 or -errno. */
static int read_str(uint32_t tgid, uint64_t addr, const struct python_layout *l, char *buf,
		    size_t len)
{
	uint8_t obj[PY_UNI_HEAD + PY_NAME_CHARS * 4];
	long more;

	if (!addr || read_mem(tgid, addr, obj, PY_UNI_HEAD))
		return -EFAULT;
	more = python_unicode_utf8(obj, PY_UNI_HEAD, l, buf, len);
	if (more > 0) {
		if ((size_t)more > sizeof(obj) - PY_UNI_HEAD ||
		    read_mem(tgid, addr + PY_UNI_HEAD, obj + PY_UNI_HEAD, (size_t)more))
			return -EFAULT;
		more = python_unicode_utf8(obj, PY_UNI_HEAD + (size_t)more, l, buf, len);
	}
	return more ? -EINVAL : 0;
}

/* The location table (a bytes object at @addr) into c->lt; best effort: no lines without. */
static void read_linetable(uint32_t tgid, uint64_t addr, const struct python_layout *l,
			   struct py_code *c)
{
	uint8_t head[64];
	int64_t size;

	if (!addr || l->bytes_data > sizeof(head) || read_mem(tgid, addr, head, l->bytes_data))
		return;
	memcpy(&size, head + l->bytes_size, sizeof(size));
	if (size <= 0)
		return;
	if (size > PY_LINETABLE_MAX)
		size = PY_LINETABLE_MAX;	/* lines past it are unknown (0) */
	c->lt = malloc((size_t)size);
	if (c->lt && !read_mem(tgid, addr + l->bytes_data, c->lt, (size_t)size)) {
		c->lt_len = (uint32_t)size;
		return;
	}
	free(c->lt);
	c->lt = NULL;
}

/* Name and location table of the code object at @code into @c; 0 or -errno. */
static int read_code(uint32_t tgid, uint64_t code, const struct python_layout *l,
		     struct py_code *c)
{
	char name[PY_NAME_CHARS * 4 + 1], file[PY_NAME_CHARS * 4 + 1];
	uint8_t co[PY_CODE_BYTES];
	uint64_t qual, fn, lt;

	if (read_mem(tgid, code, co, sizeof(co)))
		return -EFAULT;
	memcpy(&qual, co + l->co_qualname, sizeof(qual));
	memcpy(&fn, co + l->co_filename, sizeof(fn));
	memcpy(&lt, co + l->co_linetable, sizeof(lt));
	memcpy(&c->first, co + l->co_firstlineno, sizeof(c->first));
	if (read_str(tgid, qual, l, name, sizeof(name)) || read_str(tgid, fn, l, file, sizeof(file)))
		return -EFAULT;
	if (asprintf(&c->text, "%s (%s:%d)", name, file, c->first) < 0) {
		c->text = NULL;
		return -ENOMEM;
	}
	read_linetable(tgid, lt, l, c);
	return 0;
}

uint32_t python_names__id(struct python_names *pn, uint32_t tgid, uint32_t gen, uint64_t code,
			  const struct python_layout *l)
{
	uint64_t key = (uint64_t)tgid << 32 | gen, id;
	struct py_code c = {}, *grown;

	if (keymap__get(&pn->ids, key, code, &id))
		return (uint32_t)id;
	if (pn->nr >= pn->max) {
		pn->st.full++;
		return 0;
	}
	if (!read_code(tgid, code, l, &c)) {
		pn->st.named++;
	} else {
		pn->st.unreadable++;
		if (asprintf(&c.text, "[python code 0x%llx]", (unsigned long long)code) < 0)
			return 0;
	}
	if (pn->nr == pn->cap) {
		size_t cap = pn->cap ? 2 * pn->cap : 256;

		grown = realloc(pn->code, cap * sizeof(*grown));
		if (!grown)
			goto err;
		pn->code = grown;
		pn->cap = cap;
	}
	if (keymap__put(&pn->ids, key, code, pn->nr + 1))
		goto err;
	pn->code[pn->nr++] = c;
	return (uint32_t)pn->nr;
err:
	free(c.text);
	free(c.lt);
	return 0;
}

const char *python_names__name(const struct python_names *pn, uint32_t id)
{
	if (!pn || !id || id > pn->nr)
		return NULL;
	return pn->code[id - 1].text;
}

int python_names__line(const struct python_names *pn, uint32_t id, uint32_t instr)
{
	const struct py_code *c;

	if (!pn || !id || id > pn->nr || !instr)
		return 0;
	c = &pn->code[id - 1];
	return c->lt ? python_line_at(c->lt, c->lt_len, c->first, instr - 1) : 0;
}

void python_names__stats(const struct python_names *pn, struct python_names_stats *st)
{
	*st = pn->st;
}
