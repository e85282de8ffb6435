// SPDX-License-Identifier: GPL-2.0
/*
 * client_hotplug.c - suite twheel_client_hotplug: a CPU taken offline
 * with callouts pending on it, which move to an online CPU and still run
 * once, not early; and taken down and up again and again while both CPUs
 * arm and cancel handles and timeout()s and a callout re-arms itself on
 * it: every arming ends exactly once, never early, never on two CPUs at
 * once.  (Suite twheel_hotplug, hotplug_test.c, races callout_init_lock()
 * on a third CPU against the hand-over.)
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "client.h"

#define NOFFLINE	200	/* callouts on a CPU taken offline */

/*
 * The hotplug case's books of one handle, or of one timeout() argument.
 * An arming call and the entry it makes are done under @lock with
 * interrupts off, and so is a run's reckoning, so the books follow the
 * order in which calls and runs took effect:
 *
 *   setcallout() returns 0    an arming opens, due after its ticks
 *   setcallout() returns 1    the newest open arming is due after the new ticks
 *   timeout() returns 0       an arming opens (one at a time per argument)
 *   a cancel returns 1        the newest open arming ends
 *   the function runs         the oldest open arming ends
 *
 * A run ends the oldest: an arming made after the run was taken off its
 * wheel is on the CPU running it (setcallout() keeps a running handle
 * where it runs) and cannot run before this run returns.  So at most two
 * armings are open at once, one running and one pending.
 */
#define HP_OPEN		4

struct hp_books {
	struct callout c;	/* unused for a timeout() argument */
	raw_spinlock_t lock;
	bool periodic;		/* re-arms itself every @period ticks ... */
	bool stop;		/* ... until this is set; locked by @lock */
	unsigned long period;	/* or, parked, the ticks it is armed for */
	int hot_cpu;		/* the CPU it is armed on, if only one */
	atomic_t in_fn;		/* runs under way */
	atomic_t runs;		/* runs that have returned */
	/* Locked by @lock: */
	u64 due[HP_OPEN];	/* ns after which each open arming may run */
	int open;		/* open armings, oldest first in @due */
	int last_cpu;		/* of the last run */
	unsigned int armed;	/* armings opened */
	unsigned int ran;	/* ... ended by a run */
	unsigned int cancelled;	/* ... ended by a cancel that returned 1 */
	unsigned int refused;	/* timeout() calls that returned -ENOMEM */
	unsigned int early;	/* runs at or before their due time */
	s64 early_ns;		/* the most one of those was early by */
	unsigned int stray;	/* runs, cancels, returns the books can't place */
	unsigned int overlap;	/* runs begun while another was under way */
	unsigned int moved;	/* runs elsewhere of armings on @hot_cpu */
};

#define NHOTPLUG	20	/* times the other CPU goes down and up */
#define NHP_HANDLES	16	/* handles that both CPUs arm and cancel */
#define NHP_ARGS	16	/* timeout() arguments, likewise */
#define NHP_PARKED	8	/* handles armed only on the departing CPU */
#define HP_PERIOD	3	/* ticks, of the callout on the departing CPU */

/* The hotplug case's books, by what they keep. */
enum {
	HP_HANDLE,			/* handles */
	HP_ARG = HP_HANDLE + NHP_HANDLES, /* timeout() arguments */
	HP_PARKED = HP_ARG + NHP_ARGS,	/* parked handles */
	HP_PER = HP_PARKED + NHP_PARKED, /* the periodic callout */
	NHP_BOOKS
};

/* A kthread arming and cancelling on one CPU, and from the other's IPIs. */
struct hp_worker {
	struct hotplug *hp;
	int cpu;		/* where it runs, until that CPU goes down */
	int other;		/* where its IPIs arm, in hardirq context */
	u32 seed;
	bool started;
	atomic_t done;
	unsigned int ops;	/* calls made in its own context */
	unsigned int irq_ops;	/* calls made in the other CPU's hardirq */
};

struct hotplug {
	struct hp_books book[NHP_BOOKS];
	struct hp_worker worker[2]; /* on cpu_a; on cpu_b while it is up */
	atomic_t stop;		/* the workers stop */
};

/*
 * Callouts pending on a CPU that goes offline move to an online CPU and
 * still run once, not early.
 */
static void setcallout_offline_cpu_moves_pending(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct remote_arm r;
	struct probe *p;
	bool *stayed;
	int i, ret, ran, moved = 0;
	ktime_t end;
	s64 after;

	need_two_cpus(test);
	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs CONFIG_HOTPLUG_CPU");
	p = alloc_many(test, NOFFLINE);
	stayed = kunit_kcalloc(test, NOFFLINE, sizeof(*stayed), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, stayed);
	for (i = 0; i < NOFFLINE; i++) {
		r = (struct remote_arm){ .c = &p[i].c, .fn = probe_fn,
					 .arg = &p[i], .p = &p[i],
					 .ticks = twheel_ns_to_ticks(NSEC_PER_SEC) +
						  10 * i };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		KUNIT_ASSERT_EQ(test, r.ret, 0);
		KUNIT_ASSERT_EQ(test, p[i].arm_cpu, ctx->cpu_b);
	}
	ret = remove_cpu(ctx->cpu_b);
	/* Those still pending now were on the CPU when it went. */
	for (i = 0; i < NOFFLINE; i++)
		stayed[i] = callout_pending(&p[i].c);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "remove_cpu(%d)", ctx->cpu_b);

	end = ktime_add_ns(ktime_get(), LOST_NS);
	do {
		for (ran = 0, i = 0; i < NOFFLINE; i++)
			ran += atomic_read_acquire(&p[i].runs) != 0;
	} while (ran < NOFFLINE && ktime_before(ktime_get(), end));
	KUNIT_EXPECT_EQ(test, add_cpu(ctx->cpu_b), 0);
	spin_ns(ticks_ns(3));

	for (i = 0; i < NOFFLINE; i++) {
		after = ktime_to_ns(ktime_sub(p[i].at, p[i].armed));
		KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&p[i].runs), 1,
				    "callout %d", i);
		KUNIT_EXPECT_GT_MSG(test, after, (s64)ticks_ns(p[i].ticks),
				    "callout %d", i);
		if (stayed[i]) {
			KUNIT_EXPECT_NE_MSG(test, p[i].cpu, ctx->cpu_b,
					    "callout %d", i);
			moved++;
		}
	}
	kunit_info(test, "%d of %d were pending when CPU %d went offline\n",
		   moved, NOFFLINE, ctx->cpu_b);
	if (!moved)
		kunit_mark_skipped(test, "CPU %d took too long to go offline",
				   ctx->cpu_b);
}

/* An arming that returned @ret, due after @due ns, entered in @b. */
static void hp_armed(struct hp_books *b, int ret, u64 due)
{
	lockdep_assert_held(&b->lock);
	if (ret == 0 && b->open < HP_OPEN) {
		b->due[b->open++] = due;
		b->armed++;
	} else if (ret == 1 && b->open) {
		b->due[b->open - 1] = due;
	} else {
		b->stray++;
	}
}

/* A cancel that returned @ret, entered in @b. */
static void hp_cancelled(struct hp_books *b, int ret)
{
	lockdep_assert_held(&b->lock);
	if (ret == 1 && b->open) {
		b->open--;
		b->cancelled++;
	} else if (ret != 0) {
		b->stray++;
	}
}

static void hp_fn(void *arg);

static void hp_set_locked(struct hp_books *b, unsigned long ticks)
{
	u64 now = ktime_get_ns();

	hp_armed(b, setcallout(&b->c, hp_fn, b, ticks), now + ticks_ns(ticks));
}

static void hp_set(struct hp_books *b, unsigned long ticks)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	hp_set_locked(b, ticks);
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

static void hp_unset(struct hp_books *b)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	hp_cancelled(b, unsetcallout(&b->c));
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/* timeout(), if @b has no arming open. */
static void hp_timeout(struct hp_books *b, unsigned long ticks)
{
	unsigned long flags;
	u64 now;
	int ret;

	raw_spin_lock_irqsave(&b->lock, flags);
	if (!b->open) {
		now = ktime_get_ns();
		ret = timeout(hp_fn, b, ticks);
		if (ret == -ENOMEM)
			b->refused++;
		else
			hp_armed(b, ret, now + ticks_ns(ticks));
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

static int hp_untimeout(struct hp_books *b)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&b->lock, flags);
	ret = untimeout(hp_fn, b);
	hp_cancelled(b, ret);
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return ret;
}

/*
 * The function of every handle and timeout() of the hotplug case: it ends
 * the oldest open arming, which must be due, and a periodic one re-arms.
 */
static void hp_fn(void *arg)
{
	struct hp_books *b = arg;
	u64 now = ktime_get_ns();
	int cpu = raw_smp_processor_id();
	bool overlap = atomic_inc_return(&b->in_fn) > 1;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	b->overlap += overlap;
	if (b->open) {
		if (now <= b->due[0]) {
			b->early++;
			b->early_ns = max_t(s64, b->early_ns, b->due[0] - now);
		}
		b->open--;
		memmove(b->due, b->due + 1, b->open * sizeof(b->due[0]));
		b->ran++;
	} else {
		b->stray++;
	}
	/* The periodic callout re-arms where it runs, the others on @hot_cpu */
	if (b->hot_cpu >= 0 && cpu != b->hot_cpu &&
	    (!b->periodic || b->last_cpu == b->hot_cpu))
		b->moved++;
	if (b->periodic && !b->stop)
		hp_set_locked(b, b->period);
	b->last_cpu = cpu;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	atomic_dec(&b->in_fn);
	atomic_inc_return_release(&b->runs);
}

/*
 * Ticks to arm for, from random bits: mostly the next few, so that runs
 * race the calls; one in eight long enough to be pending when the CPU
 * goes down.
 */
static unsigned long hp_ticks(u32 r)
{
	return (r & 7) ? (r >> 3) % 4 : 20 + (r >> 3) % 200;
}

/* One call, picked by random bits, on one of the case's handles or args. */
static void hp_step(struct hotplug *hp, u32 r)
{
	struct hp_books *h = &hp->book[HP_HANDLE + (r >> 2) % NHP_HANDLES];
	struct hp_books *a = &hp->book[HP_ARG + (r >> 2) % NHP_ARGS];
	unsigned long ticks = hp_ticks(r >> 8);

	switch (r & 3) {
	case 0:
		hp_set(h, ticks);
		break;
	case 1:
		hp_unset(h);
		break;
	case 2:
		hp_timeout(a, ticks);
		break;
	default:
		hp_untimeout(a);
		break;
	}
}

struct hp_ipi {
	struct hotplug *hp;
	u32 r;
	bool hardirq;
};

static void hp_ipi_fn(void *info)
{
	struct hp_ipi *ipi = info;

	ipi->hardirq = in_hardirq();
	hp_step(ipi->hp, ipi->r);
}

static int hp_worker_fn(void *data)
{
	struct hp_worker *w = data;
	struct hp_ipi ipi = { .hp = w->hp };
	struct rnd_state rnd;
	u32 r;

	prandom_seed_state(&rnd, w->seed);
	/* Until told to stop, or moved off its CPU as that went down. */
	while (!atomic_read(&w->hp->stop) && raw_smp_processor_id() == w->cpu) {
		r = prandom_u32_state(&rnd);
		if (r % 8 == 0) {
			ipi.r = prandom_u32_state(&rnd);
			ipi.hardirq = false;
			/* -ENXIO while the other CPU is down */
			if (!smp_call_function_single(w->other, hp_ipi_fn,
						      &ipi, 1))
				w->irq_ops += ipi.hardirq;
		} else {
			hp_step(w->hp, prandom_u32_state(&rnd));
			w->ops++;
		}
		if (r % 16 == 1)
			spin_ns((r >> 8) % (50 * NSEC_PER_USEC));
		cond_resched();
	}
	atomic_set_release(&w->done, 1);
	return 0;
}

static void hp_init(struct hotplug *hp, int hot_cpu)
{
	struct hp_books *b;
	int i;

	for (i = 0; i < NHP_BOOKS; i++) {
		b = &hp->book[i];
		callout_init(&b->c);
		raw_spin_lock_init(&b->lock);
		b->hot_cpu = i >= HP_PARKED ? hot_cpu : -1;
		b->last_cpu = -1;
	}
	for (i = 0; i < NHP_PARKED; i++)
		hp->book[HP_PARKED + i].period = 5 + 30 * i;
	hp->book[HP_PER].periodic = true;
	hp->book[HP_PER].period = HP_PERIOD;
	for (i = 0; i < ARRAY_SIZE(hp->worker); i++)
		hp->worker[i].hp = hp;
}

static void hp_start(struct kunit *test, struct hp_worker *w, int cpu,
		     int other, u32 seed)
{
	struct task_struct *k;

	w->cpu = cpu;
	w->other = other;
	w->seed = seed;
	atomic_set(&w->done, 0);
	k = kthread_run_on_cpu(hp_worker_fn, w, cpu, "twheel_hp/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	w->started = true;
}

/* Stop the workers and the periodic callout's re-arming; true if they did. */
static bool hp_stop(struct hotplug *hp)
{
	bool stopped = true;
	int i;

	atomic_set(&hp->stop, 1);
	for (i = 0; i < ARRAY_SIZE(hp->worker); i++) {
		if (hp->worker[i].started)
			stopped &= wait_count(&hp->worker[i].done, 1, LOST_NS);
	}
	raw_spin_lock_irq(&hp->book[HP_PER].lock);
	hp->book[HP_PER].stop = true;
	raw_spin_unlock_irq(&hp->book[HP_PER].lock);
	return stopped;
}

/* After hp_stop(): cancel everything, entering what the cancels say. */
static void hp_cancel_all(struct hotplug *hp)
{
	struct hp_books *b;
	int i, ret;

	for (i = 0; i < NHP_BOOKS; i++) {
		b = &hp->book[i];
		if (i >= HP_ARG && i < HP_PARKED) {
			while (hp_untimeout(b) == 1)
				;
			continue;
		}
		ret = unsetcallout_sync(&b->c);
		raw_spin_lock_irq(&b->lock);
		hp_cancelled(b, ret);
		raw_spin_unlock_irq(&b->lock);
	}
}

/* Busy-poll until no arming is open, or @ns have passed. */
static bool hp_wait_ended(struct hotplug *hp, u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);
	int i, open;

	do {
		for (open = 0, i = 0; i < NHP_BOOKS; i++)
			open += READ_ONCE(hp->book[i].open);
		if (!open)
			return true;
		cpu_relax();
	} while (ktime_before(ktime_get(), end));
	return false;
}

/* Arm a parked or the periodic callout for its @period, in an IPI. */
static void hp_arm_fn(void *info)
{
	struct hp_books *b = info;

	hp_set(b, b->period);
}

/*
 * Park callouts on @cpu, from its hardirq, due from a few ticks to a few
 * hundred: some run before it goes down and some are moved; and bring the
 * periodic callout back to @cpu, re-arming it there until it runs there.
 * True if it did.  (While its function runs elsewhere, a re-arm stays
 * there.)
 */
static bool hp_home(struct kunit *test, struct hotplug *hp, int cpu)
{
	struct hp_books *per = &hp->book[HP_PER];
	int n, tries, last;

	for (n = 0; n < NHP_PARKED; n++)
		smp_call_function_single(cpu, hp_arm_fn,
					 &hp->book[HP_PARKED + n], 1);
	for (tries = 0; tries < 10; tries++) {
		n = atomic_read_acquire(&per->runs);
		if (smp_call_function_single(cpu, hp_arm_fn, per, 1))
			return false;
		KUNIT_ASSERT_TRUE_MSG(test, wait_count(&per->runs, n + 1, LOST_NS),
				      "the periodic callout stopped running");
		raw_spin_lock_irq(&per->lock);
		last = per->last_cpu;
		raw_spin_unlock_irq(&per->lock);
		if (last == cpu)
			return true;
	}
	return false;
}

static const char *hp_kind(int i)
{
	return i < HP_ARG ? "handle" : i < HP_PARKED ? "timeout() arg" :
	       i < HP_PER ? "parked handle" : "periodic handle";
}

/* What book @i says at the end: each arming ended once, none early. */
static void hp_check(struct kunit *test, struct hotplug *hp, int i)
{
	struct hp_books *b = &hp->book[i];
	const char *what = hp_kind(i);

	KUNIT_EXPECT_EQ_MSG(test, b->armed, b->ran + b->cancelled,
			    "book %d (%s): %u armed, %u ran, %u cancelled",
			    i, what, b->armed, b->ran, b->cancelled);
	KUNIT_EXPECT_EQ_MSG(test, b->stray, 0U,
			    "book %d (%s): %u runs, cancels or returns matched no arming",
			    i, what, b->stray);
	KUNIT_EXPECT_EQ_MSG(test, b->early, 0U,
			    "book %d (%s): %u runs early, one by %lld ns",
			    i, what, b->early, b->early_ns);
	KUNIT_EXPECT_EQ_MSG(test, b->overlap, 0U,
			    "book %d (%s): ran on two CPUs at once %u times",
			    i, what, b->overlap);
	KUNIT_EXPECT_FALSE_MSG(test, callout_pending(&b->c),
			       "book %d (%s): pending after unsetcallout_sync()",
			       i, what);
}

/*
 * CPU hotplug under load: the other CPU goes down and up NHOTPLUG times,
 * while a kthread on each CPU arms and cancels handles and timeout()s,
 * from its own context and from the other CPU's hardirq (IPIs), and a
 * periodic callout re-arms itself on the departing CPU.  Every arming ends
 * exactly once, by a run or by a cancel that returned 1; no run comes
 * before its ticks have passed, nor while another of the same function is
 * under way; the periodic callout goes on running while its CPU is down.
 */
static void setcallout_cpu_down_up_under_load(struct kunit *test)
{
	struct client *ctx = test->priv;
	unsigned int armed = 0, ran = 0, cancelled = 0, refused = 0;
	unsigned int b_ops = 0, b_irq_ops = 0, parked = 0;
	int i, n, cycle, homed = 0;
	ktime_t start = ktime_get();
	struct hp_worker *wa, *wb;
	struct hp_books *b, *per;
	struct rnd_state rnd;
	struct hotplug *hp;

	need_two_cpus(test);
	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs CONFIG_HOTPLUG_CPU");
	hp = kunit_kzalloc(test, sizeof(*hp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hp);
	hp_init(hp, ctx->cpu_b);
	ctx->own = hp;
	per = &hp->book[HP_PER];
	wa = &hp->worker[0];
	wb = &hp->worker[1];
	prandom_seed_state(&rnd, 12);

	hp_start(test, wa, ctx->cpu_a, ctx->cpu_b, 1);
	for (cycle = 0; cycle < NHOTPLUG; cycle++) {
		hp_start(test, wb, ctx->cpu_b, ctx->cpu_a, 100 + cycle);
		homed += hp_home(test, hp, ctx->cpu_b);
		spin_ns(ticks_ns(prandom_u32_state(&rnd) % 30));

		KUNIT_ASSERT_EQ_MSG(test, remove_cpu(ctx->cpu_b), 0,
				    "cycle %d: remove_cpu(%d)", cycle, ctx->cpu_b);
		/* down: what was pending on it runs on, late but not lost */
		n = atomic_read_acquire(&per->runs);
		KUNIT_ASSERT_TRUE_MSG(test, wait_count(&wb->done, 1, LOST_NS),
				      "cycle %d: the worker of CPU %d still runs",
				      cycle, ctx->cpu_b);
		b_ops += wb->ops;
		b_irq_ops += wb->irq_ops;
		KUNIT_ASSERT_TRUE_MSG(test,
				      wait_count(&per->runs, n + 1, LOST_NS),
				      "cycle %d: the periodic callout stopped while CPU %d was down",
				      cycle, ctx->cpu_b);
		spin_ns(ticks_ns(prandom_u32_state(&rnd) % 30));

		KUNIT_ASSERT_EQ_MSG(test, add_cpu(ctx->cpu_b), 0,
				    "cycle %d: add_cpu(%d)", cycle, ctx->cpu_b);
	}

	KUNIT_ASSERT_TRUE_MSG(test, hp_stop(hp), "a worker did not stop");
	hp_cancel_all(hp);
	KUNIT_EXPECT_TRUE_MSG(test, hp_wait_ended(hp, LOST_NS),
			      "armings still open %llu ns after cancelling all",
			      LOST_NS);
	for (i = 0; i < NHP_BOOKS; i++) {
		b = &hp->book[i];
		hp_check(test, hp, i);
		armed += b->armed;
		if (i >= HP_PARKED && i < HP_PER)
			parked += b->moved;
		ran += b->ran;
		cancelled += b->cancelled;
		refused += b->refused;
	}
	kunit_info(test, "%d cycles in %lld ms: %u armed, %u ran, %u cancelled, %u timeout()s refused\n",
		   NHOTPLUG, ktime_ms_delta(ktime_get(), start), armed, ran,
		   cancelled, refused);
	kunit_info(test, "calls on CPU %d: %u, from its IPIs on CPU %d: %u; on CPU %d: %u, from its IPIs: %u\n",
		   ctx->cpu_a, wa->ops, ctx->cpu_b, wa->irq_ops, ctx->cpu_b,
		   b_ops, b_irq_ops);
	kunit_info(test, "periodic: %u runs, on CPU %d when it went down %d times, moved %u times; parked moved %u times\n",
		   per->ran, ctx->cpu_b, homed, per->moved, parked);
	KUNIT_EXPECT_GT_MSG(test, homed, 0,
			    "the periodic callout never ran on CPU %d",
			    ctx->cpu_b);
	KUNIT_EXPECT_GT(test, wa->irq_ops + b_irq_ops, 0U);
	KUNIT_EXPECT_GT(test, b_ops, 0U);
}

/*
 * Stop the hotplug case's workers, bring back a CPU a case took offline,
 * cancel the hotplug case's callouts, then what all cases share.
 */
static void hotplug_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hotplug *hp = ctx ? ctx->own : NULL;

	if (hp)
		hp_stop(hp);
	if (ctx && ctx->cpu_b >= 0 && !cpu_online(ctx->cpu_b))
		add_cpu(ctx->cpu_b);
	if (hp)
		hp_cancel_all(hp);
	client_exit(test);
}

static struct kunit_case hotplug_cases[] = {
	KUNIT_CASE(setcallout_offline_cpu_moves_pending),
	KUNIT_CASE_SLOW(setcallout_cpu_down_up_under_load),
	{}
};

CLIENT_SUITE(hotplug, hotplug_cases, client_init, hotplug_exit);
