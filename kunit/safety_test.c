// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_safety: what twheel does when a client breaks the
 * rules: bad handles, a handle freed while pending (debug objects), a
 * module that goes with callouts pending (twheel_forget_module(), on this
 * very module; sweep_test.c times the sweep), and that
 * unsetcallout_sync() sleeps rather than spins.
 *
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"

/* The callouts pending on every CPU. */
static u64 all_pending(void)
{
	struct twheel_cpu_stats st;
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu) {
		twheel_stats_read(cpu, &st);
		sum += st.outstanding;
	}
	return sum;
}

/*
 * A NULL or never-initialised handle is not pending, and the calls that
 * take a handle refuse it with nothing changed.
 */
static void callout_pending_rejects_stray_handles(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_FALSE(test, callout_pending(NULL));
	/* Zero-filled: the slot is 0, a real slot number. */
	KUNIT_EXPECT_FALSE(test, callout_pending(c));
	KUNIT_EXPECT_EQ(test, setcallout(c, count_fn, NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout(c), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(c), -EINVAL);
	KUNIT_EXPECT_FALSE(test, callout_pending(c));
}

/*
 * callout_init() of a pending handle leaves it pending and still
 * cancellable; of stray memory that merely looks like a pending handle,
 * it initialises it, whether the stray links point nowhere (poisoned) or
 * at memory that does not point back.
 */
static void callout_init_pending_changes_nothing(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct callout *stray = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	callout_init(c);
	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, FAR_TICKS), 0);
	callout_init(c);
	KUNIT_EXPECT_TRUE(test, callout_pending(c));
	KUNIT_EXPECT_EQ(test, unsetcallout(c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(c));

	/* A copy of an initialised handle, then poisoned links and slot. */
	callout_init(stray);
	stray->entry.node.next = (void *)0xdead000000000100UL;
	stray->entry.node.prev = (void *)0xdead000000000122UL;
	stray->entry.slot = 3;
	KUNIT_EXPECT_TRUE(test, callout_pending(stray));
	callout_init(stray);
	KUNIT_EXPECT_FALSE(test, callout_pending(stray));
	KUNIT_EXPECT_EQ(test, setcallout(stray, count_fn, fired, 1), 0);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(fired) == 1));
	KUNIT_EXPECT_FALSE(test, callout_pending(stray));

	/* Links to live memory that does not link back: c, now idle. */
	stray->entry.node.next = &c->entry.node;
	stray->entry.node.prev = &c->entry.node;
	stray->entry.slot = 3;
	callout_init(stray);
	KUNIT_EXPECT_FALSE(test, callout_pending(stray));
	KUNIT_EXPECT_EQ(test, setcallout(stray, count_fn, fired, 1), 0);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(fired) == 2));
}

/*
 * Freeing the memory of a pending handle is reported by debug objects,
 * naming the handle's function, and the handle is cancelled before the
 * memory goes: it never runs (KASAN would see its expiry touch freed
 * memory).
 */
static void kfree_pending_callout_is_caught(struct kunit *test)
{
	/* Far enough that it cannot run while the report is printed. */
	unsigned long ticks = twheel_ns_to_ticks(NSEC_PER_SEC);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	struct callout *c;
	u64 pending;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) ||
	    !IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE))
		kunit_skip(test, "needs CONFIG_DEBUG_OBJECTS_TIMERS and _FREE");
	KUNIT_ASSERT_NOT_NULL(test, fired);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	callout_init(c);
	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, ticks), 0);
	pending = all_pending();
	/* scripts/ktap.py accepts the report this window announces. */
	pr_info("twheel-expect: begin ODEBUG: free active .*object type: callout hint: count_fn\n");
	kfree(c);
	pr_info("twheel-expect: end\n");
	KUNIT_EXPECT_EQ_MSG(test, all_pending(), pending - 1,
			    "the freed handle is still pending");
	spin_ns((ticks + 10) * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(fired), 0);
}

static struct callout module_data_callout;
static struct callout module_periodic;
static atomic_t periodic_runs;

static void periodic_fn(void *arg)
{
	atomic_inc(&periodic_runs);
	setcallout(&module_periodic, periodic_fn, arg, 0);
}

struct remote_arm {
	struct callout *c;
	callout_func_t func;
	void *arg;
	unsigned long ticks;
	int ret;
};

static void remote_arm_fn(void *info)
{
	struct remote_arm *r = info;

	r->ret = setcallout(r->c, r->func, r->arg, r->ticks);
}

/*
 * Arm @c on @cpu from an IPI there: the caller stays where it is, and is
 * not held up on @cpu should the function start at once.
 */
static int setcallout_from(unsigned int cpu, struct callout *c,
			   callout_func_t func, void *arg, unsigned long ticks)
{
	struct remote_arm r = { .c = c, .func = func, .arg = arg,
				.ticks = ticks };
	int err = smp_call_function_single(cpu, remote_arm_fn, &r, 1);

	return err ?: r.ret;
}

/*
 * twheel_forget_module() of this module cancels every pending callout
 * whose function or handle lies in it, timeout()'s included, waits for a
 * running one, and leaves other callouts alone.
 */
static void forget_module_cancels_its_callouts(struct kunit *test)
{
	struct callout *heap = kunit_kcalloc(test, 3, sizeof(*heap),
					     GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	unsigned long soon = twheel_ns_to_ticks(300 * NSEC_PER_MSEC);
	unsigned int other = cpumask_any_but(cpu_online_mask,
					     raw_smp_processor_id());
	int runs;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, heap);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	/* Running again and again, on the other CPU if there is one. */
	callout_init(&module_periodic);
	atomic_set(&periodic_runs, 0);
	KUNIT_ASSERT_EQ(test, setcallout_from(other < nr_cpu_ids ? other :
					    raw_smp_processor_id(),
					    &module_periodic, periodic_fn,
					    NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&periodic_runs) > 3));
	/* Handle here, function elsewhere: kfree_link(NULL) does nothing. */
	callout_init(&module_data_callout);
	KUNIT_ASSERT_EQ(test, setcallout(&module_data_callout, kfree_link,
					 NULL, soon), 0);
	/* Handle elsewhere, function here: soon and far. */
	callout_init(&heap[0]);
	callout_init(&heap[1]);
	KUNIT_ASSERT_EQ(test, setcallout(&heap[0], count_fn, fired, soon), 0);
	KUNIT_ASSERT_EQ(test, setcallout(&heap[1], count_fn, fired,
					 FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, fired, soon), 0);
	/* Neither here: must stay. */
	callout_init(&heap[2]);
	KUNIT_ASSERT_EQ(test, setcallout(&heap[2], kfree_link, NULL,
					 FAR_TICKS), 0);

	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, twheel_forget_module(THIS_MODULE), 5);
	runs = atomic_read(&periodic_runs);
	kunit_info(test, "twheel_forget_module() took %llu us\n",
		   (ktime_get_ns() - t0) / NSEC_PER_USEC);
	KUNIT_EXPECT_FALSE(test, callout_pending(&module_data_callout));
	KUNIT_EXPECT_FALSE(test, callout_pending(&heap[0]));
	KUNIT_EXPECT_FALSE(test, callout_pending(&heap[1]));
	KUNIT_EXPECT_FALSE(test, callout_pending(&module_periodic));
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, fired), 0);
	KUNIT_EXPECT_TRUE(test, callout_pending(&heap[2]));
	spin_ns(2 * soon * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(fired), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&periodic_runs), runs);
	KUNIT_EXPECT_EQ(test, unsetcallout(&heap[2]), 1);
	/* Nothing of this module is left. */
	KUNIT_EXPECT_EQ(test, twheel_forget_module(THIS_MODULE), 0);
}

struct sync_waiter {
	struct callout c;
	struct task_struct *waiter;
	bool started;
	bool in_sync;
	bool release;
	bool saw_sleep;
	u64 cap_ns;
};

/* Runs until released, or for cap_ns if never released. */
static void hold_fn(void *arg)
{
	struct sync_waiter *w = arg;
	u64 end = ktime_get_ns() + w->cap_ns;

	WRITE_ONCE(w->started, true);
	while (!READ_ONCE(w->release) && ktime_get_ns() < end)
		cpu_relax();
}

/* Release hold_fn() once the waiter is seen asleep inside the sync call. */
static int releaser_fn(void *arg)
{
	struct sync_waiter *w = arg;

	while (!kthread_should_stop()) {
		if (READ_ONCE(w->in_sync) && !READ_ONCE(w->release) &&
		    !task_is_running(w->waiter)) {
			WRITE_ONCE(w->saw_sleep, true);
			WRITE_ONCE(w->release, true);
		}
		cond_resched();
	}
	return 0;
}

/*
 * unsetcallout_sync() sleeps while the function runs on another CPU: a
 * task sharing the waiter's CPU sees it asleep, and only then lets the
 * function return.  A waiter that spun would never be seen asleep, and
 * the function would end at its cap instead.
 */
static void unsetcallout_sync_sleeps_while_function_runs(struct kunit *test)
{
	struct sync_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned int here, other;
	struct task_struct *rel;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, w);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	here = cpumask_first(cpu_online_mask);
	other = cpumask_next(here, cpu_online_mask);
	w->waiter = current;
	w->cap_ns = 2 * NSEC_PER_SEC;
	callout_init(&w->c);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current,
						   cpumask_of(here)), 0);
	/* Before hold_fn() holds the other CPU, where kthreadd may be. */
	rel = kthread_run_on_cpu(releaser_fn, w, here, "twheel-rel/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(rel));
	if (setcallout_from(other, &w->c, hold_fn, w, 0) ||
	    !poll_until(READ_ONCE(w->started))) {
		WRITE_ONCE(w->release, true);
		unsetcallout_sync(&w->c);
		kthread_stop(rel);
		KUNIT_FAIL(test, "no waiter on CPU %u beside hold_fn() on %u",
			   here, other);
		return;
	}
	WRITE_ONCE(w->in_sync, true);
	ret = unsetcallout_sync(&w->c);
	WRITE_ONCE(w->in_sync, false);
	kthread_stop(rel);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(w->saw_sleep),
			      "the waiter spun until the function's cap");
	KUNIT_EXPECT_FALSE(test, callout_pending(&w->c));
}

static struct kunit_case twheel_safety_cases[] = {
	KUNIT_CASE(callout_pending_rejects_stray_handles),
	KUNIT_CASE(callout_init_pending_changes_nothing),
	KUNIT_CASE(kfree_pending_callout_is_caught),
	KUNIT_CASE(forget_module_cancels_its_callouts),
	KUNIT_CASE(unsetcallout_sync_sleeps_while_function_runs),
	{}
};

static struct kunit_suite twheel_safety_suite = {
	.name = "twheel_safety",
	.test_cases = twheel_safety_cases,
};

kunit_test_suite(twheel_safety_suite);

MODULE_DESCRIPTION("KUnit tests of what twheel does when a client breaks its rules");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
