/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kfuncs an optional piece of a collector needs and an older kernel lacks:
 * the BPF side guards their calls with bpf_ksym_exists() (bpf/lib/ksym.bpf.h)
 * and loads without them; the loader asks the kernel's BTF and says once
 * what is left out.
 */
#ifndef HC_COLLECT_KFUNCS_H
#define HC_COLLECT_KFUNCS_H

#include <stdbool.h>

struct btf;

/*
 * The running kernel's BTF, parsed once for all the collectors' loaders
 * (several MB each time); NULL without BTF. Kept until kernel_btf_release().
 */
const struct btf *kernel_btf(void);

/*
 * Free it once loading is over: 5-6 MiB resident that an agent would keep
 * for its whole life (bench/RESULTS.md, session 11). A later kernel_btf()
 * parses it again.
 */
void kernel_btf_release(void);

/* Whether the running kernel's BTF has the kfunc @name (false without BTF). */
bool kfunc_present(const char *name);

/*
 * kfunc_present(@name), and when false say once per process and @lost, on stderr:
 * "<who>: this kernel has no <name> (<since>): <lost> left out".
 */
bool kfunc_check(const char *who, const char *name, const char *since, const char *lost);

/* How many pieces kfunc_check() has left out in this process (each said once), for -v and /metrics. */
unsigned int kfunc_missing(void);

#endif /* HC_COLLECT_KFUNCS_H */
