// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Object table: open, deduplicate and name mapped objects (see objtab.h). */
#include "sym/objtab.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "sym/demangle.h"
#include "sym/elf_syms.h"
#include "sym/keymap.h"
#include "sym/perfmap.h"
#include "sym/srcline.h"
#include "sym/symbolizer.h"
#include "util/clock.h"
#include "util/log.h"

#define OBJTAB_RELOAD_NS	1000000000ull	/* perf map reload on a miss, at most */
#define OBJTAB_VDSO_MAX		(1u << 20)	/* a vdso is a few pages; refuse absurd sizes */
#define OBJTAB_UNKNOWN		"[unknown]"

enum obj_kind {
	OBJ_ELF,		/* a file mapping; named through elf_syms */
	OBJ_VDSO,		/* the vdso image read from a process */
	OBJ_JIT,		/* one process's anonymous executable memory */
};

struct obj {
	enum obj_kind kind;
	int err;		/* why es is NULL */
	char *path;		/* as mapped; "[vdso]", "[jit]" for pseudo objects */
	const char *base;	/* basename within path: the "+0x" fallback prefix */
	struct elf_syms *es;	/* OBJ_ELF, OBJ_VDSO */
	uint32_t tgid;		/* OBJ_JIT: whose perf map */
	uint32_t map_pid;	/* OBJ_JIT: the pid in the map's name (namespaced pid) */
	int map_dirfd;		/* OBJ_JIT: the container's map directory, or -1 */
	uid_t uid;		/* OBJ_JIT: the perf map must be owned by it (or root) */
	struct perfmap *pm;	/* OBJ_JIT: loaded on first lookup */
	struct srcline *sl;	/* OBJ_ELF: its DWARF, opened on the first source line lookup */
	bool sl_tried;
	uint64_t pm_checked_ns;	/* last load attempt */
	uint64_t key_a, key_b;	/* its entry in objtab.ids, if keyed */
	bool keyed;
	bool used;		/* false: evicted, the id waits in free_ids */
	bool marked;		/* objtab__mark() since the last objtab__sweep() */
	bool touched;		/* looked up or named since the last objtab__sweep() */
};

struct objtab {
	char *proc_root;
	char *debug_root;
	struct dbgfetch *fetch;
	char *perfmap_dir;
	size_t max_objects;
	bool demangle;
	bool warned_full;
	struct obj *objs;	/* id i lives at objs[i - 1] */
	size_t nr;		/* ids handed out, evicted ones included */
	size_t cap;
	size_t live;		/* objects not evicted */
	uint32_t *free_ids;	/* evicted ids, reused before new ones */
	size_t nr_free;
	struct keymap ids;	/* (dev, inode) -> id; vdso: (0, size) -> id */
	struct objtab_stats st;
};

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Add an object (in an evicted id's slot if any); its id, or 0 when full or short of memory. */
static uint32_t obj_add(struct objtab *ot, enum obj_kind kind, const char *path)
{
	uint32_t id;
	struct obj *o;

	if (ot->live >= ot->max_objects || (!ot->nr_free && ot->nr >= UINT32_MAX - 1)) {
		ot->st.objects_dropped++;
		if (!ot->warned_full)
			pr_warn("symbolizer: more than %zu objects: frames of new ones are "
				"%s\n", ot->max_objects, OBJTAB_UNKNOWN);
		ot->warned_full = true;
		return 0;
	}
	if (!ot->nr_free && ot->nr == ot->cap) {
		size_t cap = ot->cap ? ot->cap * 2 : 64;

		o = realloc(ot->objs, cap * sizeof(*o));
		if (!o)
			return 0;
		ot->objs = o;
		ot->cap = cap;
	}
	id = ot->nr_free ? ot->free_ids[ot->nr_free - 1] : (uint32_t)ot->nr + 1;
	o = &ot->objs[id - 1];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->map_dirfd = -1;
	o->path = strdup(path);
	if (!o->path)
		return 0;
	o->base = basename_of(o->path);
	o->used = true;
	if (ot->nr_free)
		ot->nr_free--;
	else
		ot->nr++;
	ot->live++;
	return id;
}

/* Remember @o under (@a, @b) in ids. 0 or -ENOMEM. */
static int obj_key(struct objtab *ot, struct obj *o, uint32_t id, uint64_t a, uint64_t b)
{
	if (keymap__put(&ot->ids, a, b, id))
		return -ENOMEM;
	o->key_a = a;
	o->key_b = b;
	o->keyed = true;
	return 0;
}

static struct obj *obj_get(const struct objtab *ot, uint32_t id)
{
	return id && id <= ot->nr && ot->objs[id - 1].used ? &ot->objs[id - 1] : NULL;
}

/*
 * Open @path if it is a regular file: never open a device or FIFO someone
 * mapped (side effects, blocking). -ENOEXEC for those, so the mapping is
 * treated like anonymous memory.
 */
static int open_regular(const char *path, struct stat *st)
{
	int fd;

	if (stat(path, st))
		return -errno;
	if (!S_ISREG(st->st_mode))
		return -ENOEXEC;
	/* O_NONBLOCK: should it have become a FIFO since the stat() */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	return fd;
}

/*
 * Open a mapped file: /proc/PID/map_files/<range> is the exact file even if
 * deleted or in another mount namespace, but needs CAP_SYS_ADMIN; otherwise
 * fall back to /proc/PID/root/<path> and make sure it is still the same
 * inode (it may have been replaced since it was mapped).
 */
int objtab_open_mapped(const char *proc_root, uint32_t tgid, const struct procmap *m)
{
	char path[4096];
	struct stat st;
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", proc_root, tgid,
		     (unsigned long long)m->start, (unsigned long long)m->end);
	fd = n < (int)sizeof(path) ? open_regular(path, &st) : -ENAMETOOLONG;
	if (fd >= 0 || fd == -ENOEXEC)
		return fd;
	if (m->deleted)		/* the path names another file now, or none */
		return -ENOENT;
	n = snprintf(path, sizeof(path), "%s/%u/root%s", proc_root, tgid, m->path);
	if (n >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open_regular(path, &st);
	if (fd >= 0 && st.st_ino != m->inode) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

static void obj_open_file(struct objtab *ot, struct obj *o, uint32_t tgid,
			  const struct procmap *m)
{
	struct elf_syms_opts eo = { .path = m->path, .debug_root = ot->debug_root,
				    .fetch = ot->fetch };
	char root[4096];
	int fd;

	fd = objtab_open_mapped(ot->proc_root, tgid, m);
	if (fd < 0) {
		o->err = fd;
	} else {
		/* debuglink siblings are looked up in the process's mount namespace */
		if (snprintf(root, sizeof(root), "%s/%u/root", ot->proc_root, tgid) <
		    (int)sizeof(root))
			eo.root = root;
		o->es = elf_syms__open(fd, &eo);
		o->err = o->es ? 0 : -errno;
	}
	if (o->es) {
		ot->st.objects++;
		return;
	}
	ot->st.object_errors++;
	pr_debug("symbolizer: cannot open '%s' of pid %u: %s\n", m->path, tgid,
		 strerror(-o->err));
}

uint32_t objtab__file(struct objtab *ot, uint32_t tgid, const struct procmap *m, bool *not_elf)
{
	uint64_t dev = (uint64_t)m->dev_major << 32 | m->dev_minor, id;
	struct obj *o;

	if (!keymap__get(&ot->ids, dev, m->inode, &id)) {
		id = obj_add(ot, OBJ_ELF, m->path);
		o = obj_get(ot, (uint32_t)id);
		if (!o)
			return 0;
		obj_open_file(ot, o, tgid, m);
		/* a failed object is remembered too: not retried for every mapping */
		if (obj_key(ot, o, (uint32_t)id, dev, m->inode))
			return 0;
	}
	o = obj_get(ot, (uint32_t)id);
	o->touched = true;
	if (not_elf)
		*not_elf = o->err == -ENOEXEC;
	return (uint32_t)id;
}

uint32_t objtab__known(struct objtab *ot, const struct procmap *m, bool *not_elf)
{
	uint64_t a = (uint64_t)m->dev_major << 32 | m->dev_minor, b = m->inode, id;
	struct obj *o;

	if (m->kind == PROCMAP_VDSO) {
		a = 0;
		b = m->end - m->start;
	} else if (m->kind != PROCMAP_FILE) {
		return 0;
	}
	if (!keymap__get(&ot->ids, a, b, &id))
		return 0;
	o = obj_get(ot, (uint32_t)id);
	if (!o)
		return 0;
	o->touched = true;
	if (not_elf)
		*not_elf = o->err == -ENOEXEC;
	return (uint32_t)id;
}

/* The vdso is the same image in every process of one ABI: cache it by size. */
uint32_t objtab__vdso(struct objtab *ot, uint32_t tgid, const struct procmap *m)
{
	uint64_t size = m->end - m->start, id = 0;
	char path[4096];
	struct obj *o;
	ssize_t n = -1;
	void *image;
	int fd;

	/* key (dev 0:0, size): no file lives on device 0:0 */
	if (keymap__get(&ot->ids, 0, size, &id)) {
		obj_get(ot, (uint32_t)id)->touched = true;
		return (uint32_t)id;
	}
	if (size > OBJTAB_VDSO_MAX)
		return 0;
	image = malloc(size);
	if (!image)
		return 0;
	snprintf(path, sizeof(path), "%s/%u/mem", ot->proc_root, tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, image, size, (off_t)m->start);
		close(fd);
	}
	if (n != (ssize_t)size) {
		/* not cached: the next process may let us read it */
		pr_debug("symbolizer: cannot read the vdso of pid %u\n", tgid);
		free(image);
		return 0;
	}
	id = obj_add(ot, OBJ_VDSO, "[vdso]");
	o = obj_get(ot, (uint32_t)id);
	if (o) {
		o->es = elf_syms__open_mem(image, size);
		o->err = o->es ? 0 : -errno;
		if (o->es)
			ot->st.objects++;
		else
			ot->st.object_errors++;
		if (obj_key(ot, o, (uint32_t)id, 0, size))
			id = 0;
	}
	free(image);
	return (uint32_t)id;
}

/*
 * /tmp inside @tgid's root: JITs write their map there, whatever our own
 * perfmap_dir is. RESOLVE_IN_ROOT keeps symlinks planted in the container
 * from leading out of it. Without openat2 (before 5.6, or filtered by
 * seccomp) a symlinked /tmp is refused instead.
 */
static int open_ns_dir(const struct objtab *ot, uint32_t tgid)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char path[4096];
	int rootfd, fd;

	snprintf(path, sizeof(path), "%s/%u/root", ot->proc_root, tgid);
	rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, rootfd, "/tmp", &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		fd = openat(rootfd, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(rootfd);
	return fd;
}

uint32_t objtab__jit(struct objtab *ot, uint32_t tgid, uint32_t nspid, uid_t uid)
{
	uint32_t id = obj_add(ot, OBJ_JIT, "[jit]");
	struct obj *o = obj_get(ot, id);

	if (!o)
		return 0;
	o->tgid = tgid;
	o->map_pid = tgid;
	o->uid = uid;
	if (nspid && nspid != tgid) {
		o->map_pid = nspid;
		o->map_dirfd = open_ns_dir(ot, tgid);
		if (o->map_dirfd < 0)
			pr_debug("symbolizer: no perf map directory for pid %u: %s\n", tgid,
				 strerror(-o->map_dirfd));
	}
	return id;
}

static void name_unknown(char *buf, size_t len, unsigned int *flags)
{
	snprintf(buf, len, "%s", OBJTAB_UNKNOWN);
	*flags |= SYM_F_UNKNOWN;
}

/*
 * The perf map is read on first use, normally at write time when the JIT has
 * written all of it; a miss reloads it (at most once a second) in case it
 * grew since.
 */
static const char *jit_lookup(struct objtab *ot, struct obj *o, uint64_t ip)
{
	const char *name = o->pm ? perfmap__lookup(o->pm, ip, NULL) : NULL;
	struct perfmap *pm;
	uint64_t now;

	if (name)
		return name;
	now = clock_mono_ns();
	if (o->pm_checked_ns && now - o->pm_checked_ns < OBJTAB_RELOAD_NS)
		return NULL;
	o->pm_checked_ns = now;
	if (o->map_pid != o->tgid)
		pm = o->map_dirfd >= 0 ?
			     perfmap__load_at(o->map_dirfd, "/tmp", o->map_pid, o->uid) :
			     NULL;
	else
		pm = perfmap__load(ot->perfmap_dir, o->tgid, o->uid);
	if (!pm)
		return NULL;
	perfmap__free(o->pm);
	o->pm = pm;
	return perfmap__lookup(o->pm, ip, NULL);
}

int objtab__info(struct objtab *ot, uint32_t id, uint64_t addr, struct objtab_info *out)
{
	struct obj *o = obj_get(ot, id);
	const uint8_t *b = NULL;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (!o)
		return -ENOENT;
	out->path = o->path;
	if (o->es) {
		b = elf_syms__build_id(o->es, &n);
		if (elf_syms__segment_of(o->es, addr, &out->seg_start, &out->seg_end))
			out->seg_start = out->seg_end = 0;
	}
	/*
	 * By hand, not one snprintf a byte: this runs for every user frame
	 * named, and 20 snprintf calls a frame were 14 % of the agent's CPU
	 * under PostgreSQL + nginx (bench/RESULTS.md, session 11)
	 */
	if (b && n * 2 < sizeof(out->build_id)) {
		static const char hex[] = "0123456789abcdef";

		for (size_t i = 0; i < n; i++) {
			out->build_id[2 * i] = hex[b[i] >> 4];
			out->build_id[2 * i + 1] = hex[b[i] & 0xf];
		}
		out->build_id[2 * n] = '\0';
	}
	return 0;
}

int objtab__name(struct objtab *ot, uint32_t id, uint64_t addr, char *buf, size_t len,
		 unsigned int *flags)
{
	uint64_t sym_off;

	return objtab__name_off(ot, id, addr, buf, len, flags, &sym_off);
}

int objtab__name_off(struct objtab *ot, uint32_t id, uint64_t addr, char *buf, size_t len,
		     unsigned int *flags, uint64_t *sym_off)
{
	struct obj *o = obj_get(ot, id);
	const char *name = NULL;
	uint64_t start, size;
	int err;

	*sym_off = UINT64_MAX;
	if (!o) {
		name_unknown(buf, len, flags);
		return id ? -ENOENT : 0;
	}
	o->touched = true;
	if (o->kind == OBJ_JIT) {
		/* anonymous executable memory: only the JIT itself knows the names */
		*flags |= SYM_F_JIT;
		name = jit_lookup(ot, o, addr);
		if (name)
			snprintf(buf, len, "%s", name);
		else
			name_unknown(buf, len, flags);
		return 0;
	}
	if (o->es) {
		err = elf_syms__load(o->es);
		name = elf_syms__lookup_off(o->es, addr, sym_off);
	} else {
		err = o->err;
	}
	if (name) {
		demangle_or_copy(name, ot->demangle, buf, len);
		return 0;
	}
	*sym_off = UINT64_MAX;
	/*
	 * Never guess a neighbour's name: the offset still tells a human
	 * where. Without .symtab the FDE bounds say which function: its start
	 * names it, so one hot function is one frame, not one per address.
	 */
	if (o->es && !elf_syms__fde_func(o->es, addr, &start, &size))
		addr = start;
	snprintf(buf, len, "%s+0x%llx", o->base, (unsigned long long)addr);
	*flags |= SYM_F_UNKNOWN;
	return err;
}

int objtab__srcline(struct objtab *ot, uint32_t id, uint64_t addr, struct srcline_frame *out,
		    size_t max)
{
	struct obj *o = obj_get(ot, id);
	uint64_t vaddr;
	int fd, n;

	if (!o || !o->es || o->kind != OBJ_ELF)
		return 0;
	o->touched = true;
	if (!o->sl_tried) {
		o->sl_tried = true;
		/* the DWARF's fd is kept by the symbol load, which must come first */
		if (!elf_syms__load(o->es) && (fd = elf_syms__take_dwarf_fd(o->es)) >= 0) {
			o->sl = srcline__open(fd);
			ot->st.srcline_objects += o->sl != NULL;
		}
	}
	if (!o->sl || elf_syms__off_to_vaddr(o->es, addr, &vaddr))
		return 0;
	n = srcline__get(o->sl, vaddr, ot->demangle, out, max);
	if (n == -ENOSPC)
		ot->st.srclines_skipped++;
	return n > 0 ? n : 0;
}

static void obj_release(struct obj *o)
{
	srcline__free(o->sl);
	elf_syms__free(o->es);
	perfmap__free(o->pm);
	if (o->map_dirfd >= 0)
		close(o->map_dirfd);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->map_dirfd = -1;
}

void objtab__mark(struct objtab *ot, uint32_t id)
{
	struct obj *o = obj_get(ot, id);

	if (o)
		o->marked = true;
}

size_t objtab__sweep(struct objtab *ot)
{
	size_t freed = 0;
	uint32_t *ids;

	/* room for every id up front: eviction itself never fails half-way */
	if (ot->nr > ot->nr_free) {
		ids = realloc(ot->free_ids, ot->nr * sizeof(*ids));
		if (!ids)
			return 0;
		ot->free_ids = ids;
	}
	/* from the top down, so the lowest ids are reused first */
	for (size_t i = ot->nr; i-- > 0;) {
		struct obj *o = &ot->objs[i];

		if (!o->used)
			continue;
		/* mapped by a live process, or in use since the last sweep: kept */
		if (o->marked || o->touched) {
			o->marked = o->touched = false;
			continue;
		}
		if (o->keyed)
			keymap__del(&ot->ids, o->key_a, o->key_b, NULL);
		obj_release(o);
		ot->free_ids[ot->nr_free++] = (uint32_t)i + 1;
		ot->live--;
		freed++;
	}
	ot->st.objects_evicted += freed;
	return freed;
}

void objtab__stats(const struct objtab *ot, struct objtab_stats *st)
{
	*st = ot->st;
	st->objects_live = ot->live;
}

struct objtab *objtab__new(const struct objtab_opts *o)
{
	struct objtab *ot = calloc(1, sizeof(*ot));

	if (!ot)
		return NULL;
	keymap__init(&ot->ids);
	ot->proc_root = strdup(o->proc_root);
	ot->debug_root = strdup(o->debug_root);
	ot->fetch = o->fetch;
	ot->perfmap_dir = strdup(o->perfmap_dir);
	ot->max_objects = o->max_objects;
	ot->demangle = o->demangle;
	if (!ot->proc_root || !ot->debug_root || !ot->perfmap_dir) {
		objtab__free(ot);
		errno = ENOMEM;
		return NULL;
	}
	return ot;
}

void objtab__free(struct objtab *ot)
{
	size_t i;

	if (!ot)
		return;
	for (i = 0; i < ot->nr; i++)
		if (ot->objs[i].used)
			obj_release(&ot->objs[i]);
	free(ot->objs);
	free(ot->free_ids);
	keymap__release(&ot->ids);
	free(ot->proc_root);
	free(ot->debug_root);
	free(ot->perfmap_dir);
	free(ot);
}
