// SPDX-License-Identifier: GPL-2.0
/*
 * mod_timer_pending(), timer_reduce(), add_timer_on(), timer_pending()
 * on a const timer, TIMER_PINNED | TIMER_DEFERRABLE, and an array of
 * timers.
 */
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>

struct sampler {
	struct timer_list slot[2];
	unsigned long hits;
};

static struct sampler sampler;

static bool slot_armed(const struct timer_list *t)
{
	return timer_pending(t);
}

static void fast_fn(struct timer_list *t)
{
	struct sampler *s = from_timer(s, t, slot[0]);

	s->hits++;
	mod_timer_pending(t, jiffies + HZ);
}

static void slow_fn(struct timer_list *t)
{
	struct sampler *s = from_timer(s, t, slot[1]);

	s->hits++;
}

static int __init sampler_init(void)
{
	timer_setup(&sampler.slot[0], fast_fn,
		    TIMER_PINNED | TIMER_DEFERRABLE);
	timer_setup(&sampler.slot[1], slow_fn, TIMER_DEFERRABLE);
	sampler.slot[0].expires = jiffies + HZ;
	add_timer_on(&sampler.slot[0], cpumask_first(cpu_online_mask));
	timer_reduce(&sampler.slot[1], jiffies + 2 * HZ);
	return slot_armed(&sampler.slot[0]) ? 0 : -EAGAIN;
}

static void __exit sampler_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sampler.slot); i++)
		del_timer_sync(&sampler.slot[i]);
}

module_init(sampler_init);
module_exit(sampler_exit);
MODULE_LICENSE("GPL");
