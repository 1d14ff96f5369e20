/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Is an ELF object HotSpot's libjvm.so? Where it exports the vmStructs
 * tables (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMIntConstants) and
 * the stride and field offsets of their entries, by symbol table, without
 * running anything. The values behind them are read from the process
 * (sym/hotspot.c): the offsets are set by the VM's static initializers.
 */
#ifndef HC_SYM_HOTSPOT_ELF_H
#define HC_SYM_HOTSPOT_ELF_H

#include <stdbool.h>
#include <stdint.h>

#include "sym/loadbias.h"

enum hotspot_sym {
	HS_SYM_STRUCTS,			/* VMStructEntry *: the table */
	HS_SYM_STRUCT_STRIDE,
	HS_SYM_STRUCT_TYPE,		/* offset of typeName in an entry */
	HS_SYM_STRUCT_FIELD,		/* fieldName */
	HS_SYM_STRUCT_TYPESTR,		/* typeString: the field's C++ type */
	HS_SYM_STRUCT_STATIC,		/* isStatic (int32) */
	HS_SYM_STRUCT_OFFSET,		/* offset (instance fields) */
	HS_SYM_STRUCT_ADDRESS,		/* address (static fields) */
	HS_SYM_TYPES,			/* VMTypeEntry * */
	HS_SYM_TYPE_STRIDE,
	HS_SYM_TYPE_NAME,
	HS_SYM_TYPE_SIZE,
	HS_SYM_INTS,			/* VMIntConstantEntry * */
	HS_SYM_INT_STRIDE,
	HS_SYM_INT_NAME,
	HS_SYM_INT_VALUE,
	HS_SYM_NR
};

struct hotspot_elf {
	uint64_t sym[HS_SYM_NR];	/* vaddrs of the exported variables */
	struct load_layout ll;		/* for the load bias of its mappings */
};

/* Worth opening: the base name of @path is libjvm.so. */
bool hotspot_elf_candidate(const char *path);

/* The exported name of @s ("gHotSpotVMStructs"). */
const char *hotspot_elf_sym_name(enum hotspot_sym s);

/*
 * Read @fd (an ELF object) into @out. 0; -ENOENT if a symbol is missing
 * (*@missing, optional, gets which: not a HotSpot VM, or one without
 * vmStructs); -errno.
 */
int hotspot_elf_read(int fd, struct hotspot_elf *out, enum hotspot_sym *missing);

#endif /* HC_SYM_HOTSPOT_ELF_H */
