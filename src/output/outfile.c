// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Atomic, symlink-safe output files (see outfile.h). */
#include "output/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open(struct outfile *of, const char *path, mode_t mode)
{
	struct stat st;
	int fd, err;

	memset(of, 0, sizeof(*of));
	of->mode = mode;
	if (!strcmp(path, "-")) {
		of->f = stdout;
		return 0;
	}
	/*
	 * A device or FIFO (-o /dev/null, a named pipe) is written in place:
	 * renaming a file over it would replace the node itself, as root even
	 * /dev/null. Users cannot plant device nodes; a symlink is still replaced.
	 */
	if (!lstat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		of->f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!of->f) {
			err = -errno;
			if (fd >= 0)
				close(fd);
			return err;
		}
		of->direct = true;
		return 0;
	}
	of->path = strdup(path);
	if (!of->path || asprintf(&of->tmp, "%s.tmp.XXXXXX", path) < 0) {
		of->tmp = NULL;
		err = -ENOMEM;
		goto err;
	}
	/* mkstemp: O_CREAT|O_EXCL, mode 0600: never follows a planted link */
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto err;
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		err = -errno;
		close(fd);
		unlink(of->tmp);
		goto err;
	}
	return 0;
err:
	free(of->path);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
	return err;
}

int outfile_commit(struct outfile *of)
{
	int err = 0;

	if (!of->path) {
		if (fflush(of->f) || ferror(of->f))
			err = -EIO;
		if (of->direct && fclose(of->f) && !err)
			err = -EIO;
		return err;
	}
	if (fflush(of->f) || ferror(of->f))
		err = -EIO;
	if (!err && fchmod(fileno(of->f), of->mode))
		err = -errno;
	if (fclose(of->f) && !err)
		err = -EIO;
	of->f = NULL;
	/* rename() replaces a symlink at @path itself, never writes through it */
	if (!err && rename(of->tmp, of->path))
		err = -errno;
	if (err)
		unlink(of->tmp);
	free(of->path);
	free(of->tmp);
	of->path = of->tmp = NULL;
	return err;
}

void outfile_discard(struct outfile *of)
{
	if (of->direct && of->f)
		fclose(of->f);
	if (!of->path) {
		memset(of, 0, sizeof(*of));
		return;
	}
	if (of->f)
		fclose(of->f);
	unlink(of->tmp);
	free(of->path);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
}
