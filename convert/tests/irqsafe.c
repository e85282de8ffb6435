// SPDX-License-Identifier: GPL-2.0
/*
 * Refused: TIMER_IRQSAFE, which twheel_timer does not have.  The rest of
 * the file would convert, but it stays on timer_list with the one that
 * cannot.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct poller {
	struct timer_list timer;
	spinlock_t lock;		/* taken by poll_fn() with irqs off */
	unsigned long polls;
};

static struct poller poller;

static void poll_fn(struct timer_list *t)
{
	struct poller *p = from_timer(p, t, timer);

	spin_lock(&p->lock);
	p->polls++;
	spin_unlock(&p->lock);
	mod_timer(t, jiffies + 1);
}

static int __init poller_init(void)
{
	spin_lock_init(&poller.lock);
	timer_setup(&poller.timer, poll_fn, TIMER_IRQSAFE);
	mod_timer(&poller.timer, jiffies + 1);
	return 0;
}

static void __exit poller_exit(void)
{
	unsigned long flags;

	local_irq_save(flags);
	del_timer_sync(&poller.timer);
	local_irq_restore(flags);
}

module_init(poller_init);
module_exit(poller_exit);
MODULE_LICENSE("GPL");
