// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* debuginfod fetches on a worker thread (see dbgfetch.h). */
#include "sym/dbgfetch.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/elf_debug.h"
#include "util/clock.h"
#include "util/compiler.h"
#include "util/dynlib.h"
#include "util/log.h"

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

enum fetch_state { F_QUEUED, F_BUSY, F_DONE, F_FAILED };

/*
 * libdebuginfod is opened only when DEBUGINFOD_URLS is set, as libdw does:
 * linked in, it and libcurl + gnutls cost every run ~10-15 ms of start-up.
 */
static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *id, int len, char **path);
	void (*set_progressfn)(debuginfod_client *c, debuginfod_progressfn_t fn);
	void (*set_user_data)(debuginfod_client *c, void *data);
	void *(*get_user_data)(debuginfod_client *c);
} dfd;

/* POSIX: a function pointer through a void * */
static const struct dynlib_sym dfd_syms[] = {
	{ "debuginfod_begin", (void **)&dfd.begin },
	{ "debuginfod_end", (void **)&dfd.end },
	{ "debuginfod_find_debuginfo", (void **)&dfd.find_debuginfo },
	{ "debuginfod_set_progressfn", (void **)&dfd.set_progressfn },
	{ "debuginfod_set_user_data", (void **)&dfd.set_user_data },
	{ "debuginfod_get_user_data", (void **)&dfd.get_user_data },
};

static int dfd_load(void)
{
	return dynlib_load("libdebuginfod.so.1", dfd_syms, ARRAY_SIZE(dfd_syms), NULL, 0);
}

struct fetch {
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t len;
	enum fetch_state state;
	char *path;		/* F_DONE */
};

struct dbgfetch {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	struct fetch *v;	/* DBGFETCH_MAX slots, requests in arrival order, fetched in it */
	size_t nr, next;	/* next: the first not yet taken by the worker */
	uint64_t timeout_ns;
	uint64_t deadline_ns;	/* of the fetch in flight (worker only) */
	uint64_t dead_until_ns;	/* no fetches before this (a timeout happened) */
	struct dbgfetch_stats st;
};

static struct fetch *find(struct dbgfetch *f, const uint8_t *id, size_t len)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->v[i].len == len && !memcmp(f->v[i].id, id, len))
			return &f->v[i];
	return NULL;
}

/* libdebuginfod calls this about once a second while a transfer runs: non-zero cancels it */
static int progress(debuginfod_client *c, long a, long b)
{
	struct dbgfetch *f = dfd.get_user_data(c);
	bool stop;

	(void)a;
	(void)b;
	pthread_mutex_lock(&f->lock);
	stop = f->stop;
	pthread_mutex_unlock(&f->lock);
	return stop || clock_mono_ns() >= f->deadline_ns;
}

/* Fetch @id (worker thread, unlocked): 0 and *@path, or -errno (-ETIME: timed out). */
static int fetch_one(struct dbgfetch *f, debuginfod_client *c, const uint8_t *id, size_t len,
		     char **path)
{
	int fd;

	f->deadline_ns = clock_mono_ns() + f->timeout_ns;
	fd = dfd.find_debuginfo(c, id, (int)len, path);
	if (fd >= 0) {
		close(fd);	/* the caller opens the cached file and checks it */
		return 0;
	}
	if (clock_mono_ns() >= f->deadline_ns)
		return -ETIME;	/* cancelled by progress(), or the library's own timeout */
	return fd;
}

static void finish_one(struct dbgfetch *f, struct fetch *e, int err, char *path)
{
	e->path = path;
	e->state = err ? F_FAILED : F_DONE;
	f->st.pending--;
	if (!err)
		f->st.fetched++;
	else if (err == -ETIME)
		f->st.timed_out++;
	else if (err == -EAGAIN)
		f->st.skipped++;
	else
		f->st.failed++;
	if (err == -ETIME)
		f->dead_until_ns = clock_mono_ns() + DBGFETCH_DEAD_S * NS_PER_S;
}

static void *worker(void *arg)
{
	struct dbgfetch *f = arg;
	debuginfod_client *c = dfd.begin();
	uint8_t id[ELF_BUILD_ID_MAX];
	uint64_t t0;
	size_t len, i;
	char *path;
	int err;

	if (c) {
		dfd.set_user_data(c, f);
		dfd.set_progressfn(c, progress);
	}
	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		if (f->next == f->nr) {
			pthread_cond_wait(&f->wake, &f->lock);
			continue;
		}
		i = f->next++;
		f->v[i].state = F_BUSY;
		len = f->v[i].len;
		memcpy(id, f->v[i].id, len);
		path = NULL;
		if (!c)
			err = -ENOMEM;
		else if (clock_mono_ns() < f->dead_until_ns)
			err = -EAGAIN;
		else {
			pthread_mutex_unlock(&f->lock);
			t0 = clock_mono_ns();
			err = fetch_one(f, c, id, len, &path);
			pthread_mutex_lock(&f->lock);
			f->st.busy_ns += clock_mono_ns() - t0;
		}
		pr_debug("debuginfod: build-id of %zu bytes: %s\n", len,
			 err ? strerror(-err) : path);
		finish_one(f, &f->v[i], err, err ? NULL : path);
	}
	pthread_mutex_unlock(&f->lock);
	if (c)
		dfd.end(c);
	return NULL;
}

struct dbgfetch *dbgfetch__new(unsigned int timeout_ms)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	const char *t = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
	struct dbgfetch *f;
	int err;

	if (!urls || !*urls || (!dfd.begin && dfd_load())) {
		if (urls && *urls)
			pr_warn("debuginfod: DEBUGINFOD_URLS is set but libdebuginfod.so.1 cannot be "
				"loaded: no debug files fetched\n");
		errno = ENOENT;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->timeout_ns = DBGFETCH_TIMEOUT_S * NS_PER_S;
	if (timeout_ms)
		f->timeout_ns = timeout_ms * NS_PER_MS;
	else if (t && atoi(t) > 0)
		f->timeout_ns = (uint64_t)atoi(t) * NS_PER_S;
	f->v = calloc(DBGFETCH_MAX, sizeof(*f->v));
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->wake, NULL);
	err = f->v ? pthread_create(&f->thread, NULL, worker, f) : ENOMEM;
	if (err) {
		pthread_cond_destroy(&f->wake);
		pthread_mutex_destroy(&f->lock);
		free(f->v);
		free(f);
		errno = err;
		return NULL;
	}
	return f;
}

void dbgfetch__free(struct dbgfetch *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->wake);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	for (size_t i = 0; i < f->nr; i++)
		free(f->v[i].path);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	free(f->v);
	free(f);
}

int dbgfetch__request(struct dbgfetch *f, const uint8_t *id, size_t len)
{
	struct fetch *e;
	int ret;

	if (!len || len > ELF_BUILD_ID_MAX)
		return -EINVAL;
	pthread_mutex_lock(&f->lock);
	e = find(f, id, len);
	if (e) {
		/* known: queued, done or failed; a failure is not retried this run */
		ret = (int)(e - f->v);
	} else if (f->nr == DBGFETCH_MAX) {
		f->st.dropped++;
		ret = -ENOSPC;
	} else {
		ret = (int)f->nr;
		e = &f->v[f->nr++];
		memcpy(e->id, id, len);
		e->len = len;
		e->state = F_QUEUED;
		f->st.requested++;
		f->st.pending++;
		pthread_cond_signal(&f->wake);
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

int dbgfetch__result(struct dbgfetch *f, int slot, char **path)
{
	struct fetch *e;
	int err;

	pthread_mutex_lock(&f->lock);
	e = slot >= 0 && (size_t)slot < f->nr ? &f->v[slot] : NULL;
	if (!e || e->state == F_FAILED)
		err = -ENOENT;
	else if (e->state != F_DONE)
		err = -EINPROGRESS;
	else
		err = (*path = strdup(e->path)) ? 0 : -ENOMEM;
	pthread_mutex_unlock(&f->lock);
	return err;
}

void dbgfetch__stats(struct dbgfetch *f, struct dbgfetch_stats *st)
{
	pthread_mutex_lock(&f->lock);
	*st = f->st;
	pthread_mutex_unlock(&f->lock);
}
