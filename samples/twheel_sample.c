// SPDX-License-Identifier: GPL-2.0
/*
 * A twheel client: a periodic callout on a handle of its own, and one-shot
 * BSD timeouts, one of which it cancels.  Build it against twheel's
 * Module.symvers (see Makefile), load it after twheel.ko.
 */

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>

#include "twheel.h"

static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "period of the periodic callout (default 100)");

static struct sample {
	struct callout tick;	/* caller-owned handle */
	unsigned long period;	/* in twheel ticks */
	atomic_t runs;
} sample;

/* Runs in softirq context on the CPU that armed it: no sleeping. */
static void sample_tick(void *arg)
{
	struct sample *s = arg;

	atomic_inc(&s->runs);
	setcallout(&s->tick, sample_tick, s, s->period);	/* re-arm */
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

	sample.period = twheel_ns_to_ticks((u64)period_ms * NSEC_PER_MSEC);
	callout_init(&sample.tick);
	ret = setcallout(&sample.tick, sample_tick, &sample, sample.period);
	if (ret < 0)
		return ret;

	/* The BSD interface: no handle; untimeout() finds it by (func, arg). */
	ret = timeout(sample_once, &kept, twheel_ns_to_ticks(NSEC_PER_MSEC));
	if (!ret)
		ret = timeout(sample_once, &cancelled, 1000);
	if (ret) {
		unsetcallout_sync(&sample.tick);
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
	/* Process context: wait for a running sample_tick() to return. */
	unsetcallout_sync(&sample.tick);
	/* Cancel the timeout if pending; if it is running, let it return. */
	untimeout(sample_once, &kept);
	synchronize_rcu();
	pr_info("twheel_sample: the periodic callout ran %d times\n",
		atomic_read(&sample.runs));
}
module_exit(sample_exit);

MODULE_DESCRIPTION("A twheel client: setcallout() and timeout()");
MODULE_LICENSE("GPL");
