// SPDX-License-Identifier: GPL-2.0
/*
 * A plain module on the 6.1 names: timer_setup(), mod_timer(),
 * del_timer_sync(), from_timer(); a call whose arguments run on to the
 * next line, and <linux/timer.h> not the last of the includes.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/types.h>

struct blinker {
	struct timer_list timer;
	unsigned int period_ms;
	bool on;
};

static struct blinker *blinker;

static void blinker_fn(struct timer_list *t)
{
	struct blinker *b = from_timer(b, t, timer);

	b->on = !b->on;
	mod_timer(&b->timer,
		  jiffies + msecs_to_jiffies(b->period_ms));
}

static int __init blinker_init(void)
{
	blinker = kzalloc(sizeof(*blinker), GFP_KERNEL);
	if (!blinker)
		return -ENOMEM;
	blinker->period_ms = 100;
	timer_setup(&blinker->timer, blinker_fn, 0);
	mod_timer(&blinker->timer, jiffies + 1);
	return 0;
}

static void __exit blinker_exit(void)
{
	del_timer_sync(&blinker->timer);
	kfree(blinker);
}

module_init(blinker_init);
module_exit(blinker_exit);
MODULE_LICENSE("GPL");
