/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Names for data addresses (locks): a global pthread_mutex_t in a live
 * process's binary or library, or a static kernel lock from /proc/kallsyms.
 */
#ifndef HC_SYM_DATASYM_H
#define HC_SYM_DATASYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * The data symbol of process @tgid containing @addr, as "name" or
 * "name+0xoff", into @buf. The process must be alive. 0, -ENOENT (not in a
 * symbol: heap, stack, stripped), -ESRCH (process gone) or -errno.
 */
int datasym_user(const char *proc_root, uint32_t tgid, uint64_t addr, char *buf, size_t len);

struct kdata;

/* Kernel data symbols (d, D, b, B, r, R) from @path (NULL: /proc/kallsyms). NULL + errno. */
struct kdata *kdata__load(const char *path);
void kdata__free(struct kdata *kd);	/* NULL is a no-op */

/*
 * The kernel data symbol containing @addr (bounded by the next symbol), as
 * "name" or "name+0xoff". 0 or -ENOENT.
 */
int kdata__name(const struct kdata *kd, uint64_t addr, char *buf, size_t len);

#endif /* HC_SYM_DATASYM_H */
