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
/*
 * Anyone can write a perf map for their own process: bound what one costs
 * the root agent. Past PERFMAP_MAX_BYTES only the file's last bytes are read
 * (a JIT appends, the newest code is at the end); ~8 MiB of lines hold
 * ~150k symbols in ~15 MB. Longer lines than PERFMAP_MAX_LINE are skipped.
 */
#define PERFMAP_MAX_BYTES (8u << 20)
#define PERFMAP_MAX_LINE 4096

static uint64_t perfmap_nr_capped, perfmap_bytes_skipped;

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

/* Past an over-long line's first PERFMAP_MAX_LINE bytes; false at EOF. */
static bool skip_rest_of_line(FILE *f, uint64_t *used, uint64_t max)
{
	int c;

	while (*used < max && (c = getc(f)) != EOF) {
		++*used;
		if (c == '\n')
			return true;
	}
	return false;
}

/* At most @max bytes of @f; what is left unread is counted by the caller. */
static struct perfmap *parse_bounded(FILE *f, uint64_t max, uint64_t *used)
{
	struct perfmap *pm;
	struct pm_entry e = {};
	char line[PERFMAP_MAX_LINE], *name;
	off_t base = ftello(f), pos;
	size_t len, n;
	int err = 0;

	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	strtab__init(&pm->names);
	*used = 0;
	while (*used < max && e.seq < UINT32_MAX &&
	       fgets(line, (int)(max - *used < sizeof(line) ? max - *used + 1 : sizeof(line)), f)) {
		n = strlen(line);
		/* the file position, not strlen: NUL bytes count against the bound too */
		pos = ftello(f);
		*used = base >= 0 && pos >= base ? (uint64_t)(pos - base) : *used + n;
		e.seq++;
		if (n && line[n - 1] != '\n' && !feof(f) && n == sizeof(line) - 1) {
			if (!skip_rest_of_line(f, used, max))
				break;
			continue;
		}
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
	if (err) {
		perfmap__free(pm);
		errno = -err;
		return NULL;
	}
	perfmap__finish(pm);
	return pm;
}

struct perfmap *perfmap__parse(FILE *f)
{
	uint64_t used;

	return parse_bounded(f, UINT64_MAX, &used);
}

void perfmap_stats(uint64_t *capped, uint64_t *bytes_skipped)
{
	*capped = __atomic_load_n(&perfmap_nr_capped, __ATOMIC_RELAXED);
	*bytes_skipped = __atomic_load_n(&perfmap_bytes_skipped, __ATOMIC_RELAXED);
}

/* Bytes of a map of @size not read when @used were read from @start on; counted. */
static void count_skip(const char *dir, const char *name, off_t size, off_t start, uint64_t used)
{
	uint64_t skipped = (uint64_t)size > start + used ? (uint64_t)size - start - used : 0;

	skipped += start;
	if (!skipped)
		return;
	/* the first one is warned; all are in hotcold_symbolizer_perfmap_* */
	if (!__atomic_fetch_add(&perfmap_nr_capped, 1, __ATOMIC_RELAXED))
		pr_warn("perfmap: '%s/%s' is %lld MiB: only the last %u MiB of a map are read\n",
			dir, name, (long long)(size >> 20), PERFMAP_MAX_BYTES >> 20);
	__atomic_fetch_add(&perfmap_bytes_skipped, skipped, __ATOMIC_RELAXED);
}

/* Position @f at the first full line of its last PERFMAP_MAX_BYTES; the offset. */
static off_t seek_tail(FILE *f, off_t size)
{
	off_t start = size - PERFMAP_MAX_BYTES;
	int c;

	if (fseeko(f, start, SEEK_SET))
		return 0;
	while ((c = getc(f)) != EOF && c != '\n')
		start++;
	return start + 1;
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
	struct stat st;
	uint64_t used;
	off_t start = 0;
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
	if (!err && fstat(fd, &st))
		err = -errno;
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
	if (st.st_size > PERFMAP_MAX_BYTES)
		start = seek_tail(f, st.st_size);
	pm = parse_bounded(f, PERFMAP_MAX_BYTES, &used);
	err = errno;
	/* the size now: a map that grew while we read is skipped past the cap too */
	if (pm && !fstat(fd, &st))
		count_skip(dir, name, st.st_size, start, used);
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
