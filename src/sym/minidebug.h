/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MiniDebugInfo: the .gnu_debugdata section Fedora (and others) ship in
 * stripped binaries, an xz-compressed ELF whose .symtab holds the function
 * symbols .dynsym lacks (GDB's "MiniDebugInfo" recipe makes one).
 */
#ifndef HC_SYM_MINIDEBUG_H
#define HC_SYM_MINIDEBUG_H

#include <stddef.h>

#include <gelf.h>

/* the decompressed ELF may be at most this big: a real one is a few MiB */
#define MINIDEBUG_MAX_BYTES (256u << 20)

/*
 * Decompress @elf's .gnu_debugdata into a malloc'd *@image of *@size bytes
 * (the caller frees it; elf_memory() reads it). 0; -ENOENT: no such section;
 * -EINVAL: not valid xz, or larger than MINIDEBUG_MAX_BYTES; -ENOMEM.
 */
int minidebug_read(Elf *elf, void **image, size_t *size);

#endif /* HC_SYM_MINIDEBUG_H */
