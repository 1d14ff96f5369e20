// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Loads CFI rows into BPF maps: unwind_objs (HASH_OF_MAPS, object id -> an
 * ARRAY of rows sized to the object) and unwind_procs (tgid -> executable
 * mappings). Object tables are shared and reference-counted by process.
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
#include "util/log.h"

_Static_assert(sizeof(struct hc_cfi_row) == 12, "hc_cfi_row ABI changed");
_Static_assert(sizeof(struct hc_unwind_map) == 32, "hc_unwind_map ABI changed");

/* the kernel stores array values rounded up to 8 bytes: 16 per 12-byte row */
#define ROW_BYTES ((sizeof(struct hc_cfi_row) + 7) & ~(size_t)7)

#define UT_MAX_SEGS 8
/*
 * Objects nobody maps any more stay loaded for a while: a program that is
 * started again and again (a shell loop, a cron job, a process storm) would
 * otherwise have its table rebuilt at every exec, the biggest part of the
 * loader's CPU under process churn. The least recently released go first.
 */
#define UT_IDLE_MAX 64

/* An executable PT_LOAD: file offsets [off, off + filesz) load at vaddr. */
struct useg {
	uint64_t off, filesz, vaddr;
};

struct uobj {
	uint64_t key_a, inode;	/* (dev, inode): its key in unwind_tables.objs */
	uint32_t id;		/* key in unwind_objs; 0: no table (FP fallback) */
	uint32_t nr_rows;
	uint32_t refs;		/* registered processes mapping it */
	struct useg segs[UT_MAX_SEGS];
	size_t nr_segs;
	struct timespec mtime;	/* of the file when built: an idle object is reused only if */
	uint64_t size;		/* the file at (dev, inode) is still the same */
	struct uobj *idle_prev, *idle_next;	/* on the idle list while refs == 0 */
};

struct uproc {
	uint32_t tgid;
	uint64_t read_ns;	/* maps last read */
	uint64_t gap_ns;	/* refresh backoff */
	size_t nr_maps;		/* executable mappings seen at the last read */
	struct uobj **objs;	/* distinct objects it references (one ref each) */
	size_t nr_objs;
	bool build;		/* build missing tables (else leave their mappings to FP) */
	size_t missing;		/* mappings left without a table to build */
};

struct unwind_tables {
	int procs_fd, objs_fd;
	struct unwind_tables_opts o;
	struct keymap objs;	/* (dev, inode) -> struct uobj *; the vdso under (0, 0) */
	struct keymap procs;	/* (tgid, 0) -> struct uproc * */
	uint32_t next_id;
	struct uobj *idle_head, *idle_tail;	/* released objects, oldest at the head */
	size_t nr_idle;
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
	ut->o.proc_root = o->proc_root ? o->proc_root : "/proc";
	ut->next_id = 1;
	elf_version(EV_CURRENT);
	keymap__init(&ut->objs);
	keymap__init(&ut->procs);

	/* the template only fixes the inner type; each object's array has its own size */
	tmpl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "hc_rows_tmpl", sizeof(__u32),
			      sizeof(struct hc_cfi_row), 1, &inner_opts);
	if (tmpl < 0) {
		err = -errno;
		goto err;
	}
	outer_opts.inner_map_fd = tmpl;
	ut->objs_fd = bpf_map_create(BPF_MAP_TYPE_HASH_OF_MAPS, "unwind_objs", sizeof(__u32),
				     sizeof(__u32), ut->o.max_objects, &outer_opts);
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

/* Rows per batch update: the copy for the kernel is made a chunk at a time. */
#define PUBLISH_CHUNK 65536

/* Rows -> a new inner array in unwind_objs under a fresh id. */
static int publish_rows(struct unwind_tables *ut, struct uobj *ob, const struct cfi_table *t)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	/* inner maps must carry the template's flags, or the outer map refuses them */
	LIBBPF_OPTS(bpf_map_create_opts, copts, .map_flags = BPF_F_INNER_MAP);
	size_t chunk = t->nr < PUBLISH_CHUNK ? t->nr : PUBLISH_CHUNK;
	struct hc_cfi_row *rows;
	__u32 *keys, count;
	int fd = -1, err = 0;

	/*
	 * A chunk, not the whole table: a big library (libLLVM, ~1M rows) made
	 * a 16 MB copy beside the table, the agent's peak RSS
	 */
	rows = calloc(chunk, sizeof(*rows));
	keys = calloc(chunk, sizeof(*keys));
	if (!rows || !keys) {
		err = -ENOMEM;
		goto out;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "hc_rows", sizeof(__u32), sizeof(*rows), t->nr,
			    &copts);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (size_t base = 0; !err && base < t->nr; base += chunk) {
		size_t n = t->nr - base < chunk ? t->nr - base : chunk;

		for (size_t i = 0; i < n; i++) {
			const struct cfi_row *r = &t->rows[base + i];

			keys[i] = base + i;
			rows[i] = (struct hc_cfi_row){ .pc = (__u32)r->pc, .cfa = r->cfa,
						       .rbp = r->rbp, .rbp_off = r->rbp_off,
						       .cfa_off = r->cfa_off };
		}
		count = n;
		if (bpf_map_update_batch(fd, keys, rows, &count, &bopts))
			err = -errno;
		else if (count != n)
			err = -EIO;
	}
	ob->id = ut->next_id++;
	if (!err && bpf_map_update_elem(ut->objs_fd, &ob->id, &fd, BPF_NOEXIST))
		err = -errno;
	if (err)
		ob->id = 0;
out:
	if (fd >= 0)
		close(fd);	/* unwind_objs holds the array now */
	free(rows);
	free(keys);
	return err;
}

/* Take @ob off the idle list (no-op if it is not on it). */
static void idle_unlink(struct unwind_tables *ut, struct uobj *ob)
{
	if (ob->refs || (!ob->idle_prev && ut->idle_head != ob))
		return;
	if (ob->idle_prev)
		ob->idle_prev->idle_next = ob->idle_next;
	else
		ut->idle_head = ob->idle_next;
	if (ob->idle_next)
		ob->idle_next->idle_prev = ob->idle_prev;
	else
		ut->idle_tail = ob->idle_prev;
	ob->idle_prev = ob->idle_next = NULL;
	ut->nr_idle--;
}

/* Remove the table of an unreferenced object from the kernel and forget it. */
static void obj_evict(struct unwind_tables *ut, struct uobj *ob)
{
	idle_unlink(ut, ob);
	if (ob->id) {
		bpf_map_delete_elem(ut->objs_fd, &ob->id);
		ut->st.objects--;
		ut->st.rows -= ob->nr_rows;
		ut->st.bytes -= (uint64_t)ob->nr_rows * ROW_BYTES;
	}
	keymap__del(&ut->objs, ob->key_a, ob->inode, NULL);
	free(ob);
}

/* Idle objects first, oldest first, until @rows more rows and one more object fit. */
static void idle_make_room(struct unwind_tables *ut, uint64_t rows)
{
	while (ut->idle_head && (ut->st.rows + rows > ut->o.max_rows ||
				 ut->st.objects >= ut->o.max_objects))
		obj_evict(ut, ut->idle_head);
}

/* An idle object of @m may be reused if the file it was built from is still there. */
static bool idle_still_valid(const struct unwind_tables *ut, uint32_t tgid,
			     const struct procmap *m, const struct uobj *ob)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", ut->o.proc_root, tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if (stat(path, &st)) {
		snprintf(path, sizeof(path), "%s/%u/root%s", ut->o.proc_root, tgid, m->path);
		if (stat(path, &st) || st.st_ino != m->inode)
			return false;
	}
	return st.st_mtim.tv_sec == ob->mtime.tv_sec && st.st_mtim.tv_nsec == ob->mtime.tv_nsec &&
	       (uint64_t)st.st_size == ob->size;
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
	if (t.nr && t.rows[t.nr - 1].pc <= UINT32_MAX)
		idle_make_room(ut, t.nr);
	if (!t.nr || t.rows[t.nr - 1].pc > UINT32_MAX) {
		/* no CFI, or an object above 4 GiB of vaddr: rows hold 32-bit pcs */
		ut->st.objects_no_cfi++;
	} else if (ut->st.rows + t.nr > ut->o.max_rows || t.nr > HC_UNWIND_MAX_ROWS ||
		   ut->st.objects >= ut->o.max_objects) {
		ut->st.over_limit++;
	} else {
		err = publish_rows(ut, ob, &t);
		if (!err) {
			ob->nr_rows = t.nr;
			ut->st.objects++;
			ut->st.objects_built++;
			ut->st.rows += t.nr;
			ut->st.bytes += t.nr * ROW_BYTES;
			/* preloaded tables count too, not only those of published processes */
			if (ut->st.rows > ut->st.rows_peak)
				ut->st.rows_peak = ut->st.rows;
			if (ut->st.bytes > ut->st.bytes_peak)
				ut->st.bytes_peak = ut->st.bytes;
		}
	}
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
		idle_unlink(ut, ob);
		return ob;
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

/* The object of a file mapping, built on first sight if @build. NULL on ENOMEM or !@build. */
static struct uobj *get_obj(struct unwind_tables *ut, uint32_t tgid, const struct procmap *m,
			    bool build)
{
	uint64_t key_a = (uint64_t)m->dev_major << 32 | m->dev_minor, v;
	struct uobj *ob;
	struct stat st;
	int fd, err;

	if (keymap__get(&ut->objs, key_a, m->inode, &v)) {
		ob = (struct uobj *)(uintptr_t)v;
		if (ob->refs || idle_still_valid(ut, tgid, m, ob)) {
			if (!ob->refs)
				ut->st.objects_reused++;
			idle_unlink(ut, ob);
			return ob;
		}
		obj_evict(ut, ob);	/* the inode now holds another file */
	}
	if (!build)
		return NULL;
	ob = calloc(1, sizeof(*ob));
	if (!ob)
		return NULL;
	ob->key_a = key_a;
	ob->inode = m->inode;
	fd = open_mapped(ut, tgid, m);
	err = fd < 0 ? fd : build_table(ut, ob, fd);
	if (fd >= 0) {
		if (!fstat(fd, &st)) {
			ob->mtime = st.st_mtim;
			ob->size = st.st_size;
		}
		close(fd);
	}
	if (err) {
		ut->st.objects_failed++;
		pr_debug("unwind: no table for '%s': %s\n", m->path, strerror(-err));
	} else {
		pr_debug("unwind: table for '%s': %u rows\n", m->path, ob->nr_rows);
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

/* Drop one process reference; the last one moves the object to the idle list. */
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
	if (++ut->nr_idle > UT_IDLE_MAX)
		obj_evict(ut, ut->idle_head);
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
		ob = get_obj(ut, tgid, m, p->build);
	else
		return;
	if (!ob) {
		p->missing += !p->build;
		return;
	}
	uproc_ref(p, ob);
	if (ob->id && map_bias(ob, m, &bias)) {
		e->obj = ob->id;
		e->nr_rows = ob->nr_rows;
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

int unwind_tables__add_process_maps(struct unwind_tables *ut, uint32_t tgid,
				    const struct procmaps *pm, bool build)
{
	struct uproc *p, *old = NULL;
	uint64_t v;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	p->read_ns = mono_ns();
	p->nr_maps = procmaps__nr(pm);
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
	ut->st.bytes = ut->st.rows * ROW_BYTES + ut->st.procs * sizeof(struct hc_unwind_proc);
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
		ob = get_obj(ut, self, m, true);
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
	ut->st.bytes = ut->st.rows * ROW_BYTES + ut->st.procs * sizeof(struct hc_unwind_proc);
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
	if (ut->procs_fd >= 0)
		close(ut->procs_fd);
	if (ut->objs_fd >= 0)
		close(ut->objs_fd);
	free(ut);
}
