// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Probing the kernel's BTF for kfuncs optional pieces of the collectors need. */
#include "collect/kfuncs.h"

#include <string.h>

#include <bpf/btf.h>

#include "util/log.h"

bool kfunc_present(const char *name)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool ok;

	if (!vmlinux)
		return false;
	ok = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
	btf__free(vmlinux);
	return ok;
}

bool kfunc_check(const char *who, const char *name, const char *since, const char *lost)
{
	static const char *said[8];	/* @lost of the pieces said: a few call sites */
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
