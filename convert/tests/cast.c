// SPDX-License-Identifier: GPL-2.0
/*
 * Refused: casts to struct timer_list *, of a void * and of a member of
 * a struct defined in another file (struct foo_dev, in foo.h).  Retyped to
 * struct twheel_timer *, a cast compiles whatever is behind it, a struct
 * timer_list of another file too.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>
#include "foo.h"

struct foo_poll {
	struct timer_list timer;
	unsigned long period;
};

static struct foo_poll foo_poll;

static void foo_poll_fn(struct timer_list *t)
{
	struct foo_poll *fp = from_timer(fp, t, timer);

	mod_timer(&fp->timer, jiffies + fp->period);
}

static void foo_poll_start(void *arg)
{
	struct timer_list *timer = (struct timer_list *)arg;

	timer->expires = jiffies + foo_poll.period;
	add_timer(timer);
}

static void foo_stop(struct foo_dev *fd)
{
	del_timer_sync((struct timer_list *)&fd->watchdog);
	del_timer_sync(&foo_poll.timer);
}

static int __init foo_poll_init(void)
{
	foo_poll.period = HZ;
	timer_setup(&foo_poll.timer, foo_poll_fn, 0);
	foo_poll_start(&foo_poll.timer);
	return 0;
}

module_init(foo_poll_init);
MODULE_LICENSE("GPL");
