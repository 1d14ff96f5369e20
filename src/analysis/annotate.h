/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * annotate: where inside one function its samples fell. Three steps:
 *   annotate_select()  pprof samples -> the function's self samples, by file
 *                      offset in its object (pure; annotate.c);
 *   annotate_object()  the object on disk (or its debug file) -> the
 *                      function's instructions (capstone), each with its
 *                      source line and inlined callee (libdw), weighted;
 *                      lines aggregated (annotate_obj.c, annotate_dis.c);
 *   annotate_write*()  text (hottest lines, then the function in order, with
 *                      source text when found) or JSON (annotate_write.c).
 * Self samples only, as perf annotate: a sample counts for the function whose
 * code was executing (its leaf frame, past inlined frames), not for callers.
 */
#ifndef HC_ANALYSIS_ANNOTATE_H
#define HC_ANALYSIS_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/pprof_read.h"

struct annotate_sample {
	uint64_t off;		/* file offset in the object */
	uint64_t weight;
};

struct annotate_sel {
	const char *file, *build_id;	/* the object (point into the pprof data) */
	struct annotate_sample *v;	/* sorted by off, one per offset */
	size_t nr;
	uint64_t total;		/* the function's self weight, at known offsets */
	uint64_t no_addr;	/* self weight at locations without an address */
	uint64_t in_stacks;	/* weight of samples with the function anywhere */
	uint64_t profile_total;
	const char *unit;	/* what one unit of weight is (the sample type) */
	const char *type;
	/* annotate_sel_merge(): copies the fields above point to (freed by release) */
	char *owned_file, *owned_bid, *owned_type, *owned_unit;
};

/*
 * The self samples of @func (exact name, as the profile spells it) in @d,
 * on the object holding most of them. Errors (@s released):
 *   -ENOENT   no location names @func;
 *   -ESRCH    @func is only ever a caller (s->in_stacks says how much);
 *   -ENODATA  its samples have no addresses (a profile from folded text).
 */
int annotate_select(const struct pprof_data *d, const char *func, struct annotate_sel *s);
void annotate_sel_release(struct annotate_sel *s);

/*
 * The agent's history (annotate_hist.c). "20250102T030405.678Z" -> Unix ms;
 * 0 or -EINVAL.
 */
int annotate_stamp_ms(const char *stamp, int64_t *ms);
/*
 * DIR/<stamp>-<kind>.pb.gz files of intervals that started at @since_ms or
 * later (0: all), oldest first: *@out malloc'd, free with
 * annotate_history_free(). 0 or -errno (opendir's).
 */
int annotate_history_files(const char *dir, const char *kind, int64_t since_ms, char ***out,
			   size_t *nr);
void annotate_history_free(char **files, size_t nr);
/*
 * Add @s (one interval's selection) to @into (zeroed before the first):
 * the first sets the object and build ID, later ones must have the same
 * (-EXDEV: another object or another build of it, whose offsets are other
 * code: not added). Weights at the same offset add. 0 or -errno.
 */
int annotate_sel_merge(struct annotate_sel *into, const struct annotate_sel *s);

/* --source-dir OLD=NEW, tried in order; at most this many. */
#define ANNOTATE_MAX_SRCMAP 8

struct annotate_opts {
	const char *srcmap_old[ANNOTATE_MAX_SRCMAP], *srcmap_new[ANNOTATE_MAX_SRCMAP];
	size_t nr_srcmap;
	const char *debug_root;	/* NULL: "/usr/lib/debug" */
	const char *root;	/* prefix for the object paths; NULL: none */
};

struct annotate_insn {
	uint64_t addr;		/* link-time virtual address */
	unsigned int size;
	char text[200];		/* "mnemonic operands" (capstone: 32 + 160 at most) */
	const char *file;	/* source file (pool), NULL: unknown */
	uint32_t line;
	const char *inlined;	/* innermost inlined callee at addr (pool), or NULL */
	uint64_t weight;
};

struct annotate_line {
	const char *file;	/* pool */
	uint32_t line;
	uint64_t weight;
	const char *text;	/* source text (pool), NULL: file not found */
	const char *inlined;	/* callee this line belongs to, if inlined */
	uint64_t first_addr;	/* lowest instruction: the in-order view's order */
};

/* A branch site of record -b inside the function (annotate_branch.c). */
struct annotate_branch {
	uint64_t addr;		/* link-time virtual address of the branch instruction */
	uint64_t taken, mispred;
	char target[256];	/* "func+0x30 (file.c:44)" */
};

struct annotate_result {
	char *obj_path;		/* object read for code */
	char *debug_path;	/* separate debug file used, or NULL */
	char *symbol;
	uint64_t sym_addr, sym_size;
	uint64_t sym_off;	/* file offset of sym_addr; valid with has_code */
	bool has_code;		/* the function's code was read */
	struct annotate_insn *insns;
	size_t nr_insns;
	struct annotate_line *lines;	/* hottest first, then by first_addr */
	size_t nr_lines;
	uint64_t outside;	/* selected weight at offsets outside the symbol */
	uint64_t no_line;	/* weight on instructions without a source line */
	char missing[512];	/* what this view lacks and why ("" when complete) */
	char **pool;		/* interned strings */
	size_t nr_pool, cap_pool;
	struct annotate_branch *branches;	/* most mispredicted first; NULL: none */
	size_t nr_branches;
};

/*
 * Disassemble and line-map the function around @s's samples. -ENOENT: the
 * object cannot be opened or no disassembler loaded (message in
 * r->missing), -ESRCH: no symbol @func nor one holding the hottest offset.
 * A view without DWARF or source is not an error: r->missing says what is
 * lacking.
 */
int annotate_object(const struct annotate_sel *s, const char *func,
		    const struct annotate_opts *o, struct annotate_result *r);
void annotate_result_release(struct annotate_result *r);

/* Intern @s in @r's pool; NULL on ENOMEM. */
const char *annotate_intern(struct annotate_result *r, const char *s);

/* Aggregate insns into r->lines, hottest first (ties: in address order). 0 or -ENOMEM. */
int annotate_lines(struct annotate_result *r);

/* Attach source text to r->lines via the --source-dir map. Missing files are noted. */
void annotate_source(struct annotate_result *r, const struct annotate_opts *o);

struct branch_table;
/*
 * The branch sites of @t (record -b) whose branch lies in the function
 * @r shows (same object as @s, by path or file name; by file offset),
 * into r->branches. 0 (none is not an error) or -ENOMEM.
 */
int annotate_branches(struct annotate_result *r, const struct annotate_sel *s,
		      const struct branch_table *t);

/* Output. @top: hottest lines listed (0: all). 0 or -EIO. */
int annotate_write_text(FILE *out, const struct annotate_sel *s, const struct annotate_result *r,
			size_t top);
int annotate_write_json(FILE *out, const struct annotate_sel *s, const struct annotate_result *r);

/*
 * Load the disassembler (capstone, dlopen()ed once). 0; -ENOENT: the library
 * cannot be loaded, -EOPNOTSUPP: none for this architecture; @why (@len
 * bytes) says which in one phrase.
 */
int annotate_disasm_load(char *why, size_t len);
/*
 * Disassembly of @len bytes at @addr (x86-64 or arm64 host). Each insn's addr,
 * size, text. -ENOENT: not loaded (annotate_disasm_load() says why).
 */
int annotate_disasm(const uint8_t *code, size_t len, uint64_t addr, struct annotate_insn **insns,
		    size_t *nr);

#endif /* HC_ANALYSIS_ANNOTATE_H */
