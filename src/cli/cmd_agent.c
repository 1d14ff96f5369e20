// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold agent`: config file + flags -> agent_config -> agent/. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/config.h"
#include "cli/cmd.h"
#include "cli/run.h"
#include "cli/input.h"
#include "util/compiler.h"
#include "util/log.h"

enum {
	OPT_CONFIG = 256,
	OPT_INTERVAL,
	OPT_OFFCPU,
	OPT_NO_ONCPU,
	OPT_MIN_BLOCK,
	OPT_RUNQ,
	OPT_MIN_RUNQ,
	OPT_LOCKS,
	OPT_MAX_AGE,
	OPT_MAX_INTERVALS,
	OPT_MAX_BYTES,
	OPT_MAX_STACKS,
	OPT_HTTP,
	OPT_HTTP_TOKEN_FILE,
	OPT_BPF_STATS,
	OPT_CGROUP,
	OPT_COMM,
	OPT_COUNTERS,
	OPT_MAPS_AT_EXEC,
	OPT_LABEL,
	OPT_PUSH,
	OPT_PUSH_SERVICE,
	OPT_PUSH_RULES,
	OPT_PUSH_TOKEN_FILE,
	OPT_PUSH_BASIC_AUTH_FILE,
	OPT_PUSH_TENANT,
	OPT_PUSH_CA_FILE,
	OPT_PUSH_TIMEOUT,
	OPT_PUSH_FLUSH,
	OPT_PUSH_LABELS,
};

static const struct cli_opt opts[] = {
	{ { "config", required_argument, NULL, OPT_CONFIG }, 0, "FILE",
	  "read settings from FILE first (format: README \"Always-on agent\"); flags override" },
	{ { "dir", required_argument, NULL, 'o' }, 'o', "DIR",
	  "history directory (default /var/lib/hotcold)" },
	{ { "interval", required_argument, NULL, OPT_INTERVAL }, 0, "DUR",
	  "write a profile every DUR (default 60s; at least 1s)" },
	{ { "freq", required_argument, NULL, 'F' }, 'F', "HZ", "on-CPU samples per second per CPU (default 19)" },
	{ { "off-cpu", no_argument, NULL, OPT_OFFCPU }, 0, NULL, "also record off-CPU time" },
	{ { "min-block", required_argument, NULL, OPT_MIN_BLOCK }, 0, "DUR",
	  "off-CPU blocks shorter than DUR carry no stack (default 1ms)" },
	{ { "runq", no_argument, NULL, OPT_RUNQ }, 0, NULL, "also record run-queue waits" },
	{ { "min-runq", required_argument, NULL, OPT_MIN_RUNQ }, 0, "DUR",
	  "run-queue waits shorter than DUR carry no stack, only totals (default 1ms)" },
	{ { "locks", no_argument, NULL, OPT_LOCKS }, 0, NULL, "also record lock waits" },
	{ { "counters", no_argument, NULL, OPT_COUNTERS }, 0, NULL,
	  "also count per process (IPC, ...; cpu-clock without a PMU): <start>-counters.json" },
	{ { "no-on-cpu", no_argument, NULL, OPT_NO_ONCPU }, 0, NULL, "do not sample on-CPU stacks" },
	{ { "pid", required_argument, NULL, 'p' }, 'p', "PID[,PID...]",
	  "only these processes (default: the whole system)" },
	{ { "cgroup", required_argument, NULL, OPT_CGROUP }, 0, "PATH[,PATH...]",
	  "only processes in these cgroup v2 directories or below" },
	{ { "label", required_argument, NULL, OPT_LABEL }, 0, "WHAT",
	  "root frame names a process by: comm (default) | cmdline (command line / process title)" },
	{ { "comm", required_argument, NULL, OPT_COMM }, 0, "NAME[,NAME...]",
	  "only processes with these names (NAME*: a prefix; with --cgroup: both)" },
	{ { "all-cpus", no_argument, NULL, 'a' }, 'a', NULL, "the whole system (the default)" },
	{ { "max-age", required_argument, NULL, OPT_MAX_AGE }, 0, "DUR",
	  "delete intervals older than DUR (default 7d as 168h; 0: never)" },
	{ { "max-intervals", required_argument, NULL, OPT_MAX_INTERVALS }, 0, "N",
	  "keep at most N intervals (default 0: no limit)" },
	{ { "max-bytes", required_argument, NULL, OPT_MAX_BYTES }, 0, "SIZE",
	  "disk budget for the history, e.g. 512M (default 1G; 0: none)" },
	{ { "max-stacks", required_argument, NULL, OPT_MAX_STACKS }, 0, "N",
	  "distinct stacks per interval (default 65536); the rest merged into [other stacks]" },
	{ { "http", required_argument, NULL, OPT_HTTP }, 0, "ADDR:PORT",
	  "serve the web view, e.g. 127.0.0.1:8080 (default: off)" },
	{ { "http-token-file", required_argument, NULL, OPT_HTTP_TOKEN_FILE }, 0, "FILE",
	  "the web view requires the token in FILE (Bearer, or as basic auth password)" },
	{ { "bpf-stats", no_argument, NULL, OPT_BPF_STATS }, 0, NULL,
	  "enable kernel BPF run-time statistics for the metrics" },
	{ { "maps-at-exec", no_argument, NULL, OPT_MAPS_AT_EXEC }, 0, NULL,
	  "read each new program's maps at exec, so processes living milliseconds are named" },
	{ { "push", required_argument, NULL, OPT_PUSH }, 0, "URL",
	  "send every interval to a Pyroscope-compatible back end, e.g. http://pyroscope:4040" },
	{ { "push-service", required_argument, NULL, OPT_PUSH_SERVICE }, 0, "NAME",
	  "service_name of processes no rule names (default: each process's name)" },
	{ { "push-rules", required_argument, NULL, OPT_PUSH_RULES }, 0, "COMM=SVC[,...]",
	  "service_name by process name, e.g. 'postgres*=db,nginx=web' (NAME*: a prefix); "
	  "also cmdline:REGEX=SVC, cgroup:GLOB=SVC" },
	{ { "push-labels", required_argument, NULL, OPT_PUSH_LABELS }, 0, "LIST",
	  "sample labels pushed (default comm,thread_name,reason; also pid, tid, cmdline, cgroup; "
	  "each a series in Pyroscope)" },
	{ { "push-token-file", required_argument, NULL, OPT_PUSH_TOKEN_FILE }, 0, "FILE",
	  "send the token in FILE as Authorization: Bearer" },
	{ { "push-basic-auth-file", required_argument, NULL, OPT_PUSH_BASIC_AUTH_FILE }, 0, "FILE",
	  "basic auth with USER:PASSWORD read from FILE" },
	{ { "push-tenant", required_argument, NULL, OPT_PUSH_TENANT }, 0, "ID",
	  "X-Scope-OrgID header (multi-tenant Pyroscope)" },
	{ { "push-ca-file", required_argument, NULL, OPT_PUSH_CA_FILE }, 0, "FILE",
	  "CA certificates to verify an https back end" },
	{ { "push-timeout", required_argument, NULL, OPT_PUSH_TIMEOUT }, 0, "DUR",
	  "connect and request timeout (default 10s)" },
	{ { "push-flush", required_argument, NULL, OPT_PUSH_FLUSH }, 0, "DUR",
	  "at exit, keep sending for at most DUR (default 2s; 0: not at all)" },
	{ { "verbose", no_argument, NULL, 'v' }, 'v', NULL, "more diagnostics" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL, "only warnings and errors" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

static void agent_usage(FILE *f)
{
	fprintf(f, "usage: hotcold agent [options]\n\n"
		   "Profile continuously: every interval, write the aggregated profile per kind\n"
		   "as DIR/<UTC start>-<kind>.pb.gz and .folded.gz, listed in DIR/index.jsonl,\n"
		   "within the retention limits. SIGTERM/SIGINT write the partial interval and\n"
		   "exit 0; SIGHUP re-reads the config (interval and retention apply at once).\n\n");
	cli_print_options(f, opts, ARRAY_SIZE(opts));
	fprintf(f, "\nExit status: 0 stopped by a signal; 1 runtime error (BPF, unwritable\n"
		   "directory); 2 usage error (bad option, bad config with its line).\n");
}

/* Option -> config key, for the flags that take a value. */
static const char *key_of(int c)
{
	switch (c) {
	case 'o': return "dir";
	case OPT_INTERVAL: return "interval";
	case 'F': return "frequency";
	case OPT_MIN_BLOCK: return "min_block";
	case OPT_MIN_RUNQ: return "min_runq";
	case 'p': return "pids";
	case OPT_CGROUP: return "cgroups";
	case OPT_COMM: return "comms";
	case OPT_MAX_AGE: return "max_age";
	case OPT_MAX_INTERVALS: return "max_intervals";
	case OPT_MAX_BYTES: return "max_bytes";
	case OPT_MAX_STACKS: return "max_stacks";
	case OPT_LABEL: return "label";
	case OPT_HTTP: return "http";
	case OPT_HTTP_TOKEN_FILE: return "http_token_file";
	case OPT_PUSH: return "push";
	case OPT_PUSH_SERVICE: return "push_service";
	case OPT_PUSH_RULES: return "push_rules";
	case OPT_PUSH_TOKEN_FILE: return "push_token_file";
	case OPT_PUSH_BASIC_AUTH_FILE: return "push_basic_auth_file";
	case OPT_PUSH_TENANT: return "push_tenant";
	case OPT_PUSH_CA_FILE: return "push_ca_file";
	case OPT_PUSH_TIMEOUT: return "push_timeout";
	case OPT_PUSH_FLUSH: return "push_flush";
	case OPT_PUSH_LABELS: return "push_labels";
	default: return NULL;
	}
}

struct agent_args {
	int argc;
	char **argv;
};

static int set_flag(struct agent_config *c, int opt, const char *val)
{
	char err[256];
	const char *key = key_of(opt);

	if (key && agent_config_set(c, key, val, err, sizeof(err))) {
		pr_warn("agent: %s\n", err);
		return EXIT_USAGE;
	}
	switch (opt) {
	case OPT_OFFCPU: c->offcpu = true; break;
	case OPT_RUNQ: c->runq = true; break;
	case OPT_LOCKS: c->locks = true; break;
	case OPT_COUNTERS: c->counters = true; break;
	case OPT_NO_ONCPU: c->oncpu = false; break;
	case OPT_BPF_STATS: c->bpf_stats = true; break;
	case OPT_MAPS_AT_EXEC: c->maps_at_exec = true; break;
	case 'a':
		free(c->pids);
		c->pids = NULL;
		c->nr_pids = 0;
		c->rules.nr_cgroups = c->rules.nr_comms = 0;
		break;
	case 'v': log_set_level(LOG_DEBUG); break;
	case 'q': log_set_level(LOG_WARN); break;
	}
	return EXIT_OK;
}

/*
 * Defaults, then the --config file, then the other flags: run at start and
 * again on SIGHUP. Returns an exit status; @help set for -h.
 */
static int build_config(const struct agent_args *a, struct agent_config *c, bool *help)
{
	struct option longopts[ARRAY_SIZE(opts) + 1];
	const char *config = NULL;
	char err[512];
	int opt, rc;

	agent_config_init(c);
	cli_longopts(opts, ARRAY_SIZE(opts), longopts);
	/* first pass: only --config, so flags override the file wherever they appear */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(a->argc, a->argv, "+o:F:p:avqh", longopts, NULL)) != -1)
		if (opt == OPT_CONFIG)
			config = optarg;
	if (config && agent_config_load(c, config, err, sizeof(err))) {
		pr_warn("agent: %s\n", err);
		return EXIT_USAGE;
	}
	optind = 0;
	opterr = 1;
	while ((opt = getopt_long(a->argc, a->argv, "+o:F:p:avqh", longopts, NULL)) != -1) {
		if (opt == 'h') {
			*help = true;
			return EXIT_OK;
		}
		if (opt == '?')
			return EXIT_USAGE;
		rc = set_flag(c, opt, optarg);
		if (rc)
			return rc;
	}
	if (optind < a->argc) {
		pr_warn("agent: unexpected argument '%s'\n", a->argv[optind]);
		return EXIT_USAGE;
	}
	if (!c->dir && !(c->dir = strdup("/var/lib/hotcold")))
		return EXIT_RUNTIME;
	if (!c->oncpu && !c->offcpu && !c->runq && !c->locks) {
		pr_warn("agent: nothing to record\n");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int reload(struct agent_config *c, void *arg)
{
	bool help = false;
	int rc = build_config(arg, c, &help);

	if (rc)
		agent_config_release(c);
	return rc ? -EINVAL : 0;
}

int cmd_agent(int argc, char **argv)
{
	struct agent_args a = { argc, argv };
	struct agent_config c;
	bool help = false;
	int rc, err;

	rc = build_config(&a, &c, &help);
	if (rc || help) {
		if (help)
			agent_usage(stdout);
		else if (rc == EXIT_USAGE)
			fprintf(stderr, "try 'hotcold agent --help'\n");
		agent_config_release(&c);
		return rc;
	}
	if (cli_need_bpf()) {
		agent_config_release(&c);
		return EXIT_RUNTIME;
	}
	log_hook_libbpf();
	err = agent_run(&c, reload, &a);
	agent_config_release(&c);
	if (err == -EINVAL)
		return EXIT_USAGE;
	return err ? EXIT_RUNTIME : EXIT_OK;
}
