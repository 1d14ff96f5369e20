/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Who may read the web view: a bearer token (or the same secret as a basic
 * auth password, for browsers) read from a file, never from the command line
 * where every local user sees it in /proc/PID/cmdline; and whether an
 * address is loopback, to warn loudly when it is not.
 */
#ifndef HC_AGENT_HTTP_AUTH_H
#define HC_AGENT_HTTP_AUTH_H

#include <stdbool.h>
#include <sys/socket.h>

#define HTTP_TOKEN_MAX 1024

/*
 * Read the token from @path: a regular file (not a symlink) that others can
 * neither read nor write, holding one line of 16..HTTP_TOKEN_MAX visible
 * characters (trailing whitespace ignored). *@out malloc'd. 0 or -errno,
 * reported with pr_warn (-EPERM: mode; -EINVAL: content).
 */
int http_token_read(const char *path, char **out);

/*
 * Does the request carry @token? @authz: its Authorization header ("Bearer
 * TOKEN"; NULL if none); @basic_pass: the password of its basic auth (NULL if
 * none). Compares in constant time for a given length.
 */
bool http_token_ok(const char *token, const char *authz, const char *basic_pass);

/* 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104. */
bool http_addr_is_loopback(const struct sockaddr_storage *ss);

#endif /* HC_AGENT_HTTP_AUTH_H */
