/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * bpf_ksym_exists() for Debian 12's libbpf 1.1, whose bpf_helpers.h lacks it
 * (libbpf 1.2+): true when the kernel has the __weak extern @sym. A kfunc
 * missing from the kernel (bpf_task_from_pid before 6.2, the task VMA
 * iterator before 6.7) leaves its address 0, so the verifier drops the
 * guarded branch and never sees the unresolved "call #0" in it.
 */
#ifndef HC_BPF_LIB_KSYM_BPF_H
#define HC_BPF_LIB_KSYM_BPF_H

#ifndef bpf_ksym_exists
#define bpf_ksym_exists(sym)                                                                   \
	({                                                                                     \
		_Static_assert(!__builtin_constant_p(!!sym), #sym " should be marked __weak"); \
		!!sym;                                                                         \
	})
#endif

#endif /* HC_BPF_LIB_KSYM_BPF_H */
