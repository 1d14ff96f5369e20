// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * FlameGraph folded text -> profile, per SEEDS.md §1, and a stack's folded
 * text. Uses only the public profile API. The writer (profile -> folded) is
 * output/folded_profile.c: the model below, its writers above it.
 */
#include "analysis/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

unsigned int profile_frame_text_flags(char *name, size_t *len)
{
	unsigned int flags = strip_suffixes(name, len);

	return looks_unknown(name, *len) ? flags | FRAME_F_UNKNOWN : flags;
}

struct folded_reader {
	struct profile *p;
	enum profile_kind kind;
	uint64_t mult;		/* count -> the kind's unit: 1000 for microseconds */
	uint64_t div;		/* on-CPU nanoseconds -> samples: the period */
	struct profile_frame_in *frames;
	size_t cap_frames;
	char event[64];		/* the section's event= (record -e), "" for none */
	uint64_t event_period;
};

/* An event name as record writes it: [A-Za-z0-9_.:/-], 1 to 63 bytes. */
static bool event_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.:/-", *s)))
			return false;
	return true;
}

/* "key=N" with a decimal N; false when @tok is another key. -EINVAL: a bad number. */
static int header_num(const char *tok, const char *key, uint64_t *v, bool *hit)
{
	size_t n = strlen(key);

	if (strncmp(tok, key, n) || tok[n] != '=')
		return 0;
	*hit = true;
	return parse_count(tok + n + 1, strlen(tok + n + 1), v);
}

/* One header token into @r and the profile's metadata. 0 or -EPROTO. */
static int header_token(struct folded_reader *r, const char *tok, const char **unit,
			uint64_t *period, uint64_t *start, uint64_t *dur)
{
	bool hit = false;
	int err;

	if (!strncmp(tok, "kind=", 5))
		return profile_kind_parse(tok + 5, &r->kind) ? -EPROTO : 0;
	if (!strncmp(tok, "unit=", 5)) {
		*unit = tok + 5;
		return 0;
	}
	if (!strncmp(tok, "event=", 6)) {
		if (!event_name_ok(tok + 6))
			return -EPROTO;
		strcpy(r->event, tok + 6);
		return 0;
	}
	err = header_num(tok, "event_period", &r->event_period, &hit);
	if (!hit)
		err = header_num(tok, "period_ns", period, &hit);
	if (!hit)
		err = header_num(tok, "start_ns", start, &hit);
	if (!hit)
		err = header_num(tok, "duration_ns", dur, &hit);
	/* other keys: a later minor addition, ignored */
	return err ? -EPROTO : 0;
}

/* Units a header may give for its kind, and the scaling they need. 0 or -EPROTO. */
static int header_unit(struct folded_reader *r, const char *unit, uint64_t period)
{
	bool time_kind = r->kind != PROFILE_KIND_ONCPU;

	r->mult = 1;
	r->div = 1;
	if (!unit)
		return -EPROTO;
	if (!strcmp(unit, "samples"))
		return time_kind ? -EPROTO : 0;
	if (!strcmp(unit, "microseconds"))
		r->mult = 1000;
	else if (strcmp(unit, "nanoseconds"))
		return -EPROTO;
	if (!time_kind) {
		/* on-CPU as time (a hot/cold file): back to samples */
		if (!period)
			return -EPROTO;
		r->div = period;
	}
	return 0;
}

/* "# hotcold folded v1 kind=K unit=U ...": switch @r to that section. 0 or -EPROTO. */
static int parse_header(struct folded_reader *r, char *line, unsigned int *kinds)
{
	uint64_t period = 0, start = 0, dur = 0;
	const char *unit = NULL;
	char *save = NULL, *tok;
	int err = 0, nr = 0;

	r->kind = PROFILE_KIND_NR;
	r->event[0] = '\0';
	r->event_period = 0;
	for (tok = strtok_r(line + strlen(FOLDED_HEADER_MAGIC), " \t\r\n", &save); tok && !err;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (!nr++)
			err = strcmp(tok, "v1") ? -EPROTO : 0;
		else
			err = header_token(r, tok, &unit, &period, &start, &dur);
	}
	if (!err && r->kind == PROFILE_KIND_NR)
		err = -EPROTO;
	if (!err)
		err = header_unit(r, unit, period);
	if (err)
		return err;
	*kinds |= 1u << r->kind;
	if (period && r->kind == PROFILE_KIND_ONCPU)
		profile__set_period_ns(r->p, period);
	/* an event section: one sample is event_period events, no amount of time */
	if (r->event[0] && r->kind == PROFILE_KIND_ONCPU)
		profile__set_event(r->p, r->event, r->event_period ? r->event_period : 1);
	if (start || dur)
		profile__set_time(r->p, start, dur);
	return 0;
}

/* @count in the kind's unit: scaled by the section's header; -ERANGE past UINT64_MAX. */
static int scale_count(const struct folded_reader *r, uint64_t count, uint64_t *out)
{
	if (__builtin_mul_overflow(count, r->mult, out))
		return -ERANGE;
	if (r->div > 1)
		*out = *out / r->div + (*out % r->div >= (r->div + 1) / 2);
	return 0;
}

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
		r->frames[n].flags = profile_frame_text_flags(f, &len);
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

/*
 * Whether @line ends in a count (digits after its last space or tab): a
 * stack, never a header or a comment, whatever it starts with. The header
 * is made never to end in one (profile.h), and a stack's root frame (a
 * process name) may start with "# ".
 */
static bool ends_in_count(const char *line, size_t n)
{
	uint64_t v;
	size_t sep;

	while (n && is_space(line[n - 1]))
		n--;
	for (sep = n; sep && line[sep - 1] != ' ' && line[sep - 1] != '\t'; sep--)
		;
	return sep && parse_count(line + sep, n - sep, &v) != -EINVAL;
}

/* One line, trailing newline included. 0, 1 (blank), -EINVAL (malformed, *why set), -errno. */
static int parse_line(struct folded_reader *r, char *line, size_t n, const char **why)
{
	size_t sep;
	uint64_t count;
	bool comment;
	int err;

	while (n && is_space(line[n - 1]))
		n--;
	while (n && is_space(*line))
		line++, n--;
	if (!n)
		return 1;
	/*
	 * "# ..." without a count is a comment (the hotcold header is handled
	 * by the caller). With one it is a stack, as flamegraph.pl, inferno and
	 * speedscope read it: a process may name itself "# x", and its samples
	 * must not vanish when the file is read back.
	 */
	comment = n >= 2 && line[0] == '#' && line[1] == ' ';
	/* the count follows the last space: frames may contain spaces */
	for (sep = n; sep && line[sep - 1] != ' ' && line[sep - 1] != '\t'; sep--)
		;
	if (!sep) {
		if (comment)
			return 1;
		*why = "no count";
		return -EINVAL;
	}
	err = parse_count(line + sep, n - sep, &count);
	if (err == -EINVAL && comment)
		return 1;
	if (!err)
		err = scale_count(r, count, &count);
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
	struct folded_reader r = { .p = p, .kind = kind, .mult = 1, .div = 1 };
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
		/* text has no NUL: a binary file whose bytes happen to form a "line" is refused */
		if (memchr(line, '\0', (size_t)n)) {
			st->binary_line = lineno;
			err = -EILSEQ;
			break;
		}
		if (!strncmp(line, FOLDED_HEADER_MAGIC, strlen(FOLDED_HEADER_MAGIC)) &&
		    !ends_in_count(line, (size_t)n)) {
			err = parse_header(&r, line, &st->header_kinds);
			if (err) {
				st->bad_header_line = lineno;
				break;
			}
			continue;
		}
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
