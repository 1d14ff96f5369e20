// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Target resolution: live-task checks and a child process held at exec. */
#include "record/target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"

bool target_alive(uint32_t id)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	/* /proc/TID/stat works for threads too, though they are not listed */
	snprintf(path, sizeof(path), "/proc/%u/stat", id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* comm may contain ')' and spaces: the state follows the last ')' */
	paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ')
		return false;
	return paren[2] != 'Z' && paren[2] != 'X' && paren[2] != 'x';
}

int target_check(const uint32_t *ids, size_t nr, const char *what)
{
	for (size_t i = 0; i < nr; i++) {
		if (!target_alive(ids[i])) {
			pr_warn("record: no %s with id %u\n", what, ids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

int target_child_spawn(char *const argv[], struct target_child *c)
{
	int go[2], errp[2], err;
	char b;

	c->pid = -1;
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(errp[0]);
		close(errp[1]);
		return err;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(errp[0]);
		/* wait until the filter holds our pid, so exec's first instruction is seen */
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		err = errno;
		if (write(errp[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	c->go_fd = go[1];
	c->err_fd = errp[0];
	return 0;
}

int target_child_release(struct target_child *c)
{
	int child_errno = 0;
	ssize_t n;
	char b = 'g';

	if (write(c->go_fd, &b, 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
		return -child_errno;
	}
	return 0;
}

void target_child_abort(struct target_child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
	}
}

bool target_child_end(struct target_child *c, unsigned grace_ms, int *wstatus)
{
	struct timespec tick = { 0, 10 * 1000000L };

	kill(c->pid, SIGTERM);
	for (unsigned waited = 0; waited < grace_ms; waited += 10) {
		if (waitpid(c->pid, wstatus, WNOHANG) == c->pid)
			return false;
		nanosleep(&tick, NULL);
	}
	if (waitpid(c->pid, wstatus, WNOHANG) == c->pid)
		return false;
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, wstatus, 0) < 0 && errno == EINTR)
		;
	return true;
}

int target_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}
