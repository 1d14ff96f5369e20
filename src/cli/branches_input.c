// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Finding and reading PROFILE.branches (branches_input.h). */
#include "cli/branches_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/log.h"

#define SUFFIX ".branches"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int cli_load_branches(const char *cmd, const char *path, bool quiet, struct branch_table *t)
{
	char *file = NULL, why[256];
	FILE *in;
	int err, ret = EXIT_OK;

	branch_table_init(t);
	if (!strcmp(path, "-")) {
		pr_warn("%s: branch records are read from PROFILE" SUFFIX ", not stdin\n", cmd);
		return EXIT_USAGE;
	}
	if (ends_with(path, SUFFIX))
		file = strdup(path);
	else if (asprintf(&file, "%s" SUFFIX, path) < 0)
		file = NULL;
	if (!file)
		return EXIT_RUNTIME;
	in = fopen(file, "re");
	if (!in) {
		err = errno;
		if (err == ENOENT && !quiet)
			pr_warn("%s: '%s' has no branch records ('%s' not found): record with -b, "
				"on a PMU with a branch stack (docs/record.md, Branch records)\n",
				cmd, path, file);
		else if (err != ENOENT)
			pr_warn("%s: cannot open '%s': %s\n", cmd, file, strerror(err));
		free(file);
		return err == ENOENT ? EXIT_USAGE : EXIT_RUNTIME;
	}
	err = branches_read(in, t, why, sizeof(why));
	if (err == -EINVAL) {
		pr_warn("%s: '%s' is not a valid branch file: %s\n", cmd, file, why);
		ret = EXIT_USAGE;
	} else if (err) {
		pr_warn("%s: cannot read '%s': %s\n", cmd, file, strerror(-err));
		ret = EXIT_RUNTIME;
	}
	fclose(in);
	free(file);
	if (ret != EXIT_OK)
		branch_table_release(t);
	return ret;
}
