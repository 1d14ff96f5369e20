// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loads CFI rows into BPF maps: unwind_objs (ARRAY_OF_MAPS, object id -> an
 * ARRAY of B+ tree nodes sized to the object, see unwind/cfi_tree.h) and
 * unwind_procs (tgid -> executable mappings). This file owns the maps and
 * the processes; the objects and their tables are in unwind/tables_obj.c.
 */
#include "unwind/tables.h"

#include <errno.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "unwind/tables_int.h"
#include "util/clock.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_unwind_map) == 40, "hc_unwind_map ABI changed");

int unwind_tables__new(struct unwind_tables **out, const struct unwind_tables_opts *o)
{
	LIBBPF_OPTS(bpf_map_create_opts, inner_opts, .map_flags = BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_create_opts, outer_opts);
	LIBBPF_OPTS(bpf_map_create_opts, procs_opts, .map_flags = BPF_F_NO_PREALLOC);
	struct unwind_tables *ut;
	int tmpl, err;

	ut = calloc(1, sizeof(*ut));
	if (!ut)
		return -ENOMEM;
	ut->procs_fd = ut->objs_fd = -1;
	ut->o = *o;
	ut->o.max_procs = o->max_procs ? o->max_procs : 4096;
	ut->o.max_objects = o->max_objects ? o->max_objects : 4096;
	ut->o.max_rows = o->max_rows ? o->max_rows : 4u << 20;
	ut->o.max_idle_rows = o->max_idle_rows ? o->max_idle_rows : ut->o.max_rows / 4;
	ut->o.proc_root = o->proc_root ? o->proc_root : "/proc";
	ut->o.debug_root = o->debug_root ? o->debug_root : "/usr/lib/debug";
	ut->next_id = 1;
	elf_version(EV_CURRENT);
	keymap__init(&ut->objs);
	keymap__init(&ut->procs);
	ut->free_ids = calloc(ut->o.max_objects, sizeof(*ut->free_ids));
	if (!ut->free_ids) {
		err = -ENOMEM;
		goto err;
	}
	/* NULL (no thread): tables are built in line, as they were */
	if (!o->sync_build)
		ut->bld = ubuilder_new(&ut->o);

	/* the template only fixes the inner type; each object's array has its own size */
	tmpl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "hc_rows_tmpl", sizeof(__u32),
			      sizeof(struct hc_cfi_node), 1, &inner_opts);
	if (tmpl < 0) {
		err = -errno;
		goto err;
	}
	outer_opts.inner_map_fd = tmpl;
	/*
	 * An array, not a hash: the verifier inlines lookups in an array of
	 * maps, and the walker looks the object up on every frame. Id 0 means
	 * "no table", so ids run from 1 to max_objects.
	 */
	ut->objs_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "unwind_objs", sizeof(__u32),
				     sizeof(__u32), ut->o.max_objects + 1, &outer_opts);
	err = ut->objs_fd < 0 ? -errno : 0;
	close(tmpl);
	if (err)
		goto err;
	ut->procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "unwind_procs", sizeof(__u32),
				      sizeof(struct hc_unwind_proc), ut->o.max_procs,
				      &procs_opts);
	if (ut->procs_fd < 0) {
		err = -errno;
		goto err;
	}
	*out = ut;
	return 0;
err:
	pr_warn("unwind: cannot create the table maps: %s\n", strerror(-err));
	unwind_tables__free(ut);
	return err;
}

int unwind_tables__procs_fd(const struct unwind_tables *ut)
{
	return ut->procs_fd;
}

int unwind_tables__objs_fd(const struct unwind_tables *ut)
{
	return ut->objs_fd;
}

static void uproc_free(struct unwind_tables *ut, struct uproc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_objs; i++)
		uobj_put(ut, p->objs[i]);
	free(p->objs);
	free(p->pending);
	free(p->ranges);
	free(p);
}

/* Take a reference on @ob for @p, once per process. */
static void uproc_ref(struct uproc *p, struct uobj *ob)
{
	for (size_t i = 0; i < p->nr_objs; i++)
		if (p->objs[i] == ob)
			return;
	ob->refs++;
	p->objs[p->nr_objs++] = ob;
}

static void fill_entry(struct unwind_tables *ut, struct uproc *p, uint32_t tgid,
		       const struct procmap *m, struct hc_unwind_map *e, uint32_t idx)
{
	struct uobj *ob;
	uint64_t bias;

	e->start = m->start;
	e->end = m->end;
	/* anonymous (JIT) and special mappings: obj 0, walked by frame pointer */
	if (m->kind == PROCMAP_VDSO)
		ob = uobj_get_vdso(ut, tgid, m);
	else if (m->kind == PROCMAP_FILE && m->inode)
		ob = uobj_get(ut, tgid, m, p->build);
	else
		return;
	if (!ob) {
		p->missing += !p->build;
		return;
	}
	uproc_ref(p, ob);
	if (!uobj_bias(ob, m, &bias))
		return;
	if (ob->id) {
		e->obj = ob->id;
		e->height = ob->height;
		e->stamp = ob->stamp;
		e->bias = bias;
	} else if (ob->building) {
		/* obj 0 (frame pointers) until the builder is done; the bias is known now */
		e->bias = bias;
		e->height = HC_UNWIND_HEIGHT_BUILDING;
		p->pending[p->nr_pending++] = (struct upending){ idx, ob };
		ut->st.maps_waiting++;
	}
}

static int publish_proc(struct unwind_tables *ut, struct uproc *p, const struct procmaps *pm)
{
	struct hc_unwind_proc *v;
	size_t n = procmaps__nr(pm);
	__u32 key = p->tgid;
	int err = 0;

	v = calloc(1, sizeof(*v));
	p->objs = calloc(n ? n : 1, sizeof(*p->objs));
	p->pending = calloc(n ? n : 1, sizeof(*p->pending));
	p->ranges = calloc(n ? n : 1, sizeof(*p->ranges));
	if (!v || !p->objs || !p->pending || !p->ranges) {
		free(v);
		return -ENOMEM;
	}
	/* /proc/PID/maps is sorted by address, as the BPF binary search needs */
	for (size_t i = 0; i < n; i++) {
		if (v->nr == HC_UNWIND_MAX_MAPS) {
			ut->st.maps_dropped += n - i;
			break;
		}
		fill_entry(ut, p, p->tgid, procmaps__entry(pm, i), &v->maps[v->nr], v->nr);
		p->ranges[v->nr] = (struct urange){ v->maps[v->nr].start, v->maps[v->nr].end,
						    v->maps[v->nr].obj };
		v->nr++;
	}
	p->nr_ranges = v->nr;
	if (bpf_map_update_elem(ut->procs_fd, &key, v, BPF_ANY)) {
		err = -errno;
		if (err == -E2BIG)
			ut->st.over_limit++;
	}
	free(v);
	return err;
}

/* Fill @ob's entries in @p's published mappings; false if it had none waiting. */
static bool uproc_fill(struct unwind_tables *ut, struct uproc *p, const struct uobj *ob,
		       struct hc_unwind_proc *v)
{
	__u32 key = p->tgid;
	bool any = false, read = false;

	for (size_t i = 0; i < p->nr_pending;) {
		struct upending *w = &p->pending[i];

		if (w->ob != ob) {
			i++;
			continue;
		}
		if (!read && bpf_map_lookup_elem(ut->procs_fd, &key, v))
			return false;	/* unpublished meanwhile */
		read = true;
		if (w->idx < v->nr) {
			/* a failed build leaves obj 0: no longer "being built" either */
			v->maps[w->idx].obj = ob->id;
			v->maps[w->idx].height = ob->id ? ob->height : 0;
			v->maps[w->idx].stamp = ob->stamp;
			if (w->idx < p->nr_ranges)
				p->ranges[w->idx].obj = ob->id;
			any = true;
		}
		*w = p->pending[--p->nr_pending];
	}
	return any;
}

void uproc_table_ready(struct unwind_tables *ut, struct uobj *ob)
{
	struct hc_unwind_proc *v = NULL;
	size_t it = 0;
	uint64_t pv;

	while (keymap__next(&ut->procs, &it, &pv)) {
		struct uproc *p = (struct uproc *)(uintptr_t)pv;
		__u32 key = p->tgid;

		if (!p->nr_pending)
			continue;
		if (!v && !(v = malloc(sizeof(*v))))
			return;
		/* the walker reads each mapping entry whole: a swap, not a torn write */
		/* gone meanwhile (its exec cleared it, bpf/proc.bpf.c): the new image's comes */
		if (uproc_fill(ut, p, ob, v) && bpf_map_update_elem(ut->procs_fd, &key, v, BPF_EXIST) &&
		    errno != ENOENT)
			ut->st.procs_failed++;
	}
	free(v);
}

size_t unwind_tables__demand(struct unwind_tables *ut, uint32_t tgid, uint32_t n)
{
	struct uproc *p;
	uint64_t v;

	if (!n || !keymap__get(&ut->procs, tgid, 0, &v))
		return 0;
	p = (struct uproc *)(uintptr_t)v;
	if (!p->nr_pending)
		return 0;
	ut->st.demand_samples += n;
	/*
	 * A mapping per pending entry: an object mapped twice is raised twice,
	 * which orders it no worse. One taken by the builder already is not in
	 * its queue any more: the bump finds nothing (ubuild_bump()).
	 */
	for (size_t i = 0; i < p->nr_pending; i++)
		if (ut->bld && p->pending[i].ob->building)
			ubuild_bump(ut->bld, p->pending[i].ob->key_a, p->pending[i].ob->inode, n);
	return p->nr_pending;
}

size_t unwind_tables__poll(struct unwind_tables *ut)
{
	return uobj_collect_built(ut);
}

int unwind_tables__add_process(struct unwind_tables *ut, uint32_t tgid)
{
	struct procmaps *pm;
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%u/maps", ut->o.proc_root, tgid);
	pm = procmaps__load(path, PROCMAPS_EXEC_ONLY);
	if (!pm)
		return errno == ENOENT ? -ESRCH : -errno;
	err = unwind_tables__add_process_maps(ut, tgid, pm, true);
	procmaps__free(pm);
	return err < 0 ? err : 0;
}

int unwind_tables__add_process_now(struct unwind_tables *ut, uint32_t tgid)
{
	int err;

	ut->build_mode = UT_BUILD_INLINE;
	err = unwind_tables__add_process(ut, tgid);
	ut->build_mode = UT_BUILD_BY_SIZE;
	return err;
}

int unwind_tables__add_process_async(struct unwind_tables *ut, uint32_t tgid)
{
	int err;

	ut->build_mode = UT_BUILD_ASYNC;
	err = unwind_tables__add_process(ut, tgid);
	ut->build_mode = UT_BUILD_BY_SIZE;
	return err;
}

bool unwind_tables__wait_builds(struct unwind_tables *ut, uint64_t ns)
{
	/* ut->bld is set at creation and never changes: no lock of @ut needed */
	return !ut->bld || ubuild_wait_idle(ut->bld, ns);
}

int unwind_tables__add_process_maps(struct unwind_tables *ut, uint32_t tgid,
				    const struct procmaps *pm, bool build)
{
	struct uproc *p, *old = NULL;
	uint64_t v;
	int err;

	uobj_expire_idle(ut);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	p->read_ns = clock_mono_ns();
	p->build = build;
	err = publish_proc(ut, p, pm);
	if (keymap__get(&ut->procs, tgid, 0, &v))
		old = (struct uproc *)(uintptr_t)v;
	if (err) {
		uproc_free(ut, p);
		ut->st.procs_failed++;
		return err;
	}
	if (keymap__put(&ut->procs, tgid, 0, (uintptr_t)p)) {
		bpf_map_delete_elem(ut->procs_fd, &tgid);
		uproc_free(ut, p);
		if (old) {
			keymap__del(&ut->procs, tgid, 0, NULL);
			uproc_free(ut, old);
			ut->st.procs--;
		}
		return -ENOMEM;
	}
	/* released after the new entry is live, so shared objects are not rebuilt */
	if (old)
		uproc_free(ut, old);
	else
		ut->st.procs++;
	ut->st.bytes = ut->table_bytes + ut->st.procs * sizeof(struct hc_unwind_proc);
	if (ut->st.rows > ut->st.rows_peak)
		ut->st.rows_peak = ut->st.rows;
	if (ut->st.bytes > ut->st.bytes_peak)
		ut->st.bytes_peak = ut->st.bytes;
	return (int)p->missing;
}

static bool is_runtime_object(const char *path)
{
	static const char *const prefixes[] = { "libc.so", "ld-linux", "libm.so", "libstdc++.so",
						"libgcc_s.so" };
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

int unwind_tables__preload_runtime(struct unwind_tables *ut)
{
	uint32_t self = getpid();
	struct procmaps *pm;
	const struct procmap *m;
	struct uobj *ob;
	char path[4096];
	int n = 0;

	snprintf(path, sizeof(path), "%s/%u/maps", ut->o.proc_root, self);
	pm = procmaps__load(path, PROCMAPS_EXEC_ONLY);
	if (!pm)
		return -errno;
	for (size_t i = 0; i < procmaps__nr(pm); i++) {
		m = procmaps__entry(pm, i);
		if (m->kind != PROCMAP_FILE || !m->inode || !is_runtime_object(m->path))
			continue;
		/*
		 * In line (~60 ms for all): every process's first samples, a
		 * `-- CMD` child's from its first instruction, then walk libc by
		 * CFI; the builder would leave them to frame pointers for as long.
		 */
		ut->build_mode = UT_BUILD_INLINE;
		ob = uobj_get(ut, self, m, true);
		ut->build_mode = UT_BUILD_BY_SIZE;
		if (!ob || ob->refs)
			continue;
		ob->refs = 1;	/* never dropped: freed with the tables */
		n++;
	}
	procmaps__free(pm);
	return n;
}

/* The published mapping holding @pc, or NULL. */
static const struct urange *uproc_find(const struct uproc *p, uint64_t pc)
{
	size_t lo = 0, hi = p->nr_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < p->ranges[mid].start)
			hi = mid;
		else if (pc >= p->ranges[mid].end)
			lo = mid + 1;
		else
			return &p->ranges[mid];
	}
	return NULL;
}

static struct uproc *uproc_of(struct unwind_tables *ut, uint32_t tgid)
{
	uint64_t v;

	return keymap__get(&ut->procs, tgid, 0, &v) ? (struct uproc *)(uintptr_t)v : NULL;
}

static uint64_t gap_next(uint64_t gap)
{
	gap = gap ? gap * 2 : 1000000;
	return gap > 1000000000 ? 1000000000 : gap;
}

int unwind_tables__refresh(struct unwind_tables *ut, uint32_t tgid, uint64_t pc, uint64_t inner_pc)
{
	struct uproc *p = uproc_of(ut, tgid);
	uint64_t gap, sure_gap;
	const struct urange *r;
	bool sure;
	int err;

	if (!p)
		return 0;	/* not registered (yet): its first sight registers it */
	/*
	 * The walk ended at @pc (a return address unless it is the leaf, so
	 * looked up at pc - 1). In a mapping published by now: the walk ran
	 * before the last re-read, which has it already.
	 */
	if (uproc_find(p, inner_pc ? pc - 1 : pc)) {
		ut->st.refresh_stale++;
		return 0;
	}
	/*
	 * A pc taken from the registers (the leaf) or by a CFI rule is real
	 * code: a library mapped since (dlopen). One an FP step read from a
	 * frame without frame pointers may be any word on the stack. Each kind
	 * backs off on its own while re-reads do not find it, so that made-up
	 * pcs (every sample of a JIT or FP-less caller) cannot delay the
	 * re-read that a dlopen()ed library needs by up to a second.
	 */
	r = inner_pc ? uproc_find(p, inner_pc) : NULL;
	sure = !inner_pc || (r && r->obj);
	if (clock_mono_ns() - p->read_ns < (sure ? p->sure_gap_ns : p->gap_ns)) {
		ut->st.refresh_backoff++;
		return 0;
	}
	ut->st.refreshes++;
	/* the re-read replaces the process's entry: its backoffs carry over */
	gap = p->gap_ns;
	sure_gap = p->sure_gap_ns;
	/*
	 * New objects' tables on the builder thread (they come with the next
	 * poll, walked by frame pointer meanwhile), the re-read waiting for them
	 * at most UT_REREAD_WAIT_NS: its mappings are published whatever a
	 * build costs (a 563 ms one held a dlopen re-read in CI).
	 */
	ut->build_mode = UT_BUILD_REREAD;
	err = unwind_tables__add_process(ut, tgid);
	ut->build_mode = UT_BUILD_BY_SIZE;
	if (ut->bld && ubuild_wait_urgent(ut->bld, UT_REREAD_WAIT_NS))
		uobj_collect_built(ut);
	else if (ut->bld && !ut->st.reread_builds_late++)
		pr_debug("unwind: a re-read of %u: new tables not built within %llu ms, "
			 "published without them (frame pointers until they come)\n", tgid,
			 (unsigned long long)(UT_REREAD_WAIT_NS / 1000000));
	if (err < 0)
		return err;
	p = uproc_of(ut, tgid);
	if (!p)
		return 1;
	if (uproc_find(p, inner_pc ? pc - 1 : pc)) {
		p->gap_ns = p->sure_gap_ns = 0;
		return 1;
	}
	ut->st.refresh_missed++;
	p->gap_ns = sure ? gap : gap_next(gap);
	p->sure_gap_ns = sure ? gap_next(sure_gap) : sure_gap;
	return 1;
}

void unwind_tables__remove_process(struct unwind_tables *ut, uint32_t tgid)
{
	__u32 key = tgid;
	uint64_t v;

	if (!keymap__del(&ut->procs, tgid, 0, &v))
		return;
	bpf_map_delete_elem(ut->procs_fd, &key);
	uproc_free(ut, (struct uproc *)(uintptr_t)v);
	ut->st.procs--;
	uobj_expire_idle(ut);
	ut->st.bytes = ut->table_bytes + ut->st.procs * sizeof(struct hc_unwind_proc);
}

void unwind_tables__stats(const struct unwind_tables *ut, struct unwind_tables_stats *st)
{
	*st = ut->st;
	st->objects_pending = ut->bld ? ubuild_pending(ut->bld) : 0;
}

void unwind_tables__free(struct unwind_tables *ut)
{
	size_t it = 0;
	uint64_t v;

	if (!ut)
		return;
	ubuilder_free(ut->bld);	/* first: it reads ut->o */
	while (keymap__next(&ut->procs, &it, &v)) {
		struct uproc *p = (struct uproc *)(uintptr_t)v;

		free(p->objs);
		free(p->pending);
		free(p->ranges);
		free(p);
	}
	it = 0;
	while (keymap__next(&ut->objs, &it, &v))
		free((struct uobj *)(uintptr_t)v);
	keymap__release(&ut->procs);
	keymap__release(&ut->objs);
	free(ut->free_ids);
	if (ut->procs_fd >= 0)
		close(ut->procs_fd);
	if (ut->objs_fd >= 0)
		close(ut->objs_fd);
	free(ut);
}
