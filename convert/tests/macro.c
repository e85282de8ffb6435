// SPDX-License-Identifier: GPL-2.0
/*
 * Left: a call in a macro whose body is not one expression or statement,
 * which Coccinelle skips.  The semantic patch converts everything else,
 * which would not compile with the macro left on timer_list, so the file
 * stays as it was.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>

#define ticker_stop(tk)	del_timer_sync(&(tk)->timer); (tk)->period = 0

struct ticker {
	struct timer_list timer;
	unsigned long period;
};

static struct ticker ticker = { .period = HZ };

static void tick_fn(struct timer_list *t)
{
	struct ticker *tk = from_timer(tk, t, timer);

	mod_timer(&tk->timer, jiffies + tk->period);
}

static int __init ticker_init(void)
{
	timer_setup(&ticker.timer, tick_fn, 0);
	mod_timer(&ticker.timer, jiffies + ticker.period);
	return 0;
}

static void __exit ticker_exit(void)
{
	ticker_stop(&ticker);
}

module_init(ticker_init);
module_exit(ticker_exit);
MODULE_LICENSE("GPL");
