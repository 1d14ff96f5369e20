// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `stat -r N` and `stat --compare A B` (analysis/counters_stats.h does the
 * arithmetic and the reasoning; this runs the command and does the files).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/counters_stats.h"
#include "cli/cmd.h"
#include "cli/stat_run.h"
#include "output/outfile.h"
#include "util/log.h"

static int write_out(const char *path, int (*fn)(FILE *, const void *), const void *arg)
{
	struct outfile of;
	int err = outfile_open(&of, path, 0644);

	if (err) {
		pr_warn("stat: cannot create '%s': %s\n", path, strerror(-err));
		return err;
	}
	err = fn(of.f, arg);
	if (err)
		return outfile_fail(&of, err);
	return outfile_commit(&of);
}

struct rep_out {
	const struct cstats *s;
	bool json;
};

static int put_rep(FILE *f, const void *arg)
{
	const struct rep_out *r = arg;

	return r->json ? cstats_write_json(f, r->s) : cstats_write_text(f, r->s);
}

int stat_repeat(struct stat_opts *o, int *cmd_status)
{
	struct cstats *s = calloc(1, sizeof(*s));
	const char *output = o->output;
	struct rep_out ro = { .s = s, .json = o->fmt == FMT_JSON };
	int err = 0;

	if (!s)
		return -ENOMEM;
	o->repeat = s;
	o->output = "-";	/* each run adds to @s and writes nothing */
	for (unsigned int i = 0; i < o->runs && !err; i++) {
		pr_debug("stat: run %u of %u\n", i + 1, o->runs);
		err = stat_run(o, cmd_status);
		if (!err && *cmd_status) {
			pr_warn("stat: run %u of %u: the command exited with status %d; stopping\n",
				i + 1, o->runs, *cmd_status);
			break;
		}
	}
	o->output = output;
	o->repeat = NULL;
	if (!err && !*cmd_status) {
		cstats_finish(s);
		err = write_out(output, put_rep, &ro);
		if (err)
			pr_warn("stat: cannot write '%s': %s\n", output, strerror(-err));
	}
	free(s);
	return err;
}

/* The whole file, at most CSTATS_MAX_JSON bytes, NUL-terminated. */
static int slurp(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return -errno;
	buf = malloc(CSTATS_MAX_JSON + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < CSTATS_MAX_JSON && (n = read(fd, buf + len, CSTATS_MAX_JSON - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			free(buf);
			return err;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	*out = buf;
	return 0;
}

static int load(const char *path, struct cstats *s)
{
	char *text = NULL;
	int err = slurp(path, &text);

	if (err) {
		pr_warn("stat: cannot read '%s': %s\n", path, strerror(-err));
		return EXIT_RUNTIME;
	}
	err = cstats_parse_json(text, s);
	free(text);
	if (err) {
		pr_warn("stat: '%s' is not the JSON of `stat --json` or `stat -r N --json` "
			"(no counters with values)\n", path);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

struct cmp_out {
	const struct cstats_cmp *c;
	const char *a, *b;
	bool json;
};

static int put_cmp(FILE *f, const void *arg)
{
	const struct cmp_out *c = arg;

	return c->json ? cstats_write_compare_json(f, c->c, c->a, c->b) :
			 cstats_write_compare(f, c->c, c->a, c->b);
}

int stat_compare(const struct stat_opts *o, const char *path_a, const char *path_b)
{
	struct cstats *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct cstats_cmp *c = calloc(1, sizeof(*c));
	struct cmp_out co = { c, path_a, path_b, o->fmt == FMT_JSON };
	int ret = a && b && c ? EXIT_OK : EXIT_RUNTIME;

	if (ret == EXIT_OK)
		ret = load(path_a, a);
	if (ret == EXIT_OK)
		ret = load(path_b, b);
	if (ret == EXIT_OK) {
		cstats_compare(a, b, &o->model, c);
		if (!c->nr) {
			pr_warn("stat: '%s' and '%s' have no counter in common\n", path_a, path_b);
			ret = EXIT_USAGE;
		} else if (write_out(o->output, put_cmp, &co)) {
			ret = EXIT_RUNTIME;
		}
	}
	free(a);
	free(b);
	free(c);
	return ret;
}
