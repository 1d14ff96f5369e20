/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Is an ELF object a CPython interpreter (the python3.X executable, or
 * libpython3.X.so for a shared build)? Its exported _PyRuntime,
 * _PyEval_EvalFrameDefault and version (Py_Version, 3.11+), by symbol
 * table, without running anything.
 */
#ifndef HC_SYM_PYTHON_ELF_H
#define HC_SYM_PYTHON_ELF_H

#include <stdbool.h>
#include <stdint.h>

#include "sym/loadbias.h"

struct python_elf {
	uint64_t runtime;		/* vaddr of _PyRuntime */
	uint64_t eval_lo, eval_hi;	/* vaddrs of _PyEval_EvalFrameDefault */
	uint32_t version;		/* PY_VERSION_HEX (Py_Version), or 3.X.0 from the file name */
	struct load_layout ll;		/* for the load bias of its mappings */
};

/* Worth opening: the base name of @path is python3.X or libpython3.X... */
bool python_elf_candidate(const char *path);

/*
 * Read @fd (an ELF object named @path) into @out. 0; -ENOENT if it is no
 * interpreter (no _PyRuntime or no eval function); -errno.
 */
int python_elf_read(int fd, const char *path, struct python_elf *out);

#endif /* HC_SYM_PYTHON_ELF_H */
