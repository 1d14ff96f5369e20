// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ELF function symbols with extents, lazily loaded (see elf_syms.h). */
#include "sym/elf_syms.h"
#include "sym/elf_syms_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "sym/dbgfetch.h"
#include "sym/ehframe.h"
#include "sym/elf_debug.h"
#include "sym/minidebug.h"
#include "sym/strtab.h"
#include "util/log.h"

/* How many preceding symbols may enclose an address (nested/aliased ranges). */
#define ELF_SYMS_NEST_SCAN 16
/* a browser's .symtab is ~100 MiB; a larger one is a forgery, not a program */
#define ELF_SYMTAB_MAX_BYTES (1ull << 30)


static void elf_syms__close_fds(struct elf_syms *es)
{
	if (es->fd >= 0)
		close(es->fd);
	if (es->debug_fd >= 0)
		close(es->debug_fd);
	es->fd = -1;
	es->debug_fd = -1;
}

/*
 * ELF_C_READ, not ELF_C_READ_MMAP: a shared library rewritten in place while
 * mapped would turn our reads of a mmap into SIGBUS; pread() only fails.
 */
Elf *elf_syms__begin(struct elf_syms *es, int fd)
{
	if (es->image && fd == es->fd)
		return elf_memory(es->image, es->image_size);
	return elf_begin(fd, ELF_C_READ, NULL);
}

static int range_cmp(const void *a, const void *b)
{
	const struct elf_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_segments(struct elf_syms *es, Elf *elf)
{
	size_t i, nr;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nr))
		return -ENOEXEC;
	es->segs = calloc(nr ? nr : 1, sizeof(*es->segs));
	if (!es->segs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		es->segs[es->nr_segs++] = (struct elf_seg){
			.off = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return es->nr_segs ? 0 : -ENOEXEC;
}

static int push_range(struct elf_syms *es, size_t *cap, uint64_t start, uint64_t end)
{
	struct elf_range *r;

	if (end <= start)
		return 0;
	if (es->nr_text == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		r = realloc(es->text, *cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		es->text = r;
	}
	es->text[es->nr_text++] = (struct elf_range){ start, end };
	return 0;
}

/* Executable sections bound symbol extents; without section headers use PT_LOADs. */
static int read_text_ranges(struct elf_syms *es, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0, i;
	bool from_sections;
	int err = 0;

	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS)
			continue;
		err = push_range(es, &cap, sh.sh_addr, sh.sh_addr + sh.sh_size);
	}
	from_sections = es->nr_text > 0;
	for (i = 0; !err && !from_sections && i < es->nr_segs; i++) {
		if (es->segs[i].exec)
			err = push_range(es, &cap, es->segs[i].vaddr,
					 es->segs[i].vaddr + es->segs[i].filesz);
	}
	if (err)
		return err;
	if (es->nr_text)
		qsort(es->text, es->nr_text, sizeof(*es->text), range_cmp);
	return 0;
}

/* The executable range containing @addr, or NULL. */
static const struct elf_range *text_range(const struct elf_syms *es, uint64_t addr)
{
	size_t lo = 0, hi = es->nr_text;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->text[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < es->text[lo - 1].end)
		return &es->text[lo - 1];
	return NULL;
}

static int read_headers(struct elf_syms *es, Elf *elf)
{
	GElf_Ehdr eh;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return -ENOEXEC;
	err = read_segments(es, elf);
	if (!err)
		err = read_text_ranges(es, elf);
	if (!err)
		err = elf_ident_read(elf, &es->id);
	return err;
}

static struct elf_syms *elf_syms__alloc(void)
{
	struct elf_syms *es = calloc(1, sizeof(*es));

	if (!es)
		return NULL;
	es->fd = -1;
	es->debug_fd = -1;
	es->dwarf_fd = -1;
	strtab__init(&es->names);
	elf_version(EV_CURRENT);
	return es;
}


struct elf_syms *elf_syms__open(int fd, const struct elf_syms_opts *o)
{
	struct elf_syms *es;
	Elf *elf;
	int err;

	es = elf_syms__alloc();
	if (!es) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	es->fd = fd;
	elf = elf_syms__begin(es, fd);
	if (!elf) {
		pr_debug("elf_syms: cannot read '%s': %s\n", o && o->path ? o->path : "?",
			 elf_errmsg(-1));
		err = -ENOEXEC;
		goto err_free;
	}
	err = read_headers(es, elf);
	elf_end(elf);
	if (err)
		goto err_free;
	if (!es->id.has_symtab)
		elf_syms__find_debug(es, o);
	return es;

err_free:
	elf_syms__free(es);
	errno = -err;
	return NULL;
}

struct elf_syms *elf_syms__open_mem(const void *image, size_t size)
{
	struct elf_syms *es;
	Elf *elf;
	int err = -ENOMEM;

	if (!image || !size) {
		errno = ENOEXEC;
		return NULL;
	}
	es = elf_syms__alloc();
	if (!es)
		goto err;
	es->image = malloc(size);
	if (!es->image)
		goto err;
	memcpy(es->image, image, size);
	es->image_size = size;
	elf = elf_memory(es->image, size);
	err = -ENOEXEC;
	if (!elf)
		goto err;
	err = read_headers(es, elf);
	elf_end(elf);
	if (err)
		goto err;
	return es;
err:
	elf_syms__free(es);
	errno = -err;
	return NULL;
}

void elf_syms__free(struct elf_syms *es)
{
	if (!es)
		return;
	elf_syms__close_fds(es);
	if (es->dwarf_fd >= 0)
		close(es->dwarf_fd);
	elf_ident_release(&es->id);
	strtab__release(&es->names);
	free(es->debug_path);
	free(es->image);
	free(es->segs);
	free(es->text);
	free(es->syms);
	free(es->fde);
	free(es->fde_end);
	free(es);
}

/* First FDE start strictly after @addr, or UINT64_MAX. */
static uint64_t next_fde(const struct elf_syms *es, uint64_t addr)
{
	size_t lo = 0, hi = es->nr_fde;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->fde[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < es->nr_fde ? es->fde[lo] : UINT64_MAX;
}

static int binding_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

static int elf_syms__push(struct elf_syms *es, const GElf_Sym *sym, const char *name)
{
	const struct elf_range *r = text_range(es, sym->st_value);
	struct esym e = { .addr = sym->st_value };
	size_t len;
	int rank, err;

	/* functions live in executable sections; anything else is not code we name */
	if (!r)
		return 0;
	/* "memcpy@@GLIBC_2.14" in .symtab: the version is noise in a frame name */
	len = strcspn(name, "@");
	if (!len)
		return 0;
	e.size = sym->st_size;
	if (e.size > r->end - e.addr)
		e.size = r->end - e.addr;
	e.inferred = !e.size;
	rank = binding_rank(GELF_ST_BIND(sym->st_info)) * 64;
	while (name[rank % 64] == '_' && rank % 64 < 63)
		rank++;
	e.rank = (uint8_t)rank;
	if (es->nr == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 1024;
		struct esym *syms = realloc(es->syms, cap * sizeof(*syms));

		if (!syms)
			return -ENOMEM;
		es->syms = syms;
		es->cap = cap;
	}
	err = strtab__add(&es->names, name, len, &e.name);
	if (err)
		return err;
	es->syms[es->nr++] = e;
	return 0;
}

/*
 * Defined functions only: an undefined symbol of a non-PIE executable has
 * st_value = its PLT stub (for function pointer equality), which must not
 * be named after the callee.
 */
int elf_syms__read_symtab(struct elf_syms *es, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data;
	size_t i, n;
	GElf_Sym sym;
	const char *name;
	int type, err;

	/* size sanity before libelf allocates it: the file may be a user's, sparse */
	if (sh->sh_size > ELF_SYMTAB_MAX_BYTES) {
		pr_debug("elf: ignoring a symbol table of %llu MiB\n",
			 (unsigned long long)(sh->sh_size >> 20));
		return 0;
	}
	data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		/*
		 * Untyped size-0 symbols in code are assembly entry labels (ld.so's
		 * _start): kept, they only name what no sized function encloses.
		 */
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    (type != STT_NOTYPE || sym.st_size))
			continue;
		if (sym.st_shndx == SHN_UNDEF ||
		    (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		/* ".L" locals and ARM/AArch64 mapping symbols ("$x", "$d") are no names */
		if (!name || !*name || (type == STT_NOTYPE && (*name == '.' || *name == '$')))
			continue;
		err = elf_syms__push(es, &sym, name);
		if (err)
			return err;
	}
	return 0;
}

/* Add the function symbols of the tables of @type (SHT_SYMTAB/SHT_DYNSYM) in @fd. */
int elf_syms__read_symbols(struct elf_syms *es, int fd, GElf_Word type, bool fdes)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int err = 0;

	elf = elf_syms__begin(es, fd);
	if (!elf)
		return -ENOEXEC;
	if (fdes && !es->fde)
		err = ehframe_func_starts(elf, &es->fde, &es->nr_fde);
	if (!err && fdes && es->keep_fde && es->nr_fde && !es->fde_end) {
		es->fde_end = calloc(es->nr_fde, sizeof(*es->fde_end));
		if (!es->fde_end)
			err = -ENOMEM;
		else
			ehframe_func_ends(elf, es->fde, es->nr_fde, es->fde_end);
	}
	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			err = elf_syms__read_symtab(es, elf, scn, &sh);
	}
	elf_end(elf);
	return err;
}

/*
 * Aliases at one address (malloc, __libc_malloc, __GI___libc_malloc):
 * the symbol that knows its size first, the largest extent next, then
 * global before weak before local, fewer leading underscores (the public
 * name), and the name itself so the choice never depends on table order.
 */
static int esym_cmp(const void *a, const void *b, void *arg)
{
	const struct esym *x = a, *y = b;
	const struct strtab *names = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->inferred != y->inferred)
		return x->inferred ? 1 : -1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(strtab__str(names, x->name), strtab__str(names, y->name));
}

/* One symbol per address; size-0 symbols end at the next known function start. */
void elf_syms__finish(struct elf_syms *es)
{
	size_t i, n = 0;

	if (es->nr)
		qsort_r(es->syms, es->nr, sizeof(*es->syms), esym_cmp, &es->names);
	for (i = 0; i < es->nr; i++) {
		if (n && es->syms[n - 1].addr == es->syms[i].addr)
			continue;
		es->syms[n++] = es->syms[i];
	}
	es->nr = n;
	/*
	 * A size-0 symbol (hand-written assembly) may run to the next symbol,
	 * but in a stripped object unnamed static functions can follow it: the
	 * next FDE start and the section end bound it as well.
	 */
	for (i = 0; i < n; i++) {
		struct esym *s = &es->syms[i];
		uint64_t end;

		if (!s->inferred)
			continue;
		end = text_range(es, s->addr)->end;
		if (i + 1 < n && es->syms[i + 1].addr < end)
			end = es->syms[i + 1].addr;
		if (next_fde(es, s->addr) < end)
			end = next_fde(es, s->addr);
		s->size = end - s->addr;
	}
	if (!es->keep_fde) {
		free(es->fde);
		es->fde = NULL;
		es->nr_fde = 0;
	}
	strtab__shrink(&es->names);
}

int elf_syms__load(struct elf_syms *es)
{
	int err;

	if (es->loaded) {
		if (es->fetch && !es->load_err)
			elf_syms__load_fetched(es);
		return es->load_err;
	}
	es->loaded = true;
	if (es->fetch)
		elf_syms__take_fetched(es);
	/* no full symbol table: the FDEs are all that tell functions apart */
	es->keep_fde = es->debug_fd < 0 && !es->id.has_symtab;
	if (es->debug_fd >= 0) {
		/* the debug file's .symtab is complete; .dynsym may add IFUNC resolvers */
		err = elf_syms__read_symbols(es, es->debug_fd, SHT_SYMTAB, false);
		if (!err)
			err = elf_syms__read_symbols(es, es->fd, SHT_DYNSYM, true);
	} else {
		err = elf_syms__read_symbols(es, es->fd, SHT_SYMTAB, true);
		if (!err)
			err = elf_syms__read_symbols(es, es->fd, SHT_DYNSYM, false);
		if (!err && es->keep_fde)
			err = elf_syms__read_minidebug(es);
	}
	if (!err)
		elf_syms__finish(es);
	else
		es->nr = 0;
	if (!err)
		elf_syms__keep_dwarf(es);
	/* symbols are in memory now: give back the fds and the vdso copy */
	elf_syms__close_fds(es);
	free(es->image);
	es->image = NULL;
	es->load_err = err;
	return err;
}

size_t elf_syms__nr(const struct elf_syms *es)
{
	return es->nr;
}

/*
 * Mappings carry file offsets, symbols virtual addresses. The executable
 * PT_LOAD wins where segments share a page of the file (-z noseparate-code
 * layouts map the same bytes twice).
 */
static const struct elf_seg *seg_of_off(const struct elf_syms *es, uint64_t off)
{
	const struct elf_seg *any = NULL;
	size_t i;

	for (i = 0; i < es->nr_segs; i++) {
		const struct elf_seg *s = &es->segs[i];

		if (off < s->off || off - s->off >= s->filesz)
			continue;
		if (s->exec) {
			any = s;
			break;
		}
		if (!any)
			any = s;
	}
	return any;
}

int elf_syms__off_to_vaddr(const struct elf_syms *es, uint64_t off, uint64_t *vaddr)
{
	const struct elf_seg *s = seg_of_off(es, off);

	if (!s)
		return -ENOENT;
	*vaddr = off - s->off + s->vaddr;
	return 0;
}

int elf_syms__fde_func(const struct elf_syms *es, uint64_t off, uint64_t *start_off,
		       uint64_t *size)
{
	const struct elf_seg *seg = seg_of_off(es, off);
	const struct elf_range *r;
	uint64_t vaddr, start, end;
	size_t lo = 0, hi = es->nr_fde;

	if (!seg || !es->fde_end)
		return -ENOENT;
	vaddr = off - seg->off + seg->vaddr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->fde[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	start = es->fde[lo - 1];
	end = es->fde_end[lo - 1];
	if (!end) {
		/* libdw could not tell: up to the next function or the section's end */
		r = text_range(es, start);
		end = lo < es->nr_fde ? es->fde[lo] : UINT64_MAX;
		if (r && r->end < end)
			end = r->end;
	}
	/* between functions (padding, code without CFI): not a function's */
	if (vaddr >= end || start < seg->vaddr)
		return -ENOENT;
	*start_off = start - seg->vaddr + seg->off;
	*size = end == UINT64_MAX ? 0 : end - start;
	return 0;
}

int elf_syms__segment_of(const struct elf_syms *es, uint64_t off, uint64_t *start,
			 uint64_t *end)
{
	const struct elf_seg *any = NULL;

	for (size_t i = 0; i < es->nr_segs; i++) {
		const struct elf_seg *s = &es->segs[i];

		if (off < s->off || off - s->off >= s->filesz)
			continue;
		if (!any || s->exec)
			any = s;
		if (s->exec)
			break;
	}
	if (!any)
		return -ENOENT;
	*start = any->off & ~4095ull;
	*end = any->off + any->filesz;
	return 0;
}

const char *elf_syms__lookup(struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off)
{
	const struct esym *s, *fallback = NULL;
	size_t lo = 0, hi, n;

	if (!es->loaded)
		elf_syms__load(es);
	hi = es->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* innermost real extent wins; an inferred one only if nothing sized encloses */
	for (n = 0; lo > 0 && n < ELF_SYMS_NEST_SCAN; lo--, n++) {
		s = &es->syms[lo - 1];
		if (vaddr - s->addr >= s->size)
			continue;
		if (!s->inferred) {
			fallback = s;
			break;
		}
		if (!fallback)
			fallback = s;
	}
	if (!fallback)
		return NULL;
	if (sym_off)
		*sym_off = vaddr - fallback->addr;
	return strtab__str(&es->names, fallback->name);
}

const char *elf_syms__lookup_off(struct elf_syms *es, uint64_t off, uint64_t *sym_off)
{
	uint64_t vaddr;

	if (elf_syms__off_to_vaddr(es, off, &vaddr))
		return NULL;
	return elf_syms__lookup(es, vaddr, sym_off);
}

const uint8_t *elf_syms__build_id(const struct elf_syms *es, size_t *len)
{
	*len = es->id.build_id_len;
	return es->id.build_id_len ? es->id.build_id : NULL;
}
