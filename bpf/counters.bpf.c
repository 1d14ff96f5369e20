// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter snapshots per process from one set of per-CPU counters.
 *
 * User space opens each configured event once per CPU (all tasks) and puts
 * the fds in counters_events at index event * cfg_nr_cpus + cpu. At every
 * sched_switch the outgoing task is the one that has run on this CPU since
 * the previous read here, so the delta of each counter since that read is
 * what that task ran: it is added to the task's process in counters_procs.
 * counters_sync does the same for whatever runs on a CPU right now (user
 * space runs it there with BPF_F_TEST_RUN_ON_CPU), so a snapshot includes
 * the time of tasks that have not switched out yet.
 *
 * Hardware events may be multiplexed: each span adds its time_enabled and
 * time_running deltas too, and user space scales the sums by their ratio.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "abi/counters.h"
#include "lib/target.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile bool cfg_filter = false;		/* only processes in proc_targets */
const volatile __u32 cfg_nr_events = 1;		/* <= HC_COUNTERS_MAX_EVENTS */
const volatile __u32 cfg_nr_cpus = 1;		/* stride of counters_events */

/* The last read error (negative errno), for the loader's diagnostics. */
__s64 stat_last_read_err = 0;

/* Shared with proc.bpf.c when recording (reuse_fd); unused when !cfg_filter. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} proc_targets SEC(".maps");

/* max_entries = nr_events * nr_cpus, set by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} counters_events SEC(".maps");

/* Per CPU: the counters at the previous read on this CPU. */
struct counters_cpu {
	__u64 value[HC_COUNTERS_MAX_EVENTS];
	__u64 enabled[HC_COUNTERS_MAX_EVENTS];
	__u64 running[HC_COUNTERS_MAX_EVENTS];
	__u32 valid;		/* bit i: slot i holds a read */
	__u32 owner_pid;	/* the task running here since that read */
	__u32 owner_ok;		/* it passed the filter when it switched in (or exec'd) */
	__u32 owner_known;	/* owner_* are set */
	__u32 in_exec_read;	/* counters_exec is reading here: a sync IPI waits its turn */
	__u64 owner_sum;	/* the owner's sum_exec_runtime at that read */
	__u64 read_ns;		/* when that read was: bpf_ktime_get_ns() */
	__u64 read_clock;	/* and on this CPU's task clock; 0: unknown */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counters_cpu);
} counters_last SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct hc_counters_proc);
} counters_procs SEC(".maps");

struct counters_stat_val {
	__u64 v[HC_CSTAT_NR];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counters_stat_val);
} counters_stats SEC(".maps");

static __always_inline void cstat_inc(__u32 idx)
{
	__u32 zero = 0;
	struct counters_stat_val *s = bpf_map_lookup_elem(&counters_stats, &zero);

	if (s && idx < HC_CSTAT_NR)
		s->v[idx]++;
}

/* The process entry of @t, created on first sight; NULL when the map is full. */
static __always_inline struct hc_counters_proc *proc_entry(struct task_struct *t, __u32 tgid)
{
	struct hc_counters_proc *p, init = {};
	long err;

	p = bpf_map_lookup_elem(&counters_procs, &tgid);
	if (p)
		return p;
	init.ppid = BPF_CORE_READ(t, real_parent, tgid);
	err = bpf_map_update_elem(&counters_procs, &tgid, &init, BPF_NOEXIST);
	if (err == -7 /* E2BIG: full */) {
		cstat_inc(HC_CSTAT_MAP_FULL);
		return NULL;
	}
	/* -EEXIST: another CPU created it meanwhile */
	return bpf_map_lookup_elem(&counters_procs, &tgid);
}

/*
 * Does the span of task @pid (of @tgid) that ends now count? Decided when it
 * switched in: a target that exits leaves proc_targets at
 * sched_process_exit, before its last switch-out, and must still get its
 * last span. Decided again at an exec (exec_account()).
 */
static __always_inline bool span_wanted(struct counters_cpu *last, __u32 tgid, __u32 pid)
{
	if (!pid)
		return false;	/* the idle task is nobody's time */
	if (!cfg_filter)
		return true;
	if (last->owner_known && last->owner_pid == pid)
		return last->owner_ok;
	return target_match(&proc_targets, tgid, pid);
}

/*
 * The fraction, in 1/1024, of a span of @elapsed ns that its owner ran
 * (@ran ns of its own sum_exec_runtime); 1024 when it ran throughout. Some
 * switches reach no sched_switch program on this kernel (session 5 found a
 * whole process's switch-outs untraced): a span read at the owner's traced
 * switch-out then holds the time and events of tasks that ran in between,
 * 100-115 ms too much in 2 s in one of ~5 `t_stat` runs. The kernel's own
 * account of the owner's runtime bounds the span, and its events are scaled
 * with it (exact for time; a share for counts). 1 ms of slack for the reads.
 *
 * @elapsed is on the run queue's task clock where it can be read
 * (task_rq_clock()), the clock sum_exec_runtime is made of: it leaves out
 * time the hypervisor stole and interrupt time, as the runtime does. On
 * wall time a span with steal looked longer than its owner's run and was
 * scaled down by the steal, so per-process cpu-clock lost the very steal
 * that perf's task-clock (and cpu-clock) keep: 2,008 against 2,207 ms in a
 * CI run of `t_stat`, 2,009 against 2,116 ms here with 110 ms stolen.
 */
static __always_inline __u64 span_share(__u64 elapsed, __u64 ran)
{
	if (!elapsed || elapsed <= ran + 1000000)
		return 1024;
	return (ran << 10) / elapsed;
}

/*
 * What account() needs of a task, read by its caller: the tp_btf program
 * loads it directly from its trusted arguments, the raw_tp twin and the
 * sync probe-read it (each probe read a helper call, ~6 per switch).
 */
struct sw_task {
	__u32 tgid, pid;
	__u64 sum;	/* se.sum_exec_runtime */
};

static __always_inline void sw_task_read(struct sw_task *f, struct task_struct *t)
{
	f->tgid = BPF_CORE_READ(t, tgid);
	f->pid = BPF_CORE_READ(t, pid);
	f->sum = BPF_CORE_READ(t, se.sum_exec_runtime);
}

/*
 * This CPU's run-queue task clock (rq->clock_task), reached through @t's
 * CFS run queue: @t runs here or has just left, so that queue is this
 * CPU's. Not through the per-CPU `runqueues` symbol: a kernel built
 * without CONFIG_KALLSYMS_ALL (this machine's 6.18 rebuild) has it in BTF
 * but refuses its address, and the whole object would not load. 0 where
 * the link does not exist (no CONFIG_FAIR_GROUP_SCHED) or points
 * elsewhere: that span is then timed on wall time.
 *
 * At sched_switch the kernel has just updated this clock (__schedule's
 * update_rq_clock, before the tracepoint), as it has the outgoing task's
 * runtime (put_prev_task). In a sync both may lag, but they move at the
 * same updates, so a span's elapsed time and runtime stay in step.
 */
static __always_inline __u64 task_rq_clock(struct task_struct *t, __u32 cpu)
{
	struct rq *rq;

	if (!bpf_core_field_exists(t->se.cfs_rq) || !bpf_core_field_exists(struct cfs_rq, rq))
		return 0;
	rq = BPF_CORE_READ(t, se.cfs_rq, rq);
	if (!rq || (__u32)BPF_CORE_READ(rq, cpu) != cpu)
		return 0;
	return BPF_CORE_READ(rq, clock_task);
}

/* @next runs on this CPU from now: note whether its span will count. */
static __always_inline void set_owner(struct counters_cpu *last, const struct sw_task *next)
{
	last->owner_pid = next->pid;
	last->owner_ok = next->pid && (!cfg_filter ||
				       target_match(&proc_targets, next->tgid, next->pid));
	last->owner_known = 1;
}

/*
 * Read every event on this CPU and charge the deltas since the previous
 * read here to @t (facts @tf), the task that ran in between; @nf (NULL for
 * a sync or an exec) is the task that runs from now. Called with interrupts
 * off (sched_switch, or the sync IPI), or at an exec, where no switch can
 * come and the sync IPI steps aside (exec_account()), so reads on one CPU
 * never interleave.
 */
static __always_inline void account(struct task_struct *t, const struct sw_task *tf,
				    const struct sw_task *nf)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id(), tgid = tf->tgid, pid = tf->pid;
	struct hc_counters_proc *p = NULL;
	struct bpf_perf_event_value v;
	struct counters_cpu *last;
	bool charge, charged = false;
	__u64 now = bpf_ktime_get_ns(), clock = task_rq_clock(t, cpu), sum = tf->sum, share = 1024;
	__u64 elapsed;
	long err;

	last = bpf_map_lookup_elem(&counters_last, &zero);
	if (!last)
		return;
	/* spans that do not count still set the baseline */
	charge = span_wanted(last, tgid, pid);
	/*
	 * The span's own runtime is known when its owner's switch-in was read
	 * here, and up to date at a switch (a sync's may lag a tick: not scaled)
	 */
	if (nf && charge && last->owner_known && last->owner_pid == pid && sum >= last->owner_sum) {
		elapsed = clock && last->read_clock && clock >= last->read_clock ?
			  clock - last->read_clock : now - last->read_ns;
		share = span_share(elapsed, sum - last->owner_sum);
	}
	if (nf) {
		set_owner(last, nf);
		last->owner_sum = nf->sum;
	} else {
		if (!last->owner_known || last->owner_pid != pid)
			set_owner(last, tf);	/* sync: @t keeps running */
		last->owner_sum = sum;
	}
	last->read_ns = now;
	last->read_clock = clock;
	if (charge)
		p = proc_entry(t, tgid);
	if (p && share < 1024)
		cstat_inc(HC_CSTAT_SCALED);
#pragma unroll
	for (__u32 i = 0; i < HC_COUNTERS_MAX_EVENTS; i++) {
		if (i >= cfg_nr_events)
			break;
		err = bpf_perf_event_read_value(&counters_events,
						(i * cfg_nr_cpus + cpu) & BPF_F_INDEX_MASK, &v,
						sizeof(v));
		if (err) {
			/* no baseline any more: the next read on this CPU only sets it */
			stat_last_read_err = err;
			cstat_inc(HC_CSTAT_READ_ERR);
			last->valid &= ~(1u << i);
			continue;
		}
		if (!(last->valid & (1u << i))) {
			cstat_inc(HC_CSTAT_FIRST);
		} else if (p) {
			__sync_fetch_and_add(&p->value[i],
					     (v.counter - last->value[i]) * share >> 10);
			__sync_fetch_and_add(&p->enabled[i],
					     (v.enabled - last->enabled[i]) * share >> 10);
			__sync_fetch_and_add(&p->running[i],
					     (v.running - last->running[i]) * share >> 10);
			charged = true;
		}
		last->value[i] = v.counter;
		last->enabled[i] = v.enabled;
		last->running[i] = v.running;
		last->valid |= 1u << i;
	}
	if (!charged)
		return;
	__sync_fetch_and_add(&p->spans, 1);
	/* the name may change at exec: keep the latest */
	BPF_CORE_READ_STR_INTO(&p->comm, t, group_leader, comm);
	cstat_inc(HC_CSTAT_SPANS);
}

/* @prev is current and leaves the CPU. */
SEC("tp_btf/sched_switch")
int BPF_PROG(counters_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct sw_task pf = { prev->tgid, prev->pid, prev->se.sum_exec_runtime },
		       nf = { next->tgid, next->pid, next->se.sum_exec_runtime };

	account(prev, &pf, &nf);
	return 0;
}

/* Twin for kernels without tp_btf; the loader autoloads one of the two. */
SEC("raw_tp/sched_switch")
int BPF_PROG(counters_switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct sw_task pf, nf;

	sw_task_read(&pf, prev);
	sw_task_read(&nf, next);
	account(prev, &pf, &nf);
	return 0;
}

/*
 * At exec a process can become a target (a --comm rule matches its new
 * name; the -- CMD child is one from its exec on) or stop being one. The
 * span running now was decided at its switch-in, under the old image, and
 * a sync keeps that decision: a process that became a target at its exec
 * lost its time up to its first switch-out after it, which for a CPU-bound
 * command on a CPU with nothing else to run is the whole command (a CI run
 * of t_agent_counters: 50 ms of 2 s). So the span is read here and charged
 * so far by the old decision, and decided again for the rest of it, by the
 * target set as proc.bpf.c's exec hook has just left it: a tracepoint runs
 * its programs in the order they were attached, and the session attaches
 * the proc tracker first (session_start()). Not at the next read instead:
 * that may be the switch-out after the exit, when the process has left
 * the target set.
 *
 * A tracepoint runs with interrupts on: a sync IPI landing inside this read
 * would move the baselines under it (a delta below zero), so it skips this
 * CPU instead; what it would have charged is charged at the next read here.
 */
static __always_inline void exec_account(struct task_struct *t, const struct sw_task *tf)
{
	__u32 zero = 0;
	struct counters_cpu *last = bpf_map_lookup_elem(&counters_last, &zero);

	if (!last)
		return;
	last->in_exec_read = 1;
	asm volatile("" ::: "memory");	/* set before the reads begin */
	account(t, tf, NULL);		/* the owner is @t from here (sync rules) */
	last->owner_ok = target_match(&proc_targets, tf->tgid, tf->pid);
	asm volatile("" ::: "memory");
	last->in_exec_read = 0;
}

/* Only with a target filter (without one every span counts); one of the two. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(counters_exec, struct task_struct *p)
{
	struct sw_task tf = { p->tgid, p->pid, p->se.sum_exec_runtime };

	exec_account(p, &tf);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(counters_exec_raw, struct task_struct *p)
{
	struct sw_task tf;

	sw_task_read(&tf, p);
	exec_account(p, &tf);
	return 0;
}

/*
 * Never attached: run by the loader on each CPU through BPF_PROG_TEST_RUN
 * with BPF_F_TEST_RUN_ON_CPU (an IPI there), which charges the running task
 * its time so far. A raw_tp program because test runs of tp_btf programs
 * are not supported.
 */
SEC("raw_tp/sched_switch")
int BPF_PROG(counters_sync)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct counters_cpu *last;
	struct sw_task tf;
	__u32 zero = 0;

	last = bpf_map_lookup_elem(&counters_last, &zero);
	if (last && last->in_exec_read)
		return 0;	/* interrupted an exec's read here: it charges */
	sw_task_read(&tf, t);
	account(t, &tf, NULL);
	return 0;
}
