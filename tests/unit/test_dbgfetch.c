// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The debuginfod worker against a file:// "server" (libdebuginfod reads
 * DIR/buildid/HEX/debuginfo there): a request is answered without the caller
 * waiting, a build-id nobody has fails, each is asked once, and without
 * DEBUGINFOD_URLS nothing starts.
 */
#include "sym/dbgfetch.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char tmp[64];
static const uint8_t have[4] = { 0xde, 0xad, 0xbe, 0xef };
static const uint8_t missing[4] = { 0x01, 0x02, 0x03, 0x04 };

static int setup(void **state)
{
	char cmd[512], url[128], cache[128];

	(void)state;
	strcpy(tmp, "/tmp/hc-dbgfetch-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/srv/buildid/deadbeef && echo debug > %s/srv/buildid/deadbeef/debuginfo",
		 tmp, tmp);
	if (system(cmd))
		return -1;
	snprintf(url, sizeof(url), "file://%s/srv", tmp);
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) ? -1 : 0;
}

/* Poll @slot for up to 10 s: the worker answers on its own time. */
static int wait_result(struct dbgfetch *f, int slot, char **path)
{
	int err = -EINPROGRESS;

	for (int i = 0; i < 1000 && err == -EINPROGRESS; i++) {
		err = dbgfetch__result(f, slot, path);
		if (err == -EINPROGRESS)
			usleep(10000);
	}
	return err;
}

static void fetched_file_is_found_by_build_id_and_counted(void **state)
{
	struct dbgfetch *f = dbgfetch__new(0);
	struct dbgfetch_stats st;
	char *path = NULL, buf[16] = "";
	FILE *fp;
	int slot;

	(void)state;
	assert_non_null(f);
	slot = dbgfetch__request(f, have, sizeof(have));
	assert_true(slot >= 0);
	assert_int_equal(wait_result(f, slot, &path), 0);
	assert_non_null(strstr(path, "/cache/deadbeef/debuginfo"));
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "debug\n");
	/* asked again: the same slot, not a second request */
	assert_int_equal(dbgfetch__request(f, have, sizeof(have)), slot);
	dbgfetch__stats(f, &st);
	assert_int_equal(st.requested, 1);
	assert_int_equal(st.fetched, 1);
	assert_int_equal(st.pending, 0);
	free(path);
	dbgfetch__free(f);
}

static void unknown_build_id_fails_once_and_is_not_retried(void **state)
{
	struct dbgfetch *f = dbgfetch__new(0);
	struct dbgfetch_stats st;
	char *path = NULL;
	int slot;

	(void)state;
	assert_non_null(f);
	slot = dbgfetch__request(f, missing, sizeof(missing));
	assert_int_equal(wait_result(f, slot, &path), -ENOENT);
	assert_null(path);
	assert_int_equal(dbgfetch__request(f, missing, sizeof(missing)), slot);
	dbgfetch__stats(f, &st);
	assert_int_equal(st.requested, 1);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.fetched, 0);
	dbgfetch__free(f);
}

static void bad_requests_are_refused(void **state)
{
	struct dbgfetch *f = dbgfetch__new(0);
	char *path = NULL;

	(void)state;
	assert_non_null(f);
	assert_int_equal(dbgfetch__request(f, have, 0), -EINVAL);
	assert_int_equal(dbgfetch__result(f, 5, &path), -ENOENT);
	assert_int_equal(dbgfetch__result(f, -1, &path), -ENOENT);
	dbgfetch__free(f);
}

static void without_debuginfod_urls_nothing_starts(void **state)
{
	char *saved = strdup(getenv("DEBUGINFOD_URLS"));

	(void)state;
	setenv("DEBUGINFOD_URLS", "", 1);
	errno = 0;
	assert_null(dbgfetch__new(0));
	assert_int_equal(errno, ENOENT);
	unsetenv("DEBUGINFOD_URLS");
	assert_null(dbgfetch__new(0));
	setenv("DEBUGINFOD_URLS", saved, 1);
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fetched_file_is_found_by_build_id_and_counted),
		cmocka_unit_test(unknown_build_id_fails_once_and_is_not_retried),
		cmocka_unit_test(bad_requests_are_refused),
		cmocka_unit_test(without_debuginfod_urls_nothing_starts),
	};

	return cmocka_run_group_tests_name("dbgfetch", tests, setup, teardown);
}
