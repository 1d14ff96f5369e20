/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Libraries opened at run time by the one feature that needs them
 * (libcurl for push, libmicrohttpd for the web view, capstone for
 * annotate, libdebuginfod): linked in, their relocations and constructors
 * cost every run start-up time and the always-on agent ~10 MiB resident
 * (bench/RESULTS.md, session 11).
 */
#ifndef HC_UTIL_DYNLIB_H
#define HC_UTIL_DYNLIB_H

#include <stddef.h>

/* One symbol: its name and where its address goes (a function pointer, via void **). */
struct dynlib_sym {
	const char *name;
	void **fn;
};

/*
 * dlopen(@so) and resolve every symbol of @syms, all or none: on failure
 * every *fn is NULL again and the library closed. The handle is kept for
 * the process's life. 0, or -ENOENT with @why (if not NULL) set to
 * dlerror()'s text (it names the file) or "<so>: a symbol is missing".
 */
int dynlib_load(const char *so, const struct dynlib_sym *syms, size_t n, char *why,
		size_t why_len);

#endif /* HC_UTIL_DYNLIB_H */
