/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one diagnostics sink: everything for humans goes to stderr through here. */
#ifndef HC_UTIL_LOG_H
#define HC_UTIL_LOG_H

#include <stddef.h>

enum log_level {
	LOG_WARN = 0,
	LOG_INFO = 1,
	LOG_DEBUG = 2,
	LOG_TRACE = 3,		/* -vv: libbpf's own log too */
};

/*
 * Messages above @level are dropped; default LOG_INFO. -q: WARN (errors
 * only; summaries are INFO), -v: DEBUG (the full counter table), -vv: TRACE.
 */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* One -v: INFO -> DEBUG -> TRACE (a second -v adds libbpf's log). */
void log_more_verbose(void);

/*
 * Route libbpf's own messages through our sink, all of them only at
 * LOG_TRACE: hotcold says what failed and what is needed itself.
 */
void log_hook_libbpf(void);

/*
 * Keep the gist of libbpf's warnings from here to log_capture_end(): why the
 * kernel refused a load, in one line (the verifier's last line, else
 * libbpf's first warning). _end copies it to @buf ("" if none), returns @buf.
 */
#define LOG_REASON_LEN 200
void log_capture_begin(void);
const char *log_capture_end(char *buf, size_t len);
/* one libbpf warning, whole (libbpf's print callback feeds it while a capture is on) */
void log_capture_feed(const char *msg);

void log_printf(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pr_warn(...)  log_printf(LOG_WARN, __VA_ARGS__)
#define pr_info(...)  log_printf(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) log_printf(LOG_DEBUG, __VA_ARGS__)

#endif /* HC_UTIL_LOG_H */
