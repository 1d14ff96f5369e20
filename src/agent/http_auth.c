// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The web view's token and the loopback check (see http_auth.h). */
#include "agent/http_auth.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

#define HTTP_TOKEN_MIN 16

/* Trailing whitespace off; the rest must be visible ASCII. Its length or -EINVAL. */
static ssize_t token_clean(char *buf, size_t n)
{
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)buf[i]))
			return -EINVAL;
	return n;
}

int http_token_read(const char *path, char **out)
{
	char buf[HTTP_TOKEN_MAX + 2];
	struct stat st;
	ssize_t n = -1;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		pr_warn("agent: cannot read the http token file '%s': %s\n", path, strerror(-err));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 0007)) {
		err = -EPERM;
		pr_warn("agent: http token file '%s': must be a regular file that others cannot "
			"read or write (chmod o-rwx)\n", path);
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n >= 0)
		n = n > HTTP_TOKEN_MAX ? -EINVAL : token_clean(buf, n);
	if (n < HTTP_TOKEN_MIN) {
		err = -EINVAL;
		pr_warn("agent: http token file '%s': expected one line of %d to %d visible "
			"characters\n", path, HTTP_TOKEN_MIN, HTTP_TOKEN_MAX);
		goto out;
	}
	*out = strdup(buf);
	if (!*out)
		err = -ENOMEM;
out:
	if (fd >= 0)
		close(fd);
	explicit_bzero(buf, sizeof(buf));
	return err;
}

/* Equal strings? Time depends on the lengths only, not on where they differ. */
static bool secret_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i < lb ? i : 0];
	return !d && lb;
}

bool http_token_ok(const char *token, const char *authz, const char *basic_pass)
{
	if (authz && !strncasecmp(authz, "Bearer ", 7) && secret_eq(token, authz + 7))
		return true;
	return basic_pass && secret_eq(token, basic_pass);
}

bool http_addr_is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
}
