// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * profile -> FlameGraph folded text (analysis/profile.h describes the
 * format and its header line). Through folded.c's merging sink, so both
 * folded writers sanitize, merge and order lines the same way.
 */
#include "output/folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"

/* "name_[k]" for every frame, or NULL where the name has no suffix. */
static char **frame_texts(const struct profile *p, size_t nr)
{
	char **t = calloc(nr ? nr : 1, sizeof(*t));
	const struct profile_frame *f;
	size_t i;

	for (i = 0; t && i < nr; i++) {
		f = profile__frame(p, (uint32_t)i);
		if (!*profile_frame_suffix(f->flags))
			continue;
		if (asprintf(&t[i], "%s%s", f->name, profile_frame_suffix(f->flags)) < 0) {
			t[i] = NULL;
			while (i--)
				free(t[i]);
			free(t);
			return NULL;
		}
	}
	return t;
}

/* How @kind is written for @p: on-CPU as time when it shares the file with time kinds. */
static bool oncpu_as_ns(const struct profile *p, enum profile_kind kind)
{
	return kind == PROFILE_KIND_ONCPU && profile__period_ns(p) &&
	       (profile__kinds(p) & ~(1u << PROFILE_KIND_ONCPU));
}

const char *profile_folded_unit(const struct profile *p, enum profile_kind kind)
{
	return oncpu_as_ns(p, kind) ? "nanoseconds" : profile_kind_unit(kind);
}

static int sink_fill(const struct profile *p, enum profile_kind kind, char **texts,
		     struct folded_sink *fs)
{
	uint64_t mult = oncpu_as_ns(p, kind) ? profile__period_ns(p) : 1, w;
	const struct profile_stack *s;
	const char **line = NULL;
	size_t cap = 0, i, j;
	uint32_t id;
	int err = 0;

	for (i = 0; i < profile__nr_stacks(p) && !err; i++) {
		s = profile__stack(p, i);
		if (s->kind != kind)
			continue;
		if (__builtin_mul_overflow(s->weight, mult, &w)) {
			err = -EOVERFLOW;
			break;
		}
		if (s->nr_frames > cap) {
			const char **n = reallocarray(line, s->nr_frames, sizeof(*line));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			line = n;
			cap = s->nr_frames;
		}
		for (j = 0; j < s->nr_frames; j++) {
			id = s->frames[j];
			line[j] = texts[id] ? texts[id] : profile__frame(p, id)->name;
		}
		if (!err)
			err = folded_sink__add(fs, line, s->nr_frames, w);
	}
	free(line);
	return err;
}

/* The header line: no field is a bare number, so FlameGraph tools skip it (profile.h). */
static int write_header(const struct profile *p, enum profile_kind kind, FILE *out)
{
	uint64_t period = profile__period_ns(p);

	fprintf(out, FOLDED_HEADER_MAGIC "v1 kind=%s unit=%s", profile_kind_name(kind),
		profile_folded_unit(p, kind));
	if (kind == PROFILE_KIND_ONCPU && period)
		fprintf(out, " period_ns=%" PRIu64, period);
	/* a sample counts events, not time: say which and how many (readers ignore the keys) */
	if (kind == PROFILE_KIND_ONCPU && profile__event(p))
		fprintf(out, " event=%s event_period=%" PRIu64, profile__event(p),
			profile__event_period(p));
	if (profile__start_ns(p))
		fprintf(out, " start_ns=%" PRIu64, profile__start_ns(p));
	if (profile__duration_ns(p))
		fprintf(out, " duration_ns=%" PRIu64, profile__duration_ns(p));
	return fputc('\n', out) == EOF || ferror(out) ? -EIO : 0;
}

int profile__write_folded(const struct profile *p, FILE *out)
{
	size_t nr = profile__nr_frames(p), i;
	unsigned int kinds = profile__kinds(p);
	char **texts = frame_texts(p, nr);
	struct folded_sink *fs = NULL;
	int err = texts ? 0 : -ENOMEM;

	/* an empty profile still says what it is: the kind it would hold is unknown */
	if (!kinds)
		kinds = 1u << PROFILE_KIND_ONCPU;
	for (int k = 0; !err && k < PROFILE_KIND_NR; k++) {
		if (!(kinds & (1u << k)))
			continue;
		fs = folded_sink__new();
		if (!fs) {
			err = -ENOMEM;
			break;
		}
		/* the sink merges stacks that differ only in labels and sorts the lines */
		err = write_header(p, k, out);
		if (!err)
			err = sink_fill(p, k, texts, fs);
		if (!err)
			err = folded_sink__write(fs, out);
		folded_sink__free(fs);
	}
	for (i = 0; texts && i < nr; i++)
		free(texts[i]);
	free(texts);
	return err;
}
