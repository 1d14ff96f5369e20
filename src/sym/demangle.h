/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * C++ (Itanium ABI) and Rust (legacy and v0) demangling through libiberty's
 * callback interface, which writes into the caller's buffer without
 * allocating, so naming a frame costs no malloc.
 */
#ifndef HC_SYM_DEMANGLE_H
#define HC_SYM_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Cheap prefix test: could @name be a C++ or Rust mangled name? */
bool demangle_is_mangled(const char *name);

/*
 * Demangle @name into @buf (NUL-terminated, truncated to @len). Rust legacy
 * names lose their "::h<16 hex>" hash suffix, as in perf. Parameters are
 * kept for C++ ("ns::f(int)"). Returns 0, or -EINVAL when @name is not a
 * mangled name or is too long to demangle safely (then @buf holds ""),
 * -ENOSPC if @len is 0.
 */
int demangle_into(const char *name, char *buf, size_t len);

/* @name demangled into @buf when @demangle and it is mangled, else copied (truncated). */
void demangle_or_copy(const char *name, bool demangle, char *buf, size_t len);

#endif /* HC_SYM_DEMANGLE_H */
