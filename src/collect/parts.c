// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Loading with optional parts left out where the kernel refuses them (parts.h). */
#include "collect/parts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static const struct {
	const char *name;
	const char *what;	/* what the kernel refused */
	const char *instead;	/* what the collector does without it */
	const char *stat;	/* its counter's name (util/diag.c) */
} parts[HC_PART_NR] = {
	[HC_PART_TASK_WORK] = { "task_work", "BPF task work", "user stacks of long blocks are "
				"taken at syscall exit instead",
				"parts refused by the kernel: task work (stacks at sys_exit)" },
	[HC_PART_WAKERS] = { "wakers", "waker stacks", "going on without them",
			     "parts refused by the kernel: waker stacks" },
	[HC_PART_HOLDERS] = { "holders", "lock holders' stacks", "going on without them",
			      "parts refused by the kernel: lock holders' stacks" },
	[HC_PART_BRANCHES] = { "branches", "branch records", "going on without them",
			       "parts refused by the kernel: branch records" },
	[HC_PART_CFI] = { "cfi", "CFI unwinding", "going on with frame-pointer user stacks",
			  "parts refused by the kernel: CFI unwinding (frame pointers instead)" },
};

/* cheapest loss first: CFI last, it is what names most stacks */
static const enum hc_part order[] = {
	HC_PART_TASK_WORK, HC_PART_WAKERS, HC_PART_HOLDERS, HC_PART_BRANCHES, HC_PART_CFI,
};

const char *part_name(enum hc_part p)
{
	return (unsigned int)p < HC_PART_NR ? parts[p].name : NULL;
}

unsigned int parts_test_refuse(void)
{
	const char *e = getenv("HOTCOLD_TEST_REFUSE");
	unsigned int bits = 0;
	char buf[128], *save, *tok;

	if (!e || !*e)
		return 0;
	snprintf(buf, sizeof(buf), "%s", e);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool known = !strcmp(tok, "core");

		if (known)
			bits |= PART_BIT(HC_PART_CORE);
		for (int p = 0; p < HC_PART_NR && !known; p++)
			if (!strcmp(tok, parts[p].name)) {
				bits |= PART_BIT(p);
				known = true;
			}
		if (!known)
			pr_warn("hotcold: HOTCOLD_TEST_REFUSE: '%s' is no part (ignored)\n", tok);
	}
	return bits;
}

static int try_load(parts_load_fn fn, void *ctx, unsigned int parts_on, char *reason,
		    size_t len)
{
	char buf[LOG_REASON_LEN];
	int err;

	log_capture_begin();
	err = fn(ctx, parts_on);
	log_capture_end(buf, sizeof(buf));
	if (err && reason && !reason[0])
		snprintf(reason, len, "%s", buf[0] ? buf : strerror(-err));
	return err;
}

static void say_refused(const char *who, enum hc_part p, const char *reason)
{
	pr_warn("%s: the kernel refused %s (%s); %s\n", who, parts[p].what, reason,
		parts[p].instead);
}

int parts_load(const char *who, const char *needs, parts_load_fn fn, void *ctx,
	       unsigned int *parts_on, unsigned int *refused)
{
	char reason[LOG_REASON_LEN] = "";
	unsigned int kept = *parts_on, dropped = 0;
	enum hc_part last = HC_PART_NR;
	int err;

	*refused = 0;
	err = try_load(fn, ctx, kept, reason, sizeof(reason));
	for (size_t i = 0; err && i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(kept & PART_BIT(order[i])))
			continue;
		kept &= ~PART_BIT(order[i]);
		dropped |= PART_BIT(order[i]);
		last = order[i];
		err = try_load(fn, ctx, kept, NULL, 0);
	}
	if (err == -EINTR)
		return err;	/* a signal while loading (collect/parts.h's caller says so) */
	if (err) {
		pr_warn("%s: the kernel refused its BPF programs (%s); they need %s\n", who,
			reason, needs);
		return -HC_EKERNEL;
	}
	if (!dropped)
		return 0;
	/* the parts left out before the last one may be innocent: take them back */
	for (int p = 0; p < HC_PART_NR; p++) {
		if (!(dropped & PART_BIT(p)) || (enum hc_part)p == last)
			continue;
		/* the loaded skeleton is kept only if a reload with @p succeeds */
		if (!try_load(fn, ctx, kept | PART_BIT(p), NULL, 0)) {
			kept |= PART_BIT(p);
			dropped &= ~PART_BIT(p);
		} else if (try_load(fn, ctx, kept, NULL, 0)) {
			return -EAGAIN;	/* loaded a moment ago: the kernel changed its mind */
		}
	}
	for (int p = 0; p < HC_PART_NR; p++)
		if (dropped & PART_BIT(p))
			say_refused(who, p, reason);
	*parts_on = kept;
	*refused = dropped;
	return 0;
}

void parts_stats_add(struct collector_stats *st, unsigned int refused)
{
	for (int p = 0; p < HC_PART_NR; p++)
		if (refused & PART_BIT(p) && st->nr < COLLECTOR_MAX_STATS)
			st->s[st->nr++] = (struct collector_stat){ parts[p].stat, 1, true };
}
