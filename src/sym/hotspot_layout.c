// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One JVM's layout for the stack walk (see hotspot_layout.h), on top of hs_attach(). */
#include "sym/hotspot_layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/hotspot_int.h"

/*
 * The interpreter keeps its caller's sp (before the callee's locals
 * extended the caller's frame) one word below its frame pointer on x86-64
 * in every JDK we read; the walker reads it there, so another value is
 * refused, not followed.
 */
#define HS_SENDER_SP_WORDS	-1

/* The template interpreter's code: AbstractInterpreter::_code's buffer. */
static int read_interp(struct hs_proc *p, uint64_t *lo, uint64_t *hi)
{
	const uint64_t *v = p->vm.v;
	uint64_t q = 0, buf = 0;
	int32_t limit = 0;
	int err;

	err = hs_read_exact(p, v[HS_INTERP_CODE], &q, sizeof(q));
	if (err)
		return -EAGAIN;
	if (!q)
		return -EAGAIN;	/* not generated yet: early in the VM's start */
	if (hs_read_exact(p, q + v[HS_SQ_BUFFER], &buf, sizeof(buf)) ||
	    hs_read_exact(p, q + v[HS_SQ_LIMIT], &limit, sizeof(limit)))
		return -EAGAIN;
	if (!buf || limit <= 0)
		return -EAGAIN;
	*lo = buf;
	*hi = buf + (uint64_t)limit;
	return 0;
}

/* A field at @off from a block's start; its 8 bytes (see head_len) kept in *@end. */
static uint32_t field(uint64_t off, uint64_t *end)
{
	if (off + 8 > *end)
		*end = off + 8;
	return (uint32_t)off;
}

/* The blob fields' offsets from a block's start; -EPERM (@why) if past HOTSPOT_LAYOUT_HEAD. */
static int blob_fields(const struct hs_proc *p, struct hotspot_layout *l, char *why,
		       size_t why_len)
{
	const struct hotspot_vm *vm = &p->vm;
	const uint64_t *v = vm->v;
	uint64_t blob = v[HS_HB_SIZE], end = 0;

	/* a block freed under the walk is told by it: naming may do without, the walk does not */
	if (!hotspot_vm_has(vm, HS_HB_USED) || !hotspot_vm_has(vm, HS_HB_HEADER)) {
		snprintf(why, why_len, "HeapBlock::Header::_used not in this VM's vmStructs "
			 "(version %s)", p->version);
		return -EPERM;
	}
	l->blob_off = (uint32_t)blob;
	l->used_off = field(v[HS_HB_HEADER] + v[HS_HB_USED], &end);
	l->size_off = field(blob + v[HS_BLOB_SIZE], &end);
	l->frame_size_off = field(blob + v[HS_BLOB_FRAME_SIZE], &end);
	/* the int16_t spelling is JDK 23's; a VM has one of the two */
	l->frame_done_width = hotspot_vm_has(vm, HS_BLOB_FRAME_DONE16) ? 2 : 4;
	l->frame_done_off = field(blob + v[l->frame_done_width == 2 ? HS_BLOB_FRAME_DONE16 :
								       HS_BLOB_FRAME_DONE], &end);
	l->code_is_offset = hotspot_vm_has(vm, HS_BLOB_CODE_OFFSET);
	l->code_off = field(blob + v[l->code_is_offset ? HS_BLOB_CODE_OFFSET : HS_BLOB_CODE_BEGIN],
			    &end);
	if (end > HOTSPOT_LAYOUT_HEAD) {
		snprintf(why, why_len, "CodeBlob fields past %d bytes (version %s)",
			 HOTSPOT_LAYOUT_HEAD, p->version);
		return -EPERM;
	}
	l->head_len = (uint32_t)end;
	/* read with every interpreted frame: a u16 in the walk's table */
	if (v[HS_METHOD_CONST] > UINT16_MAX) {
		snprintf(why, why_len, "Method::_constMethod at %llu (version %s)",
			 (unsigned long long)v[HS_METHOD_CONST], p->version);
		return -EPERM;
	}
	l->method_cm_off = (uint32_t)v[HS_METHOD_CONST];
	return 0;
}

/* The heaps into @l, sorted by lo (the walker searches them so); -EPERM if they overlap. */
static int sort_heaps(const struct hs_proc *p, struct hotspot_layout *l)
{
	l->nr_heaps = (uint32_t)p->nr_heaps;
	for (size_t i = 0; i < p->nr_heaps; i++) {
		size_t k = i;

		/* insertion: at most HOTSPOT_LAYOUT_HEAPS */
		while (k > 0 && l->heaps[k - 1].lo > p->heaps[i].lo) {
			l->heaps[k] = l->heaps[k - 1];
			k--;
		}
		l->heaps[k].lo = p->heaps[i].lo;
		l->heaps[k].hi = p->heaps[i].hi;
		l->heaps[k].segmap = p->heaps[i].segmap;
	}
	for (size_t i = 0; i < p->nr_heaps; i++)
		if ((i && l->heaps[i].lo < l->heaps[i - 1].hi) || l->heaps[i].lo < p->cc_lo ||
		    l->heaps[i].hi > p->cc_hi)
			return -EPERM;
	return 0;
}

/* Everything but hs_attach()'s part: -EAGAIN, or -EPERM with @why. */
static int fill(struct hs_proc *p, struct hotspot_layout *l, char *why, size_t why_len)
{
	char what[128];
	int err;

	if (hotspot_vm_walk_missing(&p->vm, what, sizeof(what))) {
		snprintf(why, why_len, "%s not in this VM's vmStructs (version %s)", what,
			 p->version);
		return -EPERM;
	}
	if (p->vm.v[HS_FRAME_SENDER_SP] != (uint64_t)(int64_t)HS_SENDER_SP_WORDS) {
		snprintf(why, why_len, "the interpreter keeps its sender's sp at word %lld, "
			 "not %d (version %s)", (long long)p->vm.v[HS_FRAME_SENDER_SP],
			 HS_SENDER_SP_WORDS, p->version);
		return -EPERM;
	}
	if (p->nr_heaps > HOTSPOT_LAYOUT_HEAPS) {
		snprintf(why, why_len, "%zu code heaps, at most %d known (version %s)",
			 p->nr_heaps, HOTSPOT_LAYOUT_HEAPS, p->version);
		return -EPERM;
	}
	err = blob_fields(p, l, why, why_len);
	if (err)
		return err;
	err = read_interp(p, &l->interp_lo, &l->interp_hi);
	if (err)
		return err;
	/* the walker looks for the interpreter inside the code cache */
	if (l->interp_lo < p->cc_lo || l->interp_hi > p->cc_hi) {
		snprintf(why, why_len, "the interpreter's code lies outside the code cache "
			 "(version %s)", p->version);
		return -EPERM;
	}
	/* the walker keeps code cache offsets in 32 bits */
	if (sort_heaps(p, l) || p->cc_hi - p->cc_lo > UINT32_MAX) {
		snprintf(why, why_len, "its code heaps are not as the walk expects: overlapping, "
			 "outside the code cache or over 4 GiB (version %s)", p->version);
		return -EPERM;
	}
	l->cc_lo = p->cc_lo;
	l->cc_hi = p->cc_hi;
	l->seg_shift = p->seg_shift;
	snprintf(l->version, sizeof(l->version), "%s", p->version);
	return 0;
}

int hotspot_layout_read(const char *proc_root, uint32_t tgid, const struct procmap *jvm,
			struct hotspot_layout *out, char *why, size_t why_len)
{
	struct hs_proc *p = calloc(1, sizeof(*p));
	int err;

	why[0] = '\0';
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	p->mem_fd = -1;
	p->jvm = *jvm;
	p->jvm.path = strdup(jvm->path);
	if (!p->jvm.path) {
		free(p);
		return -ENOMEM;
	}
	memset(out, 0, sizeof(*out));
	hs_attach(p, proc_root, why, why_len);
	/* read at first sight, tables not set up yet look malformed: the caller asks again */
	if (p->state == HS_REFUSED && p->malformed)
		err = -EAGAIN;
	else if (p->state == HS_REFUSED)
		err = -EPERM;
	else if (p->state != HS_READY)
		err = -EAGAIN;
	else
		err = fill(p, out, why, why_len);
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	free((char *)p->jvm.path);
	free(p);
	return err;
}
