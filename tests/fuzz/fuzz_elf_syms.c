// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: ELF symbols from an in-memory image (the vdso path; an
 * ELF file on disk is as untrusted: any user can map a crafted object).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/elf_syms.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t probe[] = { 0, 0x1000, 0x1040, 0x1100, 0x2000, UINT64_MAX, 0 };
	struct elf_syms *es;
	const char *name;
	uint64_t vaddr, off;
	size_t i, len;

	log_set_level(LOG_WARN);
	/* one probe from the input, so the fuzzer can steer a lookup into a symbol */
	if (size >= 8)
		memcpy(&probe[6], data + size - 8, 8);
	es = elf_syms__open_mem(data, size);
	if (!es)
		return 0;
	elf_syms__build_id(es, &len);
	elf_syms__debug_path(es);
	for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		if (!elf_syms__off_to_vaddr(es, probe[i], &vaddr))
			elf_syms__lookup(es, vaddr, &off);
		elf_syms__lookup_off(es, probe[i], NULL);
		name = elf_syms__lookup(es, probe[i], &off);
		if (name && strlen(name) == SIZE_MAX)
			abort();
	}
	elf_syms__load(es);
	elf_syms__nr(es);
	elf_syms__free(es);
	return 0;
}
