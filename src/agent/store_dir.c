// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The history directory as an open directory fd. The root agent must not be
 * turned against the host by whoever can write into it, so: the directory
 * (and each directory above it) must not be writable by another user; every
 * file is opened relative to the fd without following a symlink and used
 * only if it is a regular file of ours with one link (a hard link to
 * /etc/shadow is root's too); files are written to a fresh temporary name,
 * fsync'ed and renamed; a file is deleted only if it is ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/store.h"
#include "agent/store_int.h"
#include "util/log.h"

#define STORE_FILE_MODE 0640	/* the directory is 0750: root and its group read */
#define STORE_TMP_TRIES 64

/* A directory another user could write into (sticky ones excepted: /tmp). */
static bool dir_unsafe(const struct stat *sb, uid_t uid, bool sticky_ok)
{
	if (sb->st_uid != uid && sb->st_uid != 0)
		return true;
	return (sb->st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (sb->st_mode & S_ISVTX));
}

/*
 * sshd StrictModes, for the directories above the history: each owned by root
 * or us and writable by no one else, or sticky (/tmp: others cannot rename
 * or remove what is ours). Checked on the resolved path: a symlink given as
 * --dir is the administrator's choice.
 */
static int check_ancestors(const char *dir, uid_t uid)
{
	char *real = realpath(dir, NULL), *slash;
	struct stat sb;
	int err = 0;

	if (!real)
		return -errno;
	while (!err && (slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';	/* "/a/b" -> "/a" -> "/" */
		if (stat(real, &sb))
			err = -errno;
		else if (dir_unsafe(&sb, uid, true)) {
			pr_warn("agent: refusing history directory '%s': '%s' is %s (mode %04o, "
				"owner %u); make it owned by root and not writable by others\n",
				dir, real, sb.st_uid != uid && sb.st_uid ? "owned by another user" :
				"writable by others", (unsigned)(sb.st_mode & 07777),
				(unsigned)sb.st_uid);
			err = -EPERM;
		}
		if (!strcmp(real, "/"))
			break;
	}
	free(real);
	return err;
}

int store_dir_open(const char *dir, uid_t uid)
{
	struct stat sb;
	int fd, err;

	if (mkdir(dir, 0750) && errno != EEXIST) {
		err = -errno;
		pr_warn("agent: cannot write to directory '%s': %s\n", dir, strerror(-err));
		return err;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		err = -errno;
		pr_warn("agent: cannot open directory '%s': %s\n", dir, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	/* the directory itself: ours, nobody else writes (no sticky exception) */
	if (sb.st_uid != uid || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		pr_warn("agent: refusing history directory '%s': %s (mode %04o, owner %u); "
			"it must be owned by uid %u and not writable by group or others\n", dir,
			sb.st_uid != uid ? "owned by another user" : "writable by others",
			(unsigned)(sb.st_mode & 07777), (unsigned)sb.st_uid, (unsigned)uid);
		close(fd);
		return -EPERM;
	}
	err = check_ancestors(dir, uid);
	if (err) {
		if (err != -EPERM)
			pr_warn("agent: cannot check directory '%s': %s\n", dir, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

bool store_stat_ours(const struct store *st, const struct stat *sb)
{
	return S_ISREG(sb->st_mode) && sb->st_uid == st->uid && sb->st_nlink == 1;
}

int store_open_file(const struct store *st, const char *name, struct stat *sb)
{
	int fd;

	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	/* O_NONBLOCK: a FIFO planted under a listed name must not block us */
	fd = openat(st->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, sb) || !store_stat_ours(st, sb)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int store_tmp_open(const struct store *st, const char *name, char *tmp, size_t len)
{
	static unsigned int seq;
	unsigned int salt = (unsigned int)getpid() * 2654435761u;
	int fd;

	for (int i = 0; i < STORE_TMP_TRIES; i++) {
		/* "<name>.tmp.XXXXXX": the pattern scan_dir() cleans up after a crash */
		if (snprintf(tmp, len, "%s.tmp.%06x", name, (salt + seq++) & 0xffffff) >= (int)len)
			return -ENAMETOOLONG;
		/* O_EXCL: never an existing file, never through a planted link */
		fd = openat(st->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    STORE_FILE_MODE);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

static int write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

int store_put(const struct store *st, const char *name, const void *data, size_t len)
{
	char tmp[NAME_MAX + 1];
	int fd, err;

	fd = store_tmp_open(st, name, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	err = write_all(fd, data, len);
	/* the mode despite the umask; fsync before rename (a crash leaves old or new) */
	if (!err && fchmod(fd, STORE_FILE_MODE))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = errno == EINTR ? 0 : -errno;
	if (!err && renameat(st->dirfd, tmp, st->dirfd, name))
		err = -errno;
	if (err)
		unlinkat(st->dirfd, tmp, 0);
	return err;
}

int store_unlink(const struct store *st, const char *name)
{
	struct stat sb;

	if (fstatat(st->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!store_stat_ours(st, &sb)) {
		pr_warn("agent: not deleting '%s/%s': not a regular file written by us\n",
			st->dir, name);
		return -EPERM;
	}
	return unlinkat(st->dirfd, name, 0) && errno != ENOENT ? -errno : 0;
}

void store_sync_dir(const struct store *st)
{
	/* the renames themselves, once per interval */
	if (fsync(st->dirfd))
		pr_debug("agent: fsync '%s': %s\n", st->dir, strerror(errno));
}
