// SPDX-License-Identifier: GPL-2.0
/*
 * DEFINE_TIMER(), add_timer() after setting .expires, the fields a
 * timer's owner uses, a pointer to a timer set from the address of a
 * DEFINE_TIMER(), and sizeof.
 */
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/timer.h>

static void poll_fn(struct timer_list *t);
static DEFINE_TIMER(poll_timer, poll_fn);
static unsigned int polls;

static void poll_fn(struct timer_list *t)
{
	polls++;
	if (polls < 10) {
		t->expires += HZ / 10;
		add_timer(t);
	}
}

static void poll_start(struct timer_list *timer)
{
	timer->expires = jiffies + HZ / 10;
	add_timer(timer);
}

static int __init poll_init(void)
{
	pr_info("poll: a timer is %zu bytes\n", sizeof(struct timer_list));
	if (poll_timer.function != poll_fn)
		return -EINVAL;
	poll_start(&poll_timer);
	return 0;
}

static void __exit poll_exit(void)
{
	del_timer_sync(&poll_timer);
}

module_init(poll_init);
module_exit(poll_exit);
MODULE_LICENSE("GPL");
