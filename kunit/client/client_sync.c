// SPDX-License-Identifier: GPL-2.0
/*
 * client_sync.c - suite twheel_client_sync: cancelling a callout whose
 * function runs on the other CPU.  unsetcallout() never waits for it;
 * unsetcallout_sync() does, and returns 1 only for a pending (re-armed)
 * one, which then never runs, even one that re-arms itself every tick; a
 * handle re-armed while it runs stays on the CPU it runs on, and its runs
 * never overlap; callout_init() of it while it runs is -EBUSY.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>

#include "client.h"

/*
 * Arm the context's held callout on CPU b, to hold for @hold_ns and re-arm
 * itself for @rearm_ticks (0: not), and wait until its function runs there.
 */
static struct hold *hold_running_elsewhere(struct kunit *test, u64 hold_ns,
					   unsigned long rearm_ticks)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r = { .c = &h->c, .fn = hold_fn, .arg = h };

	need_two_cpus(test);
	hold_reset(h, hold_ns, rearm_ticks);
	KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
	KUNIT_ASSERT_EQ(test, r.ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LOST_NS),
			      "did not run on CPU %d", ctx->cpu_b);
	return h;
}

/*
 * setcallout() while func runs on another CPU: the handle stays on that
 * CPU, and its next run starts only after the running one returned.
 */
static void setcallout_rearm_running_stays_on_cpu(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h;
	bool pending_running, pending_rearmed;
	int ret;

	h = hold_running_elsewhere(test, SAFETY_NS, 0);

	/* running on cpu_b -> running and pending */
	pending_running = callout_pending(&h->c);
	ret = setcallout(&h->c, hold_fn, h, 0);
	pending_rearmed = callout_pending(&h->c);
	atomic_set_release(&h->release, 1);

	KUNIT_EXPECT_FALSE_MSG(test, pending_running,
			       "callout_pending() true while it runs");
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "setcallout() while it runs elsewhere");
	KUNIT_EXPECT_TRUE(test, pending_rearmed);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->runs, 2, LOST_NS),
			      "re-armed while running: ran %d of 2 times",
			      atomic_read(&h->runs));
	KUNIT_EXPECT_EQ(test, h->cpu[0], ctx->cpu_b);
	KUNIT_EXPECT_EQ_MSG(test, h->cpu[1], ctx->cpu_b,
			    "re-armed on CPU %d while running on CPU %d: ran on CPU %d",
			    ctx->cpu_a, ctx->cpu_b, h->cpu[1]);
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(h->overlapped),
			       "one handle's function ran on two CPUs at once");
	KUNIT_EXPECT_FALSE_MSG(test, ktime_before(h->start[1], h->end[0]),
			       "second run began %lld ns before the first returned",
			       ktime_to_ns(ktime_sub(h->end[0], h->start[1])));
}

/*
 * unsetcallout() while func runs on another CPU returns 0 at once, without
 * waiting for it (which is still running when it returns).
 */
static void unsetcallout_running_does_not_wait(struct kunit *test)
{
	struct hold *h;
	int ret, returned;
	bool pending;

	h = hold_running_elsewhere(test, SAFETY_NS, 0);

	pending = callout_pending(&h->c);
	ret = unsetcallout(&h->c);
	returned = atomic_read_acquire(&h->runs);
	atomic_set_release(&h->release, 1);

	KUNIT_EXPECT_FALSE_MSG(test, pending, "callout_pending() while it runs");
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "unsetcallout() of a running callout");
	KUNIT_EXPECT_EQ_MSG(test, returned, 0,
			    "unsetcallout() waited for the running function");
	KUNIT_ASSERT_TRUE(test, wait_count(&h->runs, 1, LOST_NS));
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&h->runs), 1);
}

/*
 * unsetcallout_sync(): 0 for an idle handle, 1 for a pending one, which
 * never runs; either way nothing is pending or running when it returns.
 */
static void unsetcallout_sync_returns_whether_pending(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	int round, ret, runs;

	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->c), 0,
			    "unsetcallout_sync() of a fresh handle");
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, far_ticks()), 0);
	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->c), 1,
			    "unsetcallout_sync() of a pending handle");
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->c), 0,
			    "unsetcallout_sync() of a cancelled handle");

	/* Racing the next tick: 1 and never run, or 0 and already returned. */
	for (round = 0; round < 5; round++) {
		atomic_set(&p->runs, 0);
		KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, 0), 0);
		spin_ns(round * twheel_tick_ns() / 2);
		ret = unsetcallout_sync(&p->c);
		runs = atomic_read_acquire(&p->runs);
		KUNIT_EXPECT_EQ_MSG(test, runs, ret ? 0 : 1,
				    "round %d: unsetcallout_sync() returned %d", round, ret);
		KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
		check_quiet(test, p, runs, 0, "after unsetcallout_sync()");
	}
}

/*
 * unsetcallout_sync() while func runs on another CPU waits for it to
 * return, and returns 0 (it was not pending).
 */
static void unsetcallout_sync_waits_for_running(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r;
	ktime_t called = 0, returned_at = 0;
	int attempt, ret, returned;
	bool overlapped = false;

	need_two_cpus(test);
	for (attempt = 0; attempt < 5 && !overlapped; attempt++) {
		hold_reset(h, HOLD_NS, 0);
		r = (struct remote_arm){ .c = &h->c, .fn = hold_fn, .arg = h };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		KUNIT_ASSERT_EQ(test, r.ret, 0);
		KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LOST_NS),
				      "did not run on CPU %d", ctx->cpu_b);

		called = ktime_get();
		ret = unsetcallout_sync(&h->c);
		returned_at = ktime_get();
		returned = atomic_read_acquire(&h->runs);

		KUNIT_EXPECT_EQ_MSG(test, ret, 0,
				    "unsetcallout_sync() of a running callout");
		KUNIT_EXPECT_EQ_MSG(test, returned, 1,
				    "unsetcallout_sync() returned while its function ran");
		KUNIT_EXPECT_FALSE(test, callout_pending(&h->c));
		if (returned)
			KUNIT_EXPECT_FALSE(test, ktime_before(returned_at, h->end[0]));
		overlapped = ktime_before(called, h->end[0]);
	}
	if (overlapped)
		kunit_info(test, "waited %lld ns for the running function\n",
			   ktime_to_ns(ktime_sub(returned_at, called)));
	else
		kunit_info(test, "not exercised: each time, the function had returned before the call\n");
}

/*
 * unsetcallout_sync() of a callout that runs on another CPU and has
 * re-armed itself: 1 (it was pending and now will not run), after the
 * running function returned.
 */
static void unsetcallout_sync_running_rearmed_returns_pending(struct kunit *test)
{
	struct hold *h;
	int ret, returned;

	h = hold_running_elsewhere(test, HOLD_NS, far_ticks());

	KUNIT_EXPECT_TRUE_MSG(test, callout_pending(&h->c),
			      "not pending after re-arming in its own function");
	ret = unsetcallout_sync(&h->c);
	returned = atomic_read_acquire(&h->runs);
	KUNIT_EXPECT_EQ_MSG(test, h->rearm_ret, 0,
			    "setcallout() re-arming in its own function");
	KUNIT_EXPECT_EQ_MSG(test, ret, 1,
			    "unsetcallout_sync() of a running, re-armed callout");
	KUNIT_EXPECT_EQ_MSG(test, returned, 1,
			    "unsetcallout_sync() returned while its function ran");
	KUNIT_EXPECT_FALSE(test, callout_pending(&h->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&h->c), 0);
}

/*
 * unsetcallout_sync() of a callout that re-arms itself every tick on
 * another CPU: when it returns, the callout is neither pending nor running
 * and does not run again.
 */
static void unsetcallout_sync_stops_self_rearming(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct periodic *pr = &ctx->per;
	struct remote_arm r;
	int round, ret, runs;

	need_two_cpus(test);
	pr->period = 0;
	pr->limit = 0;
	pr->busy_ns = 200 * NSEC_PER_USEC;
	for (round = 0; round < 5; round++) {
		WRITE_ONCE(pr->stop, false);
		atomic_set(&pr->runs, 0);
		r = (struct remote_arm){ .c = &pr->c, .fn = periodic_fn,
					 .arg = pr };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		KUNIT_ASSERT_EQ(test, r.ret, 0);
		KUNIT_ASSERT_TRUE_MSG(test,
				      wait_count(&pr->runs, 3, LOST_NS),
				      "round %d: ran %d times", round,
				      atomic_read(&pr->runs));

		ret = unsetcallout_sync(&pr->c);
		runs = atomic_read_acquire(&pr->runs);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&pr->in_fn), 0,
				    "round %d: still running", round);
		KUNIT_EXPECT_FALSE_MSG(test, callout_pending(&pr->c),
				       "round %d: still pending", round);
		KUNIT_EXPECT_TRUE_MSG(test, ret == 0 || ret == 1,
				      "round %d: unsetcallout_sync() returned %d",
				      round, ret);
		spin_ns(quiet_ns(0));
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pr->runs), runs,
				    "round %d: ran on after unsetcallout_sync()", round);
		KUNIT_EXPECT_EQ_MSG(test, pr->cpu[0], ctx->cpu_b, "round %d", round);
	}
}

/*
 * callout_init() while the function runs on another CPU: -EBUSY, and the
 * handle keeps its CPU, so that unsetcallout_sync() afterwards still
 * finds the function and waits for it.  (Before the fix, callout_init()
 * set the handle up anew on the calling CPU, and unsetcallout_sync()
 * returned at once while the function ran.)
 */
static void callout_init_running_returns_ebusy(struct kunit *test)
{
	struct hold *h = hold_running_elsewhere(test, HOLD_NS, 0);
	int ret, sync, returned;

	ret = callout_init(&h->c);
	sync = unsetcallout_sync(&h->c);
	returned = atomic_read_acquire(&h->runs);
	KUNIT_EXPECT_EQ_MSG(test, ret, -EBUSY,
			    "callout_init() while its function runs");
	KUNIT_EXPECT_EQ(test, sync, 0);
	KUNIT_EXPECT_EQ_MSG(test, returned, 1,
			    "unsetcallout_sync() returned while its function ran");
	/* Idle now: callout_init() takes it. */
	KUNIT_EXPECT_EQ(test, callout_init(&h->c), 0);
}

static struct kunit_case sync_cases[] = {
	KUNIT_CASE(setcallout_rearm_running_stays_on_cpu),
	KUNIT_CASE(unsetcallout_running_does_not_wait),
	KUNIT_CASE(unsetcallout_sync_returns_whether_pending),
	KUNIT_CASE(unsetcallout_sync_waits_for_running),
	KUNIT_CASE(unsetcallout_sync_running_rearmed_returns_pending),
	KUNIT_CASE(unsetcallout_sync_stops_self_rearming),
	KUNIT_CASE(callout_init_running_returns_ebusy),
	{}
};

CLIENT_SUITE(sync, sync_cases, client_init, client_exit);
