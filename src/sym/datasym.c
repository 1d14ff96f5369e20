// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Data addresses -> symbols. User: find the ELF object whose loaded segments
 * (file mapping plus the anonymous .bss after it) contain the address, undo
 * the load bias, and look for an STT_OBJECT/STT_TLS symbol that contains it.
 * Kernel: data symbols of /proc/kallsyms, bounded by the next symbol.
 */
#include "sym/datasym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/loadbias.h"
#include "sym/procmaps.h"

/* The file mapping @addr belongs to: its own, or the file mapped just below an anonymous .bss. */
static const struct procmap *owner_mapping(const struct procmaps *pm, uint64_t addr)
{
	const struct procmap *m, *best = NULL;

	for (size_t i = 0; i < procmaps__nr(pm); i++) {
		m = procmaps__entry(pm, i);
		if (m->start > addr)
			break;
		if (m->kind == PROCMAP_FILE && m->inode)
			best = m;
		else if (addr < m->end && m->kind != PROCMAP_ANON)
			return NULL;	/* stack, vdso, ...: no object */
		if (addr < m->end && m->kind == PROCMAP_FILE)
			return m;
	}
	return best;
}

/* Load bias of @elf mapped by @m: vaddr = addr - bias. */
static int elf_bias(Elf *elf, const struct procmap *m, uint64_t *bias)
{
	struct load_layout ll;
	int err = load_layout_read(elf, &ll);

	return err ? err : load_bias(&ll, m, (uint64_t)sysconf(_SC_PAGESIZE), bias);
}

static int find_object(Elf *elf, uint64_t vaddr, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getsym(d, i, &sym))
				break;
			if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || !sym.st_size ||
			    vaddr < sym.st_value || vaddr >= sym.st_value + sym.st_size)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);

			if (!name || !*name)
				continue;
			if (vaddr == sym.st_value)
				snprintf(buf, len, "%s", name);
			else
				snprintf(buf, len, "%s+0x%llx", name,
					 (unsigned long long)(vaddr - sym.st_value));
			return 0;
		}
	}
	return -ENOENT;
}

int datasym_user(const char *proc_root, uint32_t tgid, uint64_t addr, char *buf, size_t len)
{
	const struct procmap *m;
	struct procmaps *pm;
	char path[4096];
	uint64_t bias;
	Elf *elf = NULL;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%u/maps", proc_root ? proc_root : "/proc", tgid);
	pm = procmaps__load(path, 0);
	if (!pm)
		return errno == ENOENT ? -ESRCH : -errno;
	m = owner_mapping(pm, addr);
	if (!m) {
		err = -ENOENT;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", proc_root ? proc_root : "/proc",
		 tgid, (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	err = elf && elf_kind(elf) == ELF_K_ELF ? elf_bias(elf, m, &bias) : -ENOEXEC;
	if (!err)
		err = find_object(elf, addr - bias, buf, len);
	if (elf)
		elf_end(elf);
	close(fd);
out:
	procmaps__free(pm);
	return err;
}

struct ksym {
	uint64_t addr;
	char *name;
};

struct kdata {
	struct ksym *syms;
	size_t nr;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct kdata *kdata__load(const char *path)
{
	struct kdata *kd = calloc(1, sizeof(*kd));
	char *line = NULL, type, name[256];
	unsigned long long addr;
	size_t cap = 0, lcap = 0;
	FILE *f;

	if (!kd)
		return NULL;
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f) {
		free(kd);
		return NULL;
	}
	while (getline(&line, &lcap, f) > 0) {
		/* every symbol bounds the one before it; only data ones are kept as names */
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (kd->nr == cap) {
			struct ksym *n = realloc(kd->syms, (cap = cap ? cap * 2 : 4096) * sizeof(*n));

			if (!n)
				break;
			kd->syms = n;
		}
		kd->syms[kd->nr].addr = addr;
		kd->syms[kd->nr].name = strchr("dDbBrR", type) ? strdup(name) : NULL;
		kd->nr++;
	}
	free(line);
	fclose(f);
	qsort(kd->syms, kd->nr, sizeof(*kd->syms), ksym_cmp);
	return kd;
}

void kdata__free(struct kdata *kd)
{
	if (!kd)
		return;
	for (size_t i = 0; i < kd->nr; i++)
		free(kd->syms[i].name);
	free(kd->syms);
	free(kd);
}

int kdata__name(const struct kdata *kd, uint64_t addr, char *buf, size_t len)
{
	size_t lo = 0, hi = kd->nr, mid;
	const struct ksym *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (kd->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	s = &kd->syms[lo - 1];
	/* the next symbol (of any type) bounds this one: never a neighbour's name */
	if (!s->name || (lo < kd->nr && addr >= kd->syms[lo].addr))
		return -ENOENT;
	if (addr == s->addr)
		snprintf(buf, len, "%s", s->name);
	else if (addr - s->addr < 0x10000)
		snprintf(buf, len, "%s+0x%llx", s->name, (unsigned long long)(addr - s->addr));
	else
		return -ENOENT;	/* far past the symbol: most likely not part of it */
	return 0;
}
