// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The session's side of the process lifecycle (proclife.c decides when):
 * what a new process costs (its maps for the symbolizer and the unwinder,
 * once), what its exit or exec drops, snapshots at exec, CFI tables built
 * late for processes that outlive the deferral, and the run-queue time that
 * carries no stack.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/hotspot_walk.h"
#include "collect/v8_walk.h"
#include "collect/python.h"
#include "record/labels.h"
#include "record/session.h"
#include "record/session_int.h"
#include "sym/procmaps.h"
#include "unwind/tables.h"
#include "util/clock.h"


/* First sight of a process: its maps for naming and, with CFI, its unwind tables. */
int session_add_process(uint32_t tgid, void *arg)
{
	struct session *s = arg;
	struct procmaps *pm;
	char path[64];
	uint64_t t = clock_mono_ns(), c = clock_thread_cpu_ns(), seen;
	bool gone;
	int err;

	/* the title first: a process gone before this keeps its comm (labels.h) */
	if (s->labels)
		labels__read(s->labels, tgid);
	/* one read of the maps for both: the biggest per-process cost under churn */
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	pm = s->ut ? procmaps__load(path, PROCMAPS_EXEC_ONLY) : NULL;
	gone = s->ut && !pm && (errno == ENOENT || errno == ESRCH);
	/* a zombie's maps read empty: as gone as a reaped process */
	if (pm && !procmaps__nr(pm)) {
		procmaps__free(pm);
		pm = NULL;
		gone = true;
	}
	if (!pm) {
		/* no unwinder, or gone (counted) or unreadable: the symbolizer's own path */
		err = gone ? symbolizer__add_gone(s->sym, tgid) : symbolizer__add_process(s->sym, tgid);
		s->work.add_ns += clock_thread_cpu_ns() - c;
		s->work.adds++;
		return err;
	}
	symbolizer__add_process_maps(s->sym, tgid, pm, t);
	if (s->py)
		python__add_process(s->py, tgid, pm);
	if (s->hw)
		hotspot_walk__add_process(s->hw, tgid, pm);
	if (s->vw)
		v8_walk__add_process(s->vw, tgid, pm);
	/*
	 * The record that showed it was walked by frame pointer; the next ones
	 * get CFI. A failure here is counted in the unwind summary. With a
	 * deferral, only tables already loaded are used now: most processes of
	 * a build or a shell loop are gone before their libraries' tables would
	 * pay off (libLLVM alone is ~1M rows, most of a second to build).
	 */
	seen = (uint64_t)tgid << 32 | (uint32_t)(t / 1000000000);
	if (session_unwind_lock(s)) {
		err = unwind_tables__add_process_maps(s->ut, tgid, pm, !s->o->unwind_defer_ns);
		if (err > 0 && keymap__put(&s->deferred, tgid, 0, seen))
			unwind_tables__add_process(s->ut, tgid);	/* no memory to defer: now */
		session_unwind_unlock(s);
	} else {
		/* a build is running: this one waits its turn, walked by frame pointer */
		keymap__put(&s->deferred, tgid, 0, seen);
	}
	procmaps__free(pm);
	s->work.add_ns += clock_thread_cpu_ns() - c;
	s->work.adds++;
	return 0;
}

void session_forget_process(uint32_t tgid, void *arg)
{
	struct session *s = arg;

	/* ring order: every sample of @tgid was normalized before this record */
	symbolizer__forget_process(s->sym, tgid);
	if (s->py)
		python__forget(s->py, tgid);
	hotspot_walk__forget(s->hw, tgid);
	v8_walk__forget(s->vw, tgid);
	/* the command's exec, its tables published after it while it was held */
	if (!s->keep_unwind)
		session_unwind_remove(s, tgid);
	if (keymap__del(&s->deferred, tgid, 0, NULL))
		s->deferred_gone++;
}

/*
 * A process whose interpreter (libpython3.X.so, libjvm.so) was not mapped
 * yet when it was first read (the first sample came from ld.so, or the
 * java launcher before it loaded the VM): looked for again when its walks
 * meet code mapped since.
 */
static void runtime_recheck(struct session *s, uint32_t tgid)
{
	bool py = s->py && !python__known(s->py, tgid);
	bool jvm = s->hw && !hotspot_walk__known(s->hw, tgid);
	bool v8 = s->vw && !v8_walk__known(s->vw, tgid);
	struct procmaps *pm;
	char path[64];

	if (!py && !jvm && !v8)
		return;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	pm = procmaps__load(path, PROCMAPS_EXEC_ONLY);
	if (pm && py)
		python__add_process(s->py, tgid, pm);
	if (pm && jvm)
		hotspot_walk__add_process(s->hw, tgid, pm);
	if (pm && v8)
		v8_walk__add_process(s->vw, tgid, pm);
	procmaps__free(pm);
}

static void refresh_now(struct session *s, uint32_t tgid, uint64_t pc, uint64_t inner_pc,
			uint64_t time_ns)
{
	uint64_t c = clock_thread_cpu_ns(), lag;
	bool reread = unwind_tables__refresh(s->ut, tgid, pc, inner_pc) > 0;

	/* an interpreter mapped since is among what a re-read finds: not per walk */
	if (reread)
		runtime_recheck(s, tgid);
	s->work.add_ns += clock_thread_cpu_ns() - c;
	/* the walk's time (CLOCK_MONOTONIC, as bpf_ktime_get_ns) to its re-read */
	lag = clock_mono_ns() - time_ns;
	if (reread && time_ns && lag < (1ull << 40) && lag > s->refresh_lag_max_ns)
		s->refresh_lag_max_ns = lag;
}

void session_refresh_unwind(struct session *s, uint32_t tgid, const uint64_t *uips, size_t n,
			    uint64_t time_ns)
{
	uint64_t pc = n ? uips[n - 1] : 0, inner_pc = n > 1 ? uips[n - 2] : 0;
	size_t i;

	/*
	 * A deferred process's walks end in the mappings left to frame pointers
	 * by design: a refresh would build their tables at once (it did, most of
	 * the agent's table builds). They come with the deferred build.
	 */
	if (!n)
		return;
	if (keymap__get(&s->deferred, tgid, 0, NULL)) {
		runtime_recheck(s, tgid);	/* its interpreter, mapped after its first sight */
		return;
	}
	if (session_unwind_lock(s)) {
		refresh_now(s, tgid, pc, inner_pc, time_ns);
		session_unwind_unlock(s);
		return;
	}
	/*
	 * A deferred build holds the tables (up to a second or more): skipped,
	 * a dlopen()ed library's samples would wait for a later walk's ask and
	 * end at it meanwhile. Kept, the latest pc per process.
	 */
	for (i = 0; i < s->nr_ut_refq && s->ut_refq[i].tgid != tgid; i++)
		;
	if (i == sizeof(s->ut_refq) / sizeof(s->ut_refq[0]))
		i = tgid % i;	/* full: another process's ask waits for its next walk */
	else if (i == s->nr_ut_refq)
		s->nr_ut_refq++;
	s->ut_refq[i].tgid = tgid;
	s->ut_refq[i].pc = pc;
	s->ut_refq[i].inner_pc = inner_pc;
	s->ut_refq[i].time_ns = time_ns;
}

void session_refresh_queued(struct session *s)
{
	for (size_t i = 0; i < s->nr_ut_refq; i++)
		if (!keymap__get(&s->deferred, s->ut_refq[i].tgid, 0, NULL))
			refresh_now(s, s->ut_refq[i].tgid, s->ut_refq[i].pc, s->ut_refq[i].inner_pc,
				    s->ut_refq[i].time_ns);
	s->nr_ut_refq = 0;
}

void session_build_deferred(struct session *s)
{
	uint32_t due[64], now_s = (uint32_t)(clock_mono_ns() / 1000000000);
	size_t it = 0, nr = 0;
	uint64_t v, c, t0 = clock_mono_ns();

	/* collected first: the keymap must not change during the walk */
	while (nr < sizeof(due) / sizeof(due[0]) && keymap__next(&s->deferred, &it, &v)) {
		if ((uint64_t)(uint32_t)(now_s - (uint32_t)v) * 1000000000 >= s->o->unwind_defer_ns)
			due[nr++] = (uint32_t)(v >> 32);
	}
	c = clock_thread_cpu_ns();
	for (size_t i = 0; i < nr; i++) {
		/* on the builder thread: one build can take seconds (libLLVM, postgres on a busy box) */
		if (session_unwind_queue(s, due[i])) {
			keymap__del(&s->deferred, due[i], 0, NULL);
			continue;
		}
		if (s->builder)
			break;	/* its queue is full: the rest on the next drain */
		/* no thread: here, with a time budget between processes */
		if (clock_mono_ns() - t0 >= SESSION_BUILD_NS || !session_unwind_lock(s))
			break;
		keymap__del(&s->deferred, due[i], 0, NULL);
		if (unwind_tables__add_process(s->ut, due[i]) == -ESRCH)
			s->deferred_gone++;
		else
			s->deferred_built++;
		session_unwind_unlock(s);
	}
	s->work.add_ns += clock_thread_cpu_ns() - c;
}

/*
 * At exec, while the process surely lives, the new image's mappings for the
 * symbolizer: a process that runs for a few milliseconds is often gone by
 * the time its first sample is read. The executable itself and ld.so are
 * mapped by then, libraries not yet (a miss on them re-reads, if it lives).
 */
void session_snapshot_exec(struct session *s, uint32_t tgid)
{
	struct procmaps *pm;
	char path[64];
	uint64_t c = clock_thread_cpu_ns();

	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	pm = procmaps__load(path, PROCMAPS_EXEC_ONLY);
	if (pm)
		symbolizer__add_process_maps(s->sym, tgid, pm, clock_mono_ns());
	procmaps__free(pm);
	s->work.exec_ns += clock_thread_cpu_ns() - c;
	s->work.execs++;
}

int session__fold_unstacked_runq(struct session *s)
{
	struct stack_key key;
	uint64_t waits, ns, w, t;
	int err;

	if (!s->o->runq)
		return 0;
	err = -ENOENT;
	for (size_t i = 0; err == -ENOENT && i < s->nr_cols; i++)
		if (s->cols[i].ops == &sched_ops)
			err = sched_runq_totals(&s->cols[i], &waits, &ns);
	if (err)
		return err;
	/*
	 * Cumulative: a wait histogrammed whose stacked record is still in the
	 * ring is counted twice for a moment; it evens out at the next fold.
	 */
	if (waits < s->rq_stacked_waits + s->rq_folded_waits ||
	    ns < s->rq_stacked_ns + s->rq_folded_ns)
		return 0;
	w = waits - s->rq_stacked_waits - s->rq_folded_waits;
	t = ns - s->rq_stacked_ns - s->rq_folded_ns;
	if (!t)
		return 0;
	memset(&key, 0, sizeof(key));
	key.kind = SAMPLE_RUNQ;
	/* root frame "[no stack]": wakeup waits and preemptions below min_runq */
	snprintf(key.comm, sizeof(key.comm), "[no stack]");
	memcpy(key.pcomm, key.comm, sizeof(key.pcomm));
	err = stack_agg__add(s->agg, &key, s->words, t);
	if (err && err != -ENOSPC)
		return err;
	s->rq_folded_waits += w;
	s->rq_folded_ns += t;
	s->runq_ns += t;
	s->runq_waits += w;
	return 0;
}

