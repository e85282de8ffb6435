// SPDX-License-Identifier: GPL-2.0
/*
 * client_context.c - suite twheel_client_context: calls from where a
 * client makes them.  setcallout() and friends from hardirq and from the
 * callout's own function, which re-arms it (periodically: each run
 * strictly more than a period after the one before, on one CPU) or
 * cancels it and another; unsetcallout_sync() from atomic context
 * cancels a pending callout, and one whose function runs on another CPU
 * without waiting for it (-EDEADLK); from its own function it cancels
 * the callout's re-arm and returns -EDEADLK.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>

#include "client.h"

/* What setcallout_in_hardirq_context() does in a hard hrtimer. */
struct hardirq_ops {
	struct probe *p[4];
	unsigned long far;
	int ret[7];
	bool pending;
};

static const struct {
	int want;
	const char *what;
} hardirq_want[] = {
	{ 0, "setcallout() of an idle handle" },
	{ 1, "setcallout() re-arming it" },
	{ 0, "timeout()" },
	{ 0, "setcallout() of another idle handle" },
	{ 1, "unsetcallout() of it" },
	{ 0, "timeout() of another arg" },
	{ 1, "untimeout() of it" },
};

static void hardirq_ops_fn(void *data)
{
	struct hardirq_ops *o = data;

	o->ret[0] = arm(&o->p[0]->c, probe_fn, o->p[0], 2);
	o->ret[1] = arm(&o->p[0]->c, probe_fn, o->p[0], 2);
	o->ret[2] = arm_timeout(probe_fn, o->p[1], 2);
	o->ret[3] = setcallout(&o->p[2]->c, probe_fn, o->p[2], o->far);
	o->ret[4] = unsetcallout(&o->p[2]->c);
	o->ret[5] = timeout(probe_fn, o->p[3], o->far);
	o->ret[6] = untimeout(probe_fn, o->p[3]);
	o->pending = callout_pending(&o->p[0]->c);
}

/*
 * setcallout(), unsetcallout(), timeout() and untimeout() from hardirq
 * context: the documented return values, and what was armed runs on the
 * hrtimer's CPU.
 */
static void setcallout_in_hardirq_context(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hardirq_ops o = { .far = far_ticks() };
	unsigned int i;

	for (i = 0; i < 4; i++)
		o.p[i] = &ctx->probe[i];
	run_hardirq(test, hardirq_ops_fn, &o);
	for (i = 0; i < ARRAY_SIZE(hardirq_want); i++)
		KUNIT_EXPECT_EQ_MSG(test, o.ret[i], hardirq_want[i].want,
				    "%s in hardirq context", hardirq_want[i].what);
	KUNIT_EXPECT_TRUE(test, o.pending);
	check_ran(test, o.p[0], 1, "setcallout() in hardirq context");
	check_ran(test, o.p[1], 1, "timeout() in hardirq context");
	KUNIT_EXPECT_EQ(test, o.p[0]->cpu, ctx->hc.cpu);
	check_quiet(test, o.p[2], 0, 2, "unsetcallout() in hardirq context");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&o.p[3]->runs), 0,
			    "untimeout() in hardirq context");
}

/* Periods of a callout that re-arms itself. */
static const struct ticks_case period_cases[] = {
	{ 0, "period 0 ticks" },
	{ 1, "period 1 tick" },
	{ 2, "period 2 ticks" },
	{ 5, "period 5 ticks" },
	{ 64, "period 64 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(period, period_cases, desc);

/*
 * setcallout() from the callout's own function re-arms it (returning 0: a
 * running callout is not pending); each run strictly more than a period
 * after the one before, on the same CPU; and it stops when no longer
 * re-armed.
 */
static void setcallout_rearm_in_own_function(struct kunit *test)
{
	const struct ticks_case *tc = test->param_value;
	struct client *ctx = test->priv;
	struct periodic *pr = &ctx->per;
	s64 gap, period_ns = ticks_ns(tc->ticks);
	int i;

	pr->period = tc->ticks;
	pr->limit = NPERIODIC;
	pr->armed = ktime_get();
	KUNIT_ASSERT_EQ(test, setcallout(&pr->c, periodic_fn, pr, pr->period), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&pr->runs, NPERIODIC, LOST_NS),
			      "ran %d of %d times", atomic_read(&pr->runs),
			      NPERIODIC);
	spin_ns(quiet_ns(tc->ticks));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pr->runs), NPERIODIC,
			    "ran on after it stopped re-arming itself");
	KUNIT_EXPECT_FALSE(test, callout_pending(&pr->c));

	for (i = 0; i < NPERIODIC; i++) {
		gap = ktime_to_ns(ktime_sub(pr->at[i],
					    i ? pr->at[i - 1] : pr->armed));
		KUNIT_EXPECT_GT_MSG(test, gap, period_ns,
				    "run %d came %lld ns after the previous re-arm, period %lld ns",
				    i, gap, period_ns);
		KUNIT_EXPECT_EQ_MSG(test, pr->cpu[i], ctx->cpu_a, "run %d", i);
		KUNIT_EXPECT_FALSE_MSG(test, pr->pending[i],
				       "run %d: callout_pending() in its own function", i);
		if (i + 1 == NPERIODIC)
			break;
		KUNIT_EXPECT_EQ_MSG(test, pr->ret[i], 0,
				    "run %d: setcallout() in its own function", i);
		KUNIT_EXPECT_TRUE_MSG(test, pr->rearmed[i],
				      "run %d: not pending after re-arming", i);
	}
}

/* Re-arms itself, cancels that, and cancels its peer. */
static void own_cancel_fn(void *arg)
{
	struct probe *p = arg;

	record(p, RAN_OWN);
	p->res[0] = setcallout(&p->c, own_cancel_fn, p, 0);
	p->res[1] = unsetcallout(&p->c);
	p->res[2] = callout_pending(&p->c);
	p->res[3] = unsetcallout(&p->peer->c);
	done(p);
}

/* unsetcallout() from a callout's own function, of itself and of another. */
static void setcallout_cancel_in_own_function(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p = &ctx->probe[0], *peer = &ctx->probe[1];

	p->peer = peer;
	KUNIT_ASSERT_EQ(test, arm(&peer->c, probe_fn, peer, far_ticks()), 0);
	KUNIT_ASSERT_EQ(test, arm(&p->c, own_cancel_fn, p, 0), 0);
	check_ran(test, p, 1, "own_cancel_fn()");
	KUNIT_EXPECT_EQ_MSG(test, p->res[0], 0, "setcallout() re-arming itself");
	KUNIT_EXPECT_EQ_MSG(test, p->res[1], 1, "unsetcallout() of itself, re-armed");
	KUNIT_EXPECT_EQ_MSG(test, p->res[2], 0, "callout_pending() after that");
	KUNIT_EXPECT_EQ_MSG(test, p->res[3], 1, "unsetcallout() of a pending peer");
	check_quiet(test, p, 1, 0, "cancelled in its own function");
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_FALSE(test, callout_pending(&peer->c));
	KUNIT_EXPECT_EQ(test, atomic_read(&peer->runs), 0);
}

struct try_sync {
	struct callout *c[2];	/* a pending and an idle handle */
	bool before[2];
	int ret[2];
	bool after[2];
};

static void try_sync_fn(void *data)
{
	struct try_sync *s = data;
	int i;

	for (i = 0; i < 2; i++) {
		s->before[i] = callout_pending(s->c[i]);
		s->ret[i] = unsetcallout_sync(s->c[i]);
		s->after[i] = callout_pending(s->c[i]);
	}
}

KUNIT_ARRAY_PARAM_DESC(atomic, atomic_cases, desc);

/*
 * unsetcallout_sync() from atomic context, no function running: it
 * cancels the pending handle (1) and leaves the idle one (0), as in
 * process context, for there is nothing to wait for.  (Before the fix it
 * returned -EDEADLK and left the pending handle armed.)
 */
static void unsetcallout_sync_atomic_context_cancels(struct kunit *test)
{
	const struct atomic_case *ac = test->param_value;
	struct client *ctx = test->priv;
	struct probe *pa = &ctx->probe[0], *pb = &ctx->probe[1];
	struct try_sync s = { .c = { &pa->c, &pb->c } };

	KUNIT_ASSERT_EQ(test, arm(&pa->c, probe_fn, pa, far_ticks()), 0);
	run_in(test, ac->where, try_sync_fn, &s);

	KUNIT_EXPECT_TRUE(test, s.before[0]);
	KUNIT_EXPECT_EQ_MSG(test, s.ret[0], 1,
			    "unsetcallout_sync() of a pending handle, %s", ac->desc);
	KUNIT_EXPECT_FALSE_MSG(test, s.after[0], "pending handle left armed, %s",
			       ac->desc);
	KUNIT_EXPECT_FALSE(test, s.before[1]);
	KUNIT_EXPECT_EQ_MSG(test, s.ret[1], 0,
			    "unsetcallout_sync() of an idle handle, %s", ac->desc);
	KUNIT_EXPECT_FALSE(test, s.after[1]);
	KUNIT_EXPECT_EQ(test, unsetcallout(&pa->c), 0);
	check_quiet(test, pa, 0, 1, "cancelled");
}

/*
 * unsetcallout_sync() from atomic context while the function runs on the
 * other CPU, having re-armed itself: it may not sleep, so it does not
 * wait: -EDEADLK at once, with the re-arm cancelled all the same.
 */
static void unsetcallout_sync_atomic_context_running_elsewhere(struct kunit *test)
{
	const struct atomic_case *ac = test->param_value;
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r = { .c = &h->c, .fn = hold_fn, .arg = h };
	struct probe *idle = &ctx->probe[0];
	struct try_sync s = { .c = { &h->c, &idle->c } };

	need_two_cpus(test);
	hold_reset(h, SAFETY_NS, far_ticks());
	KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&h->entered, 1, LOST_NS));
	run_in(test, ac->where, try_sync_fn, &s);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&h->runs), 0,
			    "waited for the function, %s", ac->desc);
	atomic_set_release(&h->release, 1);
	KUNIT_EXPECT_EQ(test, h->rearm_ret, 0);
	KUNIT_EXPECT_TRUE(test, s.before[0]);
	KUNIT_EXPECT_EQ_MSG(test, s.ret[0], -EDEADLK, "%s", ac->desc);
	KUNIT_EXPECT_FALSE_MSG(test, s.after[0], "re-arm left armed, %s",
			       ac->desc);
	KUNIT_ASSERT_TRUE(test, wait_count(&h->runs, 1, LOST_NS));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&h->c), 0);
}

static const struct {
	int want;
	const char *what;
} own_sync_want[] = {
	{ 0, "setcallout() re-arming in its own function" },
	{ 1, "callout_pending() after that" },
	{ -EDEADLK, "unsetcallout_sync() in its own function, re-armed" },
	{ 0, "callout_pending() after that -EDEADLK" },
};

/* Re-arm, then try unsetcallout_sync(): it cancels, but cannot wait. */
static void own_sync_fn(void *arg)
{
	struct probe *p = arg;

	record(p, RAN_OWN);
	p->res[0] = setcallout(&p->c, own_sync_fn, p, 0);
	p->res[1] = callout_pending(&p->c);
	p->res[2] = unsetcallout_sync(&p->c);
	p->res[3] = callout_pending(&p->c);
	done(p);
}

/*
 * unsetcallout_sync() from the callout's own function: -EDEADLK, as it
 * cannot wait for itself, but the re-arm is cancelled, so the callout
 * runs once only.  (Before the fix, nothing was cancelled and it ran
 * again.)
 */
static void unsetcallout_sync_own_function_cancels(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, arm(&p->c, own_sync_fn, p, 0), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, 1, LOST_NS),
			      "ran %d of 1 times", atomic_read(&p->runs));
	check_quiet(test, p, 1, 1, "own_sync_fn()");
	for (i = 0; i < ARRAY_SIZE(own_sync_want); i++)
		KUNIT_EXPECT_EQ_MSG(test, p->res[i], own_sync_want[i].want,
				    "%s", own_sync_want[i].what);
	KUNIT_EXPECT_EQ(test, p->cpu, ((struct client *)test->priv)->cpu_a);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
}

static struct kunit_case context_cases[] = {
	KUNIT_CASE(setcallout_in_hardirq_context),
	KUNIT_CASE_PARAM(setcallout_rearm_in_own_function, period_gen_params),
	KUNIT_CASE(setcallout_cancel_in_own_function),
	KUNIT_CASE_PARAM(unsetcallout_sync_atomic_context_cancels,
			 atomic_gen_params),
	KUNIT_CASE_PARAM(unsetcallout_sync_atomic_context_running_elsewhere,
			 atomic_gen_params),
	KUNIT_CASE(unsetcallout_sync_own_function_cancels),
	{}
};

CLIENT_SUITE(context, context_cases, client_init, client_exit);
