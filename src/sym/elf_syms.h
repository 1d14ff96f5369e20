/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Function symbols of one ELF object (executable, shared library, vdso):
 * file offset -> ELF virtual address through the PT_LOAD headers, then the
 * function containing that address from .symtab/.dynsym, or from a separate
 * debug file when the object is stripped. Designed never to return a wrong
 * name: an address outside every symbol's extent is "not found".
 */
#ifndef HC_SYM_ELF_SYMS_H
#define HC_SYM_ELF_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_syms;
struct dbgfetch;

struct elf_syms_opts {
	const char *path;	/* object path as its process sees it (debuglink dirs);
				 * NULL: only the build-id lookup */
	const char *root;	/* prefix reaching @path's filesystem now, e.g.
				 * "/proc/PID/root"; NULL: "" */
	const char *debug_root;	/* NULL: "/usr/lib/debug"; "": no separate debug files */
	struct dbgfetch *fetch;	/* debuginfod: where no debug file is found, ask it by
				 * build-id; its answer is used when it has come by the
				 * next lookup; NULL: no debuginfod */
};

/*
 * Read the ELF headers, PT_LOADs, build-id and debuglink of the object behind
 * @fd and, when it has no .symtab, locate its separate debug file. Symbols are
 * read later, on the first lookup. Takes ownership of @fd in every case (it
 * is closed on failure, by elf_syms__free(), or once symbols are loaded).
 * NULL + errno (ENOEXEC: not an ELF executable or shared object).
 */
struct elf_syms *elf_syms__open(int fd, const struct elf_syms_opts *o);

/* Same for an image in memory (the vdso); @image is copied. */
struct elf_syms *elf_syms__open_mem(const void *image, size_t size);

void elf_syms__free(struct elf_syms *es);	/* NULL is a no-op */

/*
 * Read the symbol tables now (idempotent; lookups call it). Closes the fds.
 * 0 or -errno; after a failure lookups find nothing.
 */
int elf_syms__load(struct elf_syms *es);

/* Function symbols kept after load (0 before). */
size_t elf_syms__nr(const struct elf_syms *es);

/*
 * File offset -> virtual address, using the executable PT_LOAD that contains
 * @off (else any PT_LOAD). 0 or -ENOENT.
 */
int elf_syms__off_to_vaddr(const struct elf_syms *es, uint64_t off, uint64_t *vaddr);

/*
 * In an object without .symtab (stripped, no debug file), the function
 * holding file offset @off as its .eh_frame FDE bounds it: its start as a
 * file offset in *@start_off and its size (0: unknown, bounded only by the
 * next function) in *@size. 0, or -ENOENT (no FDE covers @off, the object
 * has a .symtab, or it is not loaded yet).
 */
int elf_syms__fde_func(const struct elf_syms *es, uint64_t off, uint64_t *start_off,
		       uint64_t *size);

/*
 * Raw (mangled) name of the function containing @vaddr, or NULL. *@sym_off
 * (optional) gets vaddr - start. Loads symbols on first use. The name lives
 * as long as @es.
 */
const char *elf_syms__lookup(struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off);

/*
 * The file-offset range [*@start, *@end) the loader maps for the PT_LOAD
 * segment holding file offset @off (an executable one where segments share
 * a page): @start rounded down to a page, as in /proc/PID/maps. 0 or -ENOENT.
 */
int elf_syms__segment_of(const struct elf_syms *es, uint64_t off, uint64_t *start,
			 uint64_t *end);

/* elf_syms__off_to_vaddr() then elf_syms__lookup(). */
const char *elf_syms__lookup_off(struct elf_syms *es, uint64_t off, uint64_t *sym_off);

/* Build-id bytes (NULL if none) and its length in *@len. */
const uint8_t *elf_syms__build_id(const struct elf_syms *es, size_t *len);

/*
 * Add the .symtab of the debug file at @path (ELF, same build-id) to @es,
 * loaded without one (stripped, no debug file found then): a debuginfod
 * answer that came after the first lookup. 0; -EINVAL: not loaded (or
 * failed to); -EEXIST: it has a .symtab or a debug file; -ENOENT: not a
 * debug file of this object; -errno.
 */
int elf_syms__add_debug_file(struct elf_syms *es, const char *path);

/* Whether symbols came from the object's MiniDebugInfo (.gnu_debugdata); after load. */
bool elf_syms__minidebug(const struct elf_syms *es);

/* Path of the separate debug file in use, or NULL. */
const char *elf_syms__debug_path(const struct elf_syms *es);

/*
 * After load: an fd on the file holding the object's DWARF (its debug file,
 * else the object itself), for source lines (srcline__open()); the caller
 * owns it, and a second call gets -ENOENT. -ENOENT: no DWARF found.
 */
int elf_syms__take_dwarf_fd(struct elf_syms *es);

#endif /* HC_SYM_ELF_SYMS_H */
