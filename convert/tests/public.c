// SPDX-License-Identifier: GPL-2.0
/*
 * Refused: what other files see of this file's timers, and what it sees
 * of theirs: a function taking a struct timer_list that is not static
 * (its prototype, in a header, stays on timer_list), a timer that is not
 * static, and one defined in another file.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>

extern struct timer_list shared_timer;
struct timer_list heart_watchdog;

struct heart {
	struct timer_list beat;
	unsigned int beats;
};

void heart_beat(struct timer_list *t)
{
	struct heart *h = from_timer(h, t, beat);

	h->beats++;
	mod_timer(t, jiffies + HZ);
	mod_timer(&shared_timer, jiffies + HZ);
	mod_timer(&heart_watchdog, jiffies + 2 * HZ);
}

static struct heart heart;

static void heart_stopped(struct timer_list *t)
{
	pr_err("heart: stopped after %u beats\n", heart.beats);
}

static int __init heart_init(void)
{
	timer_setup(&heart.beat, heart_beat, 0);
	timer_setup(&heart_watchdog, heart_stopped, 0);
	heart_beat(&heart.beat);
	return 0;
}

static void __exit heart_exit(void)
{
	del_timer_sync(&heart.beat);
	del_timer_sync(&heart_watchdog);
}

module_init(heart_init);
module_exit(heart_exit);
MODULE_LICENSE("GPL");
