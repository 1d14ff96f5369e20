/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CFI user-stack unwinder (x86-64). The including object defines the
 * maps it uses (their fds are shared by the loader, see src/unwind/tables.c):
 *   unwind_procs   HASH tgid -> struct hc_unwind_proc (executable mappings)
 *   unwind_objs    ARRAY_OF_MAPS obj id -> ARRAY of struct hc_cfi_node (a B+ tree)
 *   unwind_scratch PERCPU_ARRAY[1] of struct uw_scratch
 *   hotspot_procs  HASH tgid -> struct hc_hs_proc (JVMs' Java frames)
 *   hotspot_nprocs ARRAY[1]: how many hotspot_procs holds
 *   v8_procs       HASH tgid -> struct hc_v8_proc (V8's JavaScript frames)
 *   v8_nprocs      ARRAY[1]: how many v8_procs holds
 * and a stats map passed as UNWIND_STATS.
 *
 * Each step: find the mapping of pc, take its rule from the per-CPU rule
 * cache or else search its object's row tree, compute the CFA, read the
 * return address at CFA-8 and, if saved, the caller's %rbp.
 * A pc in a JVM's code cache is stepped through by what the JVM's own
 * code blob says (lib/unwind_hotspot.bpf.h); other code without rows
 * (JIT, objects without .eh_frame) is walked by frame pointer and counted. bpf_loop() keeps the verifier's work to one step.
 */
#ifndef HC_BPF_LIB_UNWIND_BPF_H
#define HC_BPF_LIB_UNWIND_BPF_H

/* Types here; the walker is in lib/unwind_walk.bpf.h, included after the maps. */

#include "abi/hotspot.h"
#include "abi/v8.h"

struct uw_state {
	__u64 pc;
	__u64 sp;
	__u64 bp;
	__u64 bx;		/* %rbx, for a CFA defined by it (HC_CFA_RBX); 0: unknown */
	__u32 tgid;
	__u32 base;		/* index in rec.ips of the first user frame */
	__u32 n;		/* user frames written */
	__u32 stop;		/* 0 while walking; else an enum hc_stat reason or UNWIND_DONE */
	__u32 fp_frames;
	__u32 have_map;		/* the m_* fields below hold the last mapping found */
	/*
	 * Consecutive frames mostly lie in the same object (libc calling libc,
	 * the program calling itself): the last mapping is kept so most steps
	 * skip the process lookup and the mapping search.
	 */
	__u64 m_start, m_end, m_bias;
	__u32 m_obj, m_height, m_stamp;
	__u32 rc_miss;		/* frames whose rule was not in uw_scratch::rc */
	/*
	 * And the last leaf of the row tree: its node index and the vaddrs
	 * [leaf_lo, leaf_hi) that the descent sends to it. A caller's return
	 * address often lies in the same 32 rows as its callee's (functions
	 * of one file sit together), so such a step skips the inner levels.
	 * leaf_obj 0: none (object 0 has no table).
	 */
	__u32 leaf_obj, leaf_idx, leaf_lo, leaf_hi;
	__u64 win_lo;		/* user address of uw_scratch::win[0] */
	__u32 win_len;		/* valid bytes in win; 0: empty */
	__u32 slot;		/* this scratch's index in unwind_scratch (scratch_get) */
	/*
	 * Another task's stack (a sleepable program): the walker cannot read
	 * it, so it stops with UW_NEED_READ and the bytes it wants; the
	 * caller fills the window with bpf_copy_from_user_task() and resumes.
	 */
	__u32 remote;
	__u32 exact_pc;		/* pc was restored from a signal frame: not a return address */
	__u32 via_building;	/* a frame-pointer step in code whose table is being built */
	__u64 want_lo, want_hi;
	/*
	 * The process's JVM code cache, looked up at the walk's first step
	 * (hs_check()): a pc in [hs_lo, hs_lo + hs_len) is a Java frame
	 * (lib/unwind_hotspot.bpf.h). hs_len 0: not a JVM the loader read.
	 */
	__u64 hs_lo, hs_len;
	__u32 jit_frames;	/* frames stepped through in the code cache */
	__u32 hs_res;		/* the segment map walk's (hs_seg_step) result, or hs_pro_step's */
	/* a leaf in a prologue (hs_prologue()): its offset, the frame's bytes, the code read */
	__u32 hs_pro_o, hs_pro_f, hs_pro_n;
	__u32 hs_edge_walked;	/* such leaves, or in an epilogue, stepped (0 or 1 a walk) */
	/*
	 * Another task's walk stops for each range of its memory a Java frame
	 * needs (UW_NEED_READ) and redoes the frame once it is read: what the
	 * frame at (hs_c_pc, hs_c_sp) has read so far, so that it goes on
	 * (HS_C_* bits in hs_c_have) instead of asking for the first range again
	 */
	__u64 hs_c_pc, hs_c_sp;
	__u64 hs_c_block;	/* its code blob's block (HS_C_BLOCK); the head in hs_head (HS_C_HEAD) */
	__u64 hs_c_m, hs_c_cm;	/* an interpreter frame's Method*, ConstMethod* (HS_C_METHOD) */
	__u32 hs_c_have;
	/* and its position */
	__u64 hs_segmap, hs_seg, hs_first;
	__u64 hs_base;		/* hs_frame_base()'s answer */
	__u32 v8;		/* a V8 the loader read (v8_check()): its FP steps look for functions */
	__u32 v8_frames;	/* JavaScript frames put in place of their pc (lib/unwind_v8.bpf.h) */
	/* as hs_c_* for a V8 frame of another task: its context, function, SFI, name words */
	__u64 v8_c_pc, v8_c_sp, v8_c_w[4];
	__u32 v8_c_have;	/* bit i: v8_c_w[i] read */
};

#define UNWIND_DONE ((__u32)-1)
#define UW_NEED_READ ((__u32)-2)

/*
 * User stack bytes read once and used by the frames above: each
 * bpf_probe_read_user costs about as much as the rest of a frame, and a
 * window of this size holds ~10-25 small frames.
 */
#define UW_WIN_BYTES 1024

/*
 * Rules of recent frames, direct-mapped by (the table's stamp, vaddr). A
 * profile samples the same hot stacks over and over, and a hit costs a
 * hash and one compare where the table search costs a helper call into
 * the object's array and a node search (~20 ns a frame, half the walk's
 * per-frame cost at depth 46). Tables are never changed in place and a
 * stamp is never reused (abi/unwind.h), so an entry never goes stale: it
 * is only overwritten. Each slot its own, so a nested walk cannot tear an
 * entry the interrupted one is writing. Key 0: empty (stamps start at 1).
 */
#define UW_RC_BITS 8
#define UW_RC_ENTRIES (1u << UW_RC_BITS)

struct uw_rc_ent {
	__u64 key;		/* stamp << 32 | vaddr */
	struct hc_cfi_rule rule;
};

struct uw_scratch {
	struct uw_state st;
	struct hc_stack_rec rec;
	__u8 win[UW_WIN_BYTES];
	struct uw_rc_ent rc[UW_RC_ENTRIES];
	/* a JVM's segment map window, code bytes, a frame's words (lib/unwind_hotspot.bpf.h) */
	__u8 hs_buf[HC_HS_SEG_WINDOW];
	/* the code blob's block head: HC_HS_HEAD_MAX bytes, and room for an 8-byte load at the last */
	__u8 hs_head[HC_HS_SEG_WINDOW];
};

#endif /* HC_BPF_LIB_UNWIND_BPF_H */
