/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Lock identities seen in a run: (process, type, address) -> a small id and a
 * label, named on first sight while the process still lives (a global
 * pthread_mutex_t by its symbol, a static kernel lock by its kallsyms name).
 */
#ifndef HC_COLLECT_LOCKNAMES_H
#define HC_COLLECT_LOCKNAMES_H

#include <stdbool.h>
#include <stdint.h>

struct locknames;

struct lock_ident {
	uint32_t tgid;		/* 0 for kernel locks */
	uint32_t type;		/* HC_LOCK_* bits (abi/locks.h) */
	uint64_t addr;
	const char *label;	/* "g_queue_mutex", "0x7f..", "mutex rtnl_mutex" */
	bool named;		/* label came from a symbol */
};

struct locknames *locknames__new(void);		/* NULL + errno */
void locknames__free(struct locknames *ln);	/* NULL is a no-op */

/* The id of a lock (>= 1), registering and naming it on first sight; 0 on ENOMEM. */
uint32_t locknames__id(struct locknames *ln, uint32_t tgid, uint32_t type, uint64_t addr);

/* The lock behind @id, or NULL. */
const struct lock_ident *locknames__get(const struct locknames *ln, uint32_t id);

/* "mutex", "spinlock", "rwsem:W", ... for kernel type bits; "futex" for user locks. */
/* Replace lock @id's label (a copy of @label is kept). 0 or -errno. */
int locknames__relabel(struct locknames *ln, uint32_t id, const char *label);

/* The holder's side of a lock (a futex wake that ended waits, a kernel lock's owner), not a lock waited on. */
bool lock_ident_is_holder(const struct lock_ident *li);

const char *lock_type_name(uint32_t type);

#endif /* HC_COLLECT_LOCKNAMES_H */
