// SPDX-License-Identifier: GPL-2.0
/*
 * Refused: pointers to a timer in a struct defined in another file (struct
 * foo_dev, in foo.h), set from &fd->watchdog, from a call's result, as a
 * parameter and as a return value.  Retyped to struct twheel_timer *, each
 * would point at what stays a struct timer_list.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>
#include "foo.h"

struct foo_watch {
	struct timer_list *timer;
	unsigned long period;
};

static struct foo_watch foo_watch;

static void foo_kick(struct timer_list *t, unsigned long period)
{
	mod_timer(t, jiffies + period);
}

static struct timer_list *foo_watchdog(struct foo_dev *fd)
{
	return &fd->watchdog;
}

static void foo_watch_start(struct foo_dev *fd)
{
	foo_watch.timer = &fd->watchdog;
	foo_watch.period = HZ;
	foo_kick(&fd->watchdog, foo_watch.period);
}

static void foo_watch_stop(struct foo_dev *fd)
{
	struct timer_list *t = &fd->watchdog;

	del_timer_sync(t);
	t = foo_dev_timer(fd);
	del_timer_sync(t);
}
