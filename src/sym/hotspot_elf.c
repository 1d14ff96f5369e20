// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libjvm.so's exported vmStructs symbols and load layout (see hotspot_elf.h). */
#include "sym/hotspot_elf.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "sym/elf_scan.h"

static const char *const sym_names[HS_SYM_NR] = {
	[HS_SYM_STRUCTS] = "gHotSpotVMStructs",
	[HS_SYM_STRUCT_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[HS_SYM_STRUCT_TYPE] = "gHotSpotVMStructEntryTypeNameOffset",
	[HS_SYM_STRUCT_FIELD] = "gHotSpotVMStructEntryFieldNameOffset",
	[HS_SYM_STRUCT_TYPESTR] = "gHotSpotVMStructEntryTypeStringOffset",
	[HS_SYM_STRUCT_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[HS_SYM_STRUCT_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[HS_SYM_STRUCT_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[HS_SYM_TYPES] = "gHotSpotVMTypes",
	[HS_SYM_TYPE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[HS_SYM_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
	[HS_SYM_TYPE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[HS_SYM_INTS] = "gHotSpotVMIntConstants",
	[HS_SYM_INT_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[HS_SYM_INT_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[HS_SYM_INT_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
};

bool hotspot_elf_candidate(const char *path)
{
	const char *b = strrchr(path, '/');

	return !strcmp(b ? b + 1 : path, "libjvm.so");
}

const char *hotspot_elf_sym_name(enum hotspot_sym s)
{
	return s < HS_SYM_NR ? sym_names[s] : "?";
}

/* elf_scan_fn: a gHotSpotVM* object symbol into its slot */
static int take_symbol(const char *name, const GElf_Sym *sym, void *arg)
{
	struct hotspot_elf *out = arg;

	/* a cheap filter: libjvm exports a few thousand symbols */
	if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT || strncmp(name, "gHotSpotVM", 10))
		return 0;
	for (int k = 0; k < HS_SYM_NR; k++)
		if (!strcmp(name, sym_names[k]))
			out->sym[k] = sym->st_value;
	return 0;
}

static int first_missing(const struct hotspot_elf *out)
{
	for (int k = 0; k < HS_SYM_NR; k++)
		if (!out->sym[k])
			return k;
	return -1;
}

int hotspot_elf_read(int fd, struct hotspot_elf *out, enum hotspot_sym *missing)
{
	int err = 0, k;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	/* exported for the serviceability agent: in .dynsym even when stripped */
	elf_scan_symbols(elf, SHT_DYNSYM, take_symbol, out);
	if (first_missing(out) >= 0)
		elf_scan_symbols(elf, SHT_SYMTAB, take_symbol, out);
	k = first_missing(out);
	if (k >= 0) {
		if (missing)
			*missing = (enum hotspot_sym)k;
		err = -ENOENT;
	} else if (load_layout_read(elf, &out->ll)) {
		err = -ENOEXEC;
	}
	elf_end(elf);
	return err;
}
