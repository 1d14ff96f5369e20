// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent/http_auth.c: the token file's checks, matching a request, loopback. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/http_auth.h"

#define TOKEN "0123456789abcdef-token"

static char path[64];

static void write_token(const char *content, mode_t mode)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/hc-token.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void a_private_file_with_one_line_gives_the_token(void **state)
{
	char *tok = NULL;

	(void)state;
	write_token(TOKEN "\n", 0600);
	assert_int_equal(http_token_read(path, &tok), 0);
	assert_string_equal(tok, TOKEN);
	free(tok);
	unlink(path);
}

static void a_file_others_can_read_or_write_is_refused(void **state)
{
	char *tok = NULL;

	(void)state;
	write_token(TOKEN "\n", 0604);
	assert_int_equal(http_token_read(path, &tok), -EPERM);
	assert_int_equal(chmod(path, 0602), 0);
	assert_int_equal(http_token_read(path, &tok), -EPERM);
	assert_int_equal(chmod(path, 0640), 0);	/* the group may read it */
	assert_int_equal(http_token_read(path, &tok), 0);
	free(tok);
	unlink(path);
}

static void short_empty_or_spaced_tokens_are_refused(void **state)
{
	char *tok = NULL;

	(void)state;
	write_token("short\n", 0600);
	assert_int_equal(http_token_read(path, &tok), -EINVAL);
	unlink(path);
	write_token("\n\n", 0600);
	assert_int_equal(http_token_read(path, &tok), -EINVAL);
	unlink(path);
	write_token("0123456789 abcdef-token\n", 0600);
	assert_int_equal(http_token_read(path, &tok), -EINVAL);
	unlink(path);
	assert_int_equal(http_token_read("/nonexistent/token", &tok), -ENOENT);
}

static void a_symlink_is_not_followed(void **state)
{
	char link[80], *tok = NULL;

	(void)state;
	write_token(TOKEN "\n", 0600);
	snprintf(link, sizeof(link), "%s.link", path);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(http_token_read(link, &tok), -ELOOP);
	unlink(link);
	unlink(path);
}

static void bearer_or_basic_password_match_and_nothing_else(void **state)
{
	(void)state;
	assert_true(http_token_ok(TOKEN, "Bearer " TOKEN, NULL));
	assert_true(http_token_ok(TOKEN, "bearer " TOKEN, NULL));
	assert_true(http_token_ok(TOKEN, NULL, TOKEN));
	assert_false(http_token_ok(TOKEN, NULL, NULL));
	assert_false(http_token_ok(TOKEN, "Bearer " TOKEN "x", NULL));
	assert_false(http_token_ok(TOKEN, "Bearer 0123456789abcdef-tokeN", NULL));
	assert_false(http_token_ok(TOKEN, "Bearer ", NULL));
	assert_false(http_token_ok(TOKEN, "Basic " TOKEN, NULL));
	assert_false(http_token_ok(TOKEN, NULL, ""));
	assert_false(http_token_ok(TOKEN, NULL, "0123456789abcdef"));
}

static bool loopback(const char *addr)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	else
		fail();
	return http_addr_is_loopback(&ss);
}

static void loopback_is_127_slash_8_and_colon_colon_1(void **state)
{
	(void)state;
	assert_true(loopback("127.0.0.1"));
	assert_true(loopback("127.255.0.9"));
	assert_true(loopback("::1"));
	assert_true(loopback("::ffff:127.0.0.1"));
	assert_false(loopback("0.0.0.0"));
	assert_false(loopback("10.0.0.1"));
	assert_false(loopback("128.0.0.1"));
	assert_false(loopback("::"));
	assert_false(loopback("::ffff:10.0.0.1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_private_file_with_one_line_gives_the_token),
		cmocka_unit_test(a_file_others_can_read_or_write_is_refused),
		cmocka_unit_test(short_empty_or_spaced_tokens_are_refused),
		cmocka_unit_test(a_symlink_is_not_followed),
		cmocka_unit_test(bearer_or_basic_password_match_and_nothing_else),
		cmocka_unit_test(loopback_is_127_slash_8_and_colon_colon_1),
	};

	return cmocka_run_group_tests_name("http_auth", tests, NULL, NULL);
}
