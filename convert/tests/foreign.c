// SPDX-License-Identifier: GPL-2.0
/*
 * Refused: a timer handed to an API that wants a struct timer_list,
 * sk_reset_timer() and sk_stop_timer(); and a member of timer_list that
 * struct twheel_timer lacks.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/timer.h>
#include <net/sock.h>

struct probe_sock {
	struct sock sk;
	struct timer_list keepalive;
};

static void keepalive_fn(struct timer_list *t)
{
	struct probe_sock *ps = from_timer(ps, t, keepalive);

	sk_reset_timer(&ps->sk, &ps->keepalive, jiffies + HZ);
}

void probe_start(struct probe_sock *ps)
{
	timer_setup(&ps->keepalive, keepalive_fn, 0);
	if (hlist_unhashed(&ps->keepalive.entry))
		sk_reset_timer(&ps->sk, &ps->keepalive, jiffies + HZ);
}
EXPORT_SYMBOL_GPL(probe_start);

void probe_stop(struct probe_sock *ps)
{
	sk_stop_timer(&ps->sk, &ps->keepalive);
}
EXPORT_SYMBOL_GPL(probe_stop);

MODULE_LICENSE("GPL");
