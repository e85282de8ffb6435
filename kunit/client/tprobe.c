// SPDX-License-Identifier: GPL-2.0
/*
 * tprobe.c - the timed probe of tprobe.h: its function, its control
 * hrtimer, its arming by each way with a deadline, and the check of its
 * run against the window of that arming.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/smp.h>

#include "client.h"
#include "ticks.h"
#include "tprobe.h"

const char * const tp_way_name[] = {
	[BY_NS] = "setcallout_ns()",
	[BY_AT] = "setcallout_at()",
	[BY_JIFFIES] = "setcallout_jiffies()",
	[BY_ON] = "setcallout_on()",
	[BY_ON_ABS] = "setcallout_on(CALLOUT_ABSOLUTE)",
	[BY_TICKS] = "setcallout()",
};

void tprobe_fn(void *arg)
{
	struct tprobe *t = arg;

	t->at = ktime_get();
	t->cpu = raw_smp_processor_id();
	t->softirq = in_serving_softirq() && !in_hardirq();
	t->pending = callout_pending(&t->c);
	t->when = callout_when(&t->c);
	atomic_inc_return_release(&t->runs);
}

static enum hrtimer_restart control_fn(struct hrtimer *h)
{
	struct tprobe *t = container_of(h, struct tprobe, control);

	t->control_at = ktime_get();
	t->control_saw = atomic_read_acquire(&t->runs);
	atomic_inc_return_release(&t->control_runs);
	return HRTIMER_NORESTART;
}

static void tprobe_init(struct tprobe *t)
{
	callout_init(&t->c);
	hrtimer_setup(&t->control, control_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

void tprobes_init(struct tprobe *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		tprobe_init(&t[i]);
}

/* Cancel @n probes, waiting for their functions, and their controls. */
void tprobes_end(struct tprobe *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsetcallout_sync(&t[i].c);
		hrtimer_cancel(&t[i].control);
	}
}

/*
 * An arming that began at @before and returned at @after, for a deadline
 * between @dlo and @dhi and with @precision.  No run may begin before the
 * deadline, nor in the tick of the call.  The latest tick it may be due
 * on is the later of the window's first (the first tick to begin at or
 * after the deadline, or the one after the call's) and its last (the
 * last to begin by the deadline plus the precision): its start is @end.
 */
void tp_window(struct tprobe *t, ktime_t before, ktime_t after,
	       ktime_t dlo, ktime_t dhi, u64 precision)
{
	t->dlo = dlo;
	t->dhi = dhi;
	t->lo = max(dlo, next_tick_start(before));
	t->end = max3(tick_ceil(dhi), next_tick_start(after),
		      tick_floor(ktime_add_ns(dhi, precision)));
}

/*
 * Arm @t's handle the way @way says, for @v (ns of delay, a time, a
 * jiffies value or ticks) with @precision on @cpu (for the setcallout_on()
 * ways; the others take neither), noting where its deadline lies.
 */
int tp_arm(struct tprobe *t, enum arm_way way, s64 v, u64 precision,
	   int cpu)
{
	unsigned long j0 = jiffies, j1;
	ktime_t before = ktime_get(), after, dlo, dhi;
	u64 tk = tick_ns();
	s64 left;
	int ret;

	t->arm_cpu = raw_smp_processor_id();
	switch (way) {
	case BY_NS:
		ret = setcallout_ns(&t->c, tprobe_fn, t, v);
		break;
	case BY_AT:
		ret = setcallout_at(&t->c, tprobe_fn, t, v);
		break;
	case BY_JIFFIES:
		ret = setcallout_jiffies(&t->c, tprobe_fn, t, v);
		break;
	case BY_ON:
		ret = setcallout_on(&t->c, tprobe_fn, t, v, precision, cpu, 0);
		break;
	case BY_ON_ABS:
		ret = setcallout_on(&t->c, tprobe_fn, t, v, precision, cpu,
				    CALLOUT_ABSOLUTE);
		break;
	default:
		ret = setcallout(&t->c, tprobe_fn, t, v);
		break;
	}
	after = ktime_get();
	j1 = jiffies;

	switch (way) {
	case BY_NS:
	case BY_ON:
		/* A delay of 0 or less is now (or as long ago). */
		dlo = ktime_add(before, v);
		dhi = ktime_add(after, max_t(s64, v, 0));
		break;
	case BY_AT:
	case BY_ON_ABS:
		dlo = v;
		dhi = v;
		break;
	case BY_JIFFIES:
		/* It read jiffies between j0 and j1. */
		left = (long)((unsigned long)v - j1);
		dlo = ktime_add_ns(before, max_t(s64, left, 0) * TICK_NSEC);
		left = (long)((unsigned long)v - j0);
		dhi = ktime_add_ns(after, max_t(s64, left, 0) * TICK_NSEC);
		break;
	default:
		/* The start of tick now + v + 1. */
		dlo = (div64_u64(before, tk) + v + 1) * tk;
		dhi = (div64_u64(after, tk) + v + 1) * tk;
		break;
	}
	tp_window(t, before, after, dlo, dhi,
		  way == BY_ON || way == BY_ON_ABS ? precision : 0);
	return ret;
}

static void control_start_here(void *info)
{
	struct tprobe *t = info;

	hrtimer_start(&t->control, ktime_add_ns(t->end, 1),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/*
 * Start @t's control on @cpu, the CPU its run is due on, a nanosecond
 * after the start of its window's last tick.
 */
void tp_control_start(struct tprobe *t, int cpu)
{
	atomic_set(&t->control_runs, 0);
	if (cpu == raw_smp_processor_id())	/* the case thread is pinned */
		control_start_here(t);
	else
		smp_call_function_single(cpu, control_start_here, t, 1);
}

/*
 * Wait for @t's function to have returned @runs times, and for its
 * control; check the last run: not before its deadline nor in the tick of
 * its arming, returned before its control ran, on @cpu (if not negative),
 * in softirq context, and neither pending nor with a deadline as it runs.
 */
void tp_check(struct kunit *test, struct tprobe *t, int runs, int cpu,
	      const char *what)
{
	s64 by;

	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&t->runs, runs, LOST_NS),
			      "%s: ran %d of %d times within %llu ns", what,
			      atomic_read(&t->runs), runs, LOST_NS);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&t->control_runs, 1, LOST_NS),
			      "%s: the control hrtimer did not fire", what);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&t->runs), runs,
			    "%s: ran more often than armed", what);
	by = ktime_to_ns(ktime_sub(t->lo, t->at));
	KUNIT_EXPECT_GE_MSG(test, t->at, t->lo,
			    "%s: ran %lld ns early (deadline in [%lld, %lld] ns)",
			    what, by, t->dlo, t->dhi);
	KUNIT_EXPECT_LE_MSG(test, ktime_to_ns(ktime_sub(t->at, t->end)),
			    (s64)LOST_NS, "%s: ran %lld ns after its window",
			    what, ktime_to_ns(ktime_sub(t->at, t->end)));
	by = ktime_to_ns(ktime_sub(t->at, t->control_at));
	KUNIT_EXPECT_GE_MSG(test, t->control_saw, runs,
			    "%s: ran %lld ns after a soft hrtimer due at the end of its window (%lld ns after the deadline): its tick timer was due later",
			    what, by, ktime_to_ns(ktime_sub(t->end, t->dhi)));
	if (cpu >= 0)
		KUNIT_EXPECT_EQ_MSG(test, t->cpu, cpu, "%s: ran on CPU %d",
				    what, t->cpu);
	KUNIT_EXPECT_TRUE_MSG(test, t->softirq,
			      "%s: did not run in softirq context", what);
	KUNIT_EXPECT_FALSE_MSG(test, t->pending,
			       "%s: callout_pending() in its own function", what);
	KUNIT_EXPECT_EQ_MSG(test, t->when, KTIME_MAX,
			    "%s: callout_when() in its own function", what);
}
