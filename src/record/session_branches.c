// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * record -b in the session: each sample's branch stack counted per (from,
 * to) site as it is read from the ring (branch_names.c), named at the end
 * and written to OUTPUT.branches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branches.h"
#include "collect/branches.h"
#include "output/outfile.h"
#include "record/branch_names.h"
#include "record/session.h"
#include "record/session_int.h"
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

	if (s->branches && branch_names_add(s->sym, s->branches, b))
		s->branches_nomem++;
	return 0;
}

int session_branches_write(struct session *s)
{
	struct branch_table *t = s->branches;
	struct outfile of;
	int err;

	if (!t)
		return 0;
	branch_names_resolve(s->sym, t);
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
