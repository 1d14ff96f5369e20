// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* /tmp/perf-PID.map loader and lookup (see perfmap.h). */
#include "sym/perfmap.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/strtab.h"
#include "util/log.h"

/*
 * JITs rarely emit overlapping entries (code replaced in place); look back
 * this many entries for a newer one that also contains the address.
 */
#define PERFMAP_OVERLAP_SCAN 8

struct pm_entry {
	uint64_t start;
	uint64_t end;		/* exclusive */
	uint32_t name;		/* strtab offset */
	uint32_t seq;		/* line number: later wins */
};

struct perfmap {
	struct pm_entry *ents;
	size_t nr;
	size_t cap;
	struct strtab names;
};

static bool parse_hex(char **p, uint64_t *out)
{
	char *s = *p, *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!isxdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoull(s, &end, 16);
	if (errno || (*end != ' ' && *end != '\t'))
		return false;
	*p = end;
	return true;
}

/*
 * "START SIZE name": perf's own parser takes both numbers as hex with an
 * optional 0x, and the name as the rest of the line; JITs differ in which
 * form they write (V8 uses "0x", Java agents and Python do not).
 */
static bool parse_line(char *line, struct pm_entry *e, char **name, size_t *len)
{
	char *p = line;
	uint64_t size;

	if (!parse_hex(&p, &e->start))
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!parse_hex(&p, &size) || !size || size > UINT64_MAX - e->start)
		return false;
	e->end = e->start + size;
	while (*p == ' ' || *p == '\t')
		p++;
	*name = p;
	*len = strcspn(p, "\r\n");
	while (*len && (p[*len - 1] == ' ' || p[*len - 1] == '\t'))
		(*len)--;
	return *len > 0;
}

static int perfmap__push(struct perfmap *pm, const struct pm_entry *e)
{
	struct pm_entry *ents;
	size_t cap;

	if (pm->nr == pm->cap) {
		cap = pm->cap ? pm->cap * 2 : 256;
		ents = realloc(pm->ents, cap * sizeof(*ents));
		if (!ents)
			return -ENOMEM;
		pm->ents = ents;
		pm->cap = cap;
	}
	pm->ents[pm->nr++] = *e;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort, keeping only the newest entry per start address. */
static void perfmap__finish(struct perfmap *pm)
{
	size_t i, n = 0;

	if (pm->nr)
		qsort(pm->ents, pm->nr, sizeof(*pm->ents), entry_cmp);
	for (i = 0; i < pm->nr; i++) {
		if (n && pm->ents[n - 1].start == pm->ents[i].start)
			n--;
		pm->ents[n++] = pm->ents[i];
	}
	pm->nr = n;
	strtab__shrink(&pm->names);
}

struct perfmap *perfmap__parse(FILE *f)
{
	struct perfmap *pm;
	struct pm_entry e = {};
	char *line = NULL, *name;
	size_t line_cap = 0, len;
	int err = 0;

	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	strtab__init(&pm->names);
	while (getline(&line, &line_cap, f) >= 0) {
		if (e.seq == UINT32_MAX)
			break;
		e.seq++;
		if (!parse_line(line, &e, &name, &len))
			continue;
		err = strtab__add(&pm->names, name, len, &e.name);
		if (!err)
			err = perfmap__push(pm, &e);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (err) {
		perfmap__free(pm);
		errno = -err;
		return NULL;
	}
	perfmap__finish(pm);
	return pm;
}

int perfmap_check_file(int fd, uid_t owner)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EPERM;
	if (st.st_uid != owner && st.st_uid != 0)
		return -EPERM;
	return 0;
}

struct perfmap *perfmap__load_at(int dirfd, const char *dir, uint32_t pid, uid_t owner)
{
	struct perfmap *pm;
	char name[32];
	FILE *f;
	int fd, err;

	snprintf(name, sizeof(name), "perf-%u.map", pid);
	/* O_NONBLOCK: a FIFO planted under that name must not block us */
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		if (err != ENOENT)
			pr_debug("perfmap: cannot open '%s/%s': %s\n", dir, name, strerror(err));
		errno = err;
		return NULL;
	}
	err = perfmap_check_file(fd, owner);
	if (err) {
		pr_debug("perfmap: ignoring '%s/%s': %s\n", dir, name,
			 err == -EPERM ? "not a regular file owned by the process's user or root" :
					 strerror(-err));
		close(fd);
		errno = -err;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
		return NULL;
	}
	pm = perfmap__parse(f);
	err = errno;
	fclose(f);
	if (!pm)
		errno = err;
	return pm;
}

struct perfmap *perfmap__load(const char *dir, uint32_t pid, uid_t owner)
{
	struct perfmap *pm;
	int dirfd, err;

	dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return NULL;
	pm = perfmap__load_at(dirfd, dir, pid, owner);
	err = errno;
	close(dirfd);
	errno = err;
	return pm;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	strtab__release(&pm->names);
	free(pm->ents);
	free(pm);
}

size_t perfmap__nr(const struct perfmap *pm)
{
	return pm->nr;
}

const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off)
{
	const struct pm_entry *best = NULL, *e;
	size_t lo = 0, hi = pm->nr, n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo > 0 && n < PERFMAP_OVERLAP_SCAN; lo--, n++) {
		e = &pm->ents[lo - 1];
		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return NULL;
	if (off)
		*off = addr - best->start;
	return strtab__str(&pm->names, best->name);
}
