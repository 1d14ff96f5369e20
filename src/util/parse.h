/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Strict parsers for command-line values. Every function returns 0 or a
 * negative errno (-EINVAL: not a valid value, -ERANGE: outside the bounds)
 * and leaves its output untouched on error.
 */
#ifndef HC_UTIL_PARSE_H
#define HC_UTIL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decimal unsigned integer in [min, max]; no sign, no trailing junk, no empty. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A finite decimal number in [min, max], nothing after it (strtod syntax). */
int parse_double(const char *s, double min, double max, double *out);

/*
 * A duration: a non-negative decimal number with an optional unit, one of
 * ns, us, ms, s, m, h (no unit: @default_unit_ns per unit, e.g. 1e9 for
 * seconds). "1.5" with seconds = 1500000000 ns. Result in nanoseconds, in
 * [min_ns, max_ns].
 */
int parse_duration_ns(const char *s, uint64_t default_unit_ns, uint64_t min_ns,
		      uint64_t max_ns, uint64_t *out_ns);

/*
 * Comma-separated list of positive ids ("12,34"), each in [1, max_id],
 * duplicates removed, at most @cap entries. On success *out is a malloc'd
 * array the caller frees and *nr its length (>= 1).
 */
int parse_id_list(const char *s, uint32_t max_id, size_t cap, uint32_t **out, size_t *nr);

/*
 * A kernel CPU list such as "0-3,8,10-11" (the format of
 * /sys/devices/system/cpu/online; a trailing newline is accepted). Sets
 * mask[cpu] = true for each listed cpu < nr_mask; -ERANGE if a cpu is >= nr_mask.
 * Clears mask first.
 */
int parse_cpu_list(const char *s, bool *mask, size_t nr_mask);

/*
 * For an error from the last parse above: "not a valid value", or for
 * -ERANGE "out of range (1 to 100000)" with its bounds (durations in the
 * largest unit that divides them: "1ms to 8784h"). A static buffer.
 */
const char *parse_strerror(int err);

/* 1500000 ns -> "1500us": the largest unit that divides it exactly (0: "0ns"). */
void parse_fmt_ns(char *buf, size_t len, uint64_t ns);

#endif /* HC_UTIL_PARSE_H */
