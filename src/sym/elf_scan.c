// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Defined symbols of an ELF file, one pass (elf_scan.h). */
#include "sym/elf_scan.h"

#include <stddef.h>

void elf_scan_symbols(Elf *elf, Elf64_Word sh_type, elf_scan_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && fn(name, &sym, arg))
				return;
		}
	}
}
