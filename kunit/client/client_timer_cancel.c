// SPDX-License-Identifier: GPL-2.0
/*
 * client_timer_cancel.c - suite twheel_client_timer_cancel: the sync
 * cancels of <twheel_timer.h> wherever a converted driver calls them.
 *
 * twheel_timer_delete_sync() and twheel_timer_shutdown_sync() of a
 * pending timer return 1 and leave it not pending, from process context,
 * with preemption, interrupts or bottom halves off, under a spinlock, in
 * a tasklet, in hardirq context and in the timer's own function: the
 * timer never runs afterwards, its memory may be freed at once (KASAN
 * watches the expiry a timer left armed would make), and once shut down
 * it takes no arming and keeps its ->expires.  From a tasklet, under a
 * spinlock or with bottom halves off, a function running on another CPU
 * is waited for, by spinning, as timer_delete_sync() waits.  Where no wait can
 * end (hardirq context, the function itself) the cancel is reported once
 * in the kernel log; that line is not a kernel warning.
 *
 * Of twheel's headers: client.h's <twheel.h>, and <twheel_timer.h>.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "client.h"
#include <twheel_timer.h>

/* A timer's deadline that comes while a case watches, not before. */
#define NEAR_MS		100

/* How a victim's function behaves. */
enum victim_mode {
	V_RECORD,	/* counts its run */
	V_SELF,		/* re-arms itself, then cancels itself */
	V_HOLD,		/* holds its CPU for HOLD_NS */
};

/*
 * A timer in memory the case frees, as a driver frees its object once
 * the timer is cancelled.  @ran is outside it, in the case's state.
 */
struct victim {
	struct twheel_timer timer;
	enum victim_mode mode;
	bool shut;		/* V_SELF: shut down, not only delete */
	atomic_t *ran;		/* runs that began */
	atomic_t *left;		/* runs that returned */
	ktime_t *left_at;	/* when the last run returned */
	int ret[4];		/* V_SELF: see victim_fn() */
};

/* The case's state, client.own. */
struct tcancel {
	struct victim *v;	/* while the case has it */
	atomic_t ran;
	atomic_t left;
	ktime_t left_at;
};

static struct tcancel *tc_own(struct kunit *test)
{
	return ((struct client *)test->priv)->own;
}

static void victim_fn(struct twheel_timer *t)
{
	struct victim *v = twheel_from_timer(v, t, timer);
	ktime_t until;

	atomic_inc(v->ran);
	switch (v->mode) {
	case V_SELF:
		/* idle -> pending -> idle (shut down) */
		v->ret[0] = twheel_mod_timer(t, jiffies +
					     msecs_to_jiffies(NEAR_MS));
		v->ret[1] = v->shut ? twheel_timer_shutdown_sync(t) :
				      twheel_timer_delete_sync(t);
		v->ret[2] = twheel_timer_pending(t);
		/* Shut down: a re-arm arms nothing. */
		if (v->shut)
			v->ret[3] = twheel_mod_timer(t, jiffies + 1);
		break;
	case V_HOLD:
		until = ktime_add_ns(ktime_get(), HOLD_NS);
		while (ktime_before(ktime_get(), until))
			cpu_relax();
		break;
	default:
		break;
	}
	*v->left_at = ktime_get();
	atomic_inc_return_release(v->left);
}

static struct victim *victim_new(struct kunit *test, enum victim_mode mode)
{
	struct tcancel *tc = tc_own(test);
	struct victim *v = kzalloc(sizeof(*v), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, v);
	twheel_timer_setup(&v->timer, victim_fn, 0);
	v->mode = mode;
	v->ran = &tc->ran;
	v->left = &tc->left;
	v->left_at = &tc->left_at;
	tc->v = v;
	return v;
}

/*
 * Free @v as its driver would, right after the cancel; should the timer
 * still be pending (the defect this suite is about), cancel it first
 * from here, so that a failing case leaves nothing armed on freed memory.
 * Then watch until after its deadline: it must not run.
 */
static void victim_free(struct kunit *test, struct victim *v, int runs)
{
	struct tcancel *tc = tc_own(test);

	if (twheel_timer_pending(&v->timer)) {
		KUNIT_FAIL(test, "still pending when its memory goes");
		twheel_timer_delete_sync(&v->timer);
	}
	tc->v = NULL;
	kfree(v);
	spin_ns(2 * NEAR_MS * NSEC_PER_MSEC + ticks_ns(3));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&tc->ran), runs,
			    "ran after its cancel");
}

/* Where a case calls the sync cancel. */
enum cancel_from { FROM_TASK = NR_ATOMIC_WHERE, FROM_TASKLET };

struct cancel_case {
	int from;		/* enum atomic_where, or enum cancel_from */
	bool shut;
	const char *desc;
};

static const struct cancel_case cancel_cases[] = {
	{ FROM_TASK, false, "delete, process context" },
	{ AT_PREEMPT_OFF, false, "delete, preemption disabled" },
	{ AT_IRQS_OFF, false, "delete, interrupts disabled" },
	{ AT_SPINLOCK, false, "delete, spinlock held" },
	{ AT_BH_OFF, false, "delete, bottom halves disabled" },
	{ FROM_TASKLET, false, "delete, tasklet" },
	{ AT_HARDIRQ, false, "delete, hardirq (hard hrtimer)" },
	{ FROM_TASK, true, "shutdown, process context" },
	{ AT_PREEMPT_OFF, true, "shutdown, preemption disabled" },
	{ AT_IRQS_OFF, true, "shutdown, interrupts disabled" },
	{ AT_SPINLOCK, true, "shutdown, spinlock held" },
	{ AT_BH_OFF, true, "shutdown, bottom halves disabled" },
	{ FROM_TASKLET, true, "shutdown, tasklet" },
	{ AT_HARDIRQ, true, "shutdown, hardirq (hard hrtimer)" },
};

KUNIT_ARRAY_PARAM_DESC(cancel, cancel_cases, desc);

/* A sync cancel, and what it returned and left. */
struct cancel_call {
	struct twheel_timer *t;
	bool shut;
	int ret;
	bool pending;
};

static void cancel_call_fn(void *data)
{
	struct cancel_call *cc = data;

	cc->ret = cc->shut ? twheel_timer_shutdown_sync(cc->t) :
			     twheel_timer_delete_sync(cc->t);
	cc->pending = twheel_timer_pending(cc->t);
}

/* A call of fn(data) in a tasklet, on the case's CPU. */
struct tasklet_call {
	struct tasklet_struct tl;
	void (*fn)(void *data);
	void *data;
	atomic_t done;
};

static void tasklet_call_fn(struct tasklet_struct *tl)
{
	struct tasklet_call *tcall = from_tasklet(tcall, tl, tl);

	tcall->fn(tcall->data);
	atomic_set_release(&tcall->done, 1);
}

static void run_from(struct kunit *test, int from, void (*fn)(void *),
		     void *data)
{
	struct tasklet_call tcall = { .fn = fn, .data = data };

	switch (from) {
	case FROM_TASK:
		fn(data);
		break;
	case FROM_TASKLET:
		tasklet_setup(&tcall.tl, tasklet_call_fn);
		tasklet_schedule(&tcall.tl);
		KUNIT_EXPECT_TRUE_MSG(test, wait_count(&tcall.done, 1, LOST_NS),
				      "the tasklet did not run");
		tasklet_kill(&tcall.tl);
		break;
	default:
		run_in(test, from, fn, data);
		break;
	}
}

/*
 * A pending timer, cancelled from @from: 1, and not pending afterwards,
 * whatever the context; shut down, it takes no arming and keeps its
 * ->expires.  Its memory is freed at once, and it never runs.
 */
static void twheel_timer_sync_cancel_any_context(struct kunit *test)
{
	const struct cancel_case *cs = test->param_value;
	struct victim *v = victim_new(test, V_RECORD);
	struct cancel_call cc = { .t = &v->timer, .shut = cs->shut };
	unsigned long e = jiffies + msecs_to_jiffies(NEAR_MS);

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(&v->timer, e), 0);
	/* pending -> idle (shut down) */
	run_from(test, cs->from, cancel_call_fn, &cc);
	KUNIT_EXPECT_EQ_MSG(test, cc.ret, 1, "%s", cs->desc);
	KUNIT_EXPECT_FALSE_MSG(test, cc.pending, "%s: pending after it",
			       cs->desc);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&v->timer));
	if (cs->shut) {
		KUNIT_EXPECT_EQ_MSG(test, twheel_mod_timer(&v->timer,
							   jiffies + 1), 0,
				    "%s: armed once shut down", cs->desc);
		KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&v->timer));
		KUNIT_EXPECT_EQ_MSG(test, v->timer.expires, e,
				    "%s: ->expires of a timer shut down",
				    cs->desc);
	}
	victim_free(test, v, 0);
}

struct self_case {
	bool shut;
	const char *desc;
};

static const struct self_case self_cases[] = {
	{ false, "twheel_timer_delete_sync()" },
	{ true, "twheel_timer_shutdown_sync()" },
};

KUNIT_ARRAY_PARAM_DESC(self, self_cases, desc);

/*
 * A timer's function re-arms it, then cancels it with a sync cancel: it
 * cannot wait for itself, but the re-arm is cancelled (1), and the timer
 * is not pending afterwards; shut down, the function's next re-arm
 * returns 0 and arms nothing.  Freed once the function returned, the
 * timer never runs again.  (On the unfixed twheel the cancel did nothing
 * here, and returned 0.)
 */
static void twheel_timer_sync_cancel_own_function(struct kunit *test)
{
	const struct self_case *sc = test->param_value;
	struct tcancel *tc = tc_own(test);
	struct victim *v = victim_new(test, V_SELF);

	v->shut = sc->shut;
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(&v->timer, jiffies + 1), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&tc->left, 1, LOST_NS));
	KUNIT_EXPECT_EQ_MSG(test, v->ret[0], 0, "re-armed by itself");
	KUNIT_EXPECT_EQ_MSG(test, v->ret[1], 1, "%s of itself, re-armed",
			    sc->desc);
	KUNIT_EXPECT_EQ_MSG(test, v->ret[2], 0, "pending after %s of itself",
			    sc->desc);
	if (sc->shut)
		KUNIT_EXPECT_EQ_MSG(test, v->ret[3], 0,
				    "re-armed by itself once shut down");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&v->timer));
	victim_free(test, v, 1);
}

struct wait_case {
	int from;
	const char *desc;
};

static const struct wait_case wait_cases[] = {
	{ FROM_TASKLET, "tasklet" },
	{ AT_SPINLOCK, "spinlock held" },
	{ AT_BH_OFF, "bottom halves disabled" },
	{ AT_HARDIRQ, "hardirq (hard hrtimer)" },
};

KUNIT_ARRAY_PARAM_DESC(wait, wait_cases, desc);

/*
 * twheel_timer_delete_sync() from @from while the function runs on the
 * other CPU: it returns once the function has returned, by spinning, as
 * timer_delete_sync() does.  In hardirq context it spins, as
 * timer_delete_sync() does (not under PREEMPT_RT, where it cannot wait).
 * The memory is then freed at once.
 */
static void twheel_timer_delete_sync_waits_in_softirq(struct kunit *test)
{
	const struct wait_case *wc = test->param_value;
	struct client *ctx = test->priv;
	struct tcancel *tc = tc_own(test);
	struct victim *v;
	struct cancel_call cc = { .shut = false };
	ktime_t called, returned;

	need_two_cpus(test);
	if (wc->from == AT_HARDIRQ && IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: no wait in hardirq context");
	v = victim_new(test, V_HOLD);
	cc.t = &v->timer;
	v->timer.expires = jiffies;
	twheel_add_timer_on(&v->timer, ctx->cpu_b);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&tc->ran, 1, LOST_NS),
			      "did not run on CPU %d", ctx->cpu_b);
	called = ktime_get();
	run_from(test, wc->from, cancel_call_fn, &cc);
	returned = ktime_get();
	KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&tc->left), 1,
			    "%s: returned while its function ran", wc->desc);
	KUNIT_EXPECT_EQ(test, cc.ret, 0);
	KUNIT_EXPECT_FALSE(test, cc.pending);
	if (atomic_read(&tc->left))
		KUNIT_EXPECT_FALSE(test, ktime_before(returned, tc->left_at));
	KUNIT_EXPECT_TRUE_MSG(test, ktime_before(called, tc->left_at),
			      "%s: the function had returned before the call",
			      wc->desc);
	victim_free(test, v, 1);
}

static void tcancel_setup(void *own)
{
}

static int tcancel_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct tcancel), tcancel_setup);
}

/* What an aborted case left: its timer, cancelled, and freed. */
static void tcancel_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tcancel *tc = ctx ? ctx->own : NULL;

	if (tc && tc->v) {
		twheel_timer_shutdown_sync(&tc->v->timer);
		kfree(tc->v);
	}
	client_exit(test);
}

static struct kunit_case tcancel_cases[] = {
	KUNIT_CASE_PARAM(twheel_timer_sync_cancel_any_context,
			 cancel_gen_params),
	KUNIT_CASE_PARAM(twheel_timer_sync_cancel_own_function,
			 self_gen_params),
	KUNIT_CASE_PARAM(twheel_timer_delete_sync_waits_in_softirq,
			 wait_gen_params),
	{}
};

CLIENT_SUITE(timer_cancel, tcancel_cases, tcancel_init, tcancel_exit);
