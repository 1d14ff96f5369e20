// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `hotcold annotate PROFILE FUNCTION`: where inside FUNCTION its samples
 * fell, by source line and instruction. PROFILE is a pprof file written by
 * record or the agent (they carry each frame's object and address); the
 * object is read from the path the mapping names (analysis/annotate.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/annotate.h"
#include "cli/branches_input.h"
#include "cli/cmd.h"
#include "cli/input.h"
#include "util/compiler.h"
#include "util/log.h"

enum {
	OPT_JSON = 256,
	OPT_SRCDIR,
	OPT_DEBUG_ROOT,
	OPT_ROOT,
	OPT_HISTORY,
	OPT_SINCE,
};

static const struct opt_spec annotate_opts_tab[] = {
	{ .name = "top", 'n', 'n', OPTV_U64, "N", "hottest lines listed (default 10; 0 = all)",
	  0, 1000000 },
	{ .name = "source-dir", 0, OPT_SRCDIR, OPTV_STR, "OLD=NEW",
	  "read sources under OLD from NEW instead (repeatable, up to 8)" },
	{ .name = "debug-root", 0, OPT_DEBUG_ROOT, OPTV_PATH, "DIR",
	  "where build-id debug files live (default /usr/lib/debug)" },
	{ .name = "root", 0, OPT_ROOT, OPTV_PATH, "DIR",
	  "prefix for the profile's object paths (a container's or another machine's tree)" },
	{ .name = "history", 0, OPT_HISTORY, OPTV_PATH, "DIR",
	  "the agent's history instead of PROFILE: its on-CPU intervals summed" },
	{ .name = "since", 0, OPT_SINCE, OPTV_DUR, "DUR",
	  "with --history: only intervals that started in the last DUR (30m, 2h, 48h)",
	  1000000000ull, 3660ull * 86400 * 1000000000ull, 1000000000ull },
	{ .name = "json", 0, OPT_JSON, OPTV_FLAG, NULL, "one JSON object instead of text" },
	OPT_SPEC_VERBOSE("debug messages"),
	OPT_SPEC_QUIET("only errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd annotate_cmd = {
	.name = "annotate",
	.synopsis = "[options] PROFILE FUNCTION | [options] --history DIR [--since DUR] FUNCTION",
	.about = "Per source line and per instruction, the share of FUNCTION's own samples\n"
		 "(self, as perf annotate) in PROFILE, a pprof file from `record -o x.pb.gz`\n"
		 "or the agent: the hottest lines first, then the function in address order\n"
		 "with its source and disassembly. Inlined callees are named on their lines.\n"
		 "The object is read from the path recorded in the profile; a stripped one\n"
		 "uses its debug file (build ID or .gnu_debuglink).\n",
	.footer = "Exit status: 0 ok (a view without source or line information says what\n"
		  "is missing); 1 the profile or output cannot be read or written; 2 usage\n"
		  "error: a bad option, not a pprof file, FUNCTION not in the profile or never\n"
		  "sampled itself, a profile without addresses (made from folded text),\n"
		  "FUNCTION's object cannot be read, or the disassembler (libcapstone4) is\n"
		  "not installed.\n",
	.opts = annotate_opts_tab,
	.nr_opts = ARRAY_SIZE(annotate_opts_tab),
	/* 2, or 1 with --history: checked after parsing */
};

struct annotate_args {
	const char *input, *func;
	struct annotate_opts o;
	uint64_t top;
	bool json;
	const char *history;	/* --history DIR, or NULL */
	uint64_t since_ns;	/* --since: 0 all */
};

static int add_srcmap(struct annotate_opts *o, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || o->nr_srcmap == ANNOTATE_MAX_SRCMAP) {
		pr_warn("annotate: --source-dir wants OLD=NEW (at most %d)\n", ANNOTATE_MAX_SRCMAP);
		return -EINVAL;
	}
	*eq = 0;
	o->srcmap_old[o->nr_srcmap] = arg;
	o->srcmap_new[o->nr_srcmap++] = eq + 1;
	return 0;
}

static int on_opt(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct annotate_args *a = ctx;

	switch (s->id) {
	case 'n':
		a->top = v->u;
		break;
	case OPT_SRCDIR:
		/* the value is in argv, which is writable: OLD and NEW are split in place */
		return add_srcmap(&a->o, (char *)v->str) ? EXIT_USAGE : 0;
	case OPT_DEBUG_ROOT:
		a->o.debug_root = v->str;
		break;
	case OPT_ROOT:
		a->o.root = v->str;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_HISTORY:
		a->history = v->str;
		break;
	case OPT_SINCE:
		a->since_ns = v->u;
		break;
	default:
		cli_log_opt(s->id);
	}
	return 0;
}

/* Why FUNCTION cannot be annotated, as an exit status. */
static int select_error(const struct annotate_args *a, const struct annotate_sel *s, int err)
{
	switch (err) {
	case -ENOENT:
		pr_warn("annotate: no function '%s' in %s (names as `hotcold report` or "
			"`go tool pprof -top` print them)\n", a->func, a->input);
		return EXIT_USAGE;
	case -ESRCH:
		if (strlen(a->func) > 4 && !strcmp(a->func + strlen(a->func) - 4, "_[i]")) {
			pr_warn("annotate: '%s' is inlined: its code is annotated in the function it "
				"was inlined into (shown there as [inlined ...])\n", a->func);
			return EXIT_USAGE;
		}
		pr_warn("annotate: '%s' has no samples of its own in %s (it is on stacks "
			"with %llu samples, always as a caller: annotate its callees)\n",
			a->func, a->input, (unsigned long long)s->in_stacks);
		return EXIT_USAGE;
	case -ENODATA:
		pr_warn("annotate: %s has no addresses for '%s' (a profile converted from "
			"folded text?): record with -o x.pb.gz to annotate\n", a->input, a->func);
		return EXIT_USAGE;
	default:
		pr_warn("annotate: %s: %s\n", a->input, strerror(-err));
		return EXIT_RUNTIME;
	}
}

/*
 * PROFILE.branches, when `record -b` wrote one: the function's branch
 * sites marked. A malformed one is reported and left out. 0 or -ENOMEM.
 */
static int show_branches(const struct annotate_args *a, const struct annotate_sel *s,
			 struct annotate_result *r)
{
	struct branch_table t;
	int err;

	if (cli_load_branches("annotate", a->input, true, &t) != EXIT_OK)
		return 0;
	branch_table_sort(&t);
	err = annotate_branches(r, s, &t);
	if (!err && !r->nr_branches && t.nr)
		pr_info("annotate: no branch site of %s's branch records in %s\n", a->input,
			r->symbol);
	branch_table_release(&t);
	return err;
}

/* The view of @s (released here). An exit status. */
static int show(const struct annotate_args *a, struct annotate_sel *s)
{
	struct annotate_result r;
	int err = annotate_object(s, a->func, &a->o, &r);

	if (err == -ENOENT || err == -ESRCH) {
		pr_warn("annotate: %s\n", r.missing);
		annotate_result_release(&r);
		annotate_sel_release(s);
		return EXIT_USAGE;
	}
	if (!err && !a->history)
		err = show_branches(a, s, &r);
	if (!err)
		err = a->json ? annotate_write_json(stdout, s, &r) :
				annotate_write_text(stdout, s, &r, (size_t)a->top);
	if (!err && fflush(stdout) == EOF)
		err = -EIO;
	if (err)
		pr_warn("annotate: %s\n", strerror(-err));
	annotate_result_release(&r);
	annotate_sel_release(s);
	return err ? EXIT_RUNTIME : EXIT_OK;
}

static int run(const struct annotate_args *a, const struct pprof_data *d)
{
	struct annotate_sel s;
	int err = annotate_select(d, a->func, &s);

	return err ? select_error(a, &s, err) : show(a, &s);
}

/* What the intervals held, for the message when none had FUNCTION's own samples. */
struct hist_counts {
	size_t files, with, caller_only, no_addr, other_build, unreadable;
};

/* One interval file into @m. 0, or -ENOMEM. */
static int hist_add(const struct annotate_args *a, const char *path, struct annotate_sel *m,
		    struct hist_counts *c)
{
	struct annotate_sel s;
	struct pprof_data d;
	int err = pprof_read_file(path, &d);

	if (err) {
		c->unreadable++;	/* deleted by retention meanwhile, or not ours */
		pr_debug("annotate: %s: %s\n", path, strerror(-err));
		return 0;
	}
	err = annotate_select(&d, a->func, &s);
	if (!err) {
		err = annotate_sel_merge(m, &s);
		if (err == -EXDEV) {
			c->other_build++;
			pr_debug("annotate: %s: '%s' in %s (build %s), not %s (build %s)\n", path,
				 a->func, s.file, s.build_id, m->file, m->build_id);
			err = 0;
		} else if (!err) {
			c->with++;
		}
		annotate_sel_release(&s);
	} else {
		c->caller_only += err == -ESRCH;
		c->no_addr += err == -ENODATA;
		err = err == -ENOMEM ? err : 0;
	}
	pprof_data_release(&d);
	return err;
}

/* --history DIR [--since DUR]: the intervals' selections summed. An exit status. */
static int run_history(const struct annotate_args *a)
{
	struct annotate_sel m = { 0 };
	struct hist_counts c = { 0 };
	struct timespec now;
	char **files = NULL;
	int64_t since_ms = 0;
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	if (a->since_ns)
		since_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 -
			   (int64_t)(a->since_ns / 1000000);
	err = annotate_history_files(a->history, "oncpu", since_ms, &files, &c.files);
	if (err) {
		pr_warn("annotate: cannot read the history %s: %s\n", a->history, strerror(-err));
		return err == -ENOENT || err == -ENOTDIR ? EXIT_USAGE : EXIT_RUNTIME;
	}
	for (size_t i = 0; !err && i < c.files; i++)
		err = hist_add(a, files[i], &m, &c);
	annotate_history_free(files, c.files);
	if (err) {
		annotate_sel_release(&m);
		pr_warn("annotate: %s\n", strerror(-err));
		return EXIT_RUNTIME;
	}
	if (!c.with) {
		pr_warn("annotate: no own samples of '%s' in %zu on-CPU intervals of %s%s "
			"(%zu with it only as a caller, %zu without addresses, %zu unreadable)\n",
			a->func, c.files, a->history, a->since_ns ? " in that time" : "",
			c.caller_only, c.no_addr, c.unreadable);
		annotate_sel_release(&m);
		return EXIT_USAGE;
	}
	pr_info("annotate: %zu of %zu on-CPU intervals of %s hold '%s' in %s%s\n", c.with, c.files,
		a->history, a->func, m.file, c.other_build ? "" : "; every one the same build");
	if (c.other_build)
		pr_warn("annotate: %zu intervals left out: '%s' there is in another build or object "
			"(its offsets are other code; -v names them)\n", c.other_build, a->func);
	return show(a, &m);
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_args a = { .top = 10 };
	struct pprof_data d;
	int ret, err, first;

	ret = cli_parse_opts(&annotate_cmd, argc, argv, on_opt, &a, &first);
	if (ret >= 0)
		return ret;
	if (a.since_ns && !a.history) {
		pr_warn("annotate: --since goes with --history\n");
		return EXIT_USAGE;
	}
	if (argc - first != (a.history ? 1 : 2)) {
		pr_warn("annotate: wants %s, got %d operand%s\n",
			a.history ? "a FUNCTION (with --history DIR)" : "a PROFILE and a FUNCTION",
			argc - first, argc - first == 1 ? "" : "s");
		pr_warn("usage: hotcold annotate %s ('hotcold annotate --help' lists the options)\n",
			annotate_cmd.synopsis);
		return EXIT_USAGE;
	}
	if (a.history) {
		a.input = a.history;
		a.func = argv[first];
		return run_history(&a);
	}
	a.input = argv[first];
	a.func = argv[first + 1];
	err = pprof_read_file(a.input, &d);
	if (err == -EBADMSG || err == -EFBIG) {
		pr_warn("annotate: %s is not a pprof profile (%s)\n", a.input,
			err == -EFBIG ? "too large" : "malformed protobuf or gzip");
		return EXIT_USAGE;
	}
	if (err) {
		pr_warn("annotate: cannot read %s: %s\n", a.input, strerror(-err));
		return EXIT_RUNTIME;
	}
	ret = run(&a, &d);
	pprof_data_release(&d);
	return ret;
}
