// SPDX-License-Identifier: GPL-2.0
/*
 * client_timing.c - suite twheel_client_timing: never early.  A callout
 * armed for n ticks, by setcallout() or timeout(), starts strictly more
 * than n * twheel_tick_ns() after its arming call began, in softirq
 * context, on the arming CPU; 0 ticks is the next tick; a re-armed one is
 * timed by its last call; far ones, up to CALLOUT_MAX_TICKS, stay pending;
 * many handles on both CPUs, and 10,000 random callouts, each run once.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "client.h"

#define NMANY		128
#define NRANDOM		10000	/* callouts of random intervals */

/* Delays around the default geometry's edges (64 slots a level). */
static const struct ticks_case ticks_cases[] = {
	{ 0, "0 ticks (the next tick)" },
	{ 1, "1 tick" },
	{ 2, "2 ticks" },
	{ 3, "3 ticks" },
	{ 7, "7 ticks" },
	{ 10, "10 ticks" },
	{ 63, "63 ticks" },
	{ 64, "64 ticks" },
	{ 65, "65 ticks" },
	{ 127, "127 ticks" },
	{ 128, "128 ticks" },
	{ 129, "129 ticks" },
	{ 300, "300 ticks" },
};

/* Around the third level's edge: seconds each, at the default tick. */
static const struct ticks_case slow_ticks_cases[] = {
	{ 4095, "4095 ticks" },
	{ 4096, "4096 ticks" },
	{ 4097, "4097 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(ticks, ticks_cases, desc);
KUNIT_ARRAY_PARAM_DESC(slow_ticks, slow_ticks_cases, desc);

/*
 * setcallout(): armed for n ticks, func(arg) runs once (and not again),
 * strictly more than n ticks after the call, in softirq context on the
 * arming CPU.
 */
static void setcallout_runs_after_ticks(struct kunit *test)
{
	const struct ticks_case *tc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	/* idle -> pending */
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, tc->ticks), 0);
	check_ran(test, p, 1, "setcallout()");
	check_quiet(test, p, 1, 0, "setcallout()");
	KUNIT_EXPECT_EQ(test, p->fn, RAN_PROBE);
	KUNIT_EXPECT_FALSE_MSG(test, p->pending,
			       "callout_pending() true in its own function");
	/* pending -> run -> idle */
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
	kunit_info(test, "%lu ticks of %llu ns: ran %lld ns after the call\n",
		   tc->ticks, twheel_tick_ns(),
		   ktime_to_ns(ktime_sub(p->at, p->armed)));
}

static void setcallout_runs_after_thousands_of_ticks(struct kunit *test)
{
	setcallout_runs_after_ticks(test);
}

/*
 * setcallout() with 0 ticks runs on the next tick: before a callout armed
 * at the same moment for 1 tick, which may not run on the next tick.
 */
static void setcallout_zero_ticks_runs_on_next_tick(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p0 = &ctx->probe[0], *p1 = &ctx->probe[1];
	unsigned long flags;
	int round;

	for (round = 0; round < 5; round++) {
		atomic_set(&p0->runs, 0);
		atomic_set(&p1->runs, 0);
		local_irq_save(flags);
		KUNIT_EXPECT_EQ(test, arm(&p0->c, probe_fn, p0, 0), 0);
		KUNIT_EXPECT_EQ(test, arm(&p1->c, probe_fn, p1, 1), 0);
		local_irq_restore(flags);
		check_ran(test, p0, 1, "setcallout(0 ticks)");
		check_ran(test, p1, 1, "setcallout(1 tick)");
		KUNIT_EXPECT_LT_MSG(test, p0->seq, p1->seq,
				    "round %d: 0 ticks ran after 1 tick armed with it",
				    round);
	}
}

/* Re-arming a pending handle: first ticks, then second ticks. */
struct rearm_case {
	bool far;		/* first is far_ticks() */
	unsigned long first;
	unsigned long second;
	const char *desc;
};

static const struct rearm_case rearm_cases[] = {
	{ .far = true, .second = 0, .desc = "far, then 0 ticks" },
	{ .first = 0, .second = 50, .desc = "0, then 50 ticks" },
	{ .first = 100, .second = 2, .desc = "100, then 2 ticks" },
	{ .first = 3, .second = 3, .desc = "3, then 3 ticks" },
	{ .first = 5, .second = 70, .desc = "5, then 70 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(rearm, rearm_cases, desc);

/* setcallout() of a pending handle: it runs once, timed by the new call. */
static void setcallout_rearm_pending_moves_expiry(struct kunit *test)
{
	const struct rearm_case *rc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];
	unsigned long first = rc->far ? far_ticks() : rc->first;
	unsigned long flags;
	int ret0, ret1;

	local_irq_save(flags);
	ret0 = arm(&p->c, probe_fn, p, first);
	ret1 = arm(&p->c, probe_fn, p, rc->second);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret0, 0);
	KUNIT_EXPECT_EQ(test, ret1, 1);
	check_ran(test, p, 1, "re-armed");
	check_quiet(test, p, 1, 0, "re-armed");
}

/* Far delays, up to the longest allowed; past the default geometry's range. */
struct far_case {
	unsigned long ticks;
	const char *desc;
};

static const struct far_case far_cases[] = {
	{ 1UL << 12, "2^12 ticks" },
	{ 1UL << 18, "2^18 ticks" },
	{ (1UL << 24) - 1, "2^24 - 1 ticks" },
	{ 1UL << 24, "2^24 ticks" },
	{ 1UL << 32, "2^32 ticks" },
	{ CALLOUT_MAX_TICKS - 1, "CALLOUT_MAX_TICKS - 1" },
	{ CALLOUT_MAX_TICKS, "CALLOUT_MAX_TICKS" },
};

KUNIT_ARRAY_PARAM_DESC(far, far_cases, desc);

/*
 * setcallout() up to CALLOUT_MAX_TICKS is accepted; the callout stays
 * pending, does not run early, and unsetcallout() cancels it.
 */
static void setcallout_far_ticks_stay_pending(struct kunit *test)
{
	const struct far_case *fc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, fc->ticks), 0);
	spin_ns(ticks_ns(10) + 20 * NSEC_PER_MSEC);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
}

static const char * const arming_ways[] = {
	"setcallout() in a pinned thread",
	"timeout() in a pinned thread",
	"setcallout() in an IPI",
	"timeout() in an IPI",
};

/*
 * setcallout() and timeout() run on the arming CPU: every online CPU, armed
 * from a thread pinned there and from an IPI to it.
 */
static void setcallout_runs_on_arming_cpu(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct remote_arm r;
	struct probe *p;
	int cpu, n = 0, i;

	for_each_online_cpu(cpu) {
		if (n + 4 > NPROBES)
			break;
		KUNIT_ASSERT_EQ(test, pin(cpu), 0);
		KUNIT_ASSERT_EQ(test, (int)raw_smp_processor_id(), cpu);
		p = &ctx->probe[n];
		KUNIT_EXPECT_EQ(test, arm(&p[0].c, probe_fn, &p[0], 1), 0);
		KUNIT_EXPECT_EQ(test, arm_timeout(probe_fn, &p[1], 1), 0);
		KUNIT_ASSERT_EQ(test, pin(ctx->cpu_a), 0);

		r = (struct remote_arm){ .c = &p[2].c, .fn = probe_fn,
					 .arg = &p[2], .p = &p[2], .ticks = 1 };
		KUNIT_ASSERT_EQ(test, arm_on(cpu, &r), 0);
		KUNIT_EXPECT_EQ(test, r.ret, 0);
		r = (struct remote_arm){ .fn = probe_fn, .arg = &p[3],
					 .p = &p[3], .ticks = 1 };
		KUNIT_ASSERT_EQ(test, arm_on(cpu, &r), 0);
		KUNIT_EXPECT_EQ(test, r.ret, 0);
		n += 4;
	}
	for (i = 0; i < n; i++)
		check_ran(test, &ctx->probe[i], 1, arming_ways[i % 4]);
}

/*
 * Many handles on both CPUs, some re-armed while pending and some
 * cancelled: each runs once or never, as its last call says, on time.
 */
static void setcallout_many_handles_run_once(struct kunit *test)
{
	struct client *ctx = test->priv;
	int half, i, want, expected = 0, ran;
	unsigned long flags, ticks, maxticks = 0;
	struct probe *p;
	ktime_t end;
	bool *cancelled;
	int r0, r1;

	cancelled = kunit_kcalloc(test, NMANY, sizeof(*cancelled), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cancelled);
	alloc_many(test, NMANY);

	for (half = 0; half < 2; half++) {
		KUNIT_ASSERT_EQ(test, pin(half && ctx->cpu_b >= 0 ?
					  ctx->cpu_b : ctx->cpu_a), 0);
		for (i = half * NMANY / 2; i < (half + 1) * NMANY / 2; i++) {
			p = &ctx->many[i];
			ticks = (i * 37) % 211;
			want = 1;
			r1 = 1;
			local_irq_save(flags);
			r0 = arm(&p->c, probe_fn, p, ticks);
			switch (i % 4) {
			case 1:		/* pending -> re-armed, other ticks */
				ticks = (i * 11) % 97;
				r1 = arm(&p->c, probe_fn, p, ticks);
				break;
			case 2:		/* pending -> idle */
				r1 = unsetcallout(&p->c);
				cancelled[i] = true;
				want = 0;
				break;
			case 3:		/* pending -> re-armed, same ticks */
				r1 = arm(&p->c, probe_fn, p, ticks);
				break;
			}
			local_irq_restore(flags);
			KUNIT_EXPECT_EQ_MSG(test, r0, 0, "handle %d: setcallout()", i);
			KUNIT_EXPECT_EQ_MSG(test, r1, 1, "handle %d: second call", i);
			expected += want;
			maxticks = max(maxticks, ticks);
		}
	}
	KUNIT_ASSERT_EQ(test, pin(ctx->cpu_a), 0);

	end = ktime_add_ns(ktime_get(), LOST_NS);
	do {
		ran = 0;
		for (i = 0; i < NMANY; i++)
			ran += !cancelled[i] &&
			       atomic_read_acquire(&ctx->many[i].runs);
	} while (ran < expected && ktime_before(ktime_get(), end));
	KUNIT_ASSERT_EQ_MSG(test, ran, expected, "handles that ran");
	spin_ns(quiet_ns(maxticks));

	for (i = 0; i < NMANY; i++) {
		p = &ctx->many[i];
		want = cancelled[i] ? 0 : 1;
		KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&p->runs), want,
				    "handle %d (case %d) ran %d times",
				    i, i % 4, atomic_read(&p->runs));
		if (want && atomic_read(&p->runs))
			check_record(test, p, "one of many handles");
	}
}

/* 10,000 callouts of seeded random intervals: each runs once, none early. */
static void setcallout_random_intervals_run_once(struct kunit *test)
{
	struct probe *p = alloc_many(test, NRANDOM);
	struct rnd_state rnd;
	ktime_t end;
	int i, ran;

	prandom_seed_state(&rnd, 20261121);
	for (i = 0; i < NRANDOM; i++)
		KUNIT_ASSERT_EQ(test, arm(&p[i].c, probe_fn, &p[i],
					  prandom_u32_state(&rnd) % 300), 0);
	end = ktime_add_ns(ktime_get(), LOST_NS);
	do {
		for (ran = 0, i = 0; i < NRANDOM; i++)
			ran += atomic_read_acquire(&p[i].runs) != 0;
	} while (ran < NRANDOM && ktime_before(ktime_get(), end));
	spin_ns(quiet_ns(0));	/* for a second run, were there one */

	for (i = 0; i < NRANDOM; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&p[i].runs), 1,
				    "callout %d of %lu ticks", i, p[i].ticks);
		if (atomic_read(&p[i].runs))
			check_record(test, &p[i], "a random interval");
	}
}

/* timeout(): as setcallout(), and twheel frees the callout after its run. */
static void timeout_runs_after_ticks(struct kunit *test)
{
	const struct ticks_case *tc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_ASSERT_EQ(test, arm_timeout(probe_fn, p, tc->ticks), 0);
	check_ran(test, p, 1, "timeout()");
	check_quiet(test, p, 1, 0, "timeout()");
	KUNIT_EXPECT_EQ(test, p->fn, RAN_PROBE);
	KUNIT_EXPECT_EQ_MSG(test, untimeout(probe_fn, p), 0,
			    "untimeout() found a timeout that ran");
	kunit_info(test, "%lu ticks of %llu ns: ran %lld ns after the call\n",
		   tc->ticks, twheel_tick_ns(),
		   ktime_to_ns(ktime_sub(p->at, p->armed)));
}

static void timeout_runs_after_thousands_of_ticks(struct kunit *test)
{
	timeout_runs_after_ticks(test);
}

/* timeout() up to CALLOUT_MAX_TICKS: accepted, pending, cancellable. */
static void timeout_far_ticks_stay_pending(struct kunit *test)
{
	const struct far_case *fc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_ASSERT_EQ(test, arm_timeout(probe_fn, p, fc->ticks), 0);
	spin_ns(ticks_ns(10) + 20 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 0);
	KUNIT_EXPECT_EQ(test, untimeout(probe_fn, p), 1);
	KUNIT_EXPECT_EQ(test, untimeout(probe_fn, p), 0);
}

static struct kunit_case timing_cases[] = {
	KUNIT_CASE_PARAM(setcallout_runs_after_ticks, ticks_gen_params),
	TWHEEL_CASE_PARAM_SLOW(setcallout_runs_after_thousands_of_ticks,
			       slow_ticks_gen_params),
	KUNIT_CASE(setcallout_zero_ticks_runs_on_next_tick),
	KUNIT_CASE_PARAM(setcallout_rearm_pending_moves_expiry, rearm_gen_params),
	KUNIT_CASE_PARAM(setcallout_far_ticks_stay_pending, far_gen_params),
	KUNIT_CASE(setcallout_runs_on_arming_cpu),
	KUNIT_CASE(setcallout_many_handles_run_once),
	KUNIT_CASE_SLOW(setcallout_random_intervals_run_once),
	KUNIT_CASE_PARAM(timeout_runs_after_ticks, ticks_gen_params),
	TWHEEL_CASE_PARAM_SLOW(timeout_runs_after_thousands_of_ticks,
			       slow_ticks_gen_params),
	KUNIT_CASE_PARAM(timeout_far_ticks_stay_pending, far_gen_params),
	{}
};

CLIENT_SUITE(timing, timing_cases, client_init, client_exit);
