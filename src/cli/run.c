// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The shared tail of record, runqlat and locks. */
#include "cli/run.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/parse.h"
#include "output/outfile.h"
#include "record/session.h"
#include "collect/kernel_check.h"
#include "collect/parts.h"
#include "util/caps.h"
#include "util/log.h"

int cli_need_bpf(void)
{
	const char *msg = caps__missing_message();
	char kmsg[512];

	if (msg) {
		pr_warn("%s\n", msg);
		return EXIT_RUNTIME;
	}
	if (kernel_check(kmsg, sizeof(kmsg))) {
		pr_warn("%s\n", kmsg);
		return EXIT_KERNEL;
	}
	return 0;
}

int cli_run_recording(struct record_opts *o, const char *who)
{
	int err, cmd_status = -1;

	if (record_opts_validate(o)) {
		record_opts_release(o);
		return EXIT_USAGE;
	}
	err = cli_need_bpf();
	if (err) {
		record_opts_release(o);
		return err;
	}
	/* a bad -o fails now, not after the whole recording */
	err = o->output ? outfile_check(o->output) : 0;
	if (err) {
		pr_warn("%s: cannot write '%s': %s\n", who, o->output, strerror(-err));
		record_opts_release(o);
		return err == -EISDIR ? EXIT_USAGE : EXIT_RUNTIME;
	}
	err = session_run(o, &cmd_status);
	record_opts_release(o);
	return cli_exit_status(err, cmd_status, who);
}

int cli_exit_status(int err, int cmd_status, const char *who)
{
	if (fflush(stdout) || ferror(stdout)) {
		pr_warn("%s: write error on stdout: %s\n", who, strerror(errno ? errno : EIO));
		err = err ? err : -EIO;
	}
	if (err && cmd_status == 127)
		return cmd_status;	/* the command could not be executed */
	if (err == -ESRCH || err == -EINVAL || err == -EISDIR)
		return EXIT_USAGE;
	if (err == -HC_EKERNEL)
		return EXIT_KERNEL;
	if (err) {
		/* like perf: our own failure wins, the command's status is only told */
		if (cmd_status > 0)
			pr_warn("%s: the command exited with status %d; exit status 1 for the "
				"error above\n", who, cmd_status);
		return EXIT_RUNTIME;
	}
	return cmd_status >= 0 ? cmd_status : EXIT_OK;
}

int cli_record_main(int argc, char **argv, struct record_opts *o,
		    int (*parse)(int argc, char **argv, struct record_opts *o), const char *who)
{
	int ret;

	log_hook_libbpf();
	optind = 1;
	ret = parse(argc, argv, o);
	if (ret) {
		record_opts_release(o);
		return ret < 0 ? EXIT_OK : ret;
	}
	return cli_run_recording(o, who);
}

/* A -p/-t list; a repeated option replaces the earlier list. */
static int id_list(const struct opt_cmd *c, const struct opt_spec *s, const char *arg,
		   uint32_t **ids, size_t *nr)
{
	int err;

	free(*ids);
	*ids = NULL;
	*nr = 0;
	err = parse_id_list(arg, 4194304, 4096, ids, nr);
	return err ? opt__bad_value(c, s, arg, err) : CLI_OPT_DONE;
}

int cli_target_opt(const struct opt_cmd *c, const struct opt_spec *s, const struct opt_val *v,
		   struct record_opts *o)
{
	const char *who = c->name, *arg = v->str;
	int err;

	switch (s->id) {
	case 'p':
		return id_list(c, s, arg, &o->pids, &o->nr_pids);
	case 't':
		return id_list(c, s, arg, &o->tids, &o->nr_tids);
	case 'a':
		o->system_wide = true;
		return CLI_OPT_DONE;
	case 'd':
		o->duration_ns = v->u;
		return CLI_OPT_DONE;
	case 'o':
		o->output = arg;
		return CLI_OPT_DONE;
	case 'v':
		log_more_verbose();
		return CLI_OPT_DONE;
	case 'q':
		log_set_level(LOG_WARN);
		return CLI_OPT_DONE;
	case CLI_OPT_CGROUP:
		err = target_rules_add_cgroup(&o->rules, arg);
		if (err) {
			pr_warn("%s: --cgroup '%s': %s\n", who, arg,
				err == -ENOTDIR ? "not a cgroup v2 directory" :
				err == -E2BIG ? "too many --cgroup rules" : strerror(-err));
			return EXIT_USAGE;
		}
		return CLI_OPT_DONE;
	case CLI_OPT_UNWIND:
		o->unwind = v->choice == 1 ? UNWIND_FP : v->choice == 2 ? UNWIND_CFI : UNWIND_AUTO;
		return CLI_OPT_DONE;
	case CLI_OPT_COMM:
		err = target_rules_add_comm(&o->rules, arg);
		if (err) {
			pr_warn("%s: --comm '%s': %s\n", who, arg,
				err == -E2BIG ? "too many --comm rules" :
				"not a process name or NAME* prefix");
			return EXIT_USAGE;
		}
		return CLI_OPT_DONE;
	default:
		return CLI_OPT_OTHER;
	}
}
