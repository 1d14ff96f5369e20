/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `record -- CMD`: hold the command from its exec to its entry point, the
 * first instruction of the program after the dynamic loader mapped its
 * libraries, so the profiler can publish the process's CFI tables before any
 * of its own code runs (and blocks). ptrace: an exec event stop, then a
 * breakpoint at AT_ENTRY, removed before the program goes on; detached there.
 */
#ifndef HC_RECORD_CHILD_HOLD_H
#define HC_RECORD_CHILD_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The longest hold: library constructors run before the entry point and may wait. */
#define CHILD_HOLD_MAX_NS (2ull * 1000000000)

/* How a hold ended. */
enum child_hold_end {
	CHILD_HOLD_READY,	/* stopped at its entry point; @ready ran; detached */
	CHILD_HOLD_EXITED,	/* exited (or was killed) before its entry point */
	CHILD_HOLD_GAVE_UP,	/* time limit, a signal to us, or a ptrace error: detached */
};

struct child_hold_ops {
	/*
	 * At the exec stop: only the executable, ld.so and the vDSO mapped, but
	 * ld.so's own start-up (mapping and relocating the libraries, page
	 * faults and all) runs before the entry point and is walked by its
	 * table. NULL: none. Its result is not kept: @ready publishes again.
	 */
	int (*exec)(pid_t pid, void *arg);
	/* At the entry point, all start-up mappings in place. Its result is kept. */
	int (*ready)(pid_t pid, void *arg);
	/* True to give up now (SIGINT/SIGTERM to the profiler). */
	bool (*stop)(void *arg);
	void *arg;
};

/*
 * Seize @pid (our child, not yet exec'd) to stop it at its exec. 0 or -errno
 * (EPERM: ptrace not allowed here, e.g. a container's seccomp): not held.
 */
int child_hold_attach(pid_t pid);

/*
 * After the child was let exec: run it to its entry point, call ops->ready,
 * detach. At most @max_ns. On CHILD_HOLD_EXITED the child was reaped and its
 * waitpid() status is in *@wstatus. *@ready_err: ops->ready's result.
 */
enum child_hold_end child_hold_run(pid_t pid, uint64_t max_ns, const struct child_hold_ops *ops,
				   int *wstatus, int *ready_err);

/* AT_ENTRY from an auxv image (/proc/PID/auxv, 64-bit pairs). 0, or -ENOENT. */
int child_hold_auxv_entry(const void *auxv, size_t len, uint64_t *entry);

/* @word (little-endian, as PTRACE_PEEKTEXT reads it) with its first byte an int3. */
uint64_t child_hold_trap_word(uint64_t word);

#endif /* HC_RECORD_CHILD_HOLD_H */
