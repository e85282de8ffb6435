// SPDX-License-Identifier: GPL-2.0
/*
 * Refused: timers in structs defined in other files, the driver's own
 * header (struct foo_dev, in foo.h) and the kernel's (struct net_device):
 * converting them is those files' business, and this file alone cannot
 * do it.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/timer.h>
#include "foo.h"

static void foo_poll(struct timer_list *t)
{
	struct foo_dev *fd = from_timer(fd, t, poll);

	foo_read_status(fd);
	mod_timer(&fd->poll, jiffies + HZ);
}

void foo_start(struct foo_dev *fd)
{
	timer_setup(&fd->poll, foo_poll, 0);
	mod_timer(&fd->poll, jiffies + HZ);
}

void foo_stop(struct foo_dev *fd)
{
	del_timer_sync(&fd->poll);
}

void foo_watchdog_kick(struct net_device *dev)
{
	mod_timer(&dev->watchdog_timer, jiffies + dev->watchdog_timeo);
}
