/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Resolving what to profile: checking pids/tids, starting `-- CMD` held at exec. */
#ifndef HC_RECORD_TARGET_H
#define HC_RECORD_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* True if task @id (pid or tid) exists and is not a zombie. */
bool target_alive(uint32_t id);

/* 0 if every id names a live task; else -ESRCH after a pr_warn naming the first missing one. */
int target_check(const uint32_t *ids, size_t nr, const char *what);

/* A command started but held before exec until target_child_release(). */
struct target_child {
	pid_t pid;
	int go_fd;	/* write end: one byte lets the child exec */
	int err_fd;	/* read end: CLOEXEC pipe; EOF means exec succeeded */
};

/* fork @argv[0] (PATH search) stopped before exec. 0 or -errno. */
int target_child_spawn(char *const argv[], struct target_child *c);

/*
 * Let the child exec. 0 when exec succeeded, else -errno of the failed exec
 * (the child then exits 127 and is reaped here).
 */
int target_child_release(struct target_child *c);

/* Kill (SIGKILL) and reap a child that was never released. */
void target_child_abort(struct target_child *c);

/*
 * End a command still running when recording was stopped by SIGINT/SIGTERM,
 * as perf does: SIGTERM, then SIGKILL if it has not exited after @grace_ms.
 * Reaps it into *@wstatus. Returns true if SIGKILL was needed.
 */
bool target_child_end(struct target_child *c, unsigned grace_ms, int *wstatus);

/* Shell-style exit status (128+signal for a signal) from a waitpid() status. */
int target_exit_status(int wstatus);

#endif /* HC_RECORD_TARGET_H */
