/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CO-RE accessors for task_struct fields that moved between kernels. */
#ifndef HC_BPF_LIB_TASK_BPF_H
#define HC_BPF_LIB_TASK_BPF_H

#ifndef PF_KTHREAD
#define PF_KTHREAD 0x00200000	/* include/linux/sched.h; a macro, so not in BTF */
#endif

static __always_inline bool task_is_kthread(struct task_struct *t)
{
	return BPF_CORE_READ(t, flags) & PF_KTHREAD;
}

/* True once the last thread of @t's group passed exit: signal->live hit 0. */
static __always_inline bool task_group_dead(struct task_struct *t)
{
	return BPF_CORE_READ(t, signal, live.counter) == 0;
}

#endif /* HC_BPF_LIB_TASK_BPF_H */
