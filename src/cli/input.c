// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Shared options and folded-input loading for the profile-reading commands. */
#include "cli/input.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "util/log.h"

int cli_parse_opts(const struct opt_cmd *c, int argc, char **argv, opt_handler h, void *ctx,
		   int *first)
{
	int ret = opt__parse(c, argc, argv, h, ctx, first);

	return ret == OPT_HELP_SHOWN ? EXIT_OK : ret ? ret : -1;
}

int cli_log_opt(int id)
{
	if (id == 'v')
		log_set_level(LOG_DEBUG);
	else if (id == 'q')
		log_set_level(LOG_WARN);
	else
		return -2;
	return 0;
}

int cli_parse_kind(const char *cmd, const char *s, int *kind)
{
	enum profile_kind k;

	if (!profile_kind_parse(s, &k)) {
		*kind = k;
		return 0;
	}
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

/* The header's kinds against --kind. EXIT_OK (and *@kind resolved) or EXIT_USAGE. */
static int resolve_kind(const char *cmd, const char *path, const struct profile *p,
			const struct folded_read_stats *st, int *kind)
{
	char have[128];

	if (!st->header_kinds) {
		if (*kind == CLI_KIND_UNSET)
			*kind = PROFILE_KIND_ONCPU;
		return EXIT_OK;
	}
	if (*kind != CLI_KIND_UNSET && !(st->header_kinds & (1u << *kind))) {
		cli_describe_kinds(p, have, sizeof(have));
		pr_warn("%s: '%s' holds %s (its header says so), no %s: the kind asked for "
			"(--kind, or for diff the first file's) contradicts it; files hotcold "
			"wrote need no --kind\n", cmd, path, have, profile_kind_name(*kind));
		return EXIT_USAGE;
	}
	if (*kind == CLI_KIND_UNSET)
		*kind = __builtin_ctz(st->header_kinds);
	return EXIT_OK;
}

void cli_note_other_kinds(const char *cmd, const struct profile *p, int shown)
{
	unsigned int rest = profile__kinds(p) & ~(1u << shown);

	for (int k = 0; k < PROFILE_KIND_NR; k++)
		if (rest & (1u << k))
			pr_info("%s: showing %s; the file also holds %s: --kind %s shows it\n", cmd,
				profile_kind_name(shown), profile_kind_name(k), profile_kind_name(k));
}

void cli_describe_kinds(const struct profile *p, char *buf, size_t len)
{
	static const char *const what[PROFILE_KIND_NR] = {
		"on-CPU samples", "off-CPU nanoseconds", "run-queue nanoseconds",
		"lock-wait nanoseconds",
	};
	unsigned int m = profile__kinds(p);
	size_t off = 0;

	buf[0] = '\0';
	for (int k = 0; k < PROFILE_KIND_NR && off < len; k++)
		if (m & (1u << k))
			off += snprintf(buf + off, len - off, "%s%s", off ? " and " : "", what[k]);
	if (!off)
		snprintf(buf, len, "no stacks");
}

/* Why reading stopped early, said plainly. Always EXIT_USAGE or EXIT_RUNTIME. */
static int read_failed(const char *cmd, const char *path, int err, int first,
		       const struct folded_read_stats *st)
{
	if (err == -EILSEQ) {
		pr_warn("%s: '%s' is binary data (a NUL byte on line %" PRIu64 "), not folded "
			"stacks\n", cmd, path, st->binary_line);
		/* gzip's magic starts 0x1f 0x8b */
		if (first == 0x1f)
			pr_warn("%s: it looks gzip-compressed (a pprof profile?); this reads "
				"folded text\n", cmd);
		return EXIT_USAGE;
	}
	if (err == -EPROTO) {
		pr_warn("%s: '%s' line %" PRIu64 ": a hotcold folded header this version cannot "
			"use (want v1 with kind=oncpu|offcpu|runq|lock and unit=samples|"
			"nanoseconds|microseconds)\n", cmd, path, st->bad_header_line);
		return EXIT_USAGE;
	}
	pr_warn("%s: cannot read '%s': %s\n", cmd, path, strerror(-err));
	return EXIT_RUNTIME;
}

/* Open @path for reading; a directory is a usage error named as such. An exit status. */
static int open_input(const char *cmd, const char *path, FILE **out)
{
	struct stat sb;
	FILE *f = fopen(path, "re");

	if (!f) {
		pr_warn("%s: cannot open '%s': %s\n", cmd, path, strerror(errno));
		return errno == EISDIR ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (!fstat(fileno(f), &sb) && S_ISDIR(sb.st_mode)) {
		pr_warn("%s: '%s' is a directory, not a folded profile\n", cmd, path);
		fclose(f);
		return EXIT_USAGE;
	}
	*out = f;
	return EXIT_OK;
}

int cli_load_folded(const char *cmd, const char *path, int *kind, struct profile **out,
		    struct folded_read_stats *st)
{
	bool is_stdin = !strcmp(path, "-");
	struct folded_read_stats local;
	struct profile *p;
	FILE *f = stdin;
	int err, first, ret;

	st = st ? st : &local;
	memset(st, 0, sizeof(*st));
	if (!is_stdin) {
		ret = open_input(cmd, path, &f);
		if (ret)
			return ret;
	}
	pr_debug("%s: reading '%s'\n", cmd, path);
	p = profile__new();
	first = getc(f);
	if (first != EOF)
		ungetc(first, f);
	err = p ? profile__read_folded(p, f, *kind == CLI_KIND_UNSET ? PROFILE_KIND_ONCPU :
					(enum profile_kind)*kind, st) : -ENOMEM;
	if (!is_stdin)
		fclose(f);
	ret = err ? read_failed(cmd, path, err, first, st) : EXIT_OK;
	if (!ret && st->lines == st->malformed) {
		explain_invalid(cmd, path, first, st);
		ret = EXIT_USAGE;
	}
	if (!ret)
		ret = resolve_kind(cmd, path, p, st, kind);
	if (ret) {
		profile__free(p);
		return ret;
	}
	if (st->malformed)
		pr_warn("%s: '%s': skipped %" PRIu64 " malformed of %" PRIu64 " lines (first: "
			"line %" PRIu64 "; -v lists them)\n", cmd, path, st->malformed, st->lines,
			st->first_bad_line);
	*out = p;
	return EXIT_OK;
}
