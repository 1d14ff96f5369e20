/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a futex wait was, from the waiter's stack: the class (a mutex taken,
 * a condition variable waited on, a thread joined...) from the C library
 * function it went through, and the lock site, the first frame outside the
 * C library and the threading runtime. Pure: frames in, answers out.
 */
#ifndef HC_RECORD_LOCKWAIT_H
#define HC_RECORD_LOCKWAIT_H

#include <stdbool.h>
#include <stddef.h>

enum lockwait_class {
	LW_FUTEX = 0,	/* a futex wait through no function we know: counted as contention */
	LW_MUTEX,
	LW_RWLOCK,
	LW_SEMAPHORE,
	LW_KERNEL,	/* kernel lock contention */
	LW_CONDVAR,	/* waiting for work from here on */
	LW_JOIN,
	LW_BARRIER,
	LW_NR,
};

/* "mutex", "condvar", ... */
const char *lockwait_class_name(enum lockwait_class c);

/* Contention (a lock someone holds) rather than waiting for work or for a thread. */
bool lockwait_is_contention(enum lockwait_class c);

/*
 * Classify a futex wait by its stack @frames[0..@n), root first, as folded
 * text names them (a trailing "[lock ...]" frame and kernel "_[k]" frames
 * are skipped). *site gets the index of the lock site, the first frame from
 * the leaf outside the C library, the threading runtime and the program's
 * own wrappers of the sleep (names with "semaphore", "park", "futex"), or -1.
 */
enum lockwait_class lockwait_classify(const char *const *frames, size_t n, int *site);

/*
 * Split folded text @text (frames joined by ';', modified in place) into
 * @frames, at most @max; returns how many.
 */
size_t lockwait_split(char *text, const char **frames, size_t max);

#endif /* HC_RECORD_LOCKWAIT_H */
