/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One pass over an ELF file's defined symbols of a symbol table type, for
 * the readers that want a few named ones out of a runtime's library
 * (sym/python_elf.c: _PyRuntime; sym/hotspot_elf.c: gHotSpotVM*).
 */
#ifndef HC_SYM_ELF_SCAN_H
#define HC_SYM_ELF_SCAN_H

#include <gelf.h>

/* Called per defined symbol with its name (never NULL); non-zero stops the scan. */
typedef int (*elf_scan_fn)(const char *name, const GElf_Sym *sym, void *arg);

/* Every defined (not SHN_UNDEF) symbol of the sections of @sh_type (SHT_DYNSYM, SHT_SYMTAB). */
void elf_scan_symbols(Elf *elf, Elf64_Word sh_type, elf_scan_fn fn, void *arg);

#endif /* HC_SYM_ELF_SCAN_H */
