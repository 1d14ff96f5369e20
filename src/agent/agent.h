/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `hotcold agent`: the recording session run forever in intervals. Each
 * interval's aggregation is split by kind, written to the history (store.h)
 * as pprof and gzipped folded, and emptied. SIGTERM/SIGINT write the partial
 * interval and return; SIGHUP calls @reload and applies the interval and
 * retention it returns (other keys need a restart, with a warning).
 */
#ifndef HC_AGENT_AGENT_H
#define HC_AGENT_AGENT_H

#include "agent/config.h"

/* Re-read the configuration into @c (initialised by the callee). 0 or -errno. */
typedef int (*agent_reload_fn)(struct agent_config *c, void *arg);

/* Run until a signal. 0, or -errno when starting failed or writing is impossible. */
int agent_run(const struct agent_config *c, agent_reload_fn reload, void *arg);

#endif /* HC_AGENT_AGENT_H */
