// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `hotcold agent`: config file + flags -> agent_config -> agent/. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "agent/config.h"
#include "cli/cmd.h"
#include "cli/run.h"
#include "collect/parts.h"
#include "util/compiler.h"
#include "util/log.h"

enum {
	OPT_CONFIG = 256,
	OPT_INTERVAL,
	OPT_OFFCPU,
	OPT_NO_ONCPU,
	OPT_MIN_BLOCK,
	OPT_BLOCK_QUANTUM,
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
	OPT_UNWIND,
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

static const struct opt_spec agent_opts[] = {
	{ .name = "config", 0, OPT_CONFIG, OPTV_PATH, "FILE",
	  "read settings from FILE first (format: docs/agent.md, man hotcold-agent); flags override" },
	{ .name = "dir", 'o', 'o', OPTV_PATH, "DIR",
	  "history directory (default /var/lib/hotcold)" },
	{ .name = "interval", 0, OPT_INTERVAL, OPTV_STR, "DUR",
	  "write a profile every DUR (default 60s; at least 1s)" },
	{ .name = "freq", 'F', 'F', OPTV_STR, "HZ", "on-CPU samples per second per CPU (default 19)" },
	{ .name = "off-cpu", 0, OPT_OFFCPU, OPTV_FLAG, NULL, "also record off-CPU time" },
	{ .name = "min-block", 0, OPT_MIN_BLOCK, OPTV_STR, "DUR",
	  "off-CPU blocks shorter than DUR carry no stack (default 1ms)" },
	{ .name = "block-quantum", 0, OPT_BLOCK_QUANTUM, OPTV_STR, "DUR",
	  "of those shorter blocks, one carries its stack per DUR of a thread's time in them "
	  "(default 10ms)" },
	{ .name = "runq", 0, OPT_RUNQ, OPTV_FLAG, NULL, "also record run-queue waits" },
	{ .name = "min-runq", 0, OPT_MIN_RUNQ, OPTV_STR, "DUR",
	  "run-queue waits shorter than DUR carry no stack, only totals (default 1ms)" },
	{ .name = "locks", 0, OPT_LOCKS, OPTV_FLAG, NULL, "also record lock waits" },
	{ .name = "counters", 0, OPT_COUNTERS, OPTV_FLAG, NULL,
	  "also count per process (IPC, ...; cpu-clock without a PMU): <start>-counters.json" },
	{ .name = "no-on-cpu", 0, OPT_NO_ONCPU, OPTV_FLAG, NULL, "do not sample on-CPU stacks" },
	{ .name = "pid", 'p', 'p', OPTV_STR, "PID[,PID...]",
	  "only these processes (default: the whole system)" },
	{ .name = "cgroup", 0, OPT_CGROUP, OPTV_STR, "PATH[,PATH...]",
	  "only processes in these cgroup v2 directories or below" },
	{ .name = "label", 0, OPT_LABEL, OPTV_STR, "WHAT",
	  "root frame names a process by: comm (default) | cmdline (command line / process title)" },
	{ .name = "unwind", 0, OPT_UNWIND, OPTV_STR, "MODE", CLI_UNWIND_HELP },
	{ .name = "comm", 0, OPT_COMM, OPTV_STR, "NAME[,NAME...]",
	  "only processes with these names (NAME*: a prefix; with --cgroup: both)" },
	{ .name = "all-cpus", 'a', 'a', OPTV_FLAG, NULL, "the whole system (the default)" },
	{ .name = "max-age", 0, OPT_MAX_AGE, OPTV_STR, "DUR",
	  "delete intervals older than DUR (default 7d as 168h; 0: never)" },
	{ .name = "max-intervals", 0, OPT_MAX_INTERVALS, OPTV_STR, "N",
	  "keep at most N intervals (default 0: no limit)" },
	{ .name = "max-bytes", 0, OPT_MAX_BYTES, OPTV_STR, "SIZE",
	  "disk budget for the history, e.g. 512M (default 1G; 0: none)" },
	{ .name = "max-stacks", 0, OPT_MAX_STACKS, OPTV_STR, "N",
	  "distinct stacks per interval (default 65536); the rest merged into [other stacks]" },
	{ .name = "http", 0, OPT_HTTP, OPTV_STR, "ADDR:PORT",
	  "serve the web view, e.g. 127.0.0.1:8080 (default: off)" },
	{ .name = "http-token-file", 0, OPT_HTTP_TOKEN_FILE, OPTV_PATH, "FILE",
	  "the web view requires the token in FILE (Bearer, or as basic auth password)" },
	{ .name = "bpf-stats", 0, OPT_BPF_STATS, OPTV_FLAG, NULL,
	  "enable kernel BPF run-time statistics for the metrics" },
	{ .name = "maps-at-exec", 0, OPT_MAPS_AT_EXEC, OPTV_FLAG, NULL,
	  "read each new program's maps at exec, so processes living milliseconds are named" },
	{ .name = "push", 0, OPT_PUSH, OPTV_STR, "URL",
	  "send every interval to a Pyroscope-compatible back end, e.g. http://pyroscope:4040" },
	{ .name = "push-service", 0, OPT_PUSH_SERVICE, OPTV_STR, "NAME",
	  "service_name of processes no rule names (default: each process's name)" },
	{ .name = "push-rules", 0, OPT_PUSH_RULES, OPTV_STR, "COMM=SVC[,...]",
	  "service_name by process name, e.g. 'postgres*=db,nginx=web' (NAME*: a prefix); "
	  "also cmdline:REGEX=SVC, cgroup:GLOB=SVC" },
	{ .name = "push-labels", 0, OPT_PUSH_LABELS, OPTV_STR, "LIST",
	  "sample labels pushed (default comm,thread_name,reason; also pid, tid, cmdline, cgroup; "
	  "each a series in Pyroscope)" },
	{ .name = "push-token-file", 0, OPT_PUSH_TOKEN_FILE, OPTV_PATH, "FILE",
	  "send the token in FILE as Authorization: Bearer" },
	{ .name = "push-basic-auth-file", 0, OPT_PUSH_BASIC_AUTH_FILE, OPTV_PATH, "FILE",
	  "basic auth with USER:PASSWORD read from FILE" },
	{ .name = "push-tenant", 0, OPT_PUSH_TENANT, OPTV_STR, "ID",
	  "X-Scope-OrgID header (multi-tenant Pyroscope)" },
	{ .name = "push-ca-file", 0, OPT_PUSH_CA_FILE, OPTV_PATH, "FILE",
	  "CA certificates to verify an https back end" },
	{ .name = "push-timeout", 0, OPT_PUSH_TIMEOUT, OPTV_STR, "DUR",
	  "connect and request timeout (default 10s)" },
	{ .name = "push-flush", 0, OPT_PUSH_FLUSH, OPTV_STR, "DUR",
	  "at exit, keep sending for at most DUR (default 2s; 0: not at all)" },
	OPT_SPEC_VERBOSE("more diagnostics"),
	OPT_SPEC_QUIET("only warnings and errors"),
	OPT_SPEC_HELP,
};

const struct opt_cmd agent_cmd = {
	.name = "agent",
	.synopsis = "[options]",
	.about = "Profile continuously: every interval, write the aggregated profile per kind\n"
		 "as DIR/<UTC start>-<kind>.pb.gz and .folded.gz, listed in DIR/index.jsonl,\n"
		 "within the retention limits. SIGTERM/SIGINT write the partial interval and\n"
		 "exit 0; SIGHUP re-reads the config (interval and retention apply at once).\n",
	.footer = "Exit status: 0 stopped by a signal; 1 runtime error (BPF, unwritable\n"
		  "directory); 2 usage error (bad option, bad config with its line); 3 this\n"
		  "kernel cannot run it (below Linux 5.17 with BTF, ring buffer, task storage and\n"
		  "bpf_loop, or a core program refused; the first line says what). A part the\n"
		  "kernel refuses (CFI walker, task work, wakers, holders) is left out, said in\n"
		  "one line and counted on /metrics.\n",
	.opts = agent_opts,
	.nr_opts = ARRAY_SIZE(agent_opts),
	.stop_at_operand = true,
};

/* Option -> config key, for the flags that take a value. */
static const char *key_of(int c)
{
	switch (c) {
	case 'o': return "dir";
	case OPT_INTERVAL: return "interval";
	case 'F': return "frequency";
	case OPT_MIN_BLOCK: return "min_block";
	case OPT_BLOCK_QUANTUM: return "block_quantum";
	case OPT_MIN_RUNQ: return "min_runq";
	case 'p': return "pids";
	case OPT_CGROUP: return "cgroups";
	case OPT_COMM: return "comms";
	case OPT_MAX_AGE: return "max_age";
	case OPT_MAX_INTERVALS: return "max_intervals";
	case OPT_MAX_BYTES: return "max_bytes";
	case OPT_MAX_STACKS: return "max_stacks";
	case OPT_LABEL: return "label";
	case OPT_UNWIND: return "unwind";
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

/* Flags into @c (the second pass); --config was read in the first. */
static int set_flag(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	struct agent_config *c = ctx;
	const char *key = key_of(s->id);
	char err[256];

	if (key && agent_config_set(c, key, v->str, err, sizeof(err))) {
		pr_warn("agent: %s\n", err);
		return EXIT_USAGE;
	}
	switch (s->id) {
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

/* The first pass: only --config, so flags override the file wherever they appear. */
static int find_config(void *ctx, const struct opt_spec *s, const struct opt_val *v)
{
	if (s->id == OPT_CONFIG)
		*(const char **)ctx = v->str;
	return 0;
}

/*
 * Defaults, then the --config file, then the other flags: run at start and
 * again on SIGHUP. Returns an exit status; @help set for -h.
 */
static int build_config(const struct agent_args *a, struct agent_config *c, bool *help)
{
	const char *config = NULL;
	char err[512];
	int rc, first;

	agent_config_init(c);
	rc = opt__parse(&agent_cmd, a->argc, a->argv, find_config, &config, &first);
	if (rc == OPT_HELP_SHOWN) {
		*help = true;
		return EXIT_OK;
	}
	if (rc)
		return rc;
	if (config && agent_config_load(c, config, err, sizeof(err))) {
		pr_warn("agent: %s\n", err);
		return EXIT_USAGE;
	}
	rc = opt__parse(&agent_cmd, a->argc, a->argv, set_flag, c, &first);
	if (rc)
		return rc;
	if (first < a->argc) {
		pr_warn("agent: unexpected argument '%s'\n", a->argv[first]);
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
		agent_config_release(&c);
		return rc;
	}
	rc = cli_need_bpf();
	if (rc) {
		agent_config_release(&c);
		return rc;
	}
	log_hook_libbpf();
	err = agent_run(&c, reload, &a);
	agent_config_release(&c);
	if (err == -EINVAL)
		return EXIT_USAGE;
	if (err == -HC_EKERNEL)
		return EXIT_KERNEL;
	return err ? EXIT_RUNTIME : EXIT_OK;
}
