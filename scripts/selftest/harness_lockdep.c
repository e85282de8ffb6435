// SPDX-License-Identifier: GPL-2.0
/*
 * A twheel client that waits for its callout while holding a lock the
 * callout takes.  unsetcallout_sync() refuses (the caller is atomic), and
 * lockdep, taught by it, must report the circular dependency: the run must
 * fail.
 */

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/spinlock.h>

#include "twheel.h"

static DEFINE_SPINLOCK(harness_lock);
static struct callout harness_callout;
static atomic_t harness_ran;

static void harness_fn(void *arg)
{
	spin_lock(&harness_lock);
	atomic_set(&harness_ran, 1);
	spin_unlock(&harness_lock);
}

static int __init harness_lockdep_init(void)
{
	ktime_t end = ktime_add_ms(ktime_get(), 10000);
	int ret;

	callout_init(&harness_callout);
	setcallout(&harness_callout, harness_fn, NULL, 0);
	while (!atomic_read(&harness_ran) && ktime_before(ktime_get(), end))
		cpu_relax();

	spin_lock_bh(&harness_lock);
	ret = unsetcallout_sync(&harness_callout);
	spin_unlock_bh(&harness_lock);
	pr_info("harness_lockdep: unsetcallout_sync() returned %d\n", ret);
	return 0;
}
module_init(harness_lockdep_init);

static void __exit harness_lockdep_exit(void)
{
	unsetcallout_sync(&harness_callout);
}
module_exit(harness_lockdep_exit);

MODULE_DESCRIPTION("twheel harness self-test: lockdep learns what a callout takes");
MODULE_LICENSE("GPL");
