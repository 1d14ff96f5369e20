// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pusher's thread: the queue of unacknowledged intervals, libcurl, the cursor (push.h). */
#include "agent/push.h"
#include "agent/store_int.h"

#include <curl/curl.h>	/* types and constants: the functions come through cu */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis/profile.h"
#include "output/protobuf.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/dynlib.h"
#include "util/log.h"
#include "util/version.h"

#define PUSH_URL_MAX 4096
#define PUSH_CURL_SO "libcurl.so.4"
#define PUSH_MAX_FILE (64u << 20)	/* a profile larger than this is not one of ours */

struct push_item {
	int64_t start_ms, end_ms;
	size_t nr;
	unsigned done;			/* bit i: f[i] acknowledged or given up */
	uint32_t next[PROFILE_KIND_NR];	/* f[i]'s services (sorted) before next[i] are done */
	struct {
		char name[STORE_NAME_LEN];
		char kind[STORE_KIND_LEN];
	} f[PROFILE_KIND_NR];
};

struct pusher {
	struct store *st;		/* only its directory fd (immutable) is used here */
	char *url, *service;		/* service: the fallback service_name or NULL (comm) */
	struct push_rules rules;
	unsigned keep_labels;		/* PUSH_L_* bits: sample labels pushed */
	char *auth;			/* "Authorization: Bearer ..." or NULL */
	char *userpwd;			/* "user:password" or NULL */
	char host[HOST_NAME_MAX + 1];
	uint64_t rate_hz, timeout_ms, flush_ns;
	CURL *curl;
	struct curl_slist *headers;

	pthread_t thread;
	bool started;
	pthread_mutex_t mu;		/* guards what follows */
	pthread_cond_t cv;
	struct push_item *q;		/* q[head..nr): oldest first */
	size_t head, nr, cap;
	bool stop;
	uint64_t deadline_ns;		/* at stop: the flush ends then */
	uint64_t retry_ns;		/* monotonic: no request before */
	unsigned attempt;
	uint64_t warned_status[15];	/* bit per status 100..999: logged once */
	struct push_stats stats;
};

/*
 * libcurl is opened only when pushing (as sym/dbgfetch.c opens libdebuginfod):
 * linked in, it and the ~25 libraries it needs (TLS, Kerberos, LDAP) cost the
 * always-on agent ~7 MiB of RSS and start-up relocations when nothing is pushed.
 */
static struct {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	void (*easy_cleanup)(CURL *h);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	curl_mime *(*mime_init)(CURL *h);
	curl_mimepart *(*mime_addpart)(curl_mime *m);
	CURLcode (*mime_name)(curl_mimepart *part, const char *name);
	CURLcode (*mime_filename)(curl_mimepart *part, const char *name);
	CURLcode (*mime_type)(curl_mimepart *part, const char *type);
	CURLcode (*mime_data)(curl_mimepart *part, const char *data, size_t len);
	void (*mime_free)(curl_mime *m);
} cu;

/* POSIX: a function pointer through a void * */
#define CU_SYM(f) { "curl_" #f, (void **)&cu.f }

static const struct dynlib_sym cu_syms[] = {
	CU_SYM(easy_init), CU_SYM(easy_setopt), CU_SYM(easy_perform), CU_SYM(easy_getinfo),
	CU_SYM(easy_strerror), CU_SYM(easy_cleanup), CU_SYM(slist_append),
	CU_SYM(slist_free_all), CU_SYM(mime_init), CU_SYM(mime_addpart), CU_SYM(mime_name),
	CU_SYM(mime_filename), CU_SYM(mime_type), CU_SYM(mime_data), CU_SYM(mime_free),
};

/* Called by pusher__start() only (the agent's thread). 0 or -ENOENT, said in one line. */
static int cu_load(void)
{
	char why[256];

	if (cu.easy_init)
		return 0;
	if (!dynlib_load(PUSH_CURL_SO, cu_syms, ARRAY_SIZE(cu_syms), why, sizeof(why)))
		return 0;
	pr_warn("agent: push: cannot load '%s' (Debian package libcurl4): %s\n", PUSH_CURL_SO, why);
	return -ENOENT;
}

static int read_secret(const char *path, char **out)
{
	char buf[4096];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		pr_warn("agent: push: cannot read '%s': %s\n", path, strerror(errno));
		return -errno;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* one line: the trailing newline an editor adds is not part of the secret */
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!*buf) {
		pr_warn("agent: push: '%s' is empty\n", path);
		return -EINVAL;
	}
	*out = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	return *out ? 0 : -ENOMEM;
}

/* Append an interval (under mu). */
static int queue_add(struct pusher *p, const struct store_interval *iv)
{
	struct push_item it = { .start_ms = iv->start_ms, .end_ms = iv->end_ms };

	for (size_t i = 0; i < iv->nr_files && it.nr < PROFILE_KIND_NR; i++) {
		if (iv->files[i].format != STORE_PPROF)
			continue;
		memcpy(it.f[it.nr].name, iv->files[i].name, STORE_NAME_LEN);
		memcpy(it.f[it.nr].kind, iv->files[i].kind, STORE_KIND_LEN);
		it.nr++;
	}
	if (p->head && p->head * 2 >= p->nr) {	/* compact: amortised O(1) */
		memmove(p->q, p->q + p->head, (p->nr - p->head) * sizeof(*p->q));
		p->nr -= p->head;
		p->head = 0;
	}
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct push_item *q = realloc(p->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		p->q = q;
		p->cap = cap;
	}
	p->q[p->nr++] = it;
	return 0;
}

static enum push_cause curl_cause(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return PUSH_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return PUSH_TIMEOUT;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		return PUSH_TLS;
	default:
		return PUSH_NETWORK;
	}
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *arg)
{
	return size * nmemb;
}

static int read_profile(struct pusher *p, const char *name, char **data, size_t *len)
{
	struct stat sb;
	int fd = store_open_file(p->st, name, &sb);
	ssize_t r;
	size_t n = 0;

	if (fd < 0)
		return fd;
	if ((uint64_t)sb.st_size > PUSH_MAX_FILE) {
		close(fd);
		return -EFBIG;
	}
	*data = malloc(sb.st_size ? sb.st_size : 1);
	if (!*data) {
		close(fd);
		return -ENOMEM;
	}
	while (n < (size_t)sb.st_size && (r = read(fd, *data + n, sb.st_size - n)) > 0)
		n += r;
	close(fd);
	if (n != (size_t)sb.st_size) {
		free(*data);
		return -EIO;
	}
	*len = n;
	return 0;
}

/* gunzip @in (or copy it if it is not gzip'd) into a malloc'd *@out. 0 or -errno. */
static int gunzip(const char *in, size_t len, char **out, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap = len * 4 + 1024;
	char *buf = malloc(cap), *n;
	int rc = Z_OK;

	if (!buf)
		return -ENOMEM;
	if (len < 2 || (unsigned char)in[0] != 0x1f || (unsigned char)in[1] != 0x8b) {
		memcpy(buf, in, len);
		*out = buf;
		*out_len = len;
		return 0;
	}
	if (inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = len;
	while (rc == Z_OK) {
		if (zs.total_out == cap) {
			if (cap >= 4 * (size_t)PUSH_MAX_FILE || !(n = realloc(buf, cap * 2))) {
				rc = Z_MEM_ERROR;
				break;
			}
			buf = n;
			cap *= 2;
		}
		zs.next_out = (Bytef *)buf + zs.total_out;
		zs.avail_out = cap - zs.total_out;
		rc = inflate(&zs, Z_NO_FLUSH);
	}
	*out_len = zs.total_out;
	inflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(buf);
		return rc == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	*out = buf;
	return 0;
}

/*
 * @in gzip'd into a malloc'd *@out (pprof is gzip'd on the wire as on disk:
 * Pyroscope and go tool pprof read both). 0 or -ENOMEM.
 */
static int gzip_buf(const void *in, size_t len, char **out, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap = deflateBound(&zs, len) + 64;
	char *buf = malloc(cap);
	int rc;

	/* level 1: the request is sent once, the bytes matter more than the ratio */
	if (!buf || deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = len;
	zs.next_out = (Bytef *)buf;
	zs.avail_out = cap;
	rc = deflate(&zs, Z_FINISH);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

/*
 * One request. 0: acknowledged; -EAGAIN: retry later; -EPROTO: dropped.
 * Called without mu; @budget_ms bounds it (the flush at stop).
 */
/* One named file of a multipart body. */
static void add_part(curl_mime *mime, const char *name, const char *file, const char *type,
		     const void *data, size_t len)
{
	curl_mimepart *part = cu.mime_addpart(mime);

	cu.mime_name(part, name);
	cu.mime_filename(part, file);
	cu.mime_type(part, type);
	cu.mime_data(part, data, len);
}

static int post(struct pusher *p, const char *url, const void *data, size_t len,
		const char *stc, const char *what, uint64_t budget_ms)
{
	uint64_t tmo = budget_ms < p->timeout_ms ? budget_ms : p->timeout_ms;
	enum push_cause cause;
	curl_mime *mime;
	long status = 0;
	CURLcode rc;

	mime = cu.mime_init(p->curl);
	add_part(mime, "profile", "profile.pprof", "application/octet-stream", data, len);
	add_part(mime, "sample_type_config", "sample_type_config.json", "application/json", stc,
		 CURL_ZERO_TERMINATED);
	cu.easy_setopt(p->curl, CURLOPT_URL, url);
	cu.easy_setopt(p->curl, CURLOPT_MIMEPOST, mime);
	cu.easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, (long)tmo);
	cu.easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)tmo);
	rc = cu.easy_perform(p->curl);
	cu.mime_free(mime);
	if (rc == CURLE_OK)
		cu.easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
	pthread_mutex_lock(&p->mu);
	if (rc == CURLE_OK && status >= 200 && status < 300) {
		p->stats.sent++;
		p->stats.sent_bytes += len;
		pthread_mutex_unlock(&p->mu);
		return 0;
	}
	if (rc != CURLE_OK)
		cause = curl_cause(rc);
	else if (status >= 500 || status == 429)
		cause = PUSH_HTTP_5XX;
	else if (status >= 400)
		cause = PUSH_HTTP_4XX;
	else
		cause = PUSH_HTTP_OTHER;
	p->stats.failed[cause]++;
	if (!push_cause_retried(cause)) {
		long k = status - 100;

		p->stats.dropped++;
		/* once per status: a misconfigured tenant must not flood the log */
		if (k >= 0 && k < 900 && !(p->warned_status[k / 64] & (1ull << (k % 64)))) {
			p->warned_status[k / 64] |= 1ull << (k % 64);
			pr_warn("agent: push: %s answered %ld for %s: dropped (logged once per status)\n",
				p->url, status, what);
		}
	} else if (p->attempt == 0) {
		pr_warn("agent: push: %s: %s; retrying with backoff\n", p->url,
			rc != CURLE_OK ? cu.easy_strerror(rc) : "server error");
	}
	pthread_mutex_unlock(&p->mu);
	return push_cause_retried(cause) ? -EAGAIN : -EPROTO;
}

static void count_lost(struct pusher *p, const char *name, int err)
{
	pthread_mutex_lock(&p->mu);
	if (err == -ENOENT)
		p->stats.lost_retention++;
	else
		p->stats.lost_unreadable++;
	pthread_mutex_unlock(&p->mu);
	if (err != -ENOENT)
		pr_warn("agent: push: cannot read '%s': %s\n", name, strerror(-err));
}

/*
 * f[i] of @it, one request per service from it->next[i] on. 0: all done
 * (sent or dropped); -EAGAIN: retry later from it->next[i].
 */
static int send_file(struct pusher *p, struct push_item *it, size_t i, uint64_t budget_ms)
{
	struct push_series s = { NULL, it->f[i].kind, p->host, HOTCOLD_VERSION,
				 it->start_ms / 1000, (it->end_ms + 999) / 1000,
				 strcmp(it->f[i].kind, "oncpu") ? 0 : p->rate_hz, NULL, NULL };
	char url[PUSH_URL_MAX], stc[512], *gz = NULL, *pb = NULL;
	size_t gz_len = 0, pb_len = 0;
	struct push_split sp = { 0 };
	uint64_t capped = 0;
	struct pb_buf out;
	int err;

	if (s.until_s <= s.from_s)	/* Pyroscope wants until > from */
		s.until_s = s.from_s + 1;
	err = read_profile(p, it->f[i].name, &gz, &gz_len);
	if (!err)
		err = gunzip(gz, gz_len, &pb, &pb_len);
	free(gz);
	gz = NULL;	/* reused for each request's body */
	if (!err)
		err = push_groups(pb, pb_len, &p->rules, p->service, &sp);
	if (err) {
		free(pb);
		if (err == -ENOMEM)
			return -EAGAIN;
		count_lost(p, it->f[i].name, err);
		return 0;
	}
	push_sample_type_config(it->f[i].kind, stc, sizeof(stc));
	pb_buf__init(&out);
	for (; !err && it->next[i] < sp.nr; it->next[i]++) {
		const struct push_group *g = &sp.g[it->next[i]];

		s.service = g->service;
		s.container = g->container;
		s.unit = g->unit;
		pb_buf__reset(&out);
		capped = 0;
		err = push_group_encode(pb, pb_len, &sp, it->next[i], p->keep_labels, &out, &capped);
		if (err == -ENOMEM)
			err = -EAGAIN;
		if (!err && push_url(url, sizeof(url), p->url, &s) < 0)
			err = -EPROTO;
		if (!err)
			err = gzip_buf(out.data, out.len, &gz, &gz_len) ? -EAGAIN : 0;
		if (!err)
			err = post(p, url, gz, gz_len, stc, it->f[i].name, budget_ms);
		free(gz);
		gz = NULL;
		if (!err && capped) {	/* counted once: when the request went out */
			pthread_mutex_lock(&p->mu);
			p->stats.labels_capped += capped;
			pthread_mutex_unlock(&p->mu);
		}
		if (err == -EPROTO)	/* dropped and counted: the next service */
			err = 0;
		if (err)
			break;
	}
	pb_buf__release(&out);
	push_split_free(&sp);
	free(pb);
	return err;
}

static void write_cursor(struct pusher *p, int64_t start_ms)
{
	char buf[32];
	int n = push_cursor_format(start_ms, buf, sizeof(buf));
	int err = store_put(p->st, PUSH_CURSOR, buf, n);

	if (err)
		pr_warn("agent: push: cannot write the cursor: %s\n", strerror(-err));
}

static void wait_until(struct pusher *p, uint64_t mono_ns)
{
	struct timespec ts;
	uint64_t now = clock_mono_ns(), d = mono_ns > now ? mono_ns - now : 0;

	/* the condition variable runs on CLOCK_MONOTONIC (pusher__start) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += d / 1000000000ull;
	ts.tv_nsec += d % 1000000000ull;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&p->cv, &p->mu, &ts);
}

static void *push_main(void *arg)
{
	struct pusher *p = arg;
	struct push_item it;
	uint64_t now, budget_ms;
	int err = 0;

	pthread_setname_np(pthread_self(), "hotcold-push");	/* its CPU apart in top -H */
	pthread_mutex_lock(&p->mu);
	for (;;) {
		now = clock_mono_ns();
		if (p->stop && (p->head == p->nr || now >= p->deadline_ns))
			break;
		if (p->head == p->nr) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		if (!p->stop && now < p->retry_ns) {
			wait_until(p, p->retry_ns);
			continue;
		}
		it = p->q[p->head];
		budget_ms = p->stop ? (p->deadline_ns - now) / 1000000 + 1 : UINT64_MAX;
		pthread_mutex_unlock(&p->mu);
		err = 0;
		/* kinds in order; one failing stops the interval (oldest first) */
		for (size_t i = 0; i < it.nr; i++) {
			if (it.done & (1u << i))
				continue;
			err = send_file(p, &it, i, budget_ms);
			if (err == -EAGAIN)
				break;
			it.done |= 1u << i;
		}
		pthread_mutex_lock(&p->mu);
		p->q[p->head] = it;	/* what was sent: a retry goes on from there */
		if (err == -EAGAIN) {
			p->attempt++;
			p->retry_ns = clock_mono_ns() + push_backoff_ms(p->attempt) * 1000000ull;
			if (p->stop)	/* no retries in the flush: the back end is down */
				break;
			continue;
		}
		if (p->attempt)
			pr_info("agent: push: %s is back after %u retries\n", p->url, p->attempt);
		p->attempt = 0;
		p->head++;
		p->stats.cursor_ms = it.start_ms;
		pthread_mutex_unlock(&p->mu);
		write_cursor(p, it.start_ms);	/* fsync: not under mu, notify never waits */
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int64_t read_cursor(struct pusher *p)
{
	char *data = NULL;
	size_t len = 0;
	int64_t ms = 0;

	if (read_profile(p, PUSH_CURSOR, &data, &len))
		return 0;	/* none yet: everything in the history is sent */
	if (push_cursor_parse(data, len, &ms)) {
		pr_warn("agent: push: ignoring a malformed '%s'\n", PUSH_CURSOR);
		ms = 0;
	}
	free(data);
	return ms;
}

static int setup_curl(struct pusher *p, const struct agent_config *c)
{
	char hdr[512];
	int err = cu_load();

	if (err)
		return err;
	/*
	 * The first curl_easy_init() runs curl_global_init(), not thread-safe
	 * before libcurl 7.84: it runs here, on the agent's thread, before
	 * push_main exists; libdebuginfod (sym/dbgfetch.c) runs its own, maybe
	 * on another thread, which Debian 12's libcurl (7.88, "threadsafe") serializes.
	 */
	p->curl = cu.easy_init();
	if (!p->curl)
		return -ENOMEM;
	cu.easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);	/* a thread: no SIGALRM */
	cu.easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, discard);
	cu.easy_setopt(p->curl, CURLOPT_USERAGENT, "hotcold/" HOTCOLD_VERSION);
	cu.easy_setopt(p->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (c->push_ca_file)
		cu.easy_setopt(p->curl, CURLOPT_CAINFO, c->push_ca_file);
	if (p->userpwd) {
		cu.easy_setopt(p->curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		cu.easy_setopt(p->curl, CURLOPT_USERPWD, p->userpwd);
	}
	if (p->auth)
		p->headers = cu.slist_append(p->headers, p->auth);
	if (c->push_tenant) {
		snprintf(hdr, sizeof(hdr), "X-Scope-OrgID: %s", c->push_tenant);
		p->headers = cu.slist_append(p->headers, hdr);
	}
	/* no "Expect: 100-continue" round trip per request */
	p->headers = cu.slist_append(p->headers, "Expect:");
	cu.easy_setopt(p->curl, CURLOPT_HTTPHEADER, p->headers);
	return 0;
}

static void pusher_free(struct pusher *p)
{
	if (p->headers)		/* else libcurl may not be loaded */
		cu.slist_free_all(p->headers);
	if (p->curl)
		cu.easy_cleanup(p->curl);
	if (p->auth)
		explicit_bzero(p->auth, strlen(p->auth));
	if (p->userpwd)
		explicit_bzero(p->userpwd, strlen(p->userpwd));
	free(p->auth);
	free(p->userpwd);
	free(p->url);
	free(p->service);
	free(p->q);
	push_rules_free(&p->rules);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

int pusher__start(struct pusher **out, const struct agent_config *c, struct store *st)
{
	struct pusher *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	char *tok = NULL;
	int64_t cursor;
	int err = 0;

	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	p->st = st;
	p->url = strdup(c->push);
	if (gethostname(p->host, sizeof(p->host) - 1))
		strcpy(p->host, "unknown");
	p->service = c->push_service ? strdup(c->push_service) : NULL;
	if (c->push_rules) {
		char why[128];

		err = push_rules_parse(c->push_rules, &p->rules, why, sizeof(why));
		if (err)
			pr_warn("agent: %s\n", why);
	}
	p->keep_labels = PUSH_LABELS_DEFAULT;
	if (!err && c->push_labels) {
		char why[160];

		err = push_labels_parse(c->push_labels, &p->keep_labels, why, sizeof(why));
		if (err)
			pr_warn("agent: %s\n", why);
	}
	p->rate_hz = c->freq_hz;
	p->timeout_ms = c->push_timeout_ns / 1000000;
	p->flush_ns = c->push_flush_ns;
	if (!p->url || (c->push_service && !p->service))
		err = -ENOMEM;
	if (!err && c->push_token_file) {
		err = read_secret(c->push_token_file, &tok);
		if (!err && asprintf(&p->auth, "Authorization: Bearer %s", tok) < 0)
			err = -ENOMEM;
		if (tok)
			explicit_bzero(tok, strlen(tok));
		free(tok);
	}
	if (!err && c->push_basic_auth_file) {
		err = read_secret(c->push_basic_auth_file, &p->userpwd);
		if (!err && !strchr(p->userpwd, ':')) {
			pr_warn("agent: push: '%s' must hold USER:PASSWORD\n", c->push_basic_auth_file);
			err = -EINVAL;
		}
	}
	if (!err)
		err = setup_curl(p, c);
	if (err) {
		pusher_free(p);
		return err;
	}
	/* the backlog: what the history holds after the last acknowledged interval */
	cursor = read_cursor(p);
	p->stats.cursor_ms = cursor;
	for (size_t i = 0; !err && i < store__nr(st); i++) {
		const struct store_interval *iv = store__get(st, i);

		if (iv->start_ms > cursor)
			err = queue_add(p, iv);
	}
	if (!err)
		err = -pthread_create(&p->thread, NULL, push_main, p);
	if (err) {
		pusher_free(p);
		return err;
	}
	p->started = true;
	pr_info("agent: pushing to %s, service_name %s%s: %zu intervals of the history to send\n",
		p->url, p->service ? p->service : "by process name", p->rules.nr ? " and rules" : "",
		p->nr - p->head);
	*out = p;
	return 0;
}

void pusher__notify(struct pusher *p, const struct store_interval *iv)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	if (queue_add(p, iv))
		p->stats.lost_unreadable++;	/* no memory to remember it */
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void pusher__stop(struct pusher *p)
{
	size_t left;

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	p->deadline_ns = clock_mono_ns() + p->flush_ns;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (p->started)
		pthread_join(p->thread, NULL);
	left = p->nr - p->head;
	if (left)
		pr_info("agent: push: %zu intervals not acknowledged yet: sent at the next start\n",
			left);
	pusher_free(p);
}

void pusher__stats(struct pusher *p, struct push_stats *out)
{
	int64_t now = clock_unix_ms();

	pthread_mutex_lock(&p->mu);
	*out = p->stats;
	out->backlog = p->nr - p->head;
	out->backlog_age_s = out->backlog ? (now - p->q[p->head].start_ms) / 1e3 : 0;
	pthread_mutex_unlock(&p->mu);
}
