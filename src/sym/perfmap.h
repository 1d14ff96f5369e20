/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JIT symbol maps, /tmp/perf-PID.map: one "START SIZE name" per line, START
 * and SIZE hex with or without "0x", the name running to the end of the line
 * (inner spaces kept, trailing ones dropped). A later line wins over an
 * earlier one for the same code.
 */
#ifndef HC_SYM_PERFMAP_H
#define HC_SYM_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct perfmap;

/* Read all of @f (not closed); malformed lines are skipped. NULL + errno. */
struct perfmap *perfmap__parse(FILE *f);

/*
 * Open @dir/perf-@pid.map without following symlinks and parse it, but only
 * if it is a regular file owned by @owner (the target process's uid) or by
 * root, as perf requires: anyone can write to /tmp, and a map planted by
 * another user would put their names on our frames. NULL + errno: ENOENT,
 * ELOOP (symlink), EPERM (wrong owner or not a regular file), or a read error.
 */
struct perfmap *perfmap__load(const char *dir, uint32_t pid, uid_t owner);

/*
 * Same, relative to the open directory @dirfd (e.g. a container's /tmp kept
 * open past the container's exit); @dir only names it in messages.
 */
struct perfmap *perfmap__load_at(int dirfd, const char *dir, uint32_t pid, uid_t owner);

/*
 * perfmap__load() reads at most the last 8 MiB of a map (anyone can write
 * one for their own process); since start, maps that were cut and the bytes
 * not read, process-wide.
 */
void perfmap_stats(uint64_t *capped, uint64_t *bytes_skipped);

/* The ownership rule of perfmap__load() on an open fd. 0 or -EPERM / -errno. */
int perfmap_check_file(int fd, uid_t owner);

void perfmap__free(struct perfmap *pm);	/* NULL is a no-op */

size_t perfmap__nr(const struct perfmap *pm);

/*
 * Name of the entry containing @addr, or NULL; *@off (optional) gets the
 * offset into it. The string lives as long as @pm.
 */
const char *perfmap__lookup(const struct perfmap *pm, uint64_t addr, uint64_t *off);

#endif /* HC_SYM_PERFMAP_H */
