// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JavaScript function names from a V8 heap (see v8_names.h). */
#include "sym/v8_names.h"

#include <linux/types.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "abi/v8.h"

/* a name is an identifier, or what a program computed: the first this many chars */
#define V8_NAME_MAX_CHARS	512
/* cons strings nest; a name's rarely more than a few deep */
#define V8_STR_MAX_DEPTH	8
/* ScopeInfo slots looked at after the context locals for the name (see scope_info_name()) */
#define V8_SCOPE_NAME_SLOTS	4
/* more context locals than this are in a hash table, not inline (scope-info.h) */
#define V8_SCOPE_MAX_INLINE	75
/* a script's name longer than this shows its end: "...lib/server.js" */
#define V8_SCRIPT_MAX_BYTES	160

struct out {
	char *buf;
	size_t len, used;
	size_t chars;		/* characters taken, all parts */
	int full;
};

static int rd(const struct v8_reader *r, uint64_t addr, void *buf, size_t len)
{
	return r->read(r->arg, addr, buf, len) ? -EFAULT : 0;
}

static int rd_u64(const struct v8_reader *r, uint64_t addr, uint64_t *v)
{
	return rd(r, addr, v, sizeof(*v));
}

static int is_heap(uint64_t v)
{
	return (v & HC_V8_HEAP_TAG_MASK) == HC_V8_HEAP_TAG;
}

/* The instance type of the heap object @tagged, or -errno. */
static int obj_type(const struct v8_layout *l, const struct v8_reader *r, uint64_t tagged,
		    uint16_t *type)
{
	uint64_t map;

	if (!is_heap(tagged))
		return -EINVAL;
	if (rd_u64(r, tagged - 1 + (uint64_t)l->v[V8_HEAPOBJECT_MAP], &map))
		return -EFAULT;
	if (!is_heap(map))
		return -EINVAL;
	return rd(r, map - 1 + (uint64_t)l->v[V8_MAP_INSTANCE_TYPE], type, sizeof(*type));
}

/* Append code point @c as UTF-8, unless it does not fit (then the output is full). */
static void put_cp(struct out *o, uint32_t c)
{
	char b[4];
	size_t n;

	/* control characters would break a folded line: a '?' */
	if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c < 0xe000))
		c = '?';
	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | (c >> 12 & 0x3f));
		b[2] = (char)(0x80 | (c >> 6 & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	if (o->full || o->used + n >= o->len) {
		o->full = 1;
		return;
	}
	memcpy(o->buf + o->used, b, n);
	o->used += n;
	o->buf[o->used] = '\0';
}

/* @n characters from @off of a sequential string's chars at @chars (@two: UTF-16). */
static int seq_chars(const struct v8_reader *r, uint64_t chars, uint32_t off, uint32_t n,
		     int two, struct out *o)
{
	uint8_t b[256];
	uint32_t w = two ? 2 : 1, hi = 0;

	while (n && !o->full && o->chars < V8_NAME_MAX_CHARS) {
		uint32_t k = n;

		if (k > sizeof(b) / w)
			k = sizeof(b) / w;
		if (k > V8_NAME_MAX_CHARS - o->chars)
			k = (uint32_t)(V8_NAME_MAX_CHARS - o->chars);
		if (rd(r, chars + (uint64_t)off * w, b, (size_t)k * w))
			return -EFAULT;
		for (uint32_t i = 0; i < k; i++) {
			uint32_t c = two ? (uint32_t)(b[2 * i] | b[2 * i + 1] << 8) : b[i];

			/* a surrogate pair is one code point */
			if (two && c >= 0xd800 && c < 0xdc00) {
				hi = c;
				continue;
			}
			if (two && hi && c >= 0xdc00 && c < 0xe000)
				c = 0x10000 + ((hi - 0xd800) << 10) + (c - 0xdc00);
			hi = 0;
			put_cp(o, c);
		}
		o->chars += k;
		off += k;
		n -= k;
	}
	return 0;
}

/* The string @tagged, characters [@off, @off + @n) of it (@n UINT32_MAX: to its end). */
static int str_part(const struct v8_layout *l, const struct v8_reader *r, uint64_t tagged,
		    uint32_t off, uint32_t n, int depth, struct out *o)
{
	const int64_t *v = l->v;
	uint64_t a = tagged - 1, p, q;
	uint16_t type;
	int32_t slen;
	uint32_t rep, len1;
	int err;

	if (depth > V8_STR_MAX_DEPTH)
		return -ELOOP;
	err = obj_type(l, r, tagged, &type);
	if (err)
		return err;
	if (type >= v[V8_FIRST_NONSTRING_TYPE])
		return -EINVAL;
	if (rd(r, a + (uint64_t)v[V8_STRING_LENGTH], &slen, sizeof(slen)))
		return -EFAULT;
	if (slen < 0 || off > (uint32_t)slen)
		return -EINVAL;
	if (n > (uint32_t)slen - off)
		n = (uint32_t)slen - off;
	rep = type & (uint32_t)v[V8_STRING_REP_MASK];
	if (rep == (uint32_t)v[V8_SEQ_STRING_TAG]) {
		int two = (type & (uint32_t)v[V8_STRING_ENC_MASK]) == (uint32_t)v[V8_TWO_BYTE_TAG];

		uint64_t chars = a + (uint64_t)v[two ? V8_SEQ_TWO_BYTE_CHARS : V8_SEQ_ONE_BYTE_CHARS];

		return seq_chars(r, chars, off, n, two, o);
	}
	if (rep == (uint32_t)v[V8_THIN_STRING_TAG]) {
		if (rd_u64(r, a + (uint64_t)v[V8_THIN_ACTUAL], &p))
			return -EFAULT;
		return str_part(l, r, p, off, n, depth + 1, o);
	}
	if (rep == (uint32_t)v[V8_CONS_STRING_TAG]) {
		if (rd_u64(r, a + (uint64_t)v[V8_CONS_FIRST], &p) ||
		    rd_u64(r, a + (uint64_t)v[V8_CONS_SECOND], &q) ||
		    rd(r, p - 1 + (uint64_t)v[V8_STRING_LENGTH], &slen, sizeof(slen)))
			return -EFAULT;
		len1 = slen < 0 ? 0 : (uint32_t)slen;
		if (off < len1) {
			err = str_part(l, r, p, off, n < len1 - off ? n : len1 - off, depth + 1, o);
			if (err || n <= len1 - off)
				return err;
			n -= len1 - off;
			off = len1;
		}
		return str_part(l, r, q, off - len1, n, depth + 1, o);
	}
	if (rep == (uint32_t)v[V8_SLICED_STRING_TAG] && v8_layout_has(l, V8_SLICED_PARENT) &&
	    v8_layout_has(l, V8_SLICED_OFFSET)) {
		if (rd_u64(r, a + (uint64_t)v[V8_SLICED_PARENT], &p) ||
		    rd_u64(r, a + (uint64_t)v[V8_SLICED_OFFSET], &q))
			return -EFAULT;
		/* the offset is a Smi: its value in the upper half */
		if (q & 1)
			return -EINVAL;
		return str_part(l, r, p, off + (uint32_t)(q >> 32), n, depth + 1, o);
	}
	return -EINVAL;	/* external strings: their characters are not in the heap */
}

int v8_string(const struct v8_layout *l, const struct v8_reader *r, uint64_t tagged, char *buf,
	      size_t len)
{
	struct out o = { .buf = buf, .len = len };

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	return str_part(l, r, tagged, 0, UINT32_MAX, 0, &o);
}

/* Is @tagged a string (of any kind)? */
static int is_string(const struct v8_layout *l, const struct v8_reader *r, uint64_t tagged)
{
	uint16_t type;

	return !obj_type(l, r, tagged, &type) && type < l->v[V8_FIRST_NONSTRING_TYPE];
}

/*
 * The function's name in its ScopeInfo at @si (untagged). Its slots
 * (scope-info.tq): flags, parameter count, context local count, the
 * context locals' names and infos (inline up to 75 of them), then optional
 * ones the flags say are there: a saved class variable's index (a Smi),
 * the function variable (its name and slot), the inferred name. The flags'
 * bits change between versions, so the name is taken as V8's DebugName()
 * would give it: the first non-empty string in the few slots after the
 * locals (a Smi is a slot index or position, never a name).
 */
static int scope_info_name(const struct v8_layout *l, const struct v8_reader *r, uint64_t si,
			   char *buf, size_t len)
{
	uint64_t slots[V8_SCOPE_NAME_SLOTS], nloc, first;
	uint64_t base = si + (uint64_t)l->v[V8_HEAPOBJECT_MAP] + 8;

	if (rd_u64(r, base + 8 * (uint64_t)l->v[V8_SCOPEINFO_NCONTEXTLOCALS], &nloc))
		return -EFAULT;
	if (nloc & 1)
		return -EINVAL;	/* not a Smi: no ScopeInfo */
	nloc >>= 32;
	if (nloc > 1u << 20)
		return -EINVAL;
	/* names inline, else one hash table; then an info per local */
	first = (uint64_t)l->v[V8_SCOPEINFO_FIRST_VARS] +
		(nloc < V8_SCOPE_MAX_INLINE ? nloc : 1) + nloc;
	if (rd(r, base + 8 * first, slots, sizeof(slots)))
		return -EFAULT;
	for (int i = 0; i < V8_SCOPE_NAME_SLOTS; i++) {
		if (!is_heap(slots[i]) || !is_string(l, r, slots[i]))
			continue;
		if (!v8_string(l, r, slots[i], buf, len) && buf[0])
			return 0;
	}
	buf[0] = '\0';
	return 0;
}

/*
 * " (script)" after the name in @buf, the file the function is in as its
 * Script names it (a path, a file: URL, node:internal/... for Node's own
 * code), its end if long; where it fits whole. Nothing where the layout
 * lacks the fields, the SharedFunctionInfo holds a DebugInfo instead (a
 * debugger is attached) or the Script's name is no string (eval'd code).
 */
static void script_suffix(const struct v8_layout *l, const struct v8_reader *r, uint64_t sfi,
			  char *buf, size_t len)
{
	char file[4 * V8_SCRIPT_MAX_BYTES], *p;
	uint64_t script, name;
	size_t n, used;
	uint16_t type;

	if (!v8_layout_has(l, V8_SFI_SCRIPT) || !v8_layout_has(l, V8_SCRIPT_NAME) ||
	    !v8_layout_has(l, V8_TYPE_SCRIPT))
		return;
	if (rd_u64(r, sfi - 1 + (uint64_t)l->v[V8_SFI_SCRIPT], &script) ||
	    obj_type(l, r, script, &type) || type != l->v[V8_TYPE_SCRIPT])
		return;
	if (rd_u64(r, script - 1 + (uint64_t)l->v[V8_SCRIPT_NAME], &name) || !is_heap(name) ||
	    !is_string(l, r, name) || v8_string(l, r, name, file, sizeof(file)) || !file[0])
		return;
	p = file;
	n = strlen(file);
	if (n > V8_SCRIPT_MAX_BYTES) {
		p = file + n - V8_SCRIPT_MAX_BYTES;
		while ((*p & 0xc0) == 0x80)	/* not inside a UTF-8 character */
			p++;
	}
	used = strlen(buf);
	n = strlen(p) + (p != file ? 3 : 0) + 3;
	if (used + n < len)
		snprintf(buf + used, len - used, " (%s%s)", p != file ? "..." : "", p);
}

int v8_frame_name(const struct v8_layout *l, const struct v8_reader *r, uint64_t frame, char *buf,
		  size_t len)
{
	uint64_t sfi = frame & HC_V8_SFI_PTR_MASK, nos;
	uint16_t type;
	int err;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	err = obj_type(l, r, sfi, &type);
	if (err)
		return err == -EFAULT ? err : -ESTALE;
	if (type != l->v[V8_TYPE_SFI])
		return -ESTALE;
	if (rd_u64(r, sfi - 1 + (uint64_t)l->v[V8_SFI_NAME_OR_SCOPE_INFO], &nos))
		return -EFAULT;
	if (hc_v8_sfi_check(nos) != (frame >> HC_V8_SFI_CHECK_SHIFT & 0xff))
		return -ESTALE;
	/* a Smi: no name (SharedFunctionInfo::kNoSharedNameSentinel) */
	if (is_heap(nos)) {
		err = obj_type(l, r, nos, &type);
		if (err)
			return err;
		if (type < l->v[V8_FIRST_NONSTRING_TYPE])
			err = v8_string(l, r, nos, buf, len);
		else if (type == l->v[V8_TYPE_SCOPE_INFO])
			err = scope_info_name(l, r, nos - 1, buf, len);
		if (err)
			return err;
	}
	if (!buf[0])
		snprintf(buf, len, "%s", V8_ANONYMOUS);
	script_suffix(l, r, sfi, buf, len);
	return 0;
}
