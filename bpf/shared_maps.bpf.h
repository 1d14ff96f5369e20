/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The maps every collector object shares, declared once. They are created
 * by proc.bpf.c (target filter, first-sight set, the one event ring) and by
 * src/unwind/tables.c (CFI tables); each collector's loader points its copies
 * at those with bpf_map__reuse_fd() (collect/proc.c: collector_reuse_maps()),
 * so the definitions here must match theirs — which is why they live in one
 * place (with proc_maps.bpf.h, which proc.bpf.c includes too, the one
 * exception to "headers never define maps").
 *
 * Also the per-CPU scratch record and the CFI walker, which use these maps.
 * Include after vmlinux.h, the bpf helpers, abi/common.h, abi/unwind.h and
 * lib/stats.bpf.h; the object defines cfg_unwind before including.
 */
#ifndef HC_BPF_SHARED_MAPS_BPF_H
#define HC_BPF_SHARED_MAPS_BPF_H

#include "lib/unwind.bpf.h"

#include "proc_maps.bpf.h"

/* tgid -> executable mappings (src/unwind/tables.c owns it) */
#include "unwind_procs.bpf.h"

struct unwind_rows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP);	/* inner maps sized per object */
	__uint(max_entries, 1);
	/* sizes, not __type(): clang emits only a FWD for a type seen through pointers */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct hc_cfi_node));
};

/* object id -> its rows as B+ tree nodes (src/unwind/tables.c owns it) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);	/* lookups inlined, see tables.c */
	__uint(max_entries, 4097);
	__type(key, __u32);
	__array(values, struct unwind_rows);
} unwind_objs SEC(".maps");

/* tgid -> a JVM's code cache layout (src/collect/hotspot_walk.c owns it) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct hc_hs_proc);
} hotspot_procs SEC(".maps");

/*
 * How many JVMs hotspot_procs holds (src/collect/hotspot_walk.c keeps it):
 * most walks are of no JVM, and this inlined array lookup spares them the
 * hash lookup, as python_nprocs does.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} hotspot_nprocs SEC(".maps");

/* tgid -> a V8's frame layout (src/collect/v8_walk.c owns it) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct hc_v8_proc);
} v8_procs SEC(".maps");

/* How many V8s v8_procs holds (src/collect/v8_walk.c keeps it), as hotspot_nprocs */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} v8_nprocs SEC(".maps");

/*
 * Per-CPU: the record being built and the walker's state (each object its
 * own), one slot per nesting level. A program can be interrupted by another
 * of the same object on the same CPU (a sys_exit or task-work walk by an
 * interrupt's wakeup, a futex wait's by an interrupt's lock contention), so
 * scratch_get() hands out slots by depth. That is LIFO only while every
 * user holds preemption off: tracepoint and perf-event programs do; the
 * task-work callback calls bpf_preempt_disable() around its use.
 */
#define UW_SCRATCH_SLOTS 3	/* task, interrupt, NMI */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UW_SCRATCH_SLOTS);
	__type(key, __u32);
	__type(value, struct uw_scratch);
} unwind_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} unwind_scratch_depth SEC(".maps");

/* A scratch no program nesting on this CPU uses; release with scratch_put(). NULL: none. */
static __always_inline struct uw_scratch *scratch_get(void)
{
	__u32 zero = 0, slot, *depth = bpf_map_lookup_elem(&unwind_scratch_depth, &zero);
	struct uw_scratch *s;

	if (!depth)
		return NULL;
	/* read-modify-write is safe: whatever interrupts us restores the depth first */
	slot = *depth;
	if (slot >= UW_SCRATCH_SLOTS)
		return NULL;
	s = bpf_map_lookup_elem(&unwind_scratch, &slot);
	if (!s)
		return NULL;
	s->st.slot = slot;
	*depth = slot + 1;
	return s;
}

static __always_inline void scratch_put(void)
{
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&unwind_scratch_depth, &zero);

	if (depth && *depth)
		(*depth)--;
}

#include "lib/unwind_walk.bpf.h"
#include "python.bpf.h"
#include "lib/ustack.bpf.h"

/* True if @tgid had no record yet; marks it seen (LRU: an evicted tgid wakes us once more). */
static __always_inline bool first_sight(__u32 tgid)
{
	__u32 now;

	if (bpf_map_lookup_elem(&proc_seen, &tgid))
		return false;
	now = seen_stamp();
	bpf_map_update_elem(&proc_seen, &tgid, &now, BPF_NOEXIST);
	return true;
}

/*
 * Records go into the ring without a wakeup: the loader drains it on a
 * 100 ms timer, which keeps wakeups off hot paths. A burst (every lock wait
 * with a stack, --min-block 0) could fill the ring between two drains, so
 * past half full the writer wakes the loader at once.
 */
static __always_inline __u64 rb_wakeup(void)
{
	if (bpf_ringbuf_query(&proc_events, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&proc_events, BPF_RB_RING_SIZE) / 2)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

#endif /* HC_BPF_SHARED_MAPS_BPF_H */
