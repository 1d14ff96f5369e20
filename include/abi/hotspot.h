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

/*
 * A leaf pc in a compiled method's prologue, before its frame is set up
 * (CodeBlob::_frame_complete_offset): where is the return address? The
 * prologue is one of two forms (x86-64 MacroAssembler::verified_entry, C1's
 * build_frame), F the frame's size in bytes, return address included:
 *
 *   with a stack bang: mov %eax,-N(%rsp)...; push %rbp; [mov %rsp,%rbp];
 *                      sub $F-16,%rsp
 *   without (C2):      sub $F-8,%rsp; mov %rbp,F-16(%rsp)
 *
 * the sub as 48 83 ec ib or 48 81 ec id, the mov as 48 89 6c 24 ib or
 * 48 89 ac 24 id. The sub is looked for by its bytes, F's own immediate in
 * them; the pc's offset against it says which instructions ran. Before it
 * (a virtual method's inline cache check, the bang) nothing has touched
 * the stack. A form not found (F of 16, no sub at all; another JDK's
 * prologue) is not guessed: the walk stops there, counted.
 */
enum hc_hs_prologue {
	HC_HS_PRO_NONE = 0,	/* no prologue sub at this offset */
	HC_HS_PRO_RA_AT_SP,	/* nothing done yet: the return address at [sp], %rbp the caller's */
	HC_HS_PRO_PUSHED,	/* %rbp pushed: the caller's at [sp], the return address at [sp + 8] */
	HC_HS_PRO_SUB_ONLY,	/* frame made, %rbp not stored: the return address at
				   [sp + F - 8], %rbp the caller's */
	HC_HS_PRO_SET,		/* all of it done: the frame as after the prologue */
};

/* Code bytes a prologue is looked for in: @w holds this many (a power of 2) */
#define HC_HS_PRO_BYTES		128

/* The byte @i of @w (HC_HS_PRO_BYTES of them), masked: a bound the verifier sees */
#define HC_HS_PRO_B(w, i)	((__u32)(w)[(i) & (HC_HS_PRO_BYTES - 1)])

/* The little-endian int at @w[@i] (masked), as the immediates are written. */
static inline __attribute__((always_inline)) __u32 hc_hs_pro_u32(const __u8 *w, __u32 i)
{
	return HC_HS_PRO_B(w, i) | HC_HS_PRO_B(w, i + 1) << 8 | HC_HS_PRO_B(w, i + 2) << 16 |
	       HC_HS_PRO_B(w, i + 3) << 24;
}

/*
 * An instruction 48 @op @modrm with the immediate @imm at @w[@p]: its
 * length (3 + 1 for an ib form, 3 + 4 for an id one, @op8 / @op32 its
 * opcodes; ib for @imm < 128, as the assembler chooses, id also taken), or
 * 0. Within @n bytes.
 */
static inline __attribute__((always_inline)) __u32 hc_hs_pro_insn(const __u8 *w, __u32 n, __u32 p,
								  __u32 op8, __u32 op32,
								  __u32 modrm, __u32 imm)
{
	if (p + 4 > n || HC_HS_PRO_B(w, p) != 0x48 || HC_HS_PRO_B(w, p + 2) != modrm)
		return 0;
	if (HC_HS_PRO_B(w, p + 1) == op8 && imm < 128 && HC_HS_PRO_B(w, p + 3) == imm)
		return 4;
	if (HC_HS_PRO_B(w, p + 1) == op32 && p + 7 <= n && hc_hs_pro_u32(w, p + 3) == imm)
		return 7;
	return 0;
}

/*
 * Is the prologue's sub at @w[@p] (the @n bytes of code from its start),
 * and where is the pc at offset @o against it, for a frame of @f bytes?
 * One offset a call (the BPF side runs it as a bpf_loop() callback), from
 * 0 up: the first that is not HC_HS_PRO_NONE answers.
 */
static inline __attribute__((always_inline)) int hc_hs_prologue_at(const __u8 *w, __u32 n, __u32 p,
								   __u32 o, __u32 f)
{
	__u32 len, mov, push;

	if (f < 24 || f > (1u << 20) || p >= n)
		return HC_HS_PRO_NONE;
	/* the bang form: sub $F-16 after push %rbp, or after push; mov %rsp,%rbp */
	len = hc_hs_pro_insn(w, n, p, 0x83, 0x81, 0xec, f - 16);
	if (len) {
		if (p >= 1 && HC_HS_PRO_B(w, p - 1) == 0x55)
			push = p - 1;
		else if (p >= 4 && HC_HS_PRO_B(w, p - 4) == 0x55 && HC_HS_PRO_B(w, p - 3) == 0x48 &&
			 ((HC_HS_PRO_B(w, p - 2) == 0x8b && HC_HS_PRO_B(w, p - 1) == 0xec) ||
			  (HC_HS_PRO_B(w, p - 2) == 0x89 && HC_HS_PRO_B(w, p - 1) == 0xe5)))
			push = p - 4;
		else
			return HC_HS_PRO_NONE;
		if (o <= push)
			return HC_HS_PRO_RA_AT_SP;
		return o < p + len ? HC_HS_PRO_PUSHED : HC_HS_PRO_SET;
	}
	/* the other: sub $F-8, then mov %rbp,F-16(%rsp) (modrm 6c/ac, then the SIB 24) */
	len = hc_hs_pro_insn(w, n, p, 0x83, 0x81, 0xec, f - 8);
	if (!len)
		return HC_HS_PRO_NONE;
	mov = p + len;
	if (mov + 5 > n || HC_HS_PRO_B(w, mov) != 0x48 || HC_HS_PRO_B(w, mov + 1) != 0x89 ||
	    HC_HS_PRO_B(w, mov + 3) != 0x24)
		return HC_HS_PRO_NONE;
	if (!((HC_HS_PRO_B(w, mov + 2) == 0x6c && f - 16 < 128 &&
	       HC_HS_PRO_B(w, mov + 4) == f - 16) ||
	      (HC_HS_PRO_B(w, mov + 2) == 0xac && mov + 8 <= n &&
	       hc_hs_pro_u32(w, mov + 4) == f - 16)))
		return HC_HS_PRO_NONE;
	if (o <= p)
		return HC_HS_PRO_RA_AT_SP;
	return o <= mov ? HC_HS_PRO_SUB_ONLY : HC_HS_PRO_SET;
}

/*
 * A leaf pc past the prologue may be in an epilogue that has taken the
 * frame down (C1's and C2's alike, JDK 16+ with the return poll):
 *
 *   add $F-16,%rsp; pop %rbp; cmp 0xNNN(%r15),%rsp; ja <poll stub>; ret
 *
 * (49 3b a7 id or 49 3b 67 ib, then 0f 87 id). At the pop: the caller's
 * %rbp at [sp], the return address above it (HC_HS_PRO_PUSHED); at the
 * poll or the ret: the return address at [sp], %rbp the caller's again
 * (HC_HS_PRO_RA_AT_SP). @w: HC_HS_EPI_BYTES read at the pc. Only these
 * exact sequences, ending in the ret: anything else (the add, the body) is
 * HC_HS_PRO_NONE, a whole frame.
 */
#define HC_HS_EPI_BYTES		16
#define HC_HS_EPI_B(w, i)	((__u32)(w)[(i) & (HC_HS_EPI_BYTES - 1)])

static inline __attribute__((always_inline)) int hc_hs_epilogue(const __u8 *w)
{
	__u32 i = 0, pop = 0;

	if (HC_HS_EPI_B(w, 0) == 0x5d)
		pop = i = 1;
	if (HC_HS_EPI_B(w, i) == 0x49 && HC_HS_EPI_B(w, i + 1) == 0x3b &&
	    (HC_HS_EPI_B(w, i + 2) == 0xa7 || HC_HS_EPI_B(w, i + 2) == 0x67)) {
		i += HC_HS_EPI_B(w, i + 2) == 0xa7 ? 7 : 4;
		if (HC_HS_EPI_B(w, i) != 0x0f || HC_HS_EPI_B(w, i + 1) != 0x87)
			return HC_HS_PRO_NONE;
		i += 6;
	} else if (!pop && HC_HS_EPI_B(w, 0) == 0x0f && HC_HS_EPI_B(w, 1) == 0x87) {
		i = 6;
	}
	if (HC_HS_EPI_B(w, i) != 0xc3)
		return HC_HS_PRO_NONE;
	return pop ? HC_HS_PRO_PUSHED : HC_HS_PRO_RA_AT_SP;
}

#endif /* HC_ABI_HOTSPOT_H */
