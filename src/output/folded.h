/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * FlameGraph folded ("collapsed") output: one line per unique stack, frames
 * root->leaf joined by ';', a space, an integer count. Lines with identical
 * frame text are merged before writing (different addresses often symbolize
 * to one function).
 */
#ifndef HC_OUTPUT_FOLDED_H
#define HC_OUTPUT_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/profile.h"

/*
 * Write one line: frames[0] is the root (usually the process name).
 * Characters that would break the format are replaced: ';' inside a frame
 * becomes ':', and '\n', '\r', '\t' become ' '. An empty frame is written as
 * "[unknown]". Spaces are kept: readers take the count after the last space.
 * Returns 0 or -EIO (write error), -EINVAL (nr == 0).
 */
int folded_write_frames(FILE *out, const char *const frames[], size_t nr, uint64_t count);

/* Accumulates lines so identical stacks merge; sorted on write. */
struct folded_sink;

struct folded_sink *folded_sink__new(void);	/* NULL + errno on failure */
void folded_sink__free(struct folded_sink *fs);	/* NULL is a no-op */

/* Add @count to the line made of @frames (root first). 0 or -errno. */
int folded_sink__add(struct folded_sink *fs, const char *const frames[], size_t nr,
		     uint64_t count);

size_t folded_sink__nr_lines(const struct folded_sink *fs);
uint64_t folded_sink__total(const struct folded_sink *fs);

/*
 * Write every line, ordered by count descending then line text ascending
 * (bytewise), each exactly as folded_write_frames() would. 0 or -EIO.
 */
int folded_sink__write(const struct folded_sink *fs, FILE *out);

/*
 * A profile as folded text (folded_profile.c; the format and its header line
 * are in analysis/profile.h): suffixes restored, one section per kind, each
 * after its header line (FOLDED_HEADER_MAGIC) and ordered count desc then
 * text asc; lines with the same text merge (labels are not written). In a
 * profile of several kinds on-CPU counts are written as nanoseconds (count x
 * period, when known), so every count in the file is time.
 * 0, -EIO, -ENOMEM, or -EOVERFLOW (a section's counts summed past UINT64_MAX).
 */
int profile__write_folded(const struct profile *p, FILE *out);

/* The unit of @kind's counts as profile__write_folded() writes them for @p. */
const char *profile_folded_unit(const struct profile *p, enum profile_kind kind);

#endif /* HC_OUTPUT_FOLDED_H */
