/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Records shared by every BPF collector and the loader: the event ring format,
 * target-filter flags and the stat counter layout. Fixed-width types only.
 */
#ifndef HC_ABI_COMMON_H
#define HC_ABI_COMMON_H

#define HC_COMM_LEN		16	/* not TASK_COMM_LEN: that is an enum in vmlinux.h */
#define HC_MAX_STACK_DEPTH	127	/* perf's default sysctl_perf_event_max_stack */

/* proc_targets value bits: how a key (a pid number) matches a task */
#define HC_TARGET_TGID		0x1	/* key is a process id: all its threads */
#define HC_TARGET_TID		0x2	/* key is a thread id: that thread only */
#define HC_TARGET_RULE		0x4	/* with TGID: matched by --cgroup/--comm, re-checked at exec */
/*
 * With TGID: the `-- CMD` child, a target only from its exec on (perf's
 * enable_on_exec). Before it, the forked child runs hotcold's own code
 * (waiting for the go, then execve tearing down the copied image) under
 * the name "hotcold": not the command's time.
 */
#define HC_TARGET_EXEC		0x8

/* --cgroup and --comm rules each (proc.bpf.c's cfg_cgroup_ and cfg_comm_ arrays) */
#define HC_MAX_TARGET_RULES	8

/*
 * Optional parts a collector loads only where the kernel takes them
 * (src/collect/parts.h); as bits, each object's cfg_refuse, a test hook
 * (HOTCOLD_TEST_REFUSE) that makes the part's code invalid so the kernel
 * really refuses it (bpf/lib/refuse.bpf.h).
 */
enum hc_part {
	HC_PART_TASK_WORK = 0,	/* off-CPU user stacks by BPF task work */
	HC_PART_WAKERS,		/* stacks of who woke long blocks */
	HC_PART_HOLDERS,	/* stacks of futex wakes that end lock waits */
	HC_PART_BRANCHES,	/* branch records with on-CPU samples */
	HC_PART_CFI,		/* user stacks walked with CFI tables */
	HC_PART_NR
};
#define HC_PART_CORE		31	/* cfg_refuse only: the collector's main program */

/* hc_rec::type */
enum hc_rec_type {
	HC_REC_STACK = 1,	/* a weighted stack sample (struct hc_stack_rec) */
	HC_REC_EXEC = 2,	/* a target process exec'd: its mappings changed */
	HC_REC_EXIT = 3,	/* a target process exited: after its last sample */
	HC_REC_SEEN = 4,	/* first sight of a process (off-CPU): read its maps now */
	HC_REC_MAPS = 5,	/* a young process's executable mappings at exit (hc_maps_rec) */
	HC_REC_BRANCH = 6,	/* a sample's branch stack, record -b (abi/branches.h) */
};

/* hc_stack_rec::kind: which collector produced the sample */
enum hc_sample_kind {
	HC_KIND_ONCPU = 1,	/* weight = 1 sample */
	HC_KIND_OFFCPU = 2,	/* weight = nanoseconds blocked */
	HC_KIND_RUNQ = 3,	/* weight = nanoseconds runnable but not running */
	HC_KIND_WAKER = 4,	/* the stack that woke a blocked task (see below) */
	HC_KIND_LOCK = 5,	/* weight = nanoseconds waiting for a lock (abi/locks.h) */
};

/*
 * HC_KIND_WAKER records carry the waker's stacks and comm/pcomm, but tgid,
 * pid and time_ns of the *wakee* and of its block (the off-CPU record of that
 * block, which follows in the ring, has the same pid and time_ns): the
 * loader joins the two. The waker's own tgid and pid are in state and
 * syscall.
 */

/* hc_stack_rec::flags */
#define HC_SF_NEW_TGID		0x1	/* first record of this tgid: snapshot its maps now */
#define HC_SF_KSTACK_ERR	0x2	/* kernel stack requested but not captured */
#define HC_SF_USTACK_ERR	0x4	/* user stack requested but not captured */
#define HC_SF_USTACK_TRUNC	0x8	/* user stack hit HC_MAX_STACK_DEPTH */
#define HC_SF_KTHREAD		0x10	/* kernel thread: no user stack exists */
#define HC_SF_UNWIND_CFI	0x20	/* user stack walked with CFI tables */
#define HC_SF_UNWIND_FP		0x40	/* ... and some frames by frame pointer (no CFI there) */
#define HC_SF_UNWIND_PARTIAL	0x80	/* the CFI walk stopped early (reason in stats) */
#define HC_SF_SHORT		0x100	/* off-CPU: sum of blocks below the stack threshold, no stack */
#define HC_SF_UNWIND_UNMAPPED	0x200	/* the CFI walk met a pc in no published mapping (dlopen?) */
#define HC_SF_UNWIND_PENDING	0x400	/* ... ended in code whose CFI table was being built */

/*
 * Exit maps (HC_REC_MAPS): a process first seen less than HC_MAPS_WINDOW
 * before its exit gets, just before its HC_REC_EXIT, a record of its
 * executable mappings, read by BPF in the exit tracepoint while the mm is
 * still there. A process of a few milliseconds is often gone before the
 * loader can read /proc/PID/maps; the loader holds such a process's
 * records until this one and names their frames from the (dev, inode) of
 * files it knows (other processes map the same binary and libc).
 */
#define HC_MAX_EXIT_VMAS	64	/* a power of two (bpf/lib/vmas.bpf.h masks with it) */
#define HC_MAPS_WINDOW		1024	/* units of 2^20 ns (proc_maps.bpf.h): ~1.07 s */
/*
 * The loader reads the maps of one process per name (comm) in this window
 * at its first sight without a stack (HC_REC_SEEN), the others lazily; BPF
 * wakes it only for those. 9537 units of 2^20 ns: 10 s, the loader's
 * SESSION_COMM_REREAD_NS.
 */
#define HC_NAME_READ_WINDOW	9537

enum hc_vma_kind {
	HC_VMA_FILE = 1,	/* dev and ino name the file */
	HC_VMA_VDSO = 2,	/* the vdso image: its size names it */
	HC_VMA_ANON = 3,	/* no file (JIT, heap): named by perf map, if at all */
};

struct hc_vma {
	__u64 start;		/* [start, end) */
	__u64 end;
	__u64 pgoff;		/* file offset of start, in bytes */
	__u64 ino;
	__u32 dev;		/* the kernel's dev_t: major << 20 | minor */
	__u32 kind;		/* enum hc_vma_kind */
};

/* record_opts -> cfg_unwind */
enum hc_unwind_mode {
	HC_UNWIND_FP = 0,	/* frame pointers only (bpf_get_stack) */
	HC_UNWIND_CFI = 1,	/* CFI tables where loaded, frame pointers elsewhere */
};

struct hc_rec_hdr {
	__u32 type;		/* enum hc_rec_type */
	__u32 size;		/* bytes of the whole record */
};

/* A process event (HC_REC_EXEC, HC_REC_EXIT, HC_REC_SEEN). */
struct hc_proc_rec {
	struct hc_rec_hdr hdr;
	__u32 tgid;
	__u32 pad;
	char comm[HC_COMM_LEN];
};

struct hc_maps_rec {
	struct hc_rec_hdr hdr;
	__u32 tgid;
	__u32 nr;		/* vmas used; the record is cut after them */
	__u32 flags;		/* HC_MAPS_* */
	__u32 pad;
	struct hc_vma vmas[HC_MAX_EXIT_VMAS];
};
#define HC_MAPS_PARTIAL		0x1	/* more executable mappings than HC_MAX_EXIT_VMAS */

/*
 * A stack sample, built in a per-CPU scratch buffer and copied to the ring
 * at its used size: kernel ips at ips[0..nr_kstack), then user ips at
 * ips[nr_kstack..nr_kstack + nr_ustack), both leaf first.
 */
struct hc_stack_rec {
	struct hc_rec_hdr hdr;
	__u32 tgid;
	__u32 pid;
	__u32 cpu;
	__u16 kind;		/* enum hc_sample_kind */
	__u16 flags;		/* HC_SF_* */
	__u16 nr_kstack;
	__u16 nr_ustack;
	__u32 state;		/* off-CPU: task state at switch-out (TASK_* bits) */
	__s32 syscall;		/* off-CPU: syscall in progress (-1: none) */
	__u32 count;		/* events merged into weight (1 for a sample) */
	__u64 addr;		/* HC_KIND_LOCK: the lock's address; else 0 */
	__u64 weight;		/* units depend on kind */
	__u64 time_ns;		/* bpf_ktime_get_ns(); off-CPU and waker: scheduler clock */
	char comm[HC_COMM_LEN];		/* thread name */
	char pcomm[HC_COMM_LEN];	/* process (group leader) name */
	__u64 ips[2 * HC_MAX_STACK_DEPTH];
};

/* Drop and error counters; one per-CPU array slot each, summed by the loader. */
enum hc_stat {
	HC_STAT_SAMPLES = 0,	/* records emitted */
	HC_STAT_RB_FULL,	/* ring buffer full: sample lost */
	HC_STAT_KSTACK_ERR,	/* bpf_get_stack() failed for the kernel stack */
	HC_STAT_USTACK_ERR,	/* bpf_get_stack() failed for the user stack */
	HC_STAT_USTACK_TRUNC,	/* user stack deeper than HC_MAX_STACK_DEPTH */
	HC_STAT_TARGET_FULL,	/* proc_targets full: a child was not followed */
	HC_STAT_PROC_RB_FULL,	/* exec/exit event lost */
	HC_STAT_SCRATCH_ERR,	/* per-CPU scratch buffer missing (never expected) */
	HC_STAT_UNWIND_CFI,	/* user stacks walked with CFI */
	HC_STAT_UNWIND_NO_TABLE,/* process had no CFI table (yet): frame pointers used */
	HC_STAT_UNWIND_FP_FRAMES,/* frames inside CFI walks unwound by frame pointer */
	HC_STAT_UNWIND_NO_MAPPING,/* walk reached a pc in no known mapping */
	HC_STAT_UNWIND_UNSUP,	/* walk reached a CFA rule we cannot evaluate */
	HC_STAT_UNWIND_READ_ERR,/* walk could not read the stack */
	HC_STAT_UNWIND_BAD_SP,	/* walk went down the stack (corrupt frame): stopped */
	HC_STAT_UNWIND_PENDING,	/* ... after frame-pointer steps through code whose CFI table
				 * was still being built (HC_UNWIND_HEIGHT_BUILDING) */
	HC_STAT_TASK_STORAGE_ERR,/* off-CPU: no task storage for a task: block not timed */
	HC_STAT_SHORT_FULL,	/* off-CPU: short-block map full: that time lost */
	HC_STAT_RUNQ_FULL,	/* run queue: histogram map full: that wait not counted */
	HC_STAT_LOCK_AGG_FULL,	/* locks: per-lock map full: that wait not counted */
	HC_STAT_LOCK_NEST_LOST,	/* locks: kernel contention nested too deep or unmatched */
	HC_STAT_DEFER_FAIL,	/* off-CPU: no task work for a long block: user stack at next switch-out */
	HC_STAT_USTACK_MOVED,	/* off-CPU: user registers moved before the deferred walk: no user stack */
	HC_STAT_MAPS_PARTIAL,	/* exit maps: more than HC_MAX_EXIT_VMAS executable mappings */
	HC_STAT_MAPS_ERR,	/* exit maps: not read (ring full, mmap lock busy) */
	HC_STAT_LOCK_OWNER_UNKNOWN,/* locks: a kernel mutex/rwsem wait with no owner recorded */
	HC_STAT_BRANCH_RB_FULL,	/* record -b: ring full, a sample's branch stack lost */
	HC_STAT_BRANCH_NONE,	/* record -b: bpf_read_branch_records() gave no entries */
	HC_STAT_UNWIND_FRAMES,	/* frames of CFI walks (bpf/lib/ustack.bpf.h) */
	HC_STAT_UNWIND_RULE_MISS,/* ... whose rule was not in the walker's cache: searched in the table */
	/* HotSpot JVMs' Java frames (abi/hotspot.h, bpf/lib/unwind_hotspot.bpf.h) */
	HC_STAT_UNWIND_JIT_FRAMES,/* frames of CFI walks stepped through in a JVM's code cache */
	HC_STAT_UNWIND_JIT_NO_BLOB,/* walk ended at a code cache pc no live code blob holds */
	HC_STAT_UNWIND_JIT_PROLOGUE,/* ... at a leaf pc in a blob's prologue (frame not set up) */
	HC_STAT_UNWIND_JIT_FRAMELESS,/* ... at a leaf pc in a stub that keeps no frame */
	HC_STAT_UNWIND_JIT_BAD_FRAME,/* ... at a Java frame whose fp or size makes no sense */
	HC_STAT_UNWIND_JIT_READ_ERR,/* ... where the segment map or blob could not be read */
	HC_STAT_UNWIND_JIT_EDGE_WALKED,/* leaves in a prologue or epilogue stepped by its code's bytes */
	/* V8's JavaScript frames (abi/v8.h, bpf/lib/unwind_v8.bpf.h) */
	HC_STAT_UNWIND_V8_FRAMES,/* frames of CFI walks given as their function, not their pc */
	HC_STAT_NR,
};

#endif /* HC_ABI_COMMON_H */
