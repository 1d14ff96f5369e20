// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-process counter tables (from the BPF accumulator): order, filter, write. */
#include "analysis/counters.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/termsafe.h"

static int cmp_proc(const void *a, const void *b)
{
	const struct counters_proc *x = a, *y = b;
	double vx = x->counted[0] ? x->value[0] : -1, vy = y->counted[0] ? y->value[0] : -1;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void counters_procs_sort(struct counters_proc *p, size_t nr)
{
	qsort(p, nr, sizeof(*p), cmp_proc);
}

static const struct counters_proc *find_pid(const struct counters_proc *p, size_t nr, uint32_t pid)
{
	for (size_t i = 0; i < nr; i++)
		if (p[i].pid == pid)
			return &p[i];
	return NULL;
}

/* Is @pid @root or below it? Walks recorded parents, at most @nr steps (no cycles). */
static bool in_tree(const struct counters_proc *p, size_t nr, uint32_t pid, uint32_t root)
{
	const struct counters_proc *cur;

	for (size_t steps = 0; steps <= nr; steps++) {
		if (pid == root)
			return true;
		cur = find_pid(p, nr, pid);
		if (!cur || cur->ppid == pid)
			return false;
		pid = cur->ppid;
	}
	return false;
}

size_t counters_procs_keep_tree(struct counters_proc *p, size_t nr, uint32_t root)
{
	bool *keep = calloc(nr ? nr : 1, sizeof(*keep));
	size_t n = 0;

	if (!keep)
		return nr;	/* out of memory: filter nothing rather than lose rows */
	for (size_t i = 0; i < nr; i++)
		keep[i] = in_tree(p, nr, p[i].pid, root);
	for (size_t i = 0; i < nr; i++)
		if (keep[i])
			p[n++] = p[i];
	free(keep);
	return n;
}

size_t counters_procs_keep_pids(struct counters_proc *p, size_t nr, const uint32_t *pids,
				size_t nr_pids)
{
	size_t n = 0;

	for (size_t i = 0; i < nr; i++) {
		for (size_t j = 0; j < nr_pids; j++) {
			if (p[i].pid == pids[j]) {
				p[n++] = p[i];
				break;
			}
		}
	}
	return n;
}

static int column(const struct counters_proc_table *t, const char *name)
{
	for (size_t i = 0; i < t->nr_events; i++)
		if (t->names[i] && !strcmp(t->names[i], name))
			return (int)i;
	return -1;
}

static struct counters_num col_num(const struct counters_proc_table *t,
				   const struct counters_proc *p, const char *name)
{
	int c = column(t, name);

	if (c < 0 || !p->counted[c])
		return (struct counters_num){ 0, false };
	return (struct counters_num){ p->value[c], true };
}

/* IPC and class of one process, from whichever columns the table has. */
static void proc_derive(const struct counters_proc_table *t, const struct counters_proc *p,
			struct counters_derived *d)
{
	struct counters_input in;

	in.cycles = col_num(t, p, "cycles");
	in.instructions = col_num(t, p, "instructions");
	in.branches = col_num(t, p, "branches");
	in.branch_misses = col_num(t, p, "branch-misses");
	in.llc_misses = col_num(t, p, "LLC-load-misses");
	if (!in.llc_misses.ok)
		in.llc_misses = col_num(t, p, "cache-misses");
	counters_derive(&in, &t->model, d);
}

static double min_running(const struct counters_proc_table *t, const struct counters_proc *p)
{
	double run = 1;

	for (size_t i = 0; i < t->nr_events; i++)
		if (p->counted[i] && p->running[i] < run)
			run = p->running[i];
	return run;
}

static size_t shown_rows(const struct counters_proc_table *t)
{
	return t->top && t->top < t->nr ? t->top : t->nr;
}

int counters_write_procs_text(FILE *out, const struct counters_proc_table *t)
{
	bool ipc = column(t, "cycles") >= 0 && column(t, "instructions") >= 0;
	struct counters_derived d;
	char head[48];

	fprintf(out, "\n%8s %8s  %-16s", "PID", "PPID", "COMM");
	for (size_t i = 0; i < t->nr_events; i++) {
		snprintf(head, sizeof(head), "%s%s", t->names[i], t->clock[i] ? " msec" : "");
		fprintf(out, " %18s", head);
	}
	if (ipc)
		fprintf(out, " %6s %-17s", "IPC", "class");
	fprintf(out, " %8s\n", "running");
	for (size_t r = 0; r < shown_rows(t); r++) {
		const struct counters_proc *p = &t->procs[r];
		char comm[4 * sizeof(p->comm) + 1];

		/* a process names itself: no control character reaches the terminal */
		fprintf(out, "%8u %8u  %-16s", p->pid, p->ppid,
			termsafe_str(p->comm, comm, sizeof(comm)));
		for (size_t i = 0; i < t->nr_events; i++) {
			if (!p->counted[i])
				fprintf(out, " %18s", "<not counted>");
			else if (t->clock[i])
				fprintf(out, " %18.2f", p->value[i] / 1e6);
			else
				fprintf(out, " %18.0f", p->value[i]);
		}
		if (ipc) {
			proc_derive(t, p, &d);
			if (d.ipc.ok)
				fprintf(out, " %6.2f", d.ipc.v);
			else
				fprintf(out, " %6s", "n/a");
			fprintf(out, " %-17s", d.cls == COUNTERS_CLASS_NONE ? "n/a" :
				counters_class_name(d.cls));
		}
		fprintf(out, " %7.2f%%\n", min_running(t, p) * 100);
	}
	if (shown_rows(t) < t->nr)
		fprintf(out, "(%zu more processes; --top 0 shows all)\n", t->nr - shown_rows(t));
	return ferror(out) ? -EIO : 0;
}

int counters_write_procs_json(FILE *out, const struct counters_proc_table *t)
{
	struct counters_derived d;

	fprintf(out, "{\"seconds\":%.6f,\"processes\":[", t->seconds);
	for (size_t r = 0; r < shown_rows(t); r++) {
		const struct counters_proc *p = &t->procs[r];

		fprintf(out, "%s{\"pid\":%u,\"ppid\":%u,\"comm\":", r ? "," : "", p->pid, p->ppid);
		json_write_string(out, p->comm);
		fputs(",\"counters\":{", out);
		for (size_t i = 0; i < t->nr_events; i++) {
			fprintf(out, "%s", i ? "," : "");
			json_write_string(out, t->names[i]);
			if (!p->counted[i])
				fputs(":{\"value\":null,\"running\":null}", out);
			else
				fprintf(out, t->clock[i] ?
					":{\"value\":%.3f,\"unit\":\"%s\",\"running\":%.6f}" :
					":{\"value\":%.0f,\"unit\":\"%s\",\"running\":%.6f}",
					t->clock[i] ? p->value[i] / 1e6 : p->value[i],
					t->clock[i] ? "msec" : "", p->running[i]);
		}
		proc_derive(t, p, &d);
		fputs("},\"ipc\":", out);
		if (d.ipc.ok && isfinite(d.ipc.v))
			fprintf(out, "%.6f", d.ipc.v);
		else
			fputs("null", out);
		fputs(",\"class\":", out);
		if (d.cls == COUNTERS_CLASS_NONE)
			fputs("null", out);
		else
			json_write_string(out, counters_class_name(d.cls));
		fputc('}', out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}

int counters_write_procs_csv(FILE *out, const struct counters_proc_table *t)
{
	fputs("pid,ppid,comm,event,value,unit,running\n", out);
	for (size_t r = 0; r < shown_rows(t); r++) {
		const struct counters_proc *p = &t->procs[r];

		for (size_t i = 0; i < t->nr_events; i++) {
			/* comm is up to 15 bytes of anything: drop the CSV-breaking ones */
			char comm[sizeof(p->comm)];

			snprintf(comm, sizeof(comm), "%s", p->comm);
			for (char *c = comm; *c; c++)
				if (*c == ',' || *c == '"' || *c == '\n')
					*c = '_';
			fprintf(out, "%u,%u,%s,%s,", p->pid, p->ppid, comm, t->names[i]);
			if (p->counted[i] && t->clock[i])
				fprintf(out, "%.3f", p->value[i] / 1e6);
			else if (p->counted[i])
				fprintf(out, "%.0f", p->value[i]);
			fprintf(out, ",%s,", t->clock[i] ? "msec" : "");
			if (p->counted[i])
				fprintf(out, "%.4f", p->running[i]);
			fputc('\n', out);
		}
	}
	return ferror(out) ? -EIO : 0;
}
