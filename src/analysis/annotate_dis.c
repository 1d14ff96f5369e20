// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* annotate_disasm(): capstone for the host architecture (x86-64, arm64). */
#include "analysis/annotate.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>	/* types and constants: the functions come through cs */

#include "util/compiler.h"
#include "util/dynlib.h"

/* A function past this many instructions is cut (and the cut is visible: its tail has none). */
#define ANNOTATE_MAX_INSNS (1u << 18)
#define ANNOTATE_CS_SO "libcapstone.so.4"

/*
 * capstone is opened only by annotate (as sym/dbgfetch.c opens libdebuginfod):
 * linked in, its 3 MiB of tables were resident in every run, the agent's too.
 */
static struct {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *h);
	cs_err (*option)(csh h, cs_opt_type type, size_t value);
	size_t (*disasm)(csh h, const uint8_t *code, size_t len, uint64_t addr, size_t count,
			 cs_insn **insn);
	void (*free)(cs_insn *insn, size_t count);
	cs_err (*close)(csh *h);
} cs;

/* why the last cs_load() failed, for every caller: annotate is single-threaded */
static char cs_why[320];

/* POSIX: a function pointer through a void * */
static const struct dynlib_sym cs_syms[] = {
	{ "cs_open", (void **)&cs.open }, { "cs_option", (void **)&cs.option },
	{ "cs_disasm", (void **)&cs.disasm }, { "cs_free", (void **)&cs.free },
	{ "cs_close", (void **)&cs.close },
};

/* Once per process; a failure is kept in cs_why. 0 or -ENOENT. */
static int cs_load(void)
{
	static bool tried;
	char why[200];

	if (cs.open)
		return 0;
	if (tried)
		return -ENOENT;
	tried = true;
	if (!dynlib_load(ANNOTATE_CS_SO, cs_syms, ARRAY_SIZE(cs_syms), why, sizeof(why)))
		return 0;
	/* dlerror() names the file: "libcapstone.so.4: cannot open shared object file: ..." */
	snprintf(cs_why, sizeof(cs_why), "the disassembler cannot be loaded (%s): install the "
		 "Debian package libcapstone4", why);
	return -ENOENT;
}

int annotate_disasm_load(char *why, size_t len)
{
#if defined(__x86_64__) || defined(__aarch64__)
	if (!cs_load())
		return 0;
	snprintf(why, len, "%s", cs_why);
	return -ENOENT;
#else
	snprintf(why, len, "no disassembler for this architecture");
	return -EOPNOTSUPP;
#endif
}

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
	if (cs_load())
		return -ENOENT;	/* annotate_disasm_load() says why */
	if (cs.open(arch, mode, &h) != CS_ERR_OK)
		return -EOPNOTSUPP;
	/* SKIPDATA: bytes that do not decode (padding, jump tables) do not end the listing */
	cs.option(h, CS_OPT_SKIPDATA, CS_OPT_ON);
	n = cs.disasm(h, code, len, addr, 0, &ci);
	if (n > ANNOTATE_MAX_INSNS)
		n = ANNOTATE_MAX_INSNS;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		cs.free(ci, n);
		cs.close(&h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v[i].addr = ci[i].address;
		v[i].size = ci[i].size;
		snprintf(v[i].text, sizeof(v[i].text), "%s%s%s", ci[i].mnemonic,
			 ci[i].op_str[0] ? " " : "", ci[i].op_str);
	}
	if (n)
		cs.free(ci, n);
	cs.close(&h);
	*insns = v;
	*nr = n;
	return 0;
}
