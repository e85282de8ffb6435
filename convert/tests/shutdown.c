// SPDX-License-Identifier: GPL-2.0
/*
 * timer_shutdown(), which does not wait, and try_to_del_timer_sync(),
 * 6.1's and 6.12's name of timer_delete_sync_try(): their twins.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>

struct link {
	struct timer_list retry;
	unsigned int tries;
};

static void retry_fn(struct timer_list *t)
{
	struct link *l = from_timer(l, t, retry);

	if (++l->tries < 5)
		mod_timer(&l->retry, jiffies + HZ);
}

static struct link *link_new(void)
{
	struct link *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (l)
		timer_setup(&l->retry, retry_fn, 0);
	return l;
}

static bool link_stop(struct link *l)
{
	return try_to_del_timer_sync(&l->retry) >= 0;
}

static void link_release(struct link *l)
{
	timer_shutdown(&l->retry);
	kfree_rcu_mightsleep(l);
}

static struct link *the_link;

static int __init link_init(void)
{
	the_link = link_new();
	if (!the_link)
		return -ENOMEM;
	mod_timer(&the_link->retry, jiffies + HZ);
	return 0;
}

static void __exit link_exit(void)
{
	while (!link_stop(the_link))
		cpu_relax();
	link_release(the_link);
}

module_init(link_init);
module_exit(link_exit);
MODULE_LICENSE("GPL");
