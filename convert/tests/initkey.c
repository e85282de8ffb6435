// SPDX-License-Identifier: GPL-2.0
/*
 * Refused: timer_init_key(), 7.2's name of what timer_setup() wraps
 * (init_timer_key() before): twheel_timer.h has no counterpart.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>

static struct timer_list beat;
static struct lock_class_key beat_key;

static void beat_fn(struct timer_list *t)
{
	mod_timer(t, jiffies + HZ);
}

static int __init beat_init(void)
{
	timer_init_key(&beat, beat_fn, 0, "beat", &beat_key);
	mod_timer(&beat, jiffies + HZ);
	return 0;
}

static void __exit beat_exit(void)
{
	timer_shutdown_sync(&beat);
}

module_init(beat_init);
module_exit(beat_exit);
MODULE_LICENSE("GPL");
