// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CPython's runtime symbols and version from its ELF object (see python_elf.h). */
#include "sym/python_elf.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "sym/elf_scan.h"

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

bool python_elf_candidate(const char *path)
{
	const char *b = base_name(path);

	if (!strncmp(b, "lib", 3))
		b += 3;
	return !strncmp(b, "python3", 7);
}

/* "python3.10" or "libpython3.10.so.1.0" -> 0x030a0000; 0 if not of that shape */
static uint32_t version_from_name(const char *path)
{
	const char *b = base_name(path);
	char *end;
	unsigned long minor;

	if (!strncmp(b, "lib", 3))
		b += 3;
	if (strncmp(b, "python3.", 8))
		return 0;
	minor = strtoul(b + 8, &end, 10);
	if (end == b + 8 || minor > 255)
		return 0;
	return 3u << 24 | (uint32_t)minor << 16;
}

/* The 4 bytes at @vaddr of a section with file data; 0 or -ENOENT. */
static int read_u32_at(Elf *elf, uint64_t vaddr, uint32_t *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    vaddr < sh.sh_addr || vaddr + 4 > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || vaddr - sh.sh_addr + 4 > d->d_size)
			return -ENOENT;
		memcpy(out, (const char *)d->d_buf + (vaddr - sh.sh_addr), 4);
		return 0;
	}
	return -ENOENT;
}

struct scan {
	struct python_elf *out;
	uint64_t *ver_addr;
};

/* elf_scan_fn: the three symbols an interpreter is read by */
static int take_symbol(const char *name, const GElf_Sym *sym, void *arg)
{
	struct scan *sc = arg;

	if (!strcmp(name, "_PyRuntime")) {
		sc->out->runtime = sym->st_value;
	} else if (!strcmp(name, "_PyEval_EvalFrameDefault")) {
		sc->out->eval_lo = sym->st_value;
		sc->out->eval_hi = sym->st_value + sym->st_size;
	} else if (!strcmp(name, "Py_Version")) {
		*sc->ver_addr = sym->st_value;
	}
	return 0;
}

int python_elf_read(int fd, const char *path, struct python_elf *out)
{
	uint64_t ver_addr = 0;
	struct scan sc = { out, &ver_addr };
	Elf *elf;
	int err = 0;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	/* exported (PyAPI_DATA/PyAPI_FUNC): in .dynsym even when stripped */
	elf_scan_symbols(elf, SHT_DYNSYM, take_symbol, &sc);
	if (!out->runtime || out->eval_hi <= out->eval_lo)
		elf_scan_symbols(elf, SHT_SYMTAB, take_symbol, &sc);
	if (!out->runtime || out->eval_hi <= out->eval_lo) {
		err = -ENOENT;
		goto out;
	}
	if (!ver_addr || read_u32_at(elf, ver_addr, &out->version))
		out->version = version_from_name(path);	/* before 3.11: no Py_Version */
	if (load_layout_read(elf, &out->ll))
		err = -ENOEXEC;
out:
	elf_end(elf);
	return err;
}
