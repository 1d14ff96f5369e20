// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* V8 processes: their tables, memory and the names read (see v8.h). */
#include "sym/v8.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/keymap.h"
#include "sym/objtab.h"
#include "sym/procmaps.h"
#include "sym/v8_elf.h"
#include "sym/v8_names.h"
#include "util/log.h"

/* names kept per process, at most: a program has some thousands of hot functions */
#define V8_MAX_NAMES	65536

enum v8_state {
	V8_NEW,		/* table not read yet */
	V8_READY,
	V8_REFUSED,	/* said once */
	V8_UNREADABLE,	/* its binary or memory could not be opened */
};

struct v8_proc {
	uint32_t tgid;
	enum v8_state state;
	int mem_fd;		/* <proc>/tgid/mem; -1 */
	struct procmap bin;	/* the binary's mapping; path owned */
	struct v8_layout l;
	struct keymap names;	/* frame -> char * */
};

struct v8 {
	char *proc_root;
	struct keymap procs;	/* tgid -> struct v8_proc * */
	struct v8_stats st;
};

struct v8 *v8__new(const char *proc_root)
{
	struct v8 *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	keymap__init(&v->procs);
	v->proc_root = strdup(proc_root);
	if (!v->proc_root) {
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static void proc_free(struct v8_proc *p)
{
	size_t it = 0;
	uint64_t s;

	if (!p)
		return;
	while (keymap__next(&p->names, &it, &s))
		free((char *)(uintptr_t)s);
	keymap__release(&p->names);
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	free((char *)p->bin.path);
	free(p);
}

void v8__free(struct v8 *v)
{
	size_t it = 0;
	uint64_t p;

	if (!v)
		return;
	while (keymap__next(&v->procs, &it, &p))
		proc_free((struct v8_proc *)(uintptr_t)p);
	keymap__release(&v->procs);
	free(v->proc_root);
	free(v);
}

static struct v8_proc *proc_find(const struct v8 *v, uint32_t tgid)
{
	uint64_t p;

	return keymap__get(&v->procs, tgid, 0, &p) ? (struct v8_proc *)(uintptr_t)p : NULL;
}

static bool is_libnode(const char *path)
{
	const char *b = strrchr(path, '/');

	return !strncmp(b ? b + 1 : path, "libnode.so", 10);
}

int v8__add_process(struct v8 *v, uint32_t tgid, const struct procmap *m)
{
	struct v8_proc *p = proc_find(v, tgid);

	if (p && p->bin.start == m->start && p->bin.inode == m->inode)
		return 0;
	/*
	 * Debian's node is a launcher that maps libnode.so, where V8 is: that
	 * one, whichever comes first (an exec forgets the process first)
	 */
	if (p && is_libnode(p->bin.path) && !is_libnode(m->path))
		return 0;
	v8__forget(v, tgid);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	p->mem_fd = -1;
	p->bin = *m;
	p->bin.path = strdup(m->path);
	keymap__init(&p->names);
	if (!p->bin.path || keymap__put(&v->procs, tgid, 0, (uintptr_t)p)) {
		proc_free(p);
		return -ENOMEM;
	}
	return 0;
}

void v8__forget(struct v8 *v, uint32_t tgid)
{
	uint64_t p;

	if (v && keymap__del(&v->procs, tgid, 0, &p))
		proc_free((struct v8_proc *)(uintptr_t)p);
}

/* Read @p's binary's table and open its memory: READY, REFUSED (said) or UNREADABLE. */
static void attach(struct v8 *v, struct v8_proc *p)
{
	char why[256], path[4200];
	int fd, err;

	p->state = V8_UNREADABLE;
	fd = objtab_open_mapped(v->proc_root, p->tgid, &p->bin);
	if (fd < 0)
		return;
	err = v8_elf_read(fd, &p->l, NULL);
	close(fd);
	if (err == -ENOENT) {
		/* a file named node that is no V8: nothing to say */
		p->state = V8_REFUSED;
		return;
	}
	if (!err)
		err = v8_layout_check(&p->l, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "cannot read '%s': %s", p->bin.path, strerror(-err));
	if (err) {
		p->state = V8_REFUSED;
		v->st.procs_refused++;
		/* said by the walker (collect/v8_walk.c), which read the same table first */
		pr_debug("v8: pid %u: %s: JavaScript frames left unnamed\n", p->tgid, why);
		return;
	}
	snprintf(path, sizeof(path), "%s/%u/mem", v->proc_root, p->tgid);
	p->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->mem_fd < 0)
		return;
	p->state = V8_READY;
	v->st.procs++;
}

/* struct v8_reader on <proc>/PID/mem: all bytes or -EFAULT */
static int mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct v8_proc *p = arg;
	size_t got = 0;

	if (addr > INT64_MAX - len)
		return -EFAULT;
	while (got < len) {
		ssize_t n = pread(p->mem_fd, (char *)buf + got, len - got, (off_t)(addr + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EFAULT;
		got += (size_t)n;
	}
	return 0;
}

static void count(struct v8 *v, int err)
{
	if (!err)
		v->st.named++;
	else if (err == -EPERM)
		v->st.refused++;
	else if (err == -ESTALE || err == -EINVAL || err == -ELOOP)
		v->st.stale++;
	else
		v->st.unreadable++;
}

static int name_uncounted(struct v8 *v, struct v8_proc *p, uint64_t frame, char *buf, size_t len)
{
	const struct v8_reader r = { mem_read, p };
	uint64_t s;
	int err;

	if (p->state == V8_NEW)
		attach(v, p);
	if (p->state == V8_REFUSED)
		return -EPERM;
	if (p->state != V8_READY)
		return -ESRCH;
	if (keymap__get(&p->names, frame, 0, &s)) {
		snprintf(buf, len, "%s", (const char *)(uintptr_t)s);
		return 0;
	}
	err = v8_frame_name(&p->l, &r, frame, buf, len);
	if (err)
		return err;
	/* kept: the same function is named again at every sample of it */
	if (p->names.nr < V8_MAX_NAMES) {
		char *dup = strdup(buf);

		if (dup && keymap__put(&p->names, frame, 0, (uintptr_t)dup))
			free(dup);
	}
	return 0;
}

int v8__name(struct v8 *v, uint32_t tgid, uint64_t frame, char *buf, size_t len)
{
	struct v8_proc *p = proc_find(v, tgid);
	int err;

	if (!p) {
		/* not a V8 we know (a name written after the process was forgotten) */
		v->st.unreadable++;
		return -ENOENT;
	}
	err = name_uncounted(v, p, frame, buf, len);
	count(v, err);
	return err;
}

void v8__stats(const struct v8 *v, struct v8_stats *st)
{
	*st = v->st;
}
