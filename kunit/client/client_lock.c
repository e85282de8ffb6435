// SPDX-License-Identifier: GPL-2.0
/*
 * client_lock.c - suite twheel_client_lock: lock-associated callouts.
 * callout_init_lock() and callout_init_raw_lock() refuse bad arguments and
 * a pending handle with nothing changed; the function holds the lock (or
 * releases it itself); under the lock, unsetcallout() after the tick came
 * returns 1 and the function never runs, setcallout() re-arms;
 * unsetcallout_sync() under it cancels without waiting.  Suite twheel_lock
 * (../lock_test.c) races the same window many times; both run over the
 * kinds of lock of ../lock_kinds.h.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "client.h"
#include "../lock_kinds.h"

/*
 * Lock-associated callouts.  The function records, for the arming whose
 * argument it was given, whether its handle's lock (and the other lock of
 * the pair, which it must not be) was held as it began; with
 * CALLOUT_RETURNUNLOCKED it releases the lock itself.
 */
struct lock_arming {
	struct lockc *lk;
	bool held;		/* its lock, as lockdep and the lock see it */
	bool other_held;	/* the lock it was not given */
	bool softirq;
	int cpu;
	atomic_t runs;
};

struct lockc {
	struct callout_locked lc;
	struct kind_lock lock;	/* @lc's, of the case's kind */
	spinlock_t other;	/* a lock that is not @lc's */
	struct lock_arming arm[2];
};

static void lockc_fn(void *arg)
{
	struct lock_arming *a = arg;
	struct lockc *lk = a->lk;

	a->held = kind_lock_held(&lk->lock);
	a->other_held = spin_taken(&lk->other, false);
	a->softirq = in_serving_softirq() && !in_hardirq();
	a->cpu = raw_smp_processor_id();
	kind_lock_fn_return(&lk->lock);
	atomic_inc_return_release(&a->runs);
}

/* A handle set up for @kind, which .exit waits for. */
static struct lockc *lockc_setup(struct kunit *test,
				 const struct lock_kind *kind)
{
	struct client *ctx = test->priv;
	struct lockc *lk = kunit_kzalloc(test, sizeof(*lk), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, lk);
	kind_lock_init(&lk->lock, kind);
	spin_lock_init(&lk->other);
	lk->arm[0].lk = lk;
	lk->arm[1].lk = lk;
	ret = kind_lock_callout_init(&lk->lc, &lk->lock, 0);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ctx->own = lk;
	return lk;
}

static const struct lock_kind plain_lock = { false, 0, "spinlock_t" };

/*
 * callout_init_lock() and callout_init_raw_lock() refuse a NULL handle or
 * lock and an unknown flag with -EINVAL, changing nothing: a handle never
 * initialised stays refused by setcallout(), and one set up for a lock
 * still runs under that lock, not the one a refused call named.
 */
static void callout_init_lock_rejects_invalid(struct kunit *test)
{
	struct lockc *lk = lockc_setup(test, &plain_lock);
	struct callout_locked *stray = kunit_kzalloc(test, sizeof(*stray),
						     GFP_KERNEL);
	struct lock_arming *a = &lk->arm[0];

	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_EXPECT_EQ(test, callout_init_lock(NULL, &lk->lock.spin, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_raw_lock(NULL, &lk->lock.raw_spin, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_lock(stray, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_raw_lock(stray, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_lock(stray, &lk->lock.spin, 0x80),
			-EINVAL);
	/* stray: still never initialised */
	KUNIT_EXPECT_EQ(test, setcallout(&stray->c, lockc_fn, a, 0), -EINVAL);

	KUNIT_EXPECT_EQ(test, callout_init_lock(&lk->lc, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_lock(&lk->lc, &lk->other, ~0U),
			-EINVAL);
	/* lk->lc: still under lk->lock.spin */
	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&a->runs, 1, LOST_NS));
	KUNIT_EXPECT_TRUE_MSG(test, a->held, "not under its own lock");
	KUNIT_EXPECT_FALSE_MSG(test, a->other_held,
			       "under the lock of a refused call");
}

/* Flags that callout_init_lock() and callout_init_raw_lock() refuse. */
struct bad_flags_case {
	unsigned int flags;
	bool raw;
	const char *desc;
};

static const struct bad_flags_case bad_flags_cases[] = {
	{ 0x4, false, "spinlock, 0x4" },
	{ 0x4, true, "raw spinlock, 0x4" },
	{ 0x5, false, "spinlock, RETURNUNLOCKED | 0x4" },
	{ 0x6, true, "raw spinlock, PINNED | 0x4" },
	{ 0x7, false, "spinlock, RETURNUNLOCKED | PINNED | 0x4" },
	{ CALLOUT_IF_PENDING, false, "spinlock, CALLOUT_IF_PENDING" },
	{ CALLOUT_PINNED | CALLOUT_ABSOLUTE, true,
	  "raw spinlock, PINNED | CALLOUT_ABSOLUTE" },
	{ 0x80000000, true, "raw spinlock, the top bit" },
	{ ~0U, false, "spinlock, every bit" },
	{ ~0U, true, "raw spinlock, every bit" },
};

KUNIT_ARRAY_PARAM_DESC(bad_flags, bad_flags_cases, desc);

/*
 * Any flag but CALLOUT_RETURNUNLOCKED and CALLOUT_PINNED is -EINVAL, for
 * either lock type, and nothing changes: a handle never initialised stays
 * so.
 */
static void callout_init_lock_rejects_unknown_flags(struct kunit *test)
{
	const struct bad_flags_case *bc = test->param_value;
	struct lockc *lk = lockc_setup(test, &plain_lock);
	struct callout_locked *stray = kunit_kzalloc(test, sizeof(*stray),
						     GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, stray);
	ret = bc->raw ?
	      callout_init_raw_lock(stray, &lk->lock.raw_spin, bc->flags) :
	      callout_init_lock(stray, &lk->lock.spin, bc->flags);
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "flags %#x", bc->flags);
	/* Far, and cancelled, should it arm after all. */
	KUNIT_EXPECT_EQ(test, setcallout(&stray->c, lockc_fn, &lk->arm[0],
					 far_ticks()), -EINVAL);
	unsetcallout_sync(&stray->c);
}

/*
 * Of a pending handle, callout_init_lock() and callout_init_raw_lock()
 * return -EBUSY and change nothing: it stays pending, and when it runs, it
 * runs under its first lock.
 */
static void callout_init_lock_pending_returns_ebusy(struct kunit *test)
{
	struct lockc *lk = lockc_setup(test, &plain_lock);
	struct lock_arming *a = &lk->arm[0];
	int busy, busy_raw;
	bool pending;

	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, far_ticks()), 0);
	busy = callout_init_lock(&lk->lc, &lk->other, 0);
	busy_raw = callout_init_raw_lock(&lk->lc, &lk->lock.raw_spin, 0);
	pending = callout_pending(&lk->lc.c);
	KUNIT_EXPECT_EQ(test, busy, -EBUSY);
	KUNIT_EXPECT_EQ(test, busy_raw, -EBUSY);
	KUNIT_EXPECT_TRUE(test, pending);
	/* pending -> due on the next tick */
	KUNIT_EXPECT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, 0), 1);
	KUNIT_ASSERT_TRUE(test, wait_count(&a->runs, 1, LOST_NS));
	KUNIT_EXPECT_TRUE_MSG(test, a->held, "not under its first lock");
	KUNIT_EXPECT_FALSE_MSG(test, a->other_held,
			       "under the lock of a refused call");
}

/*
 * The function runs in softirq context, on the arming CPU, with the lock
 * held; afterwards nobody holds it, whether twheel or the function
 * (CALLOUT_RETURNUNLOCKED) released it.
 */
static void callout_init_lock_function_holds_lock(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct lockc *lk = lockc_setup(test, test->param_value);
	struct lock_arming *a = &lk->arm[0];

	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&a->runs, 1, LOST_NS));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&lk->lc.c), 0);
	KUNIT_EXPECT_TRUE_MSG(test, a->held, "%s: not held in the function",
			      lk->lock.kind->desc);
	KUNIT_EXPECT_TRUE(test, a->softirq);
	KUNIT_EXPECT_EQ(test, a->cpu, ctx->cpu_a);
	KUNIT_EXPECT_FALSE_MSG(test, kind_lock_taken(&lk->lock, true),
			       "%s: still held after the function",
			       lk->lock.kind->desc);
	kind_lock_bh(&lk->lock);
	kind_unlock_bh(&lk->lock);
}

/* Busy-poll, never sleep, until @c is not pending or @ns have passed. */
static bool wait_idle(struct callout *c, u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (callout_pending(c)) {
		if (!ktime_before(ktime_get(), end))
			return !callout_pending(c);
		cpu_relax();
	}
	return true;
}

/*
 * Hold the lock, arm @a on the other CPU for the next tick, and wait until
 * its tick has come: it is not pending, and its expiry waits for the lock.
 * Returns with the lock held either way.
 */
static bool lockc_hold_until_due(struct kunit *test, struct lockc *lk,
				 struct lock_arming *a)
{
	struct client *ctx = test->priv;
	struct remote_arm r = { .c = &lk->lc.c, .fn = lockc_fn, .arg = a };

	kind_lock_bh(&lk->lock);
	if (arm_on(ctx->cpu_b, &r) || r.ret)
		return false;
	return wait_idle(&lk->lc.c, LOST_NS);
}

/*
 * unsetcallout() with the lock held, after the callout's tick came on the
 * other CPU: returns 1, and the function never runs; the lock is free
 * again afterwards.
 */
static void unsetcallout_under_lock_after_tick_never_runs(struct kunit *test)
{
	struct lockc *lk;
	bool due;
	int ret;

	need_two_cpus(test);
	lk = lockc_setup(test, test->param_value);
	due = lockc_hold_until_due(test, lk, &lk->arm[0]);
	ret = unsetcallout(&lk->lc.c);
	kind_unlock_bh(&lk->lock);
	KUNIT_ASSERT_TRUE_MSG(test, due, "its tick did not come");
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&lk->lc.c), 0);
	spin_ns(ticks_ns(3));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&lk->arm[0].runs), 0,
			    "%s: ran after unsetcallout() returned 1",
			    lk->lock.kind->desc);
	KUNIT_EXPECT_FALSE(test, kind_lock_taken(&lk->lock, true));
}

/*
 * setcallout() with the lock held, after the tick came on the other CPU:
 * returns 1 (re-armed); the old arming never runs, the new one once, on
 * that other CPU (where the callout was running).
 */
static void setcallout_under_lock_after_tick_rearms(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct lockc *lk;
	bool due, pending;
	int ret;

	need_two_cpus(test);
	lk = lockc_setup(test, test->param_value);
	due = lockc_hold_until_due(test, lk, &lk->arm[0]);
	ret = setcallout(&lk->lc.c, lockc_fn, &lk->arm[1], 0);
	pending = callout_pending(&lk->lc.c);
	kind_unlock_bh(&lk->lock);
	KUNIT_ASSERT_TRUE_MSG(test, due, "its tick did not come");
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_ASSERT_TRUE(test, wait_count(&lk->arm[1].runs, 1, LOST_NS));
	spin_ns(ticks_ns(3));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&lk->lc.c), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&lk->arm[0].runs), 0,
			    "%s: the replaced arming ran", lk->lock.kind->desc);
	KUNIT_EXPECT_EQ(test, atomic_read(&lk->arm[1].runs), 1);
	KUNIT_EXPECT_TRUE(test, lk->arm[1].held);
	KUNIT_EXPECT_EQ(test, lk->arm[1].cpu, ctx->cpu_b);
	KUNIT_EXPECT_FALSE(test, kind_lock_taken(&lk->lock, true));
}

/*
 * unsetcallout_sync() with the callout's lock held, its function not
 * running: it cancels (1), as unsetcallout() under the lock would, and
 * the function never runs.  lockdep would rightly report the inversion
 * (the function waits for the lock, the caller for the function); it is
 * off for this one call only.  (Before the fix it returned -EDEADLK and
 * left the callout armed.)
 */
static void unsetcallout_sync_under_lock_cancels(struct kunit *test)
{
	struct lockc *lk = lockc_setup(test, &plain_lock);
	bool pending;
	int ret;

	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, &lk->arm[0],
					 far_ticks()), 0);
	kind_lock_bh(&lk->lock);
	lockdep_off();
	ret = unsetcallout_sync(&lk->lc.c);
	lockdep_on();
	pending = callout_pending(&lk->lc.c);
	kind_unlock_bh(&lk->lock);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ(test, unsetcallout(&lk->lc.c), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&lk->arm[0].runs), 0);
}

/* Cancel the lock case's handle, then what all cases share. */
static void lock_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct lockc *lk = ctx ? ctx->own : NULL;

	if (lk)
		unsetcallout_sync(&lk->lc.c);
	client_exit(test);
}

static struct kunit_case lock_cases[] = {
	KUNIT_CASE(callout_init_lock_rejects_invalid),
	KUNIT_CASE_PARAM(callout_init_lock_rejects_unknown_flags,
			 bad_flags_gen_params),
	KUNIT_CASE(callout_init_lock_pending_returns_ebusy),
	KUNIT_CASE_PARAM(callout_init_lock_function_holds_lock,
			 lock_kind_gen_params),
	KUNIT_CASE_PARAM(unsetcallout_under_lock_after_tick_never_runs,
			 lock_kind_gen_params),
	KUNIT_CASE_PARAM(setcallout_under_lock_after_tick_rearms,
			 lock_kind_gen_params),
	KUNIT_CASE(unsetcallout_sync_under_lock_cancels),
	{}
};

CLIENT_SUITE(lock, lock_cases, client_init, lock_exit);
