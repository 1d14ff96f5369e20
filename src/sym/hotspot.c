// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * HotSpot JVMs by tgid, and a code cache pc to its name: segment map ->
 * block -> CodeBlob -> Method* -> "pkg.Class.method" (see hotspot.h). The
 * layout comes from hotspot_attach.c; the pure steps from hotspot_names.c.
 */
#include "sym/hotspot.h"

#include <linux/types.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/hotspot.h"
#include "sym/hotspot_int.h"
#include "sym/hotspot_names.h"
#include "util/clock.h"
#include "util/log.h"

/*
 * Names are read when frames are named (at write time), so a blob freed
 * since its sample and reused by another method is named after what is
 * there now; within a naming pass a cached pc -> blob and blob -> name are
 * trusted for HS_FRESH_NS, after which the blob's Method* (and name) are
 * read again and a changed blob is named again.
 */
#define HS_FRESH_NS	1000000000ull
#define HS_MAX_PCS	65536	/* pc -> blob entries per JVM, emptied when full */
#define HS_MAX_BLOBS	16384	/* blob -> name entries per JVM, emptied when full */
#define HS_SEG_WINDOW	256	/* segment map bytes per read */
#define HS_SEG_READS	32	/* reads per walk at most: blobs up to 8 Ki segments */
#define HS_SYM_MAX	256	/* bytes of a Symbol's body read at most */
#define HS_SYM_FIRST	64	/* ... in the first read, with its header */
#define HS_TEXT_LEN	512

struct hotspot {
	char *proc_root;
	struct keymap procs;		/* tgid -> struct hs_proc * */
	struct hotspot_stats st;
};

/* A blob's name and what it was made from. */
struct hs_blob {
	uint64_t method;	/* the nmethod's Method* (other blobs: the bytes there) */
	uint64_t name_ptr;	/* CodeBlob::_name */
	uint64_t size;		/* CodeBlob::_size */
	uint64_t checked_ns;	/* when the two were last read */
	char text[];
};

/* The fields of a block's header and its blob that naming reads. */
struct hs_head {
	uint64_t name_ptr, method, size;
	int kind;		/* CodeBlob::_kind, or -1 (JDK < 23) */
	bool used;		/* HeapBlock::Header::_used (true when the VM has none) */
};

static struct hs_proc *proc_find(const struct hotspot *hs, uint32_t tgid)
{
	uint64_t v;

	return keymap__get(&hs->procs, tgid, 0, &v) ? (struct hs_proc *)(uintptr_t)v : NULL;
}

/* Empty a keymap whose values are malloc()ed (blobs, methods). */
static void names_clear(struct keymap *m)
{
	size_t it = 0;
	uint64_t v;

	while (keymap__next(m, &it, &v))
		free((void *)(uintptr_t)v);
	keymap__release(m);
	keymap__init(m);
}

static void blobs_clear(struct hs_proc *p)
{
	names_clear(&p->blobs);
	names_clear(&p->methods);
}

static void proc_free(struct hs_proc *p)
{
	if (!p)
		return;
	blobs_clear(p);
	keymap__release(&p->pcs);
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	free((char *)p->jvm.path);
	free(p);
}

struct hotspot *hotspot__new(const char *proc_root)
{
	struct hotspot *hs = calloc(1, sizeof(*hs));

	if (!hs)
		return NULL;
	keymap__init(&hs->procs);
	hs->proc_root = strdup(proc_root);
	if (!hs->proc_root) {
		free(hs);
		errno = ENOMEM;
		return NULL;
	}
	return hs;
}

void hotspot__free(struct hotspot *hs)
{
	size_t it = 0;
	uint64_t v;

	if (!hs)
		return;
	while (keymap__next(&hs->procs, &it, &v))
		proc_free((struct hs_proc *)(uintptr_t)v);
	keymap__release(&hs->procs);
	free(hs->proc_root);
	free(hs);
}

int hotspot__add_process(struct hotspot *hs, uint32_t tgid, const struct procmap *m)
{
	struct hs_proc *p = proc_find(hs, tgid);

	/* every re-read of the maps calls again: the same libjvm.so keeps what was read */
	if (p && !p->gone && p->jvm.start == m->start && p->jvm.inode == m->inode)
		return 0;
	if (p && keymap__del(&hs->procs, tgid, 0, NULL))
		proc_free(p);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	p->mem_fd = -1;
	p->jvm = *m;
	p->jvm.path = strdup(m->path);
	keymap__init(&p->pcs);
	keymap__init(&p->blobs);
	keymap__init(&p->methods);
	if (!p->jvm.path || keymap__put(&hs->procs, tgid, 0, (uintptr_t)p)) {
		proc_free(p);
		return -ENOMEM;
	}
	return 0;
}

void hotspot__forget(struct hotspot *hs, uint32_t tgid)
{
	struct hs_proc *p = hs ? proc_find(hs, tgid) : NULL;

	if (!p)
		return;
	/* the pid may be reused: never read through it again */
	p->gone = true;
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	p->mem_fd = -1;
	blobs_clear(p);
	keymap__release(&p->pcs);
	keymap__init(&p->pcs);
}

void hotspot__prune(struct hotspot *hs)
{
	uint32_t gone[64];
	size_t it, nr;
	uint64_t v;

	if (!hs)
		return;
	/* collected first (a batch at a time): the keymap must not change during the walk */
	do {
		it = nr = 0;
		while (nr < sizeof(gone) / sizeof(gone[0]) && keymap__next(&hs->procs, &it, &v))
			if (((struct hs_proc *)(uintptr_t)v)->gone)
				gone[nr++] = ((struct hs_proc *)(uintptr_t)v)->tgid;
		for (size_t i = 0; i < nr; i++)
			if (keymap__del(&hs->procs, gone[i], 0, &v))
				proc_free((struct hs_proc *)(uintptr_t)v);
	} while (nr == sizeof(gone) / sizeof(gone[0]));
}

void hotspot__stats(const struct hotspot *hs, struct hotspot_stats *st)
{
	*st = hs->st;
}

/* ---- a pc to its blob ---------------------------------------------------- */

static const struct hs_heap *heap_of(const struct hs_proc *p, uint64_t pc)
{
	for (size_t i = 0; i < p->nr_heaps; i++)
		if (pc >= p->heaps[i].lo && pc < p->heaps[i].hi)
			return &p->heaps[i];
	return NULL;
}

/* The block holding @pc in heap @h: 0, -ENXIO (free, or a walk too long), -errno. */
static int find_block(struct hs_proc *p, const struct hs_heap *h, uint64_t pc, uint64_t *block)
{
	uint64_t seg = (pc - h->lo) >> p->seg_shift;
	uint8_t map[HS_SEG_WINDOW];
	int err = -EAGAIN;

	/* a window ending at the segment: a compiled method's walk is one read */
	for (int i = 0; i < HS_SEG_READS && err == -EAGAIN; i++) {
		uint64_t first = seg >= HS_SEG_WINDOW - 1 ? seg - (HS_SEG_WINDOW - 1) : 0;
		size_t n = (size_t)(seg - first + 1);

		err = hs_read_exact(p, h->segmap + first, map, n);
		if (err)
			return err;
		err = hotspot_segmap_walk(map, first, n, &seg);
	}
	if (err)
		return -ENXIO;
	*block = h->lo + (seg << p->seg_shift);
	return 0;
}

static uint64_t get_u64(const uint8_t *b, uint64_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* The block at @block: its header, and the fields of the blob that follows it. */
static int read_head(struct hs_proc *p, uint64_t block, struct hs_head *hd)
{
	const struct hotspot_vm *vm = &p->vm;
	uint64_t blob_off = vm->v[HS_HB_SIZE];
	uint8_t b[HS_HEAD_MAX];
	int32_t size;
	long got;

	/*
	 * A small blob last in the heap's committed memory may end before
	 * head_len: what was not read is 0, which names nothing (a NULL name,
	 * a size of 0 puts the pc outside it, a NULL Method*)
	 */
	memset(hd, 0, sizeof(*hd));
	got = hs_read(p, block, b, p->head_len);
	if (got <= 0)
		return got < 0 && got != -EIO ? (int)got : -EFAULT;
	memset(b + got, 0, p->head_len - (size_t)got);
	hd->used = true;
	if (hotspot_vm_has(vm, HS_HB_USED) && hotspot_vm_has(vm, HS_HB_HEADER))
		hd->used = b[vm->v[HS_HB_HEADER] + vm->v[HS_HB_USED]] != 0;
	hd->name_ptr = get_u64(b, blob_off + vm->v[HS_BLOB_NAME]);
	hd->method = get_u64(b, blob_off + vm->v[HS_NM_METHOD]);
	memcpy(&size, b + blob_off + vm->v[HS_BLOB_SIZE], sizeof(size));
	hd->size = size > 0 ? (uint64_t)size : 0;
	hd->kind = hotspot_vm_has(vm, HS_BLOB_KIND) ? b[blob_off + vm->v[HS_BLOB_KIND]] : -1;
	return 0;
}

/* ---- a blob to its name -------------------------------------------------- */

static int read_ptr(struct hs_proc *p, uint64_t addr, uint64_t *v)
{
	int err = hs_read_exact(p, addr, v, sizeof(*v));

	return err ? err : *v ? 0 : -EINVAL;
}

/*
 * The body of the Symbol at @addr into @buf (@cap >= HS_SYM_MAX), its
 * length in *@n. A Symbol holds modified UTF-8, never a NUL byte: one
 * that does is not a Symbol (a method unloaded since).
 */
static int read_symbol(struct hs_proc *p, uint64_t addr, char *buf, size_t *n)
{
	const struct hotspot_vm *vm = &p->vm;
	uint64_t body = vm->v[HS_SYM_BODY];
	uint8_t head[HS_SYM_FIRST + 64];
	size_t have;
	uint16_t len;
	long got;

	if (body + HS_SYM_FIRST > sizeof(head) || vm->v[HS_SYM_LENGTH] + 2 > body)
		return -EINVAL;
	got = hs_read(p, addr, head, body + HS_SYM_FIRST);
	if (got < (long)body)
		return got < 0 && got != -EIO ? (int)got : -EFAULT;
	memcpy(&len, head + vm->v[HS_SYM_LENGTH], sizeof(len));
	if (!len)
		return -EINVAL;
	if (len > HS_SYM_MAX)
		len = HS_SYM_MAX;	/* cut: a name this long is still told apart */
	have = (size_t)got - body;
	if (have > len)
		have = len;
	memcpy(buf, head + body, have);
	if (have < len && hs_read_exact(p, addr + body + have, buf + have, len - have))
		return -EFAULT;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	*n = len;
	return 0;
}

/* Method* @method -> "pkg.Class.method": Method -> ConstMethod -> ConstantPool -> Symbols. */
static int method_name(struct hs_proc *p, uint64_t method, char *buf, size_t len)
{
	const uint64_t *v = p->vm.v;
	char klass[HS_SYM_MAX], name[HS_SYM_MAX];
	uint64_t cm, cp, holder, ksym, nsym;
	size_t klen, nlen;
	uint16_t idx;
	int err;

	err = read_ptr(p, method + v[HS_METHOD_CONST], &cm);
	if (!err)
		err = read_ptr(p, cm + v[HS_CM_CONSTANTS], &cp);
	if (!err)
		err = hs_read_exact(p, cm + v[HS_CM_NAME], &idx, sizeof(idx));
	if (!err && !idx)
		err = -EINVAL;	/* index 0 is no constant */
	if (!err)
		err = read_ptr(p, cp + v[HS_CP_HOLDER], &holder);
	/* the pool's entries follow it, a word each; a Symbol* there may carry a tag bit */
	if (!err)
		err = read_ptr(p, cp + v[HS_CP_SIZE] + 8ull * idx, &nsym);
	if (!err)
		err = read_ptr(p, holder + v[HS_KLASS_NAME], &ksym);
	if (!err)
		err = read_symbol(p, ksym, klass, &klen);
	if (!err)
		err = read_symbol(p, nsym & ~1ull, name, &nlen);
	if (err)
		return err;
	hotspot_java_name(klass, klen, name, nlen, buf, len);
	return 0;
}

/* The C string at @addr (a blob's name, in libjvm's .rodata) into @buf. */
static int read_cstr(struct hs_proc *p, uint64_t addr, char *buf, size_t len)
{
	long got;

	if (!addr)
		return -EINVAL;
	got = hs_read(p, addr, buf, len - 1);
	if (got <= 0)
		return got < 0 && got != -EIO ? (int)got : -EFAULT;
	buf[got] = '\0';
	return 0;
}

/*
 * What blob @hd is: an nmethod (compiled Java, or a native method's
 * wrapper) is its method's name; the interpreter is one blob for every
 * method: which one runs is in its frame (the Method* the interpreter
 * keeps at fp - 3 words on x86-64), not at the pc, so that is for the stack
 * walk; any other blob (stubs, adapters, runtime stubs) is its name.
 */
static int blob_name(struct hs_proc *p, const struct hs_head *hd, char *buf, size_t len)
{
	char name[64];
	bool nm;
	int err;

	if (hd->kind >= 0 && (uint64_t)hd->kind == p->vm.v[HS_KIND_NMETHOD])
		return method_name(p, hd->method, buf, len);
	err = read_cstr(p, hd->name_ptr, name, sizeof(name));
	if (err)
		return err;
	/* before JDK 23's _kind, an nmethod is told by its name */
	nm = hd->kind < 0 && (!strcmp(name, "nmethod") || !strcmp(name, "native nmethod"));
	if (nm)
		return method_name(p, hd->method, buf, len);
	if (!strcmp(name, "Interpreter"))
		snprintf(buf, len, "%s", HOTSPOT_INTERPRETER);
	else
		hotspot_blob_text(name, buf, len);
	return 0;
}

static void blob_put(struct hs_proc *p, uint64_t blob, const struct hs_head *hd,
		     const char *text, uint64_t now)
{
	size_t n = strlen(text) + 1;
	struct hs_blob *b;
	uint64_t old;

	if (p->blobs.nr >= HS_MAX_BLOBS)
		names_clear(&p->blobs);
	b = malloc(sizeof(*b) + n);
	if (!b)
		return;
	b->method = hd->method;
	b->name_ptr = hd->name_ptr;
	b->size = hd->size;
	b->checked_ns = now;
	memcpy(b->text, text, n);
	if (keymap__get(&p->blobs, blob, 0, &old))
		free((void *)(uintptr_t)old);
	if (keymap__put(&p->blobs, blob, 0, (uintptr_t)b)) {
		keymap__del(&p->blobs, blob, 0, NULL);
		free(b);
	}
}

static struct hs_blob *blob_get(const struct hs_proc *p, uint64_t blob)
{
	uint64_t v;

	return keymap__get(&p->blobs, blob, 0, &v) ? (struct hs_blob *)(uintptr_t)v : NULL;
}

/* @pc in @p's code cache -> its name. 0, -ENXIO (no blob there), -errno (read failed). */
static int name_pc(struct hs_proc *p, uint64_t pc, char *buf, size_t len)
{
	const struct hs_heap *h = heap_of(p, pc);
	uint64_t now = clock_mono_ns(), blob, block, v;
	char text[HS_TEXT_LEN];
	struct hs_head hd;
	struct hs_blob *b;
	int err;

	if (!h)
		return -ENXIO;	/* between the heaps */
	if (now - p->pcs_ns > HS_FRESH_NS || p->pcs.nr >= HS_MAX_PCS) {
		keymap__release(&p->pcs);
		keymap__init(&p->pcs);
		p->pcs_ns = now;
	}
	/* seen within HS_FRESH_NS: no read (a miss walks again, cheap next to a wrong name) */
	if (keymap__get(&p->pcs, pc, 0, &v) && (b = blob_get(p, v)) &&
	    now - b->checked_ns < HS_FRESH_NS && pc < v + b->size) {
		snprintf(buf, len, "%s", b->text);
		return 0;
	}
	err = find_block(p, h, pc, &block);
	if (err)
		return err;
	blob = block + p->vm.v[HS_HB_SIZE];
	err = read_head(p, block, &hd);
	if (err)
		return err;
	if (!hd.used || pc >= blob + hd.size)
		return -ENXIO;	/* freed, or the segment map changed under the walk */
	keymap__put(&p->pcs, pc, 0, blob);	/* a cache: no entry only costs a walk */
	b = blob_get(p, blob);
	if (b && b->method == hd.method && b->name_ptr == hd.name_ptr) {
		b->checked_ns = now;
		b->size = hd.size;
		snprintf(buf, len, "%s", b->text);
		return 0;
	}
	err = blob_name(p, &hd, text, sizeof(text));
	if (err)
		return err;
	blob_put(p, blob, &hd, text, now);
	snprintf(buf, len, "%s", text);
	return 0;
}

static void attach(struct hotspot *hs, struct hs_proc *p)
{
	bool first = p->state == HS_NEW;
	char why[256];

	hs_attach(p, hs->proc_root, why, sizeof(why));
	if (p->state == HS_REFUSED) {
		hs->st.procs_refused++;
		pr_info("hotspot: pid %u: %s: Java frames left unnamed\n", p->tgid, why);
	} else if (p->state == HS_READY) {
		hs->st.procs++;
	} else if (first && p->wait_unreadable) {
		pr_debug("hotspot: pid %u: cannot read the VM's tables (gone, or not ours to "
			 "read)\n", p->tgid);
	}
}

/*
 * @p attached if due, and readable: 0, or the error its frames get, counted
 * (-ENOENT, not counted: a VM without code heaps yet, so nothing of it ran).
 */
static int proc_ready(struct hotspot *hs, struct hs_proc *p)
{
	if (p->gone) {
		/* names are read when the profile is written: a JVM gone by then is not */
		hs->st.unreadable++;
		return -ESRCH;
	}
	if (p->state == HS_NEW || (p->state == HS_WAIT && clock_mono_ns() >= p->retry_ns))
		attach(hs, p);
	if (p->state == HS_REFUSED) {
		hs->st.refused++;
		return -EPERM;
	}
	if (p->state == HS_WAIT) {
		/* no code heaps yet: nothing was compiled, so the pc is not the VM's */
		if (!p->wait_unreadable)
			return -ENOENT;
		hs->st.unreadable++;
		return -EFAULT;
	}
	return 0;
}

int hotspot__name(struct hotspot *hs, uint32_t tgid, uint64_t pc, char *buf, size_t len)
{
	struct hs_proc *p = proc_find(hs, tgid);
	int err;

	if (!p || !len)
		return -ENOENT;
	if (p->gone && p->state == HS_READY && (pc < p->cc_lo || pc >= p->cc_hi))
		return -ENOENT;
	err = proc_ready(hs, p);
	if (err)
		return err;
	if (pc < p->cc_lo || pc >= p->cc_hi)
		return -ENOENT;
	err = name_pc(p, pc, buf, len);
	/* the interpreter's pc names no method: the walk gave none for this frame */
	if (!err && !strcmp(buf, HOTSPOT_INTERPRETER))
		hs->st.interp++;
	else if (!err)
		hs->st.named++;
	else if (err == -ENXIO)
		hs->st.no_blob++;
	else
		hs->st.unreadable++;
	return err;
}

/* The tagged @frame's Method*, checked against the ConstMethod* bits the walk saw, named. */
static int name_method(struct hs_proc *p, uint64_t frame, char *buf, size_t len)
{
	uint64_t m = frame & HC_HS_METHOD_PTR_MASK, now = clock_mono_ns(), cm, v;
	struct hs_blob *b = NULL;
	char text[HS_TEXT_LEN];
	int err;

	if (keymap__get(&p->methods, frame, 0, &v))
		b = (struct hs_blob *)(uintptr_t)v;
	if (b && now - b->checked_ns < HS_FRESH_NS) {
		snprintf(buf, len, "%s", b->text);
		return 0;
	}
	err = read_ptr(p, m + p->vm.v[HS_METHOD_CONST], &cm);
	if (err)
		return err;
	if (((cm >> 3) & 0xff) != ((frame >> HC_HS_METHOD_CHECK_SHIFT) & 0xff))
		return -ESTALE;
	if (b) {
		b->checked_ns = now;
		snprintf(buf, len, "%s", b->text);
		return 0;
	}
	err = method_name(p, m, text, sizeof(text));
	if (err)
		return err;
	if (p->methods.nr >= HS_MAX_BLOBS)
		names_clear(&p->methods);
	b = malloc(sizeof(*b) + strlen(text) + 1);
	if (b) {
		*b = (struct hs_blob){ .method = m, .name_ptr = cm, .checked_ns = now };
		memcpy(b->text, text, strlen(text) + 1);
		if (keymap__put(&p->methods, frame, 0, (uintptr_t)b))
			free(b);	/* a cache: no entry only costs reads */
	}
	snprintf(buf, len, "%s", text);
	return 0;
}

int hotspot__method_name(struct hotspot *hs, uint32_t tgid, uint64_t frame, char *buf, size_t len)
{
	struct hs_proc *p = proc_find(hs, tgid);
	int err;

	if (!len)
		return -EINVAL;
	if (!p) {
		/* the walk read this JVM, naming did not see it map libjvm.so */
		hs->st.unreadable++;
		return -ENOENT;
	}
	err = proc_ready(hs, p);
	if (err == -ENOENT)
		hs->st.unreadable++;	/* the walk saw it run: counted all the same */
	if (err)
		return err;
	err = name_method(p, frame, buf, len);
	if (!err)
		hs->st.named++;
	else if (err == -ESTALE)
		hs->st.stale++;
	else
		hs->st.unreadable++;
	return err;
}
