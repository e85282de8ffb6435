// SPDX-License-Identifier: GPL-2.0
/*
 * The 6.12 and later names: timer_delete(), timer_delete_sync(),
 * timer_shutdown_sync(), timer_container_of(); the old ones beside
 * them, del_timer() and del_singleshot_timer_sync(); and container_of(),
 * which stays.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>

struct watchdog {
	struct timer_list kick;
	struct timer_list bark;
	unsigned long kicks;
};

static struct watchdog dog;

static void kick_fn(struct timer_list *t)
{
	struct watchdog *w = timer_container_of(w, t, kick);

	w->kicks++;
	if (timer_delete(&w->bark))
		mod_timer(&w->bark, jiffies + HZ);
}

static void bark_fn(struct timer_list *t)
{
	struct watchdog *w = container_of(t, struct watchdog, bark);

	pr_warn("watchdog: no kick for a second, %lu before\n", w->kicks);
}

static int __init watchdog_init(void)
{
	timer_setup(&dog.kick, kick_fn, 0);
	timer_setup(&dog.bark, bark_fn, 0);
	mod_timer(&dog.bark, jiffies + HZ);
	return 0;
}

static void __exit watchdog_exit(void)
{
	del_timer(&dog.kick);
	del_singleshot_timer_sync(&dog.kick);
	timer_delete_sync(&dog.kick);
	timer_shutdown_sync(&dog.bark);
}

module_init(watchdog_init);
module_exit(watchdog_exit);
MODULE_LICENSE("GPL");
