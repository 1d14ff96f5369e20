// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Holding a `record -- CMD` child from its exec to its entry point
 * (child_hold.h). Why the entry point and not the exec: at the exec only the
 * executable and ld.so are mapped; libc and the other DT_NEEDED libraries
 * are mapped by ld.so after it, and a table published at the exec lacks
 * them. At the entry point every start-up mapping is in place and none of
 * the program's own code has run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include "record/child_hold.h"
#include "util/clock.h"

#define HOLD_POLL_NS 200000	/* waitpid(WNOHANG) every 0.2 ms: stops come within ms */

int child_hold_auxv_entry(const void *auxv, size_t len, uint64_t *entry)
{
	const uint64_t *v = auxv;

	for (size_t i = 0; i + 1 < len / sizeof(*v); i += 2) {
		if (v[i] == AT_NULL)
			break;
		if (v[i] == AT_ENTRY) {
			*entry = v[i + 1];
			return 0;
		}
	}
	return -ENOENT;
}

uint64_t child_hold_trap_word(uint64_t word)
{
	return (word & ~0xffull) | 0xcc;	/* int3: the first byte in memory */
}

#ifdef __x86_64__
int child_hold_attach(pid_t pid)
{
	/* EXITKILL: if the profiler dies mid-hold, the child does not run on trapped */
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)))
		return -errno;
	return 0;
}

static int read_entry(pid_t pid, uint64_t *entry)
{
	uint64_t buf[128];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	return child_hold_auxv_entry(buf, (size_t)n, entry);
}

struct hold {
	pid_t pid;
	uint64_t entry;
	uint64_t orig;		/* the word at entry before the int3 */
	bool poked;
};

/* At the exec stop: an int3 at the entry point. */
static int plant(struct hold *h)
{
	long w;
	int err = read_entry(h->pid, &h->entry);

	if (err)
		return err;
	errno = 0;
	w = ptrace(PTRACE_PEEKTEXT, h->pid, (void *)h->entry, NULL);
	if (w == -1 && errno)
		return -errno;
	h->orig = (uint64_t)w;
	if (ptrace(PTRACE_POKETEXT, h->pid, (void *)h->entry,
		   (void *)child_hold_trap_word(h->orig)))
		return -errno;
	h->poked = true;
	return 0;
}

/* Stopped: if at our int3, take it out and rewind rip to the entry. True if it was ours. */
static bool unplant(struct hold *h)
{
	struct user_regs_struct r;

	if (!h->poked || ptrace(PTRACE_GETREGS, h->pid, NULL, &r))
		return false;
	/* the original code back first, whatever the stop was */
	if (ptrace(PTRACE_POKETEXT, h->pid, (void *)h->entry, (void *)h->orig))
		return false;
	h->poked = false;
	if (r.rip != h->entry + 1)
		return false;
	r.rip = h->entry;
	return !ptrace(PTRACE_SETREGS, h->pid, NULL, &r);
}

/* Wait up to @max_ns for a state change of @pid. 1: *@st set; 0: none; -errno. */
static int wait_change(pid_t pid, uint64_t until_ns, const struct child_hold_ops *ops, int *st)
{
	struct timespec ts = { 0, HOLD_POLL_NS };
	pid_t r;

	for (;;) {
		r = waitpid(pid, st, WNOHANG | __WALL);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == pid)
			return 1;
		if (clock_mono_ns() >= until_ns || (ops->stop && ops->stop(ops->arg)))
			return 0;
		nanosleep(&ts, NULL);
	}
}

/* Give up: stop it (unless stopped), take the int3 out, let it go. */
static enum child_hold_end give_up(struct hold *h, bool stopped, int *wstatus)
{
	int st, r;

	if (!stopped) {
		ptrace(PTRACE_INTERRUPT, h->pid, NULL, NULL);
		/* a stop comes at once unless in an uninterruptible sleep: bounded anyway */
		r = wait_change(h->pid, clock_mono_ns() + 1000000000ull,
				&(struct child_hold_ops){ 0 }, &st);
		if (r == 1 && (WIFEXITED(st) || WIFSIGNALED(st))) {
			*wstatus = st;
			return CHILD_HOLD_EXITED;
		}
	}
	unplant(h);
	ptrace(PTRACE_DETACH, h->pid, NULL, NULL);
	return CHILD_HOLD_GAVE_UP;
}

enum child_hold_end child_hold_run(pid_t pid, uint64_t max_ns, const struct child_hold_ops *ops,
				   int *wstatus, int *ready_err)
{
	uint64_t until = clock_mono_ns() + max_ns;
	struct hold h = { .pid = pid };
	int st, r, sig;

	*ready_err = 0;
	for (;;) {
		r = wait_change(pid, until, ops, &st);
		if (r <= 0)
			return give_up(&h, false, wstatus);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*wstatus = st;
			return CHILD_HOLD_EXITED;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		if (st >> 16 == PTRACE_EVENT_EXEC) {
			if (plant(&h))
				return give_up(&h, true, wstatus);
			if (ops->exec)
				ops->exec(pid, ops->arg);
			sig = 0;
		} else if (st >> 16 == PTRACE_EVENT_STOP) {
			/* a group stop (SIGSTOP, SIGTSTP): not ours to sit through */
			return give_up(&h, true, wstatus);
		} else if (sig == SIGTRAP && h.poked) {
			if (unplant(&h)) {
				*ready_err = ops->ready(pid, ops->arg);
				ptrace(PTRACE_DETACH, pid, NULL, NULL);
				return CHILD_HOLD_READY;
			}
			return give_up(&h, true, wstatus);
		}
		/* any other signal is the program's: delivered as it would have been */
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig))
			return give_up(&h, true, wstatus);
	}
}
#else
int child_hold_attach(pid_t pid)
{
	return -EOPNOTSUPP;	/* the breakpoint and registers are x86-64's */
}

enum child_hold_end child_hold_run(pid_t pid, uint64_t max_ns, const struct child_hold_ops *ops,
				   int *wstatus, int *ready_err)
{
	*ready_err = -EOPNOTSUPP;
	return CHILD_HOLD_GAVE_UP;
}
#endif
