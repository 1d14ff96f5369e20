// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Open and load every BPF object through the verifier, with every program
 * (tp_btf and raw_tp twins alike) autoloaded; nothing is attached.
 * Needs root and kernel BTF: exits 77 (skip) without them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/libbpf.h>

#include "abi/common.h"

#include "sched.skel.h"
#include "counters.skel.h"
#include "locks.skel.h"
#include "oncpu.skel.h"
#include "proc.skel.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Every loaded program's verifier statistics (log level 4: "processed N
 * insns ...") are printed after its object's line, and the largest is
 * checked against HC_VERIFIER_BUDGET (100,000 instructions processed, 10%
 * of the kernel's limit: a kernel release that makes the verifier work
 * harder, as 6.18.y's forking of [-1, 0] masks did, must still leave a wide
 * margin). The count is deterministic for a kernel and an object, so it is
 * a test, not a benchmark. The stats buffer holds a few lines: 4 KiB (512
 * bytes was too small once a kernel wrote more, and a full buffer fails the
 * load with ENOSPC).
 */
#define VSTATS_PROGS 64
#define VSTATS_BYTES 4096
#define HC_VERIFIER_BUDGET 100000
static char vstats_buf[VSTATS_PROGS][VSTATS_BYTES];
static unsigned long vstats_max;	/* the largest count printed */
static char vstats_max_name[128];

/* @print false: give each program a log buffer at level 4; true: print their stats lines */
static void vstats(struct bpf_object *obj, const char *what, bool print)
{
	struct bpf_program *prog;
	unsigned long insns;
	char *line;
	int i = 0;

	bpf_object__for_each_program(prog, obj) {
		if (i >= VSTATS_PROGS)
			break;
		if (!print) {
			vstats_buf[i][0] = '\0';
			bpf_program__set_log_buf(prog, vstats_buf[i], VSTATS_BYTES);
			bpf_program__set_log_level(prog, 4);
		} else if ((line = strstr(vstats_buf[i], "processed")) && bpf_program__autoload(prog)) {
			printf("  %s: %.*s\n", bpf_program__name(prog), (int)strcspn(line, "\n"), line);
			if (sscanf(line, "processed %lu", &insns) == 1 && insns > vstats_max) {
				vstats_max = insns;
				snprintf(vstats_max_name, sizeof(vstats_max_name), "%s%s: %s",
					 bpf_object__name(obj), what, bpf_program__name(prog));
			}
		}
		i++;
	}
}

/*
 * After a failed load: the same object loaded again with the verifier's
 * log (level 1, plus the stats), and the last lines of each refused
 * program's log printed, so a failure on a kernel in a guest says why
 * (kernels >= 6.4 keep the log's tail when it overflows).
 */
#define FAILLOG_BYTES (16u << 20)
#define FAILLOG_LINES 12

static void print_tail(const char *log, int lines)
{
	const char *p = log + strlen(log);

	while (p > log && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	const char *end = p;
	while (p > log && lines > 0)
		if (*--p == '\n')
			lines--;
	if (*p == '\n')
		p++;
	printf("%.*s\n", (int)(end - p), p);
}

static void faillog_arm(struct bpf_object *obj, char *buf)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		bpf_program__set_log_buf(prog, NULL, 0);
		bpf_program__set_log_level(prog, 0);
	}
	/* libbpf stops at the first refused program: one buffer, on all of them */
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		buf[0] = '\0';
		bpf_program__set_log_buf(prog, buf, FAILLOG_BYTES);
		bpf_program__set_log_level(prog, 1 | 4);
	}
}

#define CHECK_SKEL(name) CHECK_SKEL_CFG(name, "", )

/*
 * @setup runs on the opened skeleton before load: the CFI walker is only
 * verified when cfg_unwind selects it (otherwise it is dead code), so the
 * objects that walk user stacks are loaded in that mode too, with and
 * without the target filter. The load time is printed: the walker once
 * made the verifier take seconds.
 */
#define CHECK_SKEL_CFG(name, what, setup)                                           \
	do {                                                                        \
		struct name##_bpf *skel = name##_bpf__open();                       \
		double t0 = now_ms();                                               \
		int err = skel ? 0 : -errno;                                        \
		if (skel) {                                                         \
			setup;                                                      \
			vstats(skel->obj, what, false);                             \
			err = name##_bpf__load(skel);                               \
		}                                                                   \
		if (err) {                                                          \
			printf("[Failed %s%s: %s]\n", #name, what, strerror(-err)); \
			failed++;                                                   \
			name##_bpf__destroy(skel);                                  \
			if ((skel = name##_bpf__open())) {                          \
				setup;                                              \
				faillog_arm(skel->obj, faillog);                    \
				if (name##_bpf__load(skel))                         \
					print_tail(faillog, FAILLOG_LINES);         \
			}                                                           \
		} else {                                                            \
			printf("[Success] %s%s loads (%.0f ms)\n", #name, what,     \
			       now_ms() - t0);                                      \
			vstats(skel->obj, what, true);                              \
			passed++;                                                   \
		}                                                                   \
		name##_bpf__destroy(skel);                                          \
	} while (0)

#define CFI(skel) ((skel)->rodata->cfg_unwind = HC_UNWIND_CFI)
#define CFI_FILTER(skel) ((skel)->rodata->cfg_unwind = HC_UNWIND_CFI, (skel)->rodata->cfg_filter = true)
/* dithered sampling at 99 Hz, as the loader runs it */
#define DITHER(skel) ((skel)->rodata->cfg_period_ns = 10101010, (skel)->rodata->cfg_max_late_ns = 10101010, \
		      (skel)->rodata->cfg_max_ahead_ns = 12500000, \
		      (skel)->rodata->cfg_unwind = HC_UNWIND_CFI, (skel)->rodata->cfg_filter = true)
/* record -b, as the loader runs it (-e cycles: no dithering): bpf_read_branch_records verified */
#define BRANCHES(skel) ((skel)->rodata->cfg_branches = true, (skel)->rodata->cfg_unwind = HC_UNWIND_CFI, \
			(skel)->rodata->cfg_filter = true)
/* `hotcold locks`: the holders' side */
#define HOLDERS(skel) ((skel)->rodata->cfg_holders = true, (skel)->rodata->cfg_unwind = HC_UNWIND_CFI)
/* as the loader runs it: rodata off would let the verifier skip the VMA walk as dead code */
#define EXIT_MAPS(skel) ((skel)->rodata->cfg_exit_maps = true, (skel)->rodata->cfg_filter = true)

int main(void)
{
	int passed = 0, failed = 0;
	static char faillog[FAILLOG_BYTES];

	if (geteuid() != 0 || access("/sys/kernel/btf/vmlinux", R_OK)) {
		printf("[Skipped needs root and /sys/kernel/btf/vmlinux]\n");
		printf("0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	CHECK_SKEL(proc);
	CHECK_SKEL(oncpu);
	CHECK_SKEL(locks);
	CHECK_SKEL(sched);
	CHECK_SKEL(counters);
	CHECK_SKEL_CFG(proc, " (exit maps, filtered)", EXIT_MAPS(skel));
	CHECK_SKEL_CFG(oncpu, " (--unwind=cfi)", CFI(skel));
	CHECK_SKEL_CFG(oncpu, " (--unwind=cfi, filtered)", CFI_FILTER(skel));
	CHECK_SKEL_CFG(oncpu, " (dithered, --unwind=cfi, filtered)", DITHER(skel));
	CHECK_SKEL_CFG(oncpu, " (branch records, --unwind=cfi, filtered)", BRANCHES(skel));
	CHECK_SKEL_CFG(locks, " (--unwind=cfi, filtered)", CFI_FILTER(skel));
	CHECK_SKEL_CFG(locks, " (holders, --unwind=cfi)", HOLDERS(skel));
	CHECK_SKEL_CFG(sched, " (--unwind=cfi, filtered)", CFI_FILTER(skel));
	/* the budget: one more check, failed if any program went past it */
	if (vstats_max > HC_VERIFIER_BUDGET) {
		printf("[Failed verifier budget: %s processed %lu insns, over %d]\n", vstats_max_name,
		       vstats_max, HC_VERIFIER_BUDGET);
		failed++;
	} else if (passed) {
		printf("[Success] verifier budget: largest %lu insns processed (%s), at most %d\n",
		       vstats_max, vstats_max_name, HC_VERIFIER_BUDGET);
		passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
