// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Target rules by cgroup v2 and process name: parsing, matching, the start-up scan. */
#include "collect/target_rules.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/log.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define MAX_CGROUP_DEPTH 64	/* the scan's recursion bound; real trees are < 10 deep */

/* Where cgroup2 is mounted (the first such mount), for relative rule paths. */
static int cgroup2_mount(char *buf, size_t len)
{
	struct mntent *m;
	FILE *f = setmntent("/proc/self/mounts", "r");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while ((m = getmntent(f))) {
		if (strcmp(m->mnt_type, "cgroup2"))
			continue;
		err = snprintf(buf, len, "%s", m->mnt_dir) < (int)len ? 0 : -ENAMETOOLONG;
		break;
	}
	endmntent(f);
	return err;
}

/* Depth of directory @fd below the root of its filesystem. Takes @fd. */
static int fs_depth(int fd, uint32_t *level)
{
	struct stat st, up;
	int pfd, err = 0;

	*level = 0;
	for (;;) {
		if (fstat(fd, &st)) {
			err = -errno;
			break;
		}
		pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0) {
			err = -errno;
			break;
		}
		if (fstat(pfd, &up)) {
			err = -errno;
			close(pfd);
			break;
		}
		/* the mount's root: ".." leaves the filesystem (or is itself) */
		if (up.st_dev != st.st_dev || up.st_ino == st.st_ino) {
			close(pfd);
			break;
		}
		close(fd);
		fd = pfd;
		if (++*level > 4 * MAX_CGROUP_DEPTH) {
			err = -ELOOP;
			break;
		}
	}
	close(fd);
	return err;
}

int target_rules_add_cgroup(struct target_rules *r, const char *path)
{
	char joined[PATH_MAX], real[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	uint32_t i = r->nr_cgroups;
	int fd, err;

	if (i >= HC_MAX_TARGET_RULES)
		return -E2BIG;
	if (!*path)
		return -ENOENT;
	if (path[0] != '/') {
		err = cgroup2_mount(joined, sizeof(joined));
		if (err)
			return err == -ENOENT ? -ENOTDIR : err;
		if (strlen(joined) + 1 + strlen(path) >= sizeof(joined))
			return -ENAMETOOLONG;
		strcat(strcat(joined, "/"), path);
		path = joined;
	}
	if (!realpath(path, real))
		return -errno;
	if (strlen(real) >= sizeof(r->cgroup_path[0]))
		return -ENAMETOOLONG;
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) || fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		return -ENOTDIR;
	}
	/* cgroup ids are kernfs node ids, which cgroup2 exposes as inode numbers */
	r->cgroup_id[i] = st.st_ino;
	err = fs_depth(fd, &r->cgroup_level[i]);
	if (err)
		return err;
	strcpy(r->cgroup_path[i], real);
	r->nr_cgroups++;
	return 0;
}

int target_rules_add_comm(struct target_rules *r, const char *pattern)
{
	uint32_t i = r->nr_comms;
	size_t n = strlen(pattern);
	bool prefix = n && pattern[n - 1] == '*';

	if (i >= HC_MAX_TARGET_RULES)
		return -E2BIG;
	if (prefix)
		n--;
	if (!n || strcspn(pattern, "*?[") < n)
		return -EINVAL;
	/*
	 * The kernel keeps 15 characters of a name: "very-long-program-name"
	 * runs as "very-long-progr". Matching those 15 is what the user means
	 * (the program is profiled), but any name starting with them matches
	 * too, and the profile shows the short name: say so.
	 */
	if (n > HC_COMM_LEN - 1) {
		n = HC_COMM_LEN - 1;
		pr_warn("comm: '%s' is longer than the kernel's %d characters of a process "
			"name: matching every process whose name starts with '%.*s' (shown "
			"so in profiles)\n", pattern, HC_COMM_LEN - 1, (int)n, pattern);
	}
	memset(r->comm[i], 0, HC_COMM_LEN);
	memcpy(r->comm[i], pattern, n);
	/* exact: compare the terminating NUL too */
	r->comm_len[i] = prefix ? n : n + 1;
	r->nr_comms++;
	return 0;
}

bool target_rules_comm_match(const struct target_rules *r, const char *comm)
{
	char name[HC_COMM_LEN] = { 0 };
	size_t n = strnlen(comm, HC_COMM_LEN - 1);

	memcpy(name, comm, n);	/* NUL-padded, as the kernel's task->comm */
	for (uint32_t i = 0; i < r->nr_comms; i++)
		if (!memcmp(name, r->comm[i], r->comm_len[i]))
			return true;
	return false;
}

/* 0 if process @pid matches the name rules (or there are none), 1 if not, <0 if gone. */
static int name_rejects(const struct target_rules *r, uint32_t pid)
{
	char path[64], comm[64];
	ssize_t n;
	int fd;

	if (!r->nr_comms)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return n ? -errno : -ESRCH;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return target_rules_comm_match(r, comm) ? 0 : 1;
}

/* Parse a decimal pid (a /proc entry or a cgroup.procs line); 0 if not one. */
static uint32_t parse_pid(const char *s)
{
	unsigned long v = 0;

	if (!isdigit((unsigned char)*s))
		return 0;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > UINT32_MAX)
			return 0;
	}
	return (*s && *s != '\n') ? 0 : (uint32_t)v;
}

static int add_if_named(const struct target_rules *r, uint32_t pid,
			int (*add)(uint32_t, void *), void *arg)
{
	int rej = name_rejects(r, pid);

	if (rej)
		return 0;	/* no match, or gone: nothing to add */
	return add(pid, arg);
}

/* One cgroup directory (@fd, taken) and everything below it. */
static int scan_cgroup(const struct target_rules *r, int fd, int depth,
		       int (*add)(uint32_t, void *), void *arg)
{
	char line[32];
	struct dirent *de;
	FILE *procs;
	DIR *d;
	int pfd, sub, err = 0;

	pfd = openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (pfd >= 0) {
		procs = fdopen(pfd, "r");
		if (!procs) {
			close(pfd);
			close(fd);
			return -ENOMEM;
		}
		while (!err && fgets(line, sizeof(line), procs)) {
			uint32_t pid = parse_pid(line);

			if (pid)
				err = add_if_named(r, pid, add, arg);
		}
		fclose(procs);
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return err ? err : -errno;
	}
	while (!err && depth < MAX_CGROUP_DEPTH && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (sub < 0)
			continue;	/* removed meanwhile */
		err = scan_cgroup(r, sub, depth + 1, add, arg);
	}
	closedir(d);
	return err;
}

int target_rules_scan(const struct target_rules *r, int (*add)(uint32_t tgid, void *arg),
		      void *arg)
{
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	if (r->nr_cgroups) {
		for (uint32_t i = 0; !err && i < r->nr_cgroups; i++) {
			fd = open(r->cgroup_path[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return -errno;
			err = scan_cgroup(r, fd, 0, add, arg);
		}
		return err;
	}
	if (!r->nr_comms)
		return 0;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		uint32_t pid = parse_pid(de->d_name);

		if (pid)
			err = add_if_named(r, pid, add, arg);
	}
	closedir(d);
	return err;
}
