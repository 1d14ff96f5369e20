/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pure steps from what sym/hotspot.c reads to a name: the code heap's
 * segment map walked back to the start of the block holding a pc, and a
 * Java method's name from its class's and its own Symbol. Unit-tested.
 */
#ifndef HC_SYM_HOTSPOT_NAMES_H
#define HC_SYM_HOTSPOT_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* A segment map byte of a free segment (HotSpot's heap.hpp free_sentinel). */
#define HOTSPOT_SEG_FREE 0xff

/*
 * HotSpot's CodeHeap divides its memory into segments of 2^log2_segment_size
 * bytes and keeps a byte per segment: 0 where a block starts, 0xff where it
 * is free, else how many segments to step back towards the block's start
 * (find_start() in heap.cpp). @map[0..@n) holds the bytes of segments
 * [@first, @first + @n). Walks back from segment *@seg (in the window).
 * 0: *@seg is where its block starts; -EAGAIN: the walk left the window,
 * *@seg is the segment to continue from (read the bytes before @first);
 * -ENOENT: a free segment, or a step that leaves the heap.
 */
int hotspot_segmap_walk(const uint8_t *map, uint64_t first, size_t n, uint64_t *seg);

/*
 * "pkg.Class.method" from a class's Symbol body (@klass, @klen bytes:
 * "pkg/Class", a hidden class "pkg/Foo$$Lambda$14/0x0000000800c03000" (or
 * "+0x...", as the VM spells it) loses
 * its address suffix) and a method's (@method, @mlen bytes) into @buf,
 * always NUL-terminated, truncated to @len. Bytes that would break a
 * folded line (';', control characters) become '?'.
 */
void hotspot_java_name(const char *klass, size_t klen, const char *method, size_t mlen,
		       char *buf, size_t len);

/* A blob's name ("StubRoutines (2)") as a frame name, made safe the same way. */
void hotspot_blob_text(const char *name, char *buf, size_t len);

#endif /* HC_SYM_HOTSPOT_NAMES_H */
