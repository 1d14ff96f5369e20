// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where a stripped object's symbols come from besides itself: its separate
 * debug file (found on disk or sent by debuginfod, late answers included)
 * and its MiniDebugInfo (.gnu_debugdata); see elf_syms.h.
 */
#include "sym/elf_syms.h"
#include "sym/elf_syms_int.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/dbgfetch.h"
#include "sym/minidebug.h"
#include "util/log.h"

static bool has_dwarf(int fd);

void elf_syms__find_debug(struct elf_syms *es, const struct elf_syms_opts *o)
{
	struct elf_debug_query q = {
		.id = &es->id,
		.path = o ? o->path : NULL,
		.root = o ? o->root : NULL,
		.debug_root = o && o->debug_root ? o->debug_root : "/usr/lib/debug",
		.obj_fd = es->fd,
	};
	int fd;

	fd = elf_debug_find(&q, &es->debug_path);
	if (fd >= 0) {
		es->debug_fd = fd;
		return;
	}
	/* none here: a debuginfod server may have it (asked now, used when it came) */
	if (o && o->fetch && es->id.build_id_len) {
		es->fetch_slot = dbgfetch__request(o->fetch, es->id.build_id, es->id.build_id_len);
		if (es->fetch_slot >= 0)
			es->fetch = o->fetch;
	}
}

/*
 * Add the .symtab of the object's MiniDebugInfo (.gnu_debugdata), if any.
 * A bad one is not an error of the object: its .dynsym still names what it
 * can.
 */
int elf_syms__read_minidebug(struct elf_syms *es)
{
	void *image = NULL;
	Elf_Scn *scn = NULL;
	size_t size = 0;
	GElf_Shdr sh;
	Elf *elf;
	int err;

	elf = elf_syms__begin(es, es->fd);
	if (!elf)
		return 0;
	err = minidebug_read(elf, &image, &size);
	elf_end(elf);
	if (err) {
		if (err != -ENOENT)
			pr_debug("elf_syms: bad .gnu_debugdata: %s\n", strerror(-err));
		return err == -ENOMEM ? err : 0;
	}
	elf = elf_memory(image, size);
	err = 0;
	while (elf && !err && (scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			err = elf_syms__read_symtab(es, elf, scn, &sh);
	}
	if (elf)
		elf_end(elf);
	free(image);
	if (!err)
		es->minidebug = true;
	return err;
}

/*
 * The debuginfod answer, if it has come: 0 with es->debug_fd and
 * es->debug_path set, -EINPROGRESS (ask again later) or -ENOENT (none).
 */
int elf_syms__take_fetched(struct elf_syms *es)
{
	char *path = NULL;
	int err, fd;

	err = dbgfetch__result(es->fetch, es->fetch_slot, &path);
	if (err == -EINPROGRESS)
		return err;
	es->fetch = NULL;
	if (err)
		return err;
	fd = elf_debug_open(path, &es->id);
	if (fd < 0) {
		pr_debug("elf_syms: debuginfod sent an unusable '%s'\n", path);
		free(path);
		return -ENOENT;
	}
	es->debug_fd = fd;
	free(es->debug_path);
	es->debug_path = path;
	return 0;
}

int elf_syms__add_debug_file(struct elf_syms *es, const char *path)
{
	int fd, err;

	if (!es->loaded || es->load_err)
		return -EINVAL;
	if (!es->keep_fde)
		return -EEXIST;	/* it had a .symtab or a debug file already */
	fd = elf_debug_open(path, &es->id);
	if (fd < 0)
		return fd;
	/* the object's .dynsym (and MiniDebugInfo) are in already */
	err = elf_syms__read_symbols(es, fd, SHT_SYMTAB, false);
	/* a late debuginfod answer is also the DWARF for source lines */
	if (!err && es->dwarf_fd < 0 && has_dwarf(fd))
		es->dwarf_fd = fd;
	else
		close(fd);
	if (err)
		return err;
	es->keep_fde = false;	/* a full .symtab now: as if never stripped */
	elf_syms__finish(es);
	free(es->fde_end);
	es->fde_end = NULL;
	free(es->debug_path);
	es->debug_path = strdup(path);
	return 0;
}

/* Symbols were loaded while the fetch was in flight: use the debug file if it has come since. */
void elf_syms__load_fetched(struct elf_syms *es)
{
	char *path = NULL;
	int err;

	err = dbgfetch__result(es->fetch, es->fetch_slot, &path);
	if (err == -EINPROGRESS)
		return;
	es->fetch = NULL;
	if (!err && elf_syms__add_debug_file(es, path))
		pr_debug("elf_syms: debuginfod sent an unusable '%s'\n", path);
	free(path);
}

bool elf_syms__minidebug(const struct elf_syms *es)
{
	return es->minidebug;
}

const char *elf_syms__debug_path(const struct elf_syms *es)
{
	return es->debug_path;
}

/* Does the ELF file behind @fd carry DWARF (a .debug_info with contents)? */
static bool has_dwarf(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	bool found = false;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!elf)
		return false;
	if (elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while (!found && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		found = name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"));
	}
out:
	elf_end(elf);
	return found;
}

void elf_syms__keep_dwarf(struct elf_syms *es)
{
	/* the vdso image has no DWARF, and no fd to keep */
	if (es->dwarf_fd >= 0 || es->image)
		return;
	if (es->debug_fd >= 0 && has_dwarf(es->debug_fd)) {
		es->dwarf_fd = es->debug_fd;
		es->debug_fd = -1;
	} else if (es->fd >= 0 && has_dwarf(es->fd)) {
		es->dwarf_fd = es->fd;
		es->fd = -1;
	}
}

int elf_syms__take_dwarf_fd(struct elf_syms *es)
{
	int fd = es->dwarf_fd;

	es->dwarf_fd = -1;
	return fd >= 0 ? fd : -ENOENT;
}
