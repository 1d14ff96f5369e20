/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small compiler helpers for user-space code. */
#ifndef HC_UTIL_COMPILER_H
#define HC_UTIL_COMPILER_H

#include <stddef.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define HC_UNUSED __attribute__((unused))

/* Kernel typedefs belong to BPF code and abi/ headers only. */
#pragma GCC poison u8 u16 u32 u64 s32 s64

#endif /* HC_UTIL_COMPILER_H */
