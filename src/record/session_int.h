/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The session's insides, shared by session.c (lifecycle and drain),
 * session_write.c (profiles and reports out of the aggregation) and
 * session_report.c (the summary on stderr). Nothing outside record/ sees it.
 */
#ifndef HC_RECORD_SESSION_INT_H
#define HC_RECORD_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "collect/collector.h"
#include "collect/proc.h"
#include "output/outfile.h"
#include "record/emit.h"
#include "record/opts.h"
#include "record/target.h"
#include "stack/stack_agg.h"
#include "sym/keymap.h"
#include "sym/symbolizer.h"

struct unwind_tables;
struct wakers;
struct locknames;

#define SESSION_MAX_COLLECTORS 4
#define SESSION_POLL_MS 100
#define SESSION_MAX_UFRAMES 128	/* user frames of a record (the ring's depth limit is 127) */
/* kernel ips + user frames of EMIT_UFR_WORDS each, for the stack and its waker */
#define SESSION_MAX_WORDS (2 * (128 + 128 * EMIT_UFR_WORDS))
#define SESSION_WAKER_SLOTS 4096
#define SESSION_MAX_HELD 4096	/* records held for exit maps (session_held.c) */
#define SESSION_MAX_COMMS 4096	/* names in the discovery cache (session_seen) */
#define SESSION_COMM_REREAD_NS (10 * 1000000000ull)

struct held_rec;
struct procmap;

struct session {
	const struct record_opts *o;
	struct proc_tracker *pt;
	struct collector_env env;
	bool *online;
	struct collector cols[SESSION_MAX_COLLECTORS];
	size_t nr_cols;
	struct symbolizer *sym;
	struct unwind_tables *ut;	/* NULL: frame pointers only */
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
	uint64_t *words;	/* scratch: one stack's words */
	uint64_t samples;	/* on-CPU */
	uint64_t off_ns, off_blocks;		/* off-CPU blocks with stacks */
	uint64_t short_ns, short_blocks;	/* off-CPU blocks below --min-block */
	uint64_t cpuwait_ns;			/* off-CPU blocks' wakeup -> switch-in */
	uint64_t runq_ns, runq_waits;		/* run-queue waits with stacks */
	uint64_t rq_stacked_ns, rq_stacked_waits;	/* with stacks, since open */
	uint64_t rq_folded_ns, rq_folded_waits;		/* without, already folded in */
	uint64_t procs_late;	/* first sample arrived after the process exited */
	struct keymap gone;		/* (tgid, 0): gone before its maps were read */
	struct keymap comm_read;	/* (comm hash, 0) -> when a process of that name was read */
	struct keymap to_read;		/* (tgid, 0): read after this batch (session_defer_read) */
	uint64_t seen_lazy;		/* first sights not read at once (session_seen) */
	uint64_t fp_cut;		/* FP-walked stacks cut at an unmapped return address */
	struct held_rec *held_head;	/* their records, in ring order */
	struct held_rec **held_tail;
	size_t nr_held;
	bool releasing;		/* session_release_held(): replayed records are not held again */
	uint64_t held_replayed, held_dropped;
	struct {			/* thread CPU time (ns) by activity */
		uint64_t polls, ring_ns;	/* ring polls: records, new processes */
		uint64_t records;
		uint64_t adds, add_ns;		/* session_add_process(), part of ring_ns */
		uint64_t drain_ns;		/* collectors' drain of in-kernel maps */
		uint64_t execs, exec_ns;	/* snapshots at exec, part of ring_ns */
	} work;
	struct outfile out;	/* created before recording: fail early, not after */
	bool out_open;
	struct emit_stats written;
	bool wrote;
	uint64_t end_ns;		/* monotonic: -d DUR ends the run here */
	uint64_t next_drain_ns;		/* monotonic: next drain of in-kernel aggregates */
	uint64_t next_report_ns;	/* monotonic: next -v loss report */
};

/* session.c: one decoded record into the aggregation */
int session_sample(struct session *s, const struct sample_view *v);

/* session_held.c */
/* @tgid was gone before its maps were read: hold its records for its exit maps. */
void session_mark_gone(struct session *s, uint32_t tgid);
/* Keep @v (of a process marked gone) for later; false: process it now. */
bool session_hold(struct session *s, const struct sample_view *v);
/* HC_REC_MAPS: @tgid's executable mappings at exit. */
void session_exit_maps(struct session *s, uint32_t tgid, const struct procmap *m, size_t n);
/* @tgid exited (or exec'd): replay its held records. */
void session_gone_exit(struct session *s, uint32_t tgid);
/*
 * A stack record of @tgid, first seen without a stack and not read then:
 * hold its records and read its maps after the batch of records in hand,
 * unless its exit (and exit maps) came in that batch: no failed read.
 */
void session_defer_read(struct session *s, uint32_t tgid);
/* End of a batch: read the deferred processes still alive and replay their records. */
void session_read_deferred(struct session *s);
/* Replay every held record (interval end, stop): their exits may never come. */
void session_release_held(struct session *s);
/* Free them unreplayed (close). */
void session_free_held(struct session *s);

/* session_procs.c */
/* First sight of @tgid without a stack: read its maps now, or at its first stack. */
void session_seen(struct session *s, uint32_t tgid, const char *comm);
/* First sight of a process: its maps for naming and, with CFI, its unwind tables. */
/* true if its maps were read (false: gone or unreadable) */
bool session_add_process(struct session *s, uint32_t tgid);
/* At exec (snapshot_at_exec): the new image's maps for the symbolizer. */
void session_snapshot_exec(struct session *s, uint32_t tgid);
/* A CFI walk of @tgid met unknown code: re-read its mappings (not while deferred). */
void session_refresh_unwind(struct session *s, uint32_t tgid);
/* Build the unwind tables deferred for processes that have lived long enough. */
void session_build_deferred(struct session *s);

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
