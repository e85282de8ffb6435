// SPDX-License-Identifier: GPL-2.0
/*
 * Names the conversion must leave alone: a module parameter and a member
 * called timeout (twheel.h has a function of that name), an hrtimer, and
 * the API's names in comments and strings.  Stop with del_timer_sync(),
 * as the comment says; mod_timer() is what "mod_timer" prints.
 */
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/timer.h>

static int timeout = 100;
module_param(timeout, int, 0444);
MODULE_PARM_DESC(timeout, "ms before the session times out");

struct session {
	struct timer_list timer;	/* a struct timer_list, timer_setup() */
	struct hrtimer hrtimer;
	unsigned long timeout;
};

static struct session session;

static void session_expire(struct timer_list *t)
{
	struct session *s = from_timer(s, t, timer);

	pr_info("mod_timer: session over after %lu ms\n", s->timeout);
}

static enum hrtimer_restart session_tick(struct hrtimer *h)
{
	return HRTIMER_NORESTART;
}

static int __init session_init(void)
{
	session.timeout = timeout;
	timer_setup(&session.timer, session_expire, 0);
	hrtimer_init(&session.hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	session.hrtimer.function = session_tick;
	mod_timer(&session.timer, jiffies + msecs_to_jiffies(timeout));
	return 0;
}

static void __exit session_exit(void)
{
	hrtimer_cancel(&session.hrtimer);
	/* del_timer_sync(), then nothing runs */
	del_timer_sync(&session.timer);
}

module_init(session_init);
module_exit(session_exit);
MODULE_LICENSE("GPL");
