// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent/push_*.c: URL and labels, backoff, cursor, service rules, splitting, pruning. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "agent/push.h"
#include "agent/push_pb.h"
#include "analysis/profile.h"
#include "output/pprof.h"
#include "output/protobuf.h"

static const struct push_series series = { "svc", "oncpu", "host-1", "0.1.0", 100, 160, 19,
					   NULL, NULL };

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

static const char *svc_of(const struct push_rules *r, const char *comm, const char *cmdline,
			  const char *cgroup, const char *fallback)
{
	struct push_proc pr = { comm, cmdline, cgroup };

	return push_service_of(r, &pr, fallback);
}

static void rules_name_services_first_match_wins(void **state)
{
	struct push_rules r;
	char err[128];

	(void)state;
	assert_int_equal(push_rules_parse("postgres*=db, nginx=web ,pg*=never", &r, err,
					  sizeof(err)), 0);
	assert_int_equal(r.nr, 3);
	assert_string_equal(svc_of(&r, "postgres", NULL, NULL, NULL), "db");
	assert_string_equal(svc_of(&r, "postgres: wal", NULL, NULL, NULL), "db");
	assert_string_equal(svc_of(&r, "nginx", NULL, NULL, NULL), "web");
	assert_string_equal(svc_of(&r, "nginx2", NULL, NULL, NULL), "nginx2");	/* exact only */
	assert_string_equal(svc_of(&r, "pgbouncer", NULL, NULL, NULL), "never");
	assert_string_equal(svc_of(&r, "bash", NULL, NULL, "fleet"), "fleet");
	assert_string_equal(svc_of(&r, NULL, NULL, NULL, NULL), "unknown");
	assert_string_equal(svc_of(&r, "", NULL, NULL, NULL), "unknown");
	push_rules_free(&r);
	assert_int_equal(push_rules_parse("noequals", &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "PATTERN=SERVICE"));
	assert_int_equal(push_rules_parse("=x", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(push_rules_parse("x=", &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(push_rules_parse("a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=10,k=11,l=12,"
					  "m=13,n=14,o=15,p=16,q=17", &r, err, sizeof(err)), -E2BIG);
	push_rules_free(&r);
	assert_int_equal(push_rules_parse("cmdline:(=x", &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cmdline:("));	/* the regex error names the rule */
	push_rules_free(&r);
}

static void rules_match_command_lines_and_cgroups(void **state)
{
	struct push_rules r;
	char err[128];

	(void)state;
	/* the service after the LAST '=', "\," a comma of the regex */
	assert_int_equal(push_rules_parse("cmdline:^postgres: (walwriter|checkpointer)=pg-bg,"
					  "cmdline:-m http\\.server.*--port=[0-9]{2\\,5}=web,"
					  "cgroup:/system.slice/redis*.service=cache,"
					  "cgroup:*/docker-*.scope=containers, comm:python3=py",
					  &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr, 5);
	assert_int_equal(r.rule[1].by, PUSH_BY_CMDLINE);
	assert_string_equal(r.rule[1].pat, "-m http\\.server.*--port=[0-9]{2,5}");
	assert_string_equal(r.rule[1].service, "web");
	assert_string_equal(svc_of(&r, "postgres", "postgres: walwriter", NULL, NULL), "pg-bg");
	assert_string_equal(svc_of(&r, "postgres", "postgres: app db [local] idle", NULL, NULL),
			    "postgres");
	assert_string_equal(svc_of(&r, "python3", "python3 -m http.server --port=8000", NULL, NULL),
			    "web");
	assert_string_equal(svc_of(&r, "python3", "python3 -m http.server --port=8", NULL, NULL),
			    "py");
	assert_string_equal(svc_of(&r, "redis-server", NULL, "/system.slice/redis-server.service",
				   NULL), "cache");
	assert_string_equal(svc_of(&r, "nginx", NULL,
				   "/system.slice/docker-0123456789abcdef0123456789abcdef0123456789"
				   "abcdef0123456789abcdef.scope", NULL), "containers");
	/* an unknown command line or cgroup matches no rule on it */
	assert_string_equal(svc_of(&r, "redis-server", NULL, NULL, NULL), "redis-server");
	push_rules_free(&r);
}

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void containers_and_units_come_from_the_cgroup(void **state)
{
	static const struct {
		const char *cg, *id, *unit;
	} cases[] = {
		{ "/system.slice/docker-" ID64 ".scope", ID64, "" },
		{ "/docker/" ID64, ID64, "" },				/* cgroupfs driver */
		{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b.slice/"
		  "cri-containerd-" ID64 ".scope", ID64, "" },
		{ "/machine.slice/libpod-" ID64 ".scope/container", ID64, "" },	/* podman, nested */
		{ "/system.slice/crio-" ID64 ".scope/init.scope", ID64, "" },
		{ "/system.slice/crio-conmon-" ID64 ".scope", "", "" },		/* the monitor */
		{ "/system.slice/nginx.service", "", "nginx.service" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/app-foo.service",
		  "", "app-foo.service" },
		{ "/user.slice/user-1000.slice/session-3.scope", "", "" },
		{ "/", "", "" },
		{ "/docker/0123", "", "" },					/* too short */
	};
	char id[72], unit[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		push_container_of(cases[i].cg, id, sizeof(id), unit, sizeof(unit));
		assert_string_equal(id, cases[i].id);
		assert_string_equal(unit, cases[i].unit);
	}
	push_container_of(NULL, id, sizeof(id), unit, sizeof(unit));
	assert_string_equal(id, "");
}

static void the_url_names_the_container_and_unit(void **state)
{
	struct push_series s = series;
	char buf[1024];

	(void)state;
	s.container = ID64;
	s.unit = "";
	assert_true(push_url(buf, sizeof(buf), "http://p", &s) > 0);
	assert_non_null(strstr(buf, "kind%3Doncpu%2Ccontainer_id%3D" ID64 "%7D"));
	s.container = NULL;
	s.unit = "nginx.service";
	assert_true(push_url(buf, sizeof(buf), "http://p", &s) > 0);
	assert_non_null(strstr(buf, "kind%3Doncpu%2Csystemd_unit%3Dnginx.service%7D"));
}

static void sample_type_config_names_each_kind(void **state)
{
	char buf[512];

	(void)state;
	assert_true(push_sample_type_config("oncpu", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"samples\":{\"units\":\"samples\",\"aggregation\":\"sum\","
				    "\"display-name\":\"cpu\",\"sampled\":true}"));
	assert_true(push_sample_type_config("offcpu", buf, sizeof(buf)) > 0);
	/* never a display name holding "cpu": Pyroscope would file it as process_cpu */
	assert_non_null(strstr(buf, "\"off_cpu\":{\"units\":\"lock_nanoseconds\""));
	assert_null(strstr(buf, "name\":\"off_cpu"));
	assert_non_null(strstr(buf, "\"display-name\":\"block_duration\""));
	assert_true(push_sample_type_config("lock", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"lock_wait\":{\"units\":\"lock_nanoseconds\""));
	assert_non_null(strstr(buf, "mutex_duration"));
	assert_true(push_sample_type_config("runq", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"runq_wait\""));
	assert_int_equal(push_sample_type_config("oncpu", buf, 16), -ENAMETOOLONG);
}

static void push_labels_parse_names_and_refuses_others(void **state)
{
	unsigned m;
	char err[160];

	(void)state;
	assert_int_equal(push_labels_parse("comm,tid", &m, err, sizeof(err)), 0);
	assert_int_equal(m, (1u << PUSH_L_COMM) | (1u << PUSH_L_TID));
	assert_int_equal(push_labels_parse("none", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 0);
	assert_int_equal(push_labels_parse("comm,tids", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'tids'"));
}

/*
 * A pprof (gunzipped) of @n stacks, stack i by process comms[i % nc]
 * (cmdline "CMD-comm", cgroup cgs[i % nc] when @cgs), tid 1000 + i,
 * weight i + 1.
 */
static void make_pprof_cg(const char *const *comms, const char *const *cgs, size_t nc, size_t n,
			  char **out, size_t *out_len)
{
	struct profile *p = profile__new();
	char *gz = NULL;
	size_t gz_len = 0;
	FILE *f = open_memstream(&gz, &gz_len);
	z_stream zs = { 0 };

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		char fn[32], cmd[64];
		struct profile_frame_in fr[2] = { { .name = "main" }, { .name = fn } };
		struct profile_stack_in s = { fr, 2, i + 1, PROFILE_KIND_ONCPU, 100 + i % nc,
					      1000 + i, comms[i % nc], NULL, NULL, NULL, NULL };

		snprintf(fn, sizeof(fn), "fn_%zu", i);
		snprintf(cmd, sizeof(cmd), "CMD-%s --password=hunter2", comms[i % nc]);
		s.cmdline = cmd;
		s.cgroup = cgs ? cgs[i % nc] : NULL;
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

static void make_pprof(const char *const *comms, size_t nc, size_t n, char **out, size_t *out_len)
{
	make_pprof_cg(comms, NULL, nc, n, out, out_len);
}

/* Count the samples of a pprof: top-level field 2 keys (a sample is a LEN field). */
static size_t nr_samples(const uint8_t *p, size_t len)
{
	struct push_split sp;
	struct push_rules none = { .nr = 0 };
	size_t n = 0;

	assert_int_equal(push_groups(p, len, &none, "all", &sp), 0);
	for (size_t i = 0; i < sp.nr; i++)
		n += sp.g[i].nr;
	push_split_free(&sp);
	return n;
}

/* Top-level fields numbered @field in a pprof (5: functions, 4: locations). */
static size_t nr_fields(const uint8_t *p, size_t len, uint32_t field)
{
	const uint8_t *end = p + len;
	struct span s;
	uint32_t f;
	unsigned w;
	uint64_t v;
	size_t n = 0;

	while (p < end && !push_pb_next(&p, end, &f, &w, &s, &v))
		n += f == field;
	return n;
}

static bool has_bytes(const void *hay, size_t n, const char *needle)
{
	return memmem(hay, n, needle, strlen(needle)) != NULL;
}

static void a_pprof_splits_by_service_and_loses_no_sample(void **state)
{
	static const char *const comms[] = { "postgres", "nginx", "bash", "postgres: wal" };
	struct push_rules r;
	struct push_split sp;
	struct pb_buf out;
	char *pb, err[64];
	size_t len, total = 0;
	uint64_t capped = 0;

	(void)state;
	make_pprof(comms, 4, 40, &pb, &len);
	assert_int_equal(nr_samples((uint8_t *)pb, len), 40);
	assert_int_equal(push_rules_parse("postgres*=db", &r, err, sizeof(err)), 0);
	assert_int_equal(push_groups(pb, len, &r, NULL, &sp), 0);
	/* sorted by name: the order a retry sees again */
	assert_int_equal(sp.nr, 3);
	assert_string_equal(sp.g[0].service, "bash");
	assert_string_equal(sp.g[1].service, "db");
	assert_string_equal(sp.g[2].service, "nginx");
	assert_int_equal(sp.g[0].nr, 10);
	assert_int_equal(sp.g[1].nr, 20);
	assert_int_equal(sp.g[2].nr, 10);
	pb_buf__init(&out);
	for (size_t i = 0; i < sp.nr; i++) {
		struct push_split h;

		pb_buf__reset(&out);
		assert_int_equal(push_group_encode(pb, len, &sp, i, PUSH_LABELS_DEFAULT, &out,
						   &capped), 0);
		/* only its own tables: main and one fn_i per stack */
		assert_int_equal(nr_fields(out.data, out.len, 5), 1 + sp.g[i].nr);
		assert_int_equal(nr_fields(out.data, out.len, 4), 1 + sp.g[i].nr);
		assert_int_equal(nr_fields(out.data, out.len, 6), nr_fields((uint8_t *)pb, len, 6));
		/* re-split: one group, the same service, the same samples */
		assert_int_equal(push_groups(out.data, out.len, &r, NULL, &h), 0);
		assert_int_equal(h.nr, 1);
		assert_string_equal(h.g[0].service, sp.g[i].service);
		assert_int_equal(h.g[0].nr, sp.g[i].nr);
		total += h.g[0].nr;
		push_split_free(&h);
	}
	assert_int_equal(total, 40);
	assert_int_equal(capped, 0);
	pb_buf__release(&out);
	push_split_free(&sp);
	/* a fallback service takes every process no rule names */
	assert_int_equal(push_groups(pb, len, &r, "fleet", &sp), 0);
	assert_int_equal(sp.nr, 2);
	assert_string_equal(sp.g[0].service, "db");
	assert_string_equal(sp.g[1].service, "fleet");
	push_split_free(&sp);
	push_rules_free(&r);
	free(pb);
}

static void series_split_by_container_and_unit(void **state)
{
	static const char *const comms[] = { "nginx", "nginx", "nginx", "redis" };
	static const char *const cgs[] = {
		"/system.slice/docker-" ID64 ".scope",
		"/system.slice/docker-" ID64 ".scope",
		"/system.slice/nginx.service",
		"/system.slice/redis.service",
	};
	struct push_rules r;
	struct push_split sp;
	char *pb, err[64];
	size_t len;

	(void)state;
	make_pprof_cg(comms, cgs, 4, 40, &pb, &len);
	assert_int_equal(push_rules_parse("cgroup:/system.slice/redis*=cache", &r, err,
					  sizeof(err)), 0);
	assert_int_equal(push_groups(pb, len, &r, NULL, &sp), 0);
	assert_int_equal(sp.nr, 3);
	assert_string_equal(sp.g[0].service, "cache");
	assert_string_equal(sp.g[0].unit, "redis.service");
	assert_string_equal(sp.g[1].service, "nginx");
	assert_string_equal(sp.g[1].container, "");
	assert_string_equal(sp.g[1].unit, "nginx.service");
	assert_string_equal(sp.g[2].service, "nginx");
	assert_string_equal(sp.g[2].container, ID64);
	assert_int_equal(sp.g[0].nr + sp.g[1].nr + sp.g[2].nr, 40);
	assert_int_equal(sp.g[2].nr, 20);
	push_split_free(&sp);
	push_rules_free(&r);
	free(pb);
}

static void pushed_labels_are_filtered_bounded_and_secrets_blanked(void **state)
{
	static const char *const comms[] = { "app" };
	struct push_rules none = { .nr = 0 };
	struct push_split sp;
	struct pb_buf out;
	uint64_t capped = 0;
	char *pb;
	size_t len;

	(void)state;
	/* 100 stacks, 100 threads of one process */
	make_pprof_cg(comms, NULL, 1, 100, &pb, &len);
	assert_true(has_bytes(pb, len, "hunter2"));
	assert_int_equal(push_groups(pb, len, &none, NULL, &sp), 0);
	assert_int_equal(sp.nr, 1);
	pb_buf__init(&out);
	/* default: no tid, no pid, no cmdline label; the command line not in the strings */
	assert_int_equal(push_group_encode(pb, len, &sp, 0, PUSH_LABELS_DEFAULT, &out, &capped), 0);
	assert_int_equal(capped, 0);
	assert_false(has_bytes(out.data, out.len, "hunter2"));
	assert_true(has_bytes(out.data, out.len, "fn_99"));	/* the rest of the table kept */
	{
		struct push_split h;

		assert_int_equal(push_groups(out.data, out.len, &none, NULL, &h), 0);
		assert_int_equal(h.nr, 1);
		assert_int_equal(h.g[0].nr, 100);
		push_split_free(&h);
	}
	/* negative control: the same bytes with tid asked for carry 64 distinct tids at most */
	pb_buf__reset(&out);
	assert_int_equal(push_group_encode(pb, len, &sp, 0,
					   PUSH_LABELS_DEFAULT | (1u << PUSH_L_TID) |
						   (1u << PUSH_L_CMDLINE), &out, &capped), 0);
	assert_int_equal(capped, 100 - PUSH_MAX_LABEL_VALUES);
	assert_true(has_bytes(out.data, out.len, "hunter2"));	/* asked for: sent */
	pb_buf__release(&out);
	push_split_free(&sp);
	free(pb);
}

static void too_many_services_end_in_other(void **state)
{
	const char *comms[PUSH_MAX_GROUPS + 10];
	char names[PUSH_MAX_GROUPS + 10][16];
	struct push_rules none = { .nr = 0 };
	struct push_split sp;
	char *pb;
	size_t len, n = 0;

	(void)state;
	for (size_t i = 0; i < PUSH_MAX_GROUPS + 10; i++) {
		snprintf(names[i], sizeof(names[i]), "p%03zu", i);
		comms[i] = names[i];
	}
	make_pprof(comms, PUSH_MAX_GROUPS + 10, PUSH_MAX_GROUPS + 10, &pb, &len);
	assert_int_equal(push_groups(pb, len, &none, NULL, &sp), 0);
	assert_int_equal(sp.nr, PUSH_MAX_GROUPS);
	for (size_t i = 0; i < sp.nr; i++)
		n += sp.g[i].nr;
	assert_int_equal(n, PUSH_MAX_GROUPS + 10);
	assert_string_equal(sp.g[sp.nr - 1].service, "p254");	/* sorted: "other" before "p..." */
	push_split_free(&sp);
	free(pb);
}

static void garbage_is_refused(void **state)
{
	static const uint8_t bad[] = { 0x12, 0x80 };	/* field 2, LEN, truncated varint */
	static const uint8_t long_len[] = { 0x12, 0x05, 0x01 };
	struct push_rules none = { .nr = 0 };
	struct push_split sp;

	(void)state;
	assert_int_equal(push_groups(bad, sizeof(bad), &none, NULL, &sp), -EINVAL);
	assert_int_equal(push_groups(long_len, sizeof(long_len), &none, NULL, &sp), -EINVAL);
	assert_int_equal(push_groups(NULL, 0, &none, NULL, &sp), 0);
	assert_int_equal(sp.nr, 0);
	push_split_free(&sp);
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
		cmocka_unit_test(rules_match_command_lines_and_cgroups),
		cmocka_unit_test(containers_and_units_come_from_the_cgroup),
		cmocka_unit_test(the_url_names_the_container_and_unit),
		cmocka_unit_test(sample_type_config_names_each_kind),
		cmocka_unit_test(push_labels_parse_names_and_refuses_others),
		cmocka_unit_test(series_split_by_container_and_unit),
		cmocka_unit_test(pushed_labels_are_filtered_bounded_and_secrets_blanked),
		cmocka_unit_test(a_pprof_splits_by_service_and_loses_no_sample),
		cmocka_unit_test(too_many_services_end_in_other),
		cmocka_unit_test(garbage_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
