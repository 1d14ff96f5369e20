// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * V8 processes for the BPF walker (see v8_walk.h): their frame layout,
 * read from the binary by sym/v8_elf.c, into v8_procs as struct hc_v8_proc.
 */
#include "collect/v8_walk.h"

#include <linux/types.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/v8.h"
#include "collect/collector.h"
#include "sym/keymap.h"
#include "sym/loadbias.h"
#include "sym/objtab.h"
#include "sym/procmaps.h"
#include "sym/v8_elf.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_v8_proc) == 24, "hc_v8_proc ABI changed");

enum vw_state {
	VW_WALKED,	/* in v8_procs */
	VW_REFUSED,	/* said once (or no V8 at all): its frames keep their pcs */
};

struct vw_proc {
	uint32_t tgid;
	enum vw_state state;
	uint64_t start, inode;	/* the first candidate's mapping: a new one is an exec */
};

struct v8_walk {
	char *proc_root;
	int procs_fd, nprocs_fd;
	struct keymap procs;	/* tgid -> struct vw_proc * */
	uint32_t nprocs;	/* entries in v8_procs */
	uint64_t walked, refused, perf_map, map_errors;
};

int v8_walk__new(struct v8_walk **out, const char *proc_root)
{
	struct v8_walk *vw = calloc(1, sizeof(*vw));
	LIBBPF_OPTS(bpf_map_create_opts, no_prealloc, .map_flags = BPF_F_NO_PREALLOC);
	int err;

	if (!vw)
		return -ENOMEM;
	vw->nprocs_fd = -1;
	keymap__init(&vw->procs);
	vw->proc_root = strdup(proc_root);
	if (!vw->proc_root) {
		err = -ENOMEM;
		goto err_free;
	}
	/* the same shape as bpf/shared_maps.bpf.h declares (bpf_map__reuse_fd checks it) */
	vw->procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "v8_procs", sizeof(__u32),
				      sizeof(struct hc_v8_proc), 256, &no_prealloc);
	if (vw->procs_fd < 0) {
		err = -errno;
		goto err_free;
	}
	vw->nprocs_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "v8_nprocs", sizeof(__u32),
				       sizeof(__u32), 1, NULL);
	if (vw->nprocs_fd < 0) {
		err = -errno;
		goto err_free;
	}
	*out = vw;
	return 0;

err_free:
	v8_walk__free(vw);
	return err;
}

void v8_walk__free(struct v8_walk *vw)
{
	size_t it = 0;
	uint64_t v;

	if (!vw)
		return;
	while (keymap__next(&vw->procs, &it, &v))
		free((struct vw_proc *)(uintptr_t)v);
	keymap__release(&vw->procs);
	if (vw->procs_fd >= 0)
		close(vw->procs_fd);
	if (vw->nprocs_fd >= 0)
		close(vw->nprocs_fd);
	free(vw->proc_root);
	free(vw);
}

int v8_walk__procs_fd(const struct v8_walk *vw)
{
	return vw->procs_fd;
}

int v8_walk__nprocs_fd(const struct v8_walk *vw)
{
	return vw->nprocs_fd;
}

int v8_walk_reuse_maps(const struct collector_env *env, struct bpf_map *procs,
		       struct bpf_map *nprocs)
{
	int err;

	if (!env->v8)
		return 0;
	err = bpf_map__reuse_fd(procs, env->v8_procs_fd);
	return err ? err : bpf_map__reuse_fd(nprocs, env->v8_nprocs_fd);
}

static void nprocs_publish(struct v8_walk *vw)
{
	__u32 zero = 0, n = vw->nprocs;

	if (bpf_map_update_elem(vw->nprocs_fd, &zero, &n, BPF_ANY))
		vw->map_errors++;
}

/*
 * The walker's entry for @tgid's binary mapped by @m: 0; -EPERM (refused,
 * @why says why; -ENOENT: no V8 in it, nothing to say); -errno.
 */
static int layout_read(struct v8_walk *vw, uint32_t tgid, const struct procmap *m,
		       struct hc_v8_proc *out, char *why, size_t why_len)
{
	struct load_layout ll;
	struct v8_layout l;
	uint64_t bias = 0;
	int fd, err;

	fd = objtab_open_mapped(vw->proc_root, tgid, m);
	if (fd < 0)
		return fd;
	err = v8_elf_read(fd, &l, &ll);
	close(fd);
	if (err)
		return err;
	err = v8_layout_check(&l, why, why_len);
	if (err)
		return err;
	memset(out, 0, sizeof(*out));
	/* the builtins are code: the bias of the binary's executable mapping */
	if (l.blob_size && !load_bias(&ll, m, (uint64_t)sysconf(_SC_PAGESIZE), &bias)) {
		out->blob_lo = l.blob_vaddr + bias;
		out->blob_hi = out->blob_lo + l.blob_size;
	} else {
		/*
		 * A stripped binary (Debian's libnode.so) does not say where its
		 * builtins are: its whole code, then. The walk only looks where it
		 * steps by frame pointer, which in a binary with CFI is where there
		 * is none: the builtins, and little else.
		 */
		out->blob_lo = m->start;
		out->blob_hi = m->end;
	}
	out->fp_function = (__s16)l.v[V8_FP_FUNCTION];
	out->fp_context = (__s16)l.v[V8_FP_CONTEXT];
	out->fn_shared = (__u16)l.v[V8_JSFUNCTION_SHARED];
	out->sfi_name = (__u16)l.v[V8_SFI_NAME_OR_SCOPE_INFO];
	return 0;
}

static struct vw_proc *proc_find(const struct v8_walk *vw, uint32_t tgid)
{
	uint64_t v;

	return keymap__get(&vw->procs, tgid, 0, &v) ? (struct vw_proc *)(uintptr_t)v : NULL;
}

static int publish(struct v8_walk *vw, struct vw_proc *p, const struct hc_v8_proc *v)
{
	__u32 key = p->tgid;

	if (bpf_map_update_elem(vw->procs_fd, &key, v, BPF_ANY)) {
		vw->map_errors++;
		return -errno;
	}
	p->state = VW_WALKED;
	vw->nprocs++;
	vw->walked++;
	nprocs_publish(vw);
	pr_debug("v8: pid %u: JavaScript frames walked (builtins at [%#llx, %#llx))\n", p->tgid,
		 (unsigned long long)v->blob_lo, (unsigned long long)v->blob_hi);
	return 0;
}

/* @pm's executable file mappings of a candidate name from @i on: the next one's index, or -1 */
static ssize_t next_candidate(const struct procmaps *pm, size_t i)
{
	for (; i < procmaps__nr(pm); i++) {
		const struct procmap *e = procmaps__entry(pm, i);

		if (e->kind == PROCMAP_FILE && (e->perms & PROCMAP_X) && v8_elf_candidate(e->path))
			return (ssize_t)i;
	}
	return -1;
}

/*
 * node --perf-basic-prof (or --perf-prof) writes /tmp/perf-PID.map, where
 * the symbolizer finds its JIT frames (sym/perfmap.c) with their script
 * and line: a perf map wins, as for a JVM, and the walk leaves the pcs.
 */
static bool has_perf_map(uint32_t tgid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", tgid);
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int v8_walk__add_process(struct v8_walk *vw, uint32_t tgid, const struct procmaps *pm)
{
	ssize_t i = next_candidate(pm, 0);
	const struct procmap *m;
	struct hc_v8_proc v;
	struct vw_proc *p;
	char why[256];
	int err;

	if (i < 0)
		return 0;
	m = procmaps__entry(pm, (size_t)i);
	p = proc_find(vw, tgid);
	/* every re-read of the maps comes here: the same binary keeps what was read */
	if (p && p->start == m->start && p->inode == m->inode)
		return 0;
	v8_walk__forget(vw, tgid);	/* another image (exec) */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	p->state = VW_REFUSED;
	p->start = m->start;
	p->inode = m->inode;
	if (keymap__put(&vw->procs, tgid, 0, (uintptr_t)p)) {
		free(p);
		return -ENOMEM;
	}
	if (has_perf_map(tgid)) {
		vw->perf_map++;
		pr_debug("v8: pid %u: a perf map names its JIT frames: not walked\n", tgid);
		return 0;
	}
	why[0] = '\0';
	/* Debian's node is a launcher without V8 that maps libnode.so: the one with a table */
	err = layout_read(vw, tgid, m, &v, why, sizeof(why));
	while (err == -ENOENT && (i = next_candidate(pm, (size_t)i + 1)) >= 0) {
		m = procmaps__entry(pm, (size_t)i);
		err = layout_read(vw, tgid, m, &v, why, sizeof(why));
	}
	if (!err)
		return publish(vw, p, &v);
	/* a file named node that is no V8, or gone: nothing to say */
	if (err == -EPERM) {
		vw->refused++;
		pr_info("v8: pid %u: %s: its JavaScript frames are not named\n", tgid, why);
	}
	return 0;
}

bool v8_walk__known(const struct v8_walk *vw, uint32_t tgid)
{
	return proc_find(vw, tgid) != NULL;
}

void v8_walk__forget(struct v8_walk *vw, uint32_t tgid)
{
	uint64_t v;
	struct vw_proc *p;

	if (!vw || !keymap__del(&vw->procs, tgid, 0, &v))
		return;
	p = (struct vw_proc *)(uintptr_t)v;
	if (p->state == VW_WALKED) {
		bpf_map_delete_elem(vw->procs_fd, &tgid);
		if (vw->nprocs)
			vw->nprocs--;
		nprocs_publish(vw);
	}
	free(p);
}

void v8_walk__report(const struct v8_walk *vw, int verbose)
{
	if (!vw)
		return;
	if (vw->map_errors)
		pr_warn("v8: %llu V8 layouts not published (BPF map update failed): their "
			"JavaScript frames are not named\n", (unsigned long long)vw->map_errors);
	if (verbose && (vw->walked || vw->refused || vw->perf_map))
		pr_info("v8: %llu V8 processes' JavaScript frames walked, %llu refused, %llu left "
			"to their perf map\n", (unsigned long long)vw->walked,
			(unsigned long long)vw->refused, (unsigned long long)vw->perf_map);
}
