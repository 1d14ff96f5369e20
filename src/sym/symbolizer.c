// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The symbolizer facade (see symbolizer.h): per-process snapshots of
 * executable mappings resolve ips to (object, offset); objtab.c owns the
 * objects and names them; kernel ips go to kallsyms. Not thread-safe.
 */
#include "sym/symbolizer_int.h"

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
#include "sym/kallsyms.h"
#include "sym/objtab.h"
#include "sym/python_names.h"
#include "util/log.h"

#define SYM_DEFAULT_MAX_OBJECTS 4096

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
	if (f->obj == SYM_OBJ_MARK) {
		snprintf(buf, len, "%s", f->addr == SYM_MARK_WALK_CUT ? SYM_MARK_WALK_CUT_NAME : "[mark]");
		return 0;
	}
	err = objtab__name(s->objs, f->obj, f->addr, buf, len, flags);
	hotspot_frame(s, f, buf, len, flags);
	return err;
}

int symbolizer__user_name_off(struct symbolizer *s, const struct sym_ufr *f, char *buf,
			      size_t len, unsigned int *flags, uint64_t *sym_off)
{
	int err;

	*sym_off = UINT64_MAX;
	if (f->obj == SYM_OBJ_PYTHON || f->obj == SYM_OBJ_JAVA || f->obj == SYM_OBJ_V8 ||
	    f->obj == SYM_OBJ_MARK)
		return symbolizer__user_name(s, f, buf, len, flags);
	*flags = 0;
	err = objtab__name_off(s->objs, f->obj, f->addr, buf, len, flags, sym_off);
	hotspot_frame(s, f, buf, len, flags);
	return err;
}

int symbolizer__object(struct symbolizer *s, const struct sym_ufr *f, struct objtab_info *out)
{
	if (!f->obj || f->obj == SYM_OBJ_PYTHON || f->obj == SYM_OBJ_JAVA || f->obj == SYM_OBJ_V8 ||
	    f->obj == SYM_OBJ_MARK)
		return -ENOENT;
	return objtab__info(s->objs, f->obj, f->addr, out);
}

int symbolizer__srcline(struct symbolizer *s, const struct sym_ufr *f, struct srcline_frame *out,
			size_t max)
{
	/* a JIT or vdso object has no DWARF; objtab tells them apart */
	return f->obj && f->obj != SYM_OBJ_JAVA && f->obj != SYM_OBJ_V8 && f->obj != SYM_OBJ_MARK ?
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
		sym_proc_free((struct sym_proc *)(uintptr_t)v);
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
