/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Is an ELF object a V8 (node, libnode.so)? Its v8dbg_* table (v8_layout.h),
 * read from the file without running anything (the values are initialized
 * data), and where its embedded builtins' code lies.
 */
#ifndef HC_SYM_V8_ELF_H
#define HC_SYM_V8_ELF_H

#include <stdbool.h>

#include "sym/loadbias.h"
#include "sym/v8_layout.h"

/* Worth opening: the base name of @path is node, nodeN or libnode.so[.N]. */
bool v8_elf_candidate(const char *path);

/*
 * Read @fd (an ELF object) into @l (v8_layout_check() not done) and its load
 * layout into @ll (optional). 0; -ENOENT: no v8dbg_* symbol at all (not a
 * V8); -errno.
 */
int v8_elf_read(int fd, struct v8_layout *l, struct load_layout *ll);

#endif /* HC_SYM_V8_ELF_H */
