// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Run-time opened libraries (dynlib.h). */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

int dynlib_load(const char *so, const struct dynlib_sym *syms, size_t n, char *why,
		size_t why_len)
{
	const char *err;
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	size_t i = 0;

	while (h && i < n && (*syms[i].fn = dlsym(h, syms[i].name)))
		i++;
	if (h && i == n)
		return 0;	/* kept open for the process's life */
	err = dlerror();
	if (why && why_len) {
		if (err)
			snprintf(why, why_len, "%s", err);
		else
			snprintf(why, why_len, "%s: a symbol is missing", so);
	}
	for (i = 0; i < n; i++)
		*syms[i].fn = NULL;
	if (h)
		dlclose(h);
	return -ENOENT;
}
