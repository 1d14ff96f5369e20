/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pprof output: a gzip-compressed profile.proto (github.com/google/pprof,
 * proto/profile.proto), readable by `go tool pprof`.
 *
 * Sample types, in this order, for each kind the profile holds:
 *   on-CPU    (samples, count) and, when the period is known,
 *             (cpu, nanoseconds) = count x period_ns
 *   off-CPU   (off_cpu, nanoseconds)
 *   run-queue (runq_wait, nanoseconds)
 *   lock      (lock_wait, nanoseconds)
 * Every sample has a value for every type (0 for the others), so the kinds
 * of a hot/cold profile stay apart. Mappings: one per object (file name,
 * build ID, the mapped segment's start/limit/file offset), the main binary
 * first (the most used object that is no library, "[pseudo]" or kernel;
 * without one, mapping 1 has no file, so pprof shows no "File:"), the
 * kernel ("[kernel.kallsyms]", its own addresses) last; each
 * user object gets a synthetic address range, so a location's address -
 * memory_start + file_offset is its file offset. One Location per frame
 * (leaf first in a sample; a non-leaf address is the call site) and one
 * Function per (name, source file); a kernel frame drops a lone "_[k]"
 * (its mapping says kernel), other suffixes stay in the name, and a kernel
 * waker frame keeps both, "_[k]_[w]", in that order as everywhere. A frame with source lines (profile_line, from
 * DWARF) has one Line per function running at its address, innermost
 * first: the inlined ones by their DWARF names, the frame's own function
 * last by the frame's name, each with its file and line (so `go tool pprof
 * -lines` and `-list` work); else one Line naming the frame, without a
 * line number. A frame without a symbol at a known address has no Line and its
 * mapping no has_functions, so pprof -symbolize names it from the binary.
 * Labels: pid, tid (numbers), comm, thread_name, reason (strings) where
 * set. time_nanos/duration_nanos when known. The default sample type is
 * cpu when present, else the first.
 */
#ifndef HC_OUTPUT_PPROF_H
#define HC_OUTPUT_PPROF_H

#include <stdio.h>

#include "analysis/profile.h"

#define PPROF_KERNEL_MAPPING PROFILE_KERNEL_OBJECT

/*
 * Encode @p, gzip it and write it to @out (not flushed or closed).
 * 0 or -errno: -ENOMEM, -EIO (write error), -EOVERFLOW (a value or a
 * total does not fit pprof's int64).
 */
int pprof_write(const struct profile *p, FILE *out);

/* The same, uncompressed, into a malloc'd buffer (for tests). 0 or -errno. */
int pprof_encode(const struct profile *p, unsigned char **data, size_t *len);

#endif /* HC_OUTPUT_PPROF_H */
