/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ELF identity notes and separate debug files: NT_GNU_BUILD_ID,
 * .gnu_debuglink (name + CRC32), and the GDB search order for the debug
 * file that carries a stripped object's full .symtab.
 */
#ifndef HC_SYM_ELF_DEBUG_H
#define HC_SYM_ELF_DEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

#define ELF_BUILD_ID_MAX 64	/* GNU ld emits 20 (sha1); allow md5/uuid/longer */

struct elf_ident {
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;		/* 0: none */
	char *debuglink;		/* malloc'd basename, or NULL */
	uint32_t debuglink_crc;
	bool has_symtab;		/* a non-empty .symtab (not stripped) */
};

/* Fill @id from @elf's sections (notes from PT_NOTE if there are none). 0 or -errno. */
int elf_ident_read(Elf *elf, struct elf_ident *id);
void elf_ident_release(struct elf_ident *id);	/* frees debuglink; NULL-safe fields */

/* CRC32 (zlib polynomial, as .gnu_debuglink uses) of the whole file behind @fd. */
int elf_file_crc32(int fd, uint32_t *crc);

struct elf_debug_query {
	const struct elf_ident *id;	/* of the stripped object */
	const char *path;		/* object path as the process sees it; may be NULL */
	const char *root;		/* prefix reaching that filesystem now, e.g.
					 * "/proc/PID/root"; NULL or "": none */
	const char *debug_root;		/* e.g. "/usr/lib/debug"; NULL or "": build-id and
					 * debug-root lookups disabled */
	int obj_fd;			/* the object itself: never accepted as its own debug file */
};

/*
 * Find and open the separate debug file, in this order:
 *   <debug_root>/.build-id/xx/yyyy.debug   (build-id must match)
 *   <root><dir>/<debuglink>                (CRC must match)
 *   <root><dir>/.debug/<debuglink>
 *   <debug_root><dir>/<debuglink>
 * A candidate must be ELF with a .symtab. Returns an O_RDONLY|O_CLOEXEC fd the
 * caller owns, with *@found_path (malloc'd, optional) set; or -ENOENT.
 */
int elf_debug_find(const struct elf_debug_query *q, char **found_path);

/*
 * Open @path as the debug file of the object identified by @id (e.g. one a
 * debuginfod server sent): ELF with a .symtab and, where both have one, the
 * same build-id. An O_RDONLY|O_CLOEXEC fd the caller owns, or -errno
 * (-ENOENT: not a usable debug file).
 */
int elf_debug_open(const char *path, const struct elf_ident *id);

#endif /* HC_SYM_ELF_DEBUG_H */
