// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the callout facility in real time: the contract of
 * setcallout(), unsetcallout(), unsetcallout_sync(), timeout() and
 * untimeout() on the running module.
 *
 * Never-early is asserted strictly: a callout armed for n ticks runs more
 * than n * tick_ns after the call began.  Lateness is only bounded
 * generously (TCG guests are slow and get descheduled).  Waiters busy-poll
 * against ktime rather than sleep, so that a wakeup delayed by softirq work
 * on the other CPU cannot make a test flaky.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"

/* However slow the guest, a callout this late means it was lost. */
#define LOST_NS		(20 * NSEC_PER_SEC)

/* What one callout saw when it ran. */
struct probe {
	struct callout c;
	ktime_t armed;		/* just before setcallout() */
	unsigned long ticks;
	int armed_cpu;
	atomic_t fired;
	ktime_t ran;
	int ran_cpu;
};

static void probe_fn(void *arg)
{
	struct probe *p = arg;

	p->ran = ktime_get();
	p->ran_cpu = smp_processor_id();
	atomic_inc(&p->fired);
}

static int probe_arm(struct probe *p, unsigned long ticks)
{
	int ret;

	preempt_disable();
	p->armed_cpu = smp_processor_id();
	p->ticks = ticks;
	p->armed = ktime_get();
	ret = setcallout(&p->c, probe_fn, p, ticks);
	preempt_enable();
	return ret;
}

/* Busy-poll until @cond holds or LOST_NS passes; true if it held. */
#define poll_until(cond)						\
({									\
	ktime_t __end = ktime_add_ns(ktime_get(), LOST_NS);		\
	bool __ok;							\
									\
	while (!(__ok = (cond)) && ktime_before(ktime_get(), __end))	\
		cpu_relax();						\
	__ok;								\
})

/* Wait @ns of wall time without sleeping. */
static void spin_ns(u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (ktime_before(ktime_get(), end))
		cpu_relax();
}

static void expect_on_time(struct kunit *test, const struct probe *p)
{
	s64 waited = ktime_to_ns(ktime_sub(p->ran, p->armed));

	KUNIT_EXPECT_GT_MSG(test, waited, (s64)(p->ticks * twheel_tick_ns()),
			    "ran %lld ns after arming for %lu ticks", waited,
			    p->ticks);
	KUNIT_EXPECT_LT(test, waited,
			(s64)(p->ticks * twheel_tick_ns() + LOST_NS));
	KUNIT_EXPECT_EQ(test, p->ran_cpu, p->armed_cpu);
}

/* 0 for an idle callout, 1 for a pending one; unset likewise. */
static void setcallout_return_values(struct kunit *test)
{
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	callout_init(&p->c);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
	KUNIT_EXPECT_EQ(test, probe_arm(p, 100000), 0);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, probe_arm(p, 100000), 1);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&p->c), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 0);
}

static void never_fn(void *arg)
{
	atomic_inc(arg);
}

/* Bad arguments give -EINVAL and change nothing. */
static void setcallout_invalid_arguments(struct kunit *test)
{
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct callout *raw = kunit_kzalloc(test, sizeof(*raw), GFP_KERNEL);
	atomic_t calls = ATOMIC_INIT(0);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, raw);
	callout_init(&p->c);

	KUNIT_EXPECT_EQ(test, setcallout(NULL, never_fn, &calls, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, setcallout(&p->c, NULL, &calls, 1), -EINVAL);
	/* A zeroed handle was never initialised. */
	KUNIT_EXPECT_EQ(test, setcallout(raw, never_fn, &calls, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout(raw), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(raw), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, setcallout(&p->c, never_fn, &calls,
					 CALLOUT_MAX_TICKS + 1), -EINVAL);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));

	/* On a pending handle, a refused re-arm leaves it armed as it was. */
	KUNIT_EXPECT_EQ(test, setcallout(&p->c, never_fn, &calls, 100000), 0);
	KUNIT_EXPECT_EQ(test, setcallout(&p->c, NULL, &calls, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, setcallout(&p->c, never_fn, &calls,
					 CALLOUT_MAX_TICKS + 1), -EINVAL);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);

	/* The longest interval is accepted. */
	KUNIT_EXPECT_EQ(test, setcallout(&p->c, never_fn, &calls,
					 CALLOUT_MAX_TICKS), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);

	KUNIT_EXPECT_EQ(test, timeout(NULL, &calls, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, timeout(never_fn, &calls, CALLOUT_MAX_TICKS + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, untimeout(never_fn, &calls), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&calls), 0);
}

struct interval_case {
	const char *desc;
	unsigned long ticks;
};

static const struct interval_case interval_cases[] = {
	{ "0 ticks (the next tick)", 0 },
	{ "1 tick", 1 },
	{ "2 ticks", 2 },
	{ "7 ticks", 7 },
	{ "64 ticks (a level-0 wrap at 4 x 64)", 64 },
	{ "65 ticks", 65 },
	{ "300 ticks", 300 },
};

static void interval_desc(const struct interval_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(interval, interval_cases, interval_desc);

/* A callout runs once, not early, on the CPU that armed it. */
static void setcallout_fires_once_on_time(struct kunit *test)
{
	const struct interval_case *ic = test->param_value;
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	callout_init(&p->c);
	KUNIT_ASSERT_EQ(test, probe_arm(p, ic->ticks), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&p->fired)));
	/* Give a second run, were there one, time to show. */
	spin_ns(3 * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	expect_on_time(test, p);
}

struct periodic {
	struct callout c;
	atomic_t runs;
	int stop_after;
	ktime_t last;
	s64 min_gap;
};

static void periodic_fn(void *arg)
{
	struct periodic *p = arg;
	ktime_t now = ktime_get();
	int runs = atomic_inc_return(&p->runs);

	if (runs > 1)
		p->min_gap = min(p->min_gap, ktime_to_ns(ktime_sub(now, p->last)));
	p->last = now;
	if (runs < p->stop_after)
		setcallout(&p->c, periodic_fn, p, 2);
}

/* A callout that re-arms itself from its function runs periodically. */
static void setcallout_periodic_rearm(struct kunit *test)
{
	struct periodic *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	callout_init(&p->c);
	p->stop_after = 20;
	p->min_gap = S64_MAX;
	KUNIT_ASSERT_EQ(test, setcallout(&p->c, periodic_fn, p, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&p->runs) == 20));
	spin_ns(5 * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 20);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	/* Re-armed for 2 ticks from within tick k, it runs on k + 3 or later. */
	KUNIT_EXPECT_GT(test, p->min_gap, (s64)(2 * twheel_tick_ns()));
}

struct hard_arm {
	struct hrtimer timer;
	struct probe probe;
	int ret;
	bool in_hardirq;
};

static enum hrtimer_restart hard_arm_fn(struct hrtimer *timer)
{
	struct hard_arm *h = container_of(timer, struct hard_arm, timer);

	h->in_hardirq = in_hardirq();
	h->ret = probe_arm(&h->probe, 3);
	return HRTIMER_NORESTART;
}

/* setcallout() works from hardirq context. */
static void setcallout_from_hardirq(struct kunit *test)
{
	struct hard_arm *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	callout_init(&h->probe.c);
	h->ret = -1;
	hrtimer_init(&h->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	h->timer.function = hard_arm_fn;
	hrtimer_start(&h->timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&h->probe.fired)));
	hrtimer_cancel(&h->timer);
	KUNIT_EXPECT_TRUE(test, h->in_hardirq);
	KUNIT_EXPECT_EQ(test, h->ret, 0);
	expect_on_time(test, &h->probe);
}

struct self_sync {
	struct callout c;
	int ret;
	atomic_t done;
};

static void self_sync_fn(void *arg)
{
	struct self_sync *s = arg;

	s->ret = unsetcallout_sync(&s->c);
	atomic_set(&s->done, 1);
}

/* From its own function, unsetcallout_sync() refuses with -EDEADLK. */
static void unsetcallout_sync_from_own_function(struct kunit *test)
{
	struct self_sync *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	callout_init(&s->c);
	KUNIT_ASSERT_EQ(test, setcallout(&s->c, self_sync_fn, s, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&s->done)));
	KUNIT_EXPECT_EQ(test, s->ret, -EDEADLK);
}

/* From atomic context it refuses too, and the callout stays armed. */
static void unsetcallout_sync_atomic_context(struct kunit *test)
{
	static DEFINE_SPINLOCK(lock);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, p);
	callout_init(&p->c);
	KUNIT_ASSERT_EQ(test, probe_arm(p, 100000), 0);
	spin_lock(&lock);
	ret = unsetcallout_sync(&p->c);
	spin_unlock(&lock);
	KUNIT_EXPECT_EQ(test, ret, -EDEADLK);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));

	local_irq_disable();
	ret = unsetcallout_sync(&p->c);
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, ret, -EDEADLK);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&p->c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
}

static void count_fn(void *arg)
{
	atomic_inc(arg);
}

/* timeout() runs once; untimeout() cancels one pending match at a time. */
static void timeout_and_untimeout(struct kunit *test)
{
	atomic_t *runs = kunit_kzalloc(test, sizeof(*runs), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, runs);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, runs, 1), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(runs) == 1));
	spin_ns(3 * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(runs), 1);
	/* It has run: nothing left to cancel. */
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, runs), 0);

	/* Three with the same func and arg, and one with another arg. */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, runs, 100000), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, runs + 1, 100000), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, untimeout(count_fn, runs), 1);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, runs), 0);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, runs + 1), 1);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, runs + 1), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(runs), 1);
}

static unsigned int hash_bits(void)
{
	unsigned long longest;
	unsigned int bits;

	twheel_hash_read(&bits, &longest);
	return bits;
}

/*
 * Of two pending duplicates, untimeout() cancels the most recently armed,
 * also after the hash table has grown under them.
 */
static void untimeout_most_recent_after_growth(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	unsigned int bits = hash_bits(), n = (2U << bits) + 100, i;
	atomic_t *other = vcalloc(n, sizeof(*other));

	KUNIT_ASSERT_NOT_NULL(test, dup);
	KUNIT_ASSERT_NOT_NULL(test, other);
	/* The older one will run in 5 s; the newer one would in an hour. */
	KUNIT_ASSERT_EQ(test, timeout(count_fn, dup,
				      twheel_ns_to_ticks(5 * NSEC_PER_SEC)), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, dup,
				      twheel_ns_to_ticks(3600 * NSEC_PER_SEC)),
			0);
	/* Enough others to make the table outgrow its size. */
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, &other[i], 1000000), 0);
	KUNIT_EXPECT_TRUE(test, poll_until(hash_bits() > bits));

	KUNIT_EXPECT_EQ(test, untimeout(count_fn, dup), 1);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(dup) == 1));
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, dup), 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, untimeout(count_fn, &other[i]), 1);
	vfree(other);
}

/* Many callouts with random intervals: each runs once, none early. */
static void setcallout_random_intervals(struct kunit *test)
{
	const unsigned int n = 10000;
	struct rnd_state rnd;
	struct probe *p;
	unsigned int i, fired = 0;

	p = vcalloc(n, sizeof(*p));
	KUNIT_ASSERT_NOT_NULL(test, p);
	prandom_seed_state(&rnd, 20261121);
	for (i = 0; i < n; i++) {
		callout_init(&p[i].c);
		KUNIT_ASSERT_EQ(test, probe_arm(&p[i], prandom_u32_state(&rnd) % 300),
				0);
	}
	poll_until(({
		for (fired = 0, i = 0; i < n; i++)
			fired += atomic_read(&p[i].fired) != 0;
		fired == n;
	}));
	spin_ns(3 * twheel_tick_ns());
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p[i].fired), 1,
				    "callout %u of %lu ticks", i, p[i].ticks);
		if (atomic_read(&p[i].fired))
			expect_on_time(test, &p[i]);
		unsetcallout_sync(&p[i].c);
	}
	vfree(p);
}

/* 100,000 distinct (func, arg) pairs, each found and cancelled. */
static void untimeout_many_pairs(struct kunit *test)
{
	const unsigned int n = 100000;
	atomic_t *runs;
	unsigned int i, cancelled = 0;

	runs = vcalloc(n, sizeof(*runs));
	KUNIT_ASSERT_NOT_NULL(test, runs);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, &runs[i], 1000000), 0);
	for (i = 0; i < n; i++)
		cancelled += untimeout(count_fn, &runs[i]);
	KUNIT_EXPECT_EQ(test, cancelled, n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, untimeout(count_fn, &runs[i]), 0);
	vfree(runs);
}

static struct kunit_case twheel_callout_cases[] = {
	KUNIT_CASE(setcallout_return_values),
	KUNIT_CASE(setcallout_invalid_arguments),
	KUNIT_CASE_PARAM(setcallout_fires_once_on_time, interval_gen_params),
	KUNIT_CASE(setcallout_periodic_rearm),
	KUNIT_CASE(setcallout_from_hardirq),
	KUNIT_CASE(unsetcallout_sync_from_own_function),
	KUNIT_CASE(unsetcallout_sync_atomic_context),
	KUNIT_CASE(timeout_and_untimeout),
	KUNIT_CASE_SLOW(untimeout_most_recent_after_growth),
	KUNIT_CASE_SLOW(setcallout_random_intervals),
	KUNIT_CASE_SLOW(untimeout_many_pairs),
	{}
};

static struct kunit_suite twheel_callout_suite = {
	.name = "twheel_callout",
	.test_cases = twheel_callout_cases,
};

kunit_test_suite(twheel_callout_suite);

/*
 * The SMP suite: races between the two CPUs, hotplug and idle.  The test
 * thread pins itself to one CPU and puts work on the other, with a pinned
 * kthread or an IPI.
 */

struct smp_ctx {
	int here, there;	/* the test thread's CPU and the other one */
};

static int callout_smp_init(struct kunit *test)
{
	struct smp_ctx *ctx;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->here = cpumask_first(cpu_online_mask);
	ctx->there = cpumask_next(ctx->here, cpu_online_mask);
	if (set_cpus_allowed_ptr(current, cpumask_of(ctx->here)))
		return -EIO;
	test->priv = ctx;
	return 0;
}

static void callout_smp_exit(struct kunit *test)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/* Set and unset one handle from both CPUs at once. */
#define TUG_RUNS	20	/* runs of the callout the tug waits for */

struct tug {
	struct callout c;
	atomic_t fired;
	atomic_t set_idle;	/* setcallout() calls that returned 0 */
	atomic_t unset_hit;	/* unsetcallout() calls that returned 1 */
	atomic_t ready;
	unsigned int rounds;	/* at least this many each ... */
	ktime_t until;		/* ... and until then, so that ticks pass, */
	ktime_t deadline;	/* and until TUG_RUNS ran, but not past this */
	u32 seed;
	atomic_t done;
};

static void tug_fn(void *arg)
{
	struct tug *t = arg;

	atomic_inc(&t->fired);
}

static void tug_play(struct tug *t, u32 seed)
{
	struct rnd_state rnd;
	unsigned int i;

	prandom_seed_state(&rnd, seed);
	atomic_inc(&t->ready);
	while (atomic_read(&t->ready) < 2)
		cpu_relax();
	for (i = 0; ; i++) {
		ktime_t now = ktime_get();
		u32 r = prandom_u32_state(&rnd);
		u32 pause = prandom_u32_state(&rnd);

		if (!ktime_before(now, t->deadline) ||
		    (i >= t->rounds && !ktime_before(now, t->until) &&
		     atomic_read(&t->fired) >= TUG_RUNS))
			break;
		if (r & 1) {
			if (setcallout(&t->c, tug_fn, t, (r >> 1) % 3) == 0)
				atomic_inc(&t->set_idle);
		} else if (unsetcallout(&t->c) == 1) {
			atomic_inc(&t->unset_hit);
		}
		/*
		 * Mostly short pauses, so that the two CPUs collide; now and
		 * then one of a few ticks, so that when both pause at once
		 * the callout runs, racing the next set or unset.
		 */
		if (!(pause % 1024))
			spin_ns((pause >> 10) % (4 * twheel_tick_ns()));
		else if (!(pause & 3))
			spin_ns((pause >> 2) % (50 * NSEC_PER_USEC));
	}
}

static int tug_thread(void *arg)
{
	struct tug *t = arg;

	tug_play(t, t->seed + 1);
	atomic_set(&t->done, 1);
	return 0;
}

/*
 * Every arming of an idle callout ends in exactly one of: a run, or an
 * unset that returned 1.  Nothing is lost and nothing runs twice.  The
 * tug goes on until the callout has run TUG_RUNS times, so that runs
 * racing the other CPU's calls are always part of it.
 */

static void setcallout_unsetcallout_race(struct kunit *test)
{
	struct smp_ctx *ctx = test->priv;
	struct tug *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *k;

	KUNIT_ASSERT_NOT_NULL(test, t);
	callout_init(&t->c);
	t->rounds = 20000;
	t->until = ktime_add_ns(ktime_get(), 200 * twheel_tick_ns());
	t->deadline = ktime_add_ns(t->until, LOST_NS);
	t->seed = 7;
	k = kthread_run_on_cpu(tug_thread, t, ctx->there, "twheel_tug/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	tug_play(t, t->seed);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&t->done)));
	if (unsetcallout_sync(&t->c) == 1)
		atomic_inc(&t->unset_hit);
	spin_ns(3 * twheel_tick_ns());

	kunit_info(test, "%d armed, %d ran, %d cancelled\n",
		   atomic_read(&t->set_idle), atomic_read(&t->fired),
		   atomic_read(&t->unset_hit));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->set_idle),
			atomic_read(&t->fired) + atomic_read(&t->unset_hit));
	KUNIT_EXPECT_GE(test, atomic_read(&t->fired), TUG_RUNS);
	KUNIT_EXPECT_GT(test, atomic_read(&t->unset_hit), 0);
}

/*
 * A periodic callout on the other CPU.  When the test raises @hold, the
 * function, once running, waits for the test's @go and then runs on for a
 * while, so the test knows it is calling unsetcallout_sync() mid-run.
 */
struct slow {
	struct callout c;
	atomic_t running;
	atomic_t runs;
	atomic_t hold;
	atomic_t go;
};

static void slow_fn(void *arg)
{
	struct slow *s = arg;

	atomic_set(&s->running, 1);
	if (atomic_read(&s->hold)) {
		ktime_t end = ktime_add_ns(ktime_get(), LOST_NS);

		while (!atomic_read(&s->go) && ktime_before(ktime_get(), end))
			cpu_relax();
		spin_ns(NSEC_PER_MSEC);
	} else {
		spin_ns(200 * NSEC_PER_USEC);
	}
	atomic_set(&s->running, 0);
	atomic_inc(&s->runs);
	setcallout(&s->c, slow_fn, s, 0);
}

static void slow_arm(void *arg)
{
	struct slow *s = arg;

	setcallout(&s->c, slow_fn, s, 0);
}

/*
 * unsetcallout_sync() while the function runs on the other CPU returns
 * only once it has finished, and leaves it neither pending nor running,
 * though it re-arms itself.  Odd rounds call it at a random moment, even
 * rounds while the function is known to be running.
 */
static void unsetcallout_sync_while_running(struct kunit *test)
{
	struct smp_ctx *ctx = test->priv;
	struct slow *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	unsigned int i, overlaps = 0, runs;
	struct rnd_state rnd;

	KUNIT_ASSERT_NOT_NULL(test, s);
	callout_init(&s->c);
	prandom_seed_state(&rnd, 11);
	for (i = 0; i < 1000; i++) {
		bool held = !(i & 1);

		atomic_set(&s->hold, held);
		atomic_set(&s->go, 0);
		smp_call_function_single(ctx->there, slow_arm, s, 1);
		if (held)
			KUNIT_ASSERT_TRUE(test,
					  poll_until(atomic_read(&s->running)));
		else
			spin_ns(prandom_u32_state(&rnd) %
				(3 * twheel_tick_ns()));
		atomic_set(&s->go, 1);
		overlaps += atomic_read(&s->running);
		KUNIT_ASSERT_GE(test, unsetcallout_sync(&s->c), 0);
		KUNIT_ASSERT_EQ_MSG(test, atomic_read(&s->running), 0,
				    "round %u", i);
		KUNIT_ASSERT_FALSE_MSG(test, callout_pending(&s->c),
				       "round %u", i);
	}
	runs = atomic_read(&s->runs);
	spin_ns(3 * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(&s->runs), runs);
	kunit_info(test, "%u runs, %u syncs began while it ran\n", runs,
		   overlaps);
	KUNIT_EXPECT_GT(test, overlaps, 0U);
}

struct race_timeout {
	atomic_t *fired;
	unsigned int i;
	unsigned long ticks;
};

static void race_timeout_arm(void *arg)
{
	struct race_timeout *r = arg;

	timeout(count_fn, &r->fired[r->i], r->ticks);
}

/* untimeout() against expiry: each callout either runs or is cancelled. */
static void untimeout_expiry_race(struct kunit *test)
{
	struct smp_ctx *ctx = test->priv;
	const unsigned int n = 3000;
	unsigned int i, cancelled = 0, ran = 0, both = 0, neither = 0;
	struct race_timeout r;
	struct rnd_state rnd;
	u8 *hit;

	r.fired = vcalloc(n, sizeof(*r.fired));
	hit = vcalloc(n, 1);
	KUNIT_ASSERT_NOT_NULL(test, r.fired);
	KUNIT_ASSERT_NOT_NULL(test, hit);
	prandom_seed_state(&rnd, 13);
	for (i = 0; i < n; i++) {
		r.i = i;
		r.ticks = prandom_u32_state(&rnd) % 2;
		smp_call_function_single(ctx->there, race_timeout_arm, &r, 1);
		spin_ns(prandom_u32_state(&rnd) % (3 * twheel_tick_ns()));
		hit[i] = untimeout(count_fn, &r.fired[i]);
		cancelled += hit[i];
	}
	poll_until(({
		for (ran = 0, i = 0; i < n; i++)
			ran += atomic_read(&r.fired[i]);
		ran + cancelled >= n;
	}));
	spin_ns(3 * twheel_tick_ns());
	for (i = 0; i < n; i++) {
		int f = atomic_read(&r.fired[i]);

		both += f && hit[i];
		neither += !f && !hit[i];
		KUNIT_EXPECT_LE_MSG(test, f, 1, "callout %u", i);
	}
	kunit_info(test, "%u cancelled, %u ran\n", cancelled, n - cancelled);
	KUNIT_EXPECT_EQ(test, both, 0U);
	KUNIT_EXPECT_EQ(test, neither, 0U);
	KUNIT_EXPECT_GT(test, cancelled, 0U);
	KUNIT_EXPECT_LT(test, cancelled, n);
	vfree(hit);
	vfree(r.fired);
}

static void probe_arm_ipi(void *arg)
{
	struct probe *p = arg;

	probe_arm(p, p->ticks);
}

/*
 * Callouts pending on a CPU that goes offline move to an online CPU and
 * still run once, not early.
 */
static void cpu_offline_moves_callouts(struct kunit *test)
{
	struct smp_ctx *ctx = test->priv;
	const unsigned int n = 200;
	unsigned int i, fired, moved = 0;
	struct probe *p;
	bool *stayed;
	int ret;

	p = vcalloc(n, sizeof(*p));
	stayed = kunit_kcalloc(test, n, sizeof(*stayed), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, stayed);
	for (i = 0; i < n; i++) {
		callout_init(&p[i].c);
		p[i].ticks = twheel_ns_to_ticks(NSEC_PER_SEC) + 10 * i;
		smp_call_function_single(ctx->there, probe_arm_ipi, &p[i], 1);
		KUNIT_ASSERT_EQ(test, p[i].armed_cpu, ctx->there);
	}
	ret = remove_cpu(ctx->there);
	/* Those still pending now were on the CPU when it went. */
	for (i = 0; i < n; i++)
		stayed[i] = callout_pending(&p[i].c);
	if (ret) {
		for (i = 0; i < n; i++)
			unsetcallout_sync(&p[i].c);
		vfree(p);
		KUNIT_FAIL(test, "remove_cpu(%d) failed: %d", ctx->there, ret);
		return;
	}
	poll_until(({
		for (fired = 0, i = 0; i < n; i++)
			fired += atomic_read(&p[i].fired) != 0;
		fired == n;
	}));
	KUNIT_EXPECT_EQ(test, add_cpu(ctx->there), 0);
	spin_ns(3 * twheel_tick_ns());
	for (i = 0; i < n; i++) {
		s64 waited = ktime_to_ns(ktime_sub(p[i].ran, p[i].armed));

		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p[i].fired), 1,
				    "callout %u", i);
		KUNIT_EXPECT_GT_MSG(test, waited,
				    (s64)(p[i].ticks * twheel_tick_ns()),
				    "callout %u", i);
		if (stayed[i]) {
			KUNIT_EXPECT_NE_MSG(test, p[i].ran_cpu, ctx->there,
					    "callout %u", i);
			moved++;
		}
		unsetcallout_sync(&p[i].c);
	}
	vfree(p);
	kunit_info(test, "%u of %u were pending when CPU %d went offline\n",
		   moved, n, ctx->there);
	if (!moved)
		kunit_mark_skipped(test, "CPU %d took too long to go offline",
				   ctx->there);
}

static u64 all_interrupts(void)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		sum += twheel_interrupts(cpu);
	return sum;
}

/* With nothing pending, no twheel hrtimer fires; with work, it does. */
static void idle_takes_no_interrupts(struct kunit *test)
{
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, p);
	/* Arm and cancel one, to leave a programmed hrtimer if any. */
	callout_init(&p->c);
	KUNIT_ASSERT_EQ(test, probe_arm(p, 20), 0);
	KUNIT_ASSERT_EQ(test, unsetcallout(&p->c), 1);

	before = all_interrupts();
	spin_ns(500 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, all_interrupts(), before);

	KUNIT_ASSERT_EQ(test, probe_arm(p, 5), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&p->fired)));
	KUNIT_EXPECT_GT(test, all_interrupts(), before);
}

static struct kunit_case twheel_callout_smp_cases[] = {
	KUNIT_CASE_SLOW(setcallout_unsetcallout_race),
	KUNIT_CASE_SLOW(unsetcallout_sync_while_running),
	KUNIT_CASE_SLOW(untimeout_expiry_race),
	KUNIT_CASE(cpu_offline_moves_callouts),
	KUNIT_CASE(idle_takes_no_interrupts),
	{}
};

static struct kunit_suite twheel_callout_smp_suite = {
	.name = "twheel_callout_smp",
	.init = callout_smp_init,
	.exit = callout_smp_exit,
	.test_cases = twheel_callout_smp_cases,
};

kunit_test_suite(twheel_callout_smp_suite);

MODULE_DESCRIPTION("KUnit tests of the twheel callout facility");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
