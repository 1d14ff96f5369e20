// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Atomic, symlink-safe, crash-clean output files with true errors (see outfile.h). */
#include "output/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What stands behind of->f: the fd and the first write error. */
struct outfile_sink {
	int fd;
	int err;		/* errno of the first failed write(2); 0 if none */
	bool unnamed;		/* O_TMPFILE: no name until commit links one */
	bool borrowed;		/* stdout's fd 1: never closed here */
	char *dir;		/* the target's directory, for O_TMPFILE and its fsync */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	struct outfile_sink *k = cookie;
	size_t done = 0;
	ssize_t n;

	if (k->err)
		return 0;	/* stdio marks the stream failed; the first errno is kept */
	while (done < len) {
		n = write(k->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			k->err = n < 0 ? errno : EIO;
			return 0;
		}
		done += n;
	}
	return done;
}

/* The fd is closed by outfile itself (after fsync and link), never by fclose. */
static int sink_close(void *cookie)
{
	return 0;
}

static void sink_free(struct outfile_sink *k)
{
	if (!k)
		return;
	if (k->fd >= 0 && !k->borrowed)
		close(k->fd);
	free(k->dir);
	free(k);
}

/* The directory @path would be created in (malloc'd), or NULL. */
static char *dir_of(const char *path)
{
	char *dup = strdup(path), *d;

	if (!dup)
		return NULL;
	d = strdup(dirname(dup));
	free(dup);
	return d;
}

int outfile_check(const char *path)
{
	struct stat st;
	char *dir;
	int err = 0;

	if (!strcmp(path, "-"))
		return 0;
	if (!*path)
		return -ENOENT;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (path[strlen(path) - 1] == '/')
		return -EISDIR;	/* "out/" names a directory, existing or not */
	dir = dir_of(path);
	if (!dir)
		return -ENOMEM;
	if (stat(dir, &st))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		err = -errno;	/* EACCES, EROFS: as root only EROFS */
	free(dir);
	return err;
}

/* A FILE over @k's fd that records the first write error in @k. */
static int sink_stream(struct outfile *of, struct outfile_sink *k)
{
	static const cookie_io_functions_t io = { .write = sink_write, .close = sink_close };

	of->sink = k;
	of->f = fopencookie(k, "w", io);
	if (!of->f)
		return -ENOMEM;
	/* big writes go straight through; small ones are batched */
	setvbuf(of->f, NULL, _IOFBF, 64 * 1024);
	return 0;
}

/* A device or FIFO (-o /dev/null, a named pipe), written in place. */
static int open_direct(struct outfile *of, struct outfile_sink *k, const char *path)
{
	k->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	of->direct = true;
	return sink_stream(of, k);
}

/* An unnamed file in the target's directory, or a named mkstemp one where unsupported. */
static int open_temp(struct outfile *of, struct outfile_sink *k, const char *path)
{
	k->dir = dir_of(path);
	of->path = strdup(path);
	if (!k->dir || !of->path)
		return -ENOMEM;
	k->fd = open(k->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (k->fd >= 0) {
		k->unnamed = true;
		return sink_stream(of, k);
	}
	/* no O_TMPFILE on this file system (or kernel): a named temporary */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	if (asprintf(&of->tmp, "%s.tmp.XXXXXX", path) < 0) {
		of->tmp = NULL;
		return -ENOMEM;
	}
	/* mkstemp: O_CREAT|O_EXCL, mode 0600: never follows a planted link */
	k->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (k->fd < 0) {
		free(of->tmp);
		of->tmp = NULL;
		return -errno;
	}
	return sink_stream(of, k);
}

int outfile_open(struct outfile *of, const char *path, mode_t mode)
{
	struct outfile_sink *k;
	struct stat st;
	int err;

	memset(of, 0, sizeof(*of));
	of->mode = mode;
	err = outfile_check(path);
	if (err == -EISDIR)
		return err;	/* else rename() would find out only at the end */
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->fd = -1;
	if (!strcmp(path, "-")) {
		/* stdout through our sink too, for the errno; what stdio holds goes first */
		fflush(stdout);
		k->fd = STDOUT_FILENO;
		k->borrowed = true;
		of->direct = true;
		err = sink_stream(of, k);
		if (err)
			sink_free(k);
		return err;
	}
	/*
	 * Renaming a file over a device or FIFO would replace the node itself,
	 * as root even /dev/null. Users cannot plant device nodes; a symlink is
	 * still replaced.
	 */
	if (!lstat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
		err = open_direct(of, k, path);
	else
		err = open_temp(of, k, path);
	if (err) {
		if (of->tmp)
			unlink(of->tmp);
		sink_free(k);
		free(of->path);
		free(of->tmp);
		memset(of, 0, sizeof(*of));
	}
	return err;
}

/* Give the unnamed file a fresh temporary name next to the target. */
static int link_unnamed(struct outfile *of)
{
	struct outfile_sink *k = of->sink;
	char proc[64];
	int err = -EEXIST;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", k->fd);
	for (unsigned int i = 0; i < 100 && err == -EEXIST; i++) {
		free(of->tmp);
		if (asprintf(&of->tmp, "%s.tmp.%d.%u", of->path, (int)getpid(), i) < 0) {
			of->tmp = NULL;
			return -ENOMEM;
		}
		err = 0;
		if (linkat(AT_FDCWD, proc, AT_FDCWD, of->tmp, AT_SYMLINK_FOLLOW) &&
		    /* no /proc mounted: needs CAP_DAC_READ_SEARCH, which root has */
		    linkat(k->fd, "", AT_FDCWD, of->tmp, AT_EMPTY_PATH))
			err = -errno;
	}
	if (err) {
		free(of->tmp);
		of->tmp = NULL;
	}
	return err;
}

/* So that a crash after the rename finds the new name, not the old file or none. */
static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);	/* best effort: some file systems refuse fsync on a directory */
		close(fd);
	}
}

/* Flush @of->f into its sink; the first error as -errno. */
static int flush_sink(struct outfile *of)
{
	int err = 0;

	if (fflush(of->f) || ferror(of->f))
		err = of->sink->err ? -of->sink->err : -EIO;
	fclose(of->f);	/* sink_close leaves the fd open */
	of->f = NULL;
	return err;
}

static void outfile_reset(struct outfile *of)
{
	sink_free(of->sink);
	free(of->path);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
}

int outfile_commit(struct outfile *of)
{
	struct outfile_sink *k = of->sink;
	int err = 0;

	if (!k)
		return 0;	/* never opened, or already committed */
	err = flush_sink(of);
	if (of->direct) {
		outfile_reset(of);
		return err;
	}
	/* the data is on disk before the name points at it (ext4 data=ordered is not enough) */
	if (!err && fsync(k->fd))
		err = -errno;
	if (!err && fchmod(k->fd, of->mode))
		err = -errno;
	if (!err && k->unnamed)
		err = link_unnamed(of);
	/* rename() replaces a symlink at @path itself, never writes through it */
	if (!err && rename(of->tmp, of->path))
		err = -errno;
	if (err && of->tmp)
		unlink(of->tmp);
	if (!err)
		fsync_dir(k->dir);
	outfile_reset(of);
	return err;
}

void outfile_discard(struct outfile *of)
{
	if (of->f)
		fclose(of->f);	/* sink_close leaves the fd to us */
	if (of->tmp)
		unlink(of->tmp);	/* an unnamed O_TMPFILE simply goes with its fd */
	outfile_reset(of);
}

int outfile_fail(struct outfile *of, int err)
{
	if (err == -EIO && of->sink && of->sink->err)
		err = -of->sink->err;
	outfile_discard(of);
	return err;
}
