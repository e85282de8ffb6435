// SPDX-License-Identifier: GPL-2.0
/*
 * client_forward.c - suite twheel_client_forward: callout_forward(), the
 * periodic re-arming.  It keeps a callout's deadlines exactly a period
 * apart, 10,000 periods long, skips the periods it missed, counts whole
 * periods from a deadline of 0, refuses what it cannot do with nothing
 * changed, and leaves a callout whose deadline has not come as it is
 * (returning 0, as hrtimer_forward()).  Runs are timed by the probes of
 * tprobe.h.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "client.h"
#include "ticks.h"
#include "tprobe.h"

#define NPERIODS	10000	/* periods of the callout_forward() case */

/* A callout that re-arms itself with callout_forward(), one period on. */
struct fwd {
	struct callout c;
	u64 period;
	ktime_t start;		/* the first deadline */
	s64 goal;		/* periods to go, in all */
	bool stop;		/* .exit: do not forward again */
	atomic_t done;
	/* Written by the function alone: */
	s64 total;		/* the sum of callout_forward()'s returns */
	s64 runs;
	unsigned int early;	/* runs before start + total * period */
	s64 early_ns;		/* the earliest of them, by this much */
	unsigned int drift;	/* forwards whose deadline was not that */
	unsigned int not_least;	/* forwards that skipped too few or many */
	unsigned int bad;	/* forwards that returned less than 1 */
	s64 bad_ret;
	ktime_t last_when;	/* callout_when() after the last forward */
};

/* The suite's own state, client.own. */
struct forward_ctx {
	struct tprobe t[NTP];
	struct fwd fwd;
};

static struct forward_ctx *own(struct kunit *test)
{
	return ((struct client *)test->priv)->own;
}

static void fwd_fn(void *arg)
{
	struct fwd *f = arg;
	ktime_t now = ktime_get(), before, after, want;
	ktime_t due = ktime_add_ns(f->start, f->total * f->period);
	s64 k;

	f->runs++;
	if (ktime_before(now, due)) {
		f->early++;
		f->early_ns = max(f->early_ns, ktime_to_ns(ktime_sub(due, now)));
	}
	if (f->total >= f->goal || READ_ONCE(f->stop)) {
		atomic_set_release(&f->done, 1);
		return;
	}
	before = ktime_get();
	k = callout_forward(&f->c, f->period, 0);
	after = ktime_get();
	if (k < 1) {
		f->bad++;
		f->bad_ret = k;
		atomic_set_release(&f->done, 1);
		return;
	}
	f->total += k;
	want = ktime_add_ns(f->start, f->total * f->period);
	f->last_when = callout_when(&f->c);
	f->drift += f->last_when != want;
	/* The first deadline a whole number of periods on that is to come. */
	f->not_least += !ktime_after(want, before) ||
			ktime_after(ktime_sub_ns(want, f->period), after);
}

/*
 * A callout re-armed by callout_forward() in its own function, a tick a
 * period, 10,000 periods long: no run before start + n periods, n the sum
 * of callout_forward()'s returns so far; every return at least 1 and the
 * least that puts the deadline ahead; the deadline exactly start + n
 * periods each time, and at the end, however late the runs: no drift.
 */
static void callout_forward_keeps_deadlines_exact(struct kunit *test)
{
	struct fwd *f = &own(test)->fwd;

	f->period = tick_ns();
	f->goal = NPERIODS;
	f->start = ktime_add_ns(ktime_get(), 2 * tick_ns() + tick_ns() / 3);
	KUNIT_ASSERT_EQ(test, setcallout_at(&f->c, fwd_fn, f, f->start), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&f->done, 1,
					       NPERIODS * f->period + LOST_NS),
			      "%lld runs, %lld periods after %llu ns",
			      f->runs, f->total, NPERIODS * f->period + LOST_NS);
	spin_ns(quiet_ns(0));

	KUNIT_EXPECT_EQ_MSG(test, f->bad, 0U, "callout_forward() returned %lld",
			    f->bad_ret);
	KUNIT_EXPECT_EQ_MSG(test, f->early, 0U,
			    "%u runs before start + n periods, one by %lld ns",
			    f->early, f->early_ns);
	KUNIT_EXPECT_EQ_MSG(test, f->drift, 0U,
			    "%u deadlines not start + n periods", f->drift);
	KUNIT_EXPECT_EQ_MSG(test, f->not_least, 0U,
			    "%u forwards not to the first period ahead",
			    f->not_least);
	KUNIT_EXPECT_GE(test, f->total, (s64)NPERIODS);
	KUNIT_EXPECT_LE(test, f->runs, f->total + 1);
	KUNIT_EXPECT_EQ_MSG(test, f->last_when,
			    ktime_add_ns(f->start, f->total * f->period),
			    "the last deadline");
	KUNIT_EXPECT_FALSE(test, callout_pending(&f->c));
	kunit_info(test, "%lld runs over %lld periods: %lld skipped\n",
		   f->runs, f->total, f->total + 1 - f->runs);
}

/*
 * callout_forward() of a callout that ran and then waited 5.5 periods
 * more: it skips the periods that passed, returning the least k that puts
 * the deadline after now, and the function runs again, not before it.
 */
static void callout_forward_skips_missed_periods(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	u64 period = 2 * tick_ns();
	ktime_t d0, d1, before, after;
	unsigned long flags;
	s64 k;

	d0 = ktime_add_ns(ktime_get(), tick_ns() + tick_ns() / 3);
	KUNIT_ASSERT_EQ(test, tp_arm(t, BY_AT, d0, 0, CALLOUT_CPU_ANY), 0);
	tp_control_start(t, ctx->cpu_a);
	tp_check(test, t, 1, ctx->cpu_a, "setcallout_at()");
	while (ktime_before(ktime_get(), ktime_add_ns(d0, 11 * period / 2)))
		cpu_relax();

	/* idle -> pending, k periods on; it cannot run before the reads */
	local_irq_save(flags);
	before = ktime_get();
	k = callout_forward(&t->c, period, 0);
	after = ktime_get();
	d1 = callout_when(&t->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_GE_MSG(test, k, 6LL, "5.5 periods had passed");
	KUNIT_EXPECT_EQ(test, d1, ktime_add_ns(d0, k * period));
	KUNIT_EXPECT_GT_MSG(test, d1, before, "the deadline is not ahead");
	KUNIT_EXPECT_LE_MSG(test, ktime_sub_ns(d1, period), after,
			    "a period too many skipped");
	tp_window(t, before, after, d1, d1, 0);
	tp_control_start(t, ctx->cpu_a);
	tp_check(test, t, 2, ctx->cpu_a, "callout_forward()");
}

/*
 * A deadline of 0, the boot, is taken as 1 ns (twheel keeps 0 for "the
 * start of the due tick"), long past like any other: callout_when() reads
 * 1 back, and callout_forward() counts whole periods from it.  The
 * callout is armed on this CPU with interrupts off, so that it cannot run
 * until the reads are done.
 */
static void callout_forward_from_deadline_zero(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	u64 period = 3 * tick_ns() + tick_ns() / 3;
	ktime_t when0, when1, before, after;
	unsigned long flags;
	int ret;
	s64 k;

	local_irq_save(flags);
	ret = setcallout_at(&t->c, tprobe_fn, t, 0);
	when0 = callout_when(&t->c);
	before = ktime_get();
	k = callout_forward(&t->c, period, 0);
	after = ktime_get();
	when1 = callout_when(&t->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, when0, 1LL, "the deadline asked for");
	KUNIT_EXPECT_EQ_MSG(test, when1, (ktime_t)(1 + k * period),
			    "not %lld whole periods of %llu ns from 1", k,
			    period);
	KUNIT_EXPECT_GT_MSG(test, when1, before, "the deadline is not ahead");
	KUNIT_EXPECT_LE_MSG(test, ktime_sub_ns(when1, period), after,
			    "a period too many skipped");
	tp_window(t, before, after, when1, when1, 0);
	tp_control_start(t, ctx->cpu_a);
	tp_check(test, t, 1, ctx->cpu_a, "callout_forward() from 0");
}

/*
 * callout_forward() refuses NULL, a handle never initialised or never
 * armed, a period of 0, and a deadline past KTIME_MAX, with nothing
 * changed; a deadline of KTIME_MAX itself is taken.  The pending handle's
 * deadline is 1 ns, long past, so that it is forwarded at all; interrupts
 * are off meanwhile, so that it cannot run.
 */
static void callout_forward_rejects_invalid(struct kunit *test)
{
	struct tprobe *idle = &own(test)->t[0], *pend = &own(test)->t[1];
	struct callout *stray = kunit_kzalloc(test, sizeof(*stray), GFP_KERNEL);
	unsigned long flags;
	ktime_t when[2];
	s64 ret[6];

	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_EXPECT_EQ(test, callout_forward(NULL, tick_ns(), 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_forward(stray, tick_ns(), 0), -EINVAL);
	KUNIT_EXPECT_EQ_MSG(test, callout_forward(&idle->c, tick_ns(), 0),
			    -EINVAL, "never armed");
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));

	local_irq_save(flags);
	ret[0] = setcallout_at(&pend->c, tprobe_fn, pend, 1);
	ret[1] = callout_forward(&pend->c, 0, 0);
	ret[2] = callout_forward(&pend->c, KTIME_MAX, 0);
	ret[3] = callout_forward(&pend->c, U64_MAX, 0);
	ret[4] = callout_pending(&pend->c);
	when[0] = callout_when(&pend->c);
	ret[5] = callout_forward(&pend->c, KTIME_MAX - 1, 0);
	when[1] = callout_when(&pend->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret[0], 0LL);
	KUNIT_EXPECT_EQ_MSG(test, ret[1], (s64)-EINVAL, "period 0");
	KUNIT_EXPECT_EQ_MSG(test, ret[2], (s64)-EINVAL, "KTIME_MAX + 1");
	KUNIT_EXPECT_EQ_MSG(test, ret[3], (s64)-EINVAL, "a period of U64_MAX");
	KUNIT_EXPECT_EQ(test, ret[4], 1LL);
	KUNIT_EXPECT_EQ(test, when[0], 1LL);

	KUNIT_EXPECT_EQ_MSG(test, ret[5], 1LL, "to KTIME_MAX");
	KUNIT_EXPECT_TRUE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_EQ(test, when[1], KTIME_MAX);
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pend->runs), 0);
}

/*
 * callout_forward() before the last deadline has come: 0, and the
 * callout is left as it is, pending with its deadline, as
 * hrtimer_forward() leaves a timer not yet expired; so calling it twice
 * does not move the deadline twice.  Cancelled, it stays idle.  (Before
 * the fix, each call moved the deadline on by a period and returned 1.)
 */
static void callout_forward_before_deadline_leaves_it(struct kunit *test)
{
	struct tprobe *t = &own(test)->t[0];
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);

	KUNIT_ASSERT_EQ(test, setcallout_at(&t->c, tprobe_fn, t, d0), 0);
	KUNIT_EXPECT_EQ(test, callout_forward(&t->c, tick_ns(), 0), 0LL);
	KUNIT_EXPECT_EQ(test, callout_forward(&t->c, tick_ns(), 0), 0LL);
	KUNIT_EXPECT_TRUE(test, callout_pending(&t->c));
	KUNIT_EXPECT_EQ(test, callout_when(&t->c), d0);
	/* pending -> idle: not armed again before its deadline */
	KUNIT_EXPECT_EQ(test, unsetcallout(&t->c), 1);
	KUNIT_EXPECT_EQ(test, callout_forward(&t->c, tick_ns(), 0), 0LL);
	KUNIT_EXPECT_FALSE(test, callout_pending(&t->c));
}

static void forward_setup(void *data)
{
	struct forward_ctx *fc = data;

	tprobes_init(fc->t, NTP);
	callout_init(&fc->fwd.c);
}

static int forward_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct forward_ctx),
			       forward_setup);
}

/*
 * Stop the periodic callout forwarding itself, cancel the suite's
 * callouts and controls, then what all cases share.
 */
static void forward_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct forward_ctx *fc = ctx ? ctx->own : NULL;

	if (fc) {
		WRITE_ONCE(fc->fwd.stop, true);
		tprobes_end(fc->t, NTP);
		unsetcallout_sync(&fc->fwd.c);
	}
	client_exit(test);
}

static struct kunit_case forward_cases[] = {
	KUNIT_CASE_SLOW(callout_forward_keeps_deadlines_exact),
	KUNIT_CASE(callout_forward_skips_missed_periods),
	KUNIT_CASE(callout_forward_from_deadline_zero),
	KUNIT_CASE(callout_forward_rejects_invalid),
	KUNIT_CASE(callout_forward_before_deadline_leaves_it),
	{}
};

CLIENT_SUITE(forward, forward_cases, forward_init, forward_exit);
