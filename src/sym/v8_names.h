/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A JavaScript function's name read from a V8 heap, through a reader of
 * the process's memory (a byte buffer in tests and the fuzz target): the
 * frame the BPF walk gave (abi/v8.h: a tagged SharedFunctionInfo and a
 * check of it), checked, then its name_or_scope_info: a String, or a
 * ScopeInfo that holds the name after its context locals. Strings:
 * sequential one- and two-byte, cons, thin and sliced ones, as UTF-8.
 */
#ifndef HC_SYM_V8_NAMES_H
#define HC_SYM_V8_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "sym/v8_layout.h"

/* What an anonymous function is called (as V8's own stack traces do) */
#define V8_ANONYMOUS "(anonymous)"

struct v8_reader {
	/* @len bytes at @addr into @buf: 0, or -errno (all or nothing) */
	int (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
};

/*
 * The string at @tagged (a tagged pointer) as UTF-8 into @buf (NUL-ended,
 * cut at @len - 1 bytes on a character's boundary). 0; -EINVAL: not a
 * string, or of a kind not read (external); -ELOOP: nested too deep;
 * -EFAULT: unreadable.
 */
int v8_string(const struct v8_layout *l, const struct v8_reader *r, uint64_t tagged, char *buf,
	      size_t len);

/*
 * Name the frame @frame (abi/v8.h hc_v8_sfi_frame()) into @buf: the
 * function's name, V8_ANONYMOUS for one without, then its script where the
 * layout says how to find it: "handle (/srv/app/server.js)". 0; -ESTALE: the pointer
 * is no SharedFunctionInfo, or not the one the walk saw (its check
 * differs: moved or freed since); -EINVAL: a name we cannot read;
 * -EFAULT: unreadable.
 */
int v8_frame_name(const struct v8_layout *l, const struct v8_reader *r, uint64_t frame, char *buf,
		  size_t len);

#endif /* HC_SYM_V8_NAMES_H */
