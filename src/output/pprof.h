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
 * Every sample has a value for every type (0 for the others). Locations are
 * leaf first; each distinct frame is one Function and one Location (address
 * 0, which pprof accepts for symbolized profiles). Function names are the
 * folded frame text, except that kernel frames drop "_[k]" and sit in a
 * mapping named "[kernel.kallsyms]" instead; frames with a module get a
 * mapping with that file name and build-id. Labels: pid, tid (numbers),
 * comm, reason (strings) where set. The default sample type is cpu when
 * present, else the first.
 */
#ifndef HC_OUTPUT_PPROF_H
#define HC_OUTPUT_PPROF_H

#include <stdio.h>

#include "analysis/profile.h"

#define PPROF_KERNEL_MAPPING "[kernel.kallsyms]"

/*
 * Encode @p, gzip it and write it to @out (not flushed or closed).
 * 0 or -errno: -ENOMEM, -EIO (write error), -EOVERFLOW (a value or a
 * total does not fit pprof's int64).
 */
int pprof_write(const struct profile *p, FILE *out);

/* The same, uncompressed, into a malloc'd buffer (for tests). 0 or -errno. */
int pprof_encode(const struct profile *p, unsigned char **data, size_t *len);

#endif /* HC_OUTPUT_PPROF_H */
