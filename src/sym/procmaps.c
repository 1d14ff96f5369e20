// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /proc/PID/maps parser (see procmaps.h). Input is untrusted: never crash on garbage. */
#include "sym/procmaps.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sym/strtab.h"
#include "util/log.h"

struct procmaps {
	struct procmap *maps;
	size_t nr;
	size_t cap;
	struct strtab paths;
};

static const char deleted_suffix[] = " (deleted)";

/* Hex number followed by @sep ('\0' sep: any). Advances *@p past the separator. */
static int parse_hex(char **p, char sep, uint64_t *out)
{
	char *end;

	if (!isxdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*out = strtoull(*p, &end, 16);
	if (errno || *end != sep)
		return -EINVAL;
	*p = end + 1;
	return 0;
}

static int parse_perms(char **p, unsigned int *perms)
{
	const char *s = *p;

	if (strlen(s) < 5 || s[4] != ' ')
		return -EINVAL;
	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's'))
		return -EINVAL;
	*perms = (s[0] == 'r' ? PROCMAP_R : 0) | (s[1] == 'w' ? PROCMAP_W : 0) |
		 (s[2] == 'x' ? PROCMAP_X : 0) | (s[3] == 's' ? PROCMAP_SHARED : 0);
	*p += 5;
	return 0;
}

static enum procmap_kind classify(const char *path)
{
	size_t len = strlen(path);

	if (!len)
		return PROCMAP_ANON;
	if (path[0] == '/')
		return PROCMAP_FILE;
	if (path[0] != '[' || path[len - 1] != ']')
		return PROCMAP_OTHER;
	if (!strcmp(path, "[vdso]"))
		return PROCMAP_VDSO;
	if (!strncmp(path, "[anon:", 6) || !strcmp(path, "[heap]") ||
	    !strncmp(path, "[stack", 6))
		return PROCMAP_ANON;
	return PROCMAP_SPECIAL;
}

/* @p (@len bytes, writable) as @m's path: " (deleted)" cut off and flagged, kind set. */
static void set_path(struct procmap *m, char *p, size_t len)
{
	/*
	 * d_path() appends " (deleted)" to unlinked files; a file really named
	 * "x (deleted)" is indistinguishable, as for every other tool.
	 */
	if (len >= sizeof(deleted_suffix) - 1 &&
	    !strcmp(p + len - (sizeof(deleted_suffix) - 1), deleted_suffix)) {
		len -= sizeof(deleted_suffix) - 1;
		p[len] = '\0';
		m->deleted = true;
	}
	m->path = p;
	m->kind = classify(p);
}

/*
 * The kernel (show_map_vma) prints "%lx-%lx %c%c%c%c %08llx %02x:%02x %lu ",
 * pads with spaces to a fixed column when a name follows, then the name. So
 * everything after the inode and the padding is the path, spaces included;
 * a path cannot start with a space because file paths are absolute and
 * pseudo names start with '['.
 */
int procmaps_parse_line(char *line, struct procmap *m)
{
	char *p = line, *end;
	uint64_t major, minor;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (parse_hex(&p, '-', &m->start) || parse_hex(&p, ' ', &m->end) ||
	    m->start >= m->end)
		return -EINVAL;
	if (parse_perms(&p, &m->perms) || parse_hex(&p, ' ', &m->pgoff) ||
	    parse_hex(&p, ':', &major) || parse_hex(&p, ' ', &minor))
		return -EINVAL;
	if (major > UINT32_MAX || minor > UINT32_MAX || !isdigit((unsigned char)*p))
		return -EINVAL;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	errno = 0;
	m->inode = strtoull(p, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -EINVAL;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	len = strlen(p);
	if (len && p[len - 1] == '\n')
		p[--len] = '\0';
	set_path(m, p, len);
	return 0;
}

static int procmaps__push(struct procmaps *pm, const struct procmap *m, uint32_t path_off)
{
	struct procmap *maps;
	size_t cap;

	if (pm->nr == pm->cap) {
		cap = pm->cap ? pm->cap * 2 : 64;
		maps = realloc(pm->maps, cap * sizeof(*maps));
		if (!maps)
			return -ENOMEM;
		pm->maps = maps;
		pm->cap = cap;
	}
	pm->maps[pm->nr] = *m;
	/* the arena may still move: keep the offset, turn it into a pointer at the end */
	pm->maps[pm->nr].path = (const char *)(uintptr_t)path_off;
	pm->nr++;
	return 0;
}

/*
 * A process's mappings are many and their paths can be long (a user can map
 * one file 65530 times under a 4 KiB path): consecutive mappings of one path
 * share its copy, and past PROCMAPS_MAX_MAPS mappings or
 * PROCMAPS_MAX_PATH_BYTES of paths the rest are dropped, counted.
 */
#define PROCMAPS_MAX_MAPS (1u << 18)		/* the largest vm.max_map_count seen set */
#define PROCMAPS_MAX_PATH_BYTES (16u << 20)

static uint64_t procmaps_nr_dropped;

uint64_t procmaps_dropped(void)
{
	return __atomic_load_n(&procmaps_nr_dropped, __ATOMIC_RELAXED);
}

static int procmaps__add(struct procmaps *pm, const struct procmap *m)
{
	size_t len = strlen(m->path);
	uint32_t off;
	int err;

	if (pm->nr && !strcmp(strtab__str(&pm->paths,
					  (uint32_t)(uintptr_t)pm->maps[pm->nr - 1].path), m->path))
		return procmaps__push(pm, m, (uint32_t)(uintptr_t)pm->maps[pm->nr - 1].path);
	if (pm->nr >= PROCMAPS_MAX_MAPS || pm->paths.len + len >= PROCMAPS_MAX_PATH_BYTES) {
		__atomic_fetch_add(&procmaps_nr_dropped, 1, __ATOMIC_RELAXED);
		return 0;
	}
	err = strtab__add(&pm->paths, m->path, len, &off);
	return err ? err : procmaps__push(pm, m, off);
}

static int procmap_cmp(const void *a, const void *b)
{
	const struct procmap *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

struct procmaps *procmaps__parse(FILE *f, unsigned int flags)
{
	struct procmaps *pm;
	struct procmap m;
	char *line = NULL;
	size_t line_cap = 0, i;
	int err = 0;

	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	strtab__init(&pm->paths);
	while (getline(&line, &line_cap, f) >= 0) {
		if (procmaps_parse_line(line, &m))
			continue;
		if ((flags & PROCMAPS_EXEC_ONLY) && !(m.perms & PROCMAP_X))
			continue;
		err = procmaps__add(pm, &m);
		if (err)
			break;
	}
	/* reading maps of an exiting task fails mid-way with ESRCH or similar */
	if (!err && ferror(f))
		err = errno ? -errno : -EIO;
	free(line);
	if (err) {
		procmaps__free(pm);
		errno = -err;
		return NULL;
	}
	for (i = 0; i < pm->nr; i++)
		pm->maps[i].path = strtab__str(&pm->paths, (uint32_t)(uintptr_t)pm->maps[i].path);
	if (pm->nr)
		qsort(pm->maps, pm->nr, sizeof(*pm->maps), procmap_cmp);
	return pm;
}

/*
 * PROCMAP_QUERY (Linux 6.11, uapi linux/fs.h; the build's headers may be
 * older): one ioctl per executable mapping instead of the whole file as
 * text, which the kernel formats with d_path() for every mapping, executable
 * or not. The same names: both use get_vma_name().
 */
#define HC_PROCMAP_QUERY	_IOWR('f', 17, struct hc_procmap_query)
#define HC_PROCMAP_QUERY_VMA_EXECUTABLE		0x04
#define HC_PROCMAP_QUERY_COVERING_OR_NEXT_VMA	0x10

struct hc_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;	/* the query flags' r/w/x/s bits: PROCMAP_R/W/X/SHARED */
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;	/* in: buffer size; out: name length + 1, 0 if none */
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
_Static_assert(sizeof(struct hc_procmap_query) == 104, "procmap_query ABI");

/* Executable mappings of the maps file @fd by ioctl. -ENOTTY: not supported here. */
static int query_exec(int fd, struct procmaps *pm)
{
	struct hc_procmap_query q;
	struct procmap m;
	char name[4096];
	uint64_t addr = 0;
	int err;

	for (;;) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = HC_PROCMAP_QUERY_VMA_EXECUTABLE | HC_PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
		q.query_addr = addr;
		q.vma_name_addr = (uintptr_t)name;
		q.vma_name_size = sizeof(name);
		if (ioctl(fd, HC_PROCMAP_QUERY, &q))
			return errno == ENOENT ? 0 : -errno;	/* ENOENT: no more */
		memset(&m, 0, sizeof(m));
		m.start = q.vma_start;
		m.end = q.vma_end;
		m.pgoff = q.vma_offset;
		m.inode = q.inode;
		m.dev_major = q.dev_major;
		m.dev_minor = q.dev_minor;
		m.perms = (unsigned int)q.vma_flags & (PROCMAP_R | PROCMAP_W | PROCMAP_X | PROCMAP_SHARED);
		if (!q.vma_name_size)
			name[0] = '\0';
		set_path(&m, name, strlen(name));
		err = procmaps__add(pm, &m);
		if (err)
			return err;
		addr = q.vma_end;
	}
}

/* By ioctl: NULL with errno ENOTTY where unsupported (or @path is no maps file). */
static struct procmaps *load_by_query(const char *path)
{
	struct procmaps *pm;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	strtab__init(&pm->paths);
	err = query_exec(fd, pm);
	close(fd);
	if (err) {
		procmaps__free(pm);
		errno = -err;
		return NULL;
	}
	/* in address order already: each query starts where the last mapping ended */
	for (size_t i = 0; i < pm->nr; i++)
		pm->maps[i].path = strtab__str(&pm->paths, (uint32_t)(uintptr_t)pm->maps[i].path);
	return pm;
}

struct procmaps *procmaps__load(const char *path, unsigned int flags)
{
	struct procmaps *pm;
	FILE *f;
	int err;

	if (flags & PROCMAPS_EXEC_ONLY) {
		pm = load_by_query(path);
		/* ENOTTY: before 6.11, or a file (tests); EINVAL: a name too long, say */
		if (pm || (errno != ENOTTY && errno != EINVAL && errno != ENAMETOOLONG))
			return pm;
	}
	f = fopen(path, "re");
	if (!f)
		return NULL;
	errno = 0;
	pm = procmaps__parse(f, flags);
	err = errno;
	fclose(f);
	if (!pm) {
		pr_debug("procmaps: cannot read '%s': %s\n", path, strerror(err));
		errno = err;
	}
	return pm;
}

void procmaps__free(struct procmaps *pm)
{
	if (!pm)
		return;
	strtab__release(&pm->paths);
	free(pm->maps);
	free(pm);
}

size_t procmaps__nr(const struct procmaps *pm)
{
	return pm->nr;
}

const struct procmap *procmaps__entry(const struct procmaps *pm, size_t i)
{
	return i < pm->nr ? &pm->maps[i] : NULL;
}

const struct procmap *procmaps__find(const struct procmaps *pm, uint64_t addr)
{
	size_t lo = 0, hi = pm->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < pm->maps[lo - 1].end)
		return &pm->maps[lo - 1];
	return NULL;
}
