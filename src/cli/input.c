// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Shared option help and folded-input loading for the profile-reading commands. */
#include "cli/input.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/log.h"

void cli_print_options(FILE *f, const struct cli_opt *opts, size_t nr)
{
	char left[64];
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct cli_opt *o = &opts[i];

		snprintf(left, sizeof(left), "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
			 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ",
			 o->opt.name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-24s %s\n", left, o->help);
	}
}

void cli_longopts(const struct cli_opt *opts, size_t nr, struct option *out)
{
	size_t i;

	for (i = 0; i < nr; i++)
		out[i] = opts[i].opt;
	memset(&out[nr], 0, sizeof(out[nr]));
}

int cli_parse_kind(const char *cmd, const char *s, enum profile_kind *kind)
{
	if (!profile_kind_parse(s, kind))
		return 0;
	pr_warn("%s: invalid value '%s' for --kind: one of oncpu, offcpu, runq, lock\n", cmd, s);
	return -EINVAL;
}

/* Explain a file without one valid line; @first is its first byte or EOF. */
static void explain_invalid(const char *cmd, const char *path, int first,
			    const struct folded_read_stats *st)
{
	if (!st->lines) {
		pr_warn("%s: '%s' has no stacks (empty input)\n", cmd, path);
		return;
	}
	pr_warn("%s: '%s' is not folded stacks: %" PRIu64 " lines, none valid (first bad: "
		"line %" PRIu64 "; -v lists them)\n", cmd, path, st->lines, st->first_bad_line);
	/* gzip's magic starts 0x1f 0x8b; no folded line starts with a control character */
	if (first == 0x1f)
		pr_warn("%s: it looks gzip-compressed (a pprof profile?); this reads folded "
			"text\n", cmd);
}

int cli_load_folded(const char *cmd, const char *path, enum profile_kind kind,
		    struct profile **out, struct folded_read_stats *st)
{
	bool is_stdin = !strcmp(path, "-");
	struct folded_read_stats local;
	struct profile *p;
	FILE *f;
	int err, first;

	st = st ? st : &local;
	f = is_stdin ? stdin : fopen(path, "re");
	if (!f) {
		pr_warn("%s: cannot open '%s': %s\n", cmd, path, strerror(errno));
		return EXIT_RUNTIME;
	}
	pr_debug("%s: reading '%s'\n", cmd, path);
	p = profile__new();
	first = getc(f);
	if (first != EOF)
		ungetc(first, f);
	err = p ? profile__read_folded(p, f, kind, st) : -ENOMEM;
	if (!is_stdin)
		fclose(f);
	if (err) {
		pr_warn("%s: cannot read '%s': %s\n", cmd, path, strerror(-err));
		profile__free(p);
		return EXIT_RUNTIME;
	}
	if (st->lines == st->malformed) {
		explain_invalid(cmd, path, first, st);
		profile__free(p);
		return EXIT_USAGE;
	}
	if (st->malformed)
		pr_warn("%s: '%s': skipped %" PRIu64 " malformed of %" PRIu64 " lines (first: "
			"line %" PRIu64 "; -v lists them)\n", cmd, path, st->malformed, st->lines,
			st->first_bad_line);
	*out = p;
	return EXIT_OK;
}
