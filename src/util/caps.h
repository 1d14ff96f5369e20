/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Whether this process may load hotcold's BPF programs, checked before libbpf is asked. */
#ifndef HC_UTIL_CAPS_H
#define HC_UTIL_CAPS_H

#include <stdbool.h>
#include <stdint.h>

/* Capability numbers (linux/capability.h) */
#define CAPS_SYS_ADMIN	21
#define CAPS_PERFMON	38
#define CAPS_BPF	39

/*
 * @capeff: the CapEff mask. True if it holds CAP_SYS_ADMIN (root: loads
 * everything) or both CAP_BPF and CAP_PERFMON (tracing programs, perf
 * events). Pure, for the tests.
 */
bool caps__mask_can_trace(uint64_t capeff);

/* This process's effective capabilities from /proc/self/status; 0 or -errno. */
int caps__effective(uint64_t *capeff);

/*
 * The line to print when tracing is not allowed, or NULL when it is (or the
 * mask cannot be read: then libbpf's error speaks).
 */
const char *caps__missing_message(void);

/*
 * perf events without BPF (stat -p PID, stat -- CMD): whether this process
 * may count the kernel too (CAP_PERFMON or CAP_SYS_ADMIN, or
 * kernel.perf_event_paranoid <= 1). Pure, for the tests.
 */
bool caps__mask_can_count_kernel(uint64_t capeff, int paranoid);

/* kernel.perf_event_paranoid, or 2 (the kernel's default) if it cannot be read. */
int caps__perf_paranoid(void);

#endif /* HC_UTIL_CAPS_H */
