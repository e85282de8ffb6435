// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of twheel's trace events (include/twheel_trace.h), seen as
 * a module sees them: probes attached with register_trace_*() record, in
 * order, the events of one callout the case follows (others may run at
 * the same time), and the case then reads the record against what it did.
 *
 * Only what must hold is asserted: the order of the events, their fields,
 * and the tick arithmetic between them, never how late a callout ran.
 * Waiters busy-poll against ktime rather than sleep (test_util.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>

#include "twheel.h"
#include "twheel_trace.h"
#include "test_util.h"

/* Events of one callout's life; more than any case expects. */
#define MAX_RECS	16

enum ev {
	EV_INIT,
	EV_START,
	EV_CANCEL,
	EV_ENTRY,
	EV_EXIT,
	EV_TICK,
};

static const char * const ev_name[] = {
	[EV_INIT] = "init", [EV_START] = "start", [EV_CANCEL] = "cancel",
	[EV_ENTRY] = "expire_entry", [EV_EXIT] = "expire_exit",
	[EV_TICK] = "wheel_tick",
};

/* One event as a probe saw it; only the fields of its kind are set. */
struct rec {
	enum ev ev;
	unsigned int on_cpu;		/* where the probe ran */
	callout_func_t func;
	u64 expires;
	u64 last;			/* callout_start's fields */
	u64 deadline;
	u64 now;
	u64 late_ns;
	unsigned int cpu;
	unsigned int ran;
	bool rearmed;
};

/*
 * What the probes share with the case.  Locked by lock: everything below
 * it.  The followed handle is @c; a case that does not know it yet (a
 * timeout() entry) sets @func instead, and the first callout_start with
 * that function names the handle.  After the handle's expire_entry, the
 * next wheel_tick on that CPU is recorded too: the tick that ran it.
 */
struct trace_ctx {
	raw_spinlock_t lock;
	struct callout *c;
	callout_func_t func;
	int tick_cpu;
	unsigned int n;
	unsigned int dropped;
	struct rec rec[MAX_RECS];
	bool attached;
};

/* Append @r if it is about the followed handle @c; the lock is held. */
static void add_locked(struct trace_ctx *t, struct callout *c,
		       const struct rec *r)
{
	lockdep_assert_held(&t->lock);
	if (!c || c != t->c)
		return;
	if (t->n == MAX_RECS) {
		t->dropped++;
		return;
	}
	t->rec[t->n] = *r;
	t->rec[t->n].on_cpu = raw_smp_processor_id();
	t->n++;
}

static void add(struct trace_ctx *t, struct callout *c, const struct rec *r)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&t->lock, flags);
	add_locked(t, c, r);
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

static void probe_init(void *data, struct callout *c)
{
	add(data, c, &(struct rec){ .ev = EV_INIT });
}

/*
 * The event records the function from the handle and the ticks asked for
 * as expires - now - 1, as its TP_fast_assign() does.
 */
static void probe_start(void *data, struct callout *c, u64 expires, u64 last,
			unsigned int cpu, bool rearmed)
{
	callout_func_t func = READ_ONCE(c->func);
	struct rec r = { .ev = EV_START, .func = func, .expires = expires,
			 .last = last, .deadline = callout_when(c),
			 .cpu = cpu, .rearmed = rearmed };
	struct trace_ctx *t = data;
	unsigned long flags;

	raw_spin_lock_irqsave(&t->lock, flags);
	if (!t->c && t->func && func == t->func)
		t->c = c;
	add_locked(t, c, &r);
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

static void probe_cancel(void *data, struct callout *c)
{
	add(data, c, &(struct rec){ .ev = EV_CANCEL });
}

static void probe_entry(void *data, struct callout *c, callout_func_t func,
			u64 now, u64 late_ns)
{
	struct rec r = { .ev = EV_ENTRY, .func = func, .now = now,
			 .late_ns = late_ns };
	struct trace_ctx *t = data;
	unsigned long flags;

	raw_spin_lock_irqsave(&t->lock, flags);
	if (c && c == t->c)
		t->tick_cpu = raw_smp_processor_id();
	add_locked(t, c, &r);
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

static void probe_exit(void *data, struct callout *c)
{
	add(data, c, &(struct rec){ .ev = EV_EXIT });
}

static void probe_tick(void *data, u64 now, u64 ticks, unsigned int moved,
		       unsigned int ran, u64 work_ns)
{
	struct rec r = { .ev = EV_TICK, .now = now, .ran = ran };
	struct trace_ctx *t = data;
	unsigned long flags;

	raw_spin_lock_irqsave(&t->lock, flags);
	if (t->tick_cpu == raw_smp_processor_id()) {
		t->tick_cpu = -1;
		add_locked(t, t->c, &r);
	}
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

static void detach(struct trace_ctx *t)
{
	if (!t->attached)
		return;
	unregister_trace_wheel_tick(probe_tick, t);
	unregister_trace_callout_expire_exit(probe_exit, t);
	unregister_trace_callout_expire_entry(probe_entry, t);
	unregister_trace_callout_cancel(probe_cancel, t);
	unregister_trace_callout_start(probe_start, t);
	unregister_trace_callout_init(probe_init, t);
	/* No probe runs on @t once this returns. */
	tracepoint_synchronize_unregister();
	t->attached = false;
}

static int attach(struct trace_ctx *t)
{
	int ret;

	t->attached = true;
	ret = register_trace_callout_init(probe_init, t) ?:
	      register_trace_callout_start(probe_start, t) ?:
	      register_trace_callout_cancel(probe_cancel, t) ?:
	      register_trace_callout_expire_entry(probe_entry, t) ?:
	      register_trace_callout_expire_exit(probe_exit, t) ?:
	      register_trace_wheel_tick(probe_tick, t);
	/* Unregistering a probe never registered only returns -ENOENT. */
	if (ret)
		detach(t);
	return ret;
}

/* Follow @c from now on, forgetting what was recorded. */
static void follow(struct trace_ctx *t, struct callout *c,
		   callout_func_t func)
{
	raw_spin_lock_irq(&t->lock);
	t->c = c;
	t->func = func;
	t->tick_cpu = -1;
	t->n = 0;
	t->dropped = 0;
	raw_spin_unlock_irq(&t->lock);
}

/* A copy of the record so far, so that a case reads it unlocked. */
static unsigned int snapshot(struct trace_ctx *t, struct rec *out)
{
	unsigned int n;

	raw_spin_lock_irq(&t->lock);
	n = t->n;
	memcpy(out, t->rec, n * sizeof(*out));
	raw_spin_unlock_irq(&t->lock);
	return n;
}

static bool recorded(struct trace_ctx *t, enum ev ev)
{
	bool found = false;
	unsigned int i;

	raw_spin_lock_irq(&t->lock);
	for (i = 0; i < t->n; i++)
		found |= t->rec[i].ev == ev;
	raw_spin_unlock_irq(&t->lock);
	return found;
}

/* Check that @n records are the events @want, in that order. */
static void expect_events(struct kunit *test, const struct rec *r,
			  unsigned int n, const enum ev *want, unsigned int len)
{
	struct trace_ctx *t = test->priv;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, t->dropped, 0);
	KUNIT_EXPECT_EQ_MSG(test, n, len, "events recorded, not as many as expected");
	for (i = 0; n != len && i < n; i++)
		kunit_info(test, "recorded event %u: %s\n", i, ev_name[r[i].ev]);
	for (i = 0; i < min(n, len); i++)
		KUNIT_EXPECT_STREQ_MSG(test, ev_name[r[i].ev], ev_name[want[i]],
				       "event %u of the callout's life", i);
}

static u64 tick_now(void)
{
	return div64_u64(ktime_get_ns(), twheel_tick_ns());
}

static void trace_fn(void *arg)
{
	atomic_inc(arg);
}

/*
 * Arm @c for @ticks on this CPU, which is returned in @cpu, and bound the
 * tick it was armed in by @before and @after.
 */
static int arm_here(struct callout *c, atomic_t *runs, unsigned long ticks,
		    unsigned int *cpu, u64 *before, u64 *after)
{
	int ret;

	preempt_disable();
	*cpu = smp_processor_id();
	*before = tick_now();
	ret = setcallout(c, trace_fn, runs, ticks);
	*after = tick_now();
	preempt_enable();
	return ret;
}

/*
 * Check a callout_start event @r against the arming it reports: @ticks
 * asked for, exact, between ticks @before and @after.
 */
static void expect_start(struct kunit *test, const struct rec *r,
			 unsigned long ticks, unsigned int cpu, u64 before,
			 u64 after, bool rearmed)
{
	KUNIT_EXPECT_PTR_EQ(test, (void *)r->func, (void *)trace_fn);
	KUNIT_EXPECT_GE_MSG(test, r->expires, before + ticks + 1,
			    "armed before the call");
	KUNIT_EXPECT_LE_MSG(test, r->expires, after + ticks + 1,
			    "armed after the call");
	KUNIT_EXPECT_EQ_MSG(test, r->last, r->expires, "exact, no window");
	KUNIT_EXPECT_EQ_MSG(test, r->deadline, r->expires * twheel_tick_ns(),
			    "deadline: the start of the tick it is due on");
	KUNIT_EXPECT_EQ(test, r->cpu, cpu);
	KUNIT_EXPECT_EQ(test, r->on_cpu, cpu);
	KUNIT_EXPECT_EQ(test, r->rearmed, rearmed);
}

/*
 * Check the end of a life: @r[0] expire_entry, @r[1] expire_exit, @r[2]
 * the tick that ran it, for a callout armed by @start.
 */
static void expect_expiry(struct kunit *test, const struct rec *r,
			  const struct rec *start)
{
	u64 tick = twheel_tick_ns(), over;

	KUNIT_EXPECT_PTR_EQ(test, (void *)r[0].func, (void *)trace_fn);
	KUNIT_EXPECT_GE_MSG(test, r[0].now, start->expires,
			    "ran before its tick");
	KUNIT_EXPECT_EQ(test, r[0].on_cpu, start->cpu);
	/* late_ns counts from the deadline, the due tick's start here. */
	over = r[0].now - min(r[0].now, start->expires);
	KUNIT_EXPECT_GE(test, r[0].late_ns, over * tick);
	KUNIT_EXPECT_LT(test, r[0].late_ns, (over + 1) * tick);
	KUNIT_EXPECT_EQ(test, r[1].on_cpu, start->cpu);
	KUNIT_EXPECT_EQ(test, r[2].on_cpu, start->cpu);
	KUNIT_EXPECT_GE(test, r[2].ran, 1U);
	KUNIT_EXPECT_GE_MSG(test, r[2].now, start->expires,
			    "the wheel ran it before reaching its tick");
}

/*
 * callout_init, then setcallout() of an idle callout (start, rearmed 0),
 * of the pending one (cancel, then start with rearmed 1), and its expiry:
 * expire_entry, expire_exit, and the wheel_tick that ran it.
 */
static void setcallout_traces_each_step(struct kunit *test)
{
	static const enum ev want[] = { EV_INIT, EV_START, EV_CANCEL,
					EV_START, EV_ENTRY, EV_EXIT, EV_TICK };
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *runs = kunit_kzalloc(test, sizeof(*runs), GFP_KERNEL);
	struct rec *r = kunit_kcalloc(test, MAX_RECS, sizeof(*r), GFP_KERNEL);
	struct trace_ctx *t = test->priv;
	unsigned int cpu[2], n;
	u64 before[2], after[2];
	int ret[2];

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, runs);
	KUNIT_ASSERT_NOT_NULL(test, r);
	follow(t, c, NULL);
	callout_init(c);
	/* idle -> pending, far off; then pending -> pending, next tick */
	ret[0] = arm_here(c, runs, FAR_TICKS, &cpu[0], &before[0], &after[0]);
	ret[1] = arm_here(c, runs, 1, &cpu[1], &before[1], &after[1]);
	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 1);
	/* expire_exit follows the function's return; the tick, after that. */
	KUNIT_EXPECT_TRUE(test, poll_until(recorded(t, EV_TICK)));
	/* Nothing, unless it never ran: then it must not outlive the case. */
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(c), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(runs), 1);

	n = snapshot(t, r);
	expect_events(test, r, n, want, ARRAY_SIZE(want));
	if (n != ARRAY_SIZE(want))
		return;
	expect_start(test, &r[1], FAR_TICKS, cpu[0], before[0], after[0],
		     false);
	expect_start(test, &r[3], 1, cpu[1], before[1], after[1], true);
	KUNIT_EXPECT_EQ(test, r[2].on_cpu, cpu[1]);
	expect_expiry(test, &r[4], &r[3]);
}

/*
 * unsetcallout() of a pending callout reports one cancel and no expiry;
 * then unsetcallout_sync() of the idle one reports nothing.  It is armed
 * CANCEL_AHEAD ticks ahead, with bottom halves off, so that its tick
 * cannot come before the cancel.  Bottom halves off alone were enough for
 * the next tick, but not under PREEMPT_RT on 7.2 (not 6.12), where they no
 * longer keep the softirq threads off the CPU: there the callout ran
 * before the cancel in 2 runs of 3, once with the task held on its CPU at
 * SCHED_FIFO (cpu_hold()) as well.
 */
#define CANCEL_AHEAD	50

static void unsetcallout_pending_traces_one_cancel(struct kunit *test)
{
	static const enum ev want[] = { EV_INIT, EV_START, EV_CANCEL };
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *runs = kunit_kzalloc(test, sizeof(*runs), GFP_KERNEL);
	struct rec *r = kunit_kcalloc(test, MAX_RECS, sizeof(*r), GFP_KERNEL);
	struct trace_ctx *t = test->priv;
	int armed, ret[2];
	unsigned int n;
	u64 due;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, runs);
	KUNIT_ASSERT_NOT_NULL(test, r);
	follow(t, c, NULL);
	callout_init(c);
	local_bh_disable();
	armed = setcallout(c, trace_fn, runs, CANCEL_AHEAD);
	due = tick_now() + CANCEL_AHEAD + 1;
	ret[0] = unsetcallout(c);
	local_bh_enable();
	ret[1] = unsetcallout_sync(c);
	/* Two ticks past its due one, a cancel that failed would show. */
	while (tick_now() < due + 2)
		cpu_relax();

	KUNIT_EXPECT_EQ(test, armed, 0);
	KUNIT_EXPECT_EQ(test, ret[0], 1);
	KUNIT_EXPECT_EQ(test, ret[1], 0);
	KUNIT_EXPECT_EQ(test, atomic_read(runs), 0);
	n = snapshot(t, r);
	expect_events(test, r, n, want, ARRAY_SIZE(want));
}

/*
 * A timeout() entry's life, followed by its function: untimeout() of a
 * pending one reports start and cancel; one that runs, start, expire_entry,
 * expire_exit and its tick.  timeout() initialises its entry first, which
 * happens before the start names the handle, so is not seen here.
 */
static void timeout_traces_start_cancel_and_expiry(struct kunit *test)
{
	static const enum ev cancelled[] = { EV_START, EV_CANCEL };
	static const enum ev ran[] = { EV_START, EV_ENTRY, EV_EXIT, EV_TICK };
	atomic_t *runs = kunit_kzalloc(test, sizeof(*runs), GFP_KERNEL);
	struct rec *r = kunit_kcalloc(test, MAX_RECS, sizeof(*r), GFP_KERNEL);
	struct trace_ctx *t = test->priv;
	unsigned int cpu, n;
	u64 before, after;
	int ret[2];

	KUNIT_ASSERT_NOT_NULL(test, runs);
	KUNIT_ASSERT_NOT_NULL(test, r);

	follow(t, NULL, trace_fn);
	ret[0] = timeout(trace_fn, runs, FAR_TICKS);
	ret[1] = untimeout(trace_fn, runs);
	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 1);
	n = snapshot(t, r);
	expect_events(test, r, n, cancelled, ARRAY_SIZE(cancelled));
	if (n >= 1)
		KUNIT_EXPECT_FALSE(test, r[0].rearmed);

	follow(t, NULL, trace_fn);
	preempt_disable();
	cpu = smp_processor_id();
	before = tick_now();
	ret[0] = timeout(trace_fn, runs, 0);
	after = tick_now();
	preempt_enable();
	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_TRUE(test, poll_until(recorded(t, EV_TICK)));
	KUNIT_EXPECT_EQ(test, untimeout(trace_fn, runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(runs), 1);
	n = snapshot(t, r);
	expect_events(test, r, n, ran, ARRAY_SIZE(ran));
	if (n != ARRAY_SIZE(ran))
		return;
	expect_start(test, &r[0], 0, cpu, before, after, false);
	expect_expiry(test, &r[1], &r[0]);
}

/* Once the probes are unregistered, a whole life reaches none of them. */
static void unregistered_probes_see_nothing(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *runs = kunit_kzalloc(test, sizeof(*runs), GFP_KERNEL);
	struct trace_ctx *t = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, runs);
	follow(t, c, trace_fn);
	detach(t);
	callout_init(c);
	KUNIT_EXPECT_EQ(test, setcallout(c, trace_fn, runs, FAR_TICKS), 0);
	KUNIT_EXPECT_EQ(test, setcallout(c, trace_fn, runs, 0), 1);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(runs) == 1));
	KUNIT_EXPECT_EQ(test, setcallout(c, trace_fn, runs, FAR_TICKS), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(c), 1);
	KUNIT_EXPECT_EQ(test, timeout(trace_fn, runs, 0), 0);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(runs) == 2));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(c), 0);
	KUNIT_EXPECT_EQ(test, untimeout(trace_fn, runs), 0);

	KUNIT_EXPECT_EQ(test, t->n + t->dropped, 0);
}

static int trace_test_init(struct kunit *test)
{
	struct trace_ctx *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	raw_spin_lock_init(&t->lock);
	t->tick_cpu = -1;
	test->priv = t;
	return attach(t);
}

static void trace_test_exit(struct kunit *test)
{
	detach(test->priv);
}

static struct kunit_case twheel_trace_cases[] = {
	KUNIT_CASE(setcallout_traces_each_step),
	KUNIT_CASE(unsetcallout_pending_traces_one_cancel),
	KUNIT_CASE(timeout_traces_start_cancel_and_expiry),
	KUNIT_CASE(unregistered_probes_see_nothing),
	{}
};

static struct kunit_suite twheel_trace_suite = {
	.name = "twheel_trace",
	.init = trace_test_init,
	.exit = trace_test_exit,
	.test_cases = twheel_trace_cases,
};

kunit_test_suite(twheel_trace_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's trace events");
MODULE_LICENSE("GPL");
