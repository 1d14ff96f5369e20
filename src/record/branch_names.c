// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Branch sites normalized and named by the symbolizer (branch_names.h). */
#include "record/branch_names.h"

#include <string.h>

#include "sym/objtab.h"
#include "sym/srcline.h"

int branch_names_add(struct symbolizer *sym, struct branch_table *t,
		     const struct branch_sample *b)
{
	struct branch_end from[BRANCH_MAX_ENTRIES], to[BRANCH_MAX_ENTRIES];
	size_t nr = b->nr < BRANCH_MAX_ENTRIES ? b->nr : BRANCH_MAX_ENTRIES;

	for (size_t i = 0; i < nr; i++) {
		struct sym_ufr f;

		memset(&from[i], 0, sizeof(from[i]));
		memset(&to[i], 0, sizeof(to[i]));
		symbolizer__normalize_at(sym, b->tgid, b->e[i].from, b->time_ns, &f);
		from[i].obj = f.obj;
		from[i].off = f.addr;
		symbolizer__normalize_at(sym, b->tgid, b->e[i].to, b->time_ns, &f);
		to[i].obj = f.obj;
		to[i].off = f.addr;
	}
	return branch_table_add(t, b->e, from, to, nr);
}

static void name_end(struct symbolizer *sym, struct branch_table *t, struct branch_end *e)
{
	struct sym_ufr f = { .obj = e->obj, .addr = e->off };
	struct srcline_frame lines[SRCLINE_MAX_FRAMES];
	struct objtab_info info;
	unsigned int flags = 0;
	uint64_t sym_off;
	char name[512];
	int n;

	/* obj 0: no mapping held the address (it stays a raw address) */
	if (!e->obj || e->obj == SYM_OBJ_PYTHON)
		return;
	if (!symbolizer__object(sym, &f, &info))
		e->module = branch_table_intern(t, info.path);
	symbolizer__user_name_off(sym, &f, name, sizeof(name), &flags, &sym_off);
	if (!(flags & SYM_F_UNKNOWN)) {
		e->func = branch_table_intern(t, name);
		e->func_off = sym_off;
		e->has_func_off = sym_off != UINT64_MAX;
	}
	n = symbolizer__srcline(sym, &f, lines, SRCLINE_MAX_FRAMES);
	if (n > 0 && lines[0].file && lines[0].line > 0) {
		e->file = branch_table_intern(t, lines[0].file);
		e->line = (uint32_t)lines[0].line;
	}
}

void branch_names_resolve(struct symbolizer *sym, struct branch_table *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		name_end(sym, t, &t->v[i].from);
		name_end(sym, t, &t->v[i].to);
	}
}
