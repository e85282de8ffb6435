// SPDX-License-Identifier: GPL-2.0
/*
 * Pointers to timers of this file: set from the address of a member, of
 * an element of a member array and of a static timer, from another
 * pointer, from NULL, as a parameter and as a return value.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>

struct pulse {
	struct timer_list beat;
	struct timer_list lanes[2];
	struct timer_list *next;
	unsigned int beats;
};

static struct pulse *pulse;
static struct timer_list pulse_watchdog;

static void pulse_kick(struct timer_list *t, unsigned long delay)
{
	mod_timer(t, jiffies + delay);
}

static struct timer_list *pulse_lane(struct pulse *p, unsigned int i)
{
	return &p->lanes[i % 2];
}

static void pulse_fn(struct timer_list *t)
{
	struct pulse *p = from_timer(p, t, beat);
	struct timer_list *lane = pulse_lane(p, p->beats);

	p->beats++;
	pulse_kick(lane, HZ / 2);
	pulse_kick(p->next, HZ);
}

static void pulse_lane_fn(struct timer_list *t)
{
}

static void pulse_watchdog_fn(struct timer_list *t)
{
	pr_warn("pulse: %u beats\n", pulse->beats);
}

static int __init pulse_init(void)
{
	struct timer_list *t;

	pulse = kzalloc(sizeof(*pulse), GFP_KERNEL);
	if (!pulse)
		return -ENOMEM;
	t = &pulse->beat;
	pulse->next = t;
	timer_setup(t, pulse_fn, 0);
	timer_setup(&pulse->lanes[0], pulse_lane_fn, 0);
	timer_setup(&pulse->lanes[1], pulse_lane_fn, 0);
	timer_setup(&pulse_watchdog, pulse_watchdog_fn, 0);
	pulse_kick(&pulse->beat, HZ);
	pulse_kick(&pulse_watchdog, 10 * HZ);
	return 0;
}

static void __exit pulse_exit(void)
{
	struct timer_list *beat = &pulse->beat;
	struct timer_list *lane = NULL;
	unsigned int i;

	del_timer_sync(beat);
	del_timer_sync(&pulse_watchdog);
	for (i = 0; i < ARRAY_SIZE(pulse->lanes); i++) {
		lane = &pulse->lanes[i];
		del_timer_sync(lane);
	}
	kfree(pulse);
}

module_init(pulse_init);
module_exit(pulse_exit);
MODULE_LICENSE("GPL");
