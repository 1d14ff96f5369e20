// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The objects of unwind tables: an ELF file's (or the vdso's) rows built
 * into a B+ tree in its own inner array of unwind_objs under a recycled id,
 * shared by reference count between processes, and kept loaded in an idle
 * LRU once no process maps it.
 */
#include "unwind/tables_int.h"

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

#include "sym/elf_debug.h"
#include "unwind/cfi.h"
#include "unwind/cfi_tree.h"
#include "util/clock.h"
#include "util/log.h"

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

/* A built B+ tree -> a new inner array in unwind_objs under a fresh id. */
static int publish_tree(struct unwind_tables *ut, struct uobj *ob, const struct cfi_tree *tr)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bopts);
	/* inner maps must carry the template's flags, or the outer map refuses them */
	LIBBPF_OPTS(bpf_map_create_opts, copts, .map_flags = BPF_F_INNER_MAP);
	__u32 *keys, count = tr->nr;
	int fd, err = 0;

	keys = calloc(tr->nr, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < tr->nr; i++)
		keys[i] = i;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "hc_rows", sizeof(__u32), sizeof(*tr->nodes),
			    tr->nr, &copts);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	if (bpf_map_update_batch(fd, keys, tr->nodes, &count, &bopts))
		err = -errno;
	else if (count != tr->nr)
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
		ob->nr_nodes = tr->nr;
		ob->height = tr->height;
		/* 2^32 tables published before a stamp could come round again; 0 is "none" */
		if (!++ut->last_stamp)
			++ut->last_stamp;
		ob->stamp = ut->last_stamp;
	}
out:
	free(keys);
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
	if ((!ob->id && !ob->building) || (fd >= 0 && !same_file(ob, fd))) {
		obj_evict(ut, ob);
		return NULL;
	}
	ut->st.objects_reused++;
	return ob;
}

/*
 * Fewer FDEs than this and none from a .debug_frame: the file was built
 * without unwind tables (what .eh_frame it has is crt's and the PLT's), so
 * its separate debug file's .debug_frame is worth a look.
 */
#define FEW_FDES 16

/* @elf's table with the separate debug file's .debug_frame; -ENOENT if none. */
static int build_with_debug(const struct unwind_tables_opts *o, Elf *elf,
			    const struct obj_src *src, struct cfi_table *t)
{
	struct elf_ident id = { 0 };
	struct elf_debug_query q = { 0 };
	char root[64];
	Elf *dbg;
	int dfd, err;

	if (!src || !src->path || !*o->debug_root || elf_ident_read(elf, &id))
		return -ENOENT;
	snprintf(root, sizeof(root), "%s/%u/root", o->proc_root, src->tgid);
	q.id = &id;
	q.path = src->path;
	q.root = root;
	q.debug_root = o->debug_root;
	q.obj_fd = src->fd;
	dfd = elf_debug_find(&q, NULL);
	elf_ident_release(&id);
	if (dfd < 0)
		return dfd;
	dbg = elf_begin(dfd, ELF_C_READ, NULL);
	err = dbg ? cfi_table_build_with(elf, dbg, t) : -ENOEXEC;
	if (dbg)
		elf_end(dbg);
	close(dfd);
	return err;
}

void uobj_compute(const struct unwind_tables_opts *o, Elf *elf, const struct obj_src *src,
		  struct ubuilt *b)
{
	struct cfi_table t, d;
	uint64_t t0 = clock_mono_ns(), t1 = 0, t2 = 0;

	memset(b, 0, sizeof(*b));
	b->err = elf_kind(elf) == ELF_K_ELF ? cfi_table_build(elf, &t) : -ENOEXEC;
	if (b->err)
		goto out;
	t1 = clock_mono_ns();
	if (t.st.fdes < FEW_FDES && !t.st.debug_frame_fdes && !build_with_debug(o, elf, src, &d)) {
		if (d.st.debug_frame_fdes) {
			cfi_table_release(&t);
			t = d;
			b->debug_frame = true;
		} else {
			cfi_table_release(&d);
		}
	}
	t2 = clock_mono_ns();
	/* no CFI, or an object above 4 GiB of vaddr: rows hold 32-bit pcs */
	if (!t.nr || t.rows[t.nr - 1].pc >= UINT32_MAX)
		b->no_cfi = true;
	else if (t.nr <= HC_UNWIND_MAX_ROWS)
		b->err = cfi_tree_build(t.rows, t.nr, &b->tr);
	b->nr_rows = t.nr;
	cfi_table_release(&t);
out:
	b->build_ns = clock_mono_ns() - t0;
	/* -vv: every build, to see which programs keep the builder busy */
	log_printf(LOG_TRACE, "unwind: table of %s: %zu rows in %.1f ms\n",
		   src && src->path ? src->path : "[vdso]", b->nr_rows, b->build_ns / 1e6);
	/* a small object's table takes ~1 ms: say where a slow one's time went (CI saw 0.55 s) */
	if (b->build_ns > UT_SLOW_BUILD_NS && t2)
		pr_debug("unwind: the table of %s took %.1f ms: CFI %.1f, debug file %.1f, tree "
			 "%.1f ms (%zu rows)\n", src && src->path ? src->path : "[vdso]",
			 b->build_ns / 1e6, (t1 - t0) / 1e6, (t2 - t1) / 1e6,
			 (t0 + b->build_ns - t2) / 1e6, b->nr_rows);
}

int uobj_install(struct unwind_tables *ut, struct uobj *ob, struct ubuilt *b)
{
	int err = b->err;

	ut->st.build_ns += b->build_ns;
	if (err)
		goto out;
	ut->st.objects_debug_frame += b->debug_frame;
	if (b->no_cfi) {
		ut->st.objects_no_cfi++;
		goto out;
	}
	idle_make_room(ut, b->nr_rows);
	if (ut->st.rows + b->nr_rows > ut->o.max_rows || b->nr_rows > HC_UNWIND_MAX_ROWS ||
	    ut->st.objects >= ut->o.max_objects) {
		ut->st.over_limit++;
		goto out;
	}
	err = publish_tree(ut, ob, &b->tr);
	if (err)
		goto out;
	ob->nr_rows = b->nr_rows;
	ut->st.objects++;
	ut->st.objects_built++;
	ut->st.rows += b->nr_rows;
	ut->st.bytes += (uint64_t)ob->nr_nodes * NODE_BYTES;
	ut->table_bytes += (uint64_t)ob->nr_nodes * NODE_BYTES;
	/* preloaded tables count too, not only those of published processes */
	if (ut->st.rows > ut->st.rows_peak)
		ut->st.rows_peak = ut->st.rows;
	if (ut->st.bytes > ut->st.bytes_peak)
		ut->st.bytes_peak = ut->st.bytes;
out:
	cfi_tree_release(&b->tr);
	return err;
}

/* In line: read the layout, build and install. */
static int build_table_elf(struct unwind_tables *ut, struct uobj *ob, Elf *elf,
			   const struct obj_src *src)
{
	struct ubuilt b;
	int err = elf_kind(elf) == ELF_K_ELF ? load_layout_read(elf, &ob->ll) : -ENOEXEC;

	if (err)
		return err;
	uobj_compute(&ut->o, elf, src, &b);
	ut->st.build_loop_ns += b.build_ns;
	return uobj_install(ut, ob, &b);
}

/*
 * Queue @ob's table for the builder thread, which takes @src->fd; read its
 * program headers now (for the load biases). 0, or -errno: build in line.
 */
static int build_async(struct unwind_tables *ut, struct uobj *ob, const struct obj_src *src)
{
	struct ubuild_job *job;
	Elf *elf;
	int err;

	elf = elf_begin(src->fd, ELF_C_READ, NULL);
	err = elf && elf_kind(elf) == ELF_K_ELF ? load_layout_read(elf, &ob->ll) : -ENOEXEC;
	if (elf)
		elf_end(elf);
	if (err)
		return err;
	job = calloc(1, sizeof(*job));
	if (!job || !(job->path = strdup(src->path ? src->path : ""))) {
		free(job);
		return -ENOMEM;
	}
	job->key_a = ob->key_a;
	job->inode = ob->inode;
	job->serial = ob->serial;
	job->fd = src->fd;
	job->tgid = src->tgid;
	job->prio = 1;
	job->urgent = ut->build_mode == UT_BUILD_REREAD;
	ob->building = true;
	ut->st.objects_queued++;
	return ubuild_submit(ut->bld, job);
}

/* Build @ob's table: on the builder thread if there is one (it takes @src->fd), else now. */
static int build_table(struct unwind_tables *ut, struct uobj *ob, const struct obj_src *src,
		       bool *fd_taken)
{
	Elf *elf;
	int err;

	note_file(ob, src->fd);
	*fd_taken = false;
	/*
	 * A small object builds in about a millisecond: at once, so a
	 * short-lived tool is walked by CFI from its next sample, not by frame
	 * pointer through code that may have none. A re-read's (a plugin just
	 * dlopen()ed) goes to the builder, first, and the re-read waits for it
	 * a bounded time (UT_REREAD_WAIT_NS): no build holds the re-read.
	 */
	if (ut->bld && ut->build_mode != UT_BUILD_INLINE &&
	    (ut->build_mode != UT_BUILD_BY_SIZE || ob->f_size > UT_INLINE_BUILD_BYTES)) {
		err = build_async(ut, ob, src);
		*fd_taken = ob->building;
		if (*fd_taken)
			return err;
	}
	elf = elf_begin(src->fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	err = build_table_elf(ut, ob, elf, src);
	elf_end(elf);
	return err;
}

/*
 * The vdso has CFI too, but no file: read its image from the process's
 * memory. Every process maps the same kernel image, so it is built once and
 * kept under the key (0, 0).
 */
struct uobj *uobj_get_vdso(struct unwind_tables *ut, uint32_t tgid, const struct procmap *m)
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
		err = elf ? build_table_elf(ut, ob, elf, NULL) : -ENOEXEC;
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

/*
 * The object of a file mapping, built on first sight if @build (else NULL:
 * its mappings are left to frame pointers for now). NULL also on ENOMEM.
 */
struct uobj *uobj_get(struct unwind_tables *ut, uint32_t tgid, const struct procmap *m,
		      bool build)
{
	uint64_t key_a = (uint64_t)m->dev_major << 32 | m->dev_minor, v;
	struct uobj *ob;
	int fd, err;

	if (keymap__get(&ut->objs, key_a, m->inode, &v)) {
		ob = (struct uobj *)(uintptr_t)v;
		if (ob->building && ut->bld)
			ubuild_bump(ut->bld, key_a, m->inode, 1);	/* one more process waits */
		if (ob->refs)
			return ob;
		fd = open_mapped(ut, tgid, m);
		ob = idle_revive(ut, ob, fd);
		if (fd >= 0)
			close(fd);
		if (ob)
			return ob;
	}
	if (!build)
		return NULL;
	ob = calloc(1, sizeof(*ob));
	if (!ob)
		return NULL;
	ob->key_a = key_a;
	ob->inode = m->inode;
	ob->serial = ++ut->next_serial;
	fd = open_mapped(ut, tgid, m);
	if (fd >= 0) {
		struct obj_src src = { .fd = fd, .tgid = tgid, .path = m->path };
		bool taken;

		err = build_table(ut, ob, &src, &taken);
		if (!taken)
			close(fd);
	} else {
		err = fd;
	}
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


size_t uobj_collect_built(struct unwind_tables *ut)
{
	struct ubuild_job *job, *next;
	struct uobj *ob;
	size_t n = 0;
	uint64_t v;
	int err;

	if (!ut->bld)
		return 0;
	for (job = ubuild_collect(ut->bld); job; job = next) {
		next = job->next;
		ob = keymap__get(&ut->objs, job->key_a, job->inode, &v) ?
			     (struct uobj *)(uintptr_t)v : NULL;
		/* evicted while it was built (its processes all gone), maybe mapped anew since */
		if (!ob || ob->serial != job->serial || !ob->building) {
			ut->st.builds_discarded++;
			ubuild_job_free(job);
			continue;
		}
		ob->building = false;
		err = uobj_install(ut, ob, &job->b);
		if (err) {
			ut->st.objects_failed++;
			pr_debug("unwind: no table for '%s': %s\n", job->path, strerror(-err));
		}
		/* idle already (no process maps it now): its rows count as idle from here */
		if (!ob->refs)
			ut->idle_rows += ob->nr_rows;
		uproc_table_ready(ut, ob);
		ubuild_job_free(job);
		n++;
	}
	return n;
}

/* The load bias of mapping @m of @ob: object vaddr = ip - bias. */
bool uobj_bias(const struct uobj *ob, const struct procmap *m, uint64_t *bias)
{
	return !load_bias(&ob->ll, m, (uint64_t)sysconf(_SC_PAGESIZE), bias);
}

/*
 * Drop one process reference. The last one makes the object idle: its table
 * stays loaded (a compiler, shell or test binary is usually run again soon,
 * and rebuilding costs tens of ms of libdw for a large one) until the idle
 * limits (rows, objects, UT_IDLE_TTL_NS unused) evict it, oldest first.
 */
void uobj_put(struct unwind_tables *ut, struct uobj *ob)
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
	ob->idle_ns = clock_mono_ns();
	ut->st.objects_idle++;
	while ((ut->idle_rows > ut->o.max_idle_rows || ut->st.objects_idle > UT_MAX_IDLE_OBJS) &&
	       idle_evict_oldest(ut))
		;
}

void uobj_expire_idle(struct unwind_tables *ut)
{
	uint64_t now = clock_mono_ns();

	/* the list is in idle order: only its head can have expired */
	while (ut->idle_head && now - ut->idle_head->idle_ns > UT_IDLE_TTL_NS)
		idle_evict_oldest(ut);
}
