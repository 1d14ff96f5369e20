// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Futex waits by class and lock site, from the waiter's stack (see lockwait.h). */
#include "record/lockwait.h"

#include <ctype.h>
#include <string.h>

static const char *const class_names[LW_NR] = {
	[LW_FUTEX] = "futex",	  [LW_MUTEX] = "mutex",	    [LW_RWLOCK] = "rwlock",
	[LW_SEMAPHORE] = "semaphore", [LW_KERNEL] = "kernel", [LW_CONDVAR] = "condvar",
	[LW_JOIN] = "join",	  [LW_BARRIER] = "barrier",
};

const char *lockwait_class_name(enum lockwait_class c)
{
	return c < LW_NR ? class_names[c] : "?";
}

bool lockwait_is_contention(enum lockwait_class c)
{
	return c < LW_CONDVAR;
}

/*
 * glibc's entry points (and their internal aliases: ___pthread_cond_wait,
 * __pthread_clockjoin_ex, __new_sem_wait_slow64...), matched inside the name.
 * The outermost match (nearest the site) decides: a condition variable's
 * wait re-takes its mutex, and that is still a condvar wait.
 */
static const struct {
	const char *needle;
	enum lockwait_class c;
} fns[] = {
	{ "pthread_cond_", LW_CONDVAR },	{ "pthread_join", LW_JOIN },
	{ "pthread_clockjoin", LW_JOIN },	{ "pthread_timedjoin", LW_JOIN },
	{ "pthread_barrier_wait", LW_BARRIER }, { "sem_wait", LW_SEMAPHORE },
	{ "sem_timedwait", LW_SEMAPHORE },	{ "sem_clockwait", LW_SEMAPHORE },
	{ "pthread_rwlock_", LW_RWLOCK },	{ "pthread_mutex_", LW_MUTEX },
	{ "lll_lock_wait", LW_MUTEX },
};

static enum lockwait_class class_of(const char *name, bool *known)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		if (strstr(name, fns[i].needle)) {
			*known = true;
			return fns[i].c;
		}
	}
	*known = false;
	return LW_FUTEX;
}

/*
 * The C library and threading runtimes, by name: glibc's internal names
 * start with "__" (__futex_abstimed_wait_common, __lll_lock_wait) and its
 * entry points are pthread_*, sem_*, futex*; an unnamed libc frame is
 * "libc.so.6+0x..."; Go's runtime is runtime.*.
 */
static bool runtime_frame(const char *name)
{
	static const char *const prefixes[] = { "__", "pthread_", "sem_", "futex", "do_futex",
						"lll_", "syscall", "runtime.", "libc.so",
						"libpthread" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return strstr(name, "libc.so") != NULL;
}

/*
 * A program's own thin wrapper around the sleep primitive (PostgreSQL's
 * PGSemaphoreLock, a parker, a futex helper) is where every lock of the
 * program waits: the site is its caller, the lock's acquire function
 * (LWLockAcquire). Go's sync package is its threading runtime.
 */
static bool wrapper_frame(const char *name)
{
	static const char *const parts[] = { "semaphore", "park", "futex" };
	char low[128];
	size_t i;

	if (!strncmp(name, "sync.", 5))
		return true;
	for (i = 0; name[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(low, parts[i]))
			return true;
	return false;
}

static bool skipped_frame(const char *name)
{
	size_t len = strlen(name);

	return name[0] == '[' || (len > 4 && !strcmp(name + len - 4, "_[k]"));
}

enum lockwait_class lockwait_classify(const char *const *frames, size_t n, int *site)
{
	enum lockwait_class c = LW_FUTEX, fc;
	bool known;

	*site = -1;
	/* frames[0] is the root (process or thread name): never a site */
	for (size_t i = n; i-- > 1;) {
		if (skipped_frame(frames[i]))
			continue;
		fc = class_of(frames[i], &known);
		if (known)
			c = fc;
		if (!runtime_frame(frames[i]) && !wrapper_frame(frames[i])) {
			*site = (int)i;
			break;
		}
	}
	return c;
}

size_t lockwait_split(char *text, const char **frames, size_t max)
{
	size_t n = 0;
	char *p = text, *semi;

	while (n < max && p) {
		semi = strchr(p, ';');
		if (semi)
			*semi = '\0';
		frames[n++] = p;
		p = semi ? semi + 1 : NULL;
	}
	return n;
}
