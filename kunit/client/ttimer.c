// SPDX-License-Identifier: GPL-2.0
/*
 * ttimer.c - the timer of ttimer.h: its function, the arming calls tried
 * all at once, its control hrtimer, its arming by each call with the
 * window of its run, the checks of that run, and a case's .init and .exit.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "ticks.h"
#include "ttimer.h"

/* The delay in ns of a timer armed for @expires when jiffies is @j. */
static u64 jdelay(unsigned long expires, unsigned long j)
{
	long left = (long)(expires - j);

	return left > 0 ? (u64)left * TICK_NSEC : 0;
}

/* How long to watch a timer armed @n jiffies ahead, to see it not run. */
static u64 quiet_ns(unsigned long n)
{
	return (n + 2) * TICK_NSEC + 3 * tick_ns() + 100 * NSEC_PER_MSEC;
}

void tt_fn(struct twheel_timer *t)
{
	struct ttimer *tt = twheel_from_timer(tt, t, timer);
	enum tt_mode mode = READ_ONCE(tt->mode);
	ktime_t until;

	tt->at = ktime_get();
	tt->cpu = smp_processor_id();
	tt->softirq = in_serving_softirq() && !in_hardirq();
	tt->irqs_off = irqs_disabled();
	tt->pending = twheel_timer_pending(t);
	WRITE_ONCE(tt->mode, TT_RECORD);
	switch (mode) {
	case TT_REARM_HOLD:
		tt->rearm = twheel_mod_timer(t, jiffies + FAR_J);
		fallthrough;
	case TT_HOLD:
		atomic_set_release(&tt->entered, 1);
		until = ktime_add_ns(tt->at, HOLD_NS);
		while (!atomic_read_acquire(&tt->release) &&
		       ktime_before(ktime_get(), until))
			cpu_relax();
		break;
	case TT_SHUT:
		/* pending again; the case shuts it down meanwhile */
		tt->rearm = twheel_mod_timer(t, jiffies + 1);
		atomic_set_release(&tt->entered, 1);
		until = ktime_add_ns(tt->at, LOST_NS);
		while (twheel_timer_pending(t) &&
		       !atomic_read_acquire(&tt->release) &&
		       ktime_before(ktime_get(), until))
			cpu_relax();
		tt->saw_cancel = !twheel_timer_pending(t);
		tt_try_all(tt, tt->ret);
		break;
	default:
		break;
	}
	tt->left = ktime_get();
	atomic_inc_return_release(&tt->runs);
}

const char * const tt_try_name[NTRY] = {
	"twheel_mod_timer()", "twheel_mod_timer_pending()",
	"twheel_timer_reduce()", "twheel_add_timer()", "twheel_add_timer_on()",
};

/*
 * Every arming call on @tt's timer, for the next jiffy: what each
 * returned, and for the two that return nothing whether the timer was
 * pending after it.
 */
void tt_try_all(struct ttimer *tt, int *ret)
{
	struct twheel_timer *t = &tt->timer;
	unsigned long j = jiffies + 1;

	ret[0] = twheel_mod_timer(t, j);
	ret[1] = twheel_mod_timer_pending(t, j);
	ret[2] = twheel_timer_reduce(t, j);
	t->expires = j;
	twheel_add_timer(t);
	ret[3] = twheel_timer_pending(t);
	twheel_add_timer_on(t, raw_smp_processor_id());
	ret[4] = twheel_timer_pending(t);
}

/*
 * The control, on the CPU of the run.  A timer runs only once jiffies has
 * reached ->expires; twheel looks at jiffies as the callout comes due,
 * and with the jiffies tick late, tries again a tick later.  The control
 * first looks at jiffies before the window's last tick begins: if jiffies
 * has reached ->expires then, twheel finds it there too, and the control
 * runs a nanosecond after that tick's start, after twheel's tick timer
 * for it (see tprobe.h).  If not, the control waits for jiffies, a twheel
 * tick at a time, as the timer does; and as jiffies may reach ->expires
 * between twheel's look and the control's, it runs a tick after it has
 * seen it there.
 */
static enum hrtimer_restart control_fn(struct hrtimer *h)
{
	struct ttimer *tt = container_of(h, struct ttimer, control);
	bool reached = !time_before(jiffies, READ_ONCE(tt->timer.expires));

	switch (tt->control_stage) {
	case CONTROL_EARLY:
		tt->control_stage = reached && ktime_before(ktime_get(), tt->end) ?
				    CONTROL_LAST : CONTROL_WAIT;
		hrtimer_set_expires(h, ktime_add_ns(tt->end, 1));
		return HRTIMER_RESTART;
	case CONTROL_WAIT:
		if (reached)
			tt->control_stage = CONTROL_LAST;
		hrtimer_forward_now(h, ns_to_ktime(tick_ns()));
		return HRTIMER_RESTART;
	default:
		break;
	}
	tt->control_at = ktime_get();
	tt->control_saw = atomic_read_acquire(&tt->runs);
	atomic_inc_return_release(&tt->control_runs);
	return HRTIMER_NORESTART;
}

static void control_start_here(void *info)
{
	struct ttimer *tt = info;

	hrtimer_start(&tt->control, ktime_sub_ns(tt->end, tick_ns() - 1),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/* Start @tt's control on @cpu, the CPU of its run: see control_fn(). */
void tt_control_start(struct ttimer *tt, int cpu)
{
	tt->control_stage = CONTROL_EARLY;
	atomic_set(&tt->control_runs, 0);
	if (cpu == raw_smp_processor_id())	/* the case thread is pinned */
		control_start_here(tt);
	else
		smp_call_function_single(cpu, control_start_here, tt, 1);
}

/*
 * Arm @tt's timer for @expires the way @way says (on @cpu for BY_ADD_ON),
 * noting the window its run must begin in, were it armed: its deadline
 * lies (expires - jiffies) jiffies after the call, jiffies read by the
 * call itself, so between the reads either side of it; with
 * %TIMER_DEFERRABLE its run may come an eighth of that delay later.  No
 * run begins in the tick of the call.  With interrupts off, so that a
 * timer armed on this CPU cannot run before its deadline is read back.
 */
int tt_arm(struct ttimer *tt, enum tt_way way, unsigned long expires,
	   int cpu)
{
	struct twheel_timer *t = &tt->timer;
	unsigned long j0, j1, flags;
	ktime_t after;
	u64 precision;
	int ret = 0;

	local_irq_save(flags);
	tt->before = ktime_get();
	j0 = jiffies;
	switch (way) {
	case BY_MOD:
		ret = twheel_mod_timer(t, expires);
		break;
	case BY_MOD_PENDING:
		ret = twheel_mod_timer_pending(t, expires);
		break;
	case BY_REDUCE:
		ret = twheel_timer_reduce(t, expires);
		break;
	case BY_ADD:
		t->expires = expires;
		twheel_add_timer(t);
		break;
	case BY_ADD_ON:
		t->expires = expires;
		twheel_add_timer_on(t, cpu);
		break;
	case BY_ADD_LOCAL:
		t->expires = expires;
		twheel_add_timer_local(t);
		break;
	case BY_ADD_GLOBAL:
		t->expires = expires;
		twheel_add_timer_global(t);
		break;
	}
	tt->armed = twheel_timer_pending(t);
	tt->when = callout_when(&t->c);
	j1 = jiffies;
	after = ktime_get();
	local_irq_restore(flags);

	tt->ahead = (long)(expires - j1);
	precision = t->flags & TIMER_DEFERRABLE ? jdelay(expires, j0) / 8 : 0;
	tt->dlo = ktime_add_ns(tt->before, jdelay(expires, j1));
	tt->dhi = ktime_add_ns(after, jdelay(expires, j0));
	tt->lo = max(tt->dlo, next_tick_start(tt->before));
	tt->end = max3(tick_ceil(tt->dhi), next_tick_start(after),
		       tick_floor(ktime_add_ns(tt->dhi, precision)));
	return ret;
}

/*
 * The last tt_arm() armed @tt's timer, on this CPU, for the deadline it
 * asked for.
 */
void tt_check_when(struct kunit *test, struct ttimer *tt, const char *what)
{
	ktime_t when = tt->when;

	KUNIT_EXPECT_TRUE_MSG(test, tt->armed, "%s: not pending", what);
	KUNIT_EXPECT_TRUE_MSG(test, when >= tt->dlo && when <= tt->dhi,
			      "%s: deadline %lld ns after the call, not in [%lld, %lld]",
			      what, ktime_to_ns(ktime_sub(when, tt->before)),
			      ktime_to_ns(ktime_sub(tt->dlo, tt->before)),
			      ktime_to_ns(ktime_sub(tt->dhi, tt->before)));
}

/*
 * Wait for @tt's function to have returned @runs times, and for its
 * control; check the last run: not before the deadline of the last
 * tt_arm() nor in the tick of the call, returned before its control ran,
 * on @cpu, in softirq context with interrupts enabled, and not pending as
 * it began.
 */
void tt_check(struct kunit *test, struct ttimer *tt, int runs, int cpu,
	      const char *what)
{
	bool ran = wait_runs(&tt->runs, runs);
	s64 after, by;

	KUNIT_ASSERT_TRUE_MSG(test, ran, "%s: ran %d of %d times within %llu ns",
			      what, atomic_read(&tt->runs), runs, LOST_NS);
	KUNIT_ASSERT_TRUE_MSG(test, wait_runs(&tt->control_runs, 1),
			      "%s: the control hrtimer did not fire", what);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&tt->runs), runs,
			    "%s: ran more often than armed", what);
	after = ktime_to_ns(ktime_sub(tt->at, tt->before));
	KUNIT_EXPECT_GE_MSG(test, tt->at, tt->lo,
			    "%s: armed %ld jiffies (%lld ns) ahead, ran %lld ns after the call: early",
			    what, tt->ahead,
			    ktime_to_ns(ktime_sub(tt->dlo, tt->before)), after);
	KUNIT_EXPECT_LE_MSG(test, ktime_to_ns(ktime_sub(tt->at, tt->end)),
			    (s64)LOST_NS, "%s: ran %lld ns after its window",
			    what, ktime_to_ns(ktime_sub(tt->at, tt->end)));
	by = ktime_to_ns(ktime_sub(tt->at, tt->control_at));
	KUNIT_EXPECT_GE_MSG(test, tt->control_saw, runs,
			    "%s: ran %lld ns after a soft hrtimer due a tick after the end of its window (%lld ns after the deadline) and jiffies reaching ->expires",
			    what, by, ktime_to_ns(ktime_sub(tt->end, tt->dhi)));
	KUNIT_EXPECT_EQ_MSG(test, tt->cpu, cpu, "%s: ran on CPU %d, not %d",
			    what, tt->cpu, cpu);
	KUNIT_EXPECT_TRUE_MSG(test, tt->softirq,
			      "%s: did not run in softirq context", what);
	KUNIT_EXPECT_FALSE_MSG(test, tt->irqs_off,
			       "%s: ran with interrupts disabled", what);
	KUNIT_EXPECT_FALSE_MSG(test, tt->pending,
			       "%s: twheel_timer_pending() in its own function",
			       what);
}

/* Watch @tt's timer, armed for @n jiffies, not run (again). */
void tt_quiet(struct kunit *test, struct ttimer *tt, int runs,
	      unsigned long n, const char *what)
{
	spin_ns(quiet_ns(n));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&tt->runs), runs,
			    "%s: ran %d times, expected %d", what,
			    atomic_read(&tt->runs), runs);
}

static int pin(int cpu)
{
	return set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

/*
 * A case's state: its timers set up, each with its control, and the case
 * thread pinned to the first online CPU.
 */
int tt_init(struct kunit *test)
{
	struct tt_ctx *tc = kunit_kzalloc(test, sizeof(*tc), GFP_KERNEL);
	struct ttimer *tt;
	int i;

	if (!tc)
		return -ENOMEM;
	for (i = 0; i < NTT; i++) {
		tt = &tc->tt[i];
		tt->id = i;
		twheel_timer_setup(&tt->timer, tt_fn, 0);
		hrtimer_setup(&tt->control, control_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS_PINNED_SOFT);
	}
	tc->cpu_a = cpumask_first(cpu_online_mask);
	tc->cpu_b = cpumask_next(tc->cpu_a, cpu_online_mask);
	if (tc->cpu_b >= nr_cpu_ids)
		tc->cpu_b = -1;
	test->priv = tc;
	return pin(tc->cpu_a);
}

/*
 * End what the case's timers are doing, so that nothing runs into freed
 * memory: release a held run, cancel each timer and wait for its
 * function, then its control.
 */
void tt_exit(struct kunit *test)
{
	struct tt_ctx *tc = test->priv;
	struct ttimer *tt;
	int i;

	if (!tc)
		return;
	for (i = 0; i < NTT; i++) {
		tt = &tc->tt[i];
		WRITE_ONCE(tt->mode, TT_RECORD);
		atomic_set_release(&tt->release, 1);
		twheel_timer_delete_sync(&tt->timer);
		hrtimer_cancel(&tt->control);
	}
}
