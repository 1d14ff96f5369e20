/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Writing a result file safely as root, and telling the truth when it fails.
 *
 * A regular file is written to an unnamed O_TMPFILE in the target's
 * directory (mode 0600), so a process killed at any point leaves nothing
 * behind; at commit it is flushed, fsync'ed, chmod'ed to @mode, linked under
 * a fresh temporary name and renamed over the target at once, then the
 * directory is fsync'ed. Where the file system has no O_TMPFILE, a named
 * mkstemp file (O_EXCL, so no symlink or existing file is ever followed) is
 * used instead: only then can a kill -9 leave a "NAME.tmp.XXXXXX" behind.
 * "-" is stdout (fd 1, written through the same sink); an existing
 * character device or FIFO (/dev/null, a named pipe) is opened and written
 * in place, never replaced.
 *
 * Every write goes through our own stdio cookie, which keeps the errno of the
 * first failed write(2): commit reports "No space left on device", not the
 * EIO that ferror() alone would give.
 */
#ifndef HC_OUTPUT_OUTFILE_H
#define HC_OUTPUT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile_sink;

struct outfile {
	FILE *f;
	char *path;	/* final path; NULL for stdout or a device */
	char *tmp;	/* named temporary path (mkstemp fallback); NULL otherwise */
	mode_t mode;
	bool direct;	/* a device or FIFO written in place: closed by commit, never renamed */
	struct outfile_sink *sink;	/* fd and first write errno behind @f */
};

/*
 * Can @path be written as an output file? Checks without creating anything:
 * 0, -EISDIR (a directory), or -errno of the directory it would go in
 * (-ENOENT, -ENOTDIR, -EACCES, -EROFS). "-" is always fine.
 */
int outfile_check(const char *path);

/* 0 or -errno (e.g. -ENOENT: the directory does not exist, -EISDIR). */
int outfile_open(struct outfile *of, const char *path, mode_t mode);

/*
 * Flush, check for write errors, fsync, rename into place, fsync the
 * directory. 0 or -errno of the first failure (-ENOSPC, -EDQUOT, ...); on
 * error nothing is renamed and nothing is left behind. The stream is closed
 * either way; a later outfile_discard() is a harmless no-op.
 */
int outfile_commit(struct outfile *of);

/* Abandon: remove the temporary file. NULL-safe on a never-opened struct. */
void outfile_discard(struct outfile *of);

/*
 * Abandon after a writer failed with @err, and return the true cause: a
 * writer that saw ferror() says -EIO, but the sink kept the errno of the
 * write that failed (-ENOSPC, ...), which is returned instead.
 */
int outfile_fail(struct outfile *of, int err);

#endif /* HC_OUTPUT_OUTFILE_H */
