// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The web view's thread filter (agent/view_filter.c) over a pprof as the
 * agent stores it (output/pprof.c), read back by analysis/pprof_read.c's
 * labels and analysis/pprof_profile.c: which samples a thread expression
 * keeps, and that the frames come back as the folded file names them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/view.h"
#include "analysis/pprof_profile.h"
#include "output/folded.h"
#include "output/pprof.h"

/* A stack root first: process, then @mid frames of @flags, then @leaf; of thread @thread/@tid. */
static void add(struct profile *p, enum profile_kind kind, const char *thread, uint32_t tid,
		const char *leaf, unsigned int leaf_flags, uint64_t w)
{
	struct profile_frame_in fr[4] = {
		{ .name = "svc" }, { .name = "main" },
		{ .name = "read", .flags = FRAME_F_INLINE },
		{ .name = leaf, .flags = leaf_flags },
	};
	struct profile_stack_in s = { .frames = fr, .nr_frames = 4, .weight = w, .kind = kind,
				      .pid = 100, .tid = tid, .comm = "svc", .thread = thread };

	if (leaf_flags & FRAME_F_KERNEL)
		fr[2].flags |= FRAME_F_KERNEL;
	if (leaf_flags & FRAME_F_UNKNOWN) {
		/* no symbol in a known object: pprof has only its address */
		fr[3].module = "/usr/lib/libx.so.1";
		fr[3].addr = 0x1a2b;
		fr[3].map_off = 0x1000;
		fr[3].map_limit = 0x3000;
	}
	assert_int_equal(profile__add(p, &s), 0);
}

/* The agent's profile of one kind: three threads, kernel, inline, unknown and JIT frames. */
static struct profile *stored(enum profile_kind kind)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	profile__set_period_ns(p, 10101010);
	add(p, kind, "worker-a", 101, "burn_in_a", 0, 30);
	add(p, kind, "worker-a", 101, "do_syscall_64", FRAME_F_KERNEL, 5);
	add(p, kind, "worker-b", 102, "burn_in_b", 0, 10);
	add(p, kind, "worker-b", 102, "libx.so.1+0x1a2b", FRAME_F_UNKNOWN, 4);
	add(p, kind, "worker-b", 103, "jitted", FRAME_F_JIT, 2);	/* same name, another TID */
	add(p, kind, NULL, 0, "burn_in_a", 0, 1);		/* no thread identity */
	return p;
}

/* @p as folded text: what the flame graph draws. malloc'd. */
static char *folded(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(profile__write_folded(p, f), 0);
	fclose(f);
	return buf;
}

/* The samples of @kind of @in's pprof whose thread matches @re, as view_add_pprof() adds them. */
static struct profile *through_pprof(const struct profile *in, enum profile_kind kind,
				     const char *re, int *err)
{
	struct profile *out = profile__new();
	uint64_t unnamed = 0;
	unsigned char *pb;
	size_t len;
	regex_t rx;

	assert_int_equal(pprof_encode(in, &pb, &len), 0);
	assert_int_equal(view_regcomp(&rx, re), 0);
	profile__set_period_ns(out, 10101010);
	*err = view_add_pprof(out, pb, len, kind, &rx, &unnamed);
	/* stored() has one stack without a thread name, of another thread's frames */
	assert_int_equal(unnamed, *err ? 0 : 1);
	regfree(&rx);
	free(pb);
	return out;
}

static uint64_t total_of(const struct profile *in, enum profile_kind kind, const char *re)
{
	int err;
	struct profile *p = through_pprof(in, kind, re, &err);
	uint64_t t = profile__total(p, kind);

	assert_int_equal(err, 0);
	profile__free(p);
	return t;
}

static void a_thread_expression_keeps_that_threads_samples(void **state)
{
	struct profile *p = stored(PROFILE_KIND_ONCPU);

	assert_int_equal(total_of(p, PROFILE_KIND_ONCPU, "^worker-a$"), 35);
	assert_int_equal(total_of(p, PROFILE_KIND_ONCPU, "^worker-b$"), 16);
	/* "name-TID": one of two threads of the same name */
	assert_int_equal(total_of(p, PROFILE_KIND_ONCPU, "^worker-b-103$"), 2);
	assert_int_equal(total_of(p, PROFILE_KIND_ONCPU, "-10[12]$"), 49);
	assert_int_equal(total_of(p, PROFILE_KIND_ONCPU, "^worker-"), 51);
	/* a sample without a thread matches no expression, not even one matching "" */
	assert_int_equal(total_of(p, PROFILE_KIND_ONCPU, ".*"), 51);
	/* negative control: nothing matches, nothing added (the page's empty state) */
	assert_int_equal(total_of(p, PROFILE_KIND_ONCPU, "^worker-c$"), 0);
	profile__free(p);
}

static void the_frames_come_back_as_the_folded_file_names_them(void **state)
{
	struct profile *p = stored(PROFILE_KIND_ONCPU), *all = profile__new(), *got;
	char *want, *have;
	int err;

	/* every thread's samples: the same folded text as the profile's own */
	profile__set_period_ns(all, 10101010);
	for (size_t i = 0; i < profile__nr_stacks(p); i++)
		if (profile__stack(p, i)->thread)
			assert_int_equal(profile__copy_stack(all, p, profile__stack(p, i)), 0);
	got = through_pprof(p, PROFILE_KIND_ONCPU, ".*", &err);
	assert_int_equal(err, 0);
	want = folded(all);
	have = folded(got);
	assert_string_equal(have, want);
	/* the suffixes are flags again, not text: kernel, inline, JIT, unknown */
	assert_non_null(strstr(have, "svc;main;read_[k]_[i];do_syscall_64_[k] 5\n"));
	assert_non_null(strstr(have, "svc;main;read_[i];libx.so.1+0x1a2b 4\n"));
	for (size_t i = 0; i < profile__nr_frames(got); i++) {
		const struct profile_frame *f = profile__frame(got, (uint32_t)i);

		if (!strcmp(f->name, "libx.so.1+0x1a2b"))
			assert_int_equal(f->flags, FRAME_F_UNKNOWN);
		if (!strcmp(f->name, "jitted"))
			assert_int_equal(f->flags, FRAME_F_JIT);
		if (!strcmp(f->name, "do_syscall_64"))
			assert_int_equal(f->flags, FRAME_F_KERNEL);
	}
	free(want);
	free(have);
	profile__free(got);
	profile__free(all);
	profile__free(p);
}

static void a_time_kind_keeps_its_nanoseconds(void **state)
{
	struct profile *p = stored(PROFILE_KIND_OFFCPU);
	int err;
	struct profile *got;

	assert_int_equal(total_of(p, PROFILE_KIND_OFFCPU, "^worker-b$"), 16);
	/* a pprof of another kind has no value of this one: refused, not read as zeros */
	got = through_pprof(p, PROFILE_KIND_LOCK, ".*", &err);
	assert_int_equal(err, -EBADMSG);
	profile__free(got);
	profile__free(p);
}

static void bad_input_is_refused(void **state)
{
	struct profile *p = profile__new();
	static const unsigned char junk[] = { 0x0a, 0x05, 0x01 };	/* a field cut short */
	uint64_t unnamed = 0;
	regex_t rx;

	assert_int_equal(view_regcomp(&rx, "x"), 0);
	assert_int_equal(view_add_pprof(p, junk, sizeof(junk), PROFILE_KIND_ONCPU, &rx, &unnamed),
			 -EBADMSG);
	assert_int_equal(profile__nr_stacks(p), 0);
	regfree(&rx);
	assert_int_equal(view_regcomp(&rx, "("), -EINVAL);
	assert_int_equal(view_regcomp(&rx, "^(a*)*\\1$"), -EINVAL);
	assert_true(view_thread_match(&(regex_t){ 0 }, NULL, 5) == false);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_thread_expression_keeps_that_threads_samples),
		cmocka_unit_test(the_frames_come_back_as_the_folded_file_names_them),
		cmocka_unit_test(a_time_kind_keeps_its_nanoseconds),
		cmocka_unit_test(bad_input_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
