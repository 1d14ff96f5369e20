/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HotSpot JVMs' Java frames walked in BPF (bpf/lib/unwind_hotspot.bpf.h)
 * for processes whose layout the loader read (src/collect/hotspot_walk.c):
 * where the code cache, its code heaps and their segment maps are, where
 * the interpreter is, and where a CodeBlob keeps its frame size and the end
 * of its prologue. x86-64 only.
 */
#ifndef HC_ABI_HOTSPOT_H
#define HC_ABI_HOTSPOT_H

#define HC_HS_MAX_HEAPS		4	/* JDK 9+: 1, or 3 with the segmented code cache */
#define HC_HS_HEAD_MAX		128	/* bytes read of a block: its header and blob fields */
/*
 * Segment map bytes read at once, ending at the segment looked up: a block
 * of fewer segments is found with one read (a compiled method of up to
 * 32 KiB with 128-byte segments); a bigger one's map steps back 254
 * segments at a time, two steps a read. HC_HS_SEG_ITERS calls (a read or a
 * step each) find blocks of some 5000 segments (600 KiB) at least.
 */
#define HC_HS_SEG_WINDOW	256
#define HC_HS_SEG_ITERS		32
#define HC_HS_SEG_FREE		0xff	/* HotSpot's heap.hpp free_sentinel */

struct hc_hs_heap {
	__u64 lo, hi;		/* its reserved memory */
	__u64 segmap;		/* a byte per segment of [lo, hi) */
};

/* hotspot_procs value, keyed by tgid */
struct hc_hs_proc {
	__u64 cc_lo, cc_hi;		/* the code cache: every code heap lies inside */
	__u64 interp_lo, interp_hi;	/* the template interpreter's code, inside it */
	/*
	 * Sorted by lo; heap_keys[i] is heaps[i].lo - cc_lo (the code cache is
	 * under 4 GiB), unused ones UINT32_MAX: the heap of a pc is found with
	 * hc_cfi_keys_search() (abi/unwind.h), one path for the verifier.
	 */
	struct hc_hs_heap heaps[HC_HS_MAX_HEAPS];
	__u32 heap_keys[HC_HS_MAX_HEAPS];
	__u32 seg_shift;		/* log2 of the segment size (4..16) */
	/* offsets from a block's start: its HeapBlock header, then the CodeBlob */
	__u16 blob_off;			/* sizeof(HeapBlock) */
	__u16 used_off;			/* HeapBlock::Header::_used (bool) */
	__u16 size_off;			/* CodeBlob::_size (int, bytes from the blob) */
	__u16 frame_size_off;		/* CodeBlob::_frame_size (int, words) */
	__u16 frame_done_off;		/* CodeBlob::_frame_complete_offset (from the code) */
	__u16 code_off;			/* CodeBlob::_code_begin (address) or _code_offset (int) */
	/*
	 * Bytes of a block read: all of the fields above, each as 8 bytes
	 * (the BPF side loads an int16_t field as the low half of an int, an
	 * int offset as the low half of a u64, and picks without a branch)
	 */
	__u16 head_len;
	__u8 frame_done_shift;		/* 0: an int (JDK < 23); 16: an int16_t */
	__u8 code_is_offset;		/* 1: code_off is _code_offset, from the blob (JDK 23+) */
	__u16 method_cm_off;		/* Method::_constMethod */
	__u16 pad;
};

/*
 * An interpreted frame's pc is the interpreter's, the same for every
 * method: which method runs is the Method* its frame keeps at fp - 3 words
 * (frame_x86.hpp interpreter_frame_method_offset, JDK 8 to 25). The walk
 * puts that in the frame's place, tagged: HC_HS_METHOD_TAG in the top
 * byte (bit 63 clear: not a Python frame, abi/python.h; no user address
 * has a top byte), bits 48-55 the Method's ConstMethod* >> 3 as it was at
 * the walk, for user space to check the Method* against when it names it
 * (a garbage word, or a method unloaded and its memory reused, fails that
 * check 255 times in 256, and must then be read as one), the Method* in
 * the low 48 bits.
 */
#define HC_HS_METHOD_TAG	(0x4aull << 56)
#define HC_HS_METHOD_TAG_MASK	(0xffull << 56)
#define HC_HS_METHOD_CHECK_SHIFT 48
#define HC_HS_METHOD_PTR_MASK	((1ull << 48) - 1)
/* x86-64: the Method* slot of an interpreter frame, from its fp */
#define HC_HS_INTERP_METHOD_OFF	(-24)

static inline __attribute__((always_inline)) __u64 hc_hs_method_frame(__u64 method, __u64 cm)
{
	return HC_HS_METHOD_TAG | ((cm >> 3) & 0xff) << HC_HS_METHOD_CHECK_SHIFT |
	       (method & HC_HS_METHOD_PTR_MASK);
}

static inline __attribute__((always_inline)) int hc_hs_is_method_frame(__u64 v)
{
	return (v & HC_HS_METHOD_TAG_MASK) == HC_HS_METHOD_TAG;
}

/* hc_hs_segmap_step() results */
enum hc_hs_seg {
	HC_HS_SEG_START = 0,	/* *seg is where the block starts */
	HC_HS_SEG_STEP = 1,	/* stepped back: call again */
	HC_HS_SEG_OUT = 2,	/* *seg lies outside the window: read the one ending at it */
	HC_HS_SEG_NONE = 3,	/* a free segment, or a step past the heap: no block */
};

/* The first segment of the window that ends at @seg. */
static inline __attribute__((always_inline)) __u64 hc_hs_segmap_first(__u64 seg)
{
	return seg >= HC_HS_SEG_WINDOW - 1 ? seg - (HC_HS_SEG_WINDOW - 1) : 0;
}

/*
 * One step back towards the start of the block holding segment *@seg in a
 * code heap's segment map (heap.cpp find_start()): a byte per segment, 0
 * where a block starts, HC_HS_SEG_FREE where it is free, else how many
 * segments to step back. @win holds the map's bytes of segments [@first,
 * @first + HC_HS_SEG_WINDOW). One step a call, so the BPF side runs it as
 * a bpf_loop() callback (verified once, whatever the number of steps);
 * shared with user space so the unit tests run the walk BPF runs.
 */
static inline __attribute__((always_inline)) int hc_hs_segmap_step(const __u8 *win, __u64 first,
								   __u64 *seg)
{
	__u64 s = *seg, k = s - first;
	__u8 tag;

	if (s < first || k >= HC_HS_SEG_WINDOW)
		return HC_HS_SEG_OUT;
	tag = win[k];
	if (tag == 0)
		return HC_HS_SEG_START;
	if (tag == HC_HS_SEG_FREE || tag > s)
		return HC_HS_SEG_NONE;
	*seg = s - tag;
	return HC_HS_SEG_STEP;
}

#endif /* HC_ABI_HOTSPOT_H */
