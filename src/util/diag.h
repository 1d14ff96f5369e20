/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The diagnostics registry: every counter a collector or the session
 * reports, by the name it reports it under, with a stable snake_case key
 * (metric labels), a class (lost data, degraded data, or work done) and what
 * a person can do about it. The printing layer and the metrics use it, so
 * the collectors keep reporting plain names.
 */
#ifndef HC_UTIL_DIAG_H
#define HC_UTIL_DIAG_H

#include <stdbool.h>
#include <stddef.h>

enum diag_class {
	DIAG_WORK = 0,		/* work done: samples, tables built; never a problem */
	DIAG_DEGRADED,		/* data kept but worse: a stack cut short, a frame unnamed */
	DIAG_LOSS,		/* data lost: a sample, a block, a wait not recorded */
};

struct diag {
	const char *name;	/* as the collector reports it, e.g. "lost (ring full)" */
	const char *key;	/* stable label, e.g. "ring_full" */
	enum diag_class cls;
	const char *remedy;	/* what to do, or why nothing needs doing */
};

/* The entry for @name, or NULL for a name not in the registry. */
const struct diag *diag__find(const char *name);

/*
 * @name's class: the registry's, else DIAG_LOSS if the reporter flagged it
 * as a loss, else DIAG_WORK.
 */
enum diag_class diag__class(const char *name, bool reported_loss);

/*
 * @name's stable key into @buf: the registry's, else @name folded to
 * snake_case (lowercase alphanumerics, runs of anything else one '_').
 * Returns @buf.
 */
const char *diag__key(const char *name, char *buf, size_t len);

/* "lost", "degraded", "work" */
const char *diag__class_name(enum diag_class cls);

#endif /* HC_UTIL_DIAG_H */
