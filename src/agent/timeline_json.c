// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The timeline's pure parts (see timeline.h): its JSON and the range a query names. */
#include "agent/timeline.h"

#include <errno.h>
#include <string.h>

int timeline_write_json(const struct timeline_row *rows, size_t nr, uint64_t period_ns,
			bool complete, FILE *out)
{
	fprintf(out, "{\"period_ns\":%llu,\"complete\":%s,\"units\":{",
		(unsigned long long)period_ns, complete ? "true" : "false");
	for (int k = 0; k < PROFILE_KIND_NR; k++)
		fprintf(out, "%s\"%s\":\"%s\"", k ? "," : "", profile_kind_name(k),
			profile_kind_unit(k));
	fprintf(out, "},\"intervals\":[");
	for (size_t i = 0; i < nr; i++) {
		const struct timeline_row *r = &rows[i];

		/* stamps are ours (store_stamp): no character needs escaping */
		fprintf(out, "%s\n{\"t\":\"%s\",\"start_ms\":%lld,\"end_ms\":%lld,\"partial\":%s",
			i ? "," : "", r->stamp, (long long)r->start_ms, (long long)r->end_ms,
			r->partial ? "true" : "false");
		for (int k = 0; k < PROFILE_KIND_NR; k++) {
			if (!(r->has & (1u << k)))
				continue;
			if (r->known & (1u << k))
				fprintf(out, ",\"%s\":%llu", profile_kind_name(k),
					(unsigned long long)r->total[k]);
			else
				fprintf(out, ",\"%s\":null", profile_kind_name(k));
		}
		fputc('}', out);
	}
	fprintf(out, "]}\n");
	return ferror(out) ? -EIO : 0;
}

static int stamp_copy(const char *s, size_t n, char *out)
{
	if (!n || n >= STORE_STAMP_LEN || s[0] < '0' || s[0] > '9' ||
	    strspn(s, "0123456789TZ.") < n)
		return -EINVAL;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int timeline_range_parse(const char *s, char *from, char *to)
{
	const char *dots = s ? strstr(s, "..") : NULL;
	char tmp[STORE_STAMP_LEN];
	int err;

	if (!s)
		return -EINVAL;
	if (!dots) {
		err = stamp_copy(s, strlen(s), from);
		if (!err)
			memcpy(to, from, STORE_STAMP_LEN);
		return err;
	}
	err = stamp_copy(s, dots - s, from);
	if (!err)
		err = stamp_copy(dots + 2, strlen(dots + 2), to);
	if (!err && strcmp(from, to) > 0) {
		memcpy(tmp, from, STORE_STAMP_LEN);
		memcpy(from, to, STORE_STAMP_LEN);
		memcpy(to, tmp, STORE_STAMP_LEN);
	}
	return err;
}
