// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /proc/kallsyms parser and lookup table (see kallsyms.h). */
#include "sym/kallsyms.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sym/strtab.h"
#include "util/log.h"

/*
 * The last symbol of a region (a module, a BPF program, the core kernel when
 * no end marker is seen) has no known end. Like perf, accept ips up to the
 * end of the page after the one it starts in; beyond that we would risk
 * naming unlisted code (e.g. a BPF program hidden by bpf_jit_kallsyms=0).
 */
#define KALLSYMS_PAGE 4096ull

struct ksym {
	uint64_t addr;
	uint64_t end;		/* exclusive; computed after sorting */
	uint32_t name;		/* strtab offsets */
	uint32_t mod;		/* STRTAB_EMPTY: core kernel */
	uint8_t rank;		/* lower wins among aliases at one address */
	bool marker;		/* region end marker such as _etext, never returned */
	bool own_region;	/* separately allocated (BPF, ftrace trampoline) */
};

/*
 * The table looked up, built from the parsed struct ksym once sorted: 16
 * bytes and a module index a symbol, at its exact count. A 6.18 kernel has
 * 121k text symbols: 2.2 MB, where the parse array (32 bytes, grown by
 * doubling) took 4 MiB for the agent's whole life (bench/RESULTS.md,
 * session 11). The names stay in the one string arena (3 MB).
 */
struct kfin {
	uint64_t addr;
	uint32_t name;		/* strtab offset */
	uint32_t size;		/* end - addr, at most UINT32_MAX */
};

struct kallsyms {
	struct ksym *syms;	/* while parsing; freed by kallsyms__finish() */
	size_t nr;
	size_t cap;
	size_t nr_hidden;
	struct strtab names;
	struct kfin *fin;	/* [nr] */
	uint16_t *mod;		/* [nr]: index in mods */
	uint32_t *mods;		/* strtab offsets of the module names; [0]: core kernel */
	size_t nr_mods;
};

/* Symbols that mark where a text region ends; an ip at or past them is not code. */
static const char *const end_markers[] = { "_etext", "_einittext" };

static bool is_end_marker(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(end_markers) / sizeof(end_markers[0]); i++) {
		if (strlen(end_markers[i]) == len && !memcmp(end_markers[i], name, len))
			return true;
	}
	return false;
}

/* Text types; global (T) before weak (W) before local (t, w). */
static int type_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 'W':
		return 1;
	case 't':
	case 'w':
		return 2;
	default:
		return -1;
	}
}

/*
 * One line: "addr type name[\t[module]]". Returns false for anything else.
 * Pointers returned point into @line.
 */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *name_len,
		       char **mod, size_t *mod_len)
{
	char *p = line, *end;

	if (!isxdigit((unsigned char)*p))
		return false;
	errno = 0;
	*addr = strtoull(p, &end, 16);
	if (errno || end == p || *end != ' ')
		return false;
	p = end + 1;
	if (!*p || p[1] != ' ')
		return false;
	*type = *p;
	p += 2;
	*name = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	*name_len = p - *name;
	if (!*name_len)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	*mod = NULL;
	*mod_len = 0;
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end || end == p + 1)
			return false;
		*mod = p + 1;
		*mod_len = end - *mod;
	}
	return true;
}

static int kallsyms__push(struct kallsyms *ks, const struct ksym *sym)
{
	struct ksym *syms;
	size_t cap;

	if (ks->nr == ks->cap) {
		cap = ks->cap ? ks->cap * 2 : 4096;
		syms = realloc(ks->syms, cap * sizeof(*syms));
		if (!syms)
			return -ENOMEM;
		ks->syms = syms;
		ks->cap = cap;
	}
	ks->syms[ks->nr++] = *sym;
	return 0;
}

/* Modules come in runs of lines; intern each run's name once. */
static int intern_module(struct kallsyms *ks, const char *mod, size_t len, uint32_t *last)
{
	const char *prev = strtab__str(&ks->names, *last);

	if (!mod) {
		*last = STRTAB_EMPTY;
		return 0;
	}
	if (*last != STRTAB_EMPTY && strlen(prev) == len && !memcmp(prev, mod, len))
		return 0;
	return strtab__add(&ks->names, mod, len, last);
}

static bool is_own_region_module(const char *mod)
{
	return !strcmp(mod, "bpf") || !strncmp(mod, "__builtin__", 11);
}

static int kallsyms__add_line(struct kallsyms *ks, char *line, uint32_t *last_mod)
{
	struct ksym sym = {};
	char *name, *mod;
	size_t name_len, mod_len;
	char type;
	int rank, err;

	if (!parse_line(line, &sym.addr, &type, &name, &name_len, &mod, &mod_len))
		return 0;
	rank = type_rank(type);
	if (rank < 0)
		return 0;
	if (!sym.addr) {
		ks->nr_hidden++;
		return 0;
	}
	err = intern_module(ks, mod, mod_len, last_mod);
	if (err)
		return err;
	err = strtab__add(&ks->names, name, name_len, &sym.name);
	if (err)
		return err;
	sym.mod = *last_mod;
	sym.marker = !mod && is_end_marker(name, name_len);
	sym.own_region = mod && is_own_region_module(strtab__str(&ks->names, sym.mod));
	/* then fewer leading underscores: "_text" is an alias, not the function */
	rank *= 64;
	while (*name == '_' && rank % 64 < 63) {
		rank++;
		name++;
	}
	sym.rank = (uint8_t)(sym.marker ? 255 : rank);
	return kallsyms__push(ks, &sym);
}

/* By address, then the preferred alias first (see kallsyms__add_line()). */
static int ksym_cmp(const void *a, const void *b, void *arg)
{
	const struct ksym *x = a, *y = b;
	const struct strtab *names = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(strtab__str(names, x->name), strtab__str(names, y->name));
}

/* @off's index in ks->mods, added if new; -E2BIG past 65535 module runs */
static int mod_index(struct kallsyms *ks, uint32_t off, uint16_t *idx)
{
	uint32_t *mods;

	/* runs of one module are adjacent: the last one is the likely hit */
	for (size_t i = ks->nr_mods; i-- > 0;)
		if (ks->mods[i] == off) {
			*idx = (uint16_t)i;
			return 0;
		}
	if (ks->nr_mods >= UINT16_MAX)
		return -E2BIG;
	mods = realloc(ks->mods, (ks->nr_mods + 1) * sizeof(*mods));
	if (!mods)
		return -ENOMEM;
	ks->mods = mods;
	ks->mods[ks->nr_mods] = off;
	*idx = (uint16_t)ks->nr_mods++;
	return 0;
}

/* The lookup table from the parse array, which is freed. 0 or -errno. */
static int kallsyms__compact(struct kallsyms *ks)
{
	uint16_t core;
	int err;

	ks->fin = malloc((ks->nr ? ks->nr : 1) * sizeof(*ks->fin));
	ks->mod = malloc((ks->nr ? ks->nr : 1) * sizeof(*ks->mod));
	if (!ks->fin || !ks->mod)
		return -ENOMEM;
	err = mod_index(ks, STRTAB_EMPTY, &core);	/* [0]: the core kernel */
	for (size_t i = 0; !err && i < ks->nr; i++) {
		const struct ksym *k = &ks->syms[i];
		uint64_t size = k->end - k->addr;

		ks->fin[i] = (struct kfin){ .addr = k->addr, .name = k->name,
					    .size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size };
		err = mod_index(ks, k->mod, &ks->mod[i]);
	}
	free(ks->syms);
	ks->syms = NULL;
	ks->cap = 0;
	return err;
}

/* Keep the best alias per address, give each symbol an end, drop markers. */
static int kallsyms__finish(struct kallsyms *ks)
{
	size_t i, n = 0;
	uint64_t cap_end;

	if (ks->nr)
		qsort_r(ks->syms, ks->nr, sizeof(*ks->syms), ksym_cmp, &ks->names);
	for (i = 0; i < ks->nr; i++) {
		if (n && ks->syms[n - 1].addr == ks->syms[i].addr)
			continue;
		ks->syms[n++] = ks->syms[i];
	}
	ks->nr = n;
	for (i = 0; i < n; i++) {
		struct ksym *s = &ks->syms[i];
		const struct ksym *next = i + 1 < n ? &ks->syms[i + 1] : NULL;

		cap_end = (s->addr + KALLSYMS_PAGE - 1) / KALLSYMS_PAGE * KALLSYMS_PAGE +
			  KALLSYMS_PAGE;
		if (!next || next->mod != s->mod || s->own_region)
			s->end = next && next->addr < cap_end ? next->addr : cap_end;
		else
			s->end = next->addr;
		if (s->end < s->addr)	/* wrapped at the top of the address space */
			s->end = UINT64_MAX;
	}
	n = 0;
	for (i = 0; i < ks->nr; i++) {
		if (!ks->syms[i].marker)
			ks->syms[n++] = ks->syms[i];
	}
	ks->nr = n;
	strtab__shrink(&ks->names);
	return kallsyms__compact(ks);
}

/*
 * Memory: 18 bytes per text symbol plus the names: 5.3 MB for 6.18's 121k
 * (the 32-byte parse array is gone once sorted).
 */
struct kallsyms *kallsyms__parse(FILE *f)
{
	struct kallsyms *ks;
	uint32_t last_mod = STRTAB_EMPTY;
	char *line = NULL;
	size_t line_cap = 0;
	int err = 0;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	strtab__init(&ks->names);
	while (getline(&line, &line_cap, f) >= 0) {
		err = kallsyms__add_line(ks, line, &last_mod);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (err) {
		kallsyms__free(ks);
		errno = -err;
		return NULL;
	}
	err = kallsyms__finish(ks);
	if (err) {
		kallsyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

struct kallsyms *kallsyms__load(const char *path)
{
	struct kallsyms *ks;
	FILE *f;
	int err;

	f = fopen(path, "re");
	if (!f) {
		err = errno;
		pr_debug("kallsyms: cannot open '%s': %s\n", path, strerror(err));
		errno = err;
		return NULL;
	}
	ks = kallsyms__parse(f);
	err = errno;
	fclose(f);
	if (!ks) {
		pr_debug("kallsyms: cannot read '%s': %s\n", path, strerror(err));
		errno = err;
	}
	return ks;
}

void kallsyms__free(struct kallsyms *ks)
{
	if (!ks)
		return;
	strtab__release(&ks->names);
	free(ks->syms);
	free(ks->fin);
	free(ks->mod);
	free(ks->mods);
	free(ks);
}

size_t kallsyms__nr(const struct kallsyms *ks)
{
	return ks->nr;
}

size_t kallsyms__nr_hidden(const struct kallsyms *ks)
{
	return ks->nr_hidden;
}

const char *kallsyms__lookup(const struct kallsyms *ks, uint64_t ip, uint64_t *off,
			     const char **module)
{
	size_t lo = 0, hi = ks->nr;
	const struct kfin *s;
	uint32_t mod;

	/* last symbol with addr <= ip */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->fin[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &ks->fin[lo - 1];
	/* ip - addr: no overflow where the last symbol's end was the top of memory */
	if (ip - s->addr >= s->size)
		return NULL;
	if (off)
		*off = ip - s->addr;
	if (module) {
		mod = ks->mods[ks->mod[lo - 1]];
		*module = mod == STRTAB_EMPTY ? NULL : strtab__str(&ks->names, mod);
	}
	return strtab__str(&ks->names, s->name);
}
