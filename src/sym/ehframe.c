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

int ehframe_func_starts(Elf *elf, uint64_t **starts, size_t *nr)
{
	bool msb = elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
	const unsigned char *p, *table;
	size_t i, ptr_len, count;
	uint64_t base = 0, *out;
	Elf_Data *d;

	*starts = NULL;
	*nr = 0;
	d = find_hdr(elf, &base);
	if (!d || d->d_size < EH_HDR_FIXED)
		return 0;
	p = d->d_buf;
	ptr_len = enc_size(p[1]);
	if (p[0] != 1 || !ptr_len || (p[2] != EH_PE_UDATA4 && p[2] != EH_PE_SDATA4) ||
	    p[3] != EH_PE_TABLE || d->d_size < EH_HDR_FIXED + ptr_len + 4)
		return 0;
	count = read_uint(p + EH_HDR_FIXED + ptr_len, 4, msb);
	table = p + EH_HDR_FIXED + ptr_len + 4;
	/* the count comes from the file: it must fit the data we have */
	if (!count || count > (d->d_size - (size_t)(table - p)) / 8)
		return 0;
	out = malloc(count * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (i = 0; i < count; i++)
		out[i] = base + (uint64_t)(int64_t)(int32_t)read_uint(table + 8 * i, 4, msb);
	/* sorted by the linker; sort anyway, lookups rely on it */
	qsort(out, count, sizeof(*out), u64_cmp);
	*starts = out;
	*nr = count;
	return 0;
}
