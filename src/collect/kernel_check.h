/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's minimum, checked before any load: below it every collector
 * would fail with libbpf's noise, so the first line says what is missing.
 */
#ifndef HC_COLLECT_KERNEL_CHECK_H
#define HC_COLLECT_KERNEL_CHECK_H

#include <stddef.h>

/*
 * 0 if this kernel has what every collector's core needs (README,
 * Kernels): BTF, the ring buffer, task storage, bpf_loop. Else -ENOTSUP
 * with @msg set to one line naming what is missing.
 */
int kernel_check(char *msg, size_t len);

#endif /* HC_COLLECT_KERNEL_CHECK_H */
