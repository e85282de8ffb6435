// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug_test.c - suite twheel_hotplug: what a client sees of its handles
 * while the CPU they are on goes down and up.
 *
 * Written, as the suites twheel_client_* are, from docs/api.md and
 * <twheel.h> alone.  Its case needs three online CPUs: the case thread
 * takes CPU b down and up from CPU a, while a thread on CPU c works on the
 * handles that CPU b had, so that twheel's hand-over of b's callouts
 * (under b's lock) meets a caller on a CPU of its own.  With fewer CPUs
 * the case is skipped.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/processor.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include <twheel.h>
#include "../../twheel_compat.h"	/* kernels' differences only */

#define NHANDLES	4096	/* pending on CPU b each time it goes */
#define NCYCLES		50	/* times CPU b goes down and up */
#define FAR_NS		(3600ULL * NSEC_PER_SEC)	/* never reached */

/*
 * The case's state.  @go: 1 while the thread on CPU c calls
 * callout_init_lock(), 0 while it must pause; @paused: it has seen 0 and
 * makes no call.  The thread alone writes the counts until it is stopped.
 */
struct init_race {
	struct callout_locked *lc;
	spinlock_t lock;	/* the handles' lock; their function never runs */
	int cpu[3];		/* a: the case; b: goes down; c: the thread */
	struct task_struct *thread;
	atomic_t go;
	atomic_t paused;
	unsigned long calls;
	unsigned long wrong;	/* calls that did not return -EBUSY */
	int first_ret;		/* of the first of them */
	int first_i;
	int armed_ret[2];	/* setcallout() returns seen, 0 and 1 */
	int armed_bad;
};

static void never_fn(void *arg)
{
}

/* Call callout_init_lock() on every pending handle, round and round. */
static int init_race_thread(void *data)
{
	struct init_race *r = data;
	int i = 0, ret;

	while (!kthread_should_stop()) {
		if (!atomic_read_acquire(&r->go)) {
			atomic_set_release(&r->paused, 1);
			cond_resched();
			continue;
		}
		ret = callout_init_lock(&r->lc[i], &r->lock, 0);
		r->calls++;
		if (ret != -EBUSY && !r->wrong++) {
			r->first_ret = ret;
			r->first_i = i;
		}
		i = (i + 1) % NHANDLES;
		if (!i)
			cond_resched();
	}
	return 0;
}

/* Arm every handle on the CPU this IPI runs on, moving it there. */
static void arm_all_here(void *data)
{
	struct init_race *r = data;
	unsigned long far = twheel_ns_to_ticks(FAR_NS);
	int i, ret;

	for (i = 0; i < NHANDLES; i++) {
		ret = setcallout(&r->lc[i].c, never_fn, NULL, far);
		if (ret == 0 || ret == 1)
			r->armed_ret[ret]++;
		else
			r->armed_bad++;
	}
}

/* Stop the thread's calls, and wait until it makes none. */
static void init_race_pause(struct init_race *r)
{
	atomic_set(&r->go, 0);
	while (!atomic_read_acquire(&r->paused))
		cpu_relax();
}

static void init_race_resume(struct init_race *r)
{
	atomic_set(&r->paused, 0);
	atomic_set_release(&r->go, 1);
}

/*
 * callout_init_lock() on handles pending on CPU b, from CPU c, while CPU b
 * goes down and up 50 times: every call returns -EBUSY and changes
 * nothing, whether the handle is still on CPU b, being handed over, or on
 * CPU a, where CPU b's callouts go; afterwards each handle is pending and
 * unsetcallout() cancels it.  Before each cycle the handles are armed on
 * CPU b again (with the calls paused: arming must not race with
 * callout_init_lock()).
 */
static void callout_init_lock_pending_races_cpu_down(struct kunit *test)
{
	struct init_race *r = test->priv;
	int i, cycle, pending = 0, cancelled = 0;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs CONFIG_HOTPLUG_CPU");
	if (r->cpu[2] >= nr_cpu_ids)
		kunit_skip(test, "needs three online CPUs");
	r->lc = kunit_kcalloc(test, NHANDLES, sizeof(*r->lc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->lc);
	for (i = 0; i < NHANDLES; i++)
		KUNIT_ASSERT_EQ(test, callout_init_lock(&r->lc[i], &r->lock, 0),
				0);
	r->thread = kthread_run_on_cpu(init_race_thread, r, r->cpu[2],
				       "twheel_init/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->thread));

	for (cycle = 0; cycle < NCYCLES; cycle++) {
		init_race_pause(r);
		KUNIT_ASSERT_EQ(test, smp_call_function_single(r->cpu[1],
							       arm_all_here,
							       r, 1), 0);
		init_race_resume(r);
		KUNIT_ASSERT_EQ_MSG(test, remove_cpu(r->cpu[1]), 0,
				    "remove_cpu(%d), cycle %d", r->cpu[1],
				    cycle);
		KUNIT_ASSERT_EQ_MSG(test, add_cpu(r->cpu[1]), 0,
				    "add_cpu(%d), cycle %d", r->cpu[1], cycle);
	}
	kthread_stop(r->thread);
	r->thread = NULL;

	for (i = 0; i < NHANDLES; i++) {
		pending += callout_pending(&r->lc[i].c);
		cancelled += unsetcallout(&r->lc[i].c) == 1;
	}
	kunit_info(test, "%lu calls of callout_init_lock() from CPU %d while CPU %d went down and up %d times\n",
		   r->calls, r->cpu[2], r->cpu[1], NCYCLES);
	KUNIT_EXPECT_EQ_MSG(test, r->wrong, 0,
			    "calls that did not return -EBUSY; the first returned %d for handle %d",
			    r->first_ret, r->first_i);
	KUNIT_EXPECT_GT(test, r->calls, 0);
	KUNIT_EXPECT_EQ(test, r->armed_bad, 0);
	KUNIT_EXPECT_EQ(test, r->armed_ret[0], NHANDLES);
	KUNIT_EXPECT_EQ(test, r->armed_ret[1], (NCYCLES - 1) * NHANDLES);
	KUNIT_EXPECT_EQ(test, pending, NHANDLES);
	KUNIT_EXPECT_EQ(test, cancelled, NHANDLES);
}

static int hotplug_init(struct kunit *test)
{
	struct init_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	spin_lock_init(&r->lock);
	r->cpu[0] = cpumask_first(cpu_online_mask);
	r->cpu[1] = cpumask_next(r->cpu[0], cpu_online_mask);
	r->cpu[2] = r->cpu[1] < nr_cpu_ids ?
		    cpumask_next(r->cpu[1], cpu_online_mask) : nr_cpu_ids;
	test->priv = r;
	return set_cpus_allowed_ptr(current, cpumask_of(r->cpu[0]));
}

/* What an aborted case left: the thread, CPU b offline, pending handles. */
static void hotplug_exit(struct kunit *test)
{
	struct init_race *r = test->priv;
	int i;

	if (!r)
		return;
	if (r->thread)
		kthread_stop(r->thread);
	if (r->cpu[1] < nr_cpu_ids && !cpu_online(r->cpu[1]))
		add_cpu(r->cpu[1]);
	for (i = 0; r->lc && i < NHANDLES; i++)
		unsetcallout_sync(&r->lc[i].c);
}

static struct kunit_case hotplug_cases[] = {
	KUNIT_CASE_SLOW(callout_init_lock_pending_races_cpu_down),
	{}
};

static struct kunit_suite hotplug_suite = {
	.name = "twheel_hotplug",
	.init = hotplug_init,
	.exit = hotplug_exit,
	.test_cases = hotplug_cases,
};

kunit_test_suite(hotplug_suite);

MODULE_DESCRIPTION("KUnit: twheel's handles while their CPU goes down and up");
MODULE_LICENSE("GPL");
