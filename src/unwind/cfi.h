/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An ELF file's call frame information (.eh_frame, read with elfutils' libdw)
 * compiled into compact, sorted rows the BPF unwinder can binary-search:
 * for each pc range, how to find the CFA and the caller's %rbp and %rbx
 * (x86-64).
 */
#ifndef HC_UNWIND_CFI_H
#define HC_UNWIND_CFI_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

enum cfi_cfa {
	CFI_CFA_NONE = 0,	/* no FDE covers the range (a gap between functions) */
	CFI_CFA_RSP,		/* CFA = rsp + cfa_off */
	CFI_CFA_RBP,		/* CFA = rbp + cfa_off */
	CFI_CFA_PLT,		/* CFA = rsp + cfa_off + ((pc & 15) >= plt_threshold ? 8 : 0) */
	CFI_CFA_END,		/* return address undefined: outermost frame */
	CFI_CFA_UNSUP,		/* an expression we do not evaluate */
	CFI_CFA_RBX,		/* CFA = rbx + cfa_off (a realigned stack: _dl_runtime_resolve) */
};

enum cfi_rbp {
	CFI_RBP_SAME = 0,	/* unchanged in the caller */
	CFI_RBP_AT_CFA,		/* saved at CFA + rbp_off */
	CFI_RBP_UNSUP,		/* any other rule */
};
/* %rbx's rules are %rbp's (enum cfi_rbp): same, saved at CFA + rbx_off, other */
#define CFI_RBX_OFF_MIN (-128)	/* the offsets a row can hold (abi/unwind.h) */
#define CFI_RBX_OFF_MAX 120

struct cfi_row {
	uint64_t pc;		/* first ELF virtual address of the row */
	uint8_t cfa;		/* enum cfi_cfa */
	uint8_t rbp;		/* enum cfi_rbp */
	int16_t rbp_off;	/* CFI_RBP_AT_CFA offset, or CFI_CFA_PLT threshold */
	int32_t cfa_off;
	uint8_t rbx;		/* enum cfi_rbp, for %rbx */
	int16_t rbx_off;	/* CFI_RBP_AT_CFA: a multiple of 8 in [CFI_RBX_OFF_MIN, _MAX] */
};

struct cfi_stats {
	uint64_t fdes;		/* functions (FDE starts) covered */
	uint64_t unsup_cfa;	/* rows with a CFA expression we do not evaluate */
	uint64_t unsup_rbp;	/* rows with an %rbp rule we do not evaluate */
	uint64_t unsup_rbx;	/* rows with an %rbx rule we do not evaluate */
	uint64_t bad_ra;	/* rows whose return address is not at CFA-8 */
	uint64_t debug_frame_fdes;	/* of those FDEs, in .debug_frame (.eh_frame wins overlaps) */
};

struct cfi_table {
	struct cfi_row *rows;	/* sorted by pc, adjacent duplicates merged */
	size_t nr;
	struct cfi_stats st;
};

/*
 * Build the rows of @elf's .eh_frame and .debug_frame (x86-64 ELF only). An
 * empty table (nr 0) when the file has no CFI. 0 or -errno: -ENOTSUP for
 * another machine, -ENOMEM.
 */
int cfi_table_build(Elf *elf, struct cfi_table *t);

/*
 * The same with the .debug_frame of @debug, @elf's separate debug file
 * (same addresses), instead of @elf's own; @debug NULL: cfi_table_build().
 */
int cfi_table_build_with(Elf *elf, Elf *debug, struct cfi_table *t);
void cfi_table_release(struct cfi_table *t);

/* The row covering @pc (the last with row.pc <= pc), as the BPF side finds it; NULL if none. */
const struct cfi_row *cfi_table_find(const struct cfi_table *t, uint64_t pc);

#endif /* HC_UNWIND_CFI_H */
