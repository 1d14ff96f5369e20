/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel text symbols from /proc/kallsyms ("addr type name [module]"),
 * sorted once, looked up by binary search. Each symbol is given an end so
 * an ip past the last function of a region is "unknown", not misnamed.
 */
#ifndef HC_SYM_KALLSYMS_H
#define HC_SYM_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kallsyms;

/*
 * Parse a kallsyms-format file (e.g. "/proc/kallsyms"). Malformed lines are
 * skipped. All-zero addresses (kptr_restrict) give an empty table, not an
 * error. NULL + errno on open/read/allocation failure.
 */
struct kallsyms *kallsyms__load(const char *path);

/* Same, from an open stream (read to EOF; not closed). */
struct kallsyms *kallsyms__parse(FILE *f);

void kallsyms__free(struct kallsyms *ks);	/* NULL is a no-op */

/* Number of text symbols kept. */
size_t kallsyms__nr(const struct kallsyms *ks);

/* Lines that looked like text symbols but had a zero address (hidden). */
size_t kallsyms__nr_hidden(const struct kallsyms *ks);

/*
 * Name of the function containing @ip, or NULL when @ip is before the first
 * symbol or past the known end of its region. Optional outputs: *@off gets
 * ip - symbol start, *@module the module name (NULL for the core kernel).
 * Returned strings live as long as @ks.
 */
const char *kallsyms__lookup(const struct kallsyms *ks, uint64_t ip, uint64_t *off,
			     const char **module);

#endif /* HC_SYM_KALLSYMS_H */
