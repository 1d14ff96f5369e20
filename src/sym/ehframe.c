// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* .eh_frame_hdr search table reader (see ehframe.h). */
#include "sym/ehframe.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* DWARF DW_EH_PE_* pointer encodings */
#define EH_PE_OMIT	0xff
#define EH_PE_UDATA4	0x03
#define EH_PE_SDATA4	0x0b
#define EH_PE_UDATA8	0x04
#define EH_PE_SDATA8	0x0c
#define EH_PE_TABLE	0x3b	/* datarel | sdata4: what GNU ld and lld emit */

/*
 * Layout: u8 version (1), u8 eh_frame_ptr_enc, u8 fde_count_enc,
 * u8 table_enc, eh_frame_ptr, fde_count, then fde_count pairs
 * (initial_location, fde_address) sorted by location, relative to the
 * start of the section (datarel).
 */
#define EH_HDR_FIXED 4

static uint64_t read_uint(const unsigned char *p, size_t n, bool msb)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t enc_size(unsigned char enc)
{
	if (enc == EH_PE_OMIT)
		return 0;
	switch (enc & 0x0f) {
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		return 4;
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		return 8;
	default:
		return 0;
	}
}

/* The PT_GNU_EH_FRAME contents and its virtual address, or NULL. */
static Elf_Data *find_hdr(Elf *elf, uint64_t *vaddr)
{
	size_t i, nr;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nr))
		return NULL;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		*vaddr = ph.p_vaddr;
		return elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
	}
	return NULL;
}

/* The search table of @elf's .eh_frame_hdr, or false: one we cannot read. */
struct eh_table {
	const unsigned char *p;	/* count pairs (loc, fde), datarel sdata4 */
	size_t count;
	uint64_t base;		/* vaddr of .eh_frame_hdr */
	bool msb;
};

static bool read_table(Elf *elf, struct eh_table *t)
{
	const unsigned char *p;
	size_t ptr_len;
	Elf_Data *d;

	t->msb = elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
	d = find_hdr(elf, &t->base);
	if (!d || d->d_size < EH_HDR_FIXED)
		return false;
	p = d->d_buf;
	ptr_len = enc_size(p[1]);
	if (p[0] != 1 || !ptr_len || (p[2] != EH_PE_UDATA4 && p[2] != EH_PE_SDATA4) ||
	    p[3] != EH_PE_TABLE || d->d_size < EH_HDR_FIXED + ptr_len + 4)
		return false;
	t->count = read_uint(p + EH_HDR_FIXED + ptr_len, 4, t->msb);
	t->p = p + EH_HDR_FIXED + ptr_len + 4;
	/* the count comes from the file: it must fit the data we have */
	return t->count && t->count <= (d->d_size - (size_t)(t->p - p)) / 8;
}

static uint64_t table_field(const struct eh_table *t, size_t i, size_t which)
{
	return t->base + (uint64_t)(int64_t)(int32_t)read_uint(t->p + 8 * i + 4 * which, 4, t->msb);
}

int ehframe_func_starts(Elf *elf, uint64_t **starts, size_t *nr)
{
	struct eh_table t;
	uint64_t *out;

	*starts = NULL;
	*nr = 0;
	if (!read_table(elf, &t))
		return 0;
	out = malloc(t.count * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < t.count; i++)
		out[i] = table_field(&t, i, 0);
	/* sorted by the linker; sort anyway, lookups rely on it */
	qsort(out, t.count, sizeof(*out), u64_cmp);
	*starts = out;
	*nr = t.count;
	return 0;
}

/* The allocated section holding @vaddr (.eh_frame), read whole, and its address. */
static Elf_Data *section_at(Elf *elf, uint64_t vaddr, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || vaddr < sh.sh_addr || vaddr >= sh.sh_addr + sh.sh_size)
			continue;
		*addr = sh.sh_addr;
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

/*
 * The address range of the FDE at @fde (a vaddr in @d, which starts at
 * @addr) whose initial location the table says is @loc. Its pc_begin and
 * pc_range share one encoding, named in the CIE; rather than parse the CIE,
 * try the two sizes (sdata4, what GCC and LLD emit, then 8 bytes) and keep
 * the one whose pc_begin decodes (pc-relative or absolute) to @loc.
 */
static uint64_t fde_range(const Elf_Data *d, uint64_t addr, uint64_t fde, uint64_t loc, bool msb)
{
	const unsigned char *b = d->d_buf;
	uint64_t at, v;

	if (fde < addr || fde - addr + 8 > d->d_size || !read_uint(b + fde - addr, 4, msb) ||
	    read_uint(b + fde - addr, 4, msb) == 0xffffffffu)
		return 0;	/* a 64-bit DWARF length: not from a linker we know */
	at = fde + 8;		/* length, CIE pointer */
	for (size_t n = 4; n <= 8; n += 4) {
		if (at - addr + 2 * n > d->d_size)
			return 0;
		v = read_uint(b + at - addr, n, msb);
		if (n == 4)
			v = (uint64_t)(int64_t)(int32_t)v;
		if (at + v == loc || v == loc)
			return read_uint(b + at - addr + n, n, msb);
	}
	return 0;
}

int ehframe_func_ends(Elf *elf, const uint64_t *starts, size_t nr, uint64_t *ends)
{
	struct eh_table t;
	uint64_t addr = 0, loc, fde, range;
	size_t lo, hi, j;
	Elf_Data *d;

	for (size_t i = 0; i < nr; i++)
		ends[i] = 0;
	if (!read_table(elf, &t))
		return -ENOENT;
	d = section_at(elf, table_field(&t, 0, 1), &addr);
	if (!d || !d->d_buf)
		return -ENOENT;
	for (size_t i = 0; i < t.count; i++) {
		loc = table_field(&t, i, 0);
		fde = table_field(&t, i, 1);
		range = fde_range(d, addr, fde, loc, t.msb);
		/* @starts is sorted: find loc there */
		lo = 0;
		hi = nr;
		while (lo < hi) {
			j = lo + (hi - lo) / 2;
			if (starts[j] < loc)
				lo = j + 1;
			else
				hi = j;
		}
		if (lo < nr && starts[lo] == loc && range)
			ends[lo] = loc + range;
	}
	return 0;
}
