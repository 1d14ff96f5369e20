/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Python frames (issue 20): recognises CPython 3.11/3.12 processes from
 * their mappings, tells the BPF walker (bpf/python.bpf.h) where their
 * interpreter is, and turns the Python frames of a sample into named user
 * frames in place of the interpreter's eval frames. Owns the two maps the
 * collectors share (python_procs, python_stats).
 */
#ifndef HC_COLLECT_PYTHON_H
#define HC_COLLECT_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/symbolizer.h"

struct bpf_map;
struct collector_env;
struct procmaps;
struct python;
struct python_names;

/* Create the maps. 0 or -errno (no BPF: the session goes on without Python frames). */
int python__new(struct python **out, int nr_cpus);
void python__free(struct python *py);	/* NULL is a no-op */

int python__procs_fd(const struct python *py);
int python__stats_fd(const struct python *py);
int python__nprocs_fd(const struct python *py);
/* The code object names, for symbolizer__set_python(). */
const struct python_names *python__names(const struct python *py);

/* Point a collector object's copies at env's maps (before load); no-op without. 0 or -errno. */
int python_reuse_maps(const struct collector_env *env, struct bpf_map *procs,
		      struct bpf_map *stats, struct bpf_map *nprocs);

/*
 * A new process (or a new image after exec) with executable mappings @pm:
 * if one is a CPython of a supported version, its walker entry; an
 * unsupported version is counted. 0, or -errno on a map update failure.
 */
int python__add_process(struct python *py, uint32_t tgid, const struct procmaps *pm);
/* Whether @tgid's interpreter was found (of a supported version or not). */
bool python__known(const struct python *py, uint32_t tgid);
/* @tgid exited or exec'd: its entry goes (names already read stay). */
void python__forget(struct python *py, uint32_t tgid);

/*
 * The user frames of a sample of @tgid: @nat[0..@nn) native ips (the ones
 * kept, normalized into @f), @pyw[0..@np) the tagged Python frames. Writes
 * the merged frames, leaf first, into @out (room for @nn + @np, not @f)
 * and returns their count; @f copied when @tgid is not a Python process we
 * know. @native_complete: the native walk reached the outermost frame
 * (else Python frames left over go above its last frame, see
 * python_merge()).
 */
size_t python__user_frames(struct python *py, uint32_t tgid, const uint64_t *nat, size_t nn,
			   const uint64_t *pyw, size_t np, bool native_complete,
			   const struct sym_ufr *f, struct sym_ufr *out);

/*
 * Summary lines on stderr: what was degraded or lost (non-zero only), the
 * work done too with @verbose. Returns the number of problem lines.
 */
unsigned int python__report(struct python *py, int verbose);

#endif /* HC_COLLECT_PYTHON_H */
