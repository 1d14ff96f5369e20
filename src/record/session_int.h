/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The session's insides, shared by session.c (lifecycle and drain),
 * session_write.c (profiles and reports out of the aggregation) and
 * session_report.c (the summary on stderr). Nothing outside record/ sees it.
 */
#ifndef HC_RECORD_SESSION_INT_H
#define HC_RECORD_SESSION_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "collect/collector.h"
#include "collect/proc.h"
#include "output/outfile.h"
#include "record/emit.h"
#include "record/name_ahead.h"
#include "collect/opts.h"
#include "record/proclife.h"
#include "record/target.h"
#include "stack/stack_agg.h"
#include "sym/keymap.h"
#include "sym/symbolizer.h"
#include "unwind/tables.h"

struct wakers;
struct branch_table;
struct locknames;
struct labels;

#define SESSION_MAX_COLLECTORS 4
#define SESSION_POLL_MS 100
/* -p targets' tables built in line before the start for at most this long (session.c) */
#define SESSION_TARGETS_INLINE_NS (2000 * 1000000ull)
#define SESSION_MAX_UFRAMES 128	/* user frames of a record (the ring's depth limit is 127) */
/* kernel ips + user frames of EMIT_UFR_WORDS each, for the stack and its waker */
#define SESSION_MAX_WORDS (2 * (128 + 128 * EMIT_UFR_WORDS))
#define SESSION_WAKER_SLOTS 4096
/*
 * Budgets of one turn of the loop, so that timers and signals are seen at
 * least every SESSION_POLL_MS plus about SESSION_TURN_NS: ring records
 * (a record costs ~1-5 us, a new process's maps ~20-35 us), held records
 * replayed per flush (proclife__release; the rest on the next), and the
 * final read of the ring at stop (SIGTERM must end the run within 1 s).
 */
#define SESSION_TURN_RECORDS 16384
#define SESSION_TURN_NS (50 * 1000000ull)
#define SESSION_REPLAY_BUDGET 1024
/* in-kernel map entries per drain turn (an entry ~1-5 us, as a ring record) */
#define SESSION_DRAIN_ENTRIES 8192
#define SESSION_DRAIN_NS (20 * 1000000ull)
#define SESSION_STOP_NS (300 * 1000000ull)
#define SESSION_BUILD_NS (50 * 1000000ull)	/* unwind table builds per drain, without a builder */
/* at close: how long to wait for the builder's table build in progress */
#define SESSION_BUILDER_WAIT_NS (100 * 1000000ull)

struct procmap;
struct proclife;
struct session_builder;
struct python;
struct hotspot_walk;
struct v8_walk;

struct session {
	const struct record_opts *o;
	struct proc_tracker *pt;
	struct collector_env env;
	bool *online;
	struct collector cols[SESSION_MAX_COLLECTORS];
	size_t nr_cols;
	struct symbolizer *sym;
	struct unwind_tables *ut;	/* NULL: frame pointers only */
	struct python *py;		/* Python frames (collect/python.h); NULL: none */
	struct hotspot_walk *hw;	/* JVMs' Java frames walked (collect/hotspot_walk.h); NULL: none */
	struct v8_walk *vw;	/* V8's JavaScript frames found (collect/v8_walk.h); NULL: none */
	pthread_mutex_t ut_lock;	/* every use of ut (session_unwind.c) */
	struct keymap ut_rm;		/* (tgid, 0): exited while ut was busy; removed at the next lock */
	/* re-reads asked for while ut was busy: done at the loop's next lock, one per process */
	struct { uint32_t tgid; uint64_t pc, inner_pc, time_ns; } ut_refq[16];
	size_t nr_ut_refq;
	uint64_t refresh_lag_max_ns;	/* longest from a walk to the re-read it asked for */
	struct session_builder *builder;	/* deferred table builds, lazily started */
	pthread_t preload_th;		/* runtime tables built while the collectors load */
	bool preloading;		/* ... until session_unwind_preload_join() */
	struct unwind_tables_stats ut_stats;	/* the last read (ut may be busy) */
	struct keymap deferred;		/* (tgid, 0) -> tgid << 32 | first sight (s) */
	uint64_t deferred_built, deferred_gone;	/* built late / exited before */
	struct stack_agg *agg;
	struct wakers *wakers;		/* NULL without --wakers */
	struct locknames *locknames;	/* NULL without lock collection */
	uint64_t lock_ns, lock_waits;	/* lock waits with stacks */
	struct target_child child;
	int child_wstatus;
	bool child_done;
	bool exec_failed;	/* the command could not be executed: status 127 */
	/*
	 * The command's tables, published while it was held at its entry point
	 * (child_hold.h): its exec record, read later, must not unpublish them.
	 */
	uint32_t held_tgid;
	bool held_exec_seen;	/* that exec record came */
	bool keep_unwind;	/* while it is handled: forget keeps the tables */
	uint64_t *words;	/* scratch: one stack's words */
	uint64_t samples;	/* on-CPU */
	uint64_t off_ns, off_blocks;		/* off-CPU blocks with stacks */
	uint64_t short_ns, short_blocks;	/* off-CPU blocks below --min-block */
	uint64_t cpuwait_ns;			/* off-CPU blocks' wakeup -> switch-in */
	uint64_t runq_ns, runq_waits;		/* run-queue waits with stacks */
	uint64_t rq_stacked_ns, rq_stacked_waits;	/* with stacks, since open */
	uint64_t rq_folded_ns, rq_folded_waits;		/* without, already folded in */
	struct proclife *life;		/* first sight, exec, exit, held records (proclife.h) */
	struct labels *labels;		/* --label cmdline (labels.h); NULL: roots by comm */
	uint64_t fp_cut;		/* FP-walked stacks cut at an unmapped return address */
	bool cfi_refused;		/* the kernel refused every collector's CFI walker */
	struct {			/* thread CPU time (ns) by activity */
		uint64_t polls, ring_ns;	/* ring polls: records, new processes */
		uint64_t cut_turns;		/* ring reads ended by the turn's budget */
		uint64_t records;
		uint64_t adds, add_ns;		/* session_add_process(), part of ring_ns */
		uint64_t drain_ns;		/* collectors' drain of in-kernel maps */
		uint64_t drain_cut;		/* drains ended by the turn's budget */
		uint64_t execs, exec_ns;	/* snapshots at exec, part of ring_ns */
	} work;
	struct outfile out;	/* created before recording: fail early, not after */
	bool out_open;
	struct emit_stats written;
	bool wrote;
	uint64_t end_ns;		/* monotonic: -d DUR ends the run here */
	uint64_t start_ns, start_unix_ns;	/* monotonic and wall clock at the start */
	uint64_t next_drain_ns;		/* monotonic: next drain of in-kernel aggregates */
	uint64_t next_settle_ns;	/* monotonic: next look for titles to settle (labels.h) */
	uint64_t next_report_ns;	/* monotonic: next -v loss report */
	bool ring_more;			/* the last read left records: no wait on the next */
	bool drain_more;		/* the last drain left entries: again on the next turn */
	const char *slowest_what;	/* the longest step since session__take_slowest() */
	uint64_t slowest_ns, slowest_cpu_ns;	/* its wall time and this thread's CPU in it */
	/* the agent's interval named while it runs (session_name.c); off: all at its end */
	bool naming;
	bool name_more;			/* the last naming turn left stacks: no wait on the next */
	struct name_ahead na;
	struct emit_namer *namer;
	struct profile *named;		/* the interval's stacks named so far */
	uint64_t name_errors;		/* ledgers dropped on an error (named at the end) */
	struct branch_table *branches;	/* record -b (session_branches.c); NULL: off */
	char *branches_path;		/* OUTPUT.branches */
	uint64_t branches_nomem;	/* branch stacks not fully counted: out of memory */
};

/* session_branches.c: record -b */
struct branch_sample;
/* Allocate the site table; check OUTPUT.branches can be written. 0 or -errno. */
int session_branches_open(struct session *s);
/* proc_handlers.branches: count one sample's branch stack. Always 0. */
int session_branches_add(const struct branch_sample *b, void *arg);
/* Name the sites and write OUTPUT.branches (no-op without -b). 0 or -errno. */
int session_branches_write(struct session *s);
void session_branches_close(struct session *s);	/* NULL-safe fields */

/* session.c: one record, past the process lifecycle, into the aggregation */
int session_aggregate(const struct sample_view *v, void *arg);

/* session_loop.c */
/*
 * One budgeted read of the ring, after waiting up to @wait_ms for a wakeup
 * (0: none), then the reads of the processes it deferred. What is left is
 * read on the next turn, without waiting (s->ring_more). 0 or -errno.
 */
int session_ring_turn(struct session *s, int wait_ms);
/*
 * In-kernel aggregates (off-CPU short blocks) into the same aggregation as
 * ring samples: a turn's budget of entries (the rest on the next turn,
 * s->drain_more), or @all of them (the end of a run). 0 or -errno.
 */
int session_drain(struct session *s, bool all);
/*
 * A step of the loop began at monotonic @t0 with this thread's CPU clock at
 * @c0: keep the longest (session__take_slowest).
 */
void session_step(struct session *s, const char *what, uint64_t t0, uint64_t c0);

/* session_name.c */
/* The agent (o->name_ahead, no --label): a ledger and the interval's profile. 0 or -errno. */
int session_name_open(struct session *s);
/* One turn's budget of naming the interval's new stacks; failures are counted, not fatal. */
void session_name_turn(struct session *s);
/* The aggregation was emptied: a new interval's ledger. */
void session_name_reset(struct session *s);
void session_name_close(struct session *s);

/* session_procs.c */
/*
 * proclife's host: a process's maps for naming and, with CFI, its unwind
 * tables. 0, -ESRCH (gone or a zombie: noted in the symbolizer), -errno.
 */
int session_add_process(uint32_t tgid, void *arg);
/* proclife's host: @tgid exited or exec'd: its snapshot, tables and deferral go. */
void session_forget_process(uint32_t tgid, void *arg);
/* At exec (snapshot_at_exec): the new image's maps for the symbolizer. */
void session_snapshot_exec(struct session *s, uint32_t tgid);
/*
 * A CFI walk of @tgid ended at unknown code (@uips, leaf first, end there):
 * re-read its mappings (not while deferred); while ut is busy, at the next
 * session_refresh_queued().
 */
void session_refresh_unwind(struct session *s, uint32_t tgid, const uint64_t *uips, size_t n,
			    uint64_t time_ns);
/* The re-reads put off while ut was busy; the caller holds ut. */
void session_refresh_queued(struct session *s);
/* Build the unwind tables deferred for processes that have lived long enough. */
void session_build_deferred(struct session *s);

/* session_unwind.c: ut is used under ut_lock; the loop only try-locks it */
/* true: ut is the caller's until session_unwind_unlock() (pending removals applied) */
bool session_unwind_lock(struct session *s);
void session_unwind_unlock(struct session *s);
/* @tgid exited or exec'd: drop its tables entry now, or at the next lock. */
void session_unwind_remove(struct session *s, uint32_t tgid);
/* A sample of @tgid walked while some of its tables were being built: those first. */
void session_unwind_demand(struct session *s, uint32_t tgid);
/* Build @tgid's tables on the builder thread (started on first use). false: not queued. */
bool session_unwind_queue(struct session *s, uint32_t tgid);
/*
 * The runtime libraries' tables (unwind_tables__preload_runtime()) on a
 * thread of their own while the collectors load; join before sampling
 * starts (and before ut is freed). In line if no thread can be made.
 */
void session_unwind_preload_start(struct session *s);
void session_unwind_preload_join(struct session *s);	/* no-op when none runs */
/*
 * `-- CMD` with CFI, after the go: hold the command at its entry point until
 * its tables are published (in line), then let it run. Not held (no ptrace,
 * HOTCOLD_NO_HOLD=1): as any new process, published when first seen.
 */
void session_unwind_hold_child(struct session *s, bool attached);
/* Stop the builder, waiting up to @wait_ns for a build in progress. true: stopped. */
bool session_unwind_stop(struct session *s, uint64_t wait_ns);

/* session_write.c */
enum out_format session_output_format(const struct record_opts *o);
struct emit_opts session_emit_opts(const struct session *s);
/* Write the current aggregation to @f as @fmt (or a runqlat/locks report). */
int session_write_to(struct session *s, FILE *f, enum out_format fmt, struct emit_stats *es);

/* session_report.c */
void session_report_stats(struct session *s, bool final);
void session_report_counters(struct session *s);
void session_report_self(void);
void session_report_written(struct session *s);
void session_describe(struct session *s);

#endif /* HC_RECORD_SESSION_INT_H */
