// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stderr logger with a level; also receives libbpf's messages. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

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

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/*
	 * Its warnings too: unprivileged, they are about RLIMIT_MEMLOCK and
	 * CONFIG_BPF_SYSCALL and hide the one line that matters (what is needed).
	 */
	(void)level;
	if (cur_level < LOG_TRACE)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_hook_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
