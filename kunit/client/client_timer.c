// SPDX-License-Identifier: GPL-2.0
/*
 * client_timer.c - suite twheel_client_timer: the timer_list layer of
 * <twheel_timer.h>, held to what timer_list documents, as a module
 * converted from timer_list relies on it.  twheel_mod_timer() returns 0
 * then 1, and 1 for the same deadline, which it leaves as it is;
 * twheel_mod_timer_pending() arms nothing idle and moves a pending timer;
 * twheel_timer_reduce() arms an idle timer, leaves a sooner deadline and
 * brings a later one forward; twheel_add_timer() takes ->expires, and
 * twheel_add_timer_on() the CPU too; the cancels return 1 or 0, the sync
 * ones once a function running on the other CPU has returned; after
 * twheel_timer_shutdown_sync() no call arms the timer, not even its own
 * function, until twheel_timer_setup(); ->expires is the deadline last
 * armed, and the function finds its structure with twheel_from_timer().
 * A timer never runs before (expires - jiffies) jiffies after the arming
 * call, and runs within a tick after that; a TIMER_DEFERRABLE one within
 * an eighth of its delay.  DEFINE_TWHEEL_TIMER() needs no setup.  Misuse
 * is reported once per file: TIMER_IRQSAFE, a timer never set up,
 * twheel_add_timer() of a pending timer.
 *
 * Of twheel's headers this file includes <twheel_timer.h> alone, as a
 * converted module does (and "../twheel_compat.h" for KUnit shims): not
 * client.h, whose <twheel.h> brings in the BSD names.  Its own timeout
 * and untimeout() below are the check that <twheel_timer.h> leaves those
 * names free: were either declared, this file would not compile.
 * client_names.c checks TWHEEL_NO_BSD_NAMES for <twheel.h> the same way.
 *
 * Lateness is bounded as in client_time.c: by LOST_NS, and by no more
 * than a tick after a control, a soft hrtimer pinned to the CPU of the
 * run and due at the end of the window the contract allows.  Reports
 * provoked on purpose are announced to scripts/ktap.py ("twheel-expect:"
 * lines), each around the first call of its call site only: the second
 * call of the same site must not report again.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include <twheel_timer.h>
#include "../twheel_compat.h"	/* KUnit shims only */

#include "../wait.h"		/* test scaffolding, no twheel call */
#include "ticks.h"

#define HOLD_NS		(300ULL * NSEC_PER_MSEC) /* a held function's run */
#define FAR_J		(10 * HZ)	/* jiffies: never reached in a case */
#define NTT		4		/* timers a case has at hand */
#define NTRY		5		/* the arming calls, see tt_try_all() */

/* The report of a misuse, a WARN_ON_ONCE() in twheel_timer.h. */
#define WARN_RE		"WARNING: .* at .*twheel_timer\\.h:[0-9]+"

/*
 * A name of this file's own that BSD code would take for twheel's, as a
 * converted module's "timeout" parameter: the delay of the short cases,
 * in jiffies.  (untimeout() is below.)
 */
static int timeout = 5;

/* What a timer's function does besides noting its run. */
enum tt_mode {
	TT_RECORD,		/* nothing */
	TT_HOLD,		/* spin until released, or for HOLD_NS */
	TT_REARM_HOLD,		/* re-arm far, then as TT_HOLD */
	TT_SHUT,		/* re-arm, wait for the cancel, try every arming */
};

/*
 * A timer in a structure of its own, as a converted module has it.  The
 * case writes the fields up to @entered before it arms; the function
 * writes those after, published by the release increment of @runs.
 */
struct ttimer {
	int id;
	enum tt_mode mode;	/* the function's first run; then TT_RECORD */
	struct twheel_timer timer;
	/* The last arming that tt_arm() made, and where its run must begin. */
	ktime_t before;		/* ktime_get() just before the call */
	long ahead;		/* expires - jiffies, jiffies read after it */
	ktime_t dlo;		/* the deadline is not before this ... */
	ktime_t dhi;		/* ... nor after this */
	ktime_t lo;		/* no run may begin before this */
	ktime_t end;		/* the start of the latest tick it may run on */
	bool armed;		/* twheel_timer_pending() right after the call */
	ktime_t when;		/* callout_when() right after the call */
	struct hrtimer control;	/* due at @end, on the CPU of the run */
	ktime_t control_at;
	atomic_t control_runs;
	atomic_t release;	/* ends a held run */
	atomic_t entered;	/* a held run has begun, and re-armed */

	atomic_t runs;		/* runs that have returned */
	ktime_t at;		/* start of the last run */
	ktime_t left;		/* its end */
	int cpu;		/* smp_processor_id() in the last run */
	bool softirq;		/* it was in softirq context */
	bool irqs_off;		/* with interrupts disabled */
	bool pending;		/* twheel_timer_pending() as it began */
	int rearm;		/* what re-arming in TT_*REARM* returned */
	bool saw_cancel;	/* TT_SHUT: the re-arm was cancelled */
	int ret[NTRY];		/* TT_SHUT: tt_try_all() after that */
};

/* Two timers in one structure, neither at its start. */
struct pair {
	u64 pad;
	struct twheel_timer a;
	struct twheel_timer b;
};

/* The case's state, test->priv. */
struct tctx {
	int cpu_a;		/* the CPU the case thread is pinned to */
	int cpu_b;		/* another online CPU, or -1 */
	struct ttimer tt[NTT];
	struct ttimer *stray;	/* never set up */
	struct pair pair;
};

static struct tctx *own(struct kunit *test)
{
	return test->priv;
}

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

static bool wait_runs(atomic_t *v, int n)
{
	return poll_until(atomic_read_acquire(v) >= n);
}

static void two_cpus(struct kunit *test)
{
	if (own(test)->cpu_b < 0)
		kunit_skip(test, "needs two online CPUs");
}

static void tt_try_all(struct ttimer *tt, int *ret);

static void tt_fn(struct twheel_timer *t)
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

static const char * const try_name[NTRY] = {
	"twheel_mod_timer()", "twheel_mod_timer_pending()",
	"twheel_timer_reduce()", "twheel_add_timer()", "twheel_add_timer_on()",
};

/*
 * Every arming call on @tt's timer, for the next jiffy: what each
 * returned, and for the two that return nothing whether the timer was
 * pending after it.
 */
static void tt_try_all(struct ttimer *tt, int *ret)
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
 * The control: due at the end of the window; but a timer runs only once
 * jiffies has reached ->expires, so with the jiffies tick late, the
 * control waits for that too, a twheel tick at a time, as the timer does.
 */
static enum hrtimer_restart control_fn(struct hrtimer *h)
{
	struct ttimer *tt = container_of(h, struct ttimer, control);

	if (time_before(jiffies, READ_ONCE(tt->timer.expires))) {
		hrtimer_forward_now(h, ns_to_ktime(tick_ns()));
		return HRTIMER_RESTART;
	}
	tt->control_at = ktime_get();
	atomic_inc_return_release(&tt->control_runs);
	return HRTIMER_NORESTART;
}

static void control_start_here(void *info)
{
	struct ttimer *tt = info;

	hrtimer_start(&tt->control, tt->end, HRTIMER_MODE_ABS_PINNED_SOFT);
}

/* Start @tt's control on @cpu, due at the end of its window. */
static void control_start(struct ttimer *tt, int cpu)
{
	atomic_set(&tt->control_runs, 0);
	if (cpu == raw_smp_processor_id())	/* the case thread is pinned */
		control_start_here(tt);
	else
		smp_call_function_single(cpu, control_start_here, tt, 1);
}

/* The ways of arming a timer for a jiffies value. */
enum tt_way { BY_MOD, BY_MOD_PENDING, BY_REDUCE, BY_ADD, BY_ADD_ON };

/*
 * Arm @tt's timer for @expires the way @way says (on @cpu for BY_ADD_ON),
 * noting the window its run must begin in, were it armed: its deadline
 * lies (expires - jiffies) jiffies after the call, jiffies read by the
 * call itself, so between the reads either side of it; with
 * %TIMER_DEFERRABLE its run may come an eighth of that delay later.  No
 * run begins in the tick of the call.  With interrupts off, so that a
 * timer armed on this CPU cannot run before its deadline is read back.
 */
static int tt_arm(struct ttimer *tt, enum tt_way way, unsigned long expires,
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
static void tt_check_when(struct kunit *test, struct ttimer *tt,
			  const char *what)
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
 * tt_arm() nor in the tick of the call, not after its control by more
 * than a tick, on @cpu, in softirq context with interrupts enabled, and
 * not pending as it began.
 */
static void tt_check(struct kunit *test, struct ttimer *tt, int runs, int cpu,
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
	KUNIT_EXPECT_LE_MSG(test, by, (s64)tick_ns(),
			    "%s: ran %lld ns after a soft hrtimer due at the end of its window (%lld ns after the deadline), jiffies having reached ->expires",
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
static void tt_quiet(struct kunit *test, struct ttimer *tt, int runs,
		     unsigned long n, const char *what)
{
	spin_ns(quiet_ns(n));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&tt->runs), runs,
			    "%s: ran %d times, expected %d", what,
			    atomic_read(&tt->runs), runs);
}

/*
 * twheel_mod_timer(): 0 on an idle timer, 1 on a pending one, which it
 * moves; 1 for the deadline it already has, which it leaves as it is;
 * on a timer cancelled since, that deadline arms it again (0).
 */
static void twheel_mod_timer_returns_whether_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + FAR_J;
	ktime_t when;

	/* idle -> pending */
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, e, 0), 0);
	tt_check_when(test, tt, "idle");
	/* pending -> pending, moved */
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, e + HZ, 0), 1);
	tt_check_when(test, tt, "pending");
	/* the same expires: left as it is */
	when = tt->when;
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(t, e + HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, callout_when(&t->c), when,
			    "the same expires moved the deadline");
	KUNIT_EXPECT_EQ(test, t->expires, e + HZ);
	/* pending -> idle; the same expires arms it again */
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, e + HZ, 0), 0);
	tt_check_when(test, tt, "cancelled, the same expires");

	/* ... and one that runs */
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + timeout, 0), 1);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_mod_timer()");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ_MSG(test, tt_arm(tt, BY_MOD, jiffies + FAR_J, 0), 0,
			    "after its run");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
}

/*
 * twheel_mod_timer_pending() of an idle timer, fresh, cancelled or run:
 * 0, and nothing armed; ->expires as it was.
 */
static void twheel_mod_timer_pending_idle_arms_nothing(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e;

	/* fresh */
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, jiffies + 1), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ(test, t->expires, 0UL);
	tt_quiet(test, tt, 0, 1, "fresh");

	/* cancelled */
	e = jiffies + FAR_J;
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, jiffies + 1), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ(test, t->expires, e);
	tt_quiet(test, tt, 0, 1, "cancelled");

	/* run */
	e = jiffies + 1;
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, jiffies + 1), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ(test, t->expires, e);
	tt_quiet(test, tt, 1, 1, "run");
}

/*
 * twheel_mod_timer_pending() of a pending timer: 1, and moved: its
 * deadline is the new one, and it runs then, once.
 */
static void twheel_mod_timer_pending_moves_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e;
	ktime_t when;

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	when = callout_when(&t->c);
	/* pending, far -> pending, farther */
	e = jiffies + 2 * FAR_J;
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD_PENDING, e, 0), 1);
	tt_check_when(test, tt, "later");
	KUNIT_EXPECT_GT(test, tt->when, when);
	KUNIT_EXPECT_EQ(test, t->expires, e);
	/* -> pending, soon */
	e = jiffies + timeout;
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD_PENDING, e, 0), 1);
	tt_check_when(test, tt, "sooner");
	KUNIT_EXPECT_EQ(test, t->expires, e);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_mod_timer_pending()");
	tt_quiet(test, tt, 1, 0, "after its run");
}

/* twheel_timer_reduce() of an idle timer arms it (0), as mod_timer(). */
static void twheel_timer_reduce_idle_arms(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + timeout;

	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_REDUCE, e, 0), 0);
	tt_check_when(test, tt, "idle");
	KUNIT_EXPECT_EQ(test, t->expires, e);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_timer_reduce(), idle");
}

/*
 * twheel_timer_reduce() of a timer pending for sooner than the new
 * expires: 1, and left as it is: deadline and ->expires unchanged, and
 * it runs then.
 */
static void twheel_timer_reduce_later_leaves_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + timeout, expires, flags;
	int armed, ret[2];
	ktime_t when;

	/* Interrupts off: it cannot run before the reads are done. */
	local_irq_save(flags);
	armed = tt_arm(tt, BY_MOD, e, 0);
	ret[0] = twheel_timer_reduce(t, e + 1);
	ret[1] = twheel_timer_reduce(t, e + FAR_J);
	when = callout_when(&t->c);
	expires = t->expires;
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, armed, 0);
	KUNIT_EXPECT_EQ(test, ret[0], 1);
	KUNIT_EXPECT_EQ(test, ret[1], 1);
	KUNIT_EXPECT_EQ_MSG(test, when, tt->when,
			    "a later expires moved the deadline");
	KUNIT_EXPECT_EQ(test, expires, e);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a,
		 "twheel_timer_reduce(), later");
}

/*
 * twheel_timer_reduce() of a timer pending for later than the new
 * expires: 1, and brought forward: the new deadline and ->expires, and
 * it runs then.
 */
static void twheel_timer_reduce_earlier_moves_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + timeout;
	ktime_t when;

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	when = callout_when(&t->c);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_REDUCE, e, 0), 1);
	tt_check_when(test, tt, "earlier");
	KUNIT_EXPECT_LT(test, tt->when, when);
	KUNIT_EXPECT_EQ(test, t->expires, e);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a,
		 "twheel_timer_reduce(), earlier");
	tt_quiet(test, tt, 1, 0, "after its run");
}

/* twheel_add_timer() arms an idle timer for its ->expires. */
static void twheel_add_timer_uses_expires(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	unsigned long e = jiffies + timeout;

	tt_arm(tt, BY_ADD, e, 0);
	tt_check_when(test, tt, "twheel_add_timer()");
	KUNIT_EXPECT_EQ(test, tt->timer.expires, e);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "twheel_add_timer()");
}

/*
 * twheel_add_timer_on() runs the function on the CPU it names, each
 * online CPU in turn (as many as the case has timers), for ->expires.
 */
static void twheel_add_timer_on_runs_on_cpu(struct kunit *test)
{
	struct ttimer *tt = own(test)->tt;
	int cpu, n = 0, i, want[NTT];
	char what[48];

	for_each_online_cpu(cpu) {
		if (n == NTT)
			break;
		tt_arm(&tt[n], BY_ADD_ON, jiffies + 1 + n, cpu);
		control_start(&tt[n], cpu);
		want[n++] = cpu;
	}
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "twheel_add_timer_on(CPU %d)",
			 want[i]);
		tt_check(test, &tt[i], 1, want[i], what);
	}
}

/*
 * twheel_timer_delete(): 0 for an idle timer, 1 for a pending one, which
 * then never runs; 0 again; 0 after a run.
 */
static void twheel_timer_delete_returns_whether_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	unsigned long flags;
	int ret[2];

	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_delete(t), 0, "fresh");
	/* Interrupts off: it cannot run before it is cancelled. */
	local_irq_save(flags);
	ret[0] = twheel_mod_timer(t, jiffies + 1);
	/* pending -> idle */
	ret[1] = twheel_timer_delete(t);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ_MSG(test, ret[1], 1, "pending");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_delete(t), 0, "cancelled");
	tt_quiet(test, tt, 0, 1, "cancelled");

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + 1), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_delete(t), 0, "run");
}

/*
 * Arm @tt's timer on CPU b for the next tick, its function doing @mode,
 * and wait until that runs there.
 */
static void tt_running_elsewhere(struct kunit *test, struct ttimer *tt,
				 enum tt_mode mode)
{
	int cpu_b = own(test)->cpu_b;

	WRITE_ONCE(tt->mode, mode);
	atomic_set(&tt->release, 0);
	atomic_set(&tt->entered, 0);
	atomic_set(&tt->runs, 0);
	tt->timer.expires = jiffies;
	twheel_add_timer_on(&tt->timer, cpu_b);
	KUNIT_ASSERT_TRUE_MSG(test, wait_runs(&tt->entered, 1),
			      "did not run on CPU %d", cpu_b);
}

/* Where twheel_timer_delete_sync() is called from, as timer_list allows. */
enum sync_from { FROM_TASK, FROM_BH_OFF, FROM_PREEMPT_OFF };

struct sync_case {
	enum sync_from from;
	const char *desc;
};

static const struct sync_case sync_cases[] = {
	{ FROM_TASK, "process context: sleeps" },
	{ FROM_BH_OFF, "bottom halves off: spins" },
	{ FROM_PREEMPT_OFF, "preemption off: spins" },
};

KUNIT_ARRAY_PARAM_DESC(sync, sync_cases, desc);

static int delete_sync_from(struct twheel_timer *t, enum sync_from from)
{
	int ret;

	switch (from) {
	case FROM_BH_OFF:
		local_bh_disable();
		ret = twheel_timer_delete_sync(t);
		local_bh_enable();
		return ret;
	case FROM_PREEMPT_OFF:
		preempt_disable();
		ret = twheel_timer_delete_sync(t);
		preempt_enable();
		return ret;
	default:
		return twheel_timer_delete_sync(t);
	}
}

/*
 * twheel_timer_delete_sync() while the function runs on CPU b: returns
 * 0 (not pending) once the function has returned, whether it may sleep
 * or must spin (timer_delete_sync()'s rules; under PREEMPT_RT too, the
 * function running on another CPU).
 */
static void twheel_timer_delete_sync_waits_for_running(struct kunit *test)
{
	const struct sync_case *sc = test->param_value;
	struct ttimer *tt = &own(test)->tt[0];
	ktime_t called = 0, returned_at = 0;
	int attempt, ret, returned;
	bool overlapped = false;

	two_cpus(test);
	for (attempt = 0; attempt < 5 && !overlapped; attempt++) {
		tt_running_elsewhere(test, tt, TT_HOLD);

		called = ktime_get();
		ret = delete_sync_from(&tt->timer, sc->from);
		returned_at = ktime_get();
		returned = atomic_read_acquire(&tt->runs);

		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "a running timer");
		KUNIT_EXPECT_EQ_MSG(test, returned, 1,
				    "returned while its function ran");
		KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&tt->timer));
		if (returned)
			KUNIT_EXPECT_FALSE(test,
					   ktime_before(returned_at, tt->left));
		KUNIT_EXPECT_EQ(test, tt->cpu, own(test)->cpu_b);
		overlapped = ktime_before(called, tt->left);
	}
	KUNIT_EXPECT_TRUE_MSG(test, overlapped,
			      "each time, the function had returned before the call");
	kunit_info(test, "waited %lld ns for the running function\n",
		   ktime_to_ns(ktime_sub(returned_at, called)));
}

/*
 * twheel_timer_delete_sync() while the function runs on CPU b, having
 * re-armed the timer: 1 (pending), once the function has returned; it
 * does not run again.
 */
static void twheel_timer_delete_sync_rearmed_returns_pending(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	int ret, returned;

	two_cpus(test);
	tt_running_elsewhere(test, tt, TT_REARM_HOLD);

	KUNIT_EXPECT_TRUE_MSG(test, twheel_timer_pending(&tt->timer),
			      "not pending, re-armed by its own function");
	ret = twheel_timer_delete_sync(&tt->timer);
	returned = atomic_read_acquire(&tt->runs);
	KUNIT_EXPECT_EQ_MSG(test, tt->rearm, 0,
			    "twheel_mod_timer() in its own function");
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ_MSG(test, returned, 1,
			    "returned while its function ran");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&tt->timer));
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&tt->timer), 0);
}

/*
 * twheel_timer_shutdown_sync() while the function runs on CPU b, having
 * re-armed the timer: 1, once the function has returned; every arming
 * the function tries after the cancel, and every one afterwards, returns
 * 0 and arms nothing, and the timer never runs again, until
 * twheel_timer_setup() makes it usable.
 */
static void twheel_timer_shutdown_sync_stops_rearming(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	int ret, returned, i, tries[NTRY];

	two_cpus(test);
	tt_running_elsewhere(test, tt, TT_SHUT);

	/* running on b and pending -> shut down */
	ret = twheel_timer_shutdown_sync(t);
	returned = atomic_read_acquire(&tt->runs);
	KUNIT_EXPECT_EQ_MSG(test, tt->rearm, 0,
			    "twheel_mod_timer() in its own function");
	KUNIT_EXPECT_EQ_MSG(test, ret, 1, "its function had re-armed it");
	KUNIT_EXPECT_EQ_MSG(test, returned, 1,
			    "returned while its function ran");
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_TRUE_MSG(test, tt->saw_cancel,
			      "its function never saw the cancel");
	for (i = 0; i < NTRY; i++)
		KUNIT_EXPECT_EQ_MSG(test, tt->ret[i], 0,
				    "%s in its function, once shut down",
				    try_name[i]);

	tt_try_all(tt, tries);
	for (i = 0; i < NTRY; i++)
		KUNIT_EXPECT_EQ_MSG(test, tries[i], 0, "%s, once shut down",
				    try_name[i]);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	tt_quiet(test, tt, 1, 1, "shut down");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_shutdown_sync(t), 0);

	/* shut down -> idle, usable */
	twheel_timer_setup(t, tt_fn, 0);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + 1, 0), 0);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 2, own(test)->cpu_a, "set up again");
}

/*
 * twheel_timer_pending() through a timer's life: not when fresh, when
 * armed, not in its own function, not after its run, nor once cancelled.
 */
static void twheel_timer_pending_through_life(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 0, "fresh");
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 1, "armed");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(t, jiffies + 1), 1);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_FALSE_MSG(test, tt->pending, "in its own function");
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 0, "run");
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, jiffies + FAR_J), 0);
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 1, "armed again");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_pending(t), 0, "cancelled");
}

/* What the functions of the pair's timers found. */
static struct pair *pair_seen[2];
static struct twheel_timer *pair_timer[2];
static atomic_t pair_runs;

static void pair_a_fn(struct twheel_timer *t)
{
	pair_seen[0] = twheel_from_timer(pair_seen[0], t, a);
	pair_timer[0] = t;
	atomic_inc_return_release(&pair_runs);
}

static void pair_b_fn(struct twheel_timer *t)
{
	pair_seen[1] = twheel_from_timer(pair_seen[1], t, b);
	pair_timer[1] = t;
	atomic_inc_return_release(&pair_runs);
}

/*
 * twheel_from_timer() in a timer's function gives back the structure the
 * timer is in, for each of two timers at different places in it.
 */
static void twheel_from_timer_gives_container(struct kunit *test)
{
	struct pair *p = &own(test)->pair;

	pair_seen[0] = NULL;
	pair_seen[1] = NULL;
	atomic_set(&pair_runs, 0);
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(&p->a, jiffies + 1), 0);
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(&p->b, jiffies + 2), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&pair_runs, 2));
	KUNIT_EXPECT_PTR_EQ(test, pair_timer[0], &p->a);
	KUNIT_EXPECT_PTR_EQ(test, pair_timer[1], &p->b);
	KUNIT_EXPECT_PTR_EQ(test, pair_seen[0], p);
	KUNIT_EXPECT_PTR_EQ(test, pair_seen[1], p);
}

/*
 * ->expires is the deadline last armed: set by twheel_mod_timer(), by
 * twheel_mod_timer_pending() of a pending timer and by
 * twheel_timer_reduce() that moves it, not by those that arm nothing or
 * leave it; a cancel or a run keeps it.
 */
static void twheel_timer_expires_holds_last_armed(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;
	unsigned long e = jiffies + FAR_J;

	KUNIT_EXPECT_EQ(test, t->expires, 0UL);
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e, "twheel_mod_timer(), idle");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer(t, e + HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + HZ,
			    "twheel_mod_timer(), pending");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, e + 2 * HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + 2 * HZ,
			    "twheel_mod_timer_pending(), pending");
	KUNIT_EXPECT_EQ(test, twheel_timer_reduce(t, e + 3 * HZ), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + 2 * HZ,
			    "twheel_timer_reduce(), later");
	KUNIT_EXPECT_EQ(test, twheel_timer_reduce(t, e), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e,
			    "twheel_timer_reduce(), earlier");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e, "twheel_timer_delete()");
	KUNIT_EXPECT_EQ(test, twheel_mod_timer_pending(t, e + HZ), 0);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e,
			    "twheel_mod_timer_pending(), idle");
	KUNIT_EXPECT_EQ(test, twheel_timer_reduce(t, e + HZ), 0);
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e + HZ,
			    "twheel_timer_reduce(), idle");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);

	e = jiffies + 1;
	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	KUNIT_ASSERT_TRUE(test, wait_runs(&tt->runs, 1));
	KUNIT_EXPECT_EQ_MSG(test, t->expires, e, "run");
}

/* A delay in jiffies, named for the case's parameter row. */
struct jcase {
	long ahead;
	const char *desc;
};

static const struct jcase exact_cases[] = {
	{ -5, "5 jiffies past" },
	{ 0, "jiffies (the next tick)" },
	{ 1, "1 jiffy" },
	{ 2, "2 jiffies" },
	{ 10, "10 jiffies" },
	{ 63, "63 jiffies" },
	{ 64, "64 jiffies" },
	{ 100, "100 jiffies" },
};

KUNIT_ARRAY_PARAM_DESC(exact, exact_cases, desc);

/*
 * twheel_mod_timer(t, jiffies + n) runs the function once, on this CPU,
 * no sooner than n jiffies of TICK_NSEC after the call (as ktime_get()
 * read before it tells it: jiffies read by the call itself, so fewer if
 * a jiffy passed meanwhile) and not after the tick that follows.
 */
static void twheel_mod_timer_never_early(struct kunit *test)
{
	const struct jcase *jc = test->param_value;
	struct ttimer *tt = &own(test)->tt[0];

	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + jc->ahead, 0), 0);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, jc->desc);
	tt_quiet(test, tt, 1, 0, "after its run");
}

static const struct jcase deferrable_cases[] = {
	{ 1, "1 jiffy" },
	{ 8, "8 jiffies" },
	{ 64, "64 jiffies" },
	{ 200, "200 jiffies" },
};

KUNIT_ARRAY_PARAM_DESC(deferrable, deferrable_cases, desc);

/*
 * A %TIMER_DEFERRABLE timer runs no sooner than its deadline, and within
 * an eighth of its delay after it (and a tick).
 */
static void twheel_timer_deferrable_runs_in_window(struct kunit *test)
{
	const struct jcase *jc = test->param_value;
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	twheel_timer_setup(t, tt_fn, TIMER_DEFERRABLE);
	KUNIT_EXPECT_EQ(test, t->flags, (u32)TIMER_DEFERRABLE);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + jc->ahead, 0), 0);
	tt_check_when(test, tt, jc->desc);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, jc->desc);
}

/* What the file-scope timer's function saw. */
static struct {
	atomic_t runs;
	int cpu;
	bool softirq;
	bool pending;
	struct twheel_timer *timer;
} file_run;

static void file_timer_fn(struct twheel_timer *t)
{
	file_run.timer = t;
	file_run.cpu = smp_processor_id();
	file_run.softirq = in_serving_softirq() && !in_hardirq();
	file_run.pending = twheel_timer_pending(t);
	atomic_inc_return_release(&file_run.runs);
}

static DEFINE_TWHEEL_TIMER(file_timer, file_timer_fn);

/*
 * A timer of DEFINE_TWHEEL_TIMER() is ready without twheel_timer_setup():
 * it arms, runs on this CPU and on the CPU named, and cancels, by
 * twheel_timer_delete_sync() too (lockdep, watching the console, stays
 * quiet about its static class).
 */
static void define_twheel_timer_needs_no_setup(struct kunit *test)
{
	struct tctx *tc = own(test);
	unsigned long flags;
	bool pending;
	int ret;

	atomic_set(&file_run.runs, 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&file_timer));
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&file_timer), 0);

	/* Interrupts off: it cannot run before it is seen pending. */
	local_irq_save(flags);
	ret = twheel_mod_timer(&file_timer, jiffies + 1);
	pending = twheel_timer_pending(&file_timer);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_ASSERT_TRUE(test, wait_runs(&file_run.runs, 1));
	KUNIT_EXPECT_PTR_EQ(test, file_run.timer, &file_timer);
	KUNIT_EXPECT_EQ(test, file_run.cpu, tc->cpu_a);
	KUNIT_EXPECT_TRUE(test, file_run.softirq);
	KUNIT_EXPECT_FALSE(test, file_run.pending);

	if (tc->cpu_b >= 0) {
		file_timer.expires = jiffies + 1;
		twheel_add_timer_on(&file_timer, tc->cpu_b);
		KUNIT_ASSERT_TRUE(test, wait_runs(&file_run.runs, 2));
		KUNIT_EXPECT_EQ(test, file_run.cpu, tc->cpu_b);
	}

	KUNIT_EXPECT_EQ(test, twheel_mod_timer(&file_timer, jiffies + FAR_J),
			0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&file_timer), 1);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&file_timer));
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(&file_timer), 0);
}

/*
 * The misuses, each behind a call site of its own, called twice: the
 * report of the first call is announced, a second report is not.
 */
static noinline void setup_irqsafe(struct twheel_timer *t)
{
	twheel_timer_setup(t, tt_fn, TIMER_IRQSAFE | TIMER_DEFERRABLE);
}

static noinline int arm_never_set_up(struct twheel_timer *t)
{
	return twheel_mod_timer(t, jiffies + 1);
}

static noinline void add_pending(struct twheel_timer *t)
{
	twheel_add_timer(t);
}

/*
 * twheel_timer_setup() with %TIMER_IRQSAFE reports it, once, and ignores
 * it: the function runs in softirq context with interrupts enabled; the
 * other flags are kept.
 */
static void twheel_timer_setup_irqsafe_warns(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	pr_info("twheel-expect: begin " WARN_RE "\n");
	setup_irqsafe(t);
	pr_info("twheel-expect: end\n");
	KUNIT_EXPECT_EQ(test, t->flags, (u32)TIMER_DEFERRABLE);
	setup_irqsafe(t);	/* not reported again */
	KUNIT_EXPECT_EQ(test, t->flags, (u32)TIMER_DEFERRABLE);

	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + timeout, 0), 0);
	control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "TIMER_IRQSAFE asked for");
}

/*
 * A timer never set up (zero-filled, its function assigned): arming it
 * is reported, once a call site, and arms nothing: the arming calls
 * return 0 and nothing runs.  The cancels return 0.
 */
static void twheel_mod_timer_never_set_up_warns(struct kunit *test)
{
	struct tctx *tc = own(test);
	struct ttimer *tt;
	struct twheel_timer *t;
	int ret[2], tries[NTRY], i;

	tt = kunit_kzalloc(test, sizeof(*tt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tt);
	tc->stray = tt;
	t = &tt->timer;
	t->function = tt_fn;

	pr_info("twheel-expect: begin " WARN_RE "\n");
	ret[0] = arm_never_set_up(t);
	tt_try_all(tt, tries);
	pr_info("twheel-expect: end\n");
	ret[1] = arm_never_set_up(t);	/* not reported again */

	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 0);
	for (i = 0; i < NTRY; i++)
		KUNIT_EXPECT_EQ_MSG(test, tries[i], 0, "%s, never set up",
				    try_name[i]);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	tt_quiet(test, tt, 0, 1, "never set up");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(t), 0);
}

/*
 * twheel_add_timer() and twheel_add_timer_on() of a pending timer report
 * it, once a call site, and leave the timer as it is.
 */
static void twheel_add_timer_pending_warns(struct kunit *test)
{
	struct tctx *tc = own(test);
	struct twheel_timer *t = &tc->tt[0].timer;
	unsigned long e = jiffies + FAR_J;
	ktime_t when;

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	when = callout_when(&t->c);
	t->expires = jiffies + 1;
	pr_info("twheel-expect: begin " WARN_RE "\n");
	add_pending(t);
	twheel_add_timer_on(t, tc->cpu_b >= 0 ? tc->cpu_b : tc->cpu_a);
	pr_info("twheel-expect: end\n");
	add_pending(t);		/* not reported again */
	KUNIT_EXPECT_TRUE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ_MSG(test, callout_when(&t->c), when,
			    "the pending timer was moved");
	tt_quiet(test, &tc->tt[0], 0, 1, "left as it was");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
}

static int pin(int cpu)
{
	return set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

static int timer_init(struct kunit *test)
{
	struct tctx *tc = kunit_kzalloc(test, sizeof(*tc), GFP_KERNEL);
	struct ttimer *tt;
	int i;

	if (!tc)
		return -ENOMEM;
	for (i = 0; i < NTT; i++) {
		tt = &tc->tt[i];
		tt->id = i;
		twheel_timer_setup(&tt->timer, tt_fn, 0);
		hrtimer_init(&tt->control, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_SOFT);
		tt->control.function = control_fn;
	}
	twheel_timer_setup(&tc->pair.a, pair_a_fn, 0);
	twheel_timer_setup(&tc->pair.b, pair_b_fn, 0);
	tc->cpu_a = cpumask_first(cpu_online_mask);
	tc->cpu_b = cpumask_next(tc->cpu_a, cpu_online_mask);
	if (tc->cpu_b >= nr_cpu_ids)
		tc->cpu_b = -1;
	test->priv = tc;
	return pin(tc->cpu_a);
}

/*
 * End what @tt's timer is doing: release a held run, cancel the timer and
 * wait for its function, then its control.  This file's own untimeout(),
 * a name <twheel_timer.h> leaves free.
 */
static void untimeout(struct ttimer *tt)
{
	WRITE_ONCE(tt->mode, TT_RECORD);
	atomic_set_release(&tt->release, 1);
	twheel_timer_delete_sync(&tt->timer);
	hrtimer_cancel(&tt->control);
}

/* Cancel all a case armed, so that nothing runs into freed memory. */
static void timer_exit(struct kunit *test)
{
	struct tctx *tc = test->priv;
	int i;

	if (!tc)
		return;
	for (i = 0; i < NTT; i++)
		untimeout(&tc->tt[i]);
	if (tc->stray)
		twheel_timer_delete_sync(&tc->stray->timer);
	twheel_timer_delete_sync(&tc->pair.a);
	twheel_timer_delete_sync(&tc->pair.b);
	twheel_timer_delete_sync(&file_timer);
}

static struct kunit_case timer_cases[] = {
	KUNIT_CASE(twheel_mod_timer_returns_whether_pending),
	KUNIT_CASE(twheel_mod_timer_pending_idle_arms_nothing),
	KUNIT_CASE(twheel_mod_timer_pending_moves_pending),
	KUNIT_CASE(twheel_timer_reduce_idle_arms),
	KUNIT_CASE(twheel_timer_reduce_later_leaves_pending),
	KUNIT_CASE(twheel_timer_reduce_earlier_moves_pending),
	KUNIT_CASE(twheel_add_timer_uses_expires),
	KUNIT_CASE(twheel_add_timer_on_runs_on_cpu),
	KUNIT_CASE(twheel_timer_delete_returns_whether_pending),
	KUNIT_CASE_PARAM(twheel_timer_delete_sync_waits_for_running,
			 sync_gen_params),
	KUNIT_CASE(twheel_timer_delete_sync_rearmed_returns_pending),
	KUNIT_CASE(twheel_timer_shutdown_sync_stops_rearming),
	KUNIT_CASE(twheel_timer_pending_through_life),
	KUNIT_CASE(twheel_from_timer_gives_container),
	KUNIT_CASE(twheel_timer_expires_holds_last_armed),
	KUNIT_CASE_PARAM(twheel_mod_timer_never_early, exact_gen_params),
	KUNIT_CASE_PARAM(twheel_timer_deferrable_runs_in_window,
			 deferrable_gen_params),
	KUNIT_CASE(define_twheel_timer_needs_no_setup),
	KUNIT_CASE(twheel_timer_setup_irqsafe_warns),
	KUNIT_CASE(twheel_mod_timer_never_set_up_warns),
	KUNIT_CASE(twheel_add_timer_pending_warns),
	{}
};

static struct kunit_suite timer_suite = {
	.name = "twheel_client_timer",
	.init = timer_init,
	.exit = timer_exit,
	.test_cases = timer_cases,
};

kunit_test_suite(timer_suite);
