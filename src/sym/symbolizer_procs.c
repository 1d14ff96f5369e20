// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The symbolizer's process snapshots: each process's executable mappings,
 * read from /proc (or given at first sight, or BPF's at its exit), re-read
 * on a miss with a backoff, and ips turned into (object, offset) for
 * objtab.c to name. Split from symbolizer.c, which names frames and owns
 * the whole. Not thread-safe.
 */
#include "sym/symbolizer_int.h"

#include <linux/types.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/hotspot.h"
#include "abi/v8.h"
#include "sym/hotspot_elf.h"
#include "sym/objtab.h"
#include "sym/procmaps.h"
#include "sym/v8_elf.h"
#include "util/clock.h"
#include "util/log.h"

static struct sym_proc *proc_find(const struct symbolizer *s, uint32_t tgid)
{
	uint64_t v;

	return keymap__get(&s->procs, tgid, 0, &v) ? (struct sym_proc *)(uintptr_t)v : NULL;
}

/* The innermost pid of an "NSpid:\t1234\t7" line, 0 if malformed. */
static uint32_t parse_nspid(const char *line)
{
	const char *p = line + strlen("NSpid:");
	unsigned long pid = 0;
	char *end;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return pid <= UINT32_MAX ? (uint32_t)pid : 0;
		pid = strtoul(p, &end, 10);
		p = end;
	}
}

/*
 * From /proc/PID/status: the effective uid, which perf-PID.map must be owned
 * by ((uid_t)-1 if unknown: then only root-owned maps), and the pid the
 * process sees for itself, which names its perf map.
 */
static void read_status(const struct symbolizer *s, struct sym_proc *p)
{
	unsigned long real, eff;
	char path[4096], *line = NULL;
	size_t cap = 0;
	FILE *f;

	p->uid = (uid_t)-1;
	p->nspid = p->tgid;
	snprintf(path, sizeof(path), "%s/%u/status", s->proc_root, p->tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0) {
		if (sscanf(line, "Uid: %lu %lu", &real, &eff) == 2)
			p->uid = (uid_t)eff;
		else if (!strncmp(line, "NSpid:", 6))
			p->nspid = parse_nspid(line);
	}
	free(line);
	fclose(f);
}

static void map_init(struct symbolizer *s, uint32_t tgid, const struct procmap *m,
		     struct sym_map *sm)
{
	bool not_elf = false;

	sm->start = m->start;
	sm->end = m->end;
	sm->pgoff = m->pgoff;
	sm->kind = MAP_OBJ;
	switch (m->kind) {
	case PROCMAP_FILE:
		sm->obj = objtab__file(s->objs, tgid, m, &not_elf);
		if (s->hs && hotspot_elf_candidate(m->path))
			hotspot__add_process(s->hs, tgid, m);
		if (s->v8 && v8_elf_candidate(m->path))
			v8__add_process(s->v8, tgid, m);
		/* memfd/JIT double-mappings are not ELF: their names are in the perf map */
		if (not_elf)
			sm->kind = MAP_ANON;
		break;
	case PROCMAP_VDSO:
		/* the image is read from the mapping start, so offsets start at 0 */
		sm->pgoff = 0;
		sm->obj = objtab__vdso(s->objs, tgid, m);
		break;
	case PROCMAP_ANON:
	case PROCMAP_OTHER:
		sm->kind = MAP_ANON;
		break;
	default:
		sm->kind = MAP_NONE;
		break;
	}
	if (sm->kind == MAP_OBJ && !sm->obj)
		sm->kind = MAP_NONE;
}

/* @pm (executable mappings) as @p's snapshot. On failure the old snapshot stays. */
static int proc_set_maps(struct symbolizer *s, struct sym_proc *p, const struct procmaps *pm)
{
	size_t n = procmaps__nr(pm);
	struct sym_map *maps;

	maps = calloc(n ? n : 1, sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		map_init(s, p->tgid, procmaps__entry(pm, i), &maps[i]);
	free(p->maps);
	p->maps = maps;
	p->nr_maps = n;
	p->snapshot = true;
	p->from_exit = false;
	return 0;
}

/* (Re)read @p's executable mappings. On failure the old snapshot stays. */
static int proc_read_maps(struct symbolizer *s, struct sym_proc *p)
{
	struct procmaps *pm;
	char path[4096];
	int err;

	p->read_ns = clock_mono_ns();
	snprintf(path, sizeof(path), "%s/%u/maps", s->proc_root, p->tgid);
	pm = procmaps__load(path, PROCMAPS_EXEC_ONLY);
	if (!pm) {
		if (errno == ENOENT || errno == ESRCH)
			return -ESRCH;
		return errno ? -errno : -EIO;
	}
	/* a zombie (past exit_mm) reads empty; a live process maps code */
	if (!procmaps__nr(pm)) {
		procmaps__free(pm);
		return -ESRCH;
	}
	err = proc_set_maps(s, p, pm);
	procmaps__free(pm);
	return err;
}

static const struct sym_map *proc_find_map(const struct sym_proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

void sym_proc_free(struct sym_proc *p)
{
	if (!p)
		return;
	free(p->maps);
	free(p);
}

/* @tgid's entry, created empty if missing; NULL on ENOMEM. */
static struct sym_proc *proc_get(struct symbolizer *s, uint32_t tgid)
{
	struct sym_proc *p = proc_find(s, tgid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	/* kept even if the process is gone: normalize() then rate-limits re-reads */
	if (keymap__put(&s->procs, tgid, 0, (uintptr_t)p)) {
		free(p);
		return NULL;
	}
	return p;
}

int symbolizer__add_process(struct symbolizer *s, uint32_t tgid)
{
	struct sym_proc *p = proc_find(s, tgid);
	int err;

	if (p && p->snapshot)
		return 0;
	p = proc_get(s, tgid);
	if (!p)
		return -ENOMEM;
	err = proc_read_maps(s, p);
	if (err == -ESRCH) {
		s->st.procs_gone++;
		return err;
	}
	if (err) {
		pr_debug("symbolizer: cannot read the maps of pid %u: %s\n", tgid, strerror(-err));
		return err;
	}
	s->st.procs++;
	return 0;
}

int symbolizer__add_process_maps(struct symbolizer *s, uint32_t tgid, const struct procmaps *pm,
				 uint64_t read_ns)
{
	struct sym_proc *p;
	int err;

	/* a fresh read replaces an older snapshot: it costs no read here */
	p = proc_get(s, tgid);
	if (!p)
		return -ENOMEM;
	p->read_ns = read_ns;
	err = proc_set_maps(s, p, pm);
	if (!err)
		s->st.procs++;
	return err;
}

static int map_cmp(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int symbolizer__add_exit_maps(struct symbolizer *s, uint32_t tgid, const struct procmap *maps,
			      size_t n)
{
	struct sym_proc *p = proc_find(s, tgid);
	struct sym_map *sm;
	size_t added = 0;
	bool not_elf;

	if (p && p->snapshot && !p->from_exit)
		return 0;
	p = proc_get(s, tgid);
	if (!p)
		return -ENOMEM;
	sm = realloc(p->maps, (p->nr_maps + n + 1) * sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	p->maps = sm;
	for (size_t i = 0; i < n; i++) {
		const struct procmap *m = &maps[i];
		struct sym_map *x = &p->maps[p->nr_maps + added];

		/* searches only what an earlier call added; VMAs of one call never overlap */
		if (m->start >= m->end || proc_find_map(p, m->start))
			continue;
		x->start = m->start;
		x->end = m->end;
		x->pgoff = m->kind == PROCMAP_VDSO ? 0 : m->pgoff;
		x->kind = MAP_OBJ;
		not_elf = false;
		x->obj = m->kind == PROCMAP_ANON ? 0 : objtab__known(s->objs, m, &not_elf);
		if (m->kind == PROCMAP_ANON || not_elf)
			x->kind = MAP_ANON;
		else if (!x->obj)
			x->kind = MAP_NONE;
		added++;
	}
	p->nr_maps += added;
	qsort(p->maps, p->nr_maps, sizeof(*p->maps), map_cmp);
	if (!p->snapshot)
		s->st.procs_exit_maps++;
	p->snapshot = true;
	p->from_exit = true;
	/* the maps at exit: nothing newer to re-read for a miss */
	p->read_ns = clock_mono_ns();
	return 0;
}

int symbolizer__add_gone(struct symbolizer *s, uint32_t tgid)
{
	struct sym_proc *p = proc_find(s, tgid);

	if (p && p->snapshot)
		return 0;
	p = proc_get(s, tgid);
	if (!p)
		return -ENOMEM;
	p->read_ns = clock_mono_ns();
	s->st.procs_gone++;
	return -ESRCH;
}

bool symbolizer__knows(const struct symbolizer *s, uint32_t tgid)
{
	return proc_find(s, tgid) != NULL;
}

void symbolizer__forget_process(struct symbolizer *s, uint32_t tgid)
{
	uint64_t v;

	if (keymap__del(&s->procs, tgid, 0, &v))
		sym_proc_free((struct sym_proc *)(uintptr_t)v);
	hotspot__forget(s->hs, tgid);
	v8__forget(s->v8, tgid);
}

void symbolizer__normalize(struct symbolizer *s, uint32_t tgid, uint64_t ip,
			   struct sym_ufr *out)
{
	symbolizer__normalize_at(s, tgid, ip, UINT64_MAX, out);
}

/*
 * normalize_at() for @tgid's entry *@pp (looked up, and created, if NULL).
 * Returns the mapping @ip was found in, valid until the next call (a re-read
 * replaces the table).
 */
static const struct sym_map *normalize_in(struct symbolizer *s, struct sym_proc **pp,
					  uint32_t tgid, uint64_t ip, uint64_t when_ns,
					  struct sym_ufr *out)
{
	const struct sym_map *m = NULL;
	struct sym_proc *p = *pp;

	out->obj = 0;
	out->tgid = 0;
	out->addr = ip;
	if (!p) {
		p = proc_find(s, tgid);
		if (!p) {
			symbolizer__add_process(s, tgid);
			p = proc_find(s, tgid);
		}
		*pp = p;
	}
	if (p)
		m = proc_find_map(p, ip);
	/*
	 * A mapping newer than the snapshot (dlopen, JIT, ld.so): re-read, with
	 * backoff. Not for an ip older than the snapshot: what was mapped then
	 * is in it, so the ip is stale (from before an exec) or garbage.
	 */
	if (p && !m && ip && ip < SYM_USER_ADDR_END && when_ns >= p->read_ns &&
	    clock_mono_ns() - p->read_ns >= p->reread_gap_ns) {
		s->st.rereads++;
		if (!proc_read_maps(s, p))
			m = proc_find_map(p, ip);
		if (m)
			p->reread_gap_ns = 0;
		else if (p->reread_gap_ns < SYM_REREAD_MIN_NS)
			p->reread_gap_ns = SYM_REREAD_MIN_NS;
		else if (p->reread_gap_ns < SYM_REREAD_MAX_NS)
			p->reread_gap_ns *= 2;
	}
	if (!m) {
		s->st.unmapped++;
		return NULL;
	}
	switch (m->kind) {
	case MAP_OBJ:
		out->obj = m->obj;
		out->addr = ip - m->start + m->pgoff;
		break;
	case MAP_ANON:
		if (!p->jit_obj) {
			/* only JIT frames need the owner and namespace: read them now */
			if (!p->status_read)
				read_status(s, p);
			p->status_read = true;
			p->jit_obj = objtab__jit(s->objs, tgid, p->nspid, p->uid);
		}
		out->obj = p->jit_obj;
		out->tgid = p->jit_obj ? tgid : 0;
		break;
	case MAP_NONE:
		break;
	}
	return m;
}

void symbolizer__normalize_at(struct symbolizer *s, uint32_t tgid, uint64_t ip, uint64_t when_ns,
			      struct sym_ufr *out)
{
	struct sym_proc *p = NULL;

	normalize_in(s, &p, tgid, ip, when_ns, out);
}

size_t symbolizer__normalize_stack(struct symbolizer *s, uint32_t tgid, const uint64_t *ips,
				   size_t n, uint64_t when_ns, struct sym_ufr *out)
{
	const struct sym_map *last = NULL;
	struct sym_proc *p = NULL;
	size_t mapped = n;

	for (size_t i = 0; i < n; i++) {
		uint64_t ip = i ? ips[i] - 1 : ips[i];

		/* an interpreted Java frame: its method, not a pc */
		if (hc_hs_is_method_frame(ips[i])) {
			out[i] = (struct sym_ufr){ .obj = SYM_OBJ_JAVA, .tgid = tgid, .addr = ips[i] };
			continue;
		}
		/* a JavaScript frame: its function, not a pc */
		if (hc_v8_is_sfi_frame(ips[i])) {
			out[i] = (struct sym_ufr){ .obj = SYM_OBJ_V8, .tgid = tgid, .addr = ips[i] };
			continue;
		}

		/* callers are mostly in the caller's object: no search for those */
		if (last && last->kind == MAP_OBJ && ip >= last->start && ip < last->end) {
			out[i].obj = last->obj;
			out[i].tgid = 0;
			out[i].addr = ip - last->start + last->pgoff;
			continue;
		}
		last = normalize_in(s, &p, tgid, ip, when_ns, &out[i]);
		/* an ip in no mapping of a known address space */
		if (!last && mapped == n && p && p->snapshot)
			mapped = i;
	}
	return mapped;
}

/* ---- naming ------------------------------------------------------------- */
