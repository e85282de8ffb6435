// SPDX-License-Identifier: GPL-2.0
/*
 * A twheel client: a periodic callout whose function runs under the
 * client's spinlock (a lock-associated callout) and re-arms itself from
 * its last deadline, without drift, and one-shot BSD timeouts, one of
 * which it cancels.  Build it against twheel's
 * Module.symvers (see Makefile), load it after twheel.ko.
 */

#include <linux/module.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

#include "twheel.h"

static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "period of the periodic callout (default 100)");

/*
 * twheel takes @lock around sample_tick(), in softirq context: elsewhere
 * it is taken with spin_lock_bh().
 */
static struct sample {
	spinlock_t lock;		/* @tick's lock; guards @runs */
	struct callout_locked tick;	/* caller-owned handle */
	u64 period;			/* in ns */
	unsigned int runs;		/* locked by @lock */
	unsigned int missed;		/* periods skipped; locked by @lock */
} sample = {
	.lock = __SPIN_LOCK_UNLOCKED(sample.lock),
};

/* Runs in softirq context on the CPU that armed it, @s->lock held. */
static void sample_tick(void *arg)
{
	struct sample *s = arg;
	s64 periods;

	lockdep_assert_held(&s->lock);
	s->runs++;
	/* Re-arm for the last deadline + period: lateness does not add up. */
	periods = callout_forward(&s->tick.c, s->period, 0);
	if (periods > 1)
		s->missed += periods - 1;
}

/* untimeout() matches (func, arg) as pointers: one object per timeout. */
static struct sample_note {
	const char *name;
} kept = { "kept" }, cancelled = { "cancelled" };

static void sample_once(void *arg)
{
	struct sample_note *note = arg;

	pr_info("twheel_sample: timeout \"%s\" ran\n", note->name);
}

static int __init sample_init(void)
{
	int ret;

	sample.period = (u64)period_ms * NSEC_PER_MSEC;
	ret = callout_init_lock(&sample.tick, &sample.lock, 0);
	if (ret)
		return ret;
	ret = setcallout_ns(&sample.tick.c, sample_tick, &sample,
			    sample.period);
	if (ret < 0)
		return ret;

	/* The BSD interface: no handle; untimeout() finds it by (func, arg). */
	ret = timeout(sample_once, &kept, twheel_ns_to_ticks(NSEC_PER_MSEC));
	if (!ret)
		ret = timeout(sample_once, &cancelled, 1000);
	if (ret) {
		unsetcallout_sync(&sample.tick.c);
		untimeout(sample_once, &kept);
		return ret;
	}
	pr_info("twheel_sample: untimeout() returned %d\n",
		untimeout(sample_once, &cancelled));
	return 0;
}
module_init(sample_init);

static void __exit sample_exit(void)
{
	unsigned int runs, missed;
	int stopped;

	/*
	 * Under the callout's lock, a cancel is final: sample_tick() is not
	 * running (it would hold the lock), and whatever arming it left
	 * will not run, even one whose tick has come and that waits for the
	 * lock on another CPU.  No "stopping" flag is needed.
	 */
	spin_lock_bh(&sample.lock);
	stopped = unsetcallout(&sample.tick.c);
	runs = sample.runs;
	missed = sample.missed;
	spin_unlock_bh(&sample.lock);
	/*
	 * Without the lock (with it, this would be refused): wait for such a
	 * cancelled expiry to let go of the lock before the module goes.
	 */
	unsetcallout_sync(&sample.tick.c);
	/* Cancel the timeout if pending; if it is running, let it return. */
	untimeout(sample_once, &kept);
	synchronize_rcu();
	pr_info("twheel_sample: the periodic callout ran %u times, skipped %u periods; unsetcallout() returned %d\n",
		runs, missed, stopped);
}
module_exit(sample_exit);

MODULE_DESCRIPTION("A twheel client: a lock-associated callout and timeout()");
MODULE_LICENSE("GPL");
