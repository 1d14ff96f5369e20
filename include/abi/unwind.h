/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CFI unwind tables shared by the BPF unwinder (bpf/lib/unwind.bpf.h) and the
 * loader (src/unwind/tables.c). x86-64 only: the return address is always at
 * CFA - 8, so a row says how to find the CFA and the caller's %rbp and %rbx.
 */
#ifndef HC_ABI_UNWIND_H
#define HC_ABI_UNWIND_H

/* executable mappings per process the BPF unwinder can search */
#define HC_UNWIND_MAX_MAPS	256
/* binary search bound: 2^HC_UNWIND_MAP_ITERS >= HC_UNWIND_MAX_MAPS */
#define HC_UNWIND_MAP_ITERS	9
/* rows per object: 2^24 rows fit a tree of HC_CFI_MAX_HEIGHT inner levels */
#define HC_UNWIND_MAX_ROWS	(1u << 24)

/* hc_cfi_rule::cfa */
enum hc_cfa_rule {
	HC_CFA_NONE = 0,	/* no CFI covers this pc: fall back to frame pointers */
	HC_CFA_RSP = 1,		/* CFA = %rsp + cfa_off */
	HC_CFA_RBP = 2,		/* CFA = %rbp + cfa_off */
	HC_CFA_PLT = 3,		/* PLT stub: CFA = %rsp + cfa_off + ((pc & 15) >= rbp_off ? 8 : 0) */
	HC_CFA_END = 4,		/* return address undefined: outermost frame (_start, clone) */
	HC_CFA_UNSUP = 5,	/* a CFA expression we cannot evaluate: stop, counted */
	HC_CFA_RBX = 6,		/* CFA = %rbx + cfa_off: code that realigns its stack
				 * (glibc's lazy-binding trampoline _dl_runtime_resolve) */
};

/* hc_cfi_rule::rbp */
enum hc_rbp_rule {
	HC_RBP_SAME = 0,	/* caller's %rbp is the current one */
	HC_RBP_AT_CFA = 1,	/* saved at CFA + rbp_off */
	HC_RBP_UNSUP = 2,	/* some other rule: the caller's %rbp is unknown */
};

/*
 * How to find the caller's frame from a pc on (the row's pc is in its leaf).
 * Eight bytes a row: the rule for %rbx (the caller's, enum hc_rbp_rule's
 * values) shares the bytes of the CFA's and %rbp's rules, its offset in
 * words: a saved %rbx lies within 16 words below the CFA (pushed in the
 * prologue), and further is HC_RBP_UNSUP (unknown, as any other rule).
 */
struct hc_cfi_rule {
	__u8 cfa;		/* bits 0-2: enum hc_cfa_rule; 3-7: %rbx's offset / 8 (signed) */
	__u8 rbp;		/* bits 0-1: enum hc_rbp_rule for %rbp; 2-3: for %rbx */
	__s16 rbp_off;		/* HC_RBP_AT_CFA: offset; HC_CFA_PLT: threshold */
	__s32 cfa_off;
};

#define HC_CFI_CFA(r)		((r)->cfa & 7)
#define HC_CFI_RBP(r)		((r)->rbp & 3)
#define HC_CFI_RBX(r)		(((r)->rbp >> 2) & 3)
#define HC_CFI_RBX_OFF(r)	(((__s32)(__s8)(r)->cfa >> 3) * 8)	/* bytes */
#define HC_CFI_RBX_OFF_MIN	(-128)
#define HC_CFI_RBX_OFF_MAX	120

/*
 * An object's rows (sorted by pc; a row holds from its pc up to the next
 * row's) are stored as a static B+ tree of fixed-size nodes, one node per
 * element of the object's inner array, the root at index 0. A lookup costs
 * one map lookup per level (1 + height, 3 for libc's 28k rows) where a binary
 * search over single rows cost one per probe (~15): map-in-map lookups are
 * helper calls, while a search inside a node is direct loads.
 *
 * Leaf: up to HC_CFI_LEAF_ROWS rows, pcs ascending, unused slots pc
 * UINT32_MAX. Inner node: pc[k] is the first pc of child first_child + k
 * (children of one node are consecutive elements), unused slots UINT32_MAX.
 * Both are 384 bytes, a multiple of 8, so the kernel stores them unpadded.
 */
#define HC_CFI_LEAF_ROWS	32
#define HC_CFI_INNER_KEYS	95
#define HC_CFI_MAX_HEIGHT	3	/* 32 * 95^3 rows > HC_UNWIND_MAX_ROWS */

struct hc_cfi_leaf {
	__u32 pc[HC_CFI_LEAF_ROWS];
	struct hc_cfi_rule rule[HC_CFI_LEAF_ROWS];
};

struct hc_cfi_inner {
	__u32 first_child;
	__u32 pc[HC_CFI_INNER_KEYS];
};

struct hc_cfi_node {
	union {
		struct hc_cfi_leaf leaf;
		struct hc_cfi_inner inner;
	};
};

/*
 * Index of the last of @n ascending keys that is <= @key (0 if none is:
 * callers check keys[0]). A fixed number of steps for a constant @n, each
 * without a branch, so the BPF verifier sees one path whatever the keys;
 * shared with user space so the unit tests run the search the BPF side runs.
 *
 * A step's comparison is a 0/1 (the borrow of keys[i] - (key + 1), a
 * logical shift) times the step's constant, never an all-ones mask ANDed
 * with it: kernels with "bpf: Recognize special arithmetic shift in the
 * verifier" (6.18.y and stable backports) fork a [-1, 0] register ANDed
 * with a constant into two states, one per value, and the forks of the
 * steps multiplied past the verifier's 1M instructions (2^7 states per
 * inner node, compounded over the levels). A multiply of a [0, 1] register
 * is plain range arithmetic on every kernel. The BPF side also runs each
 * node search in a global subprogram (lib/unwind_walk.bpf.h), verified once
 * on its own, so whatever a kernel does inside it adds to the cost instead
 * of multiplying with the caller's paths.
 */
static inline __attribute__((always_inline)) __u32 hc_cfi_keys_search(const __u32 *keys,
									__u32 n, __u32 key)
{
	__u32 base = 0, half, le;

#ifdef __clang__
#pragma unroll
#endif
	for (; n > 1; n -= half) {
		half = n / 2;
		/* keys[i] <= key: keys[i] - (key + 1) borrows, bit 63 set */
		le = (__u32)(((__u64)keys[base + half] - ((__u64)key + 1)) >> 63);
		/* opaque to the compiler: it would turn the multiply into a select (a branch) or a mask */
		asm volatile("" : "+r"(le));
		base += half * le;
	}
	return base;
}

/*
 * hc_unwind_map.height of an obj-0 mapping whose object's table is being
 * built (asynchronously): walked by frame pointer until it is published,
 * and a walk that then goes wrong is counted as HC_STAT_UNWIND_PENDING,
 * not as a corrupt frame.
 */
#define HC_UNWIND_HEIGHT_BUILDING 0xffffffffu

/* An executable mapping of a process: vaddr in its object = ip - bias. */
struct hc_unwind_map {
	__u64 start;
	__u64 end;
	__u64 bias;
	__u32 obj;		/* key in unwind_objs; 0: no table (JIT, no CFI) */
	__u32 height;		/* inner levels above the leaves of that object's tree */
	/*
	 * Its table's stamp, unique per published table (never 0 with obj):
	 * the walker caches rules by (stamp, vaddr), and an evicted table's id
	 * is reused for another object, its stamp never. (Stamps start again
	 * with a session's tables, whose collectors' caches are new too.)
	 */
	__u32 stamp;
	__u32 pad;
};

/* Value of unwind_procs, keyed by tgid; maps sorted by start. */
struct hc_unwind_proc {
	__u32 nr;
	__u32 pad;
	struct hc_unwind_map maps[HC_UNWIND_MAX_MAPS];
};

#endif /* HC_ABI_UNWIND_H */
