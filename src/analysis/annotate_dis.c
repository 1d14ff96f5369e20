// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* annotate_disasm(): capstone for the host architecture (x86-64, arm64). */
#include "analysis/annotate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

/* A function past this many instructions is cut (and the cut is visible: its tail has none). */
#define ANNOTATE_MAX_INSNS (1u << 18)

int annotate_disasm(const uint8_t *code, size_t len, uint64_t addr, struct annotate_insn **insns,
		    size_t *nr)
{
#if defined(__x86_64__)
	cs_arch arch = CS_ARCH_X86;
	cs_mode mode = CS_MODE_64;
#elif defined(__aarch64__)
	cs_arch arch = CS_ARCH_ARM64;
	cs_mode mode = CS_MODE_ARM;
#else
	return -EOPNOTSUPP;
#endif
	struct annotate_insn *v;
	cs_insn *ci;
	csh h;
	size_t n;

	*insns = NULL;
	*nr = 0;
	if (cs_open(arch, mode, &h) != CS_ERR_OK)
		return -EOPNOTSUPP;
	/* SKIPDATA: bytes that do not decode (padding, jump tables) do not end the listing */
	cs_option(h, CS_OPT_SKIPDATA, CS_OPT_ON);
	n = cs_disasm(h, code, len, addr, 0, &ci);
	if (n > ANNOTATE_MAX_INSNS)
		n = ANNOTATE_MAX_INSNS;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		cs_free(ci, n);
		cs_close(&h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v[i].addr = ci[i].address;
		v[i].size = ci[i].size;
		snprintf(v[i].text, sizeof(v[i].text), "%s%s%s", ci[i].mnemonic,
			 ci[i].op_str[0] ? " " : "", ci[i].op_str);
	}
	if (n)
		cs_free(ci, n);
	cs_close(&h);
	*insns = v;
	*nr = n;
	return 0;
}
