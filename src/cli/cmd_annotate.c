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

#include "analysis/annotate.h"
#include "cli/cmd.h"
#include "cli/input.h"
#include "util/compiler.h"
#include "util/log.h"

enum {
	OPT_JSON = 256,
	OPT_SRCDIR,
	OPT_DEBUG_ROOT,
	OPT_ROOT,
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
	{ .name = "json", 0, OPT_JSON, OPTV_FLAG, NULL, "one JSON object instead of text" },
	OPT_SPEC_VERBOSE("debug messages"),
	OPT_SPEC_QUIET("only errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd annotate_cmd = {
	.name = "annotate",
	.synopsis = "[options] PROFILE FUNCTION",
	.about = "Per source line and per instruction, the share of FUNCTION's own samples\n"
		 "(self, as perf annotate) in PROFILE, a pprof file from `record -o x.pb.gz`\n"
		 "or the agent: the hottest lines first, then the function in address order\n"
		 "with its source and disassembly. Inlined callees are named on their lines.\n"
		 "The object is read from the path recorded in the profile; a stripped one\n"
		 "uses its debug file (build ID or .gnu_debuglink).\n",
	.footer = "Exit status: 0 ok (a view without source or line information says what\n"
		  "is missing); 1 the profile or output cannot be read or written; 2 usage\n"
		  "error: a bad option, not a pprof file, FUNCTION not in the profile or never\n"
		  "sampled itself, a profile without addresses (made from folded text), or\n"
		  "FUNCTION's object cannot be read.\n",
	.opts = annotate_opts_tab,
	.nr_opts = ARRAY_SIZE(annotate_opts_tab),
	.operands = 2,
	.operands_help = "a PROFILE and a FUNCTION",
};

struct annotate_args {
	const char *input, *func;
	struct annotate_opts o;
	uint64_t top;
	bool json;
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

static int run(const struct annotate_args *a, const struct pprof_data *d)
{
	struct annotate_sel s;
	struct annotate_result r;
	int err = annotate_select(d, a->func, &s);

	if (err)
		return select_error(a, &s, err);
	err = annotate_object(&s, a->func, &a->o, &r);
	if (err == -ENOENT || err == -ESRCH) {
		pr_warn("annotate: %s\n", r.missing);
		annotate_result_release(&r);
		annotate_sel_release(&s);
		return EXIT_USAGE;
	}
	if (!err)
		err = a->json ? annotate_write_json(stdout, &s, &r) :
				annotate_write_text(stdout, &s, &r, (size_t)a->top);
	if (!err && fflush(stdout) == EOF)
		err = -EIO;
	if (err)
		pr_warn("annotate: %s\n", strerror(-err));
	annotate_result_release(&r);
	annotate_sel_release(&s);
	return err ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_args a = { .top = 10 };
	struct pprof_data d;
	int ret, err, first;

	ret = cli_parse_opts(&annotate_cmd, argc, argv, on_opt, &a, &first);
	if (ret >= 0)
		return ret;
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
