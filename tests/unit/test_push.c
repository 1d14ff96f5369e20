// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent/push_util.c, push_split.c: URL and labels, backoff, cursor, service rules, splitting. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "agent/push.h"
#include "analysis/profile.h"
#include "output/pprof.h"
#include "output/protobuf.h"

static const struct push_series series = { "svc", "oncpu", "host-1", "0.1.0", 100, 160, 19 };

static void the_url_carries_the_documented_query(void **state)
{
	char buf[1024];
	int n = push_url(buf, sizeof(buf), "http://p:4040/", &series);

	(void)state;
	assert_true(n > 0);
	assert_int_equal(n, (int)strlen(buf));
	/* name "svc.oncpu{service_name=svc,...}" percent-encoded; base's '/' not doubled */
	assert_string_equal(buf,
			    "http://p:4040/ingest?name=svc.oncpu%7Bservice_name%3Dsvc%2Chostname%3D"
			    "host-1%2Chotcold_version%3D0.1.0%2Ckind%3Doncpu%7D&from=100&until=160"
			    "&format=pprof&spyName=hotcold&sampleRate=19");
}

static void label_values_cannot_break_the_name(void **state)
{
	struct push_series s = series;
	char buf[1024], v[16];

	(void)state;
	/* '{', ',', '=' and '}' would forge labels: replaced, never passed */
	s.service = "a,b=c}{d e&f";
	assert_true(push_url(buf, sizeof(buf), "https://x", &s) > 0);
	assert_non_null(strstr(buf, "name=a_b_c__d_e_f.oncpu%7Bservice_name%3Da_b_c__d_e_f%2C"));
	assert_null(strstr(buf, "%26"));	/* no query parameter forged */
	push_label_value("", v, sizeof(v));
	assert_string_equal(v, "unknown");
	push_label_value("0123456789abcdefXYZ", v, sizeof(v));
	assert_string_equal(v, "0123456789abcde");
	s.rate_hz = 0;
	assert_true(push_url(buf, sizeof(buf), "https://x", &s) > 0);
	assert_null(strstr(buf, "sampleRate"));
}

static void a_short_buffer_is_an_error_not_a_truncated_url(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(push_url(buf, sizeof(buf), "http://p:4040", &series), -ENAMETOOLONG);
	assert_int_equal(push_url(buf, 10, "http://p:4040", &series), -ENAMETOOLONG);
}

static void backoff_doubles_from_half_a_second_to_30_s(void **state)
{
	(void)state;
	assert_int_equal(push_backoff_ms(1), 500);
	assert_int_equal(push_backoff_ms(2), 1000);
	assert_int_equal(push_backoff_ms(3), 2000);
	assert_int_equal(push_backoff_ms(7), 30000);	/* 32 s capped */
	assert_int_equal(push_backoff_ms(6), 16000);
	assert_int_equal(push_backoff_ms(1000000), 30000);
}

static void the_cursor_is_one_number_and_a_newline(void **state)
{
	char buf[32];
	int64_t v = -1;
	int n;

	(void)state;
	n = push_cursor_format(1796141054031, buf, sizeof(buf));
	assert_int_equal(push_cursor_parse(buf, n, &v), 0);
	assert_int_equal(v, 1796141054031);
	/* torn, foreign or padded files are refused, never half-read */
	assert_int_equal(push_cursor_parse("123", 3, &v), -EINVAL);
	assert_int_equal(push_cursor_parse("12\n3\n", 5, &v), -EINVAL);
	assert_int_equal(push_cursor_parse("\n", 1, &v), -EINVAL);
	assert_int_equal(push_cursor_parse("-5\n", 3, &v), -EINVAL);
	assert_int_equal(push_cursor_parse("1234567890123456789012\n", 23, &v), -EINVAL);
	assert_int_equal(push_cursor_parse("", 0, &v), -EINVAL);
	assert_int_equal(v, 1796141054031);
}

static void rules_name_services_first_match_wins(void **state)
{
	struct push_rules r;
	char err[128];

	(void)state;
	assert_int_equal(push_rules_parse("postgres*=db, nginx=web ,pg*=never", &r, err,
					  sizeof(err)), 0);
	assert_int_equal(r.nr, 3);
	assert_string_equal(push_service_of(&r, "postgres", NULL), "db");
	assert_string_equal(push_service_of(&r, "postgres: wal", NULL), "db");
	assert_string_equal(push_service_of(&r, "nginx", NULL), "web");
	assert_string_equal(push_service_of(&r, "nginx2", NULL), "nginx2");	/* exact only */
	assert_string_equal(push_service_of(&r, "pgbouncer", NULL), "never");
	assert_string_equal(push_service_of(&r, "bash", "fleet"), "fleet");
	assert_string_equal(push_service_of(&r, NULL, NULL), "unknown");
	assert_string_equal(push_service_of(&r, "", NULL), "unknown");
	assert_int_equal(push_rules_parse("noequals", &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "COMM=SERVICE"));
	assert_int_equal(push_rules_parse("=x", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(push_rules_parse("x=", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(push_rules_parse("a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=10,k=11,l=12,"
					  "m=13,n=14,o=15,p=16,q=17", &r, err, sizeof(err)), -E2BIG);
}

/* A pprof (gunzipped) of @n stacks, stack i by process comms[i % nc], weight i + 1. */
static void make_pprof(const char *const *comms, size_t nc, size_t n, char **out, size_t *out_len)
{
	struct profile *p = profile__new();
	char *gz = NULL;
	size_t gz_len = 0;
	FILE *f = open_memstream(&gz, &gz_len);
	z_stream zs = { 0 };

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		char fn[32];
		struct profile_frame_in fr[2] = { { .name = "main" }, { .name = fn } };
		struct profile_stack_in s = { fr, 2, i + 1, PROFILE_KIND_ONCPU, 100 + i % nc,
					      100 + i % nc, comms[i % nc], NULL, NULL };

		snprintf(fn, sizeof(fn), "fn_%zu", i);
		assert_int_equal(profile__add(p, &s), 0);
	}
	assert_int_equal(pprof_write(p, f), 0);
	fclose(f);
	profile__free(p);
	*out = malloc(1 << 20);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = gz_len;
	zs.next_out = (Bytef *)*out;
	zs.avail_out = 1 << 20;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = zs.total_out;
	inflateEnd(&zs);
	free(gz);
}

/* Count the samples of a pprof: top-level field 2 keys (a sample is a LEN field). */
static size_t nr_samples(const uint8_t *p, size_t len)
{
	struct push_group *g;
	struct push_rules none = { .nr = 0 };
	size_t nr, n = 0;

	assert_int_equal(push_groups(p, len, &none, "all", &g, &nr), 0);
	for (size_t i = 0; i < nr; i++)
		n += g[i].nr;
	push_groups_free(g, nr);
	return n;
}

static void a_pprof_splits_by_service_and_loses_no_sample(void **state)
{
	static const char *const comms[] = { "postgres", "nginx", "bash", "postgres: wal" };
	struct push_rules r;
	struct push_group *g;
	struct pb_buf out;
	char *pb, err[64];
	size_t len, nr, total = 0;

	(void)state;
	make_pprof(comms, 4, 40, &pb, &len);
	assert_int_equal(nr_samples((uint8_t *)pb, len), 40);
	assert_int_equal(push_rules_parse("postgres*=db", &r, err, sizeof(err)), 0);
	assert_int_equal(push_groups(pb, len, &r, NULL, &g, &nr), 0);
	/* sorted by name: the order a retry sees again */
	assert_int_equal(nr, 3);
	assert_string_equal(g[0].service, "bash");
	assert_string_equal(g[1].service, "db");
	assert_string_equal(g[2].service, "nginx");
	assert_int_equal(g[0].nr, 10);
	assert_int_equal(g[1].nr, 20);
	assert_int_equal(g[2].nr, 10);
	pb_buf__init(&out);
	for (size_t i = 0; i < nr; i++) {
		struct push_group *h;
		size_t hn;

		pb_buf__reset(&out);
		assert_int_equal(push_group_encode(pb, len, &g[i], &out), 0);
		/* re-split: one group, the same service, the same samples */
		assert_int_equal(push_groups(out.data, out.len, &r, NULL, &h, &hn), 0);
		assert_int_equal(hn, 1);
		assert_string_equal(h[0].service, g[i].service);
		assert_int_equal(h[0].nr, g[i].nr);
		total += h[0].nr;
		push_groups_free(h, hn);
	}
	assert_int_equal(total, 40);
	pb_buf__release(&out);
	push_groups_free(g, nr);
	/* a fallback service takes every process no rule names */
	assert_int_equal(push_groups(pb, len, &r, "fleet", &g, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(g[0].service, "db");
	assert_string_equal(g[1].service, "fleet");
	push_groups_free(g, nr);
	free(pb);
}

static void too_many_services_end_in_other(void **state)
{
	const char *comms[PUSH_MAX_GROUPS + 10];
	char names[PUSH_MAX_GROUPS + 10][16];
	struct push_rules none = { .nr = 0 };
	struct push_group *g;
	char *pb;
	size_t len, nr, n = 0;

	(void)state;
	for (size_t i = 0; i < PUSH_MAX_GROUPS + 10; i++) {
		snprintf(names[i], sizeof(names[i]), "p%03zu", i);
		comms[i] = names[i];
	}
	make_pprof(comms, PUSH_MAX_GROUPS + 10, PUSH_MAX_GROUPS + 10, &pb, &len);
	assert_int_equal(push_groups(pb, len, &none, NULL, &g, &nr), 0);
	assert_int_equal(nr, PUSH_MAX_GROUPS);
	for (size_t i = 0; i < nr; i++)
		n += g[i].nr;
	assert_int_equal(n, PUSH_MAX_GROUPS + 10);
	assert_string_equal(g[nr - 1].service, "p254");	/* sorted: "other" before "p..." */
	push_groups_free(g, nr);
	free(pb);
}

static void garbage_is_refused(void **state)
{
	static const uint8_t bad[] = { 0x12, 0x80 };	/* field 2, LEN, truncated varint */
	static const uint8_t long_len[] = { 0x12, 0x05, 0x01 };
	struct push_rules none = { .nr = 0 };
	struct push_group *g;
	size_t nr;

	(void)state;
	assert_int_equal(push_groups(bad, sizeof(bad), &none, NULL, &g, &nr), -EINVAL);
	assert_int_equal(push_groups(long_len, sizeof(long_len), &none, NULL, &g, &nr), -EINVAL);
	assert_int_equal(push_groups(NULL, 0, &none, NULL, &g, &nr), 0);
	assert_int_equal(nr, 0);
	push_groups_free(g, nr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_url_carries_the_documented_query),
		cmocka_unit_test(label_values_cannot_break_the_name),
		cmocka_unit_test(a_short_buffer_is_an_error_not_a_truncated_url),
		cmocka_unit_test(backoff_doubles_from_half_a_second_to_30_s),
		cmocka_unit_test(the_cursor_is_one_number_and_a_newline),
		cmocka_unit_test(rules_name_services_first_match_wins),
		cmocka_unit_test(a_pprof_splits_by_service_and_loses_no_sample),
		cmocka_unit_test(too_many_services_end_in_other),
		cmocka_unit_test(garbage_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
