/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one in-memory profile model, from BPF to every writer: stacks of
 * interned frames (root first) with an integer weight, a kind (what the
 * weight measures, in that kind's one unit: samples for on-CPU, nanoseconds
 * for every time) and optional labels; per profile the sampling period, the
 * start time and the duration; per frame its object (file name, build ID),
 * address and flags as data. Built by `record` and the agent from aggregated
 * samples (record/emit.c), or read from a folded file; consumed by the
 * folded, pprof and SVG writers, report and diff.
 */
#ifndef HC_ANALYSIS_PROFILE_H
#define HC_ANALYSIS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What a stack's weight measures: THE kind enum. The BPF wire kinds
 * (HC_KIND_*, abi/common.h) map onto it with profile_kind_from_abi().
 */
enum profile_kind {
	PROFILE_KIND_ONCPU = 0,	/* samples; × profile.period_ns = CPU time */
	PROFILE_KIND_OFFCPU,	/* nanoseconds blocked */
	PROFILE_KIND_RUNQ,	/* nanoseconds runnable, waiting for a CPU */
	PROFILE_KIND_LOCK,	/* nanoseconds waiting for a lock */
	PROFILE_KIND_NR,
};

/* "oncpu", "offcpu", "runq", "lock"; NULL for an invalid kind. */
const char *profile_kind_name(enum profile_kind kind);
/* What one unit of weight is: "samples" (on-CPU) or "nanoseconds". */
const char *profile_kind_unit(enum profile_kind kind);
/*
 * The pprof sample type of @kind's values ("samples", "off_cpu", "runq_wait",
 * "lock_wait"), written by output/pprof.c and read back by pprof_profile.c.
 * NULL for an invalid kind.
 */
const char *profile_kind_pprof_type(enum profile_kind kind);
/* Inverse of profile_kind_name(). 0 or -EINVAL. */
int profile_kind_parse(const char *s, enum profile_kind *kind);
/* HC_KIND_ONCPU/OFFCPU/RUNQ/LOCK (abi/common.h) -> kind; -EINVAL for others (waker). */
int profile_kind_from_abi(unsigned int abi_kind, enum profile_kind *kind);

/* The object kernel frames belong to (perf's name for it; the pprof kernel mapping's file). */
#define PROFILE_KERNEL_OBJECT	"[kernel.kallsyms]"

/* Frame flags, mirrored by the folded suffixes. */
#define FRAME_F_KERNEL	0x1	/* "_[k]" */
#define FRAME_F_JIT	0x2	/* "_[j]" */
#define FRAME_F_INLINE	0x4	/* "_[i]" */
#define FRAME_F_WAKER	0x8	/* "_[w]" */
#define FRAME_F_UNKNOWN	0x10	/* no symbol: "[unknown]" or "module+0x..." */
#define FRAME_F_PYTHON	0x20	/* a Python function "qualname (file:line)"; no folded suffix */

/*
 * A frame. Its object is (module, build_id); @addr is where in it: the file
 * offset for a user object, the kernel address for a kernel frame (module
 * NULL), 0 when unknown (frames read from folded text). Frames that differ
 * only in addr are one function at several addresses: listings and graphs
 * group by (name, flags); pprof keeps one location per address.
 * @line is reserved for source lines (0 = unknown); an inlined frame is its
 * own frame with FRAME_F_INLINE, leafward of the frame it was inlined into.
 * @lines (optional, pprof's Line entries) are what DWARF says runs at @addr:
 * innermost first, each function inlined there, then the frame's own
 * function last, each caller's line the call site of the function before
 * it. They follow from (object, addr), so they are no part of a frame's
 * identity: the first add that has them sets them.
 */
struct profile_line {
	const char *func;	/* demangled; interned */
	const char *file;	/* source path as DWARF has it, interned; NULL: unknown */
	uint32_t line;		/* 0: unknown */
};

/* Lines one frame keeps at most (inline depth + 1); deeper chains keep the innermost. */
#define PROFILE_MAX_LINES 16

struct profile_frame {
	const char *name;	/* without suffix; interned, owned by the profile */
	const char *module;	/* file name of the object, or NULL */
	const char *build_id;	/* hex, or NULL */
	unsigned int flags;	/* FRAME_F_* */
	uint64_t addr;
	uint64_t map_off;	/* the object's mapped segment holding addr, as file */
	uint64_t map_limit;	/* offsets [map_off, map_limit); both 0: unknown */
	uint32_t line;
	uint32_t nr_lines;
	const struct profile_line *lines;	/* owned by the profile; NULL: none */
};

struct profile_stack {
	const uint32_t *frames;	/* frame ids, root first (frames[0] is usually the process) */
	size_t nr_frames;
	uint64_t weight;
	enum profile_kind kind;
	uint32_t pid;		/* tgid, 0 if unknown */
	uint32_t tid;		/* 0 if unknown */
	const char *comm;	/* process name, interned, or NULL */
	const char *reason;	/* off-CPU reason label, interned, or NULL */
	const char *thread;	/* thread name, interned, or NULL */
	const char *cmdline;	/* the process's command line (labels_format), interned, or NULL */
	const char *cgroup;	/* its cgroup v2 path ("/system.slice/x.service"), or NULL */
};

/* Input to profile__add(); strings are copied. */
struct profile_frame_in {
	const char *name;
	const char *module;	/* may be NULL */
	const char *build_id;	/* may be NULL */
	unsigned int flags;
	uint64_t addr;		/* 0: unknown */
	uint32_t line;		/* 0: unknown */
	uint64_t map_off, map_limit;	/* 0: unknown */
	const struct profile_line *lines;	/* copied; up to PROFILE_MAX_LINES */
	uint32_t nr_lines;
};

struct profile_stack_in {
	const struct profile_frame_in *frames;	/* root first */
	size_t nr_frames;
	uint64_t weight;
	enum profile_kind kind;
	uint32_t pid, tid;
	const char *comm, *reason;		/* may be NULL */
	const char *thread;			/* may be NULL */
	const char *cmdline, *cgroup;		/* may be NULL */
};

struct profile;

struct profile *profile__new(void);		/* NULL + errno */
void profile__free(struct profile *p);		/* NULL is a no-op */

/*
 * Add a stack. Stacks with the same frames, kind and labels merge (weights
 * add). -EOVERFLOW, nothing changed, if the kind's total would pass
 * UINT64_MAX: so no per-stack or per-frame sum can overflow either.
 * -EINVAL: no frames or a bad kind. 0 or -errno.
 */
int profile__add(struct profile *p, const struct profile_stack_in *s);
/* Same, and *@index (optional) gets the index of the stack added or merged into. */
int profile__add_at(struct profile *p, const struct profile_stack_in *s, size_t *index);
/*
 * Add @weight to stack @index (as re-adding its frames and labels would):
 * 0, -ENOENT (no such stack), -EOVERFLOW (nothing changed, as profile__add).
 */
int profile__add_weight(struct profile *p, size_t index, uint64_t weight);

/*
 * Re-add stack @s of @src to @dst: same frames (by value: names, objects,
 * addresses, flags), weight, kind and labels. 0 or -errno.
 */
int profile__copy_stack(struct profile *dst, const struct profile *src,
			const struct profile_stack *s);
/* Period, start time and duration of @src onto @dst. */
void profile__copy_meta(struct profile *dst, const struct profile *src);

/*
 * Stacks in insertion order. The returned pointer (and its frames) stays valid
 * until the next profile__add(); NULL past the end.
 */
size_t profile__nr_stacks(const struct profile *p);
const struct profile_stack *profile__stack(const struct profile *p, size_t i);
size_t profile__nr_frames(const struct profile *p);	/* distinct frames */
/* Frame ids are 0 .. profile__nr_frames() - 1; NULL for any other id. */
const struct profile_frame *profile__frame(const struct profile *p, uint32_t id);

/*
 * The frame a stack's self weight belongs to, as an index in @frames (root
 * first, @nr > 0): its leaf, but an off-CPU stack recorded with --wakers
 * goes on past the block with who woke it ("...;[futex];--;
 * try_to_wake_up_[k]_[w];...;main_[w]"): those frames are not where the
 * time went, so the self weight stays on the last frame before the "--"
 * (the reason), where it would be without them. Waker frames keep their
 * inclusive weight. report and diff rank by it.
 */
size_t profile__self_frame(const struct profile *p, const uint32_t *frames, size_t nr);

/* The folded suffix for @flags ("_[k]", "" for none; several flags: "_[k]_[i]"). Static. */
const char *profile_frame_suffix(unsigned int flags);

/*
 * A frame's folded text @name (*@len bytes) as the folded reader takes it:
 * its "_[k]"-style suffixes cut off (in place; *@len shortened) into
 * FRAME_F_* flags, and FRAME_F_UNKNOWN for "[unknown]" or "module+0xHEX".
 */
unsigned int profile_frame_text_flags(char *name, size_t *len);

/*
 * Order of two frames by their folded text (name + suffix, bytewise), then
 * flags: <0, 0 (same name and flags), >0. The order every listing uses.
 */
int profile_frame_cmp(const struct profile *p, uint32_t a, uint32_t b);

uint64_t profile__total(const struct profile *p, enum profile_kind kind);
bool profile__has_kind(const struct profile *p, enum profile_kind kind);

/* Metadata: sampling period for on-CPU weights (0 = unknown). */
void profile__set_period_ns(struct profile *p, uint64_t ns);
uint64_t profile__period_ns(const struct profile *p);
/*
 * The sampling event when on-CPU samples count events rather than clock
 * ticks (record -e page-faults): one sample = @period events of @name (the
 * period_ns is then 0: a sample is no amount of time). NULL/"": none.
 */
void profile__set_event(struct profile *p, const char *name, uint64_t period);
const char *profile__event(const struct profile *p);	/* NULL: a clock */
uint64_t profile__event_period(const struct profile *p);
/* When the recording started (ns since the Unix epoch) and how long it ran; 0 = unknown. */
void profile__set_time(struct profile *p, uint64_t start_ns, uint64_t duration_ns);
uint64_t profile__start_ns(const struct profile *p);
uint64_t profile__duration_ns(const struct profile *p);
/*
 * Bit (1u << kind) for every kind with at least one stack, and every kind
 * declared by profile__declare_kinds().
 */
unsigned int profile__kinds(const struct profile *p);
/*
 * The kinds the recording collected (1u << kind each), held or not: an
 * empty `record --locks` still writes "kind=lock", not the on-CPU default,
 * and a hot/cold recording stays hot/cold when one side had nothing.
 */
void profile__declare_kinds(struct profile *p, unsigned int kinds);

/* ---- folded text ------------------------------------------------------------ */

/*
 * Frames in one folded line, at most: a bound on what one line may cost
 * (about 40 bytes per frame). Real stacks are 10s to 1000s of frames deep;
 * a deeper line is malformed.
 */
#define FOLDED_MAX_FRAMES	(1u << 20)
#define FOLDED_MAX_FRAMES_STR	"1048576"

struct folded_read_stats {
	uint64_t lines;		/* non-blank lines seen (not headers or comments) */
	uint64_t malformed;	/* skipped: no count, bad count, empty frame, ... */
	uint64_t first_bad_line;/* line number of the first malformed line, 0 if none */
	unsigned int header_kinds; /* (1u << kind) per hotcold header read; 0: none (the
				    * file came from another tool) */
	uint64_t binary_line;	/* reading stopped: a NUL byte here (not text), else 0 */
	uint64_t bad_header_line; /* reading stopped: a hotcold header we cannot use */
};

/*
 * The header line hotcold writes before each kind's lines. It starts with
 * '#' and ends in a token that is not a bare number, so flamegraph.pl,
 * inferno and speedscope (which take the count after the last space and
 * skip lines without one) ignore it:
 *   # hotcold folded v1 kind=offcpu unit=nanoseconds [period_ns=N] [start_ns=N] [duration_ns=N]
 * unit: samples (on-CPU only), nanoseconds, or microseconds (read only: for
 * older files whose user prepends a header; weights are scaled to ns). An
 * on-CPU section in nanoseconds (a hot/cold file) needs period_ns and is
 * read back as samples (count / period, rounded).
 */
#define FOLDED_HEADER_MAGIC	"# hotcold folded "

/*
 * Read FlameGraph folded stacks (SEEDS.md §1): frames root->leaf joined by
 * ';', the count after the LAST space, surrounding whitespace ignored, blank
 * lines ignored, malformed lines skipped and counted (each reported with its
 * line number via pr_debug). Suffixes _[k] _[j] _[i] _[w] become flags.
 * Weights are @kind until a hotcold header says otherwise; a header also
 * sets the period and times. Other lines starting with "# " are comments
 * unless they end in a count (then they are stacks, as classic tools read them).
 * 0 or -errno: -EIO on read error, -ENOMEM; -EPROTO for a header we cannot
 * use (st->bad_header_line), -EILSEQ for a NUL byte (st->binary_line: the
 * input is binary, not text; nothing is added past it).
 *
 * Details: a tab before the count separates like a space (flamegraph.pl's
 * \s); the count is decimal digits only (no sign, no fraction, at most
 * UINT64_MAX); a line with an empty frame ("a;;b 1"), more than
 * FOLDED_MAX_FRAMES frames, or a count that would take its kind's total past
 * UINT64_MAX is malformed. A count of 0 is a valid line that adds nothing.
 * "[unknown]" and "module+0xHEX" frames get FRAME_F_UNKNOWN.
 */
int profile__read_folded(struct profile *p, FILE *in, enum profile_kind kind,
			 struct folded_read_stats *st);

/* The writer of this format, profile__write_folded(), is in output/folded.h. */

/*
 * The folded text of stack @s without the count ("a;b;c_[k]"), NUL-terminated,
 * into *@buf (malloc'd or grown; *@cap its size; start with NULL/0). Frame
 * text is not sanitized. 0 or -ENOMEM.
 */
int profile_stack_text(const struct profile *p, const struct profile_stack *s, char **buf,
		       size_t *cap);

/* ---- per-frame totals ------------------------------------------------------- */

struct frame_total {
	uint32_t frame;		/* frame id */
	uint64_t self;		/* weight where it is the leaf */
	uint64_t inclusive;	/* weight of stacks containing it, once per stack (recursion) */
};

/*
 * Self and inclusive weight per frame *name* (ids with the same name and
 * flags are one frame), over stacks of @kind, sorted by self desc then name
 * asc. *out is malloc'd. 0 or -errno.
 */
int profile__frame_totals(const struct profile *p, enum profile_kind kind,
			  struct frame_total **out, size_t *nr);

/*
 * The hottest frame: most self weight, ties to the smallest name. false when
 * the profile has no weight of @kind. @pct gets its self share in percent.
 */
bool profile__hottest(const struct profile *p, enum profile_kind kind, uint32_t *frame,
		      double *pct);

#endif /* HC_ANALYSIS_PROFILE_H */
