/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HotSpot JVMs for the BPF walker (issue 31): recognises libjvm.so in a
 * process's mappings, reads the VM's code cache layout from its memory
 * (sym/hotspot_layout.h) and publishes it in hotspot_procs, so the CFI walk
 * goes on through Java frames (bpf/lib/unwind_hotspot.bpf.h) instead of
 * stopping at the first. A VM still starting is asked again later. Owns
 * the two maps the walking collectors share (hotspot_procs, hotspot_nprocs).
 */
#ifndef HC_COLLECT_HOTSPOT_WALK_H
#define HC_COLLECT_HOTSPOT_WALK_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_map;
struct collector_env;
struct hotspot_walk;
struct procmaps;

/* Create the maps; reads <@proc_root>/PID/... 0 or -errno (the session goes on without). */
int hotspot_walk__new(struct hotspot_walk **out, const char *proc_root);
void hotspot_walk__free(struct hotspot_walk *hw);	/* NULL is a no-op */

int hotspot_walk__procs_fd(const struct hotspot_walk *hw);
int hotspot_walk__nprocs_fd(const struct hotspot_walk *hw);

/* Point a collector object's copies at env's maps (before load); no-op without. 0 or -errno. */
int hotspot_walk_reuse_maps(const struct collector_env *env, struct bpf_map *procs,
			    struct bpf_map *nprocs);

/*
 * A process (or its new image after exec) with executable mappings @pm:
 * if it maps libjvm.so, its layout is read and published now, or later
 * (hotspot_walk__poll()) while the VM is starting. 0, or -errno on a map
 * update failure.
 */
int hotspot_walk__add_process(struct hotspot_walk *hw, uint32_t tgid, const struct procmaps *pm);

/* Whether @tgid's libjvm.so was seen (its layout read or not). */
bool hotspot_walk__known(const struct hotspot_walk *hw, uint32_t tgid);

/* JVMs still starting whose time came: their layout read again (a few per call). */
void hotspot_walk__poll(struct hotspot_walk *hw);

/* @tgid exited or exec'd: its entry goes. NULL @hw is a no-op. */
void hotspot_walk__forget(struct hotspot_walk *hw, uint32_t tgid);

/*
 * Summary lines on stderr: JVMs walked, and with @verbose those still
 * starting at the end. Refusals were said when they happened.
 */
void hotspot_walk__report(const struct hotspot_walk *hw, int verbose);

#endif /* HC_COLLECT_HOTSPOT_WALK_H */
