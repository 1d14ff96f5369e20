// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A V8 binary's v8dbg_* symbols and embedded builtins (see v8_elf.h). */
#include "sym/v8_elf.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "sym/elf_scan.h"

#define V8_BLOB_CODE "v8_Default_embedded_blob_code_"
#define V8_BLOB_SIZE "v8_Default_embedded_blob_code_size_"

bool v8_elf_candidate(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	if (!strncmp(b, "libnode.so", 10))
		return true;
	if (strncmp(b, "node", 4))
		return false;
	/* node, node20: not nodejs-helper scripts' interpreters of another name */
	for (b += 4; *b; b++)
		if (*b < '0' || *b > '9')
			return false;
	return true;
}

/* @len bytes at @vaddr of a section with file data, or zeros in .bss; 0 or -ENOENT. */
static int read_at(Elf *elf, uint64_t vaddr, void *out, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    vaddr < sh.sh_addr || vaddr + len > sh.sh_addr + sh.sh_size)
			continue;
		/* v8dbg_* ints that are 0 (an offset of 0, a tag of 0) are in .bss */
		if (sh.sh_type == SHT_NOBITS) {
			memset(out, 0, len);
			return 0;
		}
		if (sh.sh_type != SHT_PROGBITS)
			return -ENOENT;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || vaddr - sh.sh_addr + len > d->d_size)
			return -ENOENT;
		memcpy(out, (const char *)d->d_buf + (vaddr - sh.sh_addr), len);
		return 0;
	}
	return -ENOENT;
}

struct scan {
	Elf *elf;
	struct v8_layout *l;
	size_t seen;		/* v8dbg_* symbols */
	uint64_t blob_size_vaddr;
};

/* elf_scan_fn: a v8dbg_* int into the layout; the embedded blob's symbols */
static int take_symbol(const char *name, const GElf_Sym *sym, void *arg)
{
	struct scan *sc = arg;
	int32_t v;

	if (!strncmp(name, "v8dbg_", 6)) {
		sc->seen++;
		/* every one is an int (gen-postmortem-metadata.py) */
		if (sym->st_size == sizeof(v) && !read_at(sc->elf, sym->st_value, &v, sizeof(v)))
			v8_layout_set(sc->l, name, v);
	} else if (!strcmp(name, V8_BLOB_CODE)) {
		sc->l->blob_vaddr = sym->st_value;
	} else if (!strcmp(name, V8_BLOB_SIZE)) {
		sc->blob_size_vaddr = sym->st_value;
	}
	return 0;
}

int v8_elf_read(int fd, struct v8_layout *l, struct load_layout *ll)
{
	struct scan sc = { .l = l };
	uint32_t size = 0;
	int err = 0;
	Elf *elf;

	v8_layout_init(l);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	sc.elf = elf;
	/* exported: in .dynsym even when stripped */
	elf_scan_symbols(elf, SHT_DYNSYM, take_symbol, &sc);
	if (!sc.seen) {
		err = -ENOENT;
		goto out;
	}
	/* the embedded blob's symbols are local: .symtab only (optional) */
	if (!l->blob_vaddr)
		elf_scan_symbols(elf, SHT_SYMTAB, take_symbol, &sc);
	if (l->blob_vaddr && sc.blob_size_vaddr &&
	    !read_at(elf, sc.blob_size_vaddr, &size, sizeof(size)) && size)
		l->blob_size = size;
	else
		l->blob_vaddr = 0;
	if (ll && load_layout_read(elf, ll))
		err = -ENOEXEC;
out:
	elf_end(elf);
	return err;
}
