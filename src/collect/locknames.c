// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Lock id registry and naming (see locknames.h). */
#include "collect/locknames.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "abi/locks.h"
#include "sym/datasym.h"
#include "sym/keymap.h"

struct locknames {
	struct keymap ids;	/* (tgid << 32 | type, addr) -> id */
	struct lock_ident *v;	/* [id - 1] */
	uint32_t nr, cap;
	struct kdata *kd;	/* loaded on the first kernel lock */
	bool kd_tried;
};

struct locknames *locknames__new(void)
{
	struct locknames *ln = calloc(1, sizeof(*ln));

	if (ln)
		keymap__init(&ln->ids);
	return ln;
}

void locknames__free(struct locknames *ln)
{
	if (!ln)
		return;
	for (uint32_t i = 0; i < ln->nr; i++)
		free((char *)ln->v[i].label);
	free(ln->v);
	keymap__release(&ln->ids);
	kdata__free(ln->kd);
	free(ln);
}

int locknames__relabel(struct locknames *ln, uint32_t id, const char *label)
{
	char *copy;

	if (!id || id > ln->nr)
		return -ENOENT;
	copy = strdup(label);
	if (!copy)
		return -ENOMEM;
	free((char *)ln->v[id - 1].label);
	ln->v[id - 1].label = copy;
	ln->v[id - 1].named = false;
	return 0;
}

bool lock_ident_is_holder(const struct lock_ident *li)
{
	return li && (li->type & HC_LOCK_HOLDER);
}

const char *lock_type_name(uint32_t type)
{
	if (type & HC_LOCK_FUTEX)
		return "futex";
	/* perf lock contention's naming of the LCB_F_* combinations */
	switch (type & 0xffff) {
	case HC_LCB_F_SPIN:
		return "spinlock";
	case HC_LCB_F_SPIN | HC_LCB_F_READ:
		return "rwlock:R";
	case HC_LCB_F_SPIN | HC_LCB_F_WRITE:
		return "rwlock:W";
	case HC_LCB_F_READ:
		return "rwsem:R";
	case HC_LCB_F_WRITE:
		return "rwsem:W";
	case HC_LCB_F_RT:
		return "rtmutex";
	case HC_LCB_F_RT | HC_LCB_F_READ:
		return "rwlock-rt:R";
	case HC_LCB_F_RT | HC_LCB_F_WRITE:
		return "rwlock-rt:W";
	case HC_LCB_F_PERCPU | HC_LCB_F_READ:
		return "pcpu-sem:R";
	case HC_LCB_F_PERCPU | HC_LCB_F_WRITE:
		return "pcpu-sem:W";
	case HC_LCB_F_MUTEX:
	case HC_LCB_F_MUTEX | HC_LCB_F_SPIN:
		return "mutex";
	default:
		return "kernel-lock";
	}
}

/*
 * kallsyms has no sizes, so a kernel lock is named "sym+0xOFF" only when
 * that can plausibly be inside sym: an offset under a page, and sym not a
 * linker marker (__start_init_stack+0x9a40 was 39 KiB past a 16 KiB stack).
 * Else the caller says type and address.
 */
static bool plausible_ksym(const char *name)
{
	static const char *const markers[] = { "__start_", "__stop_", "__end", "_end", "__bss_",
					       "__init_", "_sdata", "_edata", "__per_cpu_" };
	const char *plus = strrchr(name, '+');

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (!strncmp(name, markers[i], strlen(markers[i])))
			return false;
	return !plus || strtoull(plus + 1, NULL, 16) < 0x1000;
}

static char *make_label(struct locknames *ln, uint32_t tgid, uint32_t type, uint64_t addr,
			bool *named)
{
	char name[256], *out = NULL;
	int err = -ENOENT;

	if (type & HC_LOCK_KERNEL) {
		if (!ln->kd_tried) {
			ln->kd = kdata__load(NULL);
			ln->kd_tried = true;
		}
		if (ln->kd)
			err = kdata__name(ln->kd, addr, name, sizeof(name));
		if (!err && !plausible_ksym(name))
			err = -ENOENT;
		*named = !err;
		if (!err) {
			if (asprintf(&out, "%s %s", lock_type_name(type), name) < 0)
				return NULL;
		} else if (asprintf(&out, "%s%s 0x%llx", lock_type_name(type),
				    type & HC_LOCK_MMAP ? " mmap_lock" : "",
				    (unsigned long long)addr) < 0) {
			return NULL;
		}
		return out;
	}
	err = datasym_user(NULL, tgid, addr, name, sizeof(name));
	*named = !err;
	if (err)
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)addr);
	return strdup(name);
}

uint32_t locknames__id(struct locknames *ln, uint32_t tgid, uint32_t type, uint64_t addr)
{
	uint64_t a = (uint64_t)tgid << 32 | type, v;
	struct lock_ident *n, *e;

	if (keymap__get(&ln->ids, a, addr, &v))
		return (uint32_t)v;
	if (ln->nr == ln->cap) {
		n = realloc(ln->v, (ln->cap ? ln->cap * 2 : 64) * sizeof(*n));
		if (!n)
			return 0;
		ln->v = n;
		ln->cap = ln->cap ? ln->cap * 2 : 64;
	}
	e = &ln->v[ln->nr];
	memset(e, 0, sizeof(*e));
	e->tgid = tgid;
	e->type = type;
	e->addr = addr;
	e->label = make_label(ln, tgid, type, addr, &e->named);
	if (!e->label || keymap__put(&ln->ids, a, addr, ln->nr + 1)) {
		free((char *)e->label);
		return 0;
	}
	return ++ln->nr;
}

const struct lock_ident *locknames__get(const struct locknames *ln, uint32_t id)
{
	return id && id <= ln->nr ? &ln->v[id - 1] : NULL;
}
