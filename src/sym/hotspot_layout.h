/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a stack walker needs of one HotSpot JVM to step through its Java
 * frames (compiled methods, the interpreter, stubs): where its code heaps
 * and their segment maps are, where the interpreter's code is, and where a
 * CodeBlob keeps its frame size and the end of its prologue. Read from the
 * process's memory as its vmStructs describe it (sym/hotspot_vmstructs.h),
 * the way naming reads it (sym/hotspot.h), but on its own: the walker needs
 * it when a process is first seen, naming when the profile is written.
 */
#ifndef HC_SYM_HOTSPOT_LAYOUT_H
#define HC_SYM_HOTSPOT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct procmap;

#define HOTSPOT_LAYOUT_HEAPS	4	/* JDK 9+ has 1 or 3 code heaps */
#define HOTSPOT_LAYOUT_HEAD	128	/* a block's header and the blob fields read, at most */

struct hotspot_layout {
	uint64_t cc_lo, cc_hi;		/* CodeCache::_low_bound, _high_bound */
	uint64_t interp_lo, interp_hi;	/* the template interpreter's code */
	struct {
		uint64_t lo, hi, segmap;
	} heaps[HOTSPOT_LAYOUT_HEAPS];	/* sorted by lo */
	uint32_t nr_heaps;
	uint32_t seg_shift;		/* log2 of a segment's size */
	/* offsets from a block's start (the blob follows its HeapBlock header) */
	uint32_t blob_off;		/* sizeof(HeapBlock) */
	uint32_t used_off;		/* HeapBlock::Header::_used (bool) */
	uint32_t size_off;		/* CodeBlob::_size (int) */
	uint32_t frame_size_off;	/* CodeBlob::_frame_size (int, words) */
	uint32_t frame_done_off;	/* CodeBlob::_frame_complete_offset */
	uint32_t frame_done_width;	/* ... its width: 4 (int) or 2 (int16_t) */
	uint32_t code_off;		/* CodeBlob::_code_begin, or _code_offset */
	bool code_is_offset;		/* _code_offset (int, from the blob), not an address */
	uint32_t method_cm_off;		/* Method::_constMethod (interpreted frames' check) */
	/*
	 * Bytes from a block's start holding all of them, each as 8 bytes: the
	 * BPF side loads a narrow field as the low part of a wider one
	 */
	uint32_t head_len;
	char version[64];		/* _s_vm_release, for messages */
};

/*
 * The layout of JVM @tgid, whose libjvm.so is mapped by @jvm, read through
 * <@proc_root>/@tgid/{mem,map_files}. 0; -EAGAIN: not yet (the VM is still
 * starting, even before libjvm.so's static initializers set up its tables,
 * or its memory could not be read): ask again later; -EPERM: its
 * tables lack what the walk needs or hold what no VM has, said in @why (for
 * a line of its own); -ENOMEM.
 */
int hotspot_layout_read(const char *proc_root, uint32_t tgid, const struct procmap *jvm,
			struct hotspot_layout *out, char *why, size_t why_len);

#endif /* HC_SYM_HOTSPOT_LAYOUT_H */
