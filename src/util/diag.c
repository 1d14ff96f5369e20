// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The diagnostics registry (see diag.h); keys are stable: metrics and scripts match on them. */
#include "util/diag.h"

#include <stdio.h>
#include <string.h>

#include "util/compiler.h"

#define RING "a bigger event ring (record --ring-mb) or a lower rate (-F)"
#define NARROW "narrow the target (-p, --comm, --cgroup) or record for less time"
#define KREFUSED "this kernel's verifier refused it (the reason was said at the start; README, " \
	"Kernels): went on without it"
#define NONE_FP "nothing to do: code built without frame pointers or CFI there"

static const struct diag table[] = {
	/* work done */
	{ "samples", "samples", DIAG_WORK, "" },
	{ "blocks with stacks", "blocks_with_stacks", DIAG_WORK, "" },
	{ "waits with stacks", "waits_with_stacks", DIAG_WORK, "" },
	{ "user stacks by CFI", "user_stacks_cfi", DIAG_WORK, "" },
	/* the walker's rule cache: misses / frames is its miss rate (bpf/lib/unwind.bpf.h) */
	{ "CFI frames", "cfi_frames", DIAG_WORK, "" },
	{ "CFI frames searched in the table (not in the rule cache)", "cfi_rule_cache_misses",
	  DIAG_WORK, "" },
	/* JIT frames named from a JVM's code cache (sym/hotspot.h) */
	{ "Java frames named from the JVM", "hotspot_named", DIAG_WORK, "" },
	/* ... and walked through in BPF (bpf/lib/unwind_hotspot.bpf.h) */
	{ "Java frames walked", "java_frames_walked", DIAG_WORK, "" },
	/* JavaScript frames the BPF walk found (bpf/lib/unwind_v8.bpf.h) ... */
	{ "JavaScript frames found by the walk", "v8_frames_walked", DIAG_WORK, "" },
	/* ... and named from the process (sym/v8.c) */
	{ "JavaScript frames named from V8", "v8_named", DIAG_WORK, "" },
	/* no time lost: the thread's time comes from the kernel's account (collect/oncpu.c) */
	{ "ticks missed while a task ran", "ticks_unseen", DIAG_WORK, "" },
	/* cpu-clock ticks less on an idle CPU: no one's time (collect/oncpu.c) */
	{ "tick gaps (idle CPU or a switch)", "tick_gaps", DIAG_WORK, "" },
	/* dithering's ticks between a thread's samples, on a per-CPU copy (bpf/oncpu.bpf.c) */
	{ "ticks decided on the CPU's copy (no task storage lookup)", "ticks_on_cpu_copy",
	  DIAG_WORK, "" },
	/* losses */
	{ "lost (ring full)", "ring_full", DIAG_LOSS, RING },
	{ "untimed (no task storage)", "no_task_storage", DIAG_LOSS,
	  "the kernel could not allocate task storage; free memory or " NARROW },
	{ "short-block time lost (map full)", "short_block_map_full", DIAG_LOSS, NARROW },
	{ "run-queue waits lost (histogram map full)", "runq_map_full", DIAG_LOSS, NARROW },
	{ "exec/exit events lost (ring full)", "proc_ring_full", DIAG_LOSS, RING },
	{ "children not followed (target map full)", "target_map_full", DIAG_LOSS, NARROW },
	{ "malformed ring records", "malformed_records", DIAG_LOSS,
	  "a bug: please report it with the output of -vv" },
	{ "waits lost (lock map full)", "lock_map_full", DIAG_LOSS, NARROW },
	{ "spans lost (counter read failed)", "counter_read_failed", DIAG_LOSS,
	  "check that 'hotcold stat' works here; counters may be multiplexed away" },
	{ "spans lost (process table full)", "counter_table_full", DIAG_LOSS, NARROW },
	{ "branch stacks lost (ring full)", "branch_ring_full", DIAG_LOSS, RING },
	{ "samples without branch records", "branch_stack_missing", DIAG_LOSS,
	  "the PMU gave no branch stack for those samples (LBR in use by another tool, or "
	  "taken away by a hypervisor): check 'perf record -b' on this machine" },
	{ "stacks over the aggregation limit", "max_stacks", DIAG_LOSS, "raise --max-stacks" },
	{ "blocks whose switch-in was not traced, untimed", "offcpu_switch_in_untimed", DIAG_LOSS,
	  "nothing to do: a thread preempted as it blocked came back untraced" },
	/* degraded: the sample is kept, its stack or names are worse */
	{ "ticks missed over 5% of the time (samples taken late)", "ticks_unseen_many",
	  DIAG_DEGRADED, "a task ran on but the sampler did not run (the kernel holds a perf_event "
	  "program off while other BPF programs or map operations use the CPU): no time lost, "
	  "but those samples' stacks are from the next tick; run fewer BPF tools at once" },
	{ "kernel stack errors", "kernel_stack_errors", DIAG_DEGRADED,
	  "samples kept without a kernel stack; many: " RING },
	{ "user stack errors", "user_stack_errors", DIAG_DEGRADED,
	  "samples kept without a user stack; try --unwind cfi" },
	{ "user stacks truncated", "user_stacks_truncated", DIAG_DEGRADED,
	  "nothing to do: deeper than the BPF stack limit" },
	{ "user stacks left to the next switch-out (no task work)", "user_stacks_deferred",
	  DIAG_DEGRADED, "nothing to do: the stack was taken at the next switch-out instead" },
	{ "user stacks dropped (registers moved before the walk)", "user_stacks_moved",
	  DIAG_DEGRADED, "nothing to do: the thread ran again before its stack was read" },
	{ "blocks whose switch-in was not traced (timed, no stack)", "offcpu_switch_in_untraced",
	  DIAG_DEGRADED, "nothing to do: the kernel gave the thread a CPU without a sched_switch "
	  "event (docs/offcpu.md, switch-ins not traced); the time is kept, under '[REASON, end not traced]'" },
	{ "short-block samples put off (CPU budget spent)", "offcpu_samples_deferred",
	  DIAG_DEGRADED, "nothing to do: their time waits for the CPU's next sample, which weighs "
	  "more (docs/offcpu.md, Off-CPU sampling); or narrow the target" },
	{ "stacks by FP (no table yet)", "fp_no_table_yet", DIAG_DEGRADED,
	  "tables are built in the background: record longer, or start before the workload" },
	{ "CFI stacks with FP frames (no CFI there)", "cfi_fp_frames", DIAG_DEGRADED, NONE_FP },
	{ "walks ended in unmapped code", "walk_unmapped", DIAG_DEGRADED,
	  "JIT code? have the runtime write /tmp/perf-PID.map" },
	{ "walks ended on an unsupported CFA rule", "walk_unsupported_cfa", DIAG_DEGRADED,
	  NONE_FP },
	{ "walks ended on unreadable stack", "walk_unreadable_stack", DIAG_DEGRADED,
	  "nothing to do: the stack page was not resident" },
	{ "walks ended on a corrupt frame", "walk_corrupt_frame", DIAG_DEGRADED, NONE_FP },
	{ "walks ended early: CFI table not yet published", "walk_table_pending", DIAG_DEGRADED,
	  "tables are built in the background: record longer, or start before the workload" },
	/* bpf/lib/unwind_hotspot.bpf.h: a Java thread's stack cut in the JVM's code cache */
	{ "walks ended in a JVM's code cache: no code blob at the pc", "walk_java_no_blob",
	  DIAG_DEGRADED, "nothing to do: the JVM freed or moved that code as the sample was taken" },
	{ "walks ended in a Java method's prologue", "walk_java_prologue", DIAG_DEGRADED,
	  "nothing to do: the sample fell before the method's frame was set up" },
	{ "walks ended in a JVM stub without a frame", "walk_java_frameless", DIAG_DEGRADED,
	  "nothing to do: such stubs (array copies, vtable stubs) keep no frame to step through" },
	{ "walks ended on a corrupt Java frame", "walk_java_corrupt_frame", DIAG_DEGRADED,
	  "nothing to do: the frame pointer or size made no sense (a frame being built or torn down)" },
	{ "walks ended on unreadable JVM code cache", "walk_java_unreadable", DIAG_DEGRADED,
	  "nothing to do: the JVM's memory could not be read from BPF (paged out, or another "
	  "task's stack at the stop)" },
	{ "kernel contentions unmatched or nested too deep", "lock_unmatched", DIAG_DEGRADED,
	  "nothing to do: nested kernel locks beyond the tracked depth" },
	{ "exit maps not read (ring full or lock busy)", "exit_maps_not_read", DIAG_DEGRADED,
	  "frames of short-lived processes may stay unnamed; " RING },
	{ "exit maps cut short (over 64 code mappings)", "exit_maps_cut", DIAG_DEGRADED,
	  "nothing to do: only 64 code mappings are read at exit" },
	{ "processes gone before their maps were read and without exit maps",
	  "procs_gone_unnamed", DIAG_DEGRADED,
	  "frames of short-lived processes stay unnamed; start hotcold before them" },
	{ "records not held for exit maps (limit)", "held_records_dropped", DIAG_DEGRADED,
	  "frames of short-lived processes stay unnamed; " NARROW },
	{ "stacks not named in time (interval budget)", "stacks_unnamed_budget", DIAG_DEGRADED,
	  "the agent was starved of CPU at the interval's end: a longer --interval, or less load" },
	/* collect/parts.c: the part's line at the start said the verifier's reason */
	{ "parts refused by the kernel: task work (stacks at sys_exit)",
	  "kernel_refused_task_work", DIAG_DEGRADED, KREFUSED },
	{ "parts refused by the kernel: waker stacks", "kernel_refused_wakers", DIAG_DEGRADED,
	  KREFUSED },
	{ "parts refused by the kernel: lock holders' stacks", "kernel_refused_holders",
	  DIAG_DEGRADED, KREFUSED },
	{ "parts refused by the kernel: branch records", "kernel_refused_branches",
	  DIAG_DEGRADED, KREFUSED },
	{ "parts refused by the kernel: CFI unwinding (frame pointers instead)",
	  "kernel_refused_cfi", DIAG_DEGRADED, KREFUSED },
	/* collect/kfuncs.c: said once at the start, with the kfunc and the kernel that has it */
	{ "parts left out: this kernel lacks their kfuncs", "kernel_lacks_kfuncs", DIAG_DEGRADED,
	  "a newer kernel has them (README, Kernels); the line at the start named each" },
	{ "objects unreadable", "objects_unreadable", DIAG_DEGRADED,
	  "frames in them stay unnamed; run as root, see -v for which" },
	/* sym/hotspot.h: names of JIT frames read from a JVM's code cache */
	{ "Java frames unnamed: no code blob at the pc", "hotspot_no_blob", DIAG_DEGRADED,
	  "nothing to do: the code was freed or moved by the JVM before the profile was written" },
	{ "Java frames unnamed: JVM memory unreadable", "hotspot_unreadable", DIAG_DEGRADED,
	  "names are read when the profile is written: keep the JVM running until then (a JVM "
	  "that exited earlier is not named), and run as root" },
	{ "Java frames unnamed: JVM version or layout unknown", "hotspot_vm_unknown",
	  DIAG_DEGRADED,
	  "the 'hotspot: pid N' line above says why; a perf map still names its "
	  "frames (jcmd PID Compiler.perfmap)" },
	{ "Java frames unnamed: interpreted, no method from the walk", "hotspot_interp_unnamed",
	  DIAG_DEGRADED,
	  "the BPF walk reads an interpreted frame's method: use --unwind cfi, and keep "
	  "HOTCOLD_HOTSPOT unset; a few are leaves in the interpreter's method entry" },
	{ "Java frames unnamed: interpreted method unloaded or misread", "hotspot_method_stale",
	  DIAG_DEGRADED,
	  "nothing to do: the method was unloaded (or the word was no method) before the "
	  "profile was written" },
	{ "JavaScript frames unnamed: process memory unreadable", "v8_unreadable", DIAG_DEGRADED,
	  "names are read when the profile is written: keep the node process running until "
	  "then (one that exited earlier is not named), and run as root" },
	{ "JavaScript frames unnamed: function moved, freed or misread", "v8_stale",
	  DIAG_DEGRADED,
	  "nothing to do for a few: V8's garbage collector moved or freed the function before "
	  "the profile was written; many: please report the node version" },
	{ "JavaScript frames unnamed: V8 layout unknown", "v8_layout_unknown", DIAG_DEGRADED,
	  "the 'v8: pid N' line above says why; node --perf-basic-prof still names its frames "
	  "through a perf map" },
};

const struct diag *diag__find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

enum diag_class diag__class(const char *name, bool reported_loss)
{
	const struct diag *d = diag__find(name);

	if (d)
		return d->cls;
	return reported_loss ? DIAG_LOSS : DIAG_WORK;
}

const char *diag__key(const char *name, char *buf, size_t len)
{
	const struct diag *d = diag__find(name);
	size_t o = 0;
	bool sep = false;

	if (!len)
		return buf;
	if (d) {
		snprintf(buf, len, "%s", d->key);
		return buf;
	}
	for (const char *p = name; *p && o + 1 < len; p++) {
		char c = *p;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (sep && o && o + 2 < len)
				buf[o++] = '_';
			buf[o++] = c;
			sep = false;
		} else {
			sep = true;
		}
	}
	buf[o] = '\0';
	return buf;
}

const char *diag__class_name(enum diag_class cls)
{
	return cls == DIAG_LOSS ? "lost" : cls == DIAG_DEGRADED ? "degraded" : "work";
}
