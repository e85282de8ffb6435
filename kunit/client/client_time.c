// SPDX-License-Identifier: GPL-2.0
/*
 * client_time.c - suite twheel_client_time: callouts armed for a time in
 * ns rather than in ticks.  setcallout_ns(), setcallout_at(),
 * setcallout_jiffies() and setcallout_on() never run before their
 * deadline, against ktime_get(), nor in the tick they were armed in (a
 * deadline already past runs on the next tick); callout_when() and
 * callout_remaining() read the deadline back while the callout is
 * pending, KTIME_MAX when it is not.  setcallout_on() runs the function on
 * the CPU it names, and refuses an offline CPU (-ENODEV) and bad arguments
 * (-EINVAL) with nothing changed; with a precision the function begins
 * within it.  A CALLOUT_PINNED callout stays on the CPU it was first armed
 * on, wherever it is re-armed from.  callout_forward() keeps a periodic
 * callout's deadlines exactly a period apart, 10,000 periods long,
 * skips the periods it missed, and leaves one not yet due as it is
 * (returning 0, as hrtimer_forward()); after unsetcallout_shutdown() no
 * call arms the callout, not even from its running function, until
 * callout_init().
 *
 * Which tick twheel picks within a window, and how overlapping windows
 * share ticks and interrupts, is not visible to a client: suite
 * twheel_coalesce (../coalesce_test.c) reads the ticks twheel picked.
 *
 * How late a run may be: no later than LOST_NS, as in every suite; and, to
 * check the window a contract promises without failing on a slow machine,
 * no later than a control, a soft hrtimer pinned to the same CPU and due
 * at the end of the window, by more than a tick.  The kernel runs expired
 * soft hrtimers in order of expiry, twheel's tick among them, so however
 * slow the machine is, the control is late too.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "client.h"
#include "ticks.h"

#define NTP		8	/* timed probes a case has at hand */
#define NTIMED		2000	/* armings of the many-deadlines case */
#define NPERIODS	10000	/* periods of the callout_forward() case */
#define NPIN_RUNS	8	/* runs of a pinned callout, checked */

/* The calls that arm a callout for a deadline, and setcallout() for ticks. */
enum arm_way {
	BY_NS,			/* setcallout_ns(), a delay */
	BY_AT,			/* setcallout_at(), a time */
	BY_JIFFIES,		/* setcallout_jiffies(), a jiffies value */
	BY_ON,			/* setcallout_on(), a delay */
	BY_ON_ABS,		/* setcallout_on(CALLOUT_ABSOLUTE), a time */
	BY_TICKS,		/* setcallout(), ticks */
};

#define NWAYS		(BY_ON_ABS + 1)	/* the ways with a deadline */

static const char * const way_name[] = {
	[BY_NS] = "setcallout_ns()",
	[BY_AT] = "setcallout_at()",
	[BY_JIFFIES] = "setcallout_jiffies()",
	[BY_ON] = "setcallout_on()",
	[BY_ON_ABS] = "setcallout_on(CALLOUT_ABSOLUTE)",
	[BY_TICKS] = "setcallout()",
};

/*
 * A timed probe: a handle, where the deadline of its last arming lies and
 * the window its run must begin in, a control hrtimer due at the end of
 * that window, and what the run saw.  The arming side writes @dlo to
 * @control before the run can be checked; the function writes the fields
 * after @runs and publishes them with the release increment of @runs.
 */
struct tprobe {
	struct callout c;
	ktime_t dlo;		/* the deadline is not before this ... */
	ktime_t dhi;		/* ... nor after this */
	ktime_t lo;		/* no run may begin before this */
	ktime_t end;		/* the start of the latest tick the window allows */
	int arm_cpu;		/* the CPU of the arming call */
	struct hrtimer control;	/* due at @end, on the CPU of the run */
	ktime_t control_at;	/* when @control ran */
	atomic_t control_runs;

	atomic_t runs;		/* runs that have returned */
	ktime_t at;		/* start of the last run */
	int cpu;		/* CPU of the last run */
	bool softirq;		/* the last run was in softirq context */
	bool pending;		/* callout_pending() in the last run */
	ktime_t when;		/* callout_when() in the last run */
};

/* A lock-associated or plain callout set up with CALLOUT_PINNED. */
enum pin_lock { PIN_NONE, PIN_SPIN, PIN_RAW };

struct pin_kind {
	enum pin_lock lock;
	unsigned int flags;
	const char *desc;
};

struct pinned {
	struct callout_locked lc;	/* lc.c alone, for PIN_NONE */
	spinlock_t lock;
	raw_spinlock_t raw_lock;
	const struct pin_kind *kind;
	atomic_t runs;
	int cpu[NPIN_RUNS];
	bool held[NPIN_RUNS];	/* its lock was held as the run began */
};

/* A callout that re-arms itself with callout_forward(), one period on. */
struct fwd {
	struct callout c;
	u64 period;
	ktime_t start;		/* the first deadline */
	s64 goal;		/* periods to go, in all */
	bool stop;		/* .exit: do not forward again */
	atomic_t done;
	/* Written by the function alone: */
	s64 total;		/* the sum of callout_forward()'s returns */
	s64 runs;
	unsigned int early;	/* runs before start + total * period */
	s64 early_ns;		/* the earliest of them, by this much */
	unsigned int drift;	/* forwards whose deadline was not that */
	unsigned int not_least;	/* forwards that skipped too few or many */
	unsigned int bad;	/* forwards that returned less than 1 */
	s64 bad_ret;
	ktime_t last_when;	/* callout_when() after the last forward */
};

/* A callout to shut down, and what its function does meanwhile. */
enum sd_mode {
	SD_ONCE,		/* count the run, nothing else */
	SD_PERIODIC,		/* re-arm for the next tick */
	SD_HOLD,		/* re-arm, wait for the cancel, try to re-arm */
	SD_SELF,		/* try to shut itself down, then re-arm far */
};

#define NSD_CALLS	6

static const char * const sd_call_name[NSD_CALLS] = {
	"setcallout()", "setcallout_ns()", "setcallout_at()",
	"setcallout_jiffies()", "setcallout_on()", "callout_forward()",
};

struct sd {
	struct callout c;
	int mode;		/* enum sd_mode */
	atomic_t release;	/* .exit: end a held run */
	atomic_t holding;	/* a held run re-armed, and waits */
	atomic_t in_fn;		/* runs under way */
	atomic_t runs;
	/* What a held or SD_SELF run saw: */
	bool saw_cancel;	/* its re-arm was cancelled */
	s64 ret[NSD_CALLS];	/* the calls after that */
	bool pending_after;
	ktime_t when_after;
};

/* A function that re-arms itself and reads callout_when() either side. */
struct when_rearm {
	struct callout c;
	ktime_t d2;		/* the deadline it re-arms for */
	ktime_t before, after;	/* callout_when() before and after */
	int ret;
	atomic_t runs;
};

/* The suite's own state, client.own. */
struct tctx {
	struct tprobe t[NTP];
	struct tprobe *many;	/* kvcalloc()ed */
	int nmany;
	struct pinned pin;
	struct fwd fwd;
	struct sd sd;
	struct when_rearm wr;
};

static struct tctx *own(struct kunit *test)
{
	return ((struct client *)test->priv)->own;
}

static void tprobe_fn(void *arg)
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
	atomic_inc_return_release(&t->control_runs);
	return HRTIMER_NORESTART;
}

static void tprobe_init(struct tprobe *t)
{
	callout_init(&t->c);
	hrtimer_init(&t->control, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);
	t->control.function = control_fn;
}

/*
 * An arming that began at @before and returned at @after, for a deadline
 * between @dlo and @dhi and with @precision.  No run may begin before the
 * deadline, nor in the tick of the call.  The latest tick it may be due
 * on is the later of the window's first (the first tick to begin at or
 * after the deadline, or the one after the call's) and its last (the
 * last to begin by the deadline plus the precision): its start is @end.
 */
static void tp_window(struct tprobe *t, ktime_t before, ktime_t after,
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
static int tp_arm(struct tprobe *t, enum arm_way way, s64 v, u64 precision,
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

	hrtimer_start(&t->control, t->end, HRTIMER_MODE_ABS_PINNED_SOFT);
}

/* Start @t's control on @cpu, due at the end of its window. */
static void control_start(struct tprobe *t, int cpu)
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
 * its arming, not after its control by more than a tick, on @cpu (if not
 * negative), in softirq context, and neither pending nor with a deadline
 * as it runs.
 */
static void tp_check(struct kunit *test, struct tprobe *t, int runs, int cpu,
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
	KUNIT_EXPECT_LE_MSG(test, by, (s64)tick_ns(),
			    "%s: ran %lld ns after a soft hrtimer due at the end of its window (%lld ns after the deadline)",
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

/* @fn(@data) on @cpu, from its hardirq (an IPI). */
struct on_cpu_call {
	int (*fn)(void *data);
	void *data;
	int ret;
};

static void on_cpu_call_fn(void *info)
{
	struct on_cpu_call *oc = info;

	oc->ret = oc->fn(oc->data);
}

/* @fn's return, or the IPI's error. */
static int call_on(int cpu, int (*fn)(void *data), void *data)
{
	struct on_cpu_call oc = { .fn = fn, .data = data, .ret = INT_MIN };
	int err = smp_call_function_single(cpu, on_cpu_call_fn, &oc, 1);

	return err ? err : oc.ret;
}

/* A delay: @ticks ticks, and half a tick if @half, and @delta ns. */
struct delay_case {
	unsigned int ticks;
	bool half;
	s64 delta;
	const char *desc;
};

static s64 delay_ns(const struct delay_case *dc)
{
	return dc->ticks * tick_ns() + (dc->half ? tick_ns() / 2 : 0) +
	       dc->delta;
}

static const struct delay_case delay_cases[] = {
	{ 0, false, 0, "0 ns (the next tick)" },
	{ 0, false, 1, "1 ns" },
	{ 0, true, 0, "half a tick" },
	{ 1, false, -1, "a tick less 1 ns" },
	{ 1, false, 0, "a tick" },
	{ 1, false, 1, "a tick and 1 ns" },
	{ 2, true, 0, "2.5 ticks" },
	{ 10, false, 0, "10 ticks" },
	{ 63, true, 0, "63.5 ticks" },
	{ 300, false, 7, "300 ticks and 7 ns" },
};

KUNIT_ARRAY_PARAM_DESC(delay, delay_cases, desc);

/*
 * Each way of arming for a deadline, for one delay: the function runs
 * once, not before the deadline, on the calling CPU, within its window.
 */
static void setcallout_on_runs_after_deadline(struct kunit *test)
{
	const struct delay_case *dc = test->param_value;
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	s64 ns = delay_ns(dc);
	unsigned long j;
	enum arm_way way;
	char what[64];

	for (way = BY_NS; way < NWAYS; way++) {
		switch (way) {
		case BY_AT:
		case BY_ON_ABS:
			KUNIT_ASSERT_EQ(test, tp_arm(&t[way], way,
						     ktime_add_ns(ktime_get(), ns),
						     0, CALLOUT_CPU_ANY), 0);
			break;
		case BY_JIFFIES:
			/* As many jiffies as the delay covers, rounded up. */
			j = jiffies + DIV_ROUND_UP_ULL(ns, TICK_NSEC);
			KUNIT_ASSERT_EQ(test, tp_arm(&t[way], way, j, 0,
						     CALLOUT_CPU_ANY), 0);
			break;
		default:
			KUNIT_ASSERT_EQ(test, tp_arm(&t[way], way, ns, 0,
						     CALLOUT_CPU_ANY), 0);
			break;
		}
		control_start(&t[way], ctx->cpu_a);
	}
	for (way = BY_NS; way < NWAYS; way++) {
		snprintf(what, sizeof(what), "%s, %s", way_name[way], dc->desc);
		tp_check(test, &t[way], 1, ctx->cpu_a, what);
	}
	spin_ns(quiet_ns(0));
	for (way = BY_NS; way < NWAYS; way++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&t[way].runs), 1,
				    "%s ran again", way_name[way]);
}

/* A deadline already past: how far, and given how. */
struct past_case {
	s64 when;
	bool absolute;
	bool from_now;		/* @when is relative to ktime_get() */
	const char *desc;
};

static const struct past_case past_cases[] = {
	{ -1, true, true, "absolute, 1 ns ago" },
	{ -10 * (s64)NSEC_PER_MSEC, true, true, "absolute, 10 ms ago" },
	{ 0, true, false, "absolute, 0 (boot)" },
	{ -1, true, false, "absolute, -1 ns" },
	{ KTIME_MIN, true, false, "absolute, KTIME_MIN" },
	{ 0, false, false, "relative, 0" },
	{ -1, false, false, "relative, -1 ns" },
	{ -(s64)NSEC_PER_SEC, false, false, "relative, -1 s" },
	{ KTIME_MIN, false, false, "relative, KTIME_MIN" },
};

KUNIT_ARRAY_PARAM_DESC(past, past_cases, desc);

/*
 * setcallout_on() for a deadline already past runs on the next tick: not
 * in the tick of the call, and not after a control due at the next
 * tick's start (by more than a tick).
 */
static void setcallout_on_past_deadline_runs_on_next_tick(struct kunit *test)
{
	const struct past_case *pc = test->param_value;
	struct client *ctx = test->priv;
	struct tprobe *t = &own(test)->t[0];
	s64 when = pc->from_now ? ktime_add(ktime_get(), pc->when) : pc->when;

	KUNIT_ASSERT_EQ(test, tp_arm(t, pc->absolute ? BY_ON_ABS : BY_ON, when,
				     0, CALLOUT_CPU_ANY), 0);
	control_start(t, ctx->cpu_a);
	tp_check(test, t, 1, ctx->cpu_a, pc->desc);
}

/* Deadlines far off, for reading them back. */
static s64 far_value(enum arm_way way)
{
	switch (way) {
	case BY_NS:
	case BY_ON:
		return FAR_NS;
	case BY_AT:
	case BY_ON_ABS:
		return ktime_add_ns(ktime_get(), FAR_NS + tick_ns() / 3);
	case BY_JIFFIES:
		return jiffies + nsecs_to_jiffies(FAR_NS);
	default:
		return far_ticks();
	}
}

struct when_case {
	enum arm_way way;
	u64 precision_ticks;
	const char *desc;
};

static const struct when_case when_cases[] = {
	{ BY_NS, 0, "setcallout_ns()" },
	{ BY_AT, 0, "setcallout_at()" },
	{ BY_JIFFIES, 0, "setcallout_jiffies()" },
	{ BY_ON, 7, "setcallout_on(), 7 ticks' precision" },
	{ BY_ON_ABS, 100, "setcallout_on(CALLOUT_ABSOLUTE), 100 ticks' precision" },
	{ BY_TICKS, 0, "setcallout(), the start of its tick" },
};

KUNIT_ARRAY_PARAM_DESC(when, when_cases, desc);

/*
 * callout_when() reads back the deadline asked for (not the tick picked
 * within a precision), and callout_remaining() the time to it, while the
 * callout is pending; a re-arm moves it; after a cancel both are
 * KTIME_MAX.
 */
static void callout_when_reads_deadline_while_pending(struct kunit *test)
{
	const struct when_case *wc = test->param_value;
	struct tprobe *t = own(test)->t;
	u64 precision = wc->precision_ticks * tick_ns();
	ktime_t when, before, after, left, d2;
	int tries;

	KUNIT_ASSERT_EQ(test, tp_arm(t, wc->way, far_value(wc->way), precision,
				     CALLOUT_CPU_ANY), 0);
	/* setcallout(): again, until no tick began during the call */
	for (tries = 0; t->dlo != t->dhi && wc->way == BY_TICKS && tries < 10;
	     tries++)
		KUNIT_ASSERT_EQ(test, tp_arm(t, wc->way, far_value(wc->way), 0,
					     CALLOUT_CPU_ANY), 1);
	when = callout_when(&t->c);
	KUNIT_EXPECT_GE_MSG(test, when, t->dlo, "%s: deadline %lld ns early",
			    wc->desc, ktime_to_ns(ktime_sub(t->dlo, when)));
	KUNIT_EXPECT_LE_MSG(test, when, t->dhi, "%s: deadline %lld ns late",
			    wc->desc, ktime_to_ns(ktime_sub(when, t->dhi)));
	if (wc->way == BY_TICKS)
		KUNIT_EXPECT_EQ_MSG(test, div64_u64(when, tick_ns()) * tick_ns(),
				    (u64)when, "not the start of a tick");

	before = ktime_get();
	left = callout_remaining(&t->c);
	after = ktime_get();
	KUNIT_EXPECT_GE(test, left, ktime_sub(when, after));
	KUNIT_EXPECT_LE(test, left, ktime_sub(when, before));

	/* pending -> re-armed, a tick later */
	d2 = ktime_add_ns(when, tick_ns());
	KUNIT_EXPECT_EQ(test, setcallout_at(&t->c, tprobe_fn, t, d2), 1);
	KUNIT_EXPECT_EQ(test, callout_when(&t->c), d2);

	/* pending -> idle */
	KUNIT_EXPECT_EQ(test, unsetcallout(&t->c), 1);
	KUNIT_EXPECT_EQ(test, callout_when(&t->c), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, callout_remaining(&t->c), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->runs), 0);
}

/*
 * Not pending, callout_when() and callout_remaining() are KTIME_MAX: for
 * NULL, a handle never initialised, one never armed, one that has run,
 * and in its own function.
 */
static void callout_when_not_pending_is_ktime_max(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	struct callout *stray = kunit_kzalloc(test, sizeof(*stray), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_EXPECT_EQ(test, callout_when(NULL), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, callout_remaining(NULL), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, callout_when(stray), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, callout_remaining(stray), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, callout_when(&t->c), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, callout_remaining(&t->c), KTIME_MAX);

	KUNIT_ASSERT_EQ(test, tp_arm(t, BY_NS, tick_ns(), 0, CALLOUT_CPU_ANY),
			0);
	control_start(t, ctx->cpu_a);
	tp_check(test, t, 1, ctx->cpu_a, "setcallout_ns(a tick)");
	KUNIT_EXPECT_EQ(test, callout_when(&t->c), KTIME_MAX);
	KUNIT_EXPECT_EQ(test, callout_remaining(&t->c), KTIME_MAX);
}

/*
 * A jiffies deadline too far to count in ns is armed for KTIME_MAX, not
 * for what the product wraps to: the first delay is the least whose ns
 * pass U64_MAX, which wrapped to under a jiffy, the next the longest a
 * jiffies difference can say.
 */
static void setcallout_jiffies_far_never_wraps(struct kunit *test)
{
	static const unsigned long far[] = {
		U64_MAX / TICK_NSEC + 1, LONG_MAX,
	};
	struct tprobe *t = own(test)->t;
	ktime_t when;
	int i;

	for (i = 0; i < ARRAY_SIZE(far); i++) {
		KUNIT_ASSERT_EQ(test, setcallout_jiffies(&t->c, tprobe_fn, t,
							 jiffies + far[i]), 0);
		when = callout_when(&t->c);
		KUNIT_EXPECT_TRUE(test, callout_pending(&t->c));
		KUNIT_EXPECT_EQ_MSG(test, when, KTIME_MAX,
				    "%lu jiffies off: deadline in %lld ns", far[i],
				    ktime_to_ns(ktime_sub(when, ktime_get())));
		KUNIT_EXPECT_EQ(test, unsetcallout(&t->c), 1);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&t->runs), 0);
}

static void when_rearm_fn(void *arg)
{
	struct when_rearm *w = arg;

	w->before = callout_when(&w->c);
	w->ret = setcallout_at(&w->c, when_rearm_fn, w, w->d2);
	w->after = callout_when(&w->c);
	atomic_inc_return_release(&w->runs);
}

/*
 * In its own function a callout has no deadline until it re-arms itself;
 * then it has the new one.
 */
static void callout_when_in_own_function_after_rearm(struct kunit *test)
{
	struct when_rearm *w = &own(test)->wr;

	w->d2 = ktime_add_ns(ktime_get(), FAR_NS);
	KUNIT_ASSERT_EQ(test, setcallout_ns(&w->c, when_rearm_fn, w, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&w->runs, 1, LOST_NS));
	KUNIT_EXPECT_EQ_MSG(test, w->before, KTIME_MAX, "before re-arming");
	KUNIT_EXPECT_EQ(test, w->ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, w->after, w->d2, "after re-arming");
	KUNIT_EXPECT_EQ(test, callout_when(&w->c), w->d2);
	KUNIT_EXPECT_EQ(test, unsetcallout(&w->c), 1);
}

/*
 * 2,000 armings by every way, for deadlines spread over 40 ticks at
 * random offsets within a tick, some with a precision, some re-armed at
 * once, from each CPU in turn: each runs once, none before its deadline,
 * on the CPU it was armed on.
 */
static void setcallout_on_many_deadlines_never_early(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tctx *tc = own(test);
	int i, k, cpu, ncpus = 0, early = 0, ran, twice = 0, moved = 0;
	int late = 0, cpus[NR_CPUS];
	s64 worst = 0, latest = 0, v;
	struct rnd_state rnd;
	unsigned long flags;
	struct tprobe *t;
	u64 precision;
	ktime_t end;
	enum arm_way way;
	int ret[2];

	tc->many = kvcalloc(NTIMED, sizeof(*tc->many), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tc->many);
	for (i = 0; i < NTIMED; i++)
		tprobe_init(&tc->many[i]);
	tc->nmany = NTIMED;
	for_each_online_cpu(cpu)
		cpus[ncpus++] = cpu;
	prandom_seed_state(&rnd, 21);

	for (i = 0; i < NTIMED; i++) {
		t = &tc->many[i];
		if (i % DIV_ROUND_UP(NTIMED, ncpus) == 0)
			KUNIT_ASSERT_EQ(test,
					pin(cpus[i / DIV_ROUND_UP(NTIMED, ncpus)]),
					0);
		way = i % NWAYS;
		precision = i % 3 ? 0 : prandom_u32_state(&rnd) % (4 * tick_ns());
		local_irq_save(flags);
		for (k = 0; k < 1 + (i % 7 == 3); k++) {
			v = prandom_u32_state(&rnd) % (40 * tick_ns());
			if (way == BY_AT || way == BY_ON_ABS)
				v = ktime_add_ns(ktime_get(), v);
			else if (way == BY_JIFFIES)
				v = jiffies + (s64)(v % 8) - 1;
			ret[k] = tp_arm(t, way, v, precision, CALLOUT_CPU_ANY);
		}
		local_irq_restore(flags);
		KUNIT_EXPECT_EQ_MSG(test, ret[0], 0, "arming %d by %s", i,
				    way_name[way]);
		if (i % 7 == 3)
			KUNIT_EXPECT_EQ_MSG(test, ret[1], 1, "re-arming %d by %s",
					    i, way_name[way]);
	}
	KUNIT_ASSERT_EQ(test, pin(ctx->cpu_a), 0);

	end = ktime_add_ns(ktime_get(), LOST_NS);
	do {
		for (ran = 0, i = 0; i < NTIMED; i++)
			ran += atomic_read_acquire(&tc->many[i].runs) != 0;
	} while (ran < NTIMED && ktime_before(ktime_get(), end));
	spin_ns(quiet_ns(0));

	for (i = 0; i < NTIMED; i++) {
		t = &tc->many[i];
		if (atomic_read_acquire(&t->runs) != 1) {
			twice++;
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&t->runs), 1,
					    "arming %d by %s", i,
					    way_name[i % NWAYS]);
			continue;
		}
		if (ktime_before(t->at, t->lo)) {
			early++;
			worst = max(worst, ktime_to_ns(ktime_sub(t->lo, t->at)));
		}
		moved += t->cpu != t->arm_cpu;
		v = ktime_to_ns(ktime_sub(t->at, t->end));
		latest = max(latest, v);
		late += v > (s64)tick_ns();
	}
	KUNIT_EXPECT_EQ_MSG(test, early, 0,
			    "%d of %d ran before their deadline, one by %lld ns",
			    early, NTIMED, worst);
	KUNIT_EXPECT_EQ_MSG(test, moved, 0,
			    "%d of %d ran on another CPU than the arming one",
			    moved, NTIMED);
	KUNIT_EXPECT_EQ(test, twice, 0);
	KUNIT_EXPECT_LE_MSG(test, latest, (s64)LOST_NS,
			    "one ran %lld ns after its window", latest);
	kunit_info(test, "%d armings on %d CPUs: %d began more than a tick after their window, the latest %lld ns\n",
		   NTIMED, ncpus, late, latest);
}

/*
 * setcallout_on() with a CPU runs the function there, whichever CPU
 * calls, for a delay or a time; CALLOUT_CPU_ANY runs it on the calling
 * CPU.
 */
static void setcallout_on_cpu_runs_there(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	int cpu, n = 0, i, want[NTP];
	char what[64];

	for_each_online_cpu(cpu) {
		if (n + 2 > NTP - 1)
			break;
		KUNIT_EXPECT_EQ(test, tp_arm(&t[n], BY_ON,
					     2 * tick_ns() + tick_ns() / 3, 0,
					     cpu), 0);
		control_start(&t[n], cpu);
		want[n++] = cpu;
		KUNIT_EXPECT_EQ(test, tp_arm(&t[n], BY_ON_ABS,
					     ktime_add_ns(ktime_get(),
							  3 * tick_ns()), 0,
					     cpu), 0);
		control_start(&t[n], cpu);
		want[n++] = cpu;
	}
	KUNIT_EXPECT_EQ(test, tp_arm(&t[n], BY_ON, tick_ns(), 0,
				     CALLOUT_CPU_ANY), 0);
	control_start(&t[n], ctx->cpu_a);
	want[n++] = ctx->cpu_a;
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "setcallout_on(CPU %d), #%d",
			 want[i], i);
		tp_check(test, &t[i], 1, want[i], what);
	}
}

/*
 * setcallout_on() naming one CPU for a callout whose function is running
 * on another: it stays there while the function runs, and moves to the
 * CPU named once the function has returned, so its next run is on that
 * CPU, after the first has returned, never beside it.  (Before the fix
 * it stayed on the CPU it ran on.)
 */
static void setcallout_on_running_elsewhere_moves_after(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r = { .c = &h->c, .fn = hold_fn, .arg = h };
	int ret;

	need_two_cpus(test);
	hold_reset(h, SAFETY_NS, 0);
	KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
	KUNIT_ASSERT_EQ(test, r.ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LOST_NS),
			      "the held function did not start");
	/* running on B -> pending on B, running on B -> pending on A */
	ret = setcallout_on(&h->c, hold_fn, h, 0, 0, ctx->cpu_a, 0);
	atomic_set_release(&h->release, 1);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "a running callout is not pending");
	KUNIT_ASSERT_TRUE(test, wait_count(&h->runs, 2, LOST_NS));
	KUNIT_EXPECT_EQ(test, h->cpu[0], ctx->cpu_b);
	KUNIT_EXPECT_EQ_MSG(test, h->cpu[1], ctx->cpu_a,
			    "armed for CPU %d while running on CPU %d: ran on CPU %d",
			    ctx->cpu_a, ctx->cpu_b, h->cpu[1]);
	KUNIT_EXPECT_FALSE_MSG(test, h->overlapped, "ran on two CPUs at once");
	KUNIT_EXPECT_GE(test, h->start[1], h->end[0]);
}

/* Bad CPUs and flags of setcallout_on(). */
struct bad_on_case {
	int cpu;
	bool nr_cpu_ids;	/* @cpu is nr_cpu_ids */
	unsigned int flags;
	const char *desc;
};

static const struct bad_on_case bad_on_cases[] = {
	{ .nr_cpu_ids = true, .desc = "cpu nr_cpu_ids" },
	{ .cpu = INT_MAX, .desc = "cpu INT_MAX" },
	{ .cpu = -2, .desc = "cpu -2" },
	{ .cpu = INT_MIN, .desc = "cpu INT_MIN" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = 0x8, .desc = "flags 0x8" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = CALLOUT_ABSOLUTE | 0x8,
	  .desc = "flags CALLOUT_ABSOLUTE | 0x8" },
	{ .cpu = 0, .flags = CALLOUT_IF_PENDING | 0x10,
	  .desc = "cpu 0, flags CALLOUT_IF_PENDING | 0x10" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = 0x80000000, .desc = "the top flag" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = ~0U, .desc = "every flag" },
};

KUNIT_ARRAY_PARAM_DESC(bad_on, bad_on_cases, desc);

/*
 * setcallout_on() with a CPU that is no CPU, or an unknown flag: -EINVAL,
 * nothing changed: an idle handle stays idle and records no arming
 * (callout_forward() still finds none), a pending one keeps its deadline
 * and runs nothing.
 */
static void setcallout_on_bad_cpu_or_flags_returns_einval(struct kunit *test)
{
	const struct bad_on_case *bc = test->param_value;
	struct tprobe *idle = &own(test)->t[0], *pend = &own(test)->t[1];
	int cpu = bc->nr_cpu_ids ? nr_cpu_ids : bc->cpu;
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);

	KUNIT_ASSERT_EQ(test, setcallout_at(&pend->c, tprobe_fn, pend, d0), 0);

	KUNIT_EXPECT_EQ(test, setcallout_on(&idle->c, tprobe_fn, idle,
					    tick_ns(), 0, cpu, bc->flags),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));
	KUNIT_EXPECT_EQ(test, callout_when(&idle->c), KTIME_MAX);
	/* Far, should it arm after all: it is cancelled below. */
	KUNIT_EXPECT_EQ_MSG(test, callout_forward(&idle->c, FAR_NS, 0),
			    -EINVAL, "a refused arming was recorded");
	unsetcallout(&idle->c);

	KUNIT_EXPECT_EQ(test, setcallout_on(&pend->c, tprobe_fn, pend, 0, 0,
					    cpu, bc->flags), -EINVAL);
	KUNIT_EXPECT_TRUE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_EQ(test, callout_when(&pend->c), d0);

	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&idle->runs) +
			atomic_read(&pend->runs), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 1);
}

/*
 * NULL and never-initialised handles and a NULL function: every way of
 * arming for a deadline returns -EINVAL and changes nothing, and so do
 * callout_forward() and unsetcallout_shutdown().
 */
static void setcallout_on_null_or_uninitialised_returns_einval(struct kunit *test)
{
	struct tprobe *pend = &own(test)->t[0];
	struct callout *stray = kunit_kzalloc(test, sizeof(*stray), GFP_KERNEL);
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);
	struct callout *c;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_ASSERT_EQ(test, setcallout_at(&pend->c, tprobe_fn, pend, d0), 0);
	for (i = 0; i < 2; i++) {
		c = i ? stray : NULL;
		KUNIT_EXPECT_EQ(test, setcallout_ns(c, tprobe_fn, pend, 0),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, setcallout_at(c, tprobe_fn, pend, 0),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, setcallout_jiffies(c, tprobe_fn, pend,
							 jiffies), -EINVAL);
		KUNIT_EXPECT_EQ(test, setcallout_on(c, tprobe_fn, pend, 0, 0,
						    CALLOUT_CPU_ANY, 0),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, callout_forward(c, tick_ns(), 0), -EINVAL);
		KUNIT_EXPECT_EQ(test, unsetcallout_shutdown(c), -EINVAL);
	}
	/* stray: still never initialised (and idle, if not, once freed) */
	KUNIT_EXPECT_EQ(test, setcallout(stray, tprobe_fn, pend, 0), -EINVAL);
	KUNIT_EXPECT_FALSE(test, callout_pending(stray));
	unsetcallout_sync(stray);

	KUNIT_EXPECT_EQ(test, setcallout_ns(&pend->c, NULL, pend, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, setcallout_on(&pend->c, NULL, pend, 0, 0,
					    CALLOUT_CPU_ANY, 0), -EINVAL);
	/* pend: still pending for d0, to call tprobe_fn */
	KUNIT_EXPECT_EQ(test, callout_when(&pend->c), d0);
	KUNIT_EXPECT_EQ(test, setcallout_ns(&pend->c, tprobe_fn, pend, 0), 1);
	KUNIT_EXPECT_TRUE(test, wait_count(&pend->runs, 1, LOST_NS));
}

/* callout_init_flags() takes 0 and CALLOUT_PINNED, and no other flag. */
static void callout_init_flags_rejects_unknown(struct kunit *test)
{
	static const unsigned int bad[] = {
		CALLOUT_RETURNUNLOCKED, 0x4, CALLOUT_PINNED | 0x4,
		CALLOUT_PINNED | CALLOUT_RETURNUNLOCKED, 0x80000000, ~0U,
	};
	struct callout *stray = kunit_kzalloc(test, sizeof(*stray), GFP_KERNEL);
	struct callout *c = &own(test)->t[0].c;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, stray);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, callout_init_flags(stray, bad[i]),
				    -EINVAL, "flags %#x", bad[i]);
	/* stray: still never initialised (far, and cancelled, if not) */
	KUNIT_EXPECT_EQ(test, setcallout(stray, tprobe_fn, own(test)->t,
					 far_ticks()), -EINVAL);
	unsetcallout_sync(stray);
	KUNIT_EXPECT_EQ(test, callout_init_flags(c, 0), 0);
	KUNIT_EXPECT_EQ(test, callout_init_flags(c, CALLOUT_PINNED), 0);
	KUNIT_EXPECT_EQ(test, callout_init_flags(NULL, CALLOUT_PINNED), -EINVAL);
}

static void pin_fn(void *arg)
{
	struct pinned *p = arg;
	int i = atomic_read(&p->runs);
	bool held = true;

	/* Held by someone: twheel, on this CPU, if anyone. */
	if (p->kind->lock == PIN_SPIN && spin_trylock(&p->lock)) {
		spin_unlock(&p->lock);
		held = false;
	} else if (p->kind->lock == PIN_RAW && raw_spin_trylock(&p->raw_lock)) {
		raw_spin_unlock(&p->raw_lock);
		held = false;
	}
	if (i < NPIN_RUNS) {
		p->cpu[i] = raw_smp_processor_id();
		p->held[i] = held;
	}
	if (p->kind->flags & CALLOUT_RETURNUNLOCKED) {
		if (p->kind->lock == PIN_SPIN)
			spin_unlock(&p->lock);
		else
			raw_spin_unlock(&p->raw_lock);
	}
	atomic_inc_return_release(&p->runs);
}

static int pin_setup(struct pinned *p, const struct pin_kind *kind)
{
	p->kind = kind;
	spin_lock_init(&p->lock);
	raw_spin_lock_init(&p->raw_lock);
	atomic_set(&p->runs, 0);
	switch (kind->lock) {
	case PIN_SPIN:
		return callout_init_lock(&p->lc, &p->lock, kind->flags);
	case PIN_RAW:
		return callout_init_raw_lock(&p->lc, &p->raw_lock, kind->flags);
	default:
		return callout_init_flags(&p->lc.c, kind->flags);
	}
}

/* The ways a pinned callout is armed, each for about a tick from now. */
static int pin_ns(void *data)
{
	struct pinned *p = data;

	return setcallout_ns(&p->lc.c, pin_fn, p, tick_ns());
}

static int pin_ticks(void *data)
{
	struct pinned *p = data;

	return setcallout(&p->lc.c, pin_fn, p, 0);
}

static int pin_at(void *data)
{
	struct pinned *p = data;

	return setcallout_at(&p->lc.c, pin_fn, p,
			     ktime_add_ns(ktime_get(), tick_ns()));
}

static int pin_jiffies(void *data)
{
	struct pinned *p = data;

	return setcallout_jiffies(&p->lc.c, pin_fn, p, jiffies + 1);
}

static int pin_on_here(void *data)
{
	struct pinned *p = data;

	return setcallout_on(&p->lc.c, pin_fn, p, tick_ns(), 0,
			     raw_smp_processor_id(), 0);
}

static int pin_forward(void *data)
{
	struct pinned *p = data;

	return callout_forward(&p->lc.c, tick_ns(), 0) >= 1 ? 0 : -ERANGE;
}

static int pin_far(void *data)
{
	struct pinned *p = data;

	return setcallout_ns(&p->lc.c, pin_fn, p, FAR_NS);
}

/*
 * Arm @p from @from (the case thread's CPU: directly; another: from an
 * IPI) with @arm, and check its run @i: on @want, under its lock.
 */
static void pin_step(struct kunit *test, struct pinned *p, int i, int from,
		     int (*arm)(void *data), int want, const char *what)
{
	int ret = from == raw_smp_processor_id() ? arm(p) : call_on(from, arm, p);

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s, from CPU %d", what, from);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, i + 1, LOST_NS),
			      "%s, from CPU %d: ran %d of %d times", what, from,
			      atomic_read(&p->runs), i + 1);
	KUNIT_EXPECT_EQ_MSG(test, p->cpu[i], want,
			    "%s, from CPU %d: ran on CPU %d", what, from,
			    p->cpu[i]);
	KUNIT_EXPECT_TRUE_MSG(test, p->held[i], "%s: not under its lock", what);
	/*
	 * The run counts itself before it returns, and twheel releases the
	 * lock and sees it returned after that: wait for it (nothing is
	 * pending), or the next arming can find the function still running
	 * on its CPU and keep the callout there, as it must.
	 */
	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->lc.c), 0,
			    "%s: pending after its run", what);
}

static const struct pin_kind pin_kinds[] = {
	{ PIN_NONE, CALLOUT_PINNED, "callout_init_flags(CALLOUT_PINNED)" },
	{ PIN_SPIN, CALLOUT_PINNED, "callout_init_lock(CALLOUT_PINNED)" },
	{ PIN_RAW, CALLOUT_PINNED | CALLOUT_RETURNUNLOCKED,
	  "callout_init_raw_lock(CALLOUT_PINNED | CALLOUT_RETURNUNLOCKED)" },
};

KUNIT_ARRAY_PARAM_DESC(pin_kind, pin_kinds, desc);

/*
 * A CALLOUT_PINNED callout runs on the CPU it was first armed on, however
 * and wherever it is armed again, until setcallout_on() names another
 * CPU; then it stays on that one.
 */
static void callout_pinned_stays_on_first_cpu(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct pinned *p = &own(test)->pin;
	int a = ctx->cpu_a, b = ctx->cpu_b;

	need_two_cpus(test);
	KUNIT_ASSERT_EQ(test, pin_setup(p, test->param_value), 0);
	pin_step(test, p, 0, b, pin_ns, b, "setcallout_ns(), the first arming");
	pin_step(test, p, 1, a, pin_ns, b, "setcallout_ns()");
	pin_step(test, p, 2, a, pin_ticks, b, "setcallout()");
	pin_step(test, p, 3, a, pin_at, b, "setcallout_at()");
	pin_step(test, p, 4, a, pin_jiffies, b, "setcallout_jiffies()");
	pin_step(test, p, 5, a, pin_on_here, a, "setcallout_on(its own CPU)");
	pin_step(test, p, 6, b, pin_ns, a, "setcallout_ns(), after the move");
	pin_step(test, p, 7, b, pin_forward, a, "callout_forward()");
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&p->lc.c), 0);
}

/* Take @cpu offline, for a case that .exit brings it back for. */
static void take_down(struct kunit *test, int cpu)
{
	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs CONFIG_HOTPLUG_CPU");
	KUNIT_ASSERT_EQ_MSG(test, remove_cpu(cpu), 0, "remove_cpu(%d)", cpu);
}

/*
 * setcallout_on() naming an offline CPU: -ENODEV, nothing changed.  An
 * idle handle records no arming; a pending one keeps its deadline; a
 * pinned one keeps its CPU.
 */
static void setcallout_on_offline_cpu_returns_enodev(struct kunit *test)
{
	static const struct pin_kind plain = { PIN_NONE, CALLOUT_PINNED, "" };
	struct client *ctx = test->priv;
	struct tctx *tc = own(test);
	struct tprobe *idle = &tc->t[0], *pend = &tc->t[1];
	struct pinned *p = &tc->pin;
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);
	int ret[3];

	need_two_cpus(test);
	KUNIT_ASSERT_EQ(test, pin_setup(p, &plain), 0);
	KUNIT_ASSERT_EQ(test, setcallout_at(&pend->c, tprobe_fn, pend, d0), 0);
	KUNIT_ASSERT_EQ(test, pin_far(p), 0);	/* pinned to cpu_a */

	take_down(test, ctx->cpu_b);
	ret[0] = setcallout_on(&idle->c, tprobe_fn, idle, tick_ns(), 0,
			       ctx->cpu_b, 0);
	ret[1] = setcallout_on(&pend->c, tprobe_fn, pend, tick_ns(), 0,
			       ctx->cpu_b, CALLOUT_ABSOLUTE);
	ret[2] = setcallout_on(&p->lc.c, pin_fn, p, 0, 0, ctx->cpu_b, 0);
	KUNIT_ASSERT_EQ(test, add_cpu(ctx->cpu_b), 0);

	KUNIT_EXPECT_EQ_MSG(test, ret[0], -ENODEV, "an idle handle");
	KUNIT_EXPECT_EQ_MSG(test, ret[1], -ENODEV, "a pending handle");
	KUNIT_EXPECT_EQ_MSG(test, ret[2], -ENODEV, "a pinned handle");
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));
	KUNIT_EXPECT_EQ_MSG(test, callout_forward(&idle->c, FAR_NS, 0),
			    -EINVAL, "a refused arming was recorded");
	unsetcallout(&idle->c);
	KUNIT_EXPECT_TRUE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_EQ(test, callout_when(&pend->c), d0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->lc.c), 1);
	/* Still pinned to cpu_a: armed from cpu_b, it runs there. */
	pin_step(test, p, 0, ctx->cpu_b, pin_ns, ctx->cpu_a,
		 "setcallout_ns() of the pinned handle");
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&idle->runs) +
			atomic_read(&pend->runs), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 1);
}

/*
 * A CALLOUT_PINNED callout pending on a CPU that goes offline moves to
 * another CPU and stays there: armed again from any CPU, the old one back
 * online included, it runs on the one it moved to.
 */
static void callout_pinned_moves_with_offline_cpu(struct kunit *test)
{
	static const struct pin_kind plain = { PIN_NONE, CALLOUT_PINNED, "" };
	struct client *ctx = test->priv;
	struct pinned *p = &own(test)->pin;
	int cpu, i = 0, home;

	need_two_cpus(test);
	KUNIT_ASSERT_EQ(test, pin_setup(p, &plain), 0);
	KUNIT_ASSERT_EQ(test, call_on(ctx->cpu_b, pin_far, p), 0);
	take_down(test, ctx->cpu_b);
	KUNIT_EXPECT_TRUE_MSG(test, callout_pending(&p->lc.c),
			      "lost with its CPU");
	KUNIT_ASSERT_EQ(test, add_cpu(ctx->cpu_b), 0);

	/* pending on the CPU it moved to -> re-armed from the old one */
	KUNIT_EXPECT_EQ(test, call_on(ctx->cpu_b, pin_ns, p), 1);
	KUNIT_ASSERT_TRUE(test, wait_count(&p->runs, ++i, LOST_NS));
	home = p->cpu[0];
	KUNIT_EXPECT_NE_MSG(test, home, ctx->cpu_b,
			    "back on CPU %d, which went offline", home);
	for_each_online_cpu(cpu) {
		if (i == NPIN_RUNS)
			break;
		pin_step(test, p, i++, cpu, pin_ns, home, "setcallout_ns()");
	}
}

/* Deadline and precision of setcallout_on(), in ticks and half ticks. */
struct prec_case {
	unsigned int dticks;
	bool dhalf;
	unsigned int pticks;
	bool phalf;
	const char *desc;
};

static const struct prec_case prec_cases[] = {
	{ 3, true, 0, false, "3.5 ticks, exact" },
	{ 3, true, 0, true, "3.5 ticks, half a tick" },
	{ 3, false, 1, false, "3 ticks, a tick" },
	{ 3, true, 2, true, "3.5 ticks, 2.5 ticks" },
	{ 10, false, 10, false, "10 ticks, 10 ticks" },
	{ 2, true, 64, false, "2.5 ticks, 64 ticks" },
	{ 0, false, 100, false, "now, 100 ticks" },
	{ 300, true, 300, false, "300.5 ticks, 300 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(prec, prec_cases, desc);

/*
 * setcallout_on() with a precision: the function runs once, not before
 * the deadline, and no later than a control due at the deadline plus the
 * precision (or a tick), for a delay and for a time.
 */
static void setcallout_on_precision_runs_in_window(struct kunit *test)
{
	const struct prec_case *pc = test->param_value;
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	u64 half = tick_ns() / 2;
	s64 delay = pc->dticks * tick_ns() + (pc->dhalf ? half : 0);
	u64 precision = pc->pticks * tick_ns() + (pc->phalf ? half : 0);

	KUNIT_ASSERT_EQ(test, tp_arm(&t[0], BY_ON, delay, precision,
				     CALLOUT_CPU_ANY), 0);
	control_start(&t[0], ctx->cpu_a);
	KUNIT_ASSERT_EQ(test, tp_arm(&t[1], BY_ON_ABS,
				     ktime_add_ns(ktime_get(), delay), precision,
				     CALLOUT_CPU_ANY), 0);
	control_start(&t[1], ctx->cpu_a);
	tp_check(test, &t[0], 1, ctx->cpu_a, pc->desc);
	tp_check(test, &t[1], 1, ctx->cpu_a, pc->desc);
	kunit_info(test, "%s: began %lld and %lld ns after the deadline\n",
		   pc->desc, ktime_to_ns(ktime_sub(t[0].at, t[0].dhi)),
		   ktime_to_ns(ktime_sub(t[1].at, t[1].dhi)));
}

static void fwd_fn(void *arg)
{
	struct fwd *f = arg;
	ktime_t now = ktime_get(), before, after, want;
	ktime_t due = ktime_add_ns(f->start, f->total * f->period);
	s64 k;

	f->runs++;
	if (ktime_before(now, due)) {
		f->early++;
		f->early_ns = max(f->early_ns, ktime_to_ns(ktime_sub(due, now)));
	}
	if (f->total >= f->goal || READ_ONCE(f->stop)) {
		atomic_set_release(&f->done, 1);
		return;
	}
	before = ktime_get();
	k = callout_forward(&f->c, f->period, 0);
	after = ktime_get();
	if (k < 1) {
		f->bad++;
		f->bad_ret = k;
		atomic_set_release(&f->done, 1);
		return;
	}
	f->total += k;
	want = ktime_add_ns(f->start, f->total * f->period);
	f->last_when = callout_when(&f->c);
	f->drift += f->last_when != want;
	/* The first deadline a whole number of periods on that is to come. */
	f->not_least += !ktime_after(want, before) ||
			ktime_after(ktime_sub_ns(want, f->period), after);
}

/*
 * A callout re-armed by callout_forward() in its own function, a tick a
 * period, 10,000 periods long: no run before start + n periods, n the sum
 * of callout_forward()'s returns so far; every return at least 1 and the
 * least that puts the deadline ahead; the deadline exactly start + n
 * periods each time, and at the end, however late the runs: no drift.
 */
static void callout_forward_keeps_deadlines_exact(struct kunit *test)
{
	struct fwd *f = &own(test)->fwd;

	f->period = tick_ns();
	f->goal = NPERIODS;
	f->start = ktime_add_ns(ktime_get(), 2 * tick_ns() + tick_ns() / 3);
	KUNIT_ASSERT_EQ(test, setcallout_at(&f->c, fwd_fn, f, f->start), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&f->done, 1,
					       NPERIODS * f->period + LOST_NS),
			      "%lld runs, %lld periods after %llu ns",
			      f->runs, f->total, NPERIODS * f->period + LOST_NS);
	spin_ns(quiet_ns(0));

	KUNIT_EXPECT_EQ_MSG(test, f->bad, 0U, "callout_forward() returned %lld",
			    f->bad_ret);
	KUNIT_EXPECT_EQ_MSG(test, f->early, 0U,
			    "%u runs before start + n periods, one by %lld ns",
			    f->early, f->early_ns);
	KUNIT_EXPECT_EQ_MSG(test, f->drift, 0U,
			    "%u deadlines not start + n periods", f->drift);
	KUNIT_EXPECT_EQ_MSG(test, f->not_least, 0U,
			    "%u forwards not to the first period ahead",
			    f->not_least);
	KUNIT_EXPECT_GE(test, f->total, (s64)NPERIODS);
	KUNIT_EXPECT_LE(test, f->runs, f->total + 1);
	KUNIT_EXPECT_EQ_MSG(test, f->last_when,
			    ktime_add_ns(f->start, f->total * f->period),
			    "the last deadline");
	KUNIT_EXPECT_FALSE(test, callout_pending(&f->c));
	kunit_info(test, "%lld runs over %lld periods: %lld skipped\n",
		   f->runs, f->total, f->total + 1 - f->runs);
}

/*
 * callout_forward() of a callout that ran and then waited 5.5 periods
 * more: it skips the periods that passed, returning the least k that puts
 * the deadline after now, and the function runs again, not before it.
 */
static void callout_forward_skips_missed_periods(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	u64 period = 2 * tick_ns();
	ktime_t d0, d1, before, after;
	unsigned long flags;
	s64 k;

	d0 = ktime_add_ns(ktime_get(), tick_ns() + tick_ns() / 3);
	KUNIT_ASSERT_EQ(test, tp_arm(t, BY_AT, d0, 0, CALLOUT_CPU_ANY), 0);
	control_start(t, ctx->cpu_a);
	tp_check(test, t, 1, ctx->cpu_a, "setcallout_at()");
	while (ktime_before(ktime_get(), ktime_add_ns(d0, 11 * period / 2)))
		cpu_relax();

	/* idle -> pending, k periods on; it cannot run before the reads */
	local_irq_save(flags);
	before = ktime_get();
	k = callout_forward(&t->c, period, 0);
	after = ktime_get();
	d1 = callout_when(&t->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_GE_MSG(test, k, 6LL, "5.5 periods had passed");
	KUNIT_EXPECT_EQ(test, d1, ktime_add_ns(d0, k * period));
	KUNIT_EXPECT_GT_MSG(test, d1, before, "the deadline is not ahead");
	KUNIT_EXPECT_LE_MSG(test, ktime_sub_ns(d1, period), after,
			    "a period too many skipped");
	tp_window(t, before, after, d1, d1, 0);
	control_start(t, ctx->cpu_a);
	tp_check(test, t, 2, ctx->cpu_a, "callout_forward()");
}

/*
 * A deadline of 0, the boot, is taken as 1 ns (twheel keeps 0 for "the
 * start of the due tick"), long past like any other: callout_when() reads
 * 1 back, and callout_forward() counts whole periods from it.  The
 * callout is armed on this CPU with interrupts off, so that it cannot run
 * until the reads are done.
 */
static void callout_forward_from_deadline_zero(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	u64 period = 3 * tick_ns() + tick_ns() / 3;
	ktime_t when0, when1, before, after;
	unsigned long flags;
	int ret;
	s64 k;

	local_irq_save(flags);
	ret = setcallout_at(&t->c, tprobe_fn, t, 0);
	when0 = callout_when(&t->c);
	before = ktime_get();
	k = callout_forward(&t->c, period, 0);
	after = ktime_get();
	when1 = callout_when(&t->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, when0, 1LL, "the deadline asked for");
	KUNIT_EXPECT_EQ_MSG(test, when1, (ktime_t)(1 + k * period),
			    "not %lld whole periods of %llu ns from 1", k,
			    period);
	KUNIT_EXPECT_GT_MSG(test, when1, before, "the deadline is not ahead");
	KUNIT_EXPECT_LE_MSG(test, ktime_sub_ns(when1, period), after,
			    "a period too many skipped");
	tp_window(t, before, after, when1, when1, 0);
	control_start(t, ctx->cpu_a);
	tp_check(test, t, 1, ctx->cpu_a, "callout_forward() from 0");
}

/*
 * callout_forward() refuses NULL, a handle never initialised or never
 * armed, a period of 0, and a deadline past KTIME_MAX, with nothing
 * changed; a deadline of KTIME_MAX itself is taken.  The pending handle's
 * deadline is 1 ns, long past, so that it is forwarded at all; interrupts
 * are off meanwhile, so that it cannot run.
 */
static void callout_forward_rejects_invalid(struct kunit *test)
{
	struct tprobe *idle = &own(test)->t[0], *pend = &own(test)->t[1];
	struct callout *stray = kunit_kzalloc(test, sizeof(*stray), GFP_KERNEL);
	unsigned long flags;
	ktime_t when[2];
	s64 ret[6];

	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_EXPECT_EQ(test, callout_forward(NULL, tick_ns(), 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_forward(stray, tick_ns(), 0), -EINVAL);
	KUNIT_EXPECT_EQ_MSG(test, callout_forward(&idle->c, tick_ns(), 0),
			    -EINVAL, "never armed");
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));

	local_irq_save(flags);
	ret[0] = setcallout_at(&pend->c, tprobe_fn, pend, 1);
	ret[1] = callout_forward(&pend->c, 0, 0);
	ret[2] = callout_forward(&pend->c, KTIME_MAX, 0);
	ret[3] = callout_forward(&pend->c, U64_MAX, 0);
	ret[4] = callout_pending(&pend->c);
	when[0] = callout_when(&pend->c);
	ret[5] = callout_forward(&pend->c, KTIME_MAX - 1, 0);
	when[1] = callout_when(&pend->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret[0], 0LL);
	KUNIT_EXPECT_EQ_MSG(test, ret[1], (s64)-EINVAL, "period 0");
	KUNIT_EXPECT_EQ_MSG(test, ret[2], (s64)-EINVAL, "KTIME_MAX + 1");
	KUNIT_EXPECT_EQ_MSG(test, ret[3], (s64)-EINVAL, "a period of U64_MAX");
	KUNIT_EXPECT_EQ(test, ret[4], 1LL);
	KUNIT_EXPECT_EQ(test, when[0], 1LL);

	KUNIT_EXPECT_EQ_MSG(test, ret[5], 1LL, "to KTIME_MAX");
	KUNIT_EXPECT_TRUE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_EQ(test, when[1], KTIME_MAX);
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pend->runs), 0);
}

/*
 * callout_forward() before the last deadline has come: 0, and the
 * callout is left as it is, pending with its deadline, as
 * hrtimer_forward() leaves a timer not yet expired; so calling it twice
 * does not move the deadline twice.  Cancelled, it stays idle.  (Before
 * the fix, each call moved the deadline on by a period and returned 1.)
 */
static void callout_forward_before_deadline_leaves_it(struct kunit *test)
{
	struct tprobe *t = &own(test)->t[0];
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);

	KUNIT_ASSERT_EQ(test, setcallout_at(&t->c, tprobe_fn, t, d0), 0);
	KUNIT_EXPECT_EQ(test, callout_forward(&t->c, tick_ns(), 0), 0LL);
	KUNIT_EXPECT_EQ(test, callout_forward(&t->c, tick_ns(), 0), 0LL);
	KUNIT_EXPECT_TRUE(test, callout_pending(&t->c));
	KUNIT_EXPECT_EQ(test, callout_when(&t->c), d0);
	/* pending -> idle: not armed again before its deadline */
	KUNIT_EXPECT_EQ(test, unsetcallout(&t->c), 1);
	KUNIT_EXPECT_EQ(test, callout_forward(&t->c, tick_ns(), 0), 0LL);
	KUNIT_EXPECT_FALSE(test, callout_pending(&t->c));
}

static void sd_fn(void *arg);

/* Every way to arm @s, each for the next tick; what each returned. */
static void sd_try_all(struct sd *s, s64 *ret)
{
	ret[0] = setcallout(&s->c, sd_fn, s, 0);
	ret[1] = setcallout_ns(&s->c, sd_fn, s, 0);
	ret[2] = setcallout_at(&s->c, sd_fn, s, ktime_get());
	ret[3] = setcallout_jiffies(&s->c, sd_fn, s, jiffies);
	ret[4] = setcallout_on(&s->c, sd_fn, s, 0, 0, raw_smp_processor_id(),
			       0);
	ret[5] = callout_forward(&s->c, tick_ns(), 0);
}

static void sd_fn(void *arg)
{
	struct sd *s = arg;
	ktime_t end;

	atomic_inc(&s->in_fn);
	switch (READ_ONCE(s->mode)) {
	case SD_PERIODIC:
		setcallout(&s->c, sd_fn, s, 0);
		break;
	case SD_HOLD:
		if (atomic_read(&s->holding))
			break;
		/* pending again; the case shuts it down meanwhile */
		setcallout(&s->c, sd_fn, s, 0);
		atomic_set_release(&s->holding, 1);
		end = ktime_add_ns(ktime_get(), LOST_NS);
		while (callout_pending(&s->c) && !atomic_read(&s->release) &&
		       ktime_before(ktime_get(), end))
			cpu_relax();
		s->saw_cancel = !callout_pending(&s->c);
		sd_try_all(s, s->ret);
		s->pending_after = callout_pending(&s->c);
		s->when_after = callout_when(&s->c);
		break;
	case SD_SELF:
		s->ret[0] = unsetcallout_shutdown(&s->c);
		s->ret[1] = setcallout_ns(&s->c, sd_fn, s, FAR_NS);
		s->pending_after = callout_pending(&s->c);
		WRITE_ONCE(s->mode, SD_ONCE);
		break;
	default:
		break;
	}
	atomic_dec(&s->in_fn);
	atomic_inc_return_release(&s->runs);
}

static int sd_start(void *data)
{
	struct sd *s = data;

	return setcallout(&s->c, sd_fn, s, 0);
}

/*
 * unsetcallout_shutdown() of a callout that re-arms itself every tick,
 * while its function runs on the other CPU having re-armed it: returns 1
 * once the function has returned; every arming the function tries after
 * the cancel returns 0 and arms nothing; afterwards nothing is pending
 * and the function runs no more.
 */
static void unsetcallout_shutdown_stops_self_rearming(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct sd *s = &own(test)->sd;
	int ret, in_fn, runs, i;
	bool pending;

	need_two_cpus(test);
	WRITE_ONCE(s->mode, SD_PERIODIC);
	KUNIT_ASSERT_EQ(test, call_on(ctx->cpu_b, sd_start, s), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 3, LOST_NS));
	WRITE_ONCE(s->mode, SD_HOLD);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&s->holding, 1, LOST_NS),
			      "it stopped re-arming itself");

	/* pending and running on B -> shut down */
	ret = unsetcallout_shutdown(&s->c);
	in_fn = atomic_read(&s->in_fn);
	pending = callout_pending(&s->c);
	runs = atomic_read_acquire(&s->runs);
	KUNIT_EXPECT_EQ_MSG(test, ret, 1, "its function had re-armed it");
	KUNIT_EXPECT_EQ_MSG(test, in_fn, 0, "its function runs on");
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_TRUE_MSG(test, s->saw_cancel,
			      "its function never saw the cancel");
	for (i = 0; i < NSD_CALLS; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->ret[i], 0LL,
				    "%s in its function, once shut down",
				    sd_call_name[i]);
	KUNIT_EXPECT_FALSE(test, s->pending_after);
	KUNIT_EXPECT_EQ(test, s->when_after, KTIME_MAX);
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->runs), runs,
			    "ran after unsetcallout_shutdown() returned");
}

static void sd_try_all_fn(void *data)
{
	struct sd *s = data;

	sd_try_all(s, s->ret);
}

/*
 * After unsetcallout_shutdown(), every way of arming returns 0 and arms
 * nothing, from process and hardirq context, and the cancels return 0;
 * callout_init() makes the handle usable again.
 */
static void unsetcallout_shutdown_later_armings_arm_nothing(struct kunit *test)
{
	struct sd *s = &own(test)->sd;
	s64 ret[NSD_CALLS];
	int i;

	WRITE_ONCE(s->mode, SD_ONCE);
	KUNIT_ASSERT_EQ(test, setcallout_ns(&s->c, sd_fn, s, FAR_NS), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout_shutdown(&s->c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(&s->c));

	sd_try_all(s, ret);
	for (i = 0; i < NSD_CALLS; i++)
		KUNIT_EXPECT_EQ_MSG(test, ret[i], 0LL, "%s, once shut down",
				    sd_call_name[i]);
	KUNIT_EXPECT_FALSE(test, callout_pending(&s->c));
	KUNIT_EXPECT_EQ(test, callout_when(&s->c), KTIME_MAX);
	run_hardirq(test, sd_try_all_fn, s);
	for (i = 0; i < NSD_CALLS; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->ret[i], 0LL,
				    "%s in hardirq context, once shut down",
				    sd_call_name[i]);
	KUNIT_EXPECT_FALSE(test, callout_pending(&s->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&s->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&s->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout_shutdown(&s->c), 0);
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&s->runs), 0);

	/* shut down -> idle, usable */
	KUNIT_EXPECT_EQ(test, callout_init(&s->c), 0);
	KUNIT_EXPECT_EQ(test, setcallout_ns(&s->c, sd_fn, s, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 1, LOST_NS));
	KUNIT_EXPECT_GE(test, callout_forward(&s->c, tick_ns(), 0), 1LL);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 2, LOST_NS));
}

/* What unsetcallout_shutdown() returned in an atomic context. */
struct try_shutdown {
	struct callout *c[2];	/* a pending and an idle handle */
	int ret[2];
	bool pending[2];
};

static void try_shutdown_fn(void *data)
{
	struct try_shutdown *ts = data;
	int i;

	for (i = 0; i < 2; i++) {
		ts->ret[i] = unsetcallout_shutdown(ts->c[i]);
		ts->pending[i] = callout_pending(ts->c[i]);
	}
}

KUNIT_ARRAY_PARAM_DESC(atomic, atomic_cases, desc);

/*
 * unsetcallout_shutdown() from atomic context, no function running: the
 * pending handle is cancelled (1) and the idle one left idle (0), both
 * shut down; no arming takes either afterwards.  (Before the fix, both
 * calls returned -EDEADLK and changed nothing, so the pending handle
 * stayed armed.)
 */
static void unsetcallout_shutdown_atomic_context_cancels(struct kunit *test)
{
	const struct atomic_case *ac = test->param_value;
	struct tprobe *pend = &own(test)->t[0], *idle = &own(test)->t[1];
	struct try_shutdown ts = { .c = { &pend->c, &idle->c } };
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);

	KUNIT_ASSERT_EQ(test, setcallout_at(&pend->c, tprobe_fn, pend, d0), 0);
	run_in(test, ac->where, try_shutdown_fn, &ts);
	KUNIT_EXPECT_EQ_MSG(test, ts.ret[0], 1, "pending, %s", ac->desc);
	KUNIT_EXPECT_FALSE(test, ts.pending[0]);
	KUNIT_EXPECT_EQ_MSG(test, ts.ret[1], 0, "idle, %s", ac->desc);
	KUNIT_EXPECT_FALSE(test, ts.pending[1]);

	KUNIT_EXPECT_EQ(test, callout_when(&pend->c), KTIME_MAX);
	KUNIT_EXPECT_EQ_MSG(test, setcallout_ns(&pend->c, tprobe_fn, pend,
						FAR_NS), 0, "shut down");
	KUNIT_EXPECT_EQ_MSG(test, setcallout_ns(&idle->c, tprobe_fn, idle,
						FAR_NS), 0, "shut down");
	KUNIT_EXPECT_FALSE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&idle->c), 0);
}

/*
 * unsetcallout_shutdown() from the callout's own function: -EDEADLK (it
 * cannot wait for itself), but shut down: the function's re-arm after it
 * returns 0 and arms nothing.
 */
static void unsetcallout_shutdown_own_function_shuts_down(struct kunit *test)
{
	struct sd *s = &own(test)->sd;

	WRITE_ONCE(s->mode, SD_SELF);
	KUNIT_ASSERT_EQ(test, setcallout_ns(&s->c, sd_fn, s, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 1, LOST_NS));
	KUNIT_EXPECT_EQ(test, s->ret[0], (s64)-EDEADLK);
	KUNIT_EXPECT_EQ_MSG(test, s->ret[1], 0LL, "re-arming itself after that");
	KUNIT_EXPECT_FALSE(test, s->pending_after);
	KUNIT_EXPECT_EQ(test, unsetcallout(&s->c), 0);
}

static void tctx_setup(void *data)
{
	struct tctx *tc = data;
	int i;

	for (i = 0; i < NTP; i++)
		tprobe_init(&tc->t[i]);
	callout_init(&tc->fwd.c);
	callout_init(&tc->sd.c);
	callout_init(&tc->wr.c);
}

static int tc_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct tctx), tctx_setup);
}

static void tprobe_end(struct tprobe *t)
{
	unsetcallout_sync(&t->c);
	hrtimer_cancel(&t->control);
}

/*
 * Stop the suite's own functions re-arming, bring back a CPU a case took
 * offline, cancel the suite's callouts and controls, then what all cases
 * share.
 */
static void tc_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tctx *tc = ctx ? ctx->own : NULL;
	int i;

	if (tc) {
		WRITE_ONCE(tc->fwd.stop, true);
		WRITE_ONCE(tc->sd.mode, SD_ONCE);
		atomic_set(&tc->sd.release, 1);
		if (ctx->cpu_b >= 0 && !cpu_online(ctx->cpu_b))
			add_cpu(ctx->cpu_b);
		for (i = 0; i < NTP; i++)
			tprobe_end(&tc->t[i]);
		for (i = 0; i < tc->nmany; i++)
			tprobe_end(&tc->many[i]);
		kvfree(tc->many);
		unsetcallout_sync(&tc->pin.lc.c);
		unsetcallout_sync(&tc->fwd.c);
		unsetcallout_sync(&tc->sd.c);
		unsetcallout_sync(&tc->wr.c);
	}
	client_exit(test);
}

static struct kunit_case time_cases[] = {
	KUNIT_CASE_PARAM(setcallout_on_runs_after_deadline, delay_gen_params),
	KUNIT_CASE_PARAM(setcallout_on_past_deadline_runs_on_next_tick,
			 past_gen_params),
	KUNIT_CASE_PARAM(callout_when_reads_deadline_while_pending,
			 when_gen_params),
	KUNIT_CASE(callout_when_not_pending_is_ktime_max),
	KUNIT_CASE(setcallout_jiffies_far_never_wraps),
	KUNIT_CASE(callout_when_in_own_function_after_rearm),
	KUNIT_CASE_SLOW(setcallout_on_many_deadlines_never_early),
	KUNIT_CASE(setcallout_on_cpu_runs_there),
	KUNIT_CASE(setcallout_on_running_elsewhere_moves_after),
	KUNIT_CASE_PARAM(setcallout_on_bad_cpu_or_flags_returns_einval,
			 bad_on_gen_params),
	KUNIT_CASE(setcallout_on_null_or_uninitialised_returns_einval),
	KUNIT_CASE(setcallout_on_offline_cpu_returns_enodev),
	KUNIT_CASE_PARAM(setcallout_on_precision_runs_in_window,
			 prec_gen_params),
	KUNIT_CASE(callout_init_flags_rejects_unknown),
	KUNIT_CASE_PARAM(callout_pinned_stays_on_first_cpu,
			 pin_kind_gen_params),
	KUNIT_CASE(callout_pinned_moves_with_offline_cpu),
	KUNIT_CASE_SLOW(callout_forward_keeps_deadlines_exact),
	KUNIT_CASE(callout_forward_skips_missed_periods),
	KUNIT_CASE(callout_forward_from_deadline_zero),
	KUNIT_CASE(callout_forward_rejects_invalid),
	KUNIT_CASE(callout_forward_before_deadline_leaves_it),
	KUNIT_CASE(unsetcallout_shutdown_stops_self_rearming),
	KUNIT_CASE(unsetcallout_shutdown_later_armings_arm_nothing),
	KUNIT_CASE_PARAM(unsetcallout_shutdown_atomic_context_cancels,
			 atomic_gen_params),
	KUNIT_CASE(unsetcallout_shutdown_own_function_shuts_down),
	{}
};

CLIENT_SUITE(time, time_cases, tc_init, tc_exit);
