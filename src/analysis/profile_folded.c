// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * FlameGraph folded text <-> profile, per SEEDS.md §1. Uses only the public
 * profile API; the writer goes through output/folded's merging sink so both
 * writers sanitize, merge and order lines the same way.
 */
#include "analysis/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/folded.h"
#include "util/log.h"

#define PROFILE_UNKNOWN	"[unknown]"

static int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *a;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	a = reallocarray(*arr, n, elem);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = n;
	return 0;
}

/* ---- folded writer ------------------------------------------------------------ */

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

static int sink_fill(const struct profile *p, char **texts, struct folded_sink *fs)
{
	const struct profile_stack *s;
	const char **line = NULL;
	size_t cap = 0, i, j;
	uint32_t id;
	int err = 0;

	for (i = 0; i < profile__nr_stacks(p) && !err; i++) {
		s = profile__stack(p, i);
		err = grow_array((void **)&line, &cap, s->nr_frames, sizeof(*line));
		for (j = 0; !err && j < s->nr_frames; j++) {
			id = s->frames[j];
			line[j] = texts[id] ? texts[id] : profile__frame(p, id)->name;
		}
		if (!err)
			err = folded_sink__add(fs, line, s->nr_frames, s->weight);
	}
	free(line);
	return err;
}

int profile__write_folded(const struct profile *p, FILE *out)
{
	size_t nr = profile__nr_frames(p), i;
	struct folded_sink *fs = folded_sink__new();
	char **texts = frame_texts(p, nr);
	int err = -ENOMEM;

	if (fs && texts) {
		/* the sink merges stacks that differ only in labels and sorts the lines */
		err = sink_fill(p, texts, fs);
		if (!err)
			err = folded_sink__write(fs, out);
	}
	for (i = 0; texts && i < nr; i++)
		free(texts[i]);
	free(texts);
	folded_sink__free(fs);
	return err;
}

int profile_stack_text(const struct profile *p, const struct profile_stack *s, char **buf,
		       size_t *cap)
{
	const struct profile_frame *f;
	size_t len = 0, n, m, i;

	for (i = 0; i < s->nr_frames; i++) {
		f = profile__frame(p, s->frames[i]);
		n = strlen(f->name);
		m = strlen(profile_frame_suffix(f->flags));
		if (grow_array((void **)buf, cap, len + n + m + 2, 1))
			return -ENOMEM;
		if (i)
			(*buf)[len++] = ';';
		memcpy(*buf + len, f->name, n);
		memcpy(*buf + len + n, profile_frame_suffix(f->flags), m);
		len += n + m;
	}
	if (grow_array((void **)buf, cap, len + 1, 1))
		return -ENOMEM;
	(*buf)[len] = '\0';
	return 0;
}

/* ---- folded reader ------------------------------------------------------------ */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Decimal digits only, no sign; -ERANGE past UINT64_MAX. */
static int parse_count(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[i] - '0', &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

/* Strip trailing "_[k]"-style suffixes into flags, keeping at least one name byte. */
static unsigned int strip_suffixes(char *name, size_t *len)
{
	static const struct { char c; unsigned int flag; } map[] = {
		{ 'k', FRAME_F_KERNEL }, { 'j', FRAME_F_JIT },
		{ 'i', FRAME_F_INLINE }, { 'w', FRAME_F_WAKER },
	};
	unsigned int flags = 0, f;
	size_t i;

	while (*len > 4 && !memcmp(name + *len - 4, "_[", 2) && name[*len - 1] == ']') {
		for (i = 0, f = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (name[*len - 2] == map[i].c)
				f = map[i].flag;
		if (!f || (flags & f))
			break;
		flags |= f;
		*len -= 4;
		name[*len] = '\0';
	}
	return flags;
}

/* "[unknown]" or "module+0xHEX": a frame the symbolizer could not name */
static bool looks_unknown(const char *name, size_t len)
{
	const char *plus = memmem(name, len, "+0x", 3), *q;

	if (!strcmp(name, PROFILE_UNKNOWN))
		return true;
	if (!plus || plus == name || plus + 3 == name + len)
		return false;
	for (q = plus + 3; q < name + len; q++) {
		if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') ||
		      (*q >= 'A' && *q <= 'F')))
			return false;
	}
	return true;
}

struct folded_reader {
	struct profile *p;
	enum profile_kind kind;
	struct profile_frame_in *frames;
	size_t cap_frames;
};

/* Split @stack (NUL-terminated, trimmed) into frames and add it. 0, -EINVAL (malformed), -errno. */
static int add_stack(struct folded_reader *r, char *stack, uint64_t count, const char **why)
{
	struct profile_stack_in in = { .weight = count, .kind = r->kind };
	size_t n = 0, len;
	char *f, *end;
	int err;

	for (f = stack; f; f = end ? end + 1 : NULL) {
		end = strchr(f, ';');
		if (end)
			*end = '\0';
		len = strlen(f);
		if (!len) {
			*why = "empty frame";
			return -EINVAL;
		}
		if (n == FOLDED_MAX_FRAMES) {
			*why = "more than " FOLDED_MAX_FRAMES_STR " frames";
			return -EINVAL;
		}
		if (grow_array((void **)&r->frames, &r->cap_frames, n + 1, sizeof(*r->frames)))
			return -ENOMEM;
		r->frames[n] = (struct profile_frame_in){ .name = f };
		r->frames[n].flags = strip_suffixes(f, &len);
		if (looks_unknown(f, len))
			r->frames[n].flags |= FRAME_F_UNKNOWN;
		n++;
	}
	if (!count)
		return 0;	/* a valid line that adds nothing */
	in.frames = r->frames;
	in.nr_frames = n;
	err = profile__add(r->p, &in);
	if (err == -EOVERFLOW)
		*why = "count overflows the profile total";
	return err == -EOVERFLOW ? -EINVAL : err;
}

/* One line, trailing newline included. 0, 1 (blank), -EINVAL (malformed, *why set), -errno. */
static int parse_line(struct folded_reader *r, char *line, size_t n, const char **why)
{
	size_t sep;
	uint64_t count;
	int err;

	if (memchr(line, '\0', n)) {
		*why = "NUL byte";
		return -EINVAL;
	}
	while (n && is_space(line[n - 1]))
		n--;
	while (n && is_space(*line))
		line++, n--;
	if (!n)
		return 1;
	/* the count follows the last space: frames may contain spaces */
	for (sep = n; sep && line[sep - 1] != ' ' && line[sep - 1] != '\t'; sep--)
		;
	if (!sep) {
		*why = "no count";
		return -EINVAL;
	}
	err = parse_count(line + sep, n - sep, &count);
	if (err) {
		*why = err == -ERANGE ? "count above UINT64_MAX" : "count is not an integer";
		return -EINVAL;
	}
	while (sep && is_space(line[sep - 1]))
		sep--;
	if (!sep) {
		*why = "no frames";
		return -EINVAL;
	}
	line[sep] = '\0';
	return add_stack(r, line, count, why);
}

int profile__read_folded(struct profile *p, FILE *in, enum profile_kind kind,
			 struct folded_read_stats *st)
{
	struct folded_reader r = { .p = p, .kind = kind };
	struct folded_read_stats dummy;
	uint64_t lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	const char *why;
	ssize_t n;
	int err = 0;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if ((unsigned int)kind >= PROFILE_KIND_NR)
		return -EINVAL;
	/* getline: no fixed line buffer, a 100 MB line is one line */
	while ((n = getline(&line, &cap, in)) >= 0) {
		lineno++;
		why = NULL;
		err = parse_line(&r, line, (size_t)n, &why);
		if (err == 1) {
			err = 0;
			continue;
		}
		st->lines++;
		if (err == -EINVAL) {
			st->malformed++;
			if (!st->first_bad_line)
				st->first_bad_line = lineno;
			pr_debug("folded: line %" PRIu64 ": %s, skipped\n", lineno, why);
		} else if (err) {
			break;
		}
		err = 0;
	}
	if (!err && ferror(in))
		err = -EIO;
	else if (!err && n < 0 && errno == ENOMEM)
		err = -ENOMEM;
	free(line);
	free(r.frames);
	return err;
}
