// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stderr logger with a level; also receives libbpf's messages. */
#include "util/log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

static enum log_level cur_level = LOG_INFO;

void log_set_level(enum log_level level)
{
	cur_level = level;
}

void log_more_verbose(void)
{
	cur_level = cur_level < LOG_DEBUG ? LOG_DEBUG : LOG_TRACE;
}

enum log_level log_get_level(void)
{
	return cur_level;
}

void log_printf(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > cur_level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/*
 * A load's refusal in one line: the verifier's last word (its log ends in
 * statistics, skipped), else libbpf's first warning (a kfunc or a CO-RE
 * relocation the kernel lacks). Loads run on one thread, before sampling.
 */
static struct {
	bool on;
	char verifier[LOG_REASON_LEN];
	char first[LOG_REASON_LEN];
} cap;

static void copy_line(char *dst, const char *src, size_t n)
{
	size_t len = strcspn(src, "\n");

	if (len >= LOG_REASON_LEN)
		len = LOG_REASON_LEN - 1;
	if (len > n)
		len = n;
	memcpy(dst, src, len);
	dst[len] = 0;
}

static bool stats_line(const char *l)
{
	return !strncmp(l, "processed ", 10) || !strncmp(l, "verification time", 17) ||
	       !strncmp(l, "stack depth", 11) || !strncmp(l, "mark_precise", 12);
}

/* the last line of the verifier's log between libbpf's markers that is not statistics */
static void capture_verifier(const char *log, const char *end)
{
	const char *l = end;

	while (l > log) {
		const char *s = l - 1;	/* the '\n' ending the line before @l, or its last char */

		while (s > log && s[-1] != '\n')
			s--;
		if (l - s > 1 && !stats_line(s)) {
			copy_line(cap.verifier, s, (size_t)(l - s));
			return;
		}
		l = s;
	}
}

void log_capture_feed(const char *msg)
{
	static const char begin[] = "-- BEGIN PROG LOAD LOG --\n";
	const char *b = strstr(msg, begin), *e;

	if (!strncmp(msg, "libbpf: ", 8))
		msg += 8;
	if (b && (e = strstr(b, "-- END PROG LOAD LOG --"))) {
		capture_verifier(b + sizeof(begin) - 1, e);
		return;
	}
	/* the consequences libbpf adds after the cause */
	if (cap.first[0] || !strncmp(msg, "failed to load", 14) ||
	    strstr(msg, "failed to load object") || strstr(msg, "ulimit -l"))
		return;
	copy_line(cap.first, msg, LOG_REASON_LEN);
}

static bool log_capture_on(void)
{
	return cap.on;
}

void log_capture_begin(void)
{
	cap.on = true;
	cap.verifier[0] = cap.first[0] = 0;
}

const char *log_capture_end(char *buf, size_t len)
{
	cap.on = false;
	snprintf(buf, len, "%s", cap.verifier[0] ? cap.verifier : cap.first);
	return buf;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int ret = 0;

	if (log_capture_on() && level == LIBBPF_WARN) {
		va_list aq;
		char *msg;

		va_copy(aq, ap);
		if (vasprintf(&msg, fmt, aq) >= 0) {
			log_capture_feed(msg);
			free(msg);
		}
		va_end(aq);
	}
	/*
	 * Its warnings too: unprivileged, they are about RLIMIT_MEMLOCK and
	 * CONFIG_BPF_SYSCALL and hide the one line that matters (what is needed).
	 */
	if (cur_level >= LOG_TRACE)
		ret = vfprintf(stderr, fmt, ap);
	return ret;
}

void log_hook_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
