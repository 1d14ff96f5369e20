/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals shared by sym/hotspot.c (the process table, naming, caches) and
 * sym/hotspot_attach.c (reading one JVM's layout and code heaps).
 */
#ifndef HC_SYM_HOTSPOT_INT_H
#define HC_SYM_HOTSPOT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/hotspot_vmstructs.h"
#include "sym/keymap.h"
#include "sym/procmaps.h"

#define HS_MAX_HEAPS	16	/* JDK 9+: non-nmethods, profiled, non-profiled */
#define HS_VERSION_LEN	64
#define HS_HEAD_MAX	512	/* a block's header + the blob fields read, at most */

enum hs_state {
	HS_NEW,		/* tables not read yet */
	HS_READY,
	HS_WAIT,	/* not readable (or not initialized) yet: retried at retry_ns */
	HS_REFUSED,	/* said once; its frames stay unnamed */
};

/* One code heap: [lo, hi) reserved for code, a segment map byte per segment at segmap. */
struct hs_heap {
	uint64_t lo, hi, segmap;
};

struct hs_proc {
	uint32_t tgid;
	enum hs_state state;
	bool wait_unreadable;	/* HS_WAIT because a read failed (else: VM not initialized) */
	bool gone;		/* exited or exec'd: its frames are counted, nothing is read */
	/*
	 * HS_REFUSED for tables that cannot be tables: also what a VM shows
	 * before libjvm.so's static initializers set the exported strides and
	 * offsets (a walk sees that in the first milliseconds of `java`)
	 */
	bool malformed;
	int mem_fd;		/* <proc>/tgid/mem, opened by attach; -1 */
	struct procmap jvm;	/* the libjvm.so mapping; path owned */
	uint64_t retry_ns;
	struct hotspot_vm vm;
	char version[HS_VERSION_LEN];	/* _s_vm_release, for messages */
	uint64_t cc_lo, cc_hi;	/* CodeCache::_low_bound, _high_bound */
	struct hs_heap heaps[HS_MAX_HEAPS];
	size_t nr_heaps;
	unsigned int seg_shift;	/* log2 of the segment size, the same in every heap */
	size_t head_len;	/* a block's header and the blob fields read, in bytes */
	struct keymap pcs;	/* pc -> blob address */
	uint64_t pcs_ns;	/* when pcs was last emptied */
	struct keymap blobs;	/* blob address -> struct hs_blob * */
	struct keymap methods;	/* tagged Method* frame -> struct hs_blob * (its name) */
};

/*
 * @len bytes at @addr of @p into @buf: the count read (short at an
 * unreadable page), or -errno.
 */
long hs_read(struct hs_proc *p, uint64_t addr, void *buf, size_t len);

/* All @len bytes, or -EFAULT (-errno when nothing could be asked). */
int hs_read_exact(struct hs_proc *p, uint64_t addr, void *buf, size_t len);

/*
 * Read @p's tables, version and code heaps (state HS_NEW or a due HS_WAIT):
 * afterwards HS_READY, HS_WAIT (retry later: unreadable, or the VM has no
 * code heaps yet) or HS_REFUSED, with the reason in @why (said by the
 * caller; else "").
 */
void hs_attach(struct hs_proc *p, const char *proc_root, char *why, size_t why_len);

#endif /* HC_SYM_HOTSPOT_INT_H */
