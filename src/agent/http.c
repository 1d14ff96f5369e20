// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Routing the web view's requests (libmicrohttpd, external polling; see http.h). */
#include "agent/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "agent/view.h"
#include "cli/parse.h"
#include "output/pprof.h"
#include "output/svg.h"
#include "util/clock.h"
#include "util/log.h"

struct http {
	struct MHD_Daemon *d;
	struct http_source src;
};

struct reply {
	char *buf;
	size_t len;
	FILE *f;
	unsigned int status;
	const char *type;
};

static const char *arg(struct MHD_Connection *c, const char *key)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

static void fail(struct reply *r, unsigned int status, const char *why)
{
	rewind(r->f);
	r->status = status;
	r->type = "text/plain";
	fprintf(r->f, "%s\n", why);
}

/* kind=K (default oncpu); -1 on a bad name. */
static int arg_kind(struct MHD_Connection *c)
{
	const char *k = arg(c, "kind");
	enum profile_kind kind = PROFILE_KIND_ONCPU;

	if (k && profile_kind_parse(k, &kind))
		return -1;
	return kind;
}

/* t=STAMP or minutes=N (ending now, shifted back @back windows). false: bad arguments. */
static bool arg_window(struct MHD_Connection *c, int back, struct view_window *w)
{
	const char *t = arg(c, "t"), *m = arg(c, "minutes");
	uint64_t min;

	memset(w, 0, sizeof(*w));
	if (t) {
		w->stamp = t;
		return true;
	}
	if (parse_u64(m ? m : "10", 1, 525600, &min))
		return false;
	w->to_ms = clock_unix_ms() - back * (int64_t)min * 60000;
	w->from_ms = w->to_ms - (int64_t)min * 60000;
	return true;
}

/* "/flame/STAMP/KIND.svg": the same as ?t=STAMP&kind=KIND, leaving the query to ?s= */
static bool path_args(const char *url, char *stamp, size_t len, int *kind)
{
	char k[16];
	enum profile_kind pk;

	if (sscanf(url, "/flame/%23[0-9TZ.]/%15[a-z].svg", stamp, k) != 2 ||
	    profile_kind_parse(k, &pk))
		return false;
	*kind = pk;
	(void)len;
	return true;
}

static void serve_flame(struct http *h, struct MHD_Connection *c, const char *url,
			struct reply *r)
{
	struct view_window w;
	struct svg_opts so;
	struct profile *p = profile__new();
	char stamp[STORE_STAMP_LEN];
	int kind = arg_kind(c), err;
	bool ok = true;

	if (strcmp(url, "/flame")) {
		ok = path_args(url, stamp, sizeof(stamp), &kind);
		memset(&w, 0, sizeof(w));
		w.stamp = stamp;
	} else {
		ok = arg_window(c, 0, &w);
	}
	if (!p || kind < 0 || !ok) {
		fail(r, MHD_HTTP_BAD_REQUEST, "bad kind, t or minutes");
		profile__free(p);
		return;
	}
	profile__set_period_ns(p, h->src.period_ns);
	err = view_load(h->src.st, kind, &w, p);
	svg_opts_init(&so);
	so.subtitle = w.stamp ? w.stamp : "merged window";
	if (err >= 0)
		err = svg_write(p, &so, r->f);
	if (err < 0)
		fail(r, MHD_HTTP_INTERNAL_SERVER_ERROR, strerror(-err));
	r->type = err < 0 ? r->type : "image/svg+xml";
	profile__free(p);
}

static void serve_diff(struct http *h, struct MHD_Connection *c, struct reply *r)
{
	struct view_window wa, wb;
	struct profile *a = profile__new(), *b = profile__new();
	const char *sa = arg(c, "a"), *sb = arg(c, "b");
	struct svg_opts so;
	int kind = arg_kind(c), err = -EINVAL;

	if (a && b && kind >= 0 && sa && sb) {
		wa = (struct view_window){ .stamp = sa };
		wb = (struct view_window){ .stamp = sb };
		err = 0;
	} else if (a && b && kind >= 0 && arg_window(c, 1, &wa) && arg_window(c, 0, &wb)) {
		err = 0;
	}
	if (err) {
		fail(r, MHD_HTTP_BAD_REQUEST, "bad kind, a/b or minutes");
		goto out;
	}
	err = view_load(h->src.st, kind, &wa, a);
	if (err >= 0)
		err = view_load(h->src.st, kind, &wb, b);
	svg_opts_init(&so);
	so.title = "Differential Flame Graph";
	if (err >= 0)
		err = svg_write_diff(a, b, &so, r->f);
	if (err < 0)
		fail(r, MHD_HTTP_INTERNAL_SERVER_ERROR, strerror(-err));
	else
		r->type = "image/svg+xml";
out:
	profile__free(a);
	profile__free(b);
}

/* A stored file as it is: interval ?t=, @kind (or ?kind=, default oncpu), @fmt. */
static void serve_stored(struct http *h, struct MHD_Connection *c, struct reply *r,
			 const char *kind, enum store_format fmt, const char *type)
{
	const struct store_interval *iv = NULL;
	const char *t = arg(c, "t"), *k = kind ? kind : arg(c, "kind");
	char *data;
	size_t len;

	if (t)
		iv = store__find(h->src.st, t);
	for (size_t j = 0; iv && j < iv->nr_files; j++) {
		if (iv->files[j].format != fmt || strcmp(iv->files[j].kind, k ? k : "oncpu"))
			continue;
		if (store__read(h->src.st, iv->files[j].name, false, &data, &len))
			break;
		fwrite(data, 1, len, r->f);
		free(data);
		r->type = type;
		return;
	}
	fail(r, MHD_HTTP_NOT_FOUND, "no such interval or kind");
}

/* go tool pprof: the history of the last N seconds plus the interval in progress. */
static void serve_debug_pprof(struct http *h, struct MHD_Connection *c, struct reply *r)
{
	const char *s = arg(c, "seconds");
	struct profile *p = profile__new();
	struct view_window w = { 0 };
	uint64_t sec = 30;
	int err = p ? 0 : -ENOMEM;

	if (!err && s && parse_u64(s, 1, 31536000, &sec))
		err = -EINVAL;
	if (!err) {
		w.to_ms = clock_unix_ms() + 1;
		w.from_ms = w.to_ms - (int64_t)sec * 1000;
		profile__set_period_ns(p, h->src.period_ns);
		err = view_load(h->src.st, -1, &w, p);
	}
	if (err >= 0)
		err = h->src.live(p, h->src.live_arg);
	if (!err)
		err = pprof_write(p, r->f);
	if (err)
		fail(r, err == -EINVAL ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR,
		     strerror(-err));
	else
		r->type = "application/octet-stream";
	profile__free(p);
}

static void route(struct http *h, struct MHD_Connection *c, const char *url, struct reply *r)
{
	if (!strcmp(url, "/")) {
		r->type = "text/html; charset=utf-8";
		view_index(h->src.st, r->f);
	} else if (!strcmp(url, "/flame") || !strncmp(url, "/flame/", 7)) {
		serve_flame(h, c, url, r);
	} else if (!strcmp(url, "/diff")) {
		serve_diff(h, c, r);
	} else if (!strcmp(url, "/pprof")) {
		serve_stored(h, c, r, NULL, STORE_PPROF, "application/octet-stream");
	} else if (!strcmp(url, "/counters")) {
		serve_stored(h, c, r, "counters", STORE_JSON, "application/json");
	} else if (!strcmp(url, "/metrics")) {
		r->type = "text/plain; version=0.0.4";
		metrics_write_prometheus(h->src.m, r->f);
	} else if (!strcmp(url, "/debug/pprof/profile")) {
		serve_debug_pprof(h, c, r);
	} else {
		fail(r, MHD_HTTP_NOT_FOUND, "not found");
	}
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct reply r = { .status = MHD_HTTP_OK, .type = "text/plain" };
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return MHD_NO;
	r.f = open_memstream(&r.buf, &r.len);
	if (!r.f)
		return MHD_NO;
	route(cls, c, url, &r);
	if (fclose(r.f)) {
		free(r.buf);
		return MHD_NO;
	}
	resp = MHD_create_response_from_buffer(r.len, r.buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(r.buf);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", r.type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	ret = MHD_queue_response(c, r.status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into @ss. */
static int parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(s, ':');
	char host[64];
	uint64_t port;
	size_t n;

	if (!colon || parse_u64(colon + 1, 1, 65535, &port))
		return -EINVAL;
	n = colon - s;
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		s++, n -= 2;
	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

int http__start(struct http **out, const char *addr_port, const struct http_source *src)
{
	struct sockaddr_storage ss;
	struct http *h;
	unsigned int flags = MHD_USE_ERROR_LOG;
	int err = parse_addr(addr_port, &ss);

	if (err) {
		pr_warn("agent: invalid --http address '%s': expected ADDR:PORT\n", addr_port);
		return err;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->src = *src;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* no internal thread: MHD_run() from the agent's loop (http.h) */
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &ss,
				MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_CONNECTION_TIMEOUT,
				10u, MHD_OPTION_END);
	if (!h->d) {
		err = errno ? -errno : -EADDRINUSE;
		pr_warn("agent: cannot listen on '%s': %s\n", addr_port, strerror(-err));
		free(h);
		return err;
	}
	pr_info("agent: web view on http://%s/\n", addr_port);
	*out = h;
	return 0;
}

void http__poll(struct http *h)
{
	MHD_run(h->d);
}

void http__stop(struct http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}
