/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tgid -> executable mappings: created by src/unwind/tables.c, which fills
 * it; read by the CFI walker (shared_maps.bpf.h) and cleared at exec by
 * proc.bpf.c. One definition, so the reused copies always match. Include
 * after abi/unwind.h.
 */
#ifndef HC_BPF_UNWIND_PROCS_BPF_H
#define HC_BPF_UNWIND_PROCS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct hc_unwind_proc);
} unwind_procs SEC(".maps");

#endif /* HC_BPF_UNWIND_PROCS_BPF_H */
