// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * record -b: each sample's branch stack counted per (from, to) site as it
 * is read from the ring, both ends normalized to (object, file offset)
 * while the process lives; at the end the sites are named (function and
 * offset, object, source line) and written to OUTPUT.branches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branches.h"
#include "collect/branches.h"
#include "output/outfile.h"
#include "record/session.h"
#include "record/session_int.h"
#include "sym/objtab.h"
#include "sym/srcline.h"
#include "sym/symbolizer.h"
#include "util/log.h"

#define BRANCHES_SUFFIX ".branches"

int session_branches_open(struct session *s)
{
	size_t n = strlen(s->o->output) + sizeof(BRANCHES_SUFFIX);
	int err;

	s->branches = calloc(1, sizeof(*s->branches));
	s->branches_path = malloc(n);
	if (!s->branches || !s->branches_path)
		return -ENOMEM;
	branch_table_init(s->branches);
	snprintf(s->branches_path, n, "%s" BRANCHES_SUFFIX, s->o->output);
	/* fail before recording, as for the profile itself */
	err = outfile_check(s->branches_path);
	if (err)
		pr_warn("record: cannot write '%s': %s\n", s->branches_path, strerror(-err));
	return err;
}

int session_branches_add(const struct branch_sample *b, void *arg)
{
	struct session *s = arg;
	struct branch_end from[BRANCH_MAX_ENTRIES], to[BRANCH_MAX_ENTRIES];

	if (!s->branches)
		return 0;
	/* the branch and its target are instruction addresses themselves: no ip - 1 */
	for (size_t i = 0; i < b->nr; i++) {
		struct sym_ufr f;

		memset(&from[i], 0, sizeof(from[i]));
		memset(&to[i], 0, sizeof(to[i]));
		symbolizer__normalize_at(s->sym, b->tgid, b->e[i].from, b->time_ns, &f);
		from[i].obj = f.obj;
		from[i].off = f.addr;
		symbolizer__normalize_at(s->sym, b->tgid, b->e[i].to, b->time_ns, &f);
		to[i].obj = f.obj;
		to[i].off = f.addr;
	}
	if (branch_table_add(s->branches, b->e, from, to, b->nr))
		s->branches_nomem++;
	return 0;
}

/* Function (+offset), object and innermost source line of one end, from the symbolizer. */
static void name_end(struct session *s, struct branch_end *e)
{
	struct branch_table *t = s->branches;
	struct sym_ufr f = { .obj = e->obj, .addr = e->off };
	struct srcline_frame lines[SRCLINE_MAX_FRAMES];
	struct objtab_info info;
	unsigned int flags = 0;
	uint64_t sym_off;
	char name[512];
	int n;

	if (!e->obj || e->obj == SYM_OBJ_PYTHON)
		return;
	if (!symbolizer__object(s->sym, &f, &info))
		e->module = branch_table_intern(t, info.path);
	symbolizer__user_name_off(s->sym, &f, name, sizeof(name), &flags, &sym_off);
	if (!(flags & SYM_F_UNKNOWN)) {
		e->func = branch_table_intern(t, name);
		e->func_off = sym_off;
		e->has_func_off = sym_off != UINT64_MAX;
	}
	n = symbolizer__srcline(s->sym, &f, lines, SRCLINE_MAX_FRAMES);
	if (n > 0 && lines[0].file && lines[0].line > 0) {
		e->file = branch_table_intern(t, lines[0].file);
		e->line = (uint32_t)lines[0].line;
	}
}

int session_branches_write(struct session *s)
{
	struct branch_table *t = s->branches;
	struct outfile of;
	int err;

	if (!t)
		return 0;
	for (size_t i = 0; i < t->nr; i++) {
		name_end(s, &t->v[i].from);
		name_end(s, &t->v[i].to);
	}
	branch_table_sort(t);
	t->t.bad_records = s->branches_nomem;
	err = outfile_open(&of, s->branches_path, 0644);
	if (!err) {
		err = branches_write(of.f, t);
		err = err ? outfile_fail(&of, err) : outfile_commit(&of);
	}
	if (err) {
		pr_warn("record: cannot write '%s': %s\n", s->branches_path, strerror(-err));
		return err;
	}
	if (!t->t.samples)
		pr_warn("record: no branch records came with the samples (see 'samples without "
			"branch records' above): '%s' is empty\n", s->branches_path);
	pr_info("record: %llu branch stacks, %zu branch sites -> %s\n",
		(unsigned long long)t->t.samples, t->nr, s->branches_path);
	return 0;
}

void session_branches_close(struct session *s)
{
	if (s->branches)
		branch_table_release(s->branches);
	free(s->branches);
	free(s->branches_path);
	s->branches = NULL;
	s->branches_path = NULL;
}
