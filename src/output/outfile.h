/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Writing a result file safely as root: a fresh temporary file next to the
 * target (O_EXCL, so no symlink or existing file is ever followed), mode 0600
 * then chmod'ed to @mode, renamed over the target only when complete. "-" is
 * stdout; an existing character device or FIFO (/dev/null, a named pipe) is
 * opened and written in place, never replaced.
 */
#ifndef HC_OUTPUT_OUTFILE_H
#define HC_OUTPUT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile {
	FILE *f;
	char *path;	/* final path; NULL for stdout */
	char *tmp;	/* temporary path; NULL for stdout */
	mode_t mode;
	bool direct;	/* a device or FIFO written in place: closed by commit, never renamed */
};

/* 0 or -errno (e.g. the directory does not exist). */
int outfile_open(struct outfile *of, const char *path, mode_t mode);

/* Flush, check for write errors, rename into place. 0 or -errno; on error nothing is renamed. */
int outfile_commit(struct outfile *of);

/* Abandon: remove the temporary file. NULL-safe on a never-opened struct. */
void outfile_discard(struct outfile *of);

#endif /* HC_OUTPUT_OUTFILE_H */
