// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Strict parsers for numbers, durations, id lists and CPU lists. Syntax is
 * checked before range, so "99999999999999999999x" is -EINVAL, not -ERANGE.
 */
#include "util/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bounds of the last parse, for parse_strerror(); one thread parses options. */
static struct {
	uint64_t min, max;
	double dmin, dmax;
	enum { LAST_U64, LAST_DURATION, LAST_DOUBLE } kind;
} last;

static void remember(uint64_t min, uint64_t max, bool duration)
{
	last.min = min;
	last.max = max;
	last.kind = duration ? LAST_DURATION : LAST_U64;
}

void parse_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = { { "h", 3600000000000ull }, { "m", 60000000000ull }, { "s", 1000000000ull },
		      { "ms", 1000000ull }, { "us", 1000ull } };

	for (size_t i = 0; ns && i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].ns == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].ns, units[i].name);
			return;
		}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
}

const char *parse_strerror(int err)
{
	static char msg[96];
	char lo[32], hi[32];

	if (err != -ERANGE)
		return "not a valid value";
	if (last.kind == LAST_DURATION) {
		parse_fmt_ns(lo, sizeof(lo), last.min);
		parse_fmt_ns(hi, sizeof(hi), last.max);
	} else if (last.kind == LAST_DOUBLE) {
		snprintf(lo, sizeof(lo), "%g", last.dmin);
		snprintf(hi, sizeof(hi), "%g", last.dmax);
	} else {
		snprintf(lo, sizeof(lo), "%" PRIu64, last.min);
		snprintf(hi, sizeof(hi), "%" PRIu64, last.max);
	}
	snprintf(msg, sizeof(msg), "out of range (%s to %s)", lo, hi);
	return msg;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Digits in [s, s + len) to a value. The caller has checked they are all
 * digits and len >= 1. Leading zeros are fine (decimal only, never octal).
 */
static int digits_to_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

static size_t span_digits(const char *s)
{
	size_t n = 0;

	while (is_digit(s[n]))
		n++;
	return n;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	size_t n;
	uint64_t v;
	int err;

	remember(min, max, false);
	if (!s)
		return -EINVAL;
	n = span_digits(s);
	if (n == 0 || s[n] != '\0')
		return -EINVAL;
	err = digits_to_u64(s, n, &v);
	if (err)
		return err;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	last.dmin = min;
	last.dmax = max;
	last.kind = LAST_DOUBLE;
	if (!s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static const struct {
	const char *name;
	uint64_t ns;
} duration_units[] = {
	{ "ns", 1ULL },
	{ "us", 1000ULL },
	{ "ms", 1000000ULL },
	{ "s", 1000000000ULL },
	{ "m", 60ULL * 1000000000ULL },
	{ "h", 3600ULL * 1000000000ULL },
};

/* 0 (unknown unit) for anything but an exact, case-sensitive unit name */
static uint64_t unit_ns(const char *u)
{
	size_t i;

	for (i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++) {
		if (strcmp(u, duration_units[i].name) == 0)
			return duration_units[i].ns;
	}
	return 0;
}

/*
 * round(0.<frac digits> * unit) without floating point, for any number of
 * digits. Work right to left on twice the value: floor((d * u + floor(x)) / 10)
 * == floor((d * u + x) / 10) for integer d * u, so each step is exact and
 * x ends as floor(2 * value). Rounding is to nearest, halves up.
 */
static uint64_t frac_to_ns(const char *frac, size_t len, uint64_t unit)
{
	unsigned __int128 twice_unit = (unsigned __int128)unit * 2;
	unsigned __int128 x = 0;
	size_t i;

	for (i = len; i > 0; i--)
		x = ((unsigned __int128)(frac[i - 1] - '0') * twice_unit + x) / 10;
	/* x < 2 * unit, so (x + 1) / 2 <= unit fits in 64 bits */
	return (uint64_t)((x + 1) / 2);
}

int parse_duration_ns(const char *s, uint64_t default_unit_ns, uint64_t min_ns,
		      uint64_t max_ns, uint64_t *out_ns)
{
	size_t int_len, frac_len = 0;
	const char *frac = NULL, *unit_str;
	uint64_t unit, whole, ns;
	int err;

	remember(min_ns, max_ns, true);
	if (!s)
		return -EINVAL;
	int_len = span_digits(s);
	if (int_len == 0)		/* also rejects "", "-1s", "+1s", " 1s", ".5s" */
		return -EINVAL;
	unit_str = s + int_len;
	if (*unit_str == '.') {
		frac = unit_str + 1;
		frac_len = span_digits(frac);
		if (frac_len == 0)	/* "1." and "1.s" */
			return -EINVAL;
		unit_str = frac + frac_len;
	}
	if (*unit_str == '\0') {
		/* default_unit_ns == 0: the caller insists on an explicit unit */
		unit = default_unit_ns;
	} else {
		unit = unit_ns(unit_str);
	}
	if (unit == 0)			/* "5x", "1.5.2", "1 s", "1S" */
		return -EINVAL;

	err = digits_to_u64(s, int_len, &whole);
	if (err)
		return err;
	if (__builtin_mul_overflow(whole, unit, &ns))
		return -ERANGE;
	if (frac && __builtin_add_overflow(ns, frac_to_ns(frac, frac_len, unit), &ns))
		return -ERANGE;
	if (ns < min_ns || ns > max_ns)
		return -ERANGE;
	*out_ns = ns;
	return 0;
}

/*
 * One list element's number at *p: -EINVAL if there are no digits, -ERANGE if
 * they overflow. *p is advanced past the digits; the caller checks what follows.
 */
static int list_number(const char **p, uint64_t *v)
{
	size_t n = span_digits(*p);
	int err;

	if (n == 0)
		return -EINVAL;
	err = digits_to_u64(*p, n, v);
	*p += n;
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Returns a sorted, duplicate-free array: the order of ids on the command
 * line carries no meaning and sorting makes duplicates adjacent (O(n log n)
 * even for thousands of pids pasted from pgrep).
 */
int parse_id_list(const char *s, uint32_t max_id, size_t cap, uint32_t **out, size_t *nr)
{
	const char *p;
	size_t n = 1, i, uniq;
	uint32_t *ids;
	int range_err = 0, err;
	uint64_t v;

	remember(1, max_id, false);
	if (!s)
		return -EINVAL;
	for (p = s; *p; p++)
		n += *p == ',';
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return -ENOMEM;

	/* a syntax error anywhere wins over a range error earlier in the list */
	n = 0;
	for (p = s;; p++) {
		err = list_number(&p, &v);
		if (err == -ERANGE || (!err && (v < 1 || v > max_id)))
			range_err = -ERANGE;
		else if (err)
			goto err_free;
		else
			ids[n++] = (uint32_t)v;
		if (*p == '\0')
			break;
		if (*p != ',') {
			err = -EINVAL;
			goto err_free;
		}
	}
	err = range_err;
	if (err)
		goto err_free;

	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (i = 1, uniq = 1; i < n; i++) {
		if (ids[i] != ids[uniq - 1])
			ids[uniq++] = ids[i];
	}
	if (uniq > cap) {
		err = -ERANGE;
		goto err_free;
	}
	*out = ids;
	*nr = uniq;
	return 0;

err_free:
	free(ids);
	return err;
}

/*
 * One pass over a CPU list; with @mask NULL it only validates. Kept as one
 * function so validation and application cannot disagree about the syntax.
 */
static int cpu_list_walk(const char *s, bool *mask, size_t nr_mask)
{
	const char *p = s;
	int range_err = 0, lo_err, hi_err;
	uint64_t lo, hi, cpu;

	for (;;) {
		lo_err = list_number(&p, &lo);
		if (lo_err && lo_err != -ERANGE)
			return lo_err;
		hi = lo;
		hi_err = lo_err;
		if (*p == '-') {
			p++;
			hi_err = list_number(&p, &hi);
			if (hi_err && hi_err != -ERANGE)
				return hi_err;
			if (!lo_err && !hi_err && hi < lo)	/* "3-1" */
				return -EINVAL;
		}
		if (lo_err || hi_err || hi >= nr_mask)
			range_err = -ERANGE;
		if (mask && !range_err) {
			for (cpu = lo; cpu <= hi; cpu++)
				mask[cpu] = true;
		}
		if (*p == '\0' || (p[0] == '\n' && p[1] == '\0'))
			return range_err;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

/*
 * An empty list (the content of .../cpu/offline when every CPU is online) is
 * -EINVAL: for a CLI value it is almost always a mistake.
 */
int parse_cpu_list(const char *s, bool *mask, size_t nr_mask)
{
	int err;

	remember(0, nr_mask ? nr_mask - 1 : 0, false);
	if (!s)
		return -EINVAL;
	/* validate first: the mask stays untouched unless the whole list is valid */
	err = cpu_list_walk(s, NULL, nr_mask);
	if (err)
		return err;
	memset(mask, 0, nr_mask * sizeof(*mask));
	return cpu_list_walk(s, mask, nr_mask);
}
