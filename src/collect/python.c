// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CPython processes for the BPF frame walker: recognition from the
 * mappings (sym/python_elf.c), the version's layout (sym/python_layout.c),
 * python_procs entries, and the Python frames of samples merged into their
 * user stacks (collect/python_stack.c) with names read once per code
 * object (sym/python_names.c).
 */
#include "collect/python.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/python.h"
#include "collect/collector.h"
#include "collect/proc.h"
#include "collect/python_stack.h"
#include "sym/keymap.h"
#include "sym/procmaps.h"
#include "sym/python_elf.h"
#include "sym/python_layout.h"
#include "sym/python_names.h"
#include "util/log.h"

_Static_assert(sizeof(struct hc_py_proc) == 40, "hc_py_proc ABI changed");

#define PY_ELF_CACHE 16		/* interpreter objects remembered by (dev, inode) */
#define PY_UNSUP_SLOTS 8	/* unsupported versions named in the summary */
#define PY_MAX_CODE (1u << 18)	/* code objects named over a session */

struct py_elf_slot {
	uint64_t dev, ino;
	int err;		/* 0: an interpreter (pe valid); else why not */
	struct python_elf pe;
};

/* what a recognised process needs for merging and naming */
struct py_proc {
	uint64_t eval_lo, eval_hi;	/* _PyEval_EvalFrameDefault in the process */
	uint32_t gen;			/* this incarnation, for the names' keys */
	const struct python_layout *l;
};

struct python {
	int procs_fd, stats_fd, nr_cpus;
	struct python_names *names;
	struct keymap procs;		/* (tgid, 0) -> struct py_proc * */
	struct keymap found;		/* (tgid, 0): interpreter found (supported or not) */
	struct keymap unsup_tgids;	/* (tgid, 0): counted in unsup[] once (also across exec) */
	struct py_elf_slot elf[PY_ELF_CACHE];
	size_t nr_elf, next_elf;
	struct { uint32_t version; uint64_t procs; } unsup[PY_UNSUP_SLOTS];
	uint32_t gen;
	uint64_t procs_added, map_errors, no_state_frames;
	uint32_t nprocs;	/* entries in python_procs (= procs) */
	int nprocs_fd;
	struct python_merge_stats merge;
};

int python__new(struct python **out, int nr_cpus)
{
	struct python *py = calloc(1, sizeof(*py));
	LIBBPF_OPTS(bpf_map_create_opts, no_prealloc, .map_flags = BPF_F_NO_PREALLOC);
	int err;

	if (!py)
		return -ENOMEM;
	py->stats_fd = -1;
	py->nprocs_fd = -1;
	keymap__init(&py->procs);
	keymap__init(&py->found);
	keymap__init(&py->unsup_tgids);
	py->nr_cpus = nr_cpus;
	/* the same shape as bpf/python.bpf.h declares (bpf_map__reuse_fd checks it) */
	py->procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "python_procs", sizeof(__u32),
				      sizeof(struct hc_py_proc), 1024, &no_prealloc);
	if (py->procs_fd < 0) {
		err = -errno;
		goto err_free;
	}
	py->stats_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "python_stats", sizeof(__u32),
				      HC_PY_STAT_NR * sizeof(__u64), 1, NULL);
	if (py->stats_fd < 0) {
		err = -errno;
		goto err_free;
	}
	py->nprocs_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "python_nprocs", sizeof(__u32),
				       sizeof(__u32), 1, NULL);
	if (py->nprocs_fd < 0) {
		err = -errno;
		goto err_free;
	}
	py->names = python_names__new(PY_MAX_CODE);
	if (!py->names) {
		err = -ENOMEM;
		goto err_free;
	}
	*out = py;
	return 0;

err_free:
	python__free(py);
	return err;
}

void python__free(struct python *py)
{
	size_t it = 0;
	uint64_t v;

	if (!py)
		return;
	while (keymap__next(&py->procs, &it, &v))
		free((void *)(uintptr_t)v);
	keymap__release(&py->procs);
	keymap__release(&py->found);
	keymap__release(&py->unsup_tgids);
	python_names__free(py->names);
	if (py->procs_fd >= 0)
		close(py->procs_fd);
	if (py->stats_fd >= 0)
		close(py->stats_fd);
	if (py->nprocs_fd >= 0)
		close(py->nprocs_fd);
	free(py);
}

int python__procs_fd(const struct python *py)
{
	return py->procs_fd;
}

int python__stats_fd(const struct python *py)
{
	return py->stats_fd;
}

int python__nprocs_fd(const struct python *py)
{
	return py->nprocs_fd;
}

/* python_procs' size for the BPF side's gate (bpf/python.bpf.h python_nprocs) */
static void nprocs_publish(struct python *py)
{
	__u32 zero = 0, n = py->nprocs;

	if (bpf_map_update_elem(py->nprocs_fd, &zero, &n, BPF_ANY))
		py->map_errors++;
}

const struct python_names *python__names(const struct python *py)
{
	return py->names;
}

int python_reuse_maps(const struct collector_env *env, struct bpf_map *procs,
		      struct bpf_map *stats, struct bpf_map *nprocs)
{
	int err;

	if (!env->python)
		return 0;
	err = bpf_map__reuse_fd(procs, env->python_procs_fd);
	if (!err)
		err = bpf_map__reuse_fd(stats, env->python_stats_fd);
	return err ? err : bpf_map__reuse_fd(nprocs, env->python_nprocs_fd);
}

/* The interpreter facts of mapping @m's file, read once per (dev, inode). */
static const struct py_elf_slot *elf_of(struct python *py, uint32_t tgid, const struct procmap *m)
{
	uint64_t dev = (uint64_t)m->dev_major << 32 | m->dev_minor;
	struct py_elf_slot *e;
	char path[4200];
	int fd;

	for (size_t i = 0; i < py->nr_elf; i++)
		if (py->elf[i].dev == dev && py->elf[i].ino == m->inode)
			return &py->elf[i];
	/* round robin: a host runs a handful of interpreter builds */
	e = &py->elf[py->next_elf];
	py->next_elf = (py->next_elf + 1) % PY_ELF_CACHE;
	if (py->nr_elf < PY_ELF_CACHE)
		py->nr_elf++;
	e->dev = dev;
	e->ino = m->inode;
	/* the process's own view of the file (containers) */
	snprintf(path, sizeof(path), "/proc/%u/root%s", tgid, m->path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e->err = -errno;
		e->ino = 0;	/* not cached: the process may be gone, the file is not */
		return e;
	}
	e->err = python_elf_read(fd, m->path, &e->pe);
	close(fd);
	return e;
}

static void count_unsupported(struct python *py, uint32_t tgid, uint32_t version)
{
	size_t i;

	if (keymap__get(&py->unsup_tgids, tgid, 0, NULL) ||
	    keymap__put(&py->unsup_tgids, tgid, 0, version))
		return;
	for (i = 0; i < PY_UNSUP_SLOTS && py->unsup[i].procs; i++)
		if (py->unsup[i].version == version)
			break;
	if (i == PY_UNSUP_SLOTS)
		i = PY_UNSUP_SLOTS - 1;	/* more versions than slots: the last one counts them */
	py->unsup[i].version = version;
	py->unsup[i].procs++;
}

/* Publish @tgid's interpreter (@e, mapped by @m) to the walker. */
static int add_interp(struct python *py, uint32_t tgid, const struct procmap *m,
		      const struct py_elf_slot *e)
{
	const struct python_layout *l = python_layout_find(e->pe.version);
	struct hc_py_proc v = {};
	struct py_proc *pp;
	uint64_t bias, old;
	bool replaced;
	int err;

	if (!l) {
		count_unsupported(py, tgid, e->pe.version);
		return 0;
	}
	if (load_bias(&e->pe.ll, m, (uint64_t)sysconf(_SC_PAGESIZE), &bias))
		return 0;
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	pp->eval_lo = e->pe.eval_lo + bias;
	pp->eval_hi = e->pe.eval_hi + bias;
	pp->gen = ++py->gen;
	pp->l = l;
	v.runtime = e->pe.runtime + bias;
	v.version = e->pe.version;
	v.rt_interp_head = l->rt_interp_head;
	v.is_threads_head = l->is_threads_head;
	v.ts_next = l->ts_next;
	v.ts_native_tid = l->ts_native_tid;
	v.ts_cframe = l->ts_cframe;
	v.cf_current = l->cf_current;
	v.fr_code = l->fr_code;
	v.fr_previous = l->fr_previous;
	v.fr_owner = l->fr_owner;
	v.fr_is_entry = l->fr_is_entry;
	v.cstack_owner = l->cstack_owner;
	v.fr_prev_instr = l->fr_prev_instr;
	v.co_code = l->co_code_adaptive;
	/* a process seen again (exec into another python): the newer entry wins */
	replaced = keymap__get(&py->procs, tgid, 0, &old);
	if (replaced)
		free((void *)(uintptr_t)old);
	if (keymap__put(&py->procs, tgid, 0, (uintptr_t)pp)) {
		keymap__del(&py->procs, tgid, 0, NULL);
		free(pp);
		if (replaced) {	/* the old entry went too */
			bpf_map_delete_elem(py->procs_fd, &tgid);
			py->nprocs--;
			nprocs_publish(py);
		}
		return -ENOMEM;
	}
	if (bpf_map_update_elem(py->procs_fd, &tgid, &v, BPF_ANY)) {
		err = -errno;
		py->map_errors++;
		/* not in python_procs: not in procs either, so nprocs counts exactly the map */
		if (!replaced && keymap__del(&py->procs, tgid, 0, NULL))
			free(pp);
		return err;
	}
	py->procs_added++;
	if (!replaced) {
		py->nprocs++;
		nprocs_publish(py);
	}
	return 0;
}

int python__add_process(struct python *py, uint32_t tgid, const struct procmaps *pm)
{
	for (size_t i = 0; i < procmaps__nr(pm); i++) {
		const struct procmap *m = procmaps__entry(pm, i);
		const struct py_elf_slot *e;

		if (m->kind != PROCMAP_FILE || !(m->perms & PROCMAP_X) ||
		    !python_elf_candidate(m->path))
			continue;
		e = elf_of(py, tgid, m);
		if (!e->err) {
			keymap__put(&py->found, tgid, 0, 1);
			return add_interp(py, tgid, m, e);
		}
	}
	return 0;
}

bool python__known(const struct python *py, uint32_t tgid)
{
	return keymap__get(&py->found, tgid, 0, NULL);
}

void python__forget(struct python *py, uint32_t tgid)
{
	uint64_t v;

	keymap__del(&py->found, tgid, 0, NULL);
	if (!keymap__del(&py->procs, tgid, 0, &v))
		return;
	free((void *)(uintptr_t)v);
	bpf_map_delete_elem(py->procs_fd, &tgid);
	if (py->nprocs) {
		py->nprocs--;
		nprocs_publish(py);
	}
}

size_t python__user_frames(struct python *py, uint32_t tgid, const uint64_t *nat, size_t nn,
			   const uint64_t *pyw, size_t np, bool native_complete,
			   const struct sym_ufr *f, struct sym_ufr *out)
{
	uint32_t slots[2 * HC_PY_MAX_FRAMES + 256];
	struct py_proc *pp;
	uint64_t v;
	size_t n;

	if (!np || nn + np + 1 > sizeof(slots) / sizeof(slots[0]) ||
	    !keymap__get(&py->procs, tgid, 0, &v)) {
		/* Python frames of a process we no longer know (replayed after its exit) */
		py->no_state_frames += np;
		memcpy(out, f, nn * sizeof(*f));
		return nn;
	}
	pp = (struct py_proc *)(uintptr_t)v;
	n = python_merge(nat, nn, pyw, np, pp->eval_lo, pp->eval_hi, !native_complete,
			 slots, &py->merge);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = slots[i] & ~PY_SLOT_PY;

		if (!(slots[i] & PY_SLOT_PY)) {
			out[i] = f[k];
			continue;
		}
		if (slots[i] == PY_SLOT_GAP) {
			out[i] = (struct sym_ufr){ .obj = SYM_OBJ_PYTHON, .addr = SYM_PY_GAP };
			continue;
		}
		/* the name's id, and where in the code for its line (sym/symbolizer.h) */
		out[i] = (struct sym_ufr){
			.obj = SYM_OBJ_PYTHON,
			.addr = python_names__id(py->names, tgid, pp->gen,
						 pyw[k] & HC_PY_ADDR_MASK, pp->l) |
				(pyw[k] >> HC_PY_INSTR_SHIFT & HC_PY_INSTR_MAX) << 32,
		};
	}
	return n;
}

static const char *const stat_names[HC_PY_STAT_NR] = {
	[HC_PY_STAT_STACKS] = "stacks with Python frames",
	[HC_PY_STAT_FRAMES] = "Python frames",
	[HC_PY_STAT_NO_THREAD] = "samples of threads without a Python thread state",
	[HC_PY_STAT_READ_ERR] = "stacks cut at an unreadable interpreter frame",
	[HC_PY_STAT_TRUNC] = "stacks deeper than 64 Python frames (cut)",
	[HC_PY_STAT_NO_ROOM] = "stacks cut at 127 user frames",
	[HC_PY_STAT_THREADS_CUT] = "samples of threads beyond the 256 searched (no Python frames)",
	[HC_PY_STAT_WALK_NS] = "ns walking",
	[HC_PY_STAT_WALKS] = "walks",
	[HC_PY_STAT_TS_CACHED] = "thread states remembered",
};

unsigned int python__report(struct python *py, int verbose)
{
	uint64_t st[HC_PY_STAT_NR] = {};
	struct python_names_stats ns;
	unsigned int problems = 0;
	char ver[16];

	if (!py)
		return 0;
	for (size_t i = 0; i < PY_UNSUP_SLOTS && py->unsup[i].procs; i++, problems++) {
		python_version_str(py->unsup[i].version, ver, sizeof(ver));
		pr_warn("python: %llu process%s of unsupported version %s: native frames only "
			"(supported: 3.11, 3.12)\n", (unsigned long long)py->unsup[i].procs,
			py->unsup[i].procs == 1 ? "" : "es", ver);
	}
	if (percpu_stats_read(py->stats_fd, py->nr_cpus, st, HC_PY_STAT_NR))
		return problems;
	python_names__stats(py->names, &ns);
	/* losses, each shown when not zero; the work counters with -v */
	for (int i = HC_PY_STAT_READ_ERR; i <= HC_PY_STAT_THREADS_CUT; i++) {
		if (st[i]) {
			pr_warn("python: %llu %s\n", (unsigned long long)st[i], stat_names[i]);
			problems++;
		}
	}
	if (py->merge.unplaced || py->no_state_frames) {
		pr_warn("python: %llu Python frames dropped (no interpreter frame to put them in)\n",
			(unsigned long long)(py->merge.unplaced + py->no_state_frames));
		problems++;
	}
	if (ns.unreadable || ns.full) {
		pr_warn("python: %llu code objects unnamed (process gone: %llu, over %u: %llu)\n",
			(unsigned long long)(ns.unreadable + ns.full),
			(unsigned long long)ns.unreadable, PY_MAX_CODE, (unsigned long long)ns.full);
		problems++;
	}
	if (!verbose)
		return problems;
	pr_info("python: %llu processes recognised, %llu %s, %llu %s, %llu %s, %llu code objects "
		"named, %llu Python frames above a partial native walk\n",
		(unsigned long long)py->procs_added,
		(unsigned long long)st[HC_PY_STAT_STACKS], stat_names[HC_PY_STAT_STACKS],
		(unsigned long long)st[HC_PY_STAT_FRAMES], stat_names[HC_PY_STAT_FRAMES],
		(unsigned long long)st[HC_PY_STAT_NO_THREAD], stat_names[HC_PY_STAT_NO_THREAD],
		(unsigned long long)ns.named, (unsigned long long)py->merge.above_partial);
	if (st[HC_PY_STAT_WALKS])
		pr_info("python: %.0f ns per walk in BPF (%llu walks, %.1f frames each, %llu %s)\n",
			(double)st[HC_PY_STAT_WALK_NS] / st[HC_PY_STAT_WALKS],
			(unsigned long long)st[HC_PY_STAT_WALKS],
			(double)st[HC_PY_STAT_FRAMES] / st[HC_PY_STAT_WALKS],
			(unsigned long long)st[HC_PY_STAT_TS_CACHED], stat_names[HC_PY_STAT_TS_CACHED]);
	return problems;
}
