// SPDX-License-Identifier: GPL-2.0
/*
 * The names 7.2 has and 6.1 lacks: timer_container_of(),
 * timer_delete_sync_try(), add_timer_local(), add_timer_global(),
 * timer_destroy_on_stack() (destroy_timer_on_stack() before), beside
 * timer_setup_on_stack(), timer_shutdown() and timer_shutdown_sync().
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/timer.h>

struct poll {
	struct timer_list tick;
	struct timer_list idle;
	unsigned int polls;
};

static struct poll poller;

static void tick_fn(struct timer_list *t)
{
	struct poll *p = timer_container_of(p, t, tick);

	if (++p->polls % 16)
		add_timer_local(&p->idle);
}

static void idle_fn(struct timer_list *t)
{
	struct poll *p = timer_container_of(p, t, idle);

	p->tick.expires = jiffies + HZ;
	add_timer_global(&p->tick);
}

struct waiter {
	struct timer_list timer;
	struct task_struct *task;
};

static void wake_fn(struct timer_list *t)
{
	struct waiter *w = timer_container_of(w, t, timer);

	wake_up_process(w->task);
}

/* A sleep with a timer on the stack, as schedule_timeout() has one. */
static void nap(unsigned long delay)
{
	struct waiter w = { .task = current };

	timer_setup_on_stack(&w.timer, wake_fn, 0);
	set_current_state(TASK_UNINTERRUPTIBLE);
	mod_timer(&w.timer, jiffies + delay);
	schedule();
	timer_delete_sync(&w.timer);
	timer_destroy_on_stack(&w.timer);
}

static int __init poll_init(void)
{
	timer_setup(&poller.tick, tick_fn, 0);
	timer_setup(&poller.idle, idle_fn, TIMER_DEFERRABLE);
	poller.idle.expires = jiffies + HZ;
	add_timer_global(&poller.idle);
	nap(HZ / 10);
	return 0;
}

static void __exit poll_exit(void)
{
	while (timer_delete_sync_try(&poller.tick) < 0)
		cpu_relax();
	timer_shutdown(&poller.idle);
	timer_shutdown_sync(&poller.tick);
	timer_shutdown_sync(&poller.idle);
}

module_init(poll_init);
module_exit(poll_exit);
MODULE_LICENSE("GPL");
