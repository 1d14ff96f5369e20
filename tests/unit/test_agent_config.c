// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The agent's config file: keys, values, comments, and errors with line numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/config.h"

static int parse_text(struct agent_config *c, const char *text, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	rc = agent_config_parse(c, f, "agent.conf", err, len);
	fclose(f);
	return rc;
}

static void a_full_file_sets_every_key(void **state)
{
	struct agent_config c;
	char err[256] = "";
	const char *text = "# hotcold agent\n"
			   "\n"
			   "dir = /tmp/hist   # history\n"
			   "interval = 2s\n"
			   "frequency=49\n"
			   "off_cpu = yes\n"
			   "min_block = 5ms\n"
			   "block_quantum = 20ms\n"
			   "runq = on\n"
			   "min_runq = 250us\n"
			   "locks = false\n"
			   "pids = 12,34\n"
			   "max_age = 2h\n"
			   "max_intervals = 10\n"
			   "max_bytes = 512M\n"
			   "http = 127.0.0.1:8080\n";

	(void)state;
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, text, err, sizeof(err)), 0);
	assert_string_equal(c.dir, "/tmp/hist");
	assert_int_equal(c.interval_ns, 2000000000ull);
	assert_int_equal(c.freq_hz, 49);
	assert_true(c.offcpu && c.runq && !c.locks && c.oncpu);
	assert_int_equal(c.min_block_ns, 5000000);
	assert_int_equal(c.block_quantum_ns, 20000000);
	assert_int_equal(c.min_runq_ns, 250000);
	assert_int_equal(c.nr_pids, 2);
	assert_int_equal(c.keep.max_age_ns, 7200ull * 1000000000ull);
	assert_int_equal(c.keep.max_intervals, 10);
	assert_int_equal(c.keep.max_bytes, 512ull << 20);
	assert_string_equal(c.http, "127.0.0.1:8080");
	agent_config_release(&c);
}

static void errors_name_the_file_and_line(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "interval = 2s\n\nbogus = 1\n", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "agent.conf:3: unknown key 'bogus'");
	/* a typo, or the command line's spelling: the nearest key */
	assert_int_equal(parse_text(&c, "max-age = 1h\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "agent.conf:1: unknown key 'max-age'; did you mean 'max_age'?");
	assert_int_equal(parse_text(&c, "intreval = 1h\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "agent.conf:1: unknown key 'intreval'; did you mean 'interval'?");
	assert_int_equal(parse_text(&c, "# x\ninterval = 10q\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "agent.conf:2: invalid value '10q' for interval"));
	assert_int_equal(parse_text(&c, "interval\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "agent.conf:1: expected 'key = value'");
	assert_int_equal(parse_text(&c, "runq = maybe\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "agent.conf:1: invalid value 'maybe' for runq"));
	assert_int_equal(parse_text(&c, "dir =\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "agent.conf:1: no value for dir");
	agent_config_release(&c);
}

static void cgroup_and_name_targets(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "comms = a*b\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "agent.conf:1: invalid value 'a*b' for comms"));
	agent_config_release(&c);
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "comms = nginx, post*\n", err, sizeof(err)), 0);
	assert_int_equal(c.rules.nr_comms, 2);
	assert_true(target_rules_comm_match(&c.rules, "postgres"));
	assert_false(target_rules_comm_match(&c.rules, "nginx-w"));
	agent_config_release(&c);
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "\ncgroups = /tmp\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "agent.conf:2: invalid value '/tmp' for cgroups"));
	assert_int_equal(c.rules.nr_cgroups, 0);
	agent_config_release(&c);
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "comms = a,\n", err, sizeof(err)), -EINVAL);
	agent_config_release(&c);
}

static void label_is_comm_or_cmdline(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	agent_config_init(&c);
	assert_false(c.label_cmdline);	/* comm by default */
	assert_int_equal(parse_text(&c, "label = cmdline\n", err, sizeof(err)), 0);
	assert_true(c.label_cmdline);
	agent_config_release(&c);
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "label = argv\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "agent.conf:1: invalid value 'argv' for label: expected comm or cmdline"));
	agent_config_release(&c);
}

static void a_key_given_twice_is_an_error(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "interval = 2s\ninterval = 3s\n", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "agent.conf:2: 'interval' given twice");
	agent_config_release(&c);
}

static void out_of_range_values_are_rejected(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "interval = 100ms\n", err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "out of range"));
	assert_int_equal(parse_text(&c, "frequency = 0\n", err, sizeof(err)), -ERANGE);
	assert_int_equal(parse_text(&c, "http = 127.0.0.1\n", err, sizeof(err)), -EINVAL);
	assert_int_equal(parse_text(&c, "http = 127.0.0.1:70000\n", err, sizeof(err)), -ERANGE);
	assert_int_equal(c.interval_ns, 60000000000ull);	/* untouched */
	agent_config_release(&c);
}

static void sizes_take_binary_suffixes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_size("100", &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(parse_size("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(parse_size("G", &v), -EINVAL);
	assert_int_equal(parse_size("1.5M", &v), -EINVAL);
	assert_int_equal(parse_size("99999999999T", &v), -ERANGE);
}

/* NUL bytes and other controls: refused, naming the line and the byte, not parsed around. */
static void a_file_with_nul_bytes_is_not_text(void **state)
{
	static const char nul_first[] = "\0\0\0interval = 2s\n";
	static const char nul_later[] = "interval = 2s\nfrequency = 49\0\n";
	struct agent_config c;
	char err[256] = "";
	FILE *f;

	(void)state;
	agent_config_init(&c);
	f = fmemopen((void *)nul_first, sizeof(nul_first) - 1, "r");
	assert_int_equal(agent_config_parse(&c, f, "agent.conf", err, sizeof(err)), -EINVAL);
	fclose(f);
	assert_string_equal(err, "agent.conf:1: not a text file (byte 0x00 at column 1)");
	f = fmemopen((void *)nul_later, sizeof(nul_later) - 1, "r");
	assert_int_equal(agent_config_parse(&c, f, "agent.conf", err, sizeof(err)), -EINVAL);
	fclose(f);
	assert_string_equal(err, "agent.conf:2: not a text file (byte 0x00 at column 15)");
	assert_int_equal(parse_text(&c, "dir = /x\x1b[2J\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "agent.conf:1: not a text file (byte 0x1b at column 9)");
	/* tabs, CRLF and UTF-8 in comments are text */
	assert_int_equal(parse_text(&c, "\tinterval\t= 3s\r\n# caf\xc3\xa9\n", err, sizeof(err)), 0);
	agent_config_release(&c);
}

static void push_keys_are_checked_where_they_are_used(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	agent_config_init(&c);
	assert_int_equal(parse_text(&c, "push = https://pyro.example:4040\npush_service = api-1\n"
				    "push_rules = postgres*=db, nginx=web\npush_tenant = team-a\n"
				    "push_token_file = /etc/hotcold/push.token\npush_timeout = 5s\n"
				    "push_flush = 0\n", err, sizeof(err)), 0);
	assert_string_equal(c.push, "https://pyro.example:4040");
	assert_string_equal(c.push_service, "api-1");
	assert_string_equal(c.push_rules, "postgres*=db, nginx=web");
	assert_string_equal(c.push_tenant, "team-a");
	assert_int_equal(c.push_timeout_ns, 5000000000ull);
	assert_int_equal(c.push_flush_ns, 0);
	/* a URL with a scheme and no query: push.c appends the query */
	assert_int_equal(agent_config_set(&c, "push", "pyro:4040", err, sizeof(err)), -EINVAL);
	assert_int_equal(agent_config_set(&c, "push", "http://p/?x=1", err, sizeof(err)), -EINVAL);
	/* a newline in a header value would forge another header */
	assert_int_equal(agent_config_set(&c, "push_tenant", "a\r\nX-Evil: 1", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(agent_config_set(&c, "push_service", "two words", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(agent_config_set(&c, "push_rules", "postgres", err, sizeof(err)), -EINVAL);
	assert_int_equal(agent_config_set(&c, "push_timeout", "10ms", err, sizeof(err)), -ERANGE);
	assert_string_equal(c.push, "https://pyro.example:4040");	/* unchanged */
	agent_config_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_full_file_sets_every_key),
		cmocka_unit_test(errors_name_the_file_and_line),
		cmocka_unit_test(a_key_given_twice_is_an_error),
		cmocka_unit_test(label_is_comm_or_cmdline),
		cmocka_unit_test(cgroup_and_name_targets),
		cmocka_unit_test(out_of_range_values_are_rejected),
		cmocka_unit_test(sizes_take_binary_suffixes),
		cmocka_unit_test(a_file_with_nul_bytes_is_not_text),
		cmocka_unit_test(push_keys_are_checked_where_they_are_used),
	};

	return cmocka_run_group_tests_name("agent_config", tests, NULL, NULL);
}
