// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Build-id / debuglink reading and the separate debug file search (see elf_debug.h). */
#include "sym/elf_debug.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "util/log.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define CRC_CHUNK (64 * 1024)
/* the largest debug files seen (a browser with full DWARF) are a few GiB */
#define ELF_DEBUG_MAX_BYTES (8ull << 30)

/* Scan one note blob for the GNU build-id. */
static void scan_notes(Elf_Data *data, struct elf_ident *id)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		/* owner "GNU\0": other vendors reuse type 3 for unrelated notes */
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
			id->build_id_len = nh.n_descsz < ELF_BUILD_ID_MAX ? nh.n_descsz :
									    ELF_BUILD_ID_MAX;
			memcpy(id->build_id, (char *)data->d_buf + desc_off, id->build_id_len);
			return;
		}
		off = next;
	}
}

/* .gnu_debuglink: NUL-terminated basename, padding to 4, then the CRC32. */
static void read_debuglink(Elf *elf, Elf_Data *data, struct elf_ident *id)
{
	const char *buf = data->d_buf, *nul;
	const unsigned char *c;
	size_t crc_off;

	if (!buf || !data->d_size)
		return;
	nul = memchr(buf, '\0', data->d_size);
	if (!nul || nul == buf)
		return;
	crc_off = ((size_t)(nul - buf) + 1 + 3) & ~(size_t)3;
	if (crc_off + 4 > data->d_size)
		return;
	c = (const unsigned char *)buf + crc_off;
	if (elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB)
		id->debuglink_crc = (uint32_t)c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3];
	else
		id->debuglink_crc = (uint32_t)c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0];
	free(id->debuglink);
	id->debuglink = strdup(buf);
}

static void read_phdr_notes(Elf *elf, struct elf_ident *id)
{
	size_t i, nr;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nr))
		return;
	for (i = 0; i < nr && !id->build_id_len; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		scan_notes(elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						ELF_T_NHDR),
			   id);
	}
}

int elf_ident_read(Elf *elf, struct elf_ident *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *name;

	memset(id, 0, sizeof(*id));
	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_NOTE && !id->build_id_len) {
			scan_notes(elf_getdata(scn, NULL), id);
		} else if (sh.sh_type == SHT_SYMTAB && sh.sh_entsize &&
			   sh.sh_size / sh.sh_entsize > 1) {
			id->has_symtab = true;
		} else if (sh.sh_type == SHT_PROGBITS && shstrndx) {
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".gnu_debuglink")) {
				Elf_Data *d = elf_getdata(scn, NULL);

				if (d)
					read_debuglink(elf, d, id);
			}
		}
	}
	if (!id->build_id_len)
		read_phdr_notes(elf, id);
	return 0;
}

void elf_ident_release(struct elf_ident *id)
{
	free(id->debuglink);
	id->debuglink = NULL;
}

/*
 * binutils computes the debuglink CRC with the same polynomial and
 * conditioning as zlib's crc32() (gnu_debuglink_crc32), over the whole file.
 * pread() keeps the fd offset untouched for libelf.
 */
int elf_file_crc32(int fd, uint32_t *crc)
{
	unsigned char *buf;
	uLong c = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	buf = malloc(CRC_CHUNK);
	if (!buf)
		return -ENOMEM;
	while ((n = pread(fd, buf, CRC_CHUNK, off)) > 0) {
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	free(buf);
	if (n < 0)
		return -errno;
	*crc = (uint32_t)c;
	return 0;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	if (a < 0 || b < 0 || fstat(a, &sa) || fstat(b, &sb))
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Is @fd a usable debug file for @q? */
static bool candidate_ok(int fd, const struct elf_debug_query *q, bool check_crc)
{
	struct elf_ident cid;
	struct stat st;
	uint32_t crc;
	Elf *elf;
	bool ok;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || same_file(fd, q->obj_fd))
		return false;
	/*
	 * Size sanity: a debug file can sit next to a user's binary, and its CRC
	 * reads it whole: a sparse terabyte would keep us busy for hours.
	 */
	if ((uint64_t)st.st_size > ELF_DEBUG_MAX_BYTES) {
		pr_debug("elf: ignoring a debug file of %lld MiB (over %llu MiB)\n",
			 (long long)(st.st_size >> 20), ELF_DEBUG_MAX_BYTES >> 20);
		return false;
	}
	if (check_crc && (elf_file_crc32(fd, &crc) || crc != q->id->debuglink_crc))
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return false;
	ok = !elf_ident_read(elf, &cid) && cid.has_symtab;
	/* a build-id on both sides must agree: the file may be for another build */
	if (ok && q->id->build_id_len && cid.build_id_len)
		ok = cid.build_id_len == q->id->build_id_len &&
		     !memcmp(cid.build_id, q->id->build_id, cid.build_id_len);
	elf_ident_release(&cid);
	elf_end(elf);
	return ok;
}

static int try_path(char *path, const struct elf_debug_query *q, bool check_crc,
		    char **found_path)
{
	int fd;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && candidate_ok(fd, q, check_crc)) {
		pr_debug("symbolizer: using debug file '%s'\n", path);
		if (found_path)
			*found_path = path;
		else
			free(path);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return -ENOENT;
}

/* GDB's layout: the first byte names a directory, the rest the file. */
static char *build_id_path(const struct elf_debug_query *q)
{
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	char *path;
	size_t i;

	for (i = 0; i < q->id->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", q->id->build_id[i]);
	if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", q->debug_root, hex, hex + 2) < 0)
		return NULL;
	return path;
}

/* A debuglink must be a plain file name: it comes from an untrusted binary. */
static bool debuglink_ok(const char *link)
{
	return link && *link && !strchr(link, '/') && strcmp(link, ".") && strcmp(link, "..");
}

int elf_debug_find(const struct elf_debug_query *q, char **found_path)
{
	const char *root = q->root ? q->root : "";
	const char *link = q->id->debuglink;
	bool have_root = q->debug_root && *q->debug_root;
	const char *slash;
	char *path;
	int dir_len, fd;

	elf_version(EV_CURRENT);
	if (have_root && q->id->build_id_len >= 2) {
		fd = try_path(build_id_path(q), q, false, found_path);
		if (fd >= 0)
			return fd;
	}
	if (!debuglink_ok(link) || !q->path || q->path[0] != '/')
		return -ENOENT;
	slash = strrchr(q->path, '/');
	dir_len = (int)(slash - q->path);
	if (asprintf(&path, "%s%.*s/%s", root, dir_len, q->path, link) < 0)
		path = NULL;
	fd = try_path(path, q, true, found_path);
	if (fd >= 0)
		return fd;
	if (asprintf(&path, "%s%.*s/.debug/%s", root, dir_len, q->path, link) < 0)
		path = NULL;
	fd = try_path(path, q, true, found_path);
	if (fd >= 0 || !have_root)
		return fd;
	if (asprintf(&path, "%s%.*s/%s", q->debug_root, dir_len, q->path, link) < 0)
		path = NULL;
	return try_path(path, q, true, found_path);
}

int elf_debug_open(const char *path, const struct elf_ident *id)
{
	struct elf_debug_query q = { .id = id, .obj_fd = -1 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (!candidate_ok(fd, &q, false)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}
