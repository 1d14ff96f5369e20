// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the agent's config file (agent/config.c), every key's
 * value parser (durations, sizes, pid lists, cgroup and comm rules, push
 * rules and labels, addresses, URLs) through agent_config_parse(), then a
 * "key value" taken from the input through agent_config_set() as the flags do.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_config c;
	char err[256], *kv, *sp;
	uint64_t sz;
	FILE *f;
	int rc;

	if (!size)
		return 0;
	agent_config_init(&c);
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	err[0] = '\0';
	rc = agent_config_parse(&c, f, "fuzz.conf", err, sizeof(err));
	fclose(f);
	/* an error names its line, as "FILE:LINE: reason" */
	if (rc && strncmp(err, "fuzz.conf", 9))
		abort();
	/* the first line as a flag: "key value" (the command line's path) */
	kv = strndup((const char *)data, size);
	if (!kv)
		abort();
	kv[strcspn(kv, "\n")] = '\0';
	sp = strchr(kv, ' ');
	if (sp) {
		*sp = '\0';
		agent_config_set(&c, kv, sp + 1, err, sizeof(err));
	}
	parse_size(kv, &sz);
	free(kv);
	agent_config_release(&c);
	return 0;
}
