// SPDX-License-Identifier: GPL-2.0
/*
 * client_timer.c - suite twheel_client_timer: the timer_list layer of
 * <twheel_timer.h>, each call held to what timer_list documents of its
 * return value and the state it leaves, as a module converted from
 * timer_list relies on it.  twheel_mod_timer() returns 0 then 1, and 1
 * for the same deadline, which it leaves as it is;
 * twheel_mod_timer_pending() arms nothing idle and moves a pending timer;
 * twheel_timer_reduce() arms an idle timer, leaves a sooner deadline and
 * brings a later one forward; twheel_add_timer() takes ->expires, and
 * twheel_add_timer_on() the CPU too; the cancels return 1 or 0, the sync
 * ones once a function running on the other CPU has returned; after
 * twheel_timer_shutdown_sync() no call arms the timer, not even its own
 * function, until twheel_timer_setup(); ->expires is the deadline last
 * armed, and the function finds its structure with twheel_from_timer().
 * DEFINE_TWHEEL_TIMER() needs no setup.  When a timer runs is suite
 * twheel_client_timer_timing's (client_timer_timing.c), misuse reported
 * twheel_client_timer_misuse's (client_timer_misuse.c).
 *
 * Of twheel's headers this file includes <twheel_timer.h> alone, through
 * ttimer.h, as a converted module does: not client.h, whose <twheel.h>
 * brings in the BSD names.  Its own timeout and untimeout() below are the
 * check that <twheel_timer.h> leaves those names free: were either
 * declared, this file would not compile.  client_names.c checks
 * TWHEEL_NO_BSD_NAMES for <twheel.h> the same way.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/smp.h>

#include "ttimer.h"

/*
 * A name of this file's own that BSD code would take for twheel's, as a
 * converted module's "timeout" parameter: the delay of the short cases,
 * in jiffies.  (untimeout() is below.)
 */
static int timeout = SHORT_J;

/* Two timers in one structure, neither at its start. */
struct pair {
	u64 pad;
	struct twheel_timer a;
	struct twheel_timer b;
};

/* The pair of twheel_from_timer_gives_container(), set up by .init. */
static struct pair pair;

static struct tt_ctx *own(struct kunit *test)
{
	return test->priv;
}

static void two_cpus(struct kunit *test)
{
	if (own(test)->cpu_b < 0)
		kunit_skip(test, "needs two online CPUs");
}

/*
 * twheel_mod_timer(): 0 on an idle timer, 1 on a pending one, which it
 * moves; 1 for the deadline it already has, which it leaves as it is;
 * on a timer cancelled since, that deadline arms it again (0).
 */
static void twheel_mod_timer_returns_whether_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + FAR_J;
	ktime_t when;

	/* idle -> pending */
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, e, 0), 0);
	tt_check_when(test, tt, "idle");
	/* pending -> pending, moved */
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, e + HZ, 0), 1);
	tt_check_when(test, tt, "pending");
	/* the same expires: left as it is */
	when = tt->when;
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(t, e + HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, callout_when(&t->c), when,
			    "the same expires moved the deadline");
	KUNIT_EXPECT_EQ(test, t->expires, e + HZ);
	/* pending -> idle; the same expires arms it again */
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, e + HZ, 0), 0);
	tt_check_when(test, tt, "cancelled, the same expires");

	/* ... and one that runs */
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + timeout, 0), 1);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_mod_timer()");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ_MSG(test, tt_arm(tt, BY_MOD, jiffies + FAR_J, 0), 0,
			    "after its run");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
}

/*
 * twheel_mod_timer_pending() of an idle timer, fresh, cancelled or run:
 * 0, and nothing armed; ->expires as it was.
 */
static void twheel_mod_timer_pending_idle_arms_nothing(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e;

	/* fresh */
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, jiffies + 1), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ(test, t->expires, 0UL);
	tt_quiet(test, tt, 0, 1, "fresh");

	/* cancelled */
	e = jiffies + FAR_J;
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, jiffies + 1), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ(test, t->expires, e);
	tt_quiet(test, tt, 0, 1, "cancelled");

	/* run */
	e = jiffies + 1;
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, jiffies + 1), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ(test, t->expires, e);
	tt_quiet(test, tt, 1, 1, "run");
}

/*
 * twheel_mod_timer_pending() of a pending timer: 1, and moved: its
 * deadline is the new one, and it runs then, once.
 */
static void twheel_mod_timer_pending_moves_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e;
	ktime_t when;

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	when = callout_when(&t->c);
	/* pending, far -> pending, farther */
	e = jiffies + 2 * FAR_J;
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD_PENDING, e, 0), 1);
	tt_check_when(test, tt, "later");
	KUNIT_EXPECT_GT(test, tt->when, when);
	KUNIT_EXPECT_EQ(test, t->expires, e);
	/* -> pending, soon */
	e = jiffies + timeout;
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD_PENDING, e, 0), 1);
	tt_check_when(test, tt, "sooner");
	KUNIT_EXPECT_EQ(test, t->expires, e);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_mod_timer_pending()");
	tt_quiet(test, tt, 1, 0, "after its run");
}

/* twheel_timer_reduce() of an idle timer arms it (0), as mod_timer(). */
static void twheel_timer_reduce_idle_arms(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + timeout;

	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_REDUCE, e, 0), 0);
	tt_check_when(test, tt, "idle");
	KUNIT_EXPECT_EQ(test, t->expires, e);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_timer_reduce(), idle");
}

/*
 * twheel_timer_reduce() of a timer pending for sooner than the new
 * expires: 1, and left as it is: deadline and ->expires unchanged, and
 * it runs then.
 */
static void twheel_timer_reduce_later_leaves_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + timeout, expires, flags;
	int armed, ret[2];
	ktime_t when;

	/* Interrupts off: it cannot run before the reads are done. */
	local_irq_save(flags);
	armed = tt_arm(tt, BY_MOD, e, 0);
	ret[0] = twheel_timer_reduce(t, e + 1);
	ret[1] = twheel_timer_reduce(t, e + FAR_J);
	when = callout_when(&t->c);
	expires = t->expires;
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, armed, 0);
	KUNIT_EXPECT_EQ(test, ret[0], 1);
	KUNIT_EXPECT_EQ(test, ret[1], 1);
	KUNIT_EXPECT_EQ_MSG(test, when, tt->when,
			    "a later expires moved the deadline");
	KUNIT_EXPECT_EQ(test, expires, e);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a,
		 "twheel_timer_reduce(), later");
}

/*
 * twheel_timer_reduce() of a timer pending for later than the new
 * expires: 1, and brought forward: the new deadline and ->expires, and
 * it runs then.
 */
static void twheel_timer_reduce_earlier_moves_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + timeout;
	ktime_t when;

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	when = callout_when(&t->c);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_REDUCE, e, 0), 1);
	tt_check_when(test, tt, "earlier");
	KUNIT_EXPECT_LT(test, tt->when, when);
	KUNIT_EXPECT_EQ(test, t->expires, e);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a,
		 "twheel_timer_reduce(), earlier");
	tt_quiet(test, tt, 1, 0, "after its run");
}

/* twheel_add_timer() arms an idle timer for its ->expires. */
static void twheel_add_timer_uses_expires(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	unsigned long e = jiffies + timeout;

	tt_arm(tt, BY_ADD, e, 0);
	tt_check_when(test, tt, "twheel_add_timer()");
	KUNIT_EXPECT_EQ(test, tt->timer.expires, e);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_add_timer()");
}

/*
 * twheel_add_timer_on() runs the function on the CPU it names, each
 * online CPU in turn (as many as the case has timers), for ->expires.
 */
static void twheel_add_timer_on_runs_on_cpu(struct kunit *test)
{
	struct ttimer *tt = own(test)->tt;
	int cpu, n = 0, i, want[NTT];
	char what[48];

	for_each_online_cpu(cpu) {
		if (n == NTT)
			break;
		tt_arm(&tt[n], BY_ADD_ON, jiffies + 1 + n, cpu);
		tt_control_start(&tt[n], cpu);
		want[n++] = cpu;
	}
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "twheel_add_timer_on(CPU %d)",
			 want[i]);
		tt_check(test, &tt[i], 1, want[i], what);
	}
}

/*
 * twheel_add_timer_local() and twheel_add_timer_global() (7.2's
 * add_timer_local() and add_timer_global()) arm an idle timer for its
 * ->expires, and it runs on the calling CPU.
 */
static void twheel_add_timer_local_and_global(struct kunit *test)
{
	static const enum tt_way way[] = { BY_ADD_LOCAL, BY_ADD_GLOBAL };
	static const char * const name[] = {
		"twheel_add_timer_local()", "twheel_add_timer_global()",
	};
	struct ttimer *tt = own(test)->tt;
	unsigned long e = jiffies + timeout;
	int i;

	for (i = 0; i < 2; i++) {
		tt_arm(&tt[i], way[i], e + i, 0);
		tt_check_when(test, &tt[i], name[i]);
		KUNIT_EXPECT_EQ(test, tt[i].timer.expires, e + i);
		tt_control_start(&tt[i], own(test)->cpu_a);
	}
	for (i = 0; i < 2; i++)
		tt_check(test, &tt[i], 1, own(test)->cpu_a, name[i]);
}

/*
 * @cancel (twheel_timer_delete() or twheel_timer_delete_sync_try()) of
 * @tt's idle timer returns 0; of the timer just armed, with interrupts
 * off so that it cannot run first, 1, leaving it idle; then 0 again, and
 * the timer does not run.
 */
static void tt_cancel_pending(struct kunit *test, struct ttimer *tt,
			      int (*cancel)(struct twheel_timer *))
{
	struct twheel_timer *t = &tt->timer;
	unsigned long flags;
	int ret[2];

	KUNIT_EXPECT_EQ_MSG(test, cancel(t), 0, "fresh");
	local_irq_save(flags);
	ret[0] = twheel_mod_timer(t, jiffies + 1);
	/* pending -> idle */
	ret[1] = cancel(t);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ_MSG(test, ret[1], 1, "pending");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ_MSG(test, cancel(t), 0, "cancelled");
	tt_quiet(test, tt, 0, 1, "cancelled");
}

/*
 * twheel_timer_delete(): 0 for an idle timer, 1 for a pending one, which
 * then never runs; 0 again; 0 after a run.
 */
static void twheel_timer_delete_returns_whether_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	tt_cancel_pending(test, tt, twheel_timer_delete);

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + 1), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_delete(t), 0, "run");
}

/*
 * Arm @tt's timer on CPU b for the next tick, its function doing @mode,
 * and wait until that runs there.
 */
static void tt_running_elsewhere(struct kunit *test, struct ttimer *tt,
				 enum tt_mode mode)
{
	int cpu_b = own(test)->cpu_b;

	WRITE_ONCE(tt->mode, mode);
	atomic_set(&tt->release, 0);
	atomic_set(&tt->entered, 0);
	atomic_set(&tt->runs, 0);
	tt->timer.expires = jiffies;
	twheel_add_timer_on(&tt->timer, cpu_b);
	KUNIT_ASSERT_TRUE_MSG(test, wait_runs(&tt->entered, 1),
			      "did not run on CPU %d", cpu_b);
}

/* Where twheel_timer_delete_sync() is called from, as timer_list allows. */
enum sync_from { FROM_TASK, FROM_BH_OFF, FROM_PREEMPT_OFF };

struct sync_case {
	enum sync_from from;
	const char *desc;
};

static const struct sync_case sync_cases[] = {
	{ FROM_TASK, "process context: sleeps" },
	{ FROM_BH_OFF, "bottom halves off: spins" },
	{ FROM_PREEMPT_OFF, "preemption off: spins" },
};

KUNIT_ARRAY_PARAM_DESC(sync, sync_cases, desc);

static int delete_sync_from(struct twheel_timer *t, enum sync_from from)
{
	int ret;

	switch (from) {
	case FROM_BH_OFF:
		local_bh_disable();
		ret = twheel_timer_delete_sync(t);
		local_bh_enable();
		return ret;
	case FROM_PREEMPT_OFF:
		preempt_disable();
		ret = twheel_timer_delete_sync(t);
		preempt_enable();
		return ret;
	default:
		return twheel_timer_delete_sync(t);
	}
}

/*
 * twheel_timer_delete_sync() while the function runs on CPU b: returns
 * 0 (not pending) once the function has returned, whether it may sleep
 * or must spin (timer_delete_sync()'s rules; under PREEMPT_RT too, the
 * function running on another CPU).
 */
static void twheel_timer_delete_sync_waits_for_running(struct kunit *test)
{
	const struct sync_case *sc = test->param_value;
	struct ttimer *tt = &own(test)->tt[0];
	ktime_t called = 0, returned_at = 0;
	int attempt, ret, returned;
	bool overlapped = false;

	two_cpus(test);
	for (attempt = 0; attempt < 5 && !overlapped; attempt++) {
		tt_running_elsewhere(test, tt, TT_HOLD);

		called = ktime_get();
		ret = delete_sync_from(&tt->timer, sc->from);
		returned_at = ktime_get();
		returned = atomic_read_acquire(&tt->runs);

		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "a running timer");
		KUNIT_EXPECT_EQ_MSG(test, returned, 1,
				    "returned while its function ran");
		KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&tt->timer));
		if (returned)
			KUNIT_EXPECT_FALSE(test,
					   ktime_before(returned_at, tt->left));
		KUNIT_EXPECT_EQ(test, tt->cpu, own(test)->cpu_b);
		overlapped = ktime_before(called, tt->left);
	}
	KUNIT_EXPECT_TRUE_MSG(test, overlapped,
			      "each time, the function had returned before the call");
	kunit_info(test, "waited %lld ns for the running function\n",
		   ktime_to_ns(ktime_sub(returned_at, called)));
}

/*
 * twheel_timer_delete_sync() while the function runs on CPU b, having
 * re-armed the timer: 1 (pending), once the function has returned; it
 * does not run again.
 */
static void twheel_timer_delete_sync_rearmed_returns_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	int ret, returned;

	two_cpus(test);
	tt_running_elsewhere(test, tt, TT_REARM_HOLD);

	KUNIT_EXPECT_TRUE_MSG(test, twheel_timer_pending(&tt->timer),
			      "not pending, re-armed by its own function");
	ret = twheel_timer_delete_sync(&tt->timer);
	returned = atomic_read_acquire(&tt->runs);
	KUNIT_EXPECT_EQ_MSG(test, tt->rearm, 0,
			    "twheel_mod_timer() in its own function");
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ_MSG(test, returned, 1,
			    "returned while its function ran");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&tt->timer));
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&tt->timer), 0);
}

/*
 * twheel_timer_shutdown_sync() while the function runs on CPU b, having
 * re-armed the timer: 1, once the function has returned; every arming
 * the function tries after the cancel, and every one afterwards, returns
 * 0 and arms nothing, and the timer never runs again, until
 * twheel_timer_setup() makes it usable.
 */
static void twheel_timer_shutdown_sync_stops_rearming(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	int ret, returned, i, tries[NTRY];

	two_cpus(test);
	tt_running_elsewhere(test, tt, TT_SHUT);

	/* running on b and pending -> shut down */
	ret = twheel_timer_shutdown_sync(t);
	returned = atomic_read_acquire(&tt->runs);
	KUNIT_EXPECT_EQ_MSG(test, tt->rearm, 0,
			    "twheel_mod_timer() in its own function");
	KUNIT_EXPECT_EQ_MSG(test, ret, 1, "its function had re-armed it");
	KUNIT_EXPECT_EQ_MSG(test, returned, 1,
			    "returned while its function ran");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_TRUE_MSG(test, tt->saw_cancel,
			      "its function never saw the cancel");
	for (i = 0; i < NTRY; i++)
		KUNIT_EXPECT_EQ_MSG(test, tt->ret[i], 0,
				    "%s in its function, once shut down",
				    tt_try_name[i]);

	tt_try_all(tt, tries);
	for (i = 0; i < NTRY; i++)
		KUNIT_EXPECT_EQ_MSG(test, tries[i], 0, "%s, once shut down",
				    tt_try_name[i]);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	tt_quiet(test, tt, 1, 1, "shut down");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_shutdown_sync(t), 0);

	/* shut down -> idle, usable */
	twheel_timer_setup(t, tt_fn, 0);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + 1, 0), 0);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 2, own(test)->cpu_a, "set up again");
}

/*
 * twheel_timer_delete_sync_try() (7.2's timer_delete_sync_try(), 6.1's
 * try_to_del_timer_sync()): 0 for an idle timer; 1 for a pending one,
 * which then never runs; and -1, doing nothing, while the function runs
 * on CPU b, having re-armed the timer: it stays pending, and once the
 * function has returned, the call cancels it.
 */
static void twheel_timer_delete_sync_try_refuses_running(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	int ret, returned;
	ktime_t until;

	tt_cancel_pending(test, tt, twheel_timer_delete_sync_try);

	two_cpus(test);
	tt_running_elsewhere(test, tt, TT_REARM_HOLD);
	ret = twheel_timer_delete_sync_try(t);
	returned = atomic_read_acquire(&tt->runs);
	KUNIT_EXPECT_TRUE_MSG(test, returned || ret == -1,
			      "returned %d while its function ran", ret);
	KUNIT_EXPECT_TRUE_MSG(test, returned || twheel_timer_pending(t),
			      "cancelled while its function ran");
	atomic_set_release(&tt->release, 1);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_EQ_MSG(test, tt->rearm, 0,
			    "twheel_mod_timer() in its own function");
	if (!returned) {
		/*
		 * The function counts its run just before it returns: until
		 * it has, the call may still find it running.
		 */
		until = ktime_add_ns(ktime_get(), LOST_NS);
		while ((ret = twheel_timer_delete_sync_try(t)) == -1 &&
		       ktime_before(ktime_get(), until))
			cpu_relax();
		KUNIT_EXPECT_EQ_MSG(test, ret, 1,
				    "re-armed, its function returned");
	}
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
}

/*
 * twheel_timer_shutdown() (timer_shutdown()) while the function runs on
 * CPU b, having re-armed the timer: 1, without waiting for the function;
 * the timer is not pending, takes no arming afterwards, and runs no more,
 * until twheel_timer_setup() makes it usable.  A function that had
 * returned before the call cannot show that it was not waited for: the
 * case tries up to five times.
 */
static void twheel_timer_shutdown_does_not_wait(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	int attempt, ret, i, tries[NTRY];
	bool overlapped = false;
	ktime_t returned_at;

	two_cpus(test);
	for (attempt = 0; attempt < 5 && !overlapped; attempt++) {
		twheel_timer_setup(t, tt_fn, 0);
		tt_running_elsewhere(test, tt, TT_REARM_HOLD);
		ret = twheel_timer_shutdown(t);
		returned_at = ktime_get();
		KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
		KUNIT_EXPECT_EQ(test, twheel_mod_timer(t, jiffies + 1), 0);
		KUNIT_EXPECT_FALSE_MSG(test, twheel_timer_pending(t),
				       "armed once shut down");
		atomic_set_release(&tt->release, 1);
		KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
		/* Until the function has returned, for the next setup. */
		KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(t), 0);
		KUNIT_EXPECT_EQ_MSG(test, tt->rearm, 0,
				    "twheel_mod_timer() in its own function");
		KUNIT_EXPECT_EQ_MSG(test, ret, 1, "its function had re-armed it");
		overlapped = ktime_before(returned_at, tt->left);
	}
	KUNIT_EXPECT_TRUE_MSG(test, overlapped,
			      "each time, it returned after the function had");

	tt_try_all(tt, tries);
	for (i = 0; i < NTRY; i++)
		KUNIT_EXPECT_EQ_MSG(test, tries[i], 0, "%s, once shut down",
				    tt_try_name[i]);
	tt_quiet(test, tt, 1, 1, "shut down");
	KUNIT_EXPECT_EQ(test, twheel_timer_shutdown(t), 0);

	/* shut down -> idle, usable */
	twheel_timer_setup(t, tt_fn, 0);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + 1, 0), 0);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 2, own(test)->cpu_a, "set up again");
}

/* A timer on the stack, and its runs. */
struct stack_timer {
	struct twheel_timer timer;
	atomic_t runs;
};

static void stack_timer_fn(struct twheel_timer *t)
{
	struct stack_timer *st = twheel_from_timer(st, t, timer);

	atomic_inc_return_release(&st->runs);
}

/*
 * twheel_timer_setup_on_stack() and twheel_timer_destroy_on_stack() (7.2's
 * timer_setup_on_stack() and timer_destroy_on_stack()): a timer in this
 * frame runs once, is cancelled again, and is destroyed before the frame
 * ends, with nothing for KASAN or debug objects to report.
 */
static void twheel_timer_on_stack_runs(struct kunit *test)
{
	struct stack_timer st = { .runs = ATOMIC_INIT(0) };

	twheel_timer_setup_on_stack(&st.timer, stack_timer_fn, 0);
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(&st.timer, jiffies + 1), 0);
	KUNIT_EXPECT_TRUE(test, wait_runs(&st.runs, 1));
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(&st.timer, jiffies + FAR_J), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&st.timer), 1);
	twheel_timer_destroy_on_stack(&st.timer);
	KUNIT_EXPECT_EQ(test, atomic_read_acquire(&st.runs), 1);
}

/*
 * twheel_timer_pending() through a timer's life: not when fresh, when
 * armed, not in its own function, not after its run, nor once cancelled.
 */
static void twheel_timer_pending_through_life(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 0, "fresh");
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 1, "armed");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(t, jiffies + 1), 1);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_FALSE_MSG(test, tt->pending, "in its own function");
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 0, "run");
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 1, "armed again");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 0, "cancelled");
}

/* What the functions of the pair's timers found. */
static struct pair *pair_seen[2];
static struct twheel_timer *pair_timer[2];
static atomic_t pair_runs;

static void pair_a_fn(struct twheel_timer *t)
{
	pair_seen[0] = twheel_from_timer(pair_seen[0], t, a);
	pair_timer[0] = t;
	atomic_inc_return_release(&pair_runs);
}

static void pair_b_fn(struct twheel_timer *t)
{
	pair_seen[1] = twheel_from_timer(pair_seen[1], t, b);
	pair_timer[1] = t;
	atomic_inc_return_release(&pair_runs);
}

/*
 * twheel_from_timer() in a timer's function gives back the structure the
 * timer is in, for each of two timers at different places in it.
 */
static void twheel_from_timer_gives_container(struct kunit *test)
{
	struct pair *p = &pair;

	pair_seen[0] = NULL;
	pair_seen[1] = NULL;
	atomic_set(&pair_runs, 0);
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(&p->a, jiffies + 1), 0);
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(&p->b, jiffies + 2), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&pair_runs, 2));
	KUNIT_EXPECT_PTR_EQ(test, pair_timer[0], &p->a);
	KUNIT_EXPECT_PTR_EQ(test, pair_timer[1], &p->b);
	KUNIT_EXPECT_PTR_EQ(test, pair_seen[0], p);
	KUNIT_EXPECT_PTR_EQ(test, pair_seen[1], p);
}

/*
 * ->expires is the deadline last armed: set by twheel_mod_timer(), by
 * twheel_mod_timer_pending() of a pending timer and by
 * twheel_timer_reduce() that moves it, not by those that arm nothing or
 * leave it; a cancel or a run keeps it.
 */
static void twheel_timer_expires_holds_last_armed(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + FAR_J;

	KUNIT_EXPECT_EQ(test, t->expires, 0UL);
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e, "twheel_mod_timer(), idle");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(t, e + HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + HZ,
			    "twheel_mod_timer(), pending");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, e + 2 * HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + 2 * HZ,
			    "twheel_mod_timer_pending(), pending");
	KUNIT_EXPECT_EQ(test, twheel_timer_reduce(t, e + 3 * HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + 2 * HZ,
			    "twheel_timer_reduce(), later");
	KUNIT_EXPECT_EQ(test, twheel_timer_reduce(t, e), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e,
			    "twheel_timer_reduce(), earlier");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e, "twheel_timer_delete()");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, e + HZ), 0);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e,
			    "twheel_mod_timer_pending(), idle");
	KUNIT_EXPECT_EQ(test, twheel_timer_reduce(t, e + HZ), 0);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + HZ,
			    "twheel_timer_reduce(), idle");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);

	e = jiffies + 1;
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e, "run");
}

/* What the file-scope timer's function saw. */
static struct {
	atomic_t runs;
	int cpu;
	bool softirq;
	bool pending;
	struct twheel_timer *timer;
} file_run;

static void file_timer_fn(struct twheel_timer *t)
{
	file_run.timer = t;
	file_run.cpu = smp_processor_id();
	file_run.softirq = in_serving_softirq() && !in_hardirq();
	file_run.pending = twheel_timer_pending(t);
	atomic_inc_return_release(&file_run.runs);
}

static DEFINE_TWHEEL_TIMER(file_timer, file_timer_fn);

/*
 * A timer of DEFINE_TWHEEL_TIMER() is ready without twheel_timer_setup():
 * it arms, runs on this CPU and on the CPU named, and cancels, by
 * twheel_timer_delete_sync() too (lockdep, watching the console, stays
 * quiet about its static class).
 */
static void define_twheel_timer_needs_no_setup(struct kunit *test)
{
	struct tt_ctx *tc = own(test);
	unsigned long flags;
	bool pending;
	int ret;

	atomic_set(&file_run.runs, 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&file_timer));
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&file_timer), 0);

	/* Interrupts off: it cannot run before it is seen pending. */
	local_irq_save(flags);
	ret = twheel_mod_timer(&file_timer, jiffies + 1);
	pending = twheel_timer_pending(&file_timer);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_ASSERT_TRUE(test, wait_runs(&file_run.runs, 1));
	KUNIT_EXPECT_PTR_EQ(test, file_run.timer, &file_timer);
	KUNIT_EXPECT_EQ(test, file_run.cpu, tc->cpu_a);
	KUNIT_EXPECT_TRUE(test, file_run.softirq);
	KUNIT_EXPECT_FALSE(test, file_run.pending);

	if (tc->cpu_b >= 0) {
		file_timer.expires = jiffies + 1;
		twheel_add_timer_on(&file_timer, tc->cpu_b);
		KUNIT_ASSERT_TRUE(test, wait_runs(&file_run.runs, 2));
		KUNIT_EXPECT_EQ(test, file_run.cpu, tc->cpu_b);
	}

	KUNIT_EXPECT_EQ(test, twheel_mod_timer(&file_timer, jiffies + FAR_J),
			0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&file_timer), 1);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&file_timer));
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&file_timer), 0);
}

static int timer_init(struct kunit *test)
{
	int ret = tt_init(test);

	twheel_timer_setup(&pair.a, pair_a_fn, 0);
	twheel_timer_setup(&pair.b, pair_b_fn, 0);
	return ret;
}

/*
 * Cancel the timers of this file's own, the pair's and the file-scope
 * one, and wait for their functions: this file's own untimeout(), a name
 * <twheel_timer.h> leaves free.
 */
static void untimeout(void)
{
	twheel_timer_delete_sync(&pair.a);
	twheel_timer_delete_sync(&pair.b);
	twheel_timer_delete_sync(&file_timer);
}

/* Cancel all a case armed, so that nothing runs into freed memory. */
static void timer_exit(struct kunit *test)
{
	untimeout();
	tt_exit(test);
}

static struct kunit_case timer_cases[] = {
	KUNIT_CASE(twheel_mod_timer_returns_whether_pending),
	KUNIT_CASE(twheel_mod_timer_pending_idle_arms_nothing),
	KUNIT_CASE(twheel_mod_timer_pending_moves_pending),
	KUNIT_CASE(twheel_timer_reduce_idle_arms),
	KUNIT_CASE(twheel_timer_reduce_later_leaves_pending),
	KUNIT_CASE(twheel_timer_reduce_earlier_moves_pending),
	KUNIT_CASE(twheel_add_timer_uses_expires),
	KUNIT_CASE(twheel_add_timer_on_runs_on_cpu),
	KUNIT_CASE(twheel_add_timer_local_and_global),
	KUNIT_CASE(twheel_timer_delete_returns_whether_pending),
	KUNIT_CASE_PARAM(twheel_timer_delete_sync_waits_for_running,
			 sync_gen_params),
	KUNIT_CASE(twheel_timer_delete_sync_rearmed_returns_pending),
	KUNIT_CASE(twheel_timer_shutdown_sync_stops_rearming),
	KUNIT_CASE(twheel_timer_delete_sync_try_refuses_running),
	KUNIT_CASE(twheel_timer_shutdown_does_not_wait),
	KUNIT_CASE(twheel_timer_on_stack_runs),
	KUNIT_CASE(twheel_timer_pending_through_life),
	KUNIT_CASE(twheel_from_timer_gives_container),
	KUNIT_CASE(twheel_timer_expires_holds_last_armed),
	KUNIT_CASE(define_twheel_timer_needs_no_setup),
	{}
};

static struct kunit_suite timer_suite = {
	.name = "twheel_client_timer",
	.init = timer_init,
	.exit = timer_exit,
	.test_cases = timer_cases,
};

kunit_test_suite(timer_suite);
