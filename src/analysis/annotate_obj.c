// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * annotate_object(): the object file behind a pprof mapping -> the
 * function's instructions with their source lines. Code bytes come from the
 * object itself; symbols and DWARF from it or, when it is stripped, from
 * its separate debug file (sym/elf_debug.c: build-id, then debuglink), so a
 * stripped binary with a debug file annotates the same as an unstripped one.
 */
#include "analysis/annotate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "sym/elf_debug.h"

/* Largest function read for disassembly: bounds memory and time per call. */
#define ANNOTATE_MAX_CODE (4u << 20)

static void note(struct annotate_result *r, const char *fmt, ...)
{
	size_t len = strlen(r->missing);
	va_list ap;

	if (len && len + 2 < sizeof(r->missing)) {
		strcpy(r->missing + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->missing + len, sizeof(r->missing) - len, fmt, ap);
	va_end(ap);
}

/*
 * File offset <-> link-time address through the PT_LOAD headers: @x is a
 * file offset (@from_off) or an address; *@avail (optional) gets the bytes
 * of the segment from there on. 0 or -ERANGE (in no loaded segment).
 */
static int seg_map(Elf *elf, uint64_t x, bool from_off, uint64_t *out, uint64_t *avail)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint64_t lo;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		lo = from_off ? ph.p_offset : ph.p_vaddr;
		if (x < lo || x >= lo + ph.p_filesz)
			continue;
		*out = from_off ? x - ph.p_offset + ph.p_vaddr : x - ph.p_vaddr + ph.p_offset;
		if (avail)
			*avail = lo + ph.p_filesz - x;
		return 0;
	}
	return -ERANGE;
}

static int off_to_vaddr(Elf *elf, uint64_t off, uint64_t *vaddr)
{
	return seg_map(elf, off, true, vaddr, NULL);
}

/*
 * A FUNC symbol named @name, else (name NULL or not found) the one holding
 * @addr; .symtab before .dynsym. 0 or -ESRCH.
 */
static int find_sym(Elf *elf, const char *name, uint64_t addr, char **sym, uint64_t *start,
		    uint64_t *size)
{
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;
			GElf_Sym s;

			if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
							sh.sh_type != SHT_DYNSYM) ||
			    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				const char *n;

				if (!gelf_getsym(data, (int)i, &s) ||
				    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size || !s.st_value)
					continue;
				n = elf_strptr(elf, sh.sh_link, s.st_name);
				if (!n)
					continue;
				if (pass == 0 ? !strcmp(n, name) :
				    (addr >= s.st_value && addr < s.st_value + s.st_size)) {
					*sym = strdup(n);
					*start = s.st_value;
					*size = s.st_size;
					return *sym ? 0 : -ENOMEM;
				}
			}
		}
	}
	return -ESRCH;
}

static bool has_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, want))
			return true;
	}
	return false;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/*
 * The CU holding @addr: .debug_aranges when present, else a walk of the CUs'
 * ranges (clang emits no aranges by default). Bounded by the CU count.
 */
static bool cu_of(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

/* Source line and innermost inlined callee of each instruction. */
static void map_lines(Dwarf *dw, struct annotate_result *r)
{
	Dwarf_Die cu;
	bool have_cu = false;

	for (size_t i = 0; i < r->nr_insns; i++) {
		struct annotate_insn *in = &r->insns[i];
		Dwarf_Die *scopes = NULL;
		Dwarf_Line *l;
		const char *src;
		int lineno, ns;

		/* a function lies in one CU: look it up once */
		if (!have_cu && !(have_cu = cu_of(dw, in->addr, &cu)))
			continue;
		if (!(l = dwarf_getsrc_die(&cu, in->addr)))
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		if (src && !dwarf_lineno(l, &lineno) && lineno > 0) {
			in->file = annotate_intern(r, src);
			in->line = (uint32_t)lineno;
		}
		ns = dwarf_getscopes(&cu, in->addr, &scopes);
		for (int k = 0; k < ns; k++) {
			Dwarf_Attribute a;
			const char *n;

			if (dwarf_tag(&scopes[k]) != DW_TAG_inlined_subroutine)
				continue;
			n = dwarf_formstring(dwarf_attr_integrate(&scopes[k], DW_AT_name, &a));
			in->inlined = n ? annotate_intern(r, n) : NULL;
			break;
		}
		free(scopes);
	}
}

/* Spread the samples over the instructions holding their offsets. */
static void weigh(const struct annotate_sel *s, Elf *elf, struct annotate_result *r)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nr; i++) {
		uint64_t va;

		if (off_to_vaddr(elf, s->v[i].off, &va) || va < r->sym_addr ||
		    va >= r->sym_addr + r->sym_size) {
			r->outside += s->v[i].weight;
			continue;
		}
		/* both sorted by address: one forward walk */
		while (k + 1 < r->nr_insns && r->insns[k + 1].addr <= va)
			k++;
		if (r->nr_insns && r->insns[k].addr <= va)
			r->insns[k].weight += s->v[i].weight;
		else
			r->outside += s->v[i].weight;
	}
}

/*
 * Without a disassembler there are no instructions to weigh: every sample
 * would count as outside the function and no line would show. -ENOENT, with
 * the cause alone in r->missing (what else it noted is about a view not shown).
 */
static int no_disasm(struct annotate_result *r, const char *why)
{
	r->missing[0] = '\0';
	note(r, "%s; without it there is no per-line view of %s", why, r->symbol);
	return -ENOENT;
}

static int read_code(int fd, Elf *elf, struct annotate_result *r)
{
	uint64_t off, avail, len = r->sym_size;
	char why[sizeof(r->missing) / 2];
	uint8_t *code;
	ssize_t got;
	int err;

	if (annotate_disasm_load(why, sizeof(why)))
		return no_disasm(r, why);
	if (seg_map(elf, r->sym_addr, false, &off, &avail)) {
		note(r, "%s: no code for %s in the file", r->obj_path, r->symbol);
		return 0;
	}
	r->sym_off = off;
	r->has_code = true;
	if (len > avail)
		len = avail;
	if (len > ANNOTATE_MAX_CODE) {
		note(r, "%s is %llu bytes: disassembled its first %u", r->symbol,
		     (unsigned long long)len, ANNOTATE_MAX_CODE);
		len = ANNOTATE_MAX_CODE;
	}
	code = malloc(len ? len : 1);
	if (!code)
		return -ENOMEM;
	got = pread(fd, code, len, (off_t)off);
	if (got != (ssize_t)len) {
		free(code);
		note(r, "%s: short read of %s's code", r->obj_path, r->symbol);
		return 0;
	}
	err = annotate_disasm(code, len, r->sym_addr, &r->insns, &r->nr_insns);
	free(code);
	if (err == -EOPNOTSUPP)	/* capstone loaded, built without this architecture */
		return no_disasm(r, "the disassembler has no mode for this architecture");
	return err;
}

int annotate_object(const struct annotate_sel *s, const char *func,
		    const struct annotate_opts *o, struct annotate_result *r)
{
	struct elf_ident id = { 0 };
	Elf *elf = NULL, *delf = NULL, *symelf;
	int fd = -1, dfd = -1, err;
	uint64_t hot_va = 0, hot_w = 0;
	Dwarf *dw = NULL;
	char idhex[2 * ELF_BUILD_ID_MAX + 1];

	memset(r, 0, sizeof(*r));
	elf_version(EV_CURRENT);
	if (!s->file || !*s->file) {
		note(r, "the profile names no file for %s's mapping", func);
		return -ENOENT;
	}
	if (asprintf(&r->obj_path, "%s%s", o->root ? o->root : "", s->file) < 0) {
		r->obj_path = NULL;
		return -ENOMEM;
	}
	fd = open(r->obj_path, O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		note(r, "cannot read %s: %s", r->obj_path, fd < 0 ? strerror(errno) : "not ELF");
		err = -ENOENT;
		goto out;
	}
	if (!elf_ident_read(elf, &id) && id.build_id_len) {
		hex(id.build_id, id.build_id_len, idhex);
		if (s->build_id && *s->build_id && strcmp(idhex, s->build_id))
			note(r, "%s has build ID %s, the profile %s: the file changed since "
			     "recording, this view may not match", r->obj_path, idhex, s->build_id);
	}
	if (!id.has_symtab || !has_section(elf, ".debug_line")) {
		struct elf_debug_query q = {
			.id = &id, .path = s->file, .root = o->root,
			.debug_root = o->debug_root ? o->debug_root : "/usr/lib/debug",
			.obj_fd = fd,
		};

		dfd = elf_debug_find(&q, &r->debug_path);
		delf = dfd >= 0 ? elf_begin(dfd, ELF_C_READ_MMAP, NULL) : NULL;
	}
	for (size_t i = 0; i < s->nr; i++)
		if (s->v[i].weight > hot_w) {
			hot_w = s->v[i].weight;
			off_to_vaddr(elf, s->v[i].off, &hot_va);
		}
	symelf = delf ? delf : elf;
	err = find_sym(symelf, func, hot_va, &r->symbol, &r->sym_addr, &r->sym_size);
	if (err == -ESRCH && delf)
		err = find_sym(elf, func, hot_va, &r->symbol, &r->sym_addr, &r->sym_size);
	if (err) {
		note(r, "no symbol %s in %s%s%s", func, r->obj_path,
		     r->debug_path ? " nor " : "", r->debug_path ? r->debug_path : "");
		goto out;
	}
	if (strcmp(r->symbol, func))
		note(r, "no symbol %s: showing %s, which holds its hottest address", func,
		     r->symbol);
	err = read_code(fd, elf, r);
	if (err)
		goto out;
	dw = dwarf_begin_elf(delf ? delf : elf, DWARF_C_READ, NULL);
	if (dw)
		map_lines(dw, r);
	if (dw && r->nr_insns && !r->insns[0].file && !r->insns[r->nr_insns - 1].file)
		note(r, "no line information for %s in %s's DWARF", r->symbol,
		     r->debug_path ? r->debug_path : r->obj_path);
	else if (!dw)
		note(r, "no DWARF line table in %s%s (install its debug file, or build with -g): "
		     "per-instruction view only", r->obj_path, r->debug_path ? " nor its debug file" : "");
	weigh(s, elf, r);
	err = annotate_lines(r);
	if (!err)
		annotate_source(r, o);
out:
	if (dw)
		dwarf_end(dw);
	if (delf)
		elf_end(delf);
	if (elf)
		elf_end(elf);
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0)
		close(fd);
	elf_ident_release(&id);
	return err;
}
