// SPDX-License-Identifier: GPL-2.0
/*
 * A twheel client written as timer_list code is: a software watchdog
 * whose pet timer re-arms itself every period from its last expiry, a
 * deferrable timer that reports now and then, and a timer defined at
 * file scope.  Each call is timer_list's with twheel's prefix
 * (twheel_timer.h), which is what scripts/twheel.cocci makes of a
 * timer_list module.  The "timeout" parameter is a name twheel.h's BSD
 * timeout() would take; twheel_timer.h leaves it free.  Build it against
 * twheel's Module.symvers (see Makefile), load it after twheel.ko.
 */

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include <twheel_timer.h>

static unsigned int timeout = 2;
module_param(timeout, uint, 0444);
MODULE_PARM_DESC(timeout, "watchdog timeout in seconds (default 2)");

static unsigned int pet_ms = 100;
module_param(pet_ms, uint, 0444);
MODULE_PARM_DESC(pet_ms, "period of the pet timer in ms (default 100)");

struct watchdog {
	struct twheel_timer pet;	/* re-arms itself every pet_ms */
	struct twheel_timer bark;	/* runs if the pets stop */
	struct twheel_timer report;	/* deferrable: may run a little late */
	unsigned long period;		/* pet_ms in jiffies */
	unsigned int pets;
};

static struct watchdog *dog;

static void watchdog_pet(struct twheel_timer *t)
{
	struct watchdog *w = twheel_from_timer(w, t, pet);

	w->pets++;
	/* Push the bark back; timer_list's idiom for a watchdog. */
	twheel_mod_timer(&w->bark, jiffies + timeout * HZ);
	/* From the last expiry, not from now: lateness does not add up. */
	twheel_mod_timer(&w->pet, w->pet.expires + w->period);
}

static void watchdog_bark(struct twheel_timer *t)
{
	pr_warn("twheel_timer_sample: no pet for %u s\n", timeout);
}

static void watchdog_report(struct twheel_timer *t)
{
	struct watchdog *w = twheel_from_timer(w, t, report);

	pr_info("twheel_timer_sample: %u pets\n", w->pets);
	twheel_mod_timer(&w->report, jiffies + HZ);
}

/* A timer defined at file scope needs no setup. */
static void sample_hello(struct twheel_timer *t)
{
	pr_info("twheel_timer_sample: loaded %u ms ago\n",
		jiffies_to_msecs(jiffies - (t->expires - HZ / 10)));
}

static DEFINE_TWHEEL_TIMER(hello, sample_hello);

static int __init sample_init(void)
{
	dog = kzalloc(sizeof(*dog), GFP_KERNEL);
	if (!dog)
		return -ENOMEM;
	dog->period = max(msecs_to_jiffies(pet_ms), 1UL);
	twheel_timer_setup(&dog->pet, watchdog_pet, 0);
	twheel_timer_setup(&dog->bark, watchdog_bark, 0);
	twheel_timer_setup(&dog->report, watchdog_report, TIMER_DEFERRABLE);
	twheel_mod_timer(&dog->bark, jiffies + timeout * HZ);
	twheel_mod_timer(&dog->pet, jiffies + dog->period);
	twheel_mod_timer(&dog->report, jiffies + HZ);
	hello.expires = jiffies + HZ / 10;
	twheel_add_timer(&hello);
	return 0;
}
module_init(sample_init);

static void __exit sample_exit(void)
{
	/*
	 * The pet and the report re-arm themselves: shut them down, which
	 * waits for a run and makes its re-arming a no-op.  Then nothing
	 * arms the bark any more.
	 */
	twheel_timer_shutdown_sync(&dog->pet);
	twheel_timer_shutdown_sync(&dog->report);
	twheel_timer_delete_sync(&dog->bark);
	twheel_timer_delete_sync(&hello);
	pr_info("twheel_timer_sample: %u pets in all\n", dog->pets);
	kfree(dog);
}
module_exit(sample_exit);

MODULE_DESCRIPTION("A twheel client written against the timer_list layer");
MODULE_LICENSE("GPL");
