/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The process maps: created by proc.bpf.c, which owns them, and shared with
 * every collector object by fd (see shared_maps.bpf.h). One definition for
 * both sides, so the reused copies always match.
 */
#ifndef HC_BPF_PROC_MAPS_BPF_H
#define HC_BPF_PROC_MAPS_BPF_H

/* pid number -> HC_TARGET_* bits; sized by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} proc_targets SEC(".maps");

/*
 * tgids that already produced a record -> seen_stamp() of the first. The
 * first record of a tgid wakes the loader so it reads /proc/PID/maps while
 * the process still exists; one that exits within HC_MAPS_WINDOW of it
 * leaves its mappings in an HC_REC_MAPS record in case it did not. LRU: a
 * forgotten tgid only costs one extra early wakeup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} proc_seen SEC(".maps");

/* Now in units of 2^20 ns (~1.05 ms); never 0. Wraps in ~52 days: compare by difference. */
static __always_inline __u32 seen_stamp(void)
{
	return (__u32)(bpf_ktime_get_ns() >> 20) | 1;
}

/* The one ring for all collectors: keeps exec/exit ordered with samples. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} proc_events SEC(".maps");

#endif /* HC_BPF_PROC_MAPS_BPF_H */
