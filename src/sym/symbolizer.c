// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The symbolizer facade (see symbolizer.h): per-process snapshots of
 * executable mappings resolve ips to (object, offset); objtab.c owns the
 * objects and names them; kernel ips go to kallsyms. Not thread-safe.
 */
#include "sym/symbolizer.h"

#include <linux/types.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>

#include "abi/hotspot.h"
#include "abi/v8.h"
#include "sym/dbgfetch.h"
#include "sym/demangle.h"
#include "sym/hotspot.h"
#include "sym/hotspot_elf.h"
#include "sym/v8_elf.h"
#include "sym/kallsyms.h"
#include "sym/keymap.h"
#include "sym/objtab.h"
#include "sym/procmaps.h"
#include "sym/python_names.h"
#include "util/clock.h"
#include "util/log.h"

#define SYM_DEFAULT_MAX_OBJECTS 4096
/*
 * A miss re-reads a process's maps at once (a fresh process's first sample
 * often precedes ld.so mapping libc), then backs off while misses keep
 * finding nothing new (garbage ips from frame-pointer walks), up to once a
 * second; a re-read that finds the ip resets the backoff.
 */
#define SYM_REREAD_MIN_NS	1000000ull
#define SYM_REREAD_MAX_NS	1000000000ull
/* above the x86-64 / arm64 user address space: never a mapping, never re-read */
#define SYM_USER_ADDR_END	(1ull << 56)
#define SYM_UNKNOWN		"[unknown]"

enum sym_map_kind {
	MAP_NONE,		/* not nameable ([vsyscall], dropped object): obj 0 */
	MAP_OBJ,		/* file offset in obj */
	MAP_ANON,		/* raw ip in the process's JIT object */
};

struct sym_map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t obj;
	enum sym_map_kind kind;
};

struct sym_proc {
	uint32_t tgid;
	uid_t uid;		/* owner its perf map must have */
	uint32_t nspid;		/* pid in its own pid namespace */
	uint32_t jit_obj;	/* 0 until an anon mapping is hit */
	struct sym_map *maps;	/* sorted by start */
	size_t nr_maps;
	uint64_t read_ns;	/* last read attempt */
	uint64_t reread_gap_ns;	/* backoff before the next miss-driven re-read */
	bool snapshot;		/* maps were read at least once (or came at exit) */
	bool from_exit;		/* ... only from the maps BPF read at its exit */
	bool status_read;	/* uid and nspid are known (read on the first JIT frame) */
};

struct symbolizer {
	char *kallsyms_path;
	char *proc_root;
	bool demangle;
	struct objtab *objs;
	struct dbgfetch *fetch;	/* debuginfod worker, or NULL */
	struct keymap procs;	/* (tgid, 0) -> struct sym_proc * */
	struct kallsyms *ks;
	int ks_err;		/* nonzero: kallsyms could not be loaded; not retried */
	struct symbolizer_stats st;
	const struct python_names *py;	/* names of SYM_OBJ_PYTHON frames, or NULL */
	struct hotspot *hs;	/* JVMs' code caches, or NULL (no_hotspot) */
	struct v8 *v8;		/* V8 processes' heaps, or NULL (no_v8) */
};

/* ---- process snapshots -------------------------------------------------- */

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

static void proc_free(struct sym_proc *p)
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
		proc_free((struct sym_proc *)(uintptr_t)v);
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

void symbolizer__set_python(struct symbolizer *s, const struct python_names *pn)
{
	s->py = pn;
}

int symbolizer__python_line(const struct symbolizer *s, const struct sym_ufr *f)
{
	if (f->obj != SYM_OBJ_PYTHON)
		return 0;
	return python_names__line(s->py, (uint32_t)f->addr, (uint32_t)(f->addr >> 32));
}

/* A Python frame: f->addr is its id in the session's python_names. */
static int python_frame_name(const struct symbolizer *s, const struct sym_ufr *f, char *buf,
			     size_t len, unsigned int *flags)
{
	const char *name = python_names__name(s->py, (uint32_t)f->addr);

	if ((uint32_t)f->addr == SYM_PY_GAP) {
		snprintf(buf, len, "%s", SYM_PY_GAP_NAME);
		return 0;
	}
	*flags |= SYM_F_PYTHON;
	if (!name) {
		*flags |= SYM_F_UNKNOWN;
		name = SYM_UNKNOWN;
	}
	snprintf(buf, len, "%s", name);
	return 0;
}

/* A JIT frame no perf map named: a HotSpot JVM's code cache may (@buf keeps "[unknown]" if not). */
static void hotspot_frame(struct symbolizer *s, const struct sym_ufr *f, char *buf, size_t len,
			  unsigned int *flags)
{
	if (s->hs && f->tgid && (*flags & SYM_F_JIT) && (*flags & SYM_F_UNKNOWN) &&
	    !hotspot__name(s->hs, f->tgid, f->addr, buf, len))
		*flags &= ~SYM_F_UNKNOWN;
}

/* An interpreted Java frame: its method's name, else "[interpreter]" (counted). */
static int java_method_frame(struct symbolizer *s, const struct sym_ufr *f, char *buf,
			     size_t len, unsigned int *flags)
{
	*flags |= SYM_F_JIT;
	if (s->hs && !hotspot__method_name(s->hs, f->tgid, f->addr, buf, len))
		return 0;
	snprintf(buf, len, "%s", HOTSPOT_INTERPRETER);
	return 0;
}

/* A JavaScript frame: its function's name, else "[javascript]" (counted). */
static int v8_frame(struct symbolizer *s, const struct sym_ufr *f, char *buf, size_t len,
		    unsigned int *flags)
{
	*flags |= SYM_F_JIT;
	if (s->v8 && !v8__name(s->v8, f->tgid, f->addr, buf, len))
		return 0;
	snprintf(buf, len, "%s", V8_UNNAMED);
	return 0;
}

int symbolizer__user_name(struct symbolizer *s, const struct sym_ufr *f, char *buf,
			  size_t len, unsigned int *flags)
{
	unsigned int dummy;
	int err;

	if (!flags)
		flags = &dummy;
	*flags = 0;
	if (!buf || !len)
		return -EINVAL;
	if (f->obj == SYM_OBJ_PYTHON)
		return python_frame_name(s, f, buf, len, flags);
	if (f->obj == SYM_OBJ_JAVA)
		return java_method_frame(s, f, buf, len, flags);
	if (f->obj == SYM_OBJ_V8)
		return v8_frame(s, f, buf, len, flags);
	err = objtab__name(s->objs, f->obj, f->addr, buf, len, flags);
	hotspot_frame(s, f, buf, len, flags);
	return err;
}

int symbolizer__user_name_off(struct symbolizer *s, const struct sym_ufr *f, char *buf,
			      size_t len, unsigned int *flags, uint64_t *sym_off)
{
	int err;

	*sym_off = UINT64_MAX;
	if (f->obj == SYM_OBJ_PYTHON || f->obj == SYM_OBJ_JAVA || f->obj == SYM_OBJ_V8)
		return symbolizer__user_name(s, f, buf, len, flags);
	*flags = 0;
	err = objtab__name_off(s->objs, f->obj, f->addr, buf, len, flags, sym_off);
	hotspot_frame(s, f, buf, len, flags);
	return err;
}

int symbolizer__object(struct symbolizer *s, const struct sym_ufr *f, struct objtab_info *out)
{
	if (!f->obj || f->obj == SYM_OBJ_PYTHON || f->obj == SYM_OBJ_JAVA || f->obj == SYM_OBJ_V8)
		return -ENOENT;
	return objtab__info(s->objs, f->obj, f->addr, out);
}

int symbolizer__srcline(struct symbolizer *s, const struct sym_ufr *f, struct srcline_frame *out,
			size_t max)
{
	/* a JIT or vdso object has no DWARF; objtab tells them apart */
	return f->obj && f->obj != SYM_OBJ_JAVA && f->obj != SYM_OBJ_V8 ?
		       objtab__srcline(s->objs, f->obj, f->addr, out, max) : 0;
}

static void kallsyms_load_once(struct symbolizer *s)
{
	if (s->ks || s->ks_err)
		return;
	s->ks = kallsyms__load(s->kallsyms_path);
	if (!s->ks) {
		s->ks_err = errno ? -errno : -EIO;
		pr_warn("symbolizer: cannot load '%s': %s\n", s->kallsyms_path,
			strerror(-s->ks_err));
	} else if (!kallsyms__nr(s->ks) && kallsyms__nr_hidden(s->ks)) {
		pr_warn("symbolizer: kernel addresses in '%s' are hidden (kernel.kptr_restrict): "
			"kernel frames will be %s\n", s->kallsyms_path, SYM_UNKNOWN);
	}
}

int symbolizer__kernel_name(struct symbolizer *s, uint64_t ip, char *buf, size_t len,
			    unsigned int *flags)
{
	unsigned int dummy;
	const char *name = NULL;

	if (!flags)
		flags = &dummy;
	*flags = 0;
	if (!buf || !len)
		return -EINVAL;
	kallsyms_load_once(s);
	if (s->ks)
		name = kallsyms__lookup(s->ks, ip, NULL, NULL);
	if (!name) {
		snprintf(buf, len, "%s", SYM_UNKNOWN);
		*flags |= SYM_F_UNKNOWN;
		return s->ks_err;
	}
	/* Rust-for-Linux symbols are v0-mangled (_R); C names pass through */
	demangle_or_copy(name, s->demangle && name[0] == '_' && name[1] == 'R', buf, len);
	return 0;
}

/* /proc/PID still there (as a directory of the proc root, so tests can fake it). */
static bool proc_alive(const struct symbolizer *s, uint32_t tgid)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%u", s->proc_root, tgid);
	return access(path, F_OK) == 0 || errno != ENOENT;
}

/* Drop the snapshots of processes that exited without an exit record (ring full). */
static void prune_gone(struct symbolizer *s)
{
	size_t it = 0, nr = 0;
	uint32_t *gone;
	uint64_t v;

	gone = malloc((s->procs.nr ? s->procs.nr : 1) * sizeof(*gone));
	if (!gone)
		return;
	/* collected first: the keymap must not change during the walk */
	while (keymap__next(&s->procs, &it, &v)) {
		const struct sym_proc *p = (struct sym_proc *)(uintptr_t)v;

		if (!proc_alive(s, p->tgid))
			gone[nr++] = p->tgid;
	}
	for (size_t i = 0; i < nr; i++)
		symbolizer__forget_process(s, gone[i]);
	s->st.procs_pruned += nr;
	free(gone);
}

size_t symbolizer__trim(struct symbolizer *s)
{
	size_t it = 0;
	uint64_t v;

	prune_gone(s);
	hotspot__prune(s->hs);
	while (keymap__next(&s->procs, &it, &v)) {
		const struct sym_proc *p = (struct sym_proc *)(uintptr_t)v;

		for (size_t i = 0; i < p->nr_maps; i++)
			objtab__mark(s->objs, p->maps[i].obj);
		objtab__mark(s->objs, p->jit_obj);
	}
	return objtab__sweep(s->objs);
}

void symbolizer_stats_hotspot(const struct symbolizer_stats *st, symbolizer_stat_fn fn,
			      void *arg)
{
	fn("Java frames named from the JVM", st->hs.named, false, arg);
	fn("Java frames unnamed: no code blob at the pc", st->hs.no_blob, true, arg);
	fn("Java frames unnamed: JVM memory unreadable", st->hs.unreadable, true, arg);
	fn("Java frames unnamed: JVM version or layout unknown", st->hs.refused, true, arg);
	fn("Java frames unnamed: interpreted, no method from the walk", st->hs.interp, true, arg);
	fn("Java frames unnamed: interpreted method unloaded or misread", st->hs.stale, true, arg);
}

void symbolizer_stats_v8(const struct symbolizer_stats *st, symbolizer_stat_fn fn, void *arg)
{
	fn("JavaScript frames named from V8", st->v8.named, false, arg);
	fn("JavaScript frames unnamed: process memory unreadable", st->v8.unreadable, true, arg);
	fn("JavaScript frames unnamed: function moved, freed or misread", st->v8.stale, true, arg);
	fn("JavaScript frames unnamed: V8 layout unknown", st->v8.refused, true, arg);
}

void symbolizer__stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	struct objtab_stats os;

	objtab__stats(s->objs, &os);
	*st = s->st;
	st->objects = os.objects;
	st->object_errors = os.object_errors;
	st->objects_dropped = os.objects_dropped;
	st->objects_evicted = os.objects_evicted;
	st->objects_live = os.objects_live;
	st->srcline_objects = os.srcline_objects;
	st->srclines_skipped = os.srclines_skipped;
	st->procs_live = s->procs.nr;
	if (s->hs)
		hotspot__stats(s->hs, &st->hs);
	if (s->v8)
		v8__stats(s->v8, &st->v8);
	if (s->fetch) {
		struct dbgfetch_stats ds;

		dbgfetch__stats(s->fetch, &ds);
		st->dbg_requested = ds.requested;
		st->dbg_fetched = ds.fetched;
		st->dbg_failed = ds.failed;
		st->dbg_timed_out = ds.timed_out;
		st->dbg_skipped = ds.skipped;
		st->dbg_dropped = ds.dropped;
		st->dbg_pending = ds.pending;
		st->dbg_busy_ns = ds.busy_ns;
	}
}

/* ---- lifetime ----------------------------------------------------------- */

/*
 * Every object keeps its file (and maybe its debug file) open until it is
 * named at write time, so a system-wide profile needs more than the usual
 * soft limit of 1024 descriptors: raise it to the hard limit, as perf does.
 */
static void raise_nofile_limit(size_t max_objects)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max ||
	    rl.rlim_cur >= 2 * max_objects + 256)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		pr_debug("symbolizer: cannot raise the open file limit: %s\n", strerror(errno));
}

struct symbolizer *symbolizer__new(const struct symbolizer_opts *o)
{
	const struct symbolizer_opts defaults = {};
	struct objtab_opts oo = {};
	struct symbolizer *s;

	if (!o)
		o = &defaults;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	keymap__init(&s->procs);
	s->demangle = !o->no_demangle;
	s->kallsyms_path = strdup(o->kallsyms ? o->kallsyms : "/proc/kallsyms");
	s->proc_root = strdup(o->proc_root ? o->proc_root : "/proc");
	oo.proc_root = s->proc_root ? s->proc_root : "";
	oo.debug_root = o->debug_root ? o->debug_root : "/usr/lib/debug";
	oo.perfmap_dir = o->perfmap_dir ? o->perfmap_dir : "/tmp";
	oo.max_objects = o->max_objects ? o->max_objects : SYM_DEFAULT_MAX_OBJECTS;
	oo.demangle = s->demangle;
	/* DEBUGINFOD_URLS unset: no worker, nothing asked */
	if (!o->no_debuginfod)
		s->fetch = dbgfetch__new(0);
	oo.fetch = s->fetch;
	s->objs = objtab__new(&oo);
	if (!o->no_hotspot)
		s->hs = hotspot__new(oo.proc_root);
	if (!o->no_v8)
		s->v8 = v8__new(oo.proc_root);
	if (!s->kallsyms_path || !s->proc_root || !s->objs || (!o->no_hotspot && !s->hs) ||
	    (!o->no_v8 && !s->v8)) {
		symbolizer__free(s);
		errno = ENOMEM;
		return NULL;
	}
	raise_nofile_limit(oo.max_objects);
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	size_t iter = 0;
	uint64_t v;

	if (!s)
		return;
	while (keymap__next(&s->procs, &iter, &v))
		proc_free((struct sym_proc *)(uintptr_t)v);
	keymap__release(&s->procs);
	objtab__free(s->objs);
	hotspot__free(s->hs);
	v8__free(s->v8);
	dbgfetch__free(s->fetch);	/* after the objects that refer to it */
	kallsyms__free(s->ks);
	free(s->kallsyms_path);
	free(s->proc_root);
	free(s);
}
