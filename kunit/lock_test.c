// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_lock: lock-associated callouts (callout_init_lock(),
 * callout_init_raw_lock()) on two CPUs, with twheel's counters
 * (twheel_stats_read()) as a second witness.  What is checked:
 *
 *   the function holds the lock   twheel takes it around the function and
 *                                 releases it after, unless the function
 *                                 does (CALLOUT_RETURNUNLOCKED)
 *   the waiting window            the callout's tick has come on the other
 *                                 CPU and its expiry waits for the lock that
 *                                 this CPU holds: unsetcallout() returns 1
 *                                 and the function never runs; setcallout()
 *                                 returns 1 and only the new arming runs
 *   the race, many times          this CPU takes the lock and cancels while
 *                                 the tick comes on the other, at varying
 *                                 offsets: no function runs after a cancel
 *                                 that returned 1, and every arming ends
 *                                 exactly once, by a run or by such a cancel
 *   the waiter on the expiry's    under PREEMPT_RT, where callout functions
 *   CPU                           run in a preemptible softirq thread, a
 *                                 unsetcallout_sync() made on their own CPU:
 *                                 it preempts a running function (from
 *                                 SCHED_FIFO), plain or under its
 *                                 spinlock_t, re-arming itself or not, and
 *                                 returns only once that has returned, with
 *                                 nothing run after, within a bound; or it
 *                                 finds the expiry asleep on the spinlock_t
 *                                 this CPU holds, and returns 1 once that
 *                                 is released, the function never run
 *
 * The case thread is pinned to the first online CPU; callouts are armed on
 * the other from an IPI (hardirq context there), which needs no lock.
 * Waits busy-poll ktime (test_util.h), the lock held or not.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "lock_kinds.h"
#include "test_util.h"

/* Armings of the race case, and the most wall time it may take. */
#define NRACE		5000
#define RACE_NS		(50ULL * NSEC_PER_SEC)

/*
 * The waiter on the expiry's CPU: how long each run of the function
 * lasts, and the most a unsetcallout_sync() may take before the case
 * calls it a livelock (however slow the guest, seconds are hundreds of
 * runs).
 */
#define HOLD_NS		(20ULL * NSEC_PER_MSEC)
#define SYNC_BOUND_NS	(10ULL * NSEC_PER_SEC)

struct lock_ctx;
struct same_cpu;

/*
 * One arming of the callout: its function's argument, so that a run tells
 * which arming it was.  @cancelled is written by the case thread under the
 * lock, and read by the function, also under the lock.
 */
struct arming {
	struct lock_ctx *x;
	bool cancelled;		/* a cancel under the lock returned 1 for it */
	bool held;		/* the lock was held as the function began */
	bool softirq;		/* the function ran in softirq context */
	bool late;		/* the function ran although @cancelled */
	int cpu;		/* where the function ran */
	atomic_t runs;		/* runs that have returned */
};

struct lock_ctx {
	struct callout_locked lc;
	struct kind_lock lock;	/* @lc's, of the case's kind */
	unsigned int here;	/* the case thread's CPU */
	unsigned int there;	/* where the callout is armed */
	struct twheel_cpu_stats before, after;	/* twheel's books there */
	struct same_cpu *same;	/* a waiter on @there, until torn down */
};

/* The function: records its run, and unlocks if it is its job. */
static void locked_fn(void *arg)
{
	struct arming *a = arg;
	struct lock_ctx *x = a->x;

	a->held = kind_lock_held(&x->lock);
	a->late = READ_ONCE(a->cancelled);
	a->softirq = in_serving_softirq() && !in_hardirq();
	a->cpu = raw_smp_processor_id();
	kind_lock_fn_return(&x->lock);
	atomic_inc_return_release(&a->runs);
}

struct remote_arm {
	struct callout *c;
	struct arming *a;
	unsigned long ticks;
	int ret;
};

static void remote_arm_fn(void *info)
{
	struct remote_arm *r = info;

	r->ret = setcallout(r->c, locked_fn, r->a, r->ticks);
}

/* Arm @x's callout for @a on the other CPU, from an IPI there. */
static int arm_there(struct lock_ctx *x, struct arming *a,
		     unsigned long ticks)
{
	struct remote_arm r = { .c = &x->lc.c, .a = a, .ticks = ticks };
	int err = smp_call_function_single(x->there, remote_arm_fn, &r, 1);

	return err ?: r.ret;
}

static struct arming *alloc_armings(struct kunit *test, struct lock_ctx *x,
				    unsigned int n)
{
	struct arming *a = kunit_kcalloc(test, n, sizeof(*a), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	for (i = 0; i < n; i++)
		a[i].x = x;
	return a;
}

/* A pinned case thread and a lock-associated callout of @kind. */
static struct lock_ctx *ctx_setup(struct kunit *test,
				  const struct lock_kind *kind)
{
	struct lock_ctx *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, x);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	x->here = cpumask_first(cpu_online_mask);
	x->there = cpumask_next(x->here, cpu_online_mask);
	kind_lock_init(&x->lock, kind);
	ret = kind_lock_callout_init(&x->lc, &x->lock, 0);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current,
						   cpumask_of(x->here)), 0);
	test->priv = x;
	return x;
}

static void same_cpu_teardown(struct same_cpu *sc);

/*
 * Whatever a case left armed or waiting, so that nothing runs once its
 * memory goes.
 */
static void lock_exit(struct kunit *test)
{
	struct lock_ctx *x = test->priv;

	if (!x)
		return;
	if (x->same)
		same_cpu_teardown(x->same);
	unsetcallout_sync(&x->lc.c);
}

/*
 * The function runs on the arming CPU in softirq context with the lock
 * held; afterwards nobody holds it, whoever released it (a release twice
 * would be a spinlock debugging report, which fails the run).
 */
static void callout_init_lock_function_holds_lock(struct kunit *test)
{
	struct lock_ctx *x = ctx_setup(test, test->param_value);
	struct arming *a = alloc_armings(test, x, 1);

	KUNIT_ASSERT_EQ(test, arm_there(x, a, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read_acquire(&a->runs)));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&x->lc.c), 0);

	KUNIT_EXPECT_TRUE_MSG(test, a->held, "%s: not held in the function",
			      x->lock.kind->desc);
	KUNIT_EXPECT_TRUE(test, a->softirq);
	KUNIT_EXPECT_EQ(test, a->cpu, x->there);
	KUNIT_EXPECT_FALSE_MSG(test, kind_lock_taken(&x->lock, true),
			       "%s: still locked after the function",
			       x->lock.kind->desc);
	/* Taken and released again as any user would. */
	kind_lock_bh(&x->lock);
	kind_unlock_bh(&x->lock);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->runs), 1);
}

/*
 * With the lock held here: arm @a there for the next tick, and wait until
 * it has left the wheel, its expiry now waiting for the lock (it cannot
 * get further).  Returns with the lock held whatever happened.
 */
static bool hold_until_waiting(struct kunit *test, struct lock_ctx *x,
			       struct arming *a)
{
	kind_lock_bh(&x->lock);
	/* lock held: the function cannot start */
	if (arm_there(x, a, 0))
		return false;
	/* pending -> off the wheel, expiry waiting for the lock */
	return poll_until(!callout_pending(&x->lc.c));
}

/*
 * unsetcallout() under the lock, once the tick has come and the expiry
 * waits for the lock: it counts as pending (returns 1), the function
 * never runs, and twheel counts a stop and no expiry on that CPU.
 */
static void unsetcallout_under_lock_waiting_expiry_cancels(struct kunit *test)
{
	struct lock_ctx *x = ctx_setup(test, test->param_value);
	struct arming *a = alloc_armings(test, x, 1);
	bool waiting;
	int ret;

	twheel_stats_read(x->there, &x->before);
	waiting = hold_until_waiting(test, x, a);
	ret = unsetcallout(&x->lc.c);
	kind_unlock_bh(&x->lock);
	KUNIT_ASSERT_TRUE_MSG(test, waiting, "the tick did not come");
	KUNIT_EXPECT_EQ(test, ret, 1);
	/* The expiry takes the lock, finds itself cancelled, drops the lock. */
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&x->lc.c), 0);
	spin_ns(3 * twheel_tick_ns());
	twheel_stats_read(x->there, &x->after);

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&a->runs), 0,
			    "%s: the cancelled function ran", x->lock.kind->desc);
	KUNIT_EXPECT_FALSE(test, callout_pending(&x->lc.c));
	KUNIT_EXPECT_FALSE_MSG(test, kind_lock_taken(&x->lock, true),
			       "%s: the lock was left held", x->lock.kind->desc);
	KUNIT_EXPECT_EQ(test, x->after.stopped - x->before.stopped, 1);
	KUNIT_EXPECT_EQ(test, x->after.expired - x->before.expired, 0);
}

/*
 * setcallout() under the lock in the same window: returns 1 (re-armed),
 * the old arming never runs, the new one runs once, on the CPU where the
 * expiry waited (a running callout stays where it runs).
 */
static void setcallout_under_lock_waiting_expiry_rearms(struct kunit *test)
{
	struct lock_ctx *x = ctx_setup(test, test->param_value);
	struct arming *a = alloc_armings(test, x, 2);
	bool waiting, pending;
	int ret;

	twheel_stats_read(x->there, &x->before);
	waiting = hold_until_waiting(test, x, &a[0]);
	ret = setcallout(&x->lc.c, locked_fn, &a[1], 0);
	pending = callout_pending(&x->lc.c);
	kind_unlock_bh(&x->lock);
	KUNIT_ASSERT_TRUE_MSG(test, waiting, "the tick did not come");
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read_acquire(&a[1].runs)));
	spin_ns(3 * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&x->lc.c), 0);
	twheel_stats_read(x->there, &x->after);

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&a[0].runs), 0,
			    "%s: the replaced arming ran", x->lock.kind->desc);
	KUNIT_EXPECT_EQ(test, atomic_read(&a[1].runs), 1);
	KUNIT_EXPECT_TRUE(test, a[1].held);
	KUNIT_EXPECT_EQ(test, a[1].cpu, x->there);
	KUNIT_EXPECT_FALSE(test, kind_lock_taken(&x->lock, true));
	KUNIT_EXPECT_EQ(test, x->after.rearmed - x->before.rearmed, 1);
	KUNIT_EXPECT_EQ(test, x->after.expired - x->before.expired, 1);
	KUNIT_EXPECT_EQ(test, x->after.stopped - x->before.stopped, 0);
}

/* How each arming of the race case ended, as the case thread saw it. */
struct race_tally {
	unsigned int armed;
	unsigned int waiting;	/* cancelled while its expiry waited */
	unsigned int wheel;	/* cancelled, maybe still on the wheel */
	unsigned int ran;	/* cancel returned 0: it had run */
	unsigned int bad_arm;	/* arming returned other than 0 */
	unsigned int bad_zero;	/* cancel returned 0 but it had not run */
};

static u32 xorshift(u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* One arming there, and a cancel here under the lock around its tick. */
static void race_once(struct lock_ctx *x, struct arming *a, u32 *seed,
		      struct race_tally *t)
{
	u64 tick = twheel_tick_ns();
	bool was;
	int ret;

	if (arm_there(x, a, 0)) {
		t->bad_arm++;
		return;
	}
	t->armed++;
	/* The tick is 0 to 1 tick away: come before it, or after it. */
	spin_ns(xorshift(seed) % tick);
	kind_lock_bh(&x->lock);
	spin_ns(xorshift(seed) % (2 * tick));
	was = callout_pending(&x->lc.c);
	ret = unsetcallout(&x->lc.c);
	if (ret == 1) {
		a->cancelled = true;
		if (was)
			t->wheel++;
		else
			t->waiting++;
	} else if (atomic_read(&a->runs) == 1) {
		t->ran++;
	} else {
		t->bad_zero++;
	}
	kind_unlock_bh(&x->lock);
}

/*
 * This CPU holds the lock and cancels while the callout's tick comes on
 * the other, thousands of times, at offsets spread over two ticks: the
 * function never runs after a cancel that returned 1, every arming ends
 * exactly once, and some cancels hit the window where the expiry waited
 * for the lock (or the case proves nothing).
 */
static void unsetcallout_under_lock_races_tick(struct kunit *test)
{
	static const struct lock_kind kind = { false, 0, "spinlock_t" };
	struct lock_ctx *x = ctx_setup(test, &kind);
	struct arming *a = alloc_armings(test, x, NRACE);
	struct race_tally t = {};
	unsigned int i, n, late = 0, twice = 0, unended = 0;
	u64 end = ktime_get_ns() + RACE_NS;
	u32 seed = 0x2545f491;

	twheel_stats_read(x->there, &x->before);
	for (n = 0; n < NRACE && ktime_get_ns() < end; n++)
		race_once(x, &a[n], &seed, &t);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&x->lc.c), 0);
	spin_ns(3 * twheel_tick_ns());
	twheel_stats_read(x->there, &x->after);

	for (i = 0; i < n; i++) {
		int runs = atomic_read(&a[i].runs);

		late += a[i].late || (a[i].cancelled && runs);
		twice += runs > 1;
		unended += !a[i].cancelled && runs != 1;
	}
	kunit_info(test, "%u armings: %u cancelled while the expiry waited for the lock, %u cancelled, %u ran\n",
		   t.armed, t.waiting, t.wheel, t.ran);
	KUNIT_EXPECT_EQ(test, t.bad_arm, 0);
	KUNIT_EXPECT_EQ_MSG(test, t.bad_zero, 0,
			    "unsetcallout() under the lock returned 0 for an arming that had not run");
	KUNIT_EXPECT_EQ_MSG(test, late, 0,
			    "functions ran after a cancel that returned 1");
	KUNIT_EXPECT_EQ(test, twice, 0);
	KUNIT_EXPECT_EQ_MSG(test, unended, 0,
			    "armings neither cancelled nor run once");
	KUNIT_EXPECT_EQ(test, t.waiting + t.wheel + t.ran, t.armed);
	KUNIT_EXPECT_GT_MSG(test, t.waiting, 0,
			    "no cancel came while the expiry waited for the lock");
	KUNIT_EXPECT_GE_MSG(test, n, NRACE / 4,
			    "only %u armings in %llu s", n,
			    RACE_NS / NSEC_PER_SEC);
	/* twheel's own books on that CPU agree. */
	KUNIT_EXPECT_EQ(test, x->after.started - x->before.started, t.armed);
	KUNIT_EXPECT_EQ(test, x->after.stopped - x->before.stopped,
			t.waiting + t.wheel);
	KUNIT_EXPECT_EQ(test, x->after.expired - x->before.expired, t.ran);
}

/*
 * The waiter on the expiry's CPU.  Under PREEMPT_RT a callout's function
 * runs in a softirq thread, or in whichever task re-enables bottom halves
 * on that CPU (rcuc, say, at SCHED_FIFO), which a task of higher priority
 * on the same CPU preempts, and which sleeps there on a spinlock_t: then
 * unsetcallout_sync() from that CPU must sleep until the function has
 * returned, where spinning would never end.  The waiter is a kthread
 * bound to the callout's CPU; the function wakes it once it runs, and the
 * case thread, on the other CPU, busy-polls for its return against a
 * bound.
 */
struct same_cpu_kind {
	bool locked;		/* under a spinlock_t, else a plain callout */
	bool rearm;		/* the function re-arms itself for the next tick */
	bool fifo;		/* the waiter runs SCHED_FIFO, else SCHED_NORMAL */
	const char *desc;
};

static const struct same_cpu_kind same_cpu_kinds[] = {
	{ false, false, false, "plain, waiter SCHED_NORMAL" },
	{ false, false, true, "plain, waiter SCHED_FIFO" },
	{ false, true, false, "plain, re-arming, waiter SCHED_NORMAL" },
	{ false, true, true, "plain, re-arming, waiter SCHED_FIFO" },
	{ true, false, false, "spinlock_t, waiter SCHED_NORMAL" },
	{ true, false, true, "spinlock_t, waiter SCHED_FIFO" },
	{ true, true, false, "spinlock_t, re-arming, waiter SCHED_NORMAL" },
	{ true, true, true, "spinlock_t, re-arming, waiter SCHED_FIFO" },
};

KUNIT_ARRAY_PARAM_DESC(same_cpu_kind, same_cpu_kinds, desc);

/* Tries at a waiter that preempts the function, which may run anywhere. */
#define SAME_CPU_TRIES	5

struct same_cpu {
	struct lock_ctx *x;
	struct callout plain;
	struct callout *c;	/* &@plain, or &x->lc.c */
	const struct same_cpu_kind *kind;
	struct task_struct *waiter;
	bool go;		/* the waiter may call */
	bool stop;		/* the function stops re-arming itself */
	atomic_t entered;	/* runs begun */
	atomic_t returned;	/* runs ended */
	atomic_t in_fn;		/* runs begun and not ended */
	atomic_t late;		/* runs begun after the sync cancel returned */
	int arm_ret;
	int fn_cpu;
	char runner[TASK_COMM_LEN];	/* the task the first run ran in */
	ktime_t fn_end;		/* when the last run ended */
	/* What the waiter saw; @done last, with release. */
	int waiter_cpu;
	bool overlapped;	/* the function was mid-run as it called */
	bool in_sync;
	int ret;
	int entered_then, returned_then, in_fn_then;
	ktime_t called, back;
	atomic_t done;
};

static void same_cpu_fn(void *arg)
{
	struct same_cpu *sc = arg;
	u64 end;

	if (atomic_read_acquire(&sc->done))
		atomic_inc(&sc->late);
	atomic_inc(&sc->in_fn);
	atomic_inc(&sc->entered);
	sc->fn_cpu = raw_smp_processor_id();
	if (!READ_ONCE(sc->go)) {
		get_task_comm(sc->runner, current);
		WRITE_ONCE(sc->go, true);
		wake_up_process(sc->waiter);
	}
	/* Preemptible here under PREEMPT_RT, the spinlock_t held or not. */
	end = ktime_get_ns() + HOLD_NS;
	while (ktime_get_ns() < end)
		cpu_relax();
	if (sc->kind->rearm && !READ_ONCE(sc->stop))
		setcallout(sc->c, same_cpu_fn, sc, 0);
	sc->fn_end = ktime_get();
	atomic_dec(&sc->in_fn);
	atomic_inc_return_release(&sc->returned);
}

/* The waiter: sleeps until told, cancels, and waits to be stopped. */
static int same_cpu_waiter(void *arg)
{
	struct same_cpu *sc = arg;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (READ_ONCE(sc->go) || kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	if (!kthread_should_stop()) {
		sc->waiter_cpu = raw_smp_processor_id();
		/* On this CPU, and not ended: preempted, or asleep on its lock. */
		sc->overlapped = atomic_read(&sc->in_fn) > 0;
		sc->called = ktime_get();
		WRITE_ONCE(sc->in_sync, true);
		sc->ret = unsetcallout_sync(sc->c);
		sc->back = ktime_get();
		sc->returned_then = atomic_read_acquire(&sc->returned);
		sc->entered_then = atomic_read(&sc->entered);
		sc->in_fn_then = atomic_read(&sc->in_fn);
		atomic_set_release(&sc->done, 1);
	}
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void same_cpu_arm_fn(void *info)
{
	struct same_cpu *sc = info;

	sc->arm_ret = setcallout(sc->c, same_cpu_fn, sc, 0);
}

/*
 * The case's lock context on two CPUs, under PREEMPT_RT only: elsewhere a
 * callout's function runs with preemption off, and no task on its CPU
 * can call while it runs.
 */
static struct lock_ctx *same_cpu_ctx(struct kunit *test)
{
	static const struct lock_kind spin = { false, 0, "spinlock_t" };

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT only: there a task may preempt a function on its CPU");
	return ctx_setup(test, &spin);
}

/*
 * A waiter bound to @x's other CPU, asleep until told, for the callout
 * @kind says.  A SCHED_FIFO one has the priority of an ordinary real-time
 * task (MAX_RT_PRIO / 2), above the kthreads that may run softirqs.
 */
static struct same_cpu *same_cpu_setup(struct kunit *test, struct lock_ctx *x,
				       const struct same_cpu_kind *kind)
{
	struct same_cpu *sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);
	struct task_struct *k;

	KUNIT_ASSERT_NOT_NULL(test, sc);
	sc->x = x;
	sc->kind = kind;
	callout_init(&sc->plain);
	sc->c = kind->locked ? &x->lc.c : &sc->plain;
	k = kthread_create_on_cpu(same_cpu_waiter, sc, x->there,
				  "twheel_sync/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	if (kind->fifo)
		sched_set_fifo(k);
	sc->waiter = k;
	x->same = sc;
	wake_up_process(k);
	return sc;
}

/*
 * Wait for the waiter's return, busy-polling for at most SYNC_BOUND_NS
 * from @from; true if it came.  If not, stop the function re-arming
 * itself, which ends any livelock, and wait again, so that the case can
 * end.
 */
static bool same_cpu_wait(struct kunit *test, struct same_cpu *sc,
			  ktime_t from)
{
	ktime_t end = ktime_add_ns(from, SYNC_BOUND_NS);
	bool back;

	while (!(back = atomic_read_acquire(&sc->done)) &&
	       ktime_before(ktime_get(), end))
		cpu_relax();
	if (!back) {
		WRITE_ONCE(sc->stop, true);
		KUNIT_EXPECT_TRUE_MSG(test, poll_until(atomic_read_acquire(&sc->done)),
				      "unsetcallout_sync() on the expiry's CPU never returned");
	}
	return back;
}

/* Stop the waiter, and leave nothing armed behind. */
static void same_cpu_teardown(struct same_cpu *sc)
{
	WRITE_ONCE(sc->stop, true);
	WRITE_ONCE(sc->go, true);
	kthread_stop(sc->waiter);
	unsetcallout_sync(sc->c);
	sc->x->same = NULL;
}

/*
 * One try of unsetcallout_sync_on_function_cpu_waits(): arm the callout
 * there, and let the waiter there cancel it once its function runs.
 * Checks everything but that the waiter preempted the function; returns
 * the try, torn down.
 */
static struct same_cpu *same_cpu_try(struct kunit *test, struct lock_ctx *x,
				     const struct same_cpu_kind *kind)
{
	struct same_cpu *sc = same_cpu_setup(test, x, kind);
	int err, entered;
	bool back;

	err = smp_call_function_single(x->there, same_cpu_arm_fn, sc, 1);
	KUNIT_ASSERT_EQ(test, err ?: sc->arm_ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, poll_until(atomic_read(&sc->entered)),
			      "%s: the function did not run", kind->desc);
	back = same_cpu_wait(test, sc, ktime_get());
	/* Past a re-arm's tick, and a run's length: nothing more runs. */
	entered = atomic_read(&sc->entered);
	spin_ns(HOLD_NS + 5 * twheel_tick_ns());
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sc->entered), entered,
			    "%s: ran on after unsetcallout_sync() returned",
			    kind->desc);
	KUNIT_EXPECT_FALSE(test, callout_pending(sc->c));
	same_cpu_teardown(sc);

	KUNIT_EXPECT_TRUE_MSG(test, back,
			      "%s: unsetcallout_sync() took over %llu s: livelock",
			      kind->desc, SYNC_BOUND_NS / NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sc->fn_cpu, x->there);
	KUNIT_EXPECT_EQ(test, sc->waiter_cpu, x->there);
	KUNIT_EXPECT_EQ_MSG(test, sc->ret, back && kind->rearm,
			    "%s: unsetcallout_sync()", kind->desc);
	KUNIT_EXPECT_EQ_MSG(test, sc->in_fn_then, 0,
			    "%s: unsetcallout_sync() returned while the function ran",
			    kind->desc);
	KUNIT_EXPECT_EQ_MSG(test, sc->returned_then, sc->entered_then,
			    "%s: runs begun and ended when unsetcallout_sync() returned",
			    kind->desc);
	KUNIT_EXPECT_FALSE_MSG(test, ktime_before(sc->back, sc->fn_end),
			       "%s: unsetcallout_sync() returned %lld ns before the function",
			       kind->desc,
			       ktime_to_ns(ktime_sub(sc->fn_end, sc->back)));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sc->late), 0,
			    "%s: runs began after unsetcallout_sync() returned",
			    kind->desc);
	kunit_info(test, "%s: function in %s, %d runs; unsetcallout_sync() %s it, waited %lld us\n",
		   kind->desc, sc->runner, sc->entered_then,
		   sc->overlapped ? "preempted" : "came after",
		   ktime_to_us(ktime_sub(sc->back, sc->called)));
	return sc;
}

/*
 * unsetcallout_sync() on the CPU where the function runs: it returns only
 * after the function has returned (every run begun has ended, and the
 * last ended before the call returned), 1 if the function had re-armed
 * itself meanwhile, else 0; it returns within SYNC_BOUND_NS, however the
 * function re-arms itself (no livelock); and nothing runs after.  A
 * SCHED_FIFO waiter must preempt the function; as the function may run in
 * a task it cannot preempt (an interrupt thread, see above), a try that
 * came after it is checked all the same, and tried again.  A
 * SCHED_NORMAL waiter often comes only after the function (which may run
 * at SCHED_FIFO, in rcuc), and then, the function re-arming itself, races
 * its next run: it is held to the rest.
 */
static void unsetcallout_sync_on_function_cpu_waits(struct kunit *test)
{
	const struct same_cpu_kind *kind = test->param_value;
	struct lock_ctx *x = same_cpu_ctx(test);
	struct same_cpu *sc;
	int tries = 0;

	do {
		sc = same_cpu_try(test, x, kind);
	} while (kind->fifo && !sc->overlapped && ++tries < SAME_CPU_TRIES);
	if (kind->fifo)
		KUNIT_EXPECT_TRUE_MSG(test, sc->overlapped,
				      "%s: in %d tries, the waiter never ran while the function ran on its CPU",
				      kind->desc, SAME_CPU_TRIES);
}

/*
 * With this CPU holding the spinlock_t, the expiry on the other CPU sleeps
 * for it (a PREEMPT_RT spinlock_t is a sleeping lock) in its softirq
 * thread.  unsetcallout_sync() on that CPU meanwhile cancels it and sleeps
 * until the expiry lets go of the lock: it is seen asleep while the lock
 * is held, returns 1 once it is released, within a bound, and the
 * function never runs; twheel counts a stop and no expiry there.
 */
static void unsetcallout_sync_on_expiry_cpu_cancels_waiting_expiry(struct kunit *test)
{
	static const struct same_cpu_kind kind = { true, false, false,
						   "spinlock_t" };
	struct lock_ctx *x = same_cpu_ctx(test);
	struct same_cpu *sc = same_cpu_setup(test, x, &kind);
	struct arming *a = alloc_armings(test, x, 1);
	bool waiting, asleep, back;
	ktime_t released;

	twheel_stats_read(x->there, &x->before);
	waiting = hold_until_waiting(test, x, a);
	/* The function cannot start: let the waiter go. */
	WRITE_ONCE(sc->go, true);
	wake_up_process(sc->waiter);
	asleep = poll_until(READ_ONCE(sc->in_sync) &&
			    !task_is_running(sc->waiter));
	/* Read before the release: nothing returns before this. */
	released = ktime_get();
	kind_unlock_bh(&x->lock);
	back = same_cpu_wait(test, sc, released);
	spin_ns(3 * twheel_tick_ns());
	twheel_stats_read(x->there, &x->after);
	same_cpu_teardown(sc);

	KUNIT_ASSERT_TRUE_MSG(test, waiting, "the tick did not come");
	KUNIT_EXPECT_TRUE_MSG(test, asleep,
			      "unsetcallout_sync() did not sleep for the expiry");
	KUNIT_EXPECT_TRUE_MSG(test, back,
			      "unsetcallout_sync() took over %llu s after the lock was released",
			      SYNC_BOUND_NS / NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sc->waiter_cpu, x->there);
	KUNIT_EXPECT_EQ_MSG(test, sc->ret, 1,
			    "unsetcallout_sync() of the expiry waiting for its lock");
	KUNIT_EXPECT_FALSE_MSG(test, ktime_before(sc->back, released),
			       "unsetcallout_sync() returned before the lock was released");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&a->runs), 0,
			    "the cancelled function ran");
	KUNIT_EXPECT_FALSE(test, callout_pending(&x->lc.c));
	KUNIT_EXPECT_FALSE(test, kind_lock_taken(&x->lock, true));
	KUNIT_EXPECT_EQ(test, x->after.stopped - x->before.stopped, 1);
	KUNIT_EXPECT_EQ(test, x->after.expired - x->before.expired, 0);
}

static struct kunit_case lock_cases[] = {
	KUNIT_CASE_PARAM(callout_init_lock_function_holds_lock,
			 lock_kind_gen_params),
	KUNIT_CASE_PARAM(unsetcallout_under_lock_waiting_expiry_cancels,
			 lock_kind_gen_params),
	KUNIT_CASE_PARAM(setcallout_under_lock_waiting_expiry_rearms,
			 lock_kind_gen_params),
	KUNIT_CASE_SLOW(unsetcallout_under_lock_races_tick),
	KUNIT_CASE_PARAM(unsetcallout_sync_on_function_cpu_waits,
			 same_cpu_kind_gen_params),
	KUNIT_CASE(unsetcallout_sync_on_expiry_cpu_cancels_waiting_expiry),
	{}
};

static struct kunit_suite lock_suite = {
	.name = "twheel_lock",
	.exit = lock_exit,
	.test_cases = lock_cases,
};

kunit_test_suite(lock_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's lock-associated callouts");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
