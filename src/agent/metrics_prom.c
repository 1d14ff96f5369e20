// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The metrics as Prometheus text (exposition format 0.0.4). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/metrics.h"
#include "sym/perfmap.h"
#include "sym/procmaps.h"
#include "util/diag.h"

static void head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP hotcold_%s %s\n# TYPE hotcold_%s %s\n", name, help, name, type);
}

static void one(FILE *out, const char *name, const char *type, const char *help, double v)
{
	head(out, name, type, help);
	fprintf(out, "hotcold_%s %.17g\n", name, v);
}

/* A label value: backslash, quote and newline escaped. */
static void label(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", out);
			continue;
		}
		if (*s == '\\' || *s == '"')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/*
 * One counter family labelled by collector and @what (the second label's
 * name). Its values are the registry's stable snake_case keys (util/diag.c,
 * e.g. reason="ring_full"), not the English names the summary prints.
 */
static void write_labelled(FILE *out, const char *name, const char *help, const char *what,
			   const struct metrics_loss *v, size_t nr)
{
	char key[128];

	head(out, name, "counter", help);
	for (size_t i = 0; i < nr; i++) {
		fprintf(out, "hotcold_%s{collector=\"", name);
		label(out, v[i].group);
		fprintf(out, "\",%s=\"", what);
		label(out, diag__key(v[i].name, key, sizeof(key)));
		fprintf(out, "\"} %llu\n", (unsigned long long)v[i].value);
	}
}

static void write_losses(const struct metrics *m, FILE *out)
{
	struct metrics_loss by_class[2][METRICS_MAX_LOSSES];
	size_t nr[2] = { 0, 0 };

	/* the registry's class (util/diag.c): data lost, or kept but worse */
	for (size_t i = 0; i < m->nr_loss; i++) {
		int k = m->loss[i].cls == DIAG_LOSS;

		by_class[k][nr[k]++] = m->loss[i];
	}
	write_labelled(out, "lost_total",
		       "Data lost by reason (BPF maps and rings full, aggregation limits, ...).",
		       "reason", by_class[1], nr[1]);
	write_labelled(out, "degraded_total",
		       "Data kept but worse, by reason (stacks cut short, frames unnamed, ...).",
		       "reason", by_class[0], nr[0]);
}

static void write_work(const struct metrics *m, FILE *out)
{
	write_labelled(out, "events_total",
		       "Work done by collector (samples, unwind tables built or reused, ...).",
		       "what", m->work, m->nr_work);
}

static void write_progs(const struct metrics *m, FILE *out)
{
	one(out, "bpf_stats_enabled", "gauge",
	    "1 if kernel.bpf_stats_enabled: otherwise BPF run times below stay 0.",
	    m->bpf_stats_enabled);
	head(out, "bpf_run_time_seconds_total", "counter", "Time spent in each BPF program.");
	for (size_t i = 0; i < m->nr_progs; i++)
		fprintf(out, "hotcold_bpf_run_time_seconds_total{prog=\"%s\"} %.9f\n",
			m->progs[i].name, m->progs[i].run_time_ns / 1e9);
	head(out, "bpf_run_count_total", "counter", "Runs of each BPF program.");
	for (size_t i = 0; i < m->nr_progs; i++)
		fprintf(out, "hotcold_bpf_run_count_total{prog=\"%s\"} %llu\n", m->progs[i].name,
			(unsigned long long)m->progs[i].run_cnt);
}

static void write_push(const struct push_stats *p, FILE *out)
{
	one(out, "push_sent_total", "counter", "Profiles acknowledged by the push back end.",
	    p->sent);
	one(out, "push_sent_bytes_total", "counter", "Profile bytes acknowledged.", p->sent_bytes);
	head(out, "push_failed_total", "counter",
	     "Push requests failed, by cause (http_4xx and http_other are dropped, the rest retried).");
	for (int c = 0; c < PUSH_CAUSE_NR; c++)
		fprintf(out, "hotcold_push_failed_total{cause=\"%s\"} %llu\n", push_cause_name(c),
			(unsigned long long)p->failed[c]);
	one(out, "push_dropped_total", "counter", "Profiles given up: refused by the back end.",
	    p->dropped);
	head(out, "push_lost_total", "counter", "Profiles never sent, by reason.");
	fprintf(out, "hotcold_push_lost_total{reason=\"retention\"} %llu\n",
		(unsigned long long)p->lost_retention);
	fprintf(out, "hotcold_push_lost_total{reason=\"unreadable\"} %llu\n",
		(unsigned long long)p->lost_unreadable);
	one(out, "push_labels_capped_total", "counter",
	    "Sample labels not pushed: over the distinct values allowed per profile.",
	    p->labels_capped);
	one(out, "push_backlog_intervals", "gauge", "Intervals not yet acknowledged.", p->backlog);
	one(out, "push_backlog_age_seconds", "gauge",
	    "Age of the oldest interval not yet acknowledged (0: none).", p->backlog_age_s);
}

int metrics_write_prometheus(const struct metrics *m, FILE *out)
{
	uint64_t capped, skipped;

	one(out, "agent_cpu_seconds_total", "counter", "Agent CPU time, user + system.",
	    m->cpu_s);
	one(out, "agent_cpu_percent", "gauge", "Agent CPU over the last interval, % of one core.",
	    m->cpu_pct_interval);
	one(out, "agent_resident_bytes", "gauge", "Agent resident set size.", m->rss_bytes);
	one(out, "agent_resident_peak_bytes", "gauge", "Agent peak RSS.", m->rss_peak_bytes);
	one(out, "intervals_total", "counter", "Intervals completed.", m->intervals);
	one(out, "interval_write_seconds_total", "counter",
	    "CPU time naming, encoding and writing intervals, and trimming after them.",
	    m->write_ns / 1e9);
	one(out, "agent_write_seconds_last", "gauge",
	    "Wall time the writer thread took for the last interval (encode, write, fsync).",
	    m->writer.last_ns / 1e9);
	one(out, "agent_write_seconds_max", "gauge",
	    "The writer thread's longest interval so far.", m->writer.max_ns / 1e9);
	one(out, "agent_write_queue", "gauge",
	    "Intervals handed to the writer thread and waiting for it.", m->writer.waiting);
	one(out, "agent_intervals_skipped_total", "counter",
	    "Intervals not written: the writer was still busy with two earlier ones (a slow disk).",
	    m->writer.h.skipped_full);
	one(out, "agent_loop_turns_total", "counter", "Turns of the agent's loop.", m->loop_turns);
	one(out, "agent_loop_lag_seconds_total", "counter",
	    "Summed lateness of the loop coming back to its timers and signal flags.",
	    m->loop_lag_ns / 1e9);
	one(out, "agent_loop_lag_max_seconds", "gauge",
	    "The loop's longest lateness in the last interval.", m->loop_lag_max_ns / 1e9);
	one(out, "agent_interval_late_seconds", "gauge",
	    "How long after its due time the last interval ended.", m->interval_late_ns / 1e9);
	one(out, "agent_intervals_late_total", "counter",
	    "Intervals that ended more than a tenth of their length past their due time.",
	    m->intervals_late);
	one(out, "agent_stalls_total", "counter",
	    "Steps of the loop longer than the stall threshold (0.5 s), logged once per kind.",
	    m->stalls);
	head(out, "agent_slowest_step_seconds", "gauge",
	     "The longest single step of the loop in the last interval, by what it was doing.");
	fprintf(out, "hotcold_agent_slowest_step_seconds{what=\"");
	label(out, m->slowest_what ? m->slowest_what : "none");
	fprintf(out, "\"} %.9f\n", m->slowest_ns / 1e9);
	one(out, "interval_samples", "gauge", "On-CPU samples in the last interval.",
	    m->last.samples);
	one(out, "interval_offcpu_seconds", "gauge", "Off-CPU time in the last interval.",
	    (m->last.off_ns + m->last.short_ns) / 1e9);
	one(out, "interval_runq_seconds", "gauge",
	    "Run-queue wait in the last interval (as stored: off-CPU's [cpu wait] included).",
	    (m->last.runq_ns + m->last.cpuwait_ns) / 1e9);
	one(out, "interval_cpu_wait_seconds", "gauge",
	    "Of it, off-CPU blocks' wait for a CPU after their wakeup ([cpu wait]).",
	    m->last.cpuwait_ns / 1e9);
	one(out, "interval_lock_seconds", "gauge", "Lock wait in the last interval.",
	    m->last.lock_ns / 1e9);
	one(out, "interval_stacks", "gauge", "Distinct stacks in the last interval.",
	    m->last.stacks);
	write_losses(m, out);
	write_work(m, out);
	one(out, "symbolizer_processes_total", "counter", "Processes whose maps were read.",
	    m->sym_procs);
	one(out, "symbolizer_objects_total", "counter", "ELF objects opened.", m->sym_objects);
	one(out, "symbolizer_objects_dropped_total", "counter",
	    "Objects not opened: the object limit was reached.", m->sym_objects_dropped);
	one(out, "symbolizer_object_errors_total", "counter", "Objects unreadable.",
	    m->sym_object_errors);
	one(out, "symbolizer_objects_evicted_total", "counter",
	    "Objects freed after an interval: no live process maps them.", m->sym_objects_evicted);
	one(out, "symbolizer_objects", "gauge", "Objects held now.", m->sym_objects_live);
	one(out, "symbolizer_processes", "gauge", "Process snapshots held now.", m->sym_procs_live);
	one(out, "symbolizer_processes_pruned_total", "counter",
	    "Snapshots of processes that exited without an exit record (ring full), dropped.",
	    m->sym_procs_pruned);
	perfmap_stats(&capped, &skipped);
	one(out, "symbolizer_perfmap_capped_total", "counter",
	    "Perf maps read only in part: their last 8 MiB.", capped);
	one(out, "symbolizer_perfmap_skipped_bytes_total", "counter",
	    "Bytes of perf maps not read (over the cap).", skipped);
	one(out, "symbolizer_mappings_dropped_total", "counter",
	    "Mappings not kept: over 256 Ki or 16 MiB of paths in one process.",
	    procmaps_dropped());
	write_progs(m, out);
	one(out, "store_intervals", "gauge", "Intervals kept on disk.", m->store_intervals);
	one(out, "store_bytes", "gauge", "Bytes on disk: profiles and index.", m->store.bytes);
	one(out, "store_deleted_total", "counter", "Intervals deleted by retention or a full disk.",
	    m->store.deleted_age + m->store.deleted_count + m->store.deleted_bytes +
		    m->store.deleted_nospace);
	one(out, "store_dropped_total", "counter",
	    "Intervals not written: larger than the budget, or a write error.",
	    m->store.dropped_too_big + m->store.dropped_errors);
	one(out, "store_ignored_files", "gauge",
	    "Entries under our names in the history that we did not write (links, other users').",
	    m->store.ignored_files);
	one(out, "store_index_errors_total", "counter", "index.jsonl could not be rewritten.",
	    m->store.index_errors);
	if (m->push_enabled)
		write_push(&m->push, out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
