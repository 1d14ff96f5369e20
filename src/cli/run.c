// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The shared tail of record, runqlat and locks. */
#include "cli/run.h"

#include <errno.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "record/session.h"
#include "util/log.h"

int cli_run_recording(struct record_opts *o, const char *who)
{
	int err, cmd_status = -1;

	if (record_opts_validate(o)) {
		record_opts_release(o);
		return EXIT_USAGE;
	}
	err = session_run(o, &cmd_status);
	record_opts_release(o);
	if (fflush(stdout) || ferror(stdout)) {
		pr_warn("%s: write error on stdout\n", who);
		return EXIT_RUNTIME;
	}
	if (err && cmd_status >= 0)
		return cmd_status;	/* 127: the command could not be executed */
	if (err == -ESRCH || err == -EINVAL)
		return EXIT_USAGE;
	if (err)
		return EXIT_RUNTIME;
	return cmd_status >= 0 ? cmd_status : EXIT_OK;
}
