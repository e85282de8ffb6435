// SPDX-License-Identifier: GPL-2.0
/*
 * client_deadline.c - suite twheel_client_deadline: callouts armed for a
 * time in ns rather than in ticks.  setcallout_ns(), setcallout_at(),
 * setcallout_jiffies() and setcallout_on() never run before their
 * deadline, against ktime_get(), nor in the tick they were armed in (a
 * deadline already past runs on the next tick), and with a precision the
 * function begins within it; callout_when() and callout_remaining() read
 * the deadline back while the callout is pending, KTIME_MAX when it is
 * not.  A NULL or never-initialised handle, or a NULL function, they
 * refuse (-EINVAL) with nothing changed.  Runs are timed by the probes of
 * tprobe.h.
 *
 * Which tick twheel picks within a window, and how overlapping windows
 * share ticks and interrupts, is not visible to a client: suite
 * twheel_coalesce (../coalesce_test.c) reads the ticks twheel picked.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
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

#include "client.h"
#include "ticks.h"
#include "tprobe.h"

#define NTIMED		2000	/* armings of the many-deadlines case */

/* A function that re-arms itself and reads callout_when() either side. */
struct when_rearm {
	struct callout c;
	ktime_t d2;		/* the deadline it re-arms for */
	ktime_t before, after;	/* callout_when() before and after */
	int ret;
	atomic_t runs;
};

/* The suite's own state, client.own. */
struct deadline_ctx {
	struct tprobe t[NTP];
	struct tprobe *many;	/* kvcalloc()ed */
	int nmany;
	struct when_rearm wr;
};

static struct deadline_ctx *own(struct kunit *test)
{
	return ((struct client *)test->priv)->own;
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
		tp_control_start(&t[way], ctx->cpu_a);
	}
	for (way = BY_NS; way < NWAYS; way++) {
		snprintf(what, sizeof(what), "%s, %s", tp_way_name[way], dc->desc);
		tp_check(test, &t[way], 1, ctx->cpu_a, what);
	}
	spin_ns(quiet_ns(0));
	for (way = BY_NS; way < NWAYS; way++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&t[way].runs), 1,
				    "%s ran again", tp_way_name[way]);
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
	tp_control_start(t, ctx->cpu_a);
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
	tp_control_start(t, ctx->cpu_a);
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
	struct deadline_ctx *tc = own(test);
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
	tprobes_init(tc->many, NTIMED);
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
				    tp_way_name[way]);
		if (i % 7 == 3)
			KUNIT_EXPECT_EQ_MSG(test, ret[1], 1, "re-arming %d by %s",
					    i, tp_way_name[way]);
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
					    tp_way_name[i % NWAYS]);
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
	tp_control_start(&t[0], ctx->cpu_a);
	KUNIT_ASSERT_EQ(test, tp_arm(&t[1], BY_ON_ABS,
				     ktime_add_ns(ktime_get(), delay), precision,
				     CALLOUT_CPU_ANY), 0);
	tp_control_start(&t[1], ctx->cpu_a);
	tp_check(test, &t[0], 1, ctx->cpu_a, pc->desc);
	tp_check(test, &t[1], 1, ctx->cpu_a, pc->desc);
	kunit_info(test, "%s: began %lld and %lld ns after the deadline\n",
		   pc->desc, ktime_to_ns(ktime_sub(t[0].at, t[0].dhi)),
		   ktime_to_ns(ktime_sub(t[1].at, t[1].dhi)));
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

static void deadline_setup(void *data)
{
	struct deadline_ctx *dc = data;

	tprobes_init(dc->t, NTP);
	callout_init(&dc->wr.c);
}

static int deadline_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct deadline_ctx),
			       deadline_setup);
}

/* Cancel the suite's callouts and controls, then what all cases share. */
static void deadline_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct deadline_ctx *dc = ctx ? ctx->own : NULL;

	if (dc) {
		tprobes_end(dc->t, NTP);
		tprobes_end(dc->many, dc->nmany);
		kvfree(dc->many);
		unsetcallout_sync(&dc->wr.c);
	}
	client_exit(test);
}

static struct kunit_case deadline_cases[] = {
	KUNIT_CASE_PARAM(setcallout_on_runs_after_deadline, delay_gen_params),
	KUNIT_CASE_PARAM(setcallout_on_past_deadline_runs_on_next_tick,
			 past_gen_params),
	KUNIT_CASE_PARAM(callout_when_reads_deadline_while_pending,
			 when_gen_params),
	KUNIT_CASE(callout_when_not_pending_is_ktime_max),
	KUNIT_CASE(setcallout_jiffies_far_never_wraps),
	KUNIT_CASE(callout_when_in_own_function_after_rearm),
	KUNIT_CASE_SLOW(setcallout_on_many_deadlines_never_early),
	KUNIT_CASE_PARAM(setcallout_on_precision_runs_in_window,
			 prec_gen_params),
	KUNIT_CASE(setcallout_on_null_or_uninitialised_returns_einval),
	{}
};

CLIENT_SUITE(deadline, deadline_cases, deadline_init, deadline_exit);
