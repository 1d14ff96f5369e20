// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Root labels from /proc/PID/cmdline (labels.h). */
#include "record/labels.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/keymap.h"
#include "util/clock.h"

struct label {
	uint32_t tgid;
	uint64_t settle_ns;	/* the next settle read is due (CLOCK_MONOTONIC), 0: settled */
	uint64_t gap_ns;	/* ... after this long since the last one (doubles) */
	bool dead;		/* exited: kept for the profile still to be written */
	char s[LABELS_LEN + 1];
	char *cg;		/* cgroup v2 path, malloc'd; NULL: unknown */
};

struct labels {
	struct keymap m;	/* (tgid, 0) -> struct label * */
	bool cgroups;		/* read /proc/PID/cgroup too */
	struct labels_stats st;
};

/*
 * Bytes of the valid UTF-8 sequence at @p (@n left), 1 for an ASCII byte,
 * 0 for a byte that starts no valid sequence.
 */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t w = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 :
		   (p[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (w > n)
		return 0;
	for (size_t i = 1; i < w; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return w;
}

size_t labels_format(const char *raw, size_t n, char *out, size_t outsz)
{
	const unsigned char *r = (const unsigned char *)raw;
	size_t len = 0, i = 0;

	/* a title set over argv leaves NUL padding: trailing NULs are not arguments */
	while (n && (raw[n - 1] == '\0' || raw[n - 1] == ' '))
		n--;
	while (i < n) {
		size_t w = utf8_seq(&r[i], n - i);

		if (len + (w ? w : 1) > outsz - 1)
			break;	/* never half a character */
		if (w > 1) {
			memcpy(&out[len], &r[i], w);	/* a whole character */
			len += w;
			i += w;
			continue;
		}
		if (r[i] == '\0')
			out[len] = ' ';	/* between two arguments */
		else if (!w || r[i] < 0x20 || r[i] == 0x7f || r[i] == ';')
			out[len] = '?';	/* one line, one frame in folded text, valid UTF-8 */
		else
			out[len] = (char)r[i];
		len++;
		i++;
	}
	while (len && out[len - 1] == ' ')
		len--;
	out[len] = '\0';
	return len;
}

size_t labels_cgroup_parse(const char *text, size_t n, char *out, size_t outsz)
{
	const char *p = text, *end = text + n, *nl, *path = NULL;
	size_t len = 0;

	/* "0::PATH" is the v2 hierarchy; on a v1-only host, name=systemd's path */
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (nl - p > 3 && !memcmp(p, "0::", 3)) {
			path = p + 3;
			len = nl - path;
			break;
		}
		const char *c = memchr(p, ':', nl - p);
		if (!path && c && nl - c > 14 && !memcmp(c + 1, "name=systemd:", 13)) {
			path = c + 14;
			len = nl - path;
		}
	}
	if (!path || !len || *path != '/' || !outsz)
		return 0;
	if (len > outsz - 1)
		len = outsz - 1;
	for (size_t i = 0; i < len; i++)	/* one label value, one line */
		out[i] = (unsigned char)path[i] < 0x20 || path[i] == ';' ? '?' : path[i];
	out[len] = '\0';
	return len;
}

static void label_free(struct label *lb)
{
	if (lb)
		free(lb->cg);
	free(lb);
}

/* @tgid's cgroup path, malloc'd, or NULL. */
static char *read_cgroup(uint32_t tgid)
{
	char raw[1024], path[32], out[LABELS_CG_LEN + 1];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, raw, sizeof(raw));
	close(fd);
	if (n <= 0 || !labels_cgroup_parse(raw, (size_t)n, out, sizeof(out)))
		return NULL;
	return strdup(out);
}

struct labels *labels__new(void)
{
	struct labels *l = calloc(1, sizeof(*l));

	if (l)
		keymap__init(&l->m);
	return l;
}

void labels__free(struct labels *l)
{
	size_t it = 0;
	uint64_t v;

	if (!l)
		return;
	while (keymap__next(&l->m, &it, &v))
		label_free((struct label *)(uintptr_t)v);
	keymap__release(&l->m);
	free(l);
}

/* @tgid's cmdline into @buf; its length, 0 if unreadable or empty. */
static size_t read_cmdline(uint32_t tgid, char *buf, size_t size)
{
	char raw[LABELS_LEN * 2], path[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* one read: the kernel returns the first page at once; longer is cut anyway */
	n = read(fd, raw, sizeof(raw));
	close(fd);
	return n > 0 ? labels_format(raw, (size_t)n, buf, size) : 0;
}

/* First read: the settle reads are due LABELS_SETTLE_NS on, then with doubled gaps. */
static void label_young(struct label *lb)
{
	lb->gap_ns = LABELS_SETTLE_NS;
	lb->settle_ns = clock_mono_ns() + lb->gap_ns;
}

void labels__read(struct labels *l, uint32_t tgid)
{
	char buf[LABELS_LEN + 1];
	struct label *lb;
	bool ok, fresh = true;
	uint64_t v;

	l->st.reads++;
	ok = read_cmdline(tgid, buf, sizeof(buf)) > 0;
	if (keymap__get(&l->m, tgid, 0, &v)) {
		lb = (struct label *)(uintptr_t)v;
		/*
		 * An exited process read again: its records came after its exit
		 * record (an off-CPU drain, a later ring), its maps were forgotten
		 * at the exit, so the lifecycle reads it as a first sight. The
		 * read fails (gone): the label its profile needs stays. Wiping it
		 * left t_labels' postgres backends at their bare comm.
		 */
		if (lb->dead && !ok)
			return;
		fresh = lb->dead;
		if (lb->dead) {
			/* a new process under the tgid of one that exited */
			lb->dead = false;
			lb->s[0] = '\0';
			label_young(lb);
		}
	} else {
		if (l->m.nr >= LABELS_MAX) {
			l->st.full++;
			return;
		}
		lb = calloc(1, sizeof(*lb));
		if (!lb || keymap__put(&l->m, tgid, 0, (uintptr_t)lb)) {
			free(lb);
			l->st.full++;
			return;
		}
		lb->tgid = tgid;
		label_young(lb);
	}
	/* an empty entry says "tried": its records keep the comm, counted once */
	if (ok)
		memcpy(lb->s, buf, sizeof(buf));
	else if (fresh)
		l->st.missed++;
	if (l->cgroups) {
		char *cg = read_cgroup(tgid);

		/* a failed re-read keeps what was read (the process is going) */
		if (cg || fresh) {
			free(lb->cg);
			lb->cg = cg;
		}
	}
}

void labels__ensure(struct labels *l, uint32_t tgid)
{
	if (!keymap__get(&l->m, tgid, 0, NULL))
		labels__read(l, tgid);
}

void labels__exit(struct labels *l, uint32_t tgid)
{
	struct label *lb;
	uint64_t v;

	if (!keymap__get(&l->m, tgid, 0, &v))
		return;
	lb = (struct label *)(uintptr_t)v;
	if (lb->s[0] || lb->cg) {
		lb->dead = true;
		return;
	}
	/* never read: nothing to show, the room goes (a recording under churn) */
	keymap__del(&l->m, tgid, 0, NULL);
	label_free(lb);
}

/*
 * Re-read live labels: all of them, or (@settle) the young ones whose
 * settle read is due at @now_ns. A settle read that finds the title
 * changed settles the label: the program has set it. One that finds it
 * as it was comes again after twice the gap, up to LABELS_SETTLE_LAST_NS:
 * the time from a fork to its title is the program's, and on a loaded
 * machine its first 50 ms of CPU took over 1 s (t_labels' alpha, at nice
 * 19 beside a test run: read at +100 ms, titled later, never read again).
 * A refresh (@settle false: an agent's interval, the end of a recording)
 * that finds a title set settles it too; one that finds none keeps the
 * settle reads coming (an interval may end just after a fork).
 */
static void reread(struct labels *l, bool settle, uint64_t now_ns)
{
	char was[LABELS_LEN + 1];
	struct label *due[256];
	size_t it = 0, done = 0;
	uint64_t v;

	/* collected in chunks: the map may not change during a walk */
	while (done < LABELS_REFRESH_MAX) {
		size_t nr = 0;

		while (nr < sizeof(due) / sizeof(due[0]) && keymap__next(&l->m, &it, &v)) {
			struct label *lb = (struct label *)(uintptr_t)v;

			if (lb->dead || (settle && (!lb->settle_ns || now_ns < lb->settle_ns)))
				continue;
			due[nr++] = lb;
		}
		if (!nr)
			break;
		/* a re-read replaces in place: no slot moves, no label is freed, the walk goes on */
		for (size_t i = 0; i < nr; i++) {
			struct label *lb = due[i];

			memcpy(was, lb->s, sizeof(was));
			labels__read(l, lb->tgid);
			if (!lb->settle_ns)
				continue;
			if (strcmp(was, lb->s) || (settle && lb->gap_ns >= LABELS_SETTLE_LAST_NS)) {
				lb->settle_ns = 0;
			} else if (settle) {
				lb->gap_ns *= 2;
				lb->settle_ns = now_ns + lb->gap_ns;
			}
		}
		done += nr;
	}
}

void labels__refresh(struct labels *l)
{
	reread(l, false, clock_mono_ns());
}

void labels__settle(struct labels *l, uint64_t now_ns)
{
	reread(l, true, now_ns);
}

void labels__purge(struct labels *l)
{
	uint32_t dead[256];
	size_t nr;

	do {
		size_t it = 0;
		uint64_t v;

		nr = 0;
		while (nr < sizeof(dead) / sizeof(dead[0]) && keymap__next(&l->m, &it, &v)) {
			const struct label *lb = (const struct label *)(uintptr_t)v;

			if (lb->dead)
				dead[nr++] = lb->tgid;
		}
		for (size_t i = 0; i < nr; i++) {
			keymap__del(&l->m, dead[i], 0, &v);
			label_free((struct label *)(uintptr_t)v);
		}
	} while (nr);	/* bounded: each pass removes what it found */
}

const char *labels__get(const struct labels *l, uint32_t tgid)
{
	uint64_t v;

	if (!l || !tgid || !keymap__get(&l->m, tgid, 0, &v))
		return NULL;
	return ((struct label *)(uintptr_t)v)->s[0] ? ((struct label *)(uintptr_t)v)->s : NULL;
}

void labels__set_cgroups(struct labels *l, bool on)
{
	l->cgroups = on;
}

const char *labels__cgroup(const struct labels *l, uint32_t tgid)
{
	uint64_t v;

	if (!l || !tgid || !keymap__get(&l->m, tgid, 0, &v))
		return NULL;
	return ((struct label *)(uintptr_t)v)->cg;
}

void labels__stats(const struct labels *l, struct labels_stats *st)
{
	*st = l->st;
}
