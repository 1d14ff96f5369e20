/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Exit maps (abi/common.h, HC_REC_MAPS): a young process's executable
 * mappings, read in the exit tracepoint, which runs before exit_mm() and
 * with interrupts on, so the task VMA iterator may take the mmap lock. (In
 * a perf sample neither the iterator nor more than one bpf_find_vma() per
 * run work: the unlock is deferred to a per-CPU irq_work that the first
 * lookup leaves busy.)
 */
#ifndef HC_BPF_LIB_VMAS_BPF_H
#define HC_BPF_LIB_VMAS_BPF_H

#define VMA_PAGE_SHIFT	12	/* vm_pgoff unit on x86-64 (and 4K-page arm64) */
#define VMA_EXEC	0x4	/* VM_EXEC: a macro, so not in BTF */

#include "lib/ksym.bpf.h"

/* 6.7+; the loader leaves exit maps out where they are missing (6.1) */
extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym __weak;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym __weak;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym __weak;

/* Fill @r with @task's executable mappings; false if they could not be read. */
static __always_inline bool vma_read_exec(struct hc_maps_rec *r, struct task_struct *task)
{
	__u64 vdso = (__u64)BPF_CORE_READ(task, mm, context.vdso), n;
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	struct hc_vma *h;
	struct file *f;
	bool ok;

	r->flags = 0;
	r->nr = 0;
	if (!bpf_ksym_exists(bpf_iter_task_vma_new))
		return false;
	/*
	 * Open-coded, not in a bpf_loop() callback (the 6.18 verifier trips
	 * on an iterator driven from a callback). A busy lock makes next()
	 * return NULL at once.
	 */
	ok = !bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		if (!(vma->vm_flags & VMA_EXEC))
			continue;
		/*
		 * The count lives in the record, not in a register: a register
		 * the verifier knows (0, 1, 2...) decides this branch, becomes
		 * precise, and costs one verifier state per value (1.6 s to
		 * load); read back from memory it is just some number, masked.
		 */
		n = r->nr;
		if (n >= HC_MAX_EXIT_VMAS) {
			r->flags |= HC_MAPS_PARTIAL;
			break;
		}
		h = &r->vmas[n & (HC_MAX_EXIT_VMAS - 1)];
		h->start = vma->vm_start;
		h->end = vma->vm_end;
		h->pgoff = vma->vm_pgoff << VMA_PAGE_SHIFT;
		h->ino = 0;
		h->dev = 0;
		f = vma->vm_file;
		if (f) {
			h->kind = HC_VMA_FILE;
			h->ino = BPF_CORE_READ(f, f_inode, i_ino);
			h->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
		} else {
			h->kind = h->start == vdso ? HC_VMA_VDSO : HC_VMA_ANON;
		}
		r->nr = (__u32)n + 1;
	}
	bpf_iter_task_vma_destroy(&it);
	return ok;
}

#endif /* HC_BPF_LIB_VMAS_BPF_H */
