// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The web view (see http.h): libmicrohttpd with a thread per connection,
 * bounded in connections, time and memory; requests routed here.
 *
 * Locking: the store has its own lock (src.store_mu), which the agent's
 * writer thread holds while it admits an interval; a request takes it to
 * list or read one file or to print the index, never across a whole merged
 * view. @mu guards the metrics, which the collection thread refreshes
 * (http__lock), and the live interval below: the collection thread never
 * waits for the disk. The interval in progress lives in the session, which only the
 * collection thread may touch: a request asks for it through @live_want and
 * waits on @live_cv, and http__poll(), between the collection thread's ring
 * polls, fills it under @mu. @heavy lets one merged view run at a time.
 */
#include "agent/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>	/* types and constants: the functions come through mhd */

#include "agent/http_args.h"
#include "agent/http_auth.h"
#include "agent/http_cache.h"
#include "agent/mhd_dl.h"
#include "agent/timeline.h"
#include "agent/view.h"
#include "util/parse.h"
#include "output/pprof.h"
#include "output/svg.h"
#include "util/clock.h"
#include "util/log.h"

/* Limits (docs/agent.md, "Web view"): a busy or hostile client cannot take it all. */
#define HTTP_MAX_CONNS		64	/* threads, one per connection */
#define HTTP_MAX_CONNS_PER_IP	16	/* a browser opens about 6 */
#define HTTP_IDLE_TIMEOUT_S	10	/* a connection silent this long is closed */
#define HTTP_CONN_MEMORY	(32u << 10)	/* request line and headers */
#define HTTP_HEAVY_WAIT_S	5	/* for the merged-view slot, then 503 */
#define HTTP_LIVE_WAIT_MS	1000	/* for the interval in progress, then 503 */
#define HTTP_MAX_SECONDS	86400	/* /debug/pprof/profile */
#define HTTP_THREAD_NICE	10	/* added to the agent's own nice value */
#define HTTP_TIMELINE_BYTES	(32u << 20)	/* folded text one /timeline.json reads */

struct http {
	struct MHD_Daemon *d;
	struct http_source src;
	char *token;			/* NULL: no authentication */
	pthread_mutex_t mu;		/* the metrics and the live interval (above) */
	pthread_cond_t live_cv;
	struct profile *live_want;	/* a request waiting for the live interval */
	int live_err;
	bool live_done, stopping;
	pthread_mutex_t heavy;		/* one merged view at a time; @memo */
	struct timeline_memo memo;	/* totals per stored file (timeline.h) */
	struct http_cache cache;	/* merged views, until the history changes */
};

struct reply {
	char *buf;
	size_t len;
	FILE *f;
	unsigned int status;
	const char *type;
	char note[96];			/* X-Hotcold-Window: what a merged view read */
	char type_buf[48];		/* @type of an answer from the cache */
	bool cached;
};

static void fail(struct reply *r, unsigned int status, const char *why)
{
	rewind(r->f);
	r->status = status;
	r->type = "text/plain";
	fprintf(r->f, "%s\n", why);
}

/* Both expressions compile, checked before any work; else a 400 saying which. */
static bool filters_ok(const struct filters *fl, struct reply *r)
{
	const char *bad = NULL;
	regex_t rx;

	if (fl->re && !view_regcomp(&rx, fl->re))
		regfree(&rx);
	else if (fl->re)
		bad = "p";
	if (!bad && fl->th && !view_regcomp(&rx, fl->th))
		regfree(&rx);
	else if (!bad && fl->th)
		bad = "th";
	if (!bad)
		return true;
	rewind(r->f);
	r->status = MHD_HTTP_BAD_REQUEST;
	r->type = "text/plain";
	fprintf(r->f, "bad %s= expression /%s/: a POSIX extended regular expression, "
		"without back-references\n", bad, !strcmp(bad, "p") ? fl->re : fl->th);
	return false;
}

/* @p filtered by @re in place of itself. 0 or -errno (-EINVAL: a bad expression). */
static int filter_in_place(struct profile **p, const char *re)
{
	struct profile *f;
	int err;

	if (!re)
		return 0;
	err = view_filter_root(*p, re, &f);
	if (err)
		return err;
	profile__free(*p);
	*p = f;
	return 0;
}

/* Wait for the merged-view slot; false (and a 503) when it stays busy. */
static bool heavy_enter(struct http *h, struct reply *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += HTTP_HEAVY_WAIT_S;
	if (!pthread_mutex_timedlock(&h->heavy, &ts))
		return true;
	fail(r, MHD_HTTP_SERVICE_UNAVAILABLE, "busy with another merged view; retry");
	return false;
}

static void note_window(struct reply *r, const struct view_stats *vs)
{
	snprintf(r->note, sizeof(r->note), "%zu of %zu intervals%s", vs->read, vs->intervals,
		 vs->truncated ? " (newest only: size limit)" : "");
}

/* What the history is now: changes with every interval written or deleted. */
static void history_gen(struct http *h, char *buf, size_t len)
{
	const struct store *st = h->src.st;
	size_t nr;

	pthread_mutex_lock(h->src.store_mu);
	nr = store__nr(st);
	snprintf(buf, len, "%zu %s %s", nr, nr ? store__get(st, 0)->stamp : "",
		 nr ? store__get(st, nr - 1)->stamp : "");
	pthread_mutex_unlock(h->src.store_mu);
}

/* The merged view @key from the cache into @r; false if it is not there. */
static bool from_cache(struct http *h, const char *key, const char *gen, struct reply *r)
{
	char *body;
	size_t len;

	if (!http_cache_get(&h->cache, key, gen, clock_unix_ms(), &body, &len, r->type_buf,
			    sizeof(r->type_buf), r->note, sizeof(r->note)))
		return false;
	fwrite(body, 1, len, r->f);
	free(body);
	r->type = r->type_buf;
	r->cached = true;
	return true;
}

static void to_cache(struct http *h, const char *key, const char *gen, struct reply *r)
{
	if (r->status == MHD_HTTP_OK && !fflush(r->f) && !ferror(r->f))
		http_cache_put(&h->cache, key, gen, clock_unix_ms(), r->buf, r->len, r->type,
			       r->note);
}

/* The subtitle of a merged view: what it read and how it was filtered. */
static void merged_subtitle(const struct view_window *w, const struct view_stats *vs,
			    const struct filters *fl, char *buf, size_t len)
{
	int n;

	if (w->from && strcmp(w->from, w->to))
		n = snprintf(buf, len, "%s to %s", w->from, w->to);
	else if (w->from)
		n = snprintf(buf, len, "%s", w->from);
	else
		n = snprintf(buf, len, "the last %lld minutes",
			     (long long)((w->to_ms - w->from_ms) / 60000));
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, ": %zu of %zu intervals%s", vs->read,
			      vs->intervals, vs->truncated ? " (newest only: size limit)" : "");
	if (fl->re && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; processes matching /%s/", fl->re);
	if (fl->th && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; threads matching /%s/", fl->th);
	/* left out of every thread view: said, not silently */
	if (fl->th && vs->unnamed && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (%llu stacks without a thread name left out)",
			 (unsigned long long)vs->unnamed);
}

/*
 * Load @w (of @kind, filtered by @fl: threads from the stored pprofs, see
 * view.h) into *@p. 0 or -errno.
 */
static int load_window(struct http *h, int kind, const struct view_window *w,
		       const struct filters *fl, struct profile **p, struct view_stats *vs)
{
	regex_t rx;
	int err = fl->th ? view_regcomp(&rx, fl->th) : 0;

	if (err)
		return err;
	profile__set_period_ns(*p, h->src.period_ns);
	err = view_load(h->src.st, h->src.store_mu, kind, w, fl->th ? &rx : NULL, *p, vs);
	if (fl->th)
		regfree(&rx);
	if (err >= 0)
		err = filter_in_place(p, fl->re);
	return err;
}

static void fail_err(struct reply *r, int err)
{
	fail(r, err == -EINVAL ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR,
	     err == -EINVAL ? "bad p= or th= expression" : strerror(-err));
}

static void serve_flame(struct http *h, struct MHD_Connection *c, const char *url,
			struct reply *r)
{
	struct view_window w;
	struct view_stats vs;
	struct range_buf rb;
	struct svg_opts so;
	struct profile *p = profile__new();
	char stamp[STORE_STAMP_LEN], sub[640], key[256], gen[96];
	int kind = http_arg_kind(c), err;
	struct filters fl = { 0 };
	bool ok = true;

	if (strcmp(url, "/flame")) {
		ok = http_path_args(url, stamp, sizeof(stamp), &kind);
		memset(&w, 0, sizeof(w));
		w.stamp = stamp;
	} else {
		ok = http_arg_window(c, "range", 0, &rb, &w) && http_arg_filter(c, &fl);
	}
	if (!p || kind < 0 || !ok) {
		fail(r, MHD_HTTP_BAD_REQUEST, "bad kind, t, range, minutes, p or th");
		profile__free(p);
		return;
	}
	if (!filters_ok(&fl, r)) {
		profile__free(p);
		return;
	}
	if (!w.stamp) {
		snprintf(key, sizeof(key), "flame %.8s %.8s %.50s %.60s %.60s",
			 http_arg(c, "kind") ? http_arg(c, "kind") : "", http_arg(c, "minutes") ? http_arg(c, "minutes") : "",
			 http_arg(c, "range") ? http_arg(c, "range") : "", fl.re ? fl.re : "",
			 fl.th ? fl.th : "");
		history_gen(h, gen, sizeof(gen));
		if (from_cache(h, key, gen, r) || !heavy_enter(h, r)) {
			profile__free(p);
			return;
		}
	}
	err = load_window(h, kind, &w, &fl, &p, &vs);
	note_window(r, &vs);
	svg_opts_init(&so);
	merged_subtitle(&w, &vs, &fl, sub, sizeof(sub));
	so.subtitle = w.stamp ? w.stamp : sub;
	if (err >= 0)
		err = svg_write(p, &so, r->f);
	if (err < 0)
		fail_err(r, err);
	r->type = err < 0 ? r->type : "image/svg+xml";
	if (!w.stamp) {
		/* a key cut short by its %.Ns would answer another view: not kept */
		if (strlen(fl.re ? fl.re : "") <= 60 && strlen(fl.th ? fl.th : "") <= 60 &&
		    strlen(http_arg(c, "range") ? http_arg(c, "range") : "") <= 50)
			to_cache(h, key, gen, r);
		pthread_mutex_unlock(&h->heavy);
	}
	profile__free(p);
}

/* An empty side makes a diff that says nothing: a 404 saying which (the page shows it). */
static bool diff_sides_hold(struct reply *r, const struct profile *a, const struct profile *b,
			    int kind, const struct filters *fl)
{
	const char *side = !profile__total(a, kind) ? "a" : !profile__total(b, kind) ? "b" : NULL;

	if (!side)
		return true;
	rewind(r->f);
	r->status = MHD_HTTP_NOT_FOUND;
	r->type = "text/plain";
	fprintf(r->f, "nothing to compare: range %s has no %s data%s\n", side,
		profile_kind_name(kind), fl->re || fl->th ? " of the filtered processes or threads" : "");
	return false;
}

static void serve_diff(struct http *h, struct MHD_Connection *c, struct reply *r)
{
	struct view_window wa, wb;
	struct view_stats va, vb;
	struct range_buf ra, rb;
	struct profile *a = profile__new(), *b = profile__new();
	const char *sa = http_arg(c, "a"), *sb = http_arg(c, "b");
	struct filters fl = { 0 };
	struct svg_opts so;
	char key[256], gen[96];
	int kind = http_arg_kind(c), err = -EINVAL;

	/* a=, b=: a stamp or a range each; else the minutes before vs the last minutes */
	if (a && b && kind >= 0 && http_arg_filter(c, &fl) && (sa || sb ?
	    sa && sb && http_arg_window(c, "a", 0, &ra, &wa) && http_arg_window(c, "b", 0, &rb, &wb) :
	    http_arg_window(c, "-", 1, &ra, &wa) && http_arg_window(c, "-", 0, &rb, &wb)))
		err = 0;
	if (err || (sa && strlen(sa) > 50) || (sb && strlen(sb) > 50) ||
	    (fl.re && strlen(fl.re) > 60) || (fl.th && strlen(fl.th) > 60)) {
		fail(r, MHD_HTTP_BAD_REQUEST, "bad kind, a/b, minutes, p or th");
		goto out;
	}
	if (!filters_ok(&fl, r))
		goto out;
	snprintf(key, sizeof(key), "diff %.8s %.8s %s %s %s %s",
		 http_arg(c, "kind") ? http_arg(c, "kind") : "", http_arg(c, "minutes") ? http_arg(c, "minutes") : "",
		 sa ? sa : "", sb ? sb : "", fl.re ? fl.re : "", fl.th ? fl.th : "");
	history_gen(h, gen, sizeof(gen));
	if (from_cache(h, key, gen, r) || !heavy_enter(h, r))
		goto out;
	err = load_window(h, kind, &wa, &fl, &a, &va);
	if (err >= 0)
		err = load_window(h, kind, &wb, &fl, &b, &vb);
	if (err >= 0)
		note_window(r, &vb);
	svg_opts_init(&so);
	so.title = "Differential Flame Graph";
	if (err >= 0 && diff_sides_hold(r, a, b, kind, &fl))
		err = svg_write_diff(a, b, &so, r->f);
	if (err < 0)
		fail_err(r, err);
	else if (r->status == MHD_HTTP_OK)
		r->type = "image/svg+xml";
	to_cache(h, key, gen, r);
	pthread_mutex_unlock(&h->heavy);
out:
	profile__free(a);
	profile__free(b);
}

/* Per interval and kind the stored totals (timeline.h), for the index page's timeline. */
static void serve_timeline(struct http *h, struct reply *r)
{
	struct timeline_row *rows = NULL;
	size_t nr = 0;
	bool complete;
	int err;

	if (!heavy_enter(h, r))	/* the memo is one request's at a time */
		return;
	err = timeline_rows(h->src.st, h->src.store_mu, &h->memo, HTTP_TIMELINE_BYTES, &rows, &nr,
			    &complete);
	pthread_mutex_unlock(&h->heavy);
	if (!err)
		err = timeline_write_json(rows, nr, h->src.period_ns, complete, r->f);
	free(rows);
	if (err)
		fail(r, MHD_HTTP_INTERNAL_SERVER_ERROR, strerror(-err));
	else
		r->type = "application/json";
}

/* A stored file as it is: interval ?t=, @kind (or ?kind=, default oncpu), @fmt. */
static void serve_stored(struct http *h, struct MHD_Connection *c, struct reply *r,
			 const char *kind, enum store_format fmt, const char *type)
{
	const struct store_interval *iv = NULL;
	const char *t = http_arg(c, "t"), *k = kind ? kind : http_arg(c, "kind");
	char *data = NULL;
	size_t len;
	int err = -ENOENT;

	pthread_mutex_lock(h->src.store_mu);
	if (t)
		iv = store__find(h->src.st, t);
	for (size_t j = 0; iv && j < iv->nr_files; j++) {
		if (iv->files[j].format != fmt || strcmp(iv->files[j].kind, k ? k : "oncpu"))
			continue;
		err = store__read(h->src.st, iv->files[j].name, false, &data, &len);
		break;
	}
	pthread_mutex_unlock(h->src.store_mu);
	if (err) {
		fail(r, MHD_HTTP_NOT_FOUND, "no such interval or kind");
		return;
	}
	fwrite(data, 1, len, r->f);
	free(data);
	r->type = type;
}

/* The interval in progress into @p, from the collection thread (see the top). */
static int live_fetch(struct http *h, struct profile *p)
{
	struct timespec ts;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += HTTP_LIVE_WAIT_MS % 1000 * 1000000L;
	ts.tv_sec += HTTP_LIVE_WAIT_MS / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&h->mu);
	h->live_want = p;
	h->live_done = false;
	while (!h->live_done && !h->stopping && !err)
		err = pthread_cond_timedwait(&h->live_cv, &h->mu, &ts);
	err = h->live_done ? h->live_err : -ETIMEDOUT;
	h->live_want = NULL;
	pthread_mutex_unlock(&h->mu);
	return err;
}

/* go tool pprof: the history of the last N seconds plus the interval in progress. */
static void serve_debug_pprof(struct http *h, struct MHD_Connection *c, struct reply *r)
{
	const char *s = http_arg(c, "seconds");
	struct profile *p = profile__new();
	struct view_window w = { 0 };
	struct view_stats vs;
	uint64_t sec = 30;
	int err = p ? 0 : -ENOMEM;

	if (!err && s && parse_u64(s, 1, HTTP_MAX_SECONDS, &sec))
		err = -EINVAL;
	if (err) {
		fail(r, err == -EINVAL ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR,
		     strerror(-err));
		profile__free(p);
		return;
	}
	if (!heavy_enter(h, r)) {
		profile__free(p);
		return;
	}
	w.to_ms = clock_unix_ms() + 1;
	w.from_ms = w.to_ms - (int64_t)sec * 1000;
	profile__set_period_ns(p, h->src.period_ns);
	err = view_load(h->src.st, h->src.store_mu, -1, &w, NULL, p, &vs);
	note_window(r, &vs);
	if (err >= 0)
		err = live_fetch(h, p);
	if (!err)
		err = pprof_write(p, r->f);
	pthread_mutex_unlock(&h->heavy);
	if (err)
		fail(r, err == -ETIMEDOUT ? MHD_HTTP_SERVICE_UNAVAILABLE :
		     MHD_HTTP_INTERNAL_SERVER_ERROR, strerror(-err));
	else
		r->type = "application/octet-stream";
	profile__free(p);
}

static void route(struct http *h, struct MHD_Connection *c, const char *url, struct reply *r)
{
	if (!strcmp(url, "/")) {
		r->type = "text/html; charset=utf-8";
		pthread_mutex_lock(h->src.store_mu);
		view_index(h->src.st, r->f);
		pthread_mutex_unlock(h->src.store_mu);
	} else if (!strcmp(url, "/flame") || !strncmp(url, "/flame/", 7)) {
		serve_flame(h, c, url, r);
	} else if (!strcmp(url, "/timeline.json")) {
		serve_timeline(h, r);
	} else if (!strcmp(url, "/diff")) {
		serve_diff(h, c, r);
	} else if (!strcmp(url, "/pprof")) {
		serve_stored(h, c, r, NULL, STORE_PPROF, "application/octet-stream");
	} else if (!strcmp(url, "/counters")) {
		serve_stored(h, c, r, "counters", STORE_JSON, "application/json");
	} else if (!strcmp(url, "/metrics")) {
		r->type = "text/plain; version=0.0.4";
		pthread_mutex_lock(&h->mu);
		metrics_write_prometheus(h->src.m, r->f);
		pthread_mutex_unlock(&h->mu);
	} else if (!strcmp(url, "/debug/pprof/profile")) {
		serve_debug_pprof(h, c, r);
	} else {
		fail(r, MHD_HTTP_NOT_FOUND, "not found");
	}
}

static bool authorized(struct http *h, struct MHD_Connection *c)
{
	const char *authz;
	char *user, *pass = NULL;
	bool ok;

	if (!h->token)
		return true;
	authz = mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	user = mhd.basic_auth_get_username_password(c, &pass);
	ok = http_token_ok(h->token, authz, pass);
	mhd.free(user);
	mhd.free(pass);
	return ok;
}

static enum MHD_Result queue_reply(struct MHD_Connection *c, struct reply *r, bool challenge)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = mhd.create_response_from_buffer(r->len, r->buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(r->buf);
		return MHD_NO;
	}
	mhd.add_response_header(resp, "Content-Type", r->type);
	mhd.add_response_header(resp, "Cache-Control", "no-store");
	if (r->note[0])
		mhd.add_response_header(resp, "X-Hotcold-Window", r->note);
	if (r->cached)
		mhd.add_response_header(resp, "X-Hotcold-Cache", "hit");
	if (r->status == MHD_HTTP_SERVICE_UNAVAILABLE)
		mhd.add_response_header(resp, "Retry-After", "2");
	if (challenge)
		mhd.add_response_header(resp, "WWW-Authenticate", "Basic realm=\"hotcold\"");
	ret = mhd.queue_response(c, r->status, resp);
	mhd.destroy_response(resp);
	return ret;
}

/*
 * Connection threads run 10 nice levels lower (Linux: nice is per thread), so a flood
 * of requests takes the CPU the collection thread leaves, not its share.
 */
static void yield_to_collection(void)
{
	static __thread bool done;

	if (!done) {
		int nice = getpriority(PRIO_PROCESS, (id_t)gettid()) + HTTP_THREAD_NICE;

		setpriority(PRIO_PROCESS, (id_t)gettid(), nice > 19 ? 19 : nice);
		done = true;
	}
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct reply r = { .status = MHD_HTTP_OK, .type = "text/plain" };
	struct http *h = cls;
	bool denied;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return MHD_NO;
	yield_to_collection();
	r.f = open_memstream(&r.buf, &r.len);
	if (!r.f)
		return MHD_NO;
	denied = !authorized(h, c);
	if (denied)
		fail(&r, MHD_HTTP_UNAUTHORIZED, "unauthorized");
	else
		route(h, c, url, &r);
	if (fclose(r.f)) {
		free(r.buf);
		return MHD_NO;
	}
	return queue_reply(c, &r, denied);
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

/* libmicrohttpd's own messages (a malformed request, a refused connection): debug only. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[256];
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	pr_debug("http: %s\n", buf);
}

static void warn_exposed(const char *addr_port, bool has_token)
{
	pr_warn("agent: WARNING: the web view listens on '%s', which is not a loopback "
		"address: every host that can reach it can read the profiles (process names, "
		"function names, command lines)%s\n", addr_port,
		has_token ? "; a token is required (--http-token-file)" :
		" WITHOUT AUTHENTICATION: set --http-token-file, or bind 127.0.0.1");
}

static int http_init(struct http *h, const struct http_source *src)
{
	int err;

	h->src = *src;
	err = -pthread_mutex_init(&h->mu, NULL);
	if (!err)
		err = -pthread_mutex_init(&h->heavy, NULL);
	if (!err)
		err = -pthread_cond_init(&h->live_cv, NULL);
	if (!err)
		err = http_cache_init(&h->cache);
	if (!err && src->token_file)
		err = http_token_read(src->token_file, &h->token);
	return err;
}

static void http_free(struct http *h)
{
	http_cache_release(&h->cache);
	timeline_memo_release(&h->memo);
	pthread_cond_destroy(&h->live_cv);
	pthread_mutex_destroy(&h->heavy);
	pthread_mutex_destroy(&h->mu);
	if (h->token)
		explicit_bzero(h->token, strlen(h->token));
	free(h->token);
	free(h);
}

int http__start(struct http **out, const char *addr_port, const struct http_source *src)
{
	struct sockaddr_storage ss;
	struct http *h;
	unsigned int flags = MHD_USE_ERROR_LOG | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
	int err = parse_addr(addr_port, &ss);

	if (err) {
		pr_warn("agent: invalid --http address '%s': expected ADDR:PORT\n", addr_port);
		return err;
	}
	/* missing: -ENOENT, exit 1 as when the address cannot be bound, not a usage error */
	err = mhd_dl_load();
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	err = http_init(h, src);
	if (err) {
		http_free(h);
		return err;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* the logger first: options before it would log through MHD's own (stderr) */
	h->d = mhd.start_daemon(flags, 0, NULL, NULL, on_request, h,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_SOCK_ADDR, &ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				(unsigned int)HTTP_MAX_CONNS_PER_IP,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_IDLE_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONN_MEMORY,
				MHD_OPTION_END);
	if (!h->d) {
		err = errno ? -errno : -EADDRINUSE;
		pr_warn("agent: cannot listen on '%s': %s\n", addr_port, strerror(-err));
		http_free(h);
		return err;
	}
	if (!http_addr_is_loopback(&ss))
		warn_exposed(addr_port, h->token);
	pr_info("agent: web view on http://%s/%s\n", addr_port,
		h->token ? " (token required)" : "");
	*out = h;
	return 0;
}

void http__poll(struct http *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	if (h->live_want && !h->live_done) {
		h->live_err = h->src.live(h->live_want, h->src.live_arg);
		h->live_done = true;
		pthread_cond_broadcast(&h->live_cv);
	}
	pthread_mutex_unlock(&h->mu);
}

void http__lock(struct http *h)
{
	if (h)
		pthread_mutex_lock(&h->mu);
}

void http__unlock(struct http *h)
{
	if (h)
		pthread_mutex_unlock(&h->mu);
}

void http__stop(struct http *h)
{
	if (!h)
		return;
	/* a request waiting for the live interval gives up now: nobody will serve it */
	pthread_mutex_lock(&h->mu);
	h->stopping = true;
	pthread_cond_broadcast(&h->live_cv);
	pthread_mutex_unlock(&h->mu);
	mhd.stop_daemon(h->d);	/* joins the connection threads */
	http_free(h);
}
