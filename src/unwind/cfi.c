// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * .eh_frame (and .debug_frame) -> unwind rows. libdw evaluates each FDE's
 * CFA program; we ask it for the frame at a pc, take the range [pc, end) it
 * is valid for, and jump to end, so the cost is one call per row. FDE starts
 * come from .eh_frame_hdr's search table (sym/ehframe.c) and from walking
 * .debug_frame's entries; pcs between FDEs become CFI_CFA_NONE rows so a
 * lookup there falls back to frame pointers instead of using the previous
 * function's rule. .eh_frame wins where both describe a pc: it is what the
 * program's own unwinder uses. .debug_frame is what code built without
 * unwind tables (-fno-asynchronous-unwind-tables, common in C daemons and
 * embedded builds) has, in the file itself or in its separate debug file.
 */
#include "unwind/cfi.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sym/ehframe.h"

#define X86_64_RBX	3
#define X86_64_RBP	6
#define X86_64_RSP	7
#define X86_64_RA	16	/* DWARF register number of the return address */

struct row_buf {
	struct cfi_row *rows;
	size_t nr, cap;
};

/* room for one more row: 0 or -ENOMEM */
static int row_buf_grow(struct row_buf *b)
{
	size_t cap = b->cap ? b->cap * 2 : 1024;
	struct cfi_row *n;

	if (b->nr < b->cap)
		return 0;
	n = realloc(b->rows, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	b->rows = n;
	b->cap = cap;
	return 0;
}

static int push_row(struct row_buf *b, const struct cfi_row *r)
{
	struct cfi_row *last = b->nr ? &b->rows[b->nr - 1] : NULL;

	/* same rule as the row before: the range simply extends */
	if (last && last->cfa == r->cfa && last->rbp == r->rbp && last->rbp_off == r->rbp_off &&
	    last->cfa_off == r->cfa_off && last->rbx == r->rbx && last->rbx_off == r->rbx_off)
		return 0;
	if (last && last->pc == r->pc) {
		*last = *r;
		return 0;
	}
	if (row_buf_grow(b))
		return -ENOMEM;
	b->rows[b->nr++] = *r;
	return 0;
}

/* @r as row @at (<= nr), the rows from there one further: no merging. */
static int insert_row(struct row_buf *b, size_t at, const struct cfi_row *r)
{
	if (row_buf_grow(b))
		return -ENOMEM;
	memmove(&b->rows[at + 1], &b->rows[at], (b->nr - at) * sizeof(*r));
	b->rows[at] = *r;
	b->nr++;
	return 0;
}

/* bytes after an uncovered entry point taken as the outermost frame at most */
#define ENTRY_SPAN 256

/*
 * The ELF entry point when no FDE covers it: the outermost frame. ld.so's
 * _start (sysdeps/x86_64/dl-machine.h, RTLD_START) has no CFI: a walk from
 * its startup (_dl_start, dl_main, mapping the libraries) reached
 * _dl_start_user with no rule, stepped by frame pointer, and %rbp is 0
 * there (the process's first frame): counted as a corrupt frame
 * (t_unwind_pending, 2 walks in CI, 1 in 10 cold-cache runs here). From
 * the entry point to the next FDE (at most ENTRY_SPAN bytes): CFI_CFA_END.
 */
static int mark_entry(Elf *elf, struct row_buf *b)
{
	struct cfi_row end = { .cfa = CFI_CFA_END }, gap = { .cfa = CFI_CFA_NONE };
	size_t lo = 0, hi = b->nr, mid;
	uint64_t next;
	GElf_Ehdr eh;
	int err;

	if (!gelf_getehdr(elf, &eh) || !eh.e_entry)
		return 0;
	while (lo < hi) {	/* lo: the rows at or below the entry point */
		mid = lo + (hi - lo) / 2;
		if (b->rows[mid].pc <= eh.e_entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && b->rows[lo - 1].cfa != CFI_CFA_NONE)
		return 0;	/* covered: crt1's _start says "outermost" itself */
	next = lo < b->nr ? b->rows[lo].pc : UINT64_MAX;
	end.pc = eh.e_entry;
	gap.pc = next - eh.e_entry > ENTRY_SPAN ? eh.e_entry + ENTRY_SPAN : next;
	if (gap.pc < next) {
		err = insert_row(b, lo, &gap);
		if (err)
			return err;
	}
	if (lo && b->rows[lo - 1].pc == eh.e_entry) {
		b->rows[lo - 1] = end;	/* a gap row exactly there */
		return 0;
	}
	return insert_row(b, lo, &end);
}

/*
 * The PLT stub expression binutils emits for .plt:
 *   DW_OP_breg7 (rsp) 8; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and;
 *   DW_OP_litN; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * i.e. CFA = rsp + 8 + ((rip & 15) >= N) << 3.
 */
static bool match_plt(const Dwarf_Op *ops, size_t n, struct cfi_row *r)
{
	if (n != 9 || ops[0].atom != DW_OP_breg7 || ops[1].atom != DW_OP_breg16 ||
	    ops[1].number != 0 || ops[2].atom != DW_OP_lit15 || ops[3].atom != DW_OP_and ||
	    ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31 || ops[5].atom != DW_OP_ge ||
	    ops[6].atom != DW_OP_lit3 || ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
		return false;
	r->cfa = CFI_CFA_PLT;
	r->cfa_off = (int32_t)ops[0].number;
	r->rbp_off = ops[4].atom - DW_OP_lit0;
	return true;
}

static void decode_cfa(Dwarf_Frame *fr, struct cfi_row *r, struct cfi_stats *st)
{
	Dwarf_Op *ops;
	size_t n;

	r->cfa = CFI_CFA_UNSUP;
	if (dwarf_frame_cfa(fr, &ops, &n) || !ops)
		goto unsup;
	/* libdw hands a register rule as one DW_OP_bregx */
	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == X86_64_RSP || ops[0].number == X86_64_RBP ||
	     ops[0].number == X86_64_RBX) &&
	    (int64_t)ops[0].number2 >= INT32_MIN && (int64_t)ops[0].number2 <= INT32_MAX) {
		r->cfa = ops[0].number == X86_64_RSP ? CFI_CFA_RSP :
			 ops[0].number == X86_64_RBP ? CFI_CFA_RBP : CFI_CFA_RBX;
		r->cfa_off = (int32_t)ops[0].number2;
		return;
	}
	if (match_plt(ops, n, r))
		return;
unsup:
	r->cfa = CFI_CFA_UNSUP;
	st->unsup_cfa++;
}

/* Register rule "saved at CFA + off": DW_OP_call_frame_cfa; DW_OP_plus_uconst off; (deref). */
static bool at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (!ops || n < 2 || ops[0].atom != DW_OP_call_frame_cfa ||
	    ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int64_t)ops[1].number;
	return true;
}

/*
 * The caller's %rbx: only a CFA defined by it (CFI_CFA_RBX) needs it, and
 * then through every frame below, which may have saved and reused it.
 */
static void decode_rbx(Dwarf_Frame *fr, struct cfi_row *r, struct cfi_stats *st)
{
	Dwarf_Op mem[3], *ops;
	int64_t off;
	size_t n;

	r->rbx = CFI_RBP_SAME;
	r->rbx_off = 0;
	/*
	 * No rule: libdw's x86-64 defaults call %rbx "undefined" (n 0), %rbp
	 * "same value" (ops NULL); both are callee-saved (psABI): kept.
	 */
	if (dwarf_frame_register(fr, X86_64_RBX, mem, &ops, &n) || !ops || !n)
		return;
	if (at_cfa(ops, n, &off) && off % 8 == 0 && off >= CFI_RBX_OFF_MIN &&
	    off <= CFI_RBX_OFF_MAX) {
		r->rbx = CFI_RBP_AT_CFA;
		r->rbx_off = (int16_t)off;
		return;
	}
	r->rbx = CFI_RBP_UNSUP;
	st->unsup_rbx++;
}

static void decode_regs(Dwarf_Frame *fr, struct cfi_row *r, struct cfi_stats *st)
{
	Dwarf_Op mem[3], *ops;
	int64_t off;
	size_t n;

	/*
	 * libdw: nops 0 with ops == ops_mem is "undefined", with ops NULL
	 * "same value".
	 */
	if (dwarf_frame_register(fr, X86_64_RA, mem, &ops, &n) == 0) {
		if (n == 0 && ops == mem) {
			r->cfa = CFI_CFA_END;	/* DW_CFA_undefined rip: the outermost frame */
			return;
		}
		if (!at_cfa(ops, n, &off) || off != -8) {
			r->cfa = CFI_CFA_UNSUP;
			st->bad_ra++;
			return;
		}
	}
	decode_rbx(fr, r, st);
	r->rbp = CFI_RBP_SAME;
	r->rbp_off = r->cfa == CFI_CFA_PLT ? r->rbp_off : 0;
	if (dwarf_frame_register(fr, X86_64_RBP, mem, &ops, &n))
		return;
	if (!ops)
		return;		/* same value: keep %rbp */
	if (at_cfa(ops, n, &off) && off >= INT16_MIN && off <= INT16_MAX &&
	    r->cfa != CFI_CFA_PLT) {
		r->rbp = CFI_RBP_AT_CFA;
		r->rbp_off = (int16_t)off;
		return;
	}
	r->rbp = CFI_RBP_UNSUP;
	st->unsup_rbp++;
}

/* The CFI sources of one object, in order of preference. */
struct cfi_src {
	Dwarf_CFI *cfi[2];	/* .eh_frame, .debug_frame; either may be NULL */
};

static int frame_at(const struct cfi_src *src, uint64_t pc, Dwarf_Frame **fr)
{
	for (int i = 0; i < 2; i++)
		if (src->cfi[i] && dwarf_cfi_addrframe(src->cfi[i], pc, fr) == 0)
			return 0;
	return -1;
}

/* Rows of the FDE(s) starting at @pc, contiguous ones included. Returns where CFI ended. */
static int walk_from(const struct cfi_src *src, uint64_t pc, struct row_buf *b,
		     struct cfi_stats *st, uint64_t *end_out)
{
	Dwarf_Addr start, end;
	Dwarf_Frame *fr;
	struct cfi_row r;
	bool signalp;
	int err;

	while (frame_at(src, pc, &fr) == 0) {
		if (dwarf_frame_info(fr, &start, &end, &signalp) < 0 || end <= pc) {
			free(fr);
			break;
		}
		memset(&r, 0, sizeof(r));
		r.pc = pc;	/* libdw may report a start before pc (remember_state) */
		decode_cfa(fr, &r, st);
		if (r.cfa != CFI_CFA_UNSUP)
			decode_regs(fr, &r, st);
		free(fr);
		err = push_row(b, &r);
		if (err)
			return err;
		pc = end;
	}
	*end_out = pc;
	return 0;
}

static int check_machine(Elf *elf)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	return eh.e_machine == EM_X86_64 ? 0 : -ENOTSUP;
}

static Elf_Scn *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int push_start(uint64_t **v, size_t *nr, size_t *cap, uint64_t pc)
{
	uint64_t *n;

	if (*nr == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		n = realloc(*v, *cap * sizeof(**v));
		if (!n)
			return -ENOMEM;
		*v = n;
	}
	(*v)[(*nr)++] = pc;
	return 0;
}

/*
 * Append the initial locations of @elf's .debug_frame FDEs to @v. In
 * .debug_frame (unlike .eh_frame) they are plain little-endian addresses of
 * the ELF class's size, right after the CIE pointer.
 */
static int debug_frame_starts(Elf *elf, uint64_t **v, size_t *nr, size_t *cap)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Elf_Scn *scn = find_section(elf, ".debug_frame");
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	Elf_Data *data;
	size_t asize;
	uint64_t pc;
	int rc, err;

	if (!scn || !ident)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return 0;
	asize = ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	for (;;) {
		rc = dwarf_next_cfi(ident, data, false, off, &next, &e);
		if (rc > 0 || next == (Dwarf_Off)-1)
			break;
		off = next;
		/* a malformed entry: next_offset skips it when it can, else stop */
		if (rc < 0 || dwarf_cfi_cie_p(&e))
			continue;
		if (e.fde.end - e.fde.start < (ptrdiff_t)asize)
			continue;
		pc = 0;
		for (size_t i = 0; i < asize; i++)
			pc |= (uint64_t)e.fde.start[i] << (8 * i);
		err = push_start(v, nr, cap, pc);
		if (err)
			return err;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int cfi_table_build(Elf *elf, struct cfi_table *t)
{
	return cfi_table_build_with(elf, NULL, t);
}

int cfi_table_build_with(Elf *elf, Elf *debug, struct cfi_table *t)
{
	struct row_buf b = { 0 };
	struct cfi_row gap = { .cfa = CFI_CFA_NONE };
	uint64_t *starts = NULL, end = 0;
	struct cfi_src src = { { NULL, NULL } };
	Dwarf *dw = NULL;
	size_t nr = 0, cap;
	int err;

	memset(t, 0, sizeof(*t));
	err = check_machine(elf);
	if (err)
		return err;
	src.cfi[0] = dwarf_getcfi_elf(elf);
	if (src.cfi[0]) {
		err = ehframe_func_starts(elf, &starts, &nr);
		if (err)
			goto out;
	}
	cap = nr;
	/*
	 * .debug_frame: the separate debug file's, else the object's own. Only
	 * when there is one: dwarf_begin_elf reads every debug section, and
	 * compilers put CFI there only when not emitting unwind tables, so
	 * objects with .eh_frame and -g debug info never pay for it.
	 */
	if (find_section(debug ? debug : elf, ".debug_frame"))
		dw = dwarf_begin_elf(debug ? debug : elf, DWARF_C_READ, NULL);
	if (dw)
		src.cfi[1] = dwarf_getcfi(dw);	/* owned by dw; NULL without .debug_frame */
	if (src.cfi[1]) {
		size_t before = nr;

		err = debug_frame_starts(debug ? debug : elf, &starts, &nr, &cap);
		if (err)
			goto out;
		t->st.debug_frame_fdes = nr - before;
		qsort(starts, nr, sizeof(*starts), cmp_u64);
	}
	if (!src.cfi[0] && !src.cfi[1])
		goto out;	/* no CFI at all: frame pointers will have to do */
	for (size_t i = 0; i < nr; i++) {
		if (starts[i] < end)
			continue;	/* already covered by a contiguous walk */
		t->st.fdes++;
		err = walk_from(&src, starts[i], &b, &t->st, &end);
		if (err)
			goto out;
		/* close the range: what follows, up to the next FDE, has no CFI */
		gap.pc = end;
		err = push_row(&b, &gap);
		if (err)
			goto out;
	}
	err = mark_entry(elf, &b);
	if (err)
		goto out;
	t->rows = b.rows;
	t->nr = b.nr;
	b.rows = NULL;
out:
	free(b.rows);
	free(starts);
	if (src.cfi[0])
		dwarf_cfi_end(src.cfi[0]);
	if (dw)
		dwarf_end(dw);
	return err;
}

void cfi_table_release(struct cfi_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

const struct cfi_row *cfi_table_find(const struct cfi_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}
