// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pure parts of pushing: the request URL, the backoff, the cursor's text (push.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/push.h"

static const char *const cause_names[PUSH_CAUSE_NR] = {
	[PUSH_CONNECT] = "connect", [PUSH_TIMEOUT] = "timeout", [PUSH_TLS] = "tls",
	[PUSH_NETWORK] = "network", [PUSH_HTTP_5XX] = "http_5xx", [PUSH_HTTP_4XX] = "http_4xx",
	[PUSH_HTTP_OTHER] = "http_other",
};

const char *push_cause_name(enum push_cause c)
{
	return c < PUSH_CAUSE_NR ? cause_names[c] : "unknown";
}

bool push_cause_retried(enum push_cause c)
{
	return c != PUSH_HTTP_4XX && c != PUSH_HTTP_OTHER;
}

static bool label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '/' || c == '-';
}

/*
 * Pyroscope splits the name at '{', ',', '=' and '}' and has no quoting for
 * them: anything outside a conservative set is replaced rather than escaped
 */
void push_label_value(const char *in, char *out, size_t len)
{
	size_t n = 0;

	if (!len)
		return;
	for (; *in && n + 1 < len; in++)
		out[n++] = label_char(*in) ? *in : '_';
	if (!n && len > 7) {
		strcpy(out, "unknown");
		return;
	}
	out[n] = '\0';
}

/* Percent-encode @s (RFC 3986 unreserved kept) at @buf + *@n. */
static void put_encoded(char *buf, size_t len, size_t *n, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = *s;
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';

		if (*n + 4 > len) {
			*n = len;
			return;
		}
		if (plain) {
			buf[(*n)++] = c;
		} else {
			buf[(*n)++] = '%';
			buf[(*n)++] = hex[c >> 4];
			buf[(*n)++] = hex[c & 15];
		}
	}
	buf[*n] = '\0';
}

int push_url(char *buf, size_t len, const char *base, const struct push_series *s)
{
	char svc[128], kind[32], host[128], ver[32], ct[80], un[136], name[1024];
	size_t blen = strlen(base), n;
	int w;

	push_label_value(s->service, svc, sizeof(svc));
	push_label_value(s->kind, kind, sizeof(kind));
	push_label_value(s->host, host, sizeof(host));
	push_label_value(s->version, ver, sizeof(ver));
	ct[0] = un[0] = '\0';
	if (s->container && *s->container) {
		strcpy(ct, ",container_id=");
		push_label_value(s->container, ct + strlen(ct), sizeof(ct) - strlen(ct));
	}
	if (s->unit && *s->unit) {
		strcpy(un, ",systemd_unit=");
		push_label_value(s->unit, un + strlen(un), sizeof(un) - strlen(un));
	}
	snprintf(name, sizeof(name),
		 "%s.%s{service_name=%s,hostname=%s,hotcold_version=%s,kind=%s%s%s}", svc, kind, svc,
		 host, ver, kind, ct, un);
	while (blen && base[blen - 1] == '/')
		blen--;
	w = snprintf(buf, len, "%.*s/ingest?name=", (int)blen, base);
	if (w < 0 || (size_t)w >= len)
		return -ENAMETOOLONG;
	n = w;
	put_encoded(buf, len, &n, name);
	if (n >= len)
		return -ENAMETOOLONG;
	w = snprintf(buf + n, len - n, "&from=%" PRId64 "&until=%" PRId64 "&format=pprof&spyName=hotcold",
		     s->from_s, s->until_s);
	if (w < 0 || (size_t)w >= len - n)
		return -ENAMETOOLONG;
	n += w;
	if (s->rate_hz) {
		w = snprintf(buf + n, len - n, "&sampleRate=%" PRIu64, s->rate_hz);
		if (w < 0 || (size_t)w >= len - n)
			return -ENAMETOOLONG;
		n += w;
	}
	return (int)n;
}

uint64_t push_backoff_ms(unsigned attempt)
{
	uint64_t ms = 500;

	for (unsigned i = 1; i < attempt && ms < 30000; i++)
		ms *= 2;
	return ms < 30000 ? ms : 30000;
}

int push_cursor_parse(const char *text, size_t len, int64_t *start_ms)
{
	int64_t v = 0;
	size_t i = 0;

	/* digits, then exactly one newline: a torn or foreign file is refused */
	for (; i < len && text[i] >= '0' && text[i] <= '9' && i < 18; i++)
		v = v * 10 + (text[i] - '0');
	if (!i || i + 1 != len || text[i] != '\n')
		return -EINVAL;
	*start_ms = v;
	return 0;
}

int push_cursor_format(int64_t start_ms, char *buf, size_t len)
{
	return snprintf(buf, len, "%" PRId64 "\n", start_ms);
}

/*
 * Pyroscope's sample type settings (its SampleTypeConfig: units from its
 * fixed set, "lock_nanoseconds" being its one unit of time; aggregation
 * "sum"; "sampled": a count of samples to scale by sampleRate). The display
 * name decides the profile's __name__: "cpu" -> process_cpu, "block_" ->
 * block, "mutex_" -> mutex; without it "off_cpu" would count as process_cpu.
 */
int push_sample_type_config(const char *kind, char *buf, size_t len)
{
	static const struct {
		const char *kind, *json;
	} cfg[] = {
		{ "oncpu", "{\"samples\":{\"units\":\"samples\",\"aggregation\":\"sum\","
			   "\"display-name\":\"cpu\",\"sampled\":true},"
			   "\"cpu\":{\"units\":\"lock_nanoseconds\",\"aggregation\":\"sum\","
			   "\"display-name\":\"cpu_time\"}}" },
		{ "offcpu", "{\"off_cpu\":{\"units\":\"lock_nanoseconds\",\"aggregation\":\"sum\","
			    "\"display-name\":\"block_duration\"}}" },
		{ "runq", "{\"runq_wait\":{\"units\":\"lock_nanoseconds\",\"aggregation\":\"sum\","
			  "\"display-name\":\"runq_wait\"}}" },
		{ "lock", "{\"lock_wait\":{\"units\":\"lock_nanoseconds\",\"aggregation\":\"sum\","
			  "\"display-name\":\"mutex_duration\"}}" },
	};

	for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		if (strcmp(cfg[i].kind, kind))
			continue;
		if (strlen(cfg[i].json) >= len)
			return -ENAMETOOLONG;
		strcpy(buf, cfg[i].json);
		return (int)strlen(buf);
	}
	return snprintf(buf, len, "{}");
}
