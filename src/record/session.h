/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One recording run: targets, collectors, the drain loop, and the written profile. */
#ifndef HC_RECORD_SESSION_H
#define HC_RECORD_SESSION_H

#include "record/opts.h"

/*
 * Record as @o says and write the profile. Returns 0 or -errno. With a
 * command, *cmd_status gets its shell-style exit status (else -1).
 * -ESRCH: a -p/-t target does not exist; -EINVAL: bad input; others: runtime.
 */
int session_run(const struct record_opts *o, int *cmd_status);

#endif /* HC_RECORD_SESSION_H */
