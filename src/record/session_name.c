// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agent's interval named while it runs (record/name_ahead.h): a turn's
 * budget of new stacks named into the interval's profile, and at its end
 * only the growth since, the new stacks within the end's budget, and the
 * rest kept unnamed and counted. The one-shot record names at its end.
 */
#include <errno.h>
#include <string.h>

#include "analysis/profile.h"
#include "record/session.h"
#include "record/session_int.h"
#include "util/clock.h"
#include "util/log.h"

/*
 * A turn names at most this many new stacks or for this long (wall): a
 * stack costs ~10-50 us (its frames looked up and interned), a turn comes
 * every SESSION_POLL_MS at most, so an interval of 2 s has ~20 turns.
 */
#define SESSION_NAME_STACKS 2048
#define SESSION_NAME_NS (20 * 1000000ull)
/* Kept without names when the end's budget runs out: the weight stays, the frames go. */
#define SESSION_UNNAMED_FRAME "[not named in time]"

/*
 * Every stack is named when the ledger reaches it, an [unknown] frame too:
 * it says what was known then, and leaving such stacks to the end (a perf
 * map or fetched debug info might name them by then) left most of a real
 * server's interval to the end's budget (t_real_servers: 1798 of 2235).
 */
static int op_name(const struct stack_entry *e, uint64_t w, bool at_end, size_t *idx, void *arg)
{
	struct session *s = arg;

	return emit_namer__add(s->namer, e, w, s->named, idx);
}

static int op_add(size_t idx, uint64_t w, void *arg)
{
	struct session *s = arg;

	return profile__add_weight(s->named, idx, w);
}

/* The process (as the root frame) and one frame saying the names are missing. */
static int op_unnamed(const struct stack_entry *e, uint64_t w, void *arg)
{
	struct session *s = arg;
	char comm[STACK_AGG_COMM_LEN + 1];
	struct profile_frame_in f[2] = { { .name = comm },
					 { .name = SESSION_UNNAMED_FRAME, .flags = FRAME_F_UNKNOWN } };
	struct profile_stack_in in = { .frames = f, .nr_frames = 2, .weight = w,
				       .pid = e->key.tgid, .tid = e->key.pid, .comm = comm };
	int err = profile_kind_from_abi(e->key.kind, &in.kind);

	if (err)
		return err;
	memcpy(comm, e->key.pcomm[0] ? e->key.pcomm : e->key.comm, STACK_AGG_COMM_LEN);
	comm[STACK_AGG_COMM_LEN] = '\0';
	return profile__add(s->named, &in);
}

static struct name_ahead_ops session_name_ops(struct session *s)
{
	return (struct name_ahead_ops){ op_name, op_add, op_unnamed, s };
}

int session_name_open(struct session *s)
{
	struct emit_opts eo = session_emit_opts(s);
	int err;

	name_ahead__init(&s->na);
	/* --label cmdline: a title may change until the interval's end names the root */
	if (!s->o->name_ahead || s->labels)
		return 0;
	err = emit_namer__new(&s->namer, s->sym, &eo);
	if (err)
		return err;
	s->named = profile__new();
	if (!s->named)
		return -ENOMEM;
	name_ahead__reset(&s->na, s->agg);
	s->naming = true;
	return 0;
}

void session_name_close(struct session *s)
{
	name_ahead__release(&s->na);
	emit_namer__free(s->namer);
	profile__free(s->named);
	s->namer = NULL;
	s->named = NULL;
	s->naming = false;
}

/* Forget what was named: an eviction reused an index, or a name failed. 0 or -ENOMEM. */
static int session_name_restart(struct session *s)
{
	profile__free(s->named);
	s->named = profile__new();
	name_ahead__reset(&s->na, s->agg);
	return s->named ? 0 : -ENOMEM;
}

void session_name_reset(struct session *s)
{
	if (s->naming)
		session_name_restart(s);	/* no memory: the next turn tries again */
}

void session_name_turn(struct session *s)
{
	struct name_ahead_ops ops = session_name_ops(s);
	uint64_t t0 = clock_mono_ns(), c0 = clock_thread_cpu_ns();
	struct budget b;
	int err;

	if (!s->naming || (!s->named && session_name_restart(s)))
		return;
	budget_init(&b, NULL, SESSION_NAME_STACKS, SESSION_NAME_NS);
	err = name_ahead__step(&s->na, s->agg, &b, &ops);
	s->name_more = err == 1;	/* the next turn does not wait for the ring */
	if (err < 0) {
		/* -ESTALE is counted by the ledger; the end names what is left */
		if (err != -ESTALE && !s->name_errors++)
			pr_warn("record: naming stacks ahead failed: %s (named at the interval's "
				"end)\n", strerror(-err));
		session_name_restart(s);	/* no memory: the next turn tries again */
	}
	session_step(s, "naming stacks ahead", t0, c0);
}

int session__take_profile(struct session *s, uint64_t budget_ns, struct profile **out)
{
	struct name_ahead_ops ops = session_name_ops(s);
	struct emit_opts eo = session_emit_opts(s);
	uint64_t t0 = clock_mono_ns(), c0 = clock_thread_cpu_ns();
	struct profile *p;
	struct budget b;
	int err;

	if (!s->naming) {
		p = profile__new();
		err = p ? session__profile(s, p) : -ENOMEM;
		if (err) {
			profile__free(p);
			return err;
		}
		*out = p;
		session_step(s, "naming the interval's stacks", t0, c0);
		return 0;
	}
	if (!s->named) {
		err = session_name_restart(s);
		if (err)
			return err;
	}
	budget_init(&b, NULL, 0, budget_ns);
	err = name_ahead__finish(&s->na, s->agg, &b, &ops);
	if (err == -ESTALE) {
		/* the ledger's indices name other stacks now: all of them, within the budget */
		err = session_name_restart(s);
		if (!err)
			err = name_ahead__finish(&s->na, s->agg, &b, &ops);
	}
	session_step(s, "naming the interval's stacks", t0, c0);
	if (err)
		return err;
	profile__set_period_ns(s->named, eo.period_ns);
	profile__set_event(s->named, eo.event, eo.event_period);
	*out = s->named;
	/* the next interval's starts at session__reset(), or at the next turn */
	s->named = NULL;
	return 0;
}
