// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The agent's config file and the key/value setter the flags share. */
#include "agent/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"
#include "collect/opts.h"
#include "util/parse.h"
#include "util/compiler.h"
#include "util/suggest.h"

#define SEC 1000000000ull
#define CONFIG_MAX_LINE 4096

enum key_type { K_PATH, K_DURATION, K_HZ, K_BOOL, K_PIDS, K_COUNT, K_SIZE, K_ADDR, K_CGROUPS,
		K_COMMS, K_LABEL, K_UNWIND, K_URL, K_WORD,
		K_PUSH_RULES, K_PUSH_LABELS };

struct key_desc {
	const char *name;
	enum key_type type;
	size_t off;		/* offset of the field in struct agent_config */
	uint64_t min, max;	/* for numbers and durations */
};

#define F(field) offsetof(struct agent_config, field)
static const struct key_desc keys[] = {
	{ "dir", K_PATH, F(dir), 0, 0 },
	{ "interval", K_DURATION, F(interval_ns), SEC, 24 * 3600 * SEC },
	{ "frequency", K_HZ, F(freq_hz), 1, 10000 },
	{ "on_cpu", K_BOOL, F(oncpu), 0, 0 },
	{ "off_cpu", K_BOOL, F(offcpu), 0, 0 },
	{ "min_block", K_DURATION, F(min_block_ns), 0, 3600 * SEC },
	{ "block_quantum", K_DURATION, F(block_quantum_ns), 10000, SEC },
	{ "runq", K_BOOL, F(runq), 0, 0 },
	{ "min_runq", K_DURATION, F(min_runq_ns), 0, 3600 * SEC },
	{ "locks", K_BOOL, F(locks), 0, 0 },
	{ "counters", K_BOOL, F(counters), 0, 0 },
	{ "pids", K_PIDS, F(pids), 0, 0 },
	{ "cgroups", K_CGROUPS, F(rules), 0, 0 },
	{ "comms", K_COMMS, F(rules), 0, 0 },
	{ "max_age", K_DURATION, F(keep.max_age_ns), 0, 3650 * 24 * 3600 * SEC },
	{ "max_intervals", K_COUNT, F(keep.max_intervals), 0, 100000000 },
	{ "max_bytes", K_SIZE, F(keep.max_bytes), 0, UINT64_MAX },
	{ "max_stacks", K_COUNT, F(max_stacks), 1024, 1 << 24 },
	{ "http", K_ADDR, F(http), 0, 0 },
	{ "http_token_file", K_PATH, F(http_token_file), 0, 0 },
	{ "bpf_stats", K_BOOL, F(bpf_stats), 0, 0 },
	{ "maps_at_exec", K_BOOL, F(maps_at_exec), 0, 0 },
	{ "label", K_LABEL, F(label_cmdline), 0, 0 },
	{ "unwind", K_UNWIND, F(unwind), 0, 0 },
	{ "push", K_URL, F(push), 0, 0 },
	{ "push_service", K_WORD, F(push_service), 0, 0 },
	{ "push_rules", K_PUSH_RULES, F(push_rules), 0, 0 },
	{ "push_labels", K_PUSH_LABELS, F(push_labels), 0, 0 },
	{ "push_token_file", K_PATH, F(push_token_file), 0, 0 },
	{ "push_basic_auth_file", K_PATH, F(push_basic_auth_file), 0, 0 },
	{ "push_tenant", K_WORD, F(push_tenant), 0, 0 },
	{ "push_ca_file", K_PATH, F(push_ca_file), 0, 0 },
	{ "push_timeout", K_DURATION, F(push_timeout_ns), SEC / 10, 600 * SEC },
	{ "push_flush", K_DURATION, F(push_flush_ns), 0, 30 * SEC },
};
#undef F

void agent_config_init(struct agent_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_ns = 60 * SEC;
	c->freq_hz = 19;
	c->oncpu = true;
	c->min_block_ns = 1000000;	/* 1 ms: shorter blocks are summed per thread */
	/*
	 * 10 ms, not record's 1 ms: under PostgreSQL + nginx the short blocks'
	 * samples were most of the agent's ring records and of its CPU
	 * (bench/RESULTS.md, session 11); a 60 s interval still gets 100
	 * stacks a second from a thread blocked all the time
	 */
	c->block_quantum_ns = 10000000;
	/*
	 * 1 ms: a stack for every preemption is a ring record per context
	 * switch of a busy machine (13k/s seen on 2 CPUs); shorter waits are
	 * counted, summed, in the run-queue totals
	 */
	c->min_runq_ns = 1000000;
	c->max_stacks = 65536;
	c->keep.max_age_ns = 7 * 24 * 3600 * SEC;
	c->keep.max_bytes = 1ull << 30;
	c->push_timeout_ns = 10 * SEC;
	/* at exit, past the 1 s the signal allows: a bounded extra for the last interval */
	c->push_flush_ns = 2 * SEC;
}

void agent_config_release(struct agent_config *c)
{
	free(c->dir);
	free(c->pids);
	free(c->http);
	free(c->http_token_file);
	free(c->push);
	free(c->push_service);
	free(c->push_rules);
	free(c->push_labels);
	free(c->push_token_file);
	free(c->push_basic_auth_file);
	free(c->push_tenant);
	free(c->push_ca_file);
	memset(c, 0, sizeof(*c));
}

int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	char num[32];
	size_t n = strlen(s);
	unsigned int shift = 0;
	const char *u;
	uint64_t v;
	int err;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	u = strchr(units, toupper((unsigned char)num[n - 1]));
	if (u && *u) {
		shift = 10 * (unsigned int)(u - units + 1);
		num[--n] = '\0';
	}
	err = parse_u64(num, 0, UINT64_MAX >> shift, &v);
	if (err)
		return err;
	*out = v << shift;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on") || !strcmp(s, "1"))
		*out = true;
	else if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off") || !strcmp(s, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* "ADDR:PORT" with a numeric port; the address is checked when binding. */
static int check_addr(const char *s)
{
	const char *colon = strrchr(s, ':');
	uint64_t port;

	if (!colon || colon == s)
		return -EINVAL;
	return parse_u64(colon + 1, 1, 65535, &port);
}

static int replace_str(char **field, const char *value)
{
	char *dup = strdup(value);

	if (!dup)
		return -ENOMEM;
	free(*field);
	*field = dup;
	return 0;
}

/*
 * Printable ASCII without spaces: the value goes into an HTTP header or a
 * request line, where a newline would forge another. A URL also needs its
 * scheme and no query (push.c appends one).
 */
static int check_word(const char *v, bool url)
{
	if (!*v || strlen(v) > 1024)
		return -EINVAL;
	for (const char *p = v; *p; p++)
		if (*p <= ' ' || *p > '~' || (url && (*p == '?' || *p == '#')))
			return -EINVAL;
	if (url && strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
		return -EINVAL;
	return 0;
}

/*
 * "a,b,c" -> rules of one kind, replacing that kind's earlier ones (like
 * pids). Returns 0 or the first rule's error (-EINVAL, -ENOENT, -ENOTDIR,
 * -E2BIG).
 */
static int set_rules(struct target_rules *r, const char *v, bool cgroups)
{
	struct target_rules n = *r;
	char item[4096];
	const char *p = v, *end;
	size_t len;
	int err;

	if (cgroups)
		n.nr_cgroups = 0;
	else
		n.nr_comms = 0;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;	/* "a, b" as well as "a,b" */
		if (!len || len >= sizeof(item))
			return -EINVAL;
		memcpy(item, p, len);
		item[len] = '\0';
		err = cgroups ? target_rules_add_cgroup(&n, item) : target_rules_add_comm(&n, item);
		if (err)
			return err;
		if (!end)
			break;
		p = end + 1;
		if (!*p)
			return -EINVAL;	/* trailing comma */
	}
	*r = n;
	return 0;
}

static int set_typed(struct agent_config *c, const struct key_desc *k, const char *v)
{
	void *field = (char *)c + k->off;
	uint32_t *pids;
	size_t nr;
	uint64_t x;
	int err;

	switch (k->type) {
	case K_PATH:
		return *v ? replace_str(field, v) : -EINVAL;
	case K_ADDR:
		err = check_addr(v);
		return err ? err : replace_str(field, v);
	case K_PUSH_RULES: {
		struct push_rules r;
		char why[128];

		err = push_rules_parse(v, &r, why, sizeof(why));
		push_rules_free(&r);
		return err ? -EINVAL : replace_str(field, v);
	}
	case K_PUSH_LABELS: {
		unsigned m;
		char why[160];

		return push_labels_parse(v, &m, why, sizeof(why)) ? -EINVAL : replace_str(field, v);
	}
	case K_URL:
	case K_WORD:
		err = check_word(v, k->type == K_URL);
		return err ? err : replace_str(field, v);
	case K_DURATION:
		err = parse_duration_ns(v, SEC, k->min, k->max, &x);
		break;
	case K_HZ:
	case K_COUNT:
		err = parse_u64(v, k->min, k->max, &x);
		break;
	case K_SIZE:
		err = parse_size(v, &x);
		break;
	case K_BOOL:
		return parse_bool(v, field);
	case K_LABEL:
		return record_opts_parse_label(v, field);
	case K_UNWIND:
		return record_opts_parse_unwind(v, field);
	case K_PIDS:
		err = parse_id_list(v, 4194304, 1024, &pids, &nr);
		if (err)
			return err;
		free(c->pids);
		c->pids = pids;
		c->nr_pids = nr;
		return 0;
	case K_CGROUPS:
	case K_COMMS:
		/* a missing or non-cgroup directory is a bad value like any other */
		err = set_rules(&c->rules, v, k->type == K_CGROUPS);
		return err == -ENOMEM ? err : err ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
	if (!err)
		*(uint64_t *)field = x;
	return err;
}

static const char *type_hint(enum key_type t)
{
	switch (t) {
	case K_DURATION: return "a duration such as 60s, 500ms, 2h";
	case K_HZ: return "a frequency in Hz, 1..10000";
	case K_BOOL: return "yes or no";
	case K_LABEL: return "comm or cmdline";
	case K_UNWIND: return "auto, fp or cfi";
	case K_PIDS: return "a comma-separated list of process ids";
	case K_CGROUPS: return "a comma-separated list of cgroup v2 directories (at most 8)";
	case K_COMMS: return "a comma-separated list of process names or NAME* prefixes (at most 8)";
	case K_COUNT: return "a count";
	case K_SIZE: return "a size such as 512M, 2G";
	case K_ADDR: return "ADDR:PORT, e.g. 127.0.0.1:8080";
	case K_URL: return "an http:// or https:// URL without query, e.g. http://pyroscope:4040";
	case K_WORD: return "printable characters without spaces";
	case K_PUSH_RULES: return "[comm:]NAME[*]=SERVICE, cmdline:REGEX=SERVICE or cgroup:GLOB=SERVICE, "
				  "comma-separated (at most 16; \\, is a comma in a pattern)";
	case K_PUSH_LABELS: return "comma-separated of pid, tid, comm, thread_name, reason, cmdline, "
				   "cgroup, or none";
	default: return "a path";
	}
}

static const struct key_desc *find_key(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].name, key))
			return &keys[i];
	return NULL;
}

int agent_config_set(struct agent_config *c, const char *key, const char *value, char *err,
		     size_t errlen)
{
	const struct key_desc *k = find_key(key);
	int rc;

	if (!k) {
		const char *near = suggest__nearest(key, &keys[0].name, ARRAY_SIZE(keys),
						    sizeof(keys[0]));

		snprintf(err, errlen, "unknown key '%s'%s%s%s", key, near ? "; did you mean '" : "",
			 near ? near : "", near ? "'?" : "");
		return -EINVAL;
	}
	rc = set_typed(c, k, value);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc)
		snprintf(err, errlen, "invalid value '%s' for %s: %s%s", value, key,
			 rc == -ERANGE ? "out of range, expected " : "expected ",
			 type_hint(k->type));
	return rc;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* One line: blank, comment, or "key = value [# comment]". 0 or -EINVAL + @why. */
static int parse_line(struct agent_config *c, char *line, bool *seen, char *why, size_t len)
{
	char *hash = strchr(line, '#'), *eq, *key, *val;
	const struct key_desc *k;

	if (hash)
		*hash = '\0';
	line = trim(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		snprintf(why, len, "expected 'key = value'");
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	k = find_key(key);
	if (k && seen[k - keys]) {
		snprintf(why, len, "'%s' given twice", key);
		return -EINVAL;
	}
	if (k && !*val) {
		snprintf(why, len, "no value for %s", key);
		return -EINVAL;
	}
	if (k)
		seen[k - keys] = true;
	return agent_config_set(c, key, val, why, len);
}

/* The first byte of @line (@n bytes) that no text file has: NUL, other controls, DEL. */
static const char *not_text(const char *line, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char b = line[i];

		if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f)
			return line + i;
	}
	return NULL;
}

int agent_config_parse(struct agent_config *c, FILE *in, const char *name, char *err,
		       size_t errlen)
{
	bool seen[ARRAY_SIZE(keys)] = { false };
	char line[CONFIG_MAX_LINE], why[256];
	unsigned long lineno = 0;
	const char *bad;
	size_t n;
	int rc, ch;

	for (;;) {
		/* by byte, not fgets: a NUL must be seen, not end the line early */
		n = 0;
		while (n < sizeof(line) - 1 && (ch = getc(in)) != EOF) {
			line[n++] = (char)ch;
			if (ch == '\n')
				break;
		}
		if (!n)
			break;
		line[n] = '\0';
		lineno++;
		if (n == sizeof(line) - 1 && line[n - 1] != '\n' && (ch = getc(in)) != EOF) {
			snprintf(err, errlen, "%s:%lu: line too long", name, lineno);
			return -EINVAL;
		}
		bad = not_text(line, n);
		if (bad) {
			snprintf(err, errlen, "%s:%lu: not a text file (byte 0x%02x at column %zu)",
				 name, lineno, (unsigned char)*bad, (size_t)(bad - line) + 1);
			return -EINVAL;
		}
		rc = parse_line(c, line, seen, why, sizeof(why));
		if (rc) {
			snprintf(err, errlen, "%s:%lu: %s", name, lineno, why);
			return rc;
		}
	}
	if (ferror(in)) {
		snprintf(err, errlen, "%s: read error", name);
		return -EIO;
	}
	return 0;
}

int agent_config_load(struct agent_config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = agent_config_parse(c, f, path, err, errlen);
	fclose(f);
	return rc;
}
