// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loads CFI rows into BPF maps: unwind_objs (ARRAY_OF_MAPS, object id -> an
 * ARRAY of B+ tree nodes sized to the object, see unwind/cfi_tree.h) and
 * unwind_procs (tgid -> executable mappings). Object tables are shared and
 * reference-counted by process; unreferenced ones stay loaded in a bounded
 * idle LRU, since the next process of the same binary usually follows soon.
 */
#include "unwind/tables.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "abi/unwind.h"
#include "sym/keymap.h"
#include "sym/procmaps.h"
#include "unwind/cfi.h"
#include "unwind/cfi_tree.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_unwind_map) == 32, "hc_unwind_map ABI changed");

/* the kernel stores array values rounded up to 8 bytes (384-byte nodes are already) */
#define NODE_BYTES ((sizeof(struct hc_cfi_node) + 7) & ~(size_t)7)

#define UT_MAX_SEGS 8
/* idle objects remembered at most (those without a table cost no kernel memory) */
#define UT_MAX_IDLE_OBJS 1024

/* An executable PT_LOAD: file offsets [off, off + filesz) load at vaddr. */
struct useg {
	uint64_t off, filesz, vaddr;
};

struct uobj {
	uint64_t key_a, inode;	/* (dev, inode): its key in unwind_tables.objs */
	uint32_t id;		/* key in unwind_objs; 0: no table (FP fallback) */
	uint32_t nr_rows;
	uint32_t nr_nodes;	/* elements of its inner array */
	uint32_t height;	/* of its tree: inner levels above the leaves */
	uint32_t refs;		/* registered processes mapping it; 0: idle */
	struct useg segs[UT_MAX_SEGS];
	size_t nr_segs;
	/* the file as it was built, checked before an idle table is used again */
	uint64_t f_size, f_mtime_ns, f_ctime_ns;
	struct uobj *idle_prev, *idle_next;	/* in unwind_tables' idle list */
};

struct uproc {
	uint32_t tgid;
	uint64_t read_ns;	/* maps last read */
	uint64_t gap_ns;	/* refresh backoff */
	size_t nr_maps;		/* executable mappings seen at the last read */
	struct uobj **objs;	/* distinct objects it references (one ref each) */
	size_t nr_objs;
};

struct unwind_tables {
	int procs_fd, objs_fd;
	struct unwind_tables_opts o;
	struct keymap objs;	/* (dev, inode) -> struct uobj *; the vdso under (0, 0) */
	struct keymap procs;	/* (tgid, 0) -> struct uproc * */
	uint32_t next_id;	/* ids never used yet: next_id .. max_objects */
	uint32_t *free_ids;	/* a FIFO of released ids, max_objects slots */
	size_t free_head, free_nr;
	uint64_t table_bytes;	/* kernel memory of the objects' nodes now */
	/* objects no process maps, oldest first: kept until the idle limits evict them */
	struct uobj *idle_head, *idle_tail;
	size_t idle_rows;
	struct unwind_tables_stats st;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

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
	ut->o.max_idle_rows = o->max_idle_rows ? o->max_idle_rows : ut->o.max_rows / 8;
	ut->o.proc_root = o->proc_root ? o->proc_root : "/proc";
	ut->next_id = 1;
	elf_version(EV_CURRENT);
	keymap__init(&ut->objs);
	keymap__init(&ut->procs);
	ut->free_ids = calloc(ut->o.max_objects, sizeof(*ut->free_ids));
	if (!ut->free_ids) {
		err = -ENOMEM;
		goto err;
	}

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

/*
 * Object ids: fresh ones first, then released ones oldest first. A walk that
 * read a process's mappings just before an object was dropped may still look
 * its old id up; reusing the id much later keeps such a walk from finding
 * another object's table there (it finds none and falls back to FP).
 */
static uint32_t id_alloc(struct unwind_tables *ut)
{
	uint32_t id;

	if (ut->next_id <= ut->o.max_objects)
		return ut->next_id++;
	if (!ut->free_nr)
		return 0;
	id = ut->free_ids[ut->free_head];
	ut->free_head = (ut->free_head + 1) % ut->o.max_objects;
	ut->free_nr--;
	return id;
}

static void id_release(struct unwind_tables *ut, uint32_t id)
{
	ut->free_ids[(ut->free_head + ut->free_nr) % ut->o.max_objects] = id;
	ut->free_nr++;
}

int unwind_tables__procs_fd(const struct unwind_tables *ut)
{
	return ut->procs_fd;
}

int unwind_tables__objs_fd(const struct unwind_tables *ut)
{
	return ut->objs_fd;
}

static int read_segs(Elf *elf, struct uobj *ob)
{
	GElf_Phdr ph;
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n && ob->nr_segs < UT_MAX_SEGS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		ob->segs[ob->nr_segs++] = (struct useg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	return ob->nr_segs ? 0 : -ENOEXEC;
}

/* Rows -> a B+ tree in a new inner array in unwind_objs under a fresh id. */
static int publish_rows(struct unwind_tables *ut, struct uobj *ob, const struct cfi_table *t)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	/* inner maps must carry the template's flags, or the outer map refuses them */
	LIBBPF_OPTS(bpf_map_create_opts, copts, .map_flags = BPF_F_INNER_MAP);
	struct cfi_tree tr;
	__u32 *keys = NULL, count;
	int fd, err;

	err = cfi_tree_build(t->rows, t->nr, &tr);
	if (err)
		return err;
	count = tr.nr;
	keys = calloc(tr.nr, sizeof(*keys));
	if (!keys) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < tr.nr; i++)
		keys[i] = i;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "hc_rows", sizeof(__u32), sizeof(*tr.nodes),
			    tr.nr, &copts);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	if (bpf_map_update_batch(fd, keys, tr.nodes, &count, &bopts))
		err = -errno;
	else if (count != tr.nr)
		err = -EIO;
	ob->id = err ? 0 : id_alloc(ut);
	if (!err && !ob->id)
		err = -ENOSPC;
	if (!err && bpf_map_update_elem(ut->objs_fd, &ob->id, &fd, BPF_ANY))
		err = -errno;
	close(fd);	/* unwind_objs holds the array now */
	if (err) {
		if (ob->id)
			id_release(ut, ob->id);
		ob->id = 0;
	} else {
		ob->nr_nodes = tr.nr;
		ob->height = tr.height;
	}
out:
	free(keys);
	cfi_tree_release(&tr);
	return err;
}

/* Open a mapped file as the process sees it: map_files first, then its root. */
static int open_mapped(const struct unwind_tables *ut, uint32_t tgid, const struct procmap *m)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", ut->o.proc_root, tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/%u/root%s", ut->o.proc_root, tgid, m->path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + ts->tv_nsec;
}

/* Remember what the file looked like, so a reused inode is not taken for it. */
static void note_file(struct uobj *ob, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return;
	ob->f_size = st.st_size;
	ob->f_mtime_ns = ts_ns(&st.st_mtim);
	ob->f_ctime_ns = ts_ns(&st.st_ctim);
}

static bool same_file(const struct uobj *ob, int fd)
{
	struct stat st;

	return !fstat(fd, &st) && ob->f_size == (uint64_t)st.st_size &&
	       ob->f_mtime_ns == ts_ns(&st.st_mtim) && ob->f_ctime_ns == ts_ns(&st.st_ctim);
}

/* Unload @ob's table and forget it (it must be unreferenced and not idle). */
static void obj_evict(struct unwind_tables *ut, struct uobj *ob)
{
	if (ob->id) {
		bpf_map_delete_elem(ut->objs_fd, &ob->id);
		id_release(ut, ob->id);
		ut->st.objects--;
		ut->st.rows -= ob->nr_rows;
		ut->st.bytes -= (uint64_t)ob->nr_nodes * NODE_BYTES;
		ut->table_bytes -= (uint64_t)ob->nr_nodes * NODE_BYTES;
	}
	keymap__del(&ut->objs, ob->key_a, ob->inode, NULL);
	free(ob);
}

static void idle_unlink(struct unwind_tables *ut, struct uobj *ob)
{
	if (ob->idle_prev)
		ob->idle_prev->idle_next = ob->idle_next;
	else
		ut->idle_head = ob->idle_next;
	if (ob->idle_next)
		ob->idle_next->idle_prev = ob->idle_prev;
	else
		ut->idle_tail = ob->idle_prev;
	ob->idle_prev = ob->idle_next = NULL;
	ut->idle_rows -= ob->nr_rows;
	ut->st.objects_idle--;
}

/* Evict the oldest idle object; false if there is none. */
static bool idle_evict_oldest(struct unwind_tables *ut)
{
	struct uobj *ob = ut->idle_head;

	if (!ob)
		return false;
	idle_unlink(ut, ob);
	obj_evict(ut, ob);
	return true;
}

/* Make room for a table of @nr rows under the limits by evicting idle tables. */
static void idle_make_room(struct unwind_tables *ut, size_t nr)
{
	while ((ut->st.rows + nr > ut->o.max_rows || ut->st.objects >= ut->o.max_objects) &&
	       idle_evict_oldest(ut))
		;
}

/*
 * An idle object for a process that maps it again: its table if it has one
 * and the file @fd is still the one it was built from (same size, mtime and
 * ctime: the inode may have been freed and reused), else NULL and the
 * object is gone, to be built again.
 * @fd < 0: nothing to check (the vdso) or nothing to check against (an
 * unopenable file, where the old table is the best guess).
 */
static struct uobj *idle_revive(struct unwind_tables *ut, struct uobj *ob, int fd)
{
	idle_unlink(ut, ob);
	/* no table: maybe the file was gone or unreadable then (a process that exited) */
	if (!ob->id || (fd >= 0 && !same_file(ob, fd))) {
		obj_evict(ut, ob);
		return NULL;
	}
	ut->st.objects_reused++;
	return ob;
}

static int build_table_elf(struct unwind_tables *ut, struct uobj *ob, Elf *elf)
{
	struct cfi_table t;
	uint64_t t0 = mono_ns();
	int err;

	if (elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	err = read_segs(elf, ob);
	if (!err)
		err = cfi_table_build(elf, &t);
	if (err)
		goto out;
	if (!t.nr || t.rows[t.nr - 1].pc >= UINT32_MAX) {
		/* no CFI, or an object above 4 GiB of vaddr: rows hold 32-bit pcs */
		ut->st.objects_no_cfi++;
		goto release;
	}
	idle_make_room(ut, t.nr);
	if (ut->st.rows + t.nr > ut->o.max_rows || t.nr > HC_UNWIND_MAX_ROWS ||
	    ut->st.objects >= ut->o.max_objects) {
		ut->st.over_limit++;
	} else {
		err = publish_rows(ut, ob, &t);
		if (!err) {
			ob->nr_rows = t.nr;
			ut->st.objects++;
			ut->st.objects_built++;
			ut->st.rows += t.nr;
			ut->st.bytes += (uint64_t)ob->nr_nodes * NODE_BYTES;
			ut->table_bytes += (uint64_t)ob->nr_nodes * NODE_BYTES;
			/* preloaded tables count too, not only those of published processes */
			if (ut->st.rows > ut->st.rows_peak)
				ut->st.rows_peak = ut->st.rows;
			if (ut->st.bytes > ut->st.bytes_peak)
				ut->st.bytes_peak = ut->st.bytes;
		}
	}
release:
	cfi_table_release(&t);
out:
	ut->st.build_ns += mono_ns() - t0;
	return err;
}

static int build_table(struct unwind_tables *ut, struct uobj *ob, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int err;

	if (!elf)
		return -ENOEXEC;
	note_file(ob, fd);
	err = build_table_elf(ut, ob, elf);
	elf_end(elf);
	return err;
}

/*
 * The vdso has CFI too, but no file: read its image from the process's
 * memory. Every process maps the same kernel image, so it is built once and
 * kept under the key (0, 0).
 */
static struct uobj *get_vdso(struct unwind_tables *ut, uint32_t tgid, const struct procmap *m)
{
	size_t len = m->end - m->start;
	struct uobj *ob;
	char path[64];
	uint64_t v;
	void *img;
	int fd, err = -EIO;
	Elf *elf;

	if (keymap__get(&ut->objs, 0, 0, &v)) {
		ob = (struct uobj *)(uintptr_t)v;
		/* the same kernel image for every process: nothing to check */
		return ob->refs ? ob : idle_revive(ut, ob, -1);
	}
	ob = calloc(1, sizeof(*ob));
	img = len <= (1 << 20) ? malloc(len) : NULL;
	if (!ob || !img) {
		free(ob);
		free(img);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%u/mem", ut->o.proc_root, tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, img, len, m->start) == (ssize_t)len) {
		elf = elf_memory(img, len);
		err = elf ? build_table_elf(ut, ob, elf) : -ENOEXEC;
		if (elf)
			elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
	free(img);
	if (err) {
		ut->st.objects_failed++;
		pr_debug("unwind: no table for the vdso: %s\n", strerror(-err));
	}
	if (keymap__put(&ut->objs, 0, 0, (uintptr_t)ob)) {
		free(ob);
		return NULL;
	}
	return ob;
}

/* The object of a file mapping, built on first sight. NULL only on ENOMEM. */
static struct uobj *get_obj(struct unwind_tables *ut, uint32_t tgid, const struct procmap *m)
{
	uint64_t key_a = (uint64_t)m->dev_major << 32 | m->dev_minor, v;
	struct uobj *ob;
	int fd, err;

	if (keymap__get(&ut->objs, key_a, m->inode, &v)) {
		ob = (struct uobj *)(uintptr_t)v;
		if (ob->refs)
			return ob;
		fd = open_mapped(ut, tgid, m);
		ob = idle_revive(ut, ob, fd);
		if (fd >= 0)
			close(fd);
		if (ob)
			return ob;
	}
	ob = calloc(1, sizeof(*ob));
	if (!ob)
		return NULL;
	ob->key_a = key_a;
	ob->inode = m->inode;
	fd = open_mapped(ut, tgid, m);
	err = fd < 0 ? fd : build_table(ut, ob, fd);
	if (fd >= 0)
		close(fd);
	if (err) {
		ut->st.objects_failed++;
		pr_debug("unwind: no table for '%s': %s\n", m->path, strerror(-err));
	}
	/* remembered even without a table, so it is not re-parsed for every process */
	if (keymap__put(&ut->objs, key_a, m->inode, (uintptr_t)ob)) {
		free(ob);
		return NULL;
	}
	return ob;
}


/* The load bias of mapping @m of @ob: object vaddr = ip - bias. */
static bool map_bias(const struct uobj *ob, const struct procmap *m, uint64_t *bias)
{
	for (size_t i = 0; i < ob->nr_segs; i++) {
		const struct useg *s = &ob->segs[i];

		if (m->pgoff >= s->off && m->pgoff < s->off + s->filesz) {
			*bias = m->start - (m->pgoff - s->off) - s->vaddr;
			return true;
		}
	}
	return false;
}

/*
 * Drop one process reference. The last one makes the object idle: its table
 * stays loaded (a compiler, shell or test binary is usually run again soon,
 * and rebuilding costs tens of ms of libdw for a large one) until the idle
 * limits evict it, oldest first.
 */
static void obj_put(struct unwind_tables *ut, struct uobj *ob)
{
	if (--ob->refs)
		return;
	ob->idle_prev = ut->idle_tail;
	ob->idle_next = NULL;
	if (ut->idle_tail)
		ut->idle_tail->idle_next = ob;
	else
		ut->idle_head = ob;
	ut->idle_tail = ob;
	ut->idle_rows += ob->nr_rows;
	ut->st.objects_idle++;
	while ((ut->idle_rows > ut->o.max_idle_rows || ut->st.objects_idle > UT_MAX_IDLE_OBJS) &&
	       idle_evict_oldest(ut))
		;
}

static void uproc_free(struct unwind_tables *ut, struct uproc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_objs; i++)
		obj_put(ut, p->objs[i]);
	free(p->objs);
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
		       const struct procmap *m, struct hc_unwind_map *e)
{
	struct uobj *ob;
	uint64_t bias;

	e->start = m->start;
	e->end = m->end;
	/* anonymous (JIT) and special mappings: obj 0, walked by frame pointer */
	if (m->kind == PROCMAP_VDSO)
		ob = get_vdso(ut, tgid, m);
	else if (m->kind == PROCMAP_FILE && m->inode)
		ob = get_obj(ut, tgid, m);
	else
		return;
	if (!ob)
		return;
	uproc_ref(p, ob);
	if (ob->id && map_bias(ob, m, &bias)) {
		e->obj = ob->id;
		e->height = ob->height;
		e->bias = bias;
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
	if (!v || !p->objs) {
		free(v);
		return -ENOMEM;
	}
	/* /proc/PID/maps is sorted by address, as the BPF binary search needs */
	for (size_t i = 0; i < n; i++) {
		if (v->nr == HC_UNWIND_MAX_MAPS) {
			ut->st.maps_dropped += n - i;
			break;
		}
		fill_entry(ut, p, p->tgid, procmaps__entry(pm, i), &v->maps[v->nr]);
		v->nr++;
	}
	if (bpf_map_update_elem(ut->procs_fd, &key, v, BPF_ANY)) {
		err = -errno;
		if (err == -E2BIG)
			ut->st.over_limit++;
	}
	free(v);
	return err;
}

int unwind_tables__add_process(struct unwind_tables *ut, uint32_t tgid)
{
	struct uproc *p, *old = NULL;
	struct procmaps *pm;
	char path[4096];
	uint64_t v;
	int err;

	snprintf(path, sizeof(path), "%s/%u/maps", ut->o.proc_root, tgid);
	pm = procmaps__load(path, PROCMAPS_EXEC_ONLY);
	if (!pm)
		return errno == ENOENT ? -ESRCH : -errno;
	p = calloc(1, sizeof(*p));
	if (!p) {
		procmaps__free(pm);
		return -ENOMEM;
	}
	p->tgid = tgid;
	p->read_ns = mono_ns();
	p->nr_maps = procmaps__nr(pm);
	err = publish_proc(ut, p, pm);
	procmaps__free(pm);
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
	if (old) {
		/* nothing new since the last read: back off further */
		p->gap_ns = p->nr_maps == old->nr_maps ?
			(old->gap_ns ? old->gap_ns * 2 : 1000000) : 0;
		if (p->gap_ns > 1000000000)
			p->gap_ns = 1000000000;
		uproc_free(ut, old);
	}
	else
		ut->st.procs++;
	ut->st.bytes = ut->table_bytes + ut->st.procs * sizeof(struct hc_unwind_proc);
	if (ut->st.rows > ut->st.rows_peak)
		ut->st.rows_peak = ut->st.rows;
	if (ut->st.bytes > ut->st.bytes_peak)
		ut->st.bytes_peak = ut->st.bytes;
	return 0;
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
		ob = get_obj(ut, self, m);
		if (!ob || ob->refs)
			continue;
		ob->refs = 1;	/* never dropped: freed with the tables */
		n++;
	}
	procmaps__free(pm);
	return n;
}

int unwind_tables__refresh(struct unwind_tables *ut, uint32_t tgid)
{
	struct uproc *p;
	uint64_t v;

	if (!keymap__get(&ut->procs, tgid, 0, &v))
		return 0;	/* not registered (yet): its first sight registers it */
	p = (struct uproc *)(uintptr_t)v;
	if (mono_ns() - p->read_ns < p->gap_ns)
		return 0;
	ut->st.refreshes++;
	return unwind_tables__add_process(ut, tgid);
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
	ut->st.bytes = ut->table_bytes + ut->st.procs * sizeof(struct hc_unwind_proc);
}

void unwind_tables__stats(const struct unwind_tables *ut, struct unwind_tables_stats *st)
{
	*st = ut->st;
}

void unwind_tables__free(struct unwind_tables *ut)
{
	size_t it = 0;
	uint64_t v;

	if (!ut)
		return;
	while (keymap__next(&ut->procs, &it, &v)) {
		struct uproc *p = (struct uproc *)(uintptr_t)v;

		free(p->objs);
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
