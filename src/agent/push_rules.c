// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which service a process belongs to (rules on its name, command line or
 * cgroup), the container or systemd unit its cgroup names, and which pprof
 * sample labels are pushed (push.h). Pure: strings in, strings out.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "agent/push.h"

static const char *const label_names[PUSH_L_NR] = {
	[PUSH_L_PID] = "pid", [PUSH_L_TID] = "tid", [PUSH_L_COMM] = "comm",
	[PUSH_L_THREAD] = "thread_name", [PUSH_L_REASON] = "reason",
	[PUSH_L_CMDLINE] = "cmdline", [PUSH_L_CGROUP] = "cgroup",
};

const char *push_label_name(enum push_label l)
{
	return l < PUSH_L_NR ? label_names[l] : NULL;
}

bool push_rule_match(const char *pattern, const char *comm)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, comm, n - 1);
	return !strcmp(pattern, comm);
}

static bool rule_match(const struct push_rule *r, const struct push_proc *pr)
{
	switch (r->by) {
	case PUSH_BY_CMDLINE:
		return pr->cmdline && r->has_re && !regexec(&r->re, pr->cmdline, 0, NULL, 0);
	case PUSH_BY_CGROUP:
		return pr->cgroup && !fnmatch(r->pat, pr->cgroup, 0);
	default:
		return push_rule_match(r->pat, pr->comm ? pr->comm : "");
	}
}

const char *push_service_of(const struct push_rules *r, const struct push_proc *pr,
			    const char *fallback)
{
	for (size_t i = 0; i < r->nr; i++)
		if (rule_match(&r->rule[i], pr))
			return r->rule[i].service;
	if (fallback)
		return fallback;
	return pr->comm && *pr->comm ? pr->comm : "unknown";
}

void push_rules_free(struct push_rules *r)
{
	for (size_t i = 0; i < r->nr; i++)
		if (r->rule[i].has_re)
			regfree(&r->rule[i].re);
	r->nr = 0;
}

/* One item "[BY:]PATTERN=SERVICE" (unescaped) into @r's next rule. */
static int add_rule(struct push_rules *r, const char *item, char *err, size_t errlen)
{
	static const struct { const char *prefix; enum push_rule_by by; } bys[] = {
		{ "comm:", PUSH_BY_COMM }, { "cmdline:", PUSH_BY_CMDLINE }, { "cgroup:", PUSH_BY_CGROUP },
	};
	const char *eq = strrchr(item, '='), *pat = item;
	struct push_rule *ru = &r->rule[r->nr < PUSH_MAX_RULES ? r->nr : 0], tmp;
	size_t plen;
	int rc;

	if (r->nr == PUSH_MAX_RULES)
		ru = &tmp;	/* only to report the error below */
	if (!eq || eq == item || !eq[1]) {
		snprintf(err, errlen, "push rule '%s': want [comm:|cmdline:|cgroup:]PATTERN=SERVICE",
			 item);
		return -EINVAL;
	}
	memset(ru, 0, sizeof(*ru));
	for (size_t i = 0; i < sizeof(bys) / sizeof(bys[0]); i++) {
		if (!strncmp(item, bys[i].prefix, strlen(bys[i].prefix))) {
			ru->by = bys[i].by;
			pat = item + strlen(bys[i].prefix);
		}
	}
	plen = eq - pat;
	if (r->nr == PUSH_MAX_RULES || !plen || plen >= sizeof(ru->pat) ||
	    strlen(eq + 1) >= sizeof(ru->service)) {
		snprintf(err, errlen, "push rules: at most %d, patterns of 1 to %d bytes, services "
			 "of at most %d", PUSH_MAX_RULES, PUSH_RULE_LEN - 1, PUSH_SVC_LEN - 1);
		return -E2BIG;
	}
	memcpy(ru->pat, pat, plen);
	strcpy(ru->service, eq + 1);
	if (ru->by == PUSH_BY_CMDLINE) {
		rc = regcomp(&ru->re, ru->pat, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[96];

			regerror(rc, &ru->re, why, sizeof(why));
			snprintf(err, errlen, "push rule '%s': %s", item, why);
			return -EINVAL;
		}
		ru->has_re = true;
	}
	r->nr++;
	return 0;
}

int push_rules_parse(const char *text, struct push_rules *r, char *err, size_t errlen)
{
	char item[PUSH_RULE_LEN + PUSH_SVC_LEN + 16];
	const char *p = text;
	int rc;

	r->nr = 0;
	while (*p) {
		size_t n = 0;

		while (*p == ' ')
			p++;
		/* up to an unescaped ',': "\," is a comma of the pattern (a regex's {1,3}) */
		for (; *p && *p != ','; p++) {
			if (p[0] == '\\' && p[1] == ',')
				p++;
			if (n + 1 >= sizeof(item)) {
				snprintf(err, errlen, "push rule too long (at most %zu bytes)",
					 sizeof(item) - 1);
				return -E2BIG;
			}
			item[n++] = *p;
		}
		while (n && item[n - 1] == ' ')
			n--;
		item[n] = '\0';
		rc = add_rule(r, item, err, errlen);
		if (rc)
			return rc;
		if (!*p)
			break;
		p++;
	}
	return 0;
}

int push_labels_parse(const char *text, unsigned *mask, char *err, size_t errlen)
{
	const char *p = text;
	unsigned m = 0;

	if (!strcmp(text, "none")) {
		*mask = 0;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < PUSH_L_NR; i++)
			if (strlen(label_names[i]) == n && !strncmp(p, label_names[i], n))
				break;
		if (i == PUSH_L_NR) {
			snprintf(err, errlen, "push label '%.*s': one of pid, tid, comm, thread_name, "
				 "reason, cmdline, cgroup (or none)", (int)n, p);
			return -EINVAL;
		}
		m |= 1u << i;
		p += n;
		if (*p)
			p++;
	}
	*mask = m;
	return 0;
}

static bool is_hex64(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* The container ID a cgroup path component names, or NULL; its 64 digits. */
static const char *component_id(const char *c, size_t n)
{
	static const char *const prefixes[] = {
		"docker-", "cri-containerd-", "crio-", "libpod-", "containerd-", "",
	};

	if (n > 6 && !memcmp(c + n - 6, ".scope", 6))
		n -= 6;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t pl = strlen(prefixes[i]);

		/* "crio-conmon-ID" is the container's monitor, not the container */
		if (n > pl && !memcmp(c, prefixes[i], pl) && is_hex64(c + pl, n - pl))
			return c + pl;
	}
	return NULL;
}

void push_container_of(const char *cgroup, char *id, size_t idlen, char *unit, size_t unitlen)
{
	const char *e, *c, *s;

	id[0] = unit[0] = '\0';
	if (!cgroup)
		return;
	/* innermost first: systemd inside a container nests "init.scope" below it */
	for (e = cgroup + strlen(cgroup); e > cgroup; e = c > cgroup ? c - 1 : cgroup) {
		for (c = e; c > cgroup && c[-1] != '/'; c--)
			;
		if (e == c)
			continue;
		s = component_id(c, e - c);
		if (s) {
			snprintf(id, idlen, "%.64s", s);
			unit[0] = '\0';
			return;
		}
		if (!unit[0] && e - c > 8 && !memcmp(e - 8, ".service", 8))
			snprintf(unit, unitlen, "%.*s", (int)(e - c), c);
	}
}
