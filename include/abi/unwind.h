/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CFI unwind tables shared by the BPF unwinder (bpf/lib/unwind.bpf.h) and the
 * loader (src/unwind/tables.c). x86-64 only: the return address is always at
 * CFA - 8, so a row says how to find the CFA and the caller's %rbp.
 */
#ifndef HC_ABI_UNWIND_H
#define HC_ABI_UNWIND_H

/* executable mappings per process the BPF unwinder can search */
#define HC_UNWIND_MAX_MAPS	256
/* binary search bounds: 2^HC_UNWIND_MAP_ITERS >= HC_UNWIND_MAX_MAPS, 2^ROW_ITERS >= rows */
#define HC_UNWIND_MAP_ITERS	9
#define HC_UNWIND_ROW_ITERS	24
#define HC_UNWIND_MAX_ROWS	(1u << HC_UNWIND_ROW_ITERS)

/* hc_cfi_row::cfa */
enum hc_cfa_rule {
	HC_CFA_NONE = 0,	/* no CFI covers this pc: fall back to frame pointers */
	HC_CFA_RSP = 1,		/* CFA = %rsp + cfa_off */
	HC_CFA_RBP = 2,		/* CFA = %rbp + cfa_off */
	HC_CFA_PLT = 3,		/* PLT stub: CFA = %rsp + cfa_off + ((pc & 15) >= rbp_off ? 8 : 0) */
	HC_CFA_END = 4,		/* return address undefined: outermost frame (_start, clone) */
	HC_CFA_UNSUP = 5,	/* a CFA expression we cannot evaluate: stop, counted */
};

/* hc_cfi_row::rbp */
enum hc_rbp_rule {
	HC_RBP_SAME = 0,	/* caller's %rbp is the current one */
	HC_RBP_AT_CFA = 1,	/* saved at CFA + rbp_off */
	HC_RBP_UNSUP = 2,	/* some other rule: the caller's %rbp is unknown */
};

/* One row: from pc (ELF virtual address) up to the next row's pc. */
struct hc_cfi_row {
	__u32 pc;
	__u8 cfa;		/* enum hc_cfa_rule */
	__u8 rbp;		/* enum hc_rbp_rule */
	__s16 rbp_off;		/* HC_RBP_AT_CFA: offset; HC_CFA_PLT: threshold */
	__s32 cfa_off;
};

/* An executable mapping of a process: vaddr in its object = ip - bias. */
struct hc_unwind_map {
	__u64 start;
	__u64 end;
	__u64 bias;
	__u32 obj;		/* key in unwind_objs; 0: no table (JIT, no CFI) */
	__u32 nr_rows;		/* rows in that object's table */
};

/* Value of unwind_procs, keyed by tgid; maps sorted by start. */
struct hc_unwind_proc {
	__u32 nr;
	__u32 pad;
	struct hc_unwind_map maps[HC_UNWIND_MAX_MAPS];
};

#endif /* HC_ABI_UNWIND_H */
