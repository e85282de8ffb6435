// SPDX-License-Identifier: GPL-2.0
/*
 * A twheel workload, for the demo: many callouts that expire and re-arm,
 * a share of them stopped before expiry as a retransmission timer is when
 * its acknowledgment arrives.
 *
 * Each of @callouts flows keeps a timer armed for an interval drawn from
 * @dist around @mean_ms.  With probability @stop_pct percent an arming also
 * arms an "ack" callout due at a uniform fraction of the interval; when
 * the ack runs it stops the timer (unsetcallout() or untimeout()) and arms
 * it afresh.  With @precision_pct, a timer may run that share of its
 * interval late, and twheel runs timers whose windows overlap on one
 * interrupt.  The workload runs until the module is removed, or stops by
 * itself after @duration_s seconds; on removal it prints what it saw.
 */

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "twheel.h"

static unsigned int callouts = 1000;
module_param(callouts, uint, 0444);
MODULE_PARM_DESC(callouts, "flows, each with a timer armed (default 1000)");

static char *dist = "exponential";
module_param(dist, charp, 0444);
MODULE_PARM_DESC(dist, "interval distribution: fixed, uniform (0..2*mean) or exponential (default)");

static unsigned int mean_ms = 200;
module_param(mean_ms, uint, 0444);
MODULE_PARM_DESC(mean_ms, "mean interval in ms (default 200)");

static unsigned int stop_pct = 80;
module_param(stop_pct, uint, 0444);
MODULE_PARM_DESC(stop_pct, "percent of armings stopped before expiry (default 80)");

static unsigned int duration_s = 5;
module_param(duration_s, uint, 0444);
MODULE_PARM_DESC(duration_s, "seconds to run, 0 for until removal (default 5)");

static unsigned int precision_pct;
module_param(precision_pct, uint, 0444);
MODULE_PARM_DESC(precision_pct, "how late a timer may run, in percent of its interval, so that timers share interrupts (default 0: exact)");

static bool bsd;
module_param(bsd, bool, 0444);
MODULE_PARM_DESC(bsd, "use timeout()/untimeout() for the timers (default: handles)");

enum wl_dist { WL_FIXED, WL_UNIFORM, WL_EXPONENTIAL };

struct flow {
	struct callout timer;	/* unused with bsd=1 */
	struct callout ack;
	u64 due_ns;		/* when the timer should run */
};

static struct workload {
	struct flow *flows;
	enum wl_dist dist;
	unsigned long mean;	/* ticks */
	u64 stop_at;		/* ktime ns */
	atomic_t stopping;
	atomic64_t armed, expired, acked, late_ns_sum, late_ns_max;
	atomic64_t early;
} wl;

/* -ln(r / 2^32) in 1/1024ths, with log2 taken piecewise linear. */
static u32 neg_ln_1024(u32 r)
{
	unsigned int k = ilog2(r | 1);
	u32 log2_1024 = k * 1024 + (u32)(((u64)(r - (1U << k)) << 10) >> k);

	return (32 * 1024 - log2_1024) * 710 / 1024;	/* ln 2 = 710/1024 */
}

/* An interval in ticks, at least one. */
static unsigned long wl_interval(void)
{
	u32 r = get_random_u32();

	switch (wl.dist) {
	case WL_FIXED:
		return wl.mean;
	case WL_UNIFORM:
		return 1 + (u64)r * 2 * wl.mean / U32_MAX;
	case WL_EXPONENTIAL:
	default:
		return 1 + (u64)wl.mean * neg_ln_1024(r) / 1024;
	}
}

static void wl_timer_fn(void *arg);
static void wl_ack_fn(void *arg);

/* Arm @c for @ns from now, with the workload's precision. */
static void wl_set(struct callout *c, callout_func_t fn, struct flow *f,
		   u64 ns)
{
	setcallout_on(c, fn, f, ns_to_ktime(ns),
		      div_u64(ns * precision_pct, 100), CALLOUT_CPU_ANY, 0);
}

/* Arm a flow's timer, and perhaps its ack.  Any context. */
static void wl_arm(struct flow *f)
{
	unsigned long ticks = wl_interval();
	u64 ns = ticks * twheel_tick_ns();

	if (atomic_read(&wl.stopping))
		return;
	f->due_ns = ktime_get_ns() + ns;
	if (bsd)
		timeout(wl_timer_fn, f, ticks);
	else
		wl_set(&f->timer, wl_timer_fn, f, ns);
	atomic64_inc(&wl.armed);
	if (get_random_u32_below(100) < stop_pct)
		wl_set(&f->ack, wl_ack_fn, f,
		       get_random_u32_below(ticks) * twheel_tick_ns());
}

static void wl_timer_fn(void *arg)
{
	struct flow *f = arg;
	s64 late = ktime_get_ns() - f->due_ns;
	s64 max = atomic64_read(&wl.late_ns_max);

	if (late < 0)
		atomic64_inc(&wl.early);
	else
		atomic64_add(late, &wl.late_ns_sum);
	while (late > max && !atomic64_try_cmpxchg(&wl.late_ns_max, &max, late))
		;
	atomic64_inc(&wl.expired);
	unsetcallout(&f->ack);
	if (duration_s && ktime_get_ns() > wl.stop_at)
		atomic_set(&wl.stopping, 1);
	wl_arm(f);
}

static void wl_ack_fn(void *arg)
{
	struct flow *f = arg;
	int stopped = bsd ? untimeout(wl_timer_fn, f) : unsetcallout(&f->timer);

	if (stopped == 1) {
		atomic64_inc(&wl.acked);
		wl_arm(f);
	}
}

static int __init wl_init(void)
{
	unsigned int i;

	if (!strcmp(dist, "fixed"))
		wl.dist = WL_FIXED;
	else if (!strcmp(dist, "uniform"))
		wl.dist = WL_UNIFORM;
	else if (!strcmp(dist, "exponential"))
		wl.dist = WL_EXPONENTIAL;
	else
		return -EINVAL;
	if (stop_pct > 100 || precision_pct > 100 || !callouts || !mean_ms)
		return -EINVAL;

	wl.mean = max(1UL, twheel_ns_to_ticks((u64)mean_ms * NSEC_PER_MSEC));
	wl.stop_at = ktime_get_ns() + (u64)duration_s * NSEC_PER_SEC;
	wl.flows = vcalloc(callouts, sizeof(*wl.flows));
	if (!wl.flows)
		return -ENOMEM;
	for (i = 0; i < callouts; i++) {
		callout_init(&wl.flows[i].timer);
		callout_init(&wl.flows[i].ack);
	}
	for (i = 0; i < callouts; i++)
		wl_arm(&wl.flows[i]);
	pr_info("twheel_workload: %u flows, %s intervals of mean %u ms, %u%% stopped early, %s, precision %u%%, %u s\n",
		callouts, dist, mean_ms, stop_pct,
		bsd ? "timeout()" : "setcallout_on()", precision_pct,
		duration_s);
	return 0;
}
module_init(wl_init);

static void __exit wl_exit(void)
{
	s64 expired, late_avg;
	unsigned int i;

	/*
	 * Callout functions run in softirq context, which RCU waits for: once
	 * @stopping is set and a grace period has passed, every function
	 * that could have seen it clear has returned, and none arms again.
	 * Then one pass cancels what is left.
	 */
	atomic_set(&wl.stopping, 1);
	synchronize_rcu();
	for (i = 0; i < callouts; i++) {
		unsetcallout_sync(&wl.flows[i].ack);
		unsetcallout_sync(&wl.flows[i].timer);
		while (bsd && untimeout(wl_timer_fn, &wl.flows[i]))
			;
	}
	/* A timeout() function may still be running: wait it out. */
	synchronize_rcu();
	vfree(wl.flows);

	expired = atomic64_read(&wl.expired);
	late_avg = expired ? div64_s64(atomic64_read(&wl.late_ns_sum), expired) : 0;
	pr_info("twheel_workload: armed %lld, expired %lld, stopped before expiry %lld, ran early %lld, late avg %lld ns max %lld ns\n",
		atomic64_read(&wl.armed), expired, atomic64_read(&wl.acked),
		atomic64_read(&wl.early), late_avg,
		atomic64_read(&wl.late_ns_max));
}
module_exit(wl_exit);

MODULE_DESCRIPTION("A twheel workload: expiring and stopped timers");
MODULE_LICENSE("GPL");
