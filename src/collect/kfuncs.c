// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Probing the kernel's BTF for kfuncs optional pieces of the collectors need. */
#include "collect/kfuncs.h"

#include <string.h>

#include <bpf/btf.h>

#include "util/log.h"

static struct btf *vmlinux;
static bool tried;

const struct btf *kernel_btf(void)
{
	if (!tried) {
		tried = true;
		vmlinux = btf__load_vmlinux_btf();	/* NULL on error (libbpf 1.0 mode) */
	}
	return vmlinux;
}

void kernel_btf_release(void)
{
	btf__free(vmlinux);
	vmlinux = NULL;
	tried = false;
}

bool kfunc_present(const char *name)
{
	const struct btf *vmlinux = kernel_btf();

	return vmlinux && btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

static const char *said[8];	/* @lost of the pieces said: a few call sites */

unsigned int kfunc_missing(void)
{
	unsigned int n = 0;

	while (n < sizeof(said) / sizeof(said[0]) && said[n])
		n++;
	return n;
}

bool kfunc_check(const char *who, const char *name, const char *since, const char *lost)
{
	size_t i;

	if (kfunc_present(name))
		return true;
	for (i = 0; i < sizeof(said) / sizeof(said[0]) && said[i]; i++)
		if (!strcmp(said[i], lost))
			return false;
	if (i < sizeof(said) / sizeof(said[0]))
		said[i] = lost;
	pr_warn("%s: this kernel has no %s (%s): %s left out\n", who, name, since, lost);
	return false;
}
