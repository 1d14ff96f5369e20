/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * V8 processes (Node.js) for the BPF walker (issue 31): recognises a node
 * binary or libnode.so in a process's mappings, reads its v8dbg_* table
 * from the file (sym/v8_elf.h) and publishes the few offsets the walk
 * needs in v8_procs, so the walk puts a JavaScript frame's function in
 * place of its pc (bpf/lib/unwind_v8.bpf.h). Owns the two maps the walking
 * collectors share (v8_procs, v8_nprocs).
 */
#ifndef HC_COLLECT_V8_WALK_H
#define HC_COLLECT_V8_WALK_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_map;
struct collector_env;
struct procmaps;
struct v8_walk;

/* Create the maps; reads <@proc_root>/PID/... 0 or -errno (the session goes on without). */
int v8_walk__new(struct v8_walk **out, const char *proc_root);
void v8_walk__free(struct v8_walk *vw);	/* NULL is a no-op */

int v8_walk__procs_fd(const struct v8_walk *vw);
int v8_walk__nprocs_fd(const struct v8_walk *vw);

/* Point a collector object's copies at env's maps (before load); no-op without. 0 or -errno. */
int v8_walk_reuse_maps(const struct collector_env *env, struct bpf_map *procs,
		       struct bpf_map *nprocs);

/*
 * A process (or its new image after exec) with executable mappings @pm: if
 * it maps a V8 binary, its layout is read and published (or refused, said
 * once). 0, or -errno on a map update failure.
 */
int v8_walk__add_process(struct v8_walk *vw, uint32_t tgid, const struct procmaps *pm);

/* Whether @tgid's V8 binary was seen (published or refused). */
bool v8_walk__known(const struct v8_walk *vw, uint32_t tgid);

/* @tgid exited or exec'd: its entry goes. NULL @vw is a no-op. */
void v8_walk__forget(struct v8_walk *vw, uint32_t tgid);

/* A summary line on stderr with @verbose, and map update failures always. */
void v8_walk__report(const struct v8_walk *vw, int verbose);

#endif /* HC_COLLECT_V8_WALK_H */
