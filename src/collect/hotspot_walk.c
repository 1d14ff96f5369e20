// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * HotSpot JVMs for the BPF walker (see hotspot_walk.h): their layouts, read
 * by sym/hotspot_layout.c, into hotspot_procs as struct hc_hs_proc.
 */
#include "collect/hotspot_walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/hotspot.h"
#include "collect/collector.h"
#include "sym/hotspot_elf.h"
#include "sym/hotspot_layout.h"
#include "sym/keymap.h"
#include "sym/procmaps.h"
#include "util/clock.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_hs_proc) == 168, "hc_hs_proc ABI changed");
_Static_assert(HOTSPOT_LAYOUT_HEAPS == HC_HS_MAX_HEAPS, "heaps the layout holds, the walker searches");
_Static_assert(HOTSPOT_LAYOUT_HEAD <= HC_HS_HEAD_MAX, "a block's head the walker reads");

/*
 * A VM still starting (tables not set up, no code heaps or interpreter
 * yet) is read again after HW_RETRY_MIN_NS, doubling up to
 * HW_RETRY_START_NS while it may be starting (a `java` is walkable some
 * 100 ms in: its samples until then end at their first Java frame), then
 * every HW_RETRY_MAX_NS; HW_POLL_READS reads per poll at most (each is a
 * few hundred small reads of its memory).
 */
#define HW_RETRY_MIN_NS		20000000ull
#define HW_RETRY_START_NS	200000000ull
#define HW_RETRY_MAX_NS		2000000000ull
#define HW_START_TRIES		30	/* about 5 s */
#define HW_POLL_READS		4
/* ... and given up after this many (about two minutes: a VM that never starts, or not ours to read) */
#define HW_MAX_TRIES		90

enum hw_state {
	HW_STARTING,	/* read again at retry_ns */
	HW_WALKED,	/* in hotspot_procs */
	HW_REFUSED,	/* said once; its stacks end at their first Java frame */
};

struct hw_proc {
	uint32_t tgid;
	enum hw_state state;
	struct procmap jvm;	/* libjvm.so's mapping; path owned */
	uint64_t retry_ns, backoff_ns;
	unsigned int tries;
};

struct hotspot_walk {
	char *proc_root;
	int procs_fd, nprocs_fd;
	struct keymap procs;	/* tgid -> struct hw_proc * */
	uint32_t nprocs;	/* entries in hotspot_procs */
	uint64_t walked, refused, map_errors;
};

int hotspot_walk__new(struct hotspot_walk **out, const char *proc_root)
{
	struct hotspot_walk *hw = calloc(1, sizeof(*hw));
	LIBBPF_OPTS(bpf_map_create_opts, no_prealloc, .map_flags = BPF_F_NO_PREALLOC);
	int err;

	if (!hw)
		return -ENOMEM;
	hw->nprocs_fd = -1;
	keymap__init(&hw->procs);
	hw->proc_root = strdup(proc_root);
	if (!hw->proc_root) {
		err = -ENOMEM;
		goto err_free;
	}
	/* the same shape as bpf/shared_maps.bpf.h declares (bpf_map__reuse_fd checks it) */
	hw->procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "hotspot_procs", sizeof(__u32),
				      sizeof(struct hc_hs_proc), 256, &no_prealloc);
	if (hw->procs_fd < 0) {
		err = -errno;
		goto err_free;
	}
	hw->nprocs_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "hotspot_nprocs", sizeof(__u32),
				       sizeof(__u32), 1, NULL);
	if (hw->nprocs_fd < 0) {
		err = -errno;
		goto err_free;
	}
	*out = hw;
	return 0;

err_free:
	hotspot_walk__free(hw);
	return err;
}

static void proc_free(struct hw_proc *p)
{
	if (!p)
		return;
	free((char *)p->jvm.path);
	free(p);
}

void hotspot_walk__free(struct hotspot_walk *hw)
{
	size_t it = 0;
	uint64_t v;

	if (!hw)
		return;
	while (keymap__next(&hw->procs, &it, &v))
		proc_free((struct hw_proc *)(uintptr_t)v);
	keymap__release(&hw->procs);
	if (hw->procs_fd >= 0)
		close(hw->procs_fd);
	if (hw->nprocs_fd >= 0)
		close(hw->nprocs_fd);
	free(hw->proc_root);
	free(hw);
}

int hotspot_walk__procs_fd(const struct hotspot_walk *hw)
{
	return hw->procs_fd;
}

int hotspot_walk__nprocs_fd(const struct hotspot_walk *hw)
{
	return hw->nprocs_fd;
}

int hotspot_walk_reuse_maps(const struct collector_env *env, struct bpf_map *procs,
			    struct bpf_map *nprocs)
{
	int err;

	if (!env->hotspot)
		return 0;
	err = bpf_map__reuse_fd(procs, env->hotspot_procs_fd);
	return err ? err : bpf_map__reuse_fd(nprocs, env->hotspot_nprocs_fd);
}

/* hotspot_procs' size for the BPF side's gate (hotspot_nprocs) */
static void nprocs_publish(struct hotspot_walk *hw)
{
	__u32 zero = 0, n = hw->nprocs;

	if (bpf_map_update_elem(hw->nprocs_fd, &zero, &n, BPF_ANY))
		hw->map_errors++;
}

static void to_abi(const struct hotspot_layout *l, struct hc_hs_proc *v)
{
	memset(v, 0, sizeof(*v));
	v->cc_lo = l->cc_lo;
	v->cc_hi = l->cc_hi;
	v->interp_lo = l->interp_lo;
	v->interp_hi = l->interp_hi;
	for (uint32_t i = 0; i < HC_HS_MAX_HEAPS; i++) {
		/* unused keys sort last: hc_cfi_keys_search() never picks them */
		v->heap_keys[i] = UINT32_MAX;
		if (i >= l->nr_heaps)
			continue;
		v->heaps[i].lo = l->heaps[i].lo;
		v->heaps[i].hi = l->heaps[i].hi;
		v->heaps[i].segmap = l->heaps[i].segmap;
		v->heap_keys[i] = (__u32)(l->heaps[i].lo - l->cc_lo);
	}
	v->seg_shift = l->seg_shift;
	v->blob_off = (__u16)l->blob_off;
	v->used_off = (__u16)l->used_off;
	v->size_off = (__u16)l->size_off;
	v->frame_size_off = (__u16)l->frame_size_off;
	v->frame_done_off = (__u16)l->frame_done_off;
	v->code_off = (__u16)l->code_off;
	v->head_len = (__u16)l->head_len;
	v->frame_done_shift = l->frame_done_width == 2 ? 16 : 0;
	v->code_is_offset = l->code_is_offset;
	v->method_cm_off = (__u16)l->method_cm_off;
}

static int publish(struct hotspot_walk *hw, struct hw_proc *p, const struct hotspot_layout *l)
{
	struct hc_hs_proc v;
	__u32 key = p->tgid;

	to_abi(l, &v);
	if (bpf_map_update_elem(hw->procs_fd, &key, &v, BPF_ANY)) {
		hw->map_errors++;
		return -errno;
	}
	p->state = HW_WALKED;
	hw->nprocs++;
	hw->walked++;
	nprocs_publish(hw);
	pr_debug("hotspot: pid %u: Java frames walked (version %s, %u code heaps, interpreter "
		 "at [%#llx, %#llx))\n", p->tgid, l->version, l->nr_heaps,
		 (unsigned long long)l->interp_lo, (unsigned long long)l->interp_hi);
	return 0;
}

/* Read @p's layout: published, refused (said once) or to be read again. */
static int try_read(struct hotspot_walk *hw, struct hw_proc *p)
{
	struct hotspot_layout l;
	char why[256];
	int err;

	err = hotspot_layout_read(hw->proc_root, p->tgid, &p->jvm, &l, why, sizeof(why));
	if (!err)
		return publish(hw, p, &l);
	if (err == -EPERM) {
		p->state = HW_REFUSED;
		hw->refused++;
		pr_info("hotspot: pid %u: %s: its stacks end at their first Java frame\n",
			p->tgid, why);
		return 0;
	}
	if (err != -EAGAIN)
		return err;
	if (++p->tries >= HW_MAX_TRIES) {
		p->state = HW_REFUSED;
		pr_debug("hotspot: pid %u: the VM's layout could not be read in %u tries: its stacks "
			 "end at their first Java frame\n", p->tgid, p->tries);
		return 0;
	}
	p->retry_ns = clock_mono_ns() + p->backoff_ns;
	p->backoff_ns *= 2;
	if (p->backoff_ns > HW_RETRY_START_NS)
		p->backoff_ns = p->tries < HW_START_TRIES ? HW_RETRY_START_NS : HW_RETRY_MAX_NS;
	return 0;
}

static struct hw_proc *proc_find(const struct hotspot_walk *hw, uint32_t tgid)
{
	uint64_t v;

	return keymap__get(&hw->procs, tgid, 0, &v) ? (struct hw_proc *)(uintptr_t)v : NULL;
}

int hotspot_walk__add_process(struct hotspot_walk *hw, uint32_t tgid, const struct procmaps *pm)
{
	const struct procmap *m = NULL;
	struct hw_proc *p;

	for (size_t i = 0; i < procmaps__nr(pm) && !m; i++) {
		const struct procmap *e = procmaps__entry(pm, i);

		if (e->kind == PROCMAP_FILE && (e->perms & PROCMAP_X) &&
		    hotspot_elf_candidate(e->path))
			m = e;
	}
	if (!m)
		return 0;
	p = proc_find(hw, tgid);
	/* every re-read of the maps comes here: the same libjvm.so keeps what was read */
	if (p && p->jvm.start == m->start && p->jvm.inode == m->inode)
		return 0;
	hotspot_walk__forget(hw, tgid);	/* another image (exec) */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	p->state = HW_STARTING;
	p->jvm = *m;
	p->jvm.path = strdup(m->path);
	p->backoff_ns = HW_RETRY_MIN_NS;
	if (!p->jvm.path || keymap__put(&hw->procs, tgid, 0, (uintptr_t)p)) {
		proc_free(p);
		return -ENOMEM;
	}
	return try_read(hw, p);
}

bool hotspot_walk__known(const struct hotspot_walk *hw, uint32_t tgid)
{
	return proc_find(hw, tgid) != NULL;
}

void hotspot_walk__poll(struct hotspot_walk *hw)
{
	uint64_t now = clock_mono_ns(), v;
	size_t it = 0;
	int reads = 0;

	/* try_read() changes no key: the walk may go on over the map */
	while (reads < HW_POLL_READS && keymap__next(&hw->procs, &it, &v)) {
		struct hw_proc *p = (struct hw_proc *)(uintptr_t)v;

		if (p->state != HW_STARTING || now < p->retry_ns)
			continue;
		reads++;
		if (try_read(hw, p))
			hw->map_errors++;
	}
}

void hotspot_walk__forget(struct hotspot_walk *hw, uint32_t tgid)
{
	uint64_t v;
	struct hw_proc *p;

	if (!hw || !keymap__del(&hw->procs, tgid, 0, &v))
		return;
	p = (struct hw_proc *)(uintptr_t)v;
	if (p->state == HW_WALKED) {
		bpf_map_delete_elem(hw->procs_fd, &tgid);
		if (hw->nprocs)
			hw->nprocs--;
		nprocs_publish(hw);
	}
	proc_free(p);
}

void hotspot_walk__report(const struct hotspot_walk *hw, int verbose)
{
	size_t it = 0, starting = 0;
	uint64_t v;

	if (!hw)
		return;
	if (hw->map_errors)
		pr_warn("hotspot: %llu JVM layouts not published (BPF map update failed): their "
			"stacks end at their first Java frame\n", (unsigned long long)hw->map_errors);
	if (!verbose)
		return;
	while (keymap__next(&hw->procs, &it, &v))
		starting += ((struct hw_proc *)(uintptr_t)v)->state == HW_STARTING;
	if (hw->walked || hw->refused || starting)
		pr_info("hotspot: %llu JVMs' Java frames walked, %llu refused, %zu still starting "
			"at the end\n", (unsigned long long)hw->walked,
			(unsigned long long)hw->refused, starting);
}
