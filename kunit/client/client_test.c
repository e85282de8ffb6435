// SPDX-License-Identifier: GPL-2.0
/*
 * client_test.c - twheel's documented contract, checked by a client.
 *
 * Suite twheel_client is written from README.md ("API") and include/twheel.h
 * alone, as any module that uses twheel would be: it links against twheel's
 * Module.symvers and calls nothing but the exported API.  Of twheel's
 * headers it includes <twheel.h>, and <twheel_compat.h> for its KUnit shims
 * only (KUNIT_ARRAY_PARAM_DESC() and slow cases on 6.1): test scaffolding,
 * not twheel API.  It holds every check of the documented contract; what
 * needs twheel's internals is in kunit/callout_test.c.  Each case checks
 * promises of one call:
 *
 *   return values      0/1 for "was it pending", -EINVAL and -EDEADLK with
 *                      nothing changed
 *   timing             a callout armed for n ticks starts strictly more than
 *                      n * twheel_tick_ns() after its arming call began, in
 *                      softirq context, on the arming CPU; 0 ticks is the
 *                      next tick
 *   running functions  unsetcallout() never waits for one, unsetcallout_sync()
 *                      does; a re-armed handle stays on the CPU it runs on
 *   contexts           setcallout() and friends from hardirq and from the
 *                      callout's own function; unsetcallout_sync() from
 *                      atomic context or its own function is -EDEADLK
 *   timeout()          as setcallout(), and untimeout() cancels the most
 *                      recently armed of several equal (func, arg)
 *   in numbers         10,000 random callouts each run once, 100,000
 *                      distinct untimeout() pairs; 400,000 due on one tick
 *                      while a hard hrtimer measures how long interrupts
 *                      stay off
 *   lock-associated    callout_init_lock() and _raw_lock() refuse bad
 *                      arguments and a pending handle with nothing
 *                      changed; the function holds the lock (or releases
 *                      it itself); under the lock, unsetcallout() after
 *                      the tick came returns 1 and the function never
 *                      runs, setcallout() re-arms; unsetcallout_sync()
 *                      under it is -EDEADLK
 *   on two CPUs        set and unset of one handle from both at once,
 *                      unsetcallout_sync() against a running function,
 *                      untimeout() against expiry, a CPU taken offline,
 *                      and taken down and up again and again while both
 *                      CPUs arm and cancel and a callout re-arms itself
 *
 * The guest is a software-emulated QEMU, so lateness is bounded only by
 * LATE_NS; earliness is never allowed.  Waiters busy-poll ktime_get(), since
 * a sleeping waiter can be woken late.  The case thread is pinned to one CPU
 * (.init), so that it knows where it arms; arming on the other CPU goes
 * through smp_call_function_single() or a kthread bound there.  What a case
 * arms it cancels before it ends, and .exit cancels whatever an aborted case
 * left behind, brings back a CPU it took offline, and frees.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include <twheel.h>
#include <twheel_compat.h>	/* KUnit shims only */

#include "../watch.h"		/* test scaffolding, no twheel call */

#define LATE_NS		(20ULL * NSEC_PER_SEC)	/* latest a callout may run */
#define HOLD_NS		(300ULL * NSEC_PER_MSEC) /* a held function's run */
#define SAFETY_NS	(5ULL * NSEC_PER_SEC)	/* most a held run waits */
#define FAR_NS		(10ULL * NSEC_PER_SEC)	/* never reached in a case */
#define NPROBES		16
#define NRUNS		6	/* runs a probe keeps the times of */
#define NPERIODIC	20	/* runs of a re-arming callout, checked */
#define NMANY		128
#define NRANDOM		10000	/* callouts of random intervals */
#define NPAIRS		100000	/* distinct (func, arg) for untimeout() */
#define NRACES		3000	/* untimeout()s racing expiry */
#define NSYNCS		1000	/* unsetcallout_sync()s racing a run */
#define NOFFLINE	200	/* callouts on a CPU taken offline */
#define NBURST		400000	/* callouts due on one tick */
#define BURST_AHEAD_NS	(10ULL * NSEC_PER_SEC)	/* how far ahead that tick is */
#define QUIET_NS	(500ULL * NSEC_PER_MSEC) /* the watch alone, first */
#define NCALIBRATE	4000	/* callouts whose arming is timed first */
#define LEAD_NS		(2ULL * NSEC_PER_SEC)	/* the tick, after arming */

/* Which function ran: probe_fn(), alt_fn() or one of the own functions. */
enum probe_fn_id { RAN_NONE, RAN_PROBE, RAN_ALT, RAN_OWN };

/*
 * A probe: a handle and the record of the runs of a function that was given
 * the probe as its argument.  Fields before @runs are written by the arming
 * side before it arms; the rest by the function, published by the release
 * increment of @runs at its end.
 */
struct probe {
	struct callout c;
	ktime_t armed;		/* just before the last arming call */
	int arm_cpu;		/* the CPU of the last arming call */
	unsigned long ticks;	/* of the last arming call */
	int rearm;		/* re-arms left, for chain_fn() */
	struct probe *peer;	/* another probe, for own_cancel_fn() */

	atomic_t runs;		/* runs that have returned */
	ktime_t at;		/* start of the last run */
	ktime_t ats[NRUNS];	/* start of the first NRUNS runs */
	int cpu;		/* CPU of the last run */
	int seq;		/* place of the last run in run_order */
	bool softirq;		/* the last run was in softirq context */
	bool pending;		/* callout_pending(&c) as the last run began */
	enum probe_fn_id fn;	/* the function of the last run */
	int res[8];		/* what own functions saw */
};

/* The order in which probes run, over the whole suite. */
static atomic_t run_order;

static void record(struct probe *p, enum probe_fn_id fn)
{
	int i = atomic_read(&p->runs);

	p->at = ktime_get();
	if (i < NRUNS)
		p->ats[i] = p->at;
	p->cpu = raw_smp_processor_id();
	p->seq = atomic_inc_return(&run_order);
	p->softirq = in_serving_softirq() && !in_hardirq();
	p->pending = callout_pending(&p->c);
	p->fn = fn;
}

static void done(struct probe *p)
{
	atomic_inc_return_release(&p->runs);
}

static void probe_fn(void *arg)
{
	record(arg, RAN_PROBE);
	done(arg);
}

static void alt_fn(void *arg)
{
	record(arg, RAN_ALT);
	done(arg);
}

/* For timeouts too many to give each a probe: @arg is an atomic_t. */
static void count_fn(void *arg)
{
	atomic_inc(arg);
}

/* Arm @c to run @fn(@p), noting in @p where and when. */
static int arm(struct callout *c, callout_func_t fn, struct probe *p,
	       unsigned long ticks)
{
	p->ticks = ticks;
	p->arm_cpu = raw_smp_processor_id();
	p->armed = ktime_get();
	return setcallout(c, fn, p, ticks);
}

static int arm_timeout(callout_func_t fn, struct probe *p, unsigned long ticks)
{
	p->ticks = ticks;
	p->arm_cpu = raw_smp_processor_id();
	p->armed = ktime_get();
	return timeout(fn, p, ticks);
}

static u64 ticks_ns(unsigned long ticks)
{
	return (u64)ticks * twheel_tick_ns();
}

static unsigned long far_ticks(void)
{
	return twheel_ns_to_ticks(FAR_NS);
}

/*
 * How long to watch a cancelled callout armed for @ticks, to see that it
 * does not run: its ticks, the tick it may be late by, and a margin.
 */
static u64 quiet_ns(unsigned long ticks)
{
	return ticks_ns(ticks + 3) + 100 * NSEC_PER_MSEC;
}

static void spin_ns(u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (ktime_before(ktime_get(), end))
		cpu_relax();
}

/* Busy-poll, never sleep, until @v reaches @n or @ns have passed. */
static bool wait_count(atomic_t *v, int n, u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (atomic_read_acquire(v) < n) {
		if (!ktime_before(ktime_get(), end))
			return atomic_read_acquire(v) >= n;
		cpu_relax();
	}
	return true;
}

/* The documented timing of the last run of @p, already waited for. */
static void check_record(struct kunit *test, struct probe *p, const char *what)
{
	s64 after = ktime_to_ns(ktime_sub(p->at, p->armed));

	KUNIT_EXPECT_GT_MSG(test, after, (s64)ticks_ns(p->ticks),
			    "%s: armed for %lu ticks (%llu ns), ran %lld ns after the arming call: early",
			    what, p->ticks, ticks_ns(p->ticks), after);
	KUNIT_EXPECT_LE_MSG(test, after, (s64)LATE_NS,
			    "%s: armed for %lu ticks, ran %lld ns after the arming call",
			    what, p->ticks, after);
	KUNIT_EXPECT_EQ_MSG(test, p->cpu, p->arm_cpu,
			    "%s: armed on CPU %d, ran on CPU %d",
			    what, p->arm_cpu, p->cpu);
	KUNIT_EXPECT_TRUE_MSG(test, p->softirq,
			      "%s: did not run in softirq context", what);
}

/* Wait for @p's function to have returned @runs times; check the last. */
static void check_ran(struct kunit *test, struct probe *p, int runs,
		      const char *what)
{
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, runs, LATE_NS),
			      "%s: armed for %lu ticks on CPU %d, ran %d of %d times within %llu ns",
			      what, p->ticks, p->arm_cpu,
			      atomic_read(&p->runs), runs, LATE_NS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->runs), runs,
			    "%s: ran more often than armed", what);
	check_record(test, p, what);
}

/* Check that @p's function does not run (again) while a cancelled one would. */
static void check_quiet(struct kunit *test, struct probe *p, int runs,
			unsigned long ticks, const char *what)
{
	spin_ns(quiet_ns(ticks));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&p->runs), runs,
			    "%s: ran %d times, expected %d",
			    what, atomic_read(&p->runs), runs);
}

/*
 * A callout whose first run holds its CPU until released, or for @hold_ns,
 * so that the case can act on it while it runs on the other CPU.
 */
struct hold {
	struct callout c;
	u64 hold_ns;		/* the first run spins this long at most */
	unsigned long rearm_ticks; /* the first run re-arms for these, if set */
	atomic_t release;	/* ends the first run's spin */
	atomic_t entered;	/* the first run has re-armed and spins */
	atomic_t active;	/* runs under way */
	atomic_t runs;		/* runs that have returned */
	bool overlapped;	/* two runs were under way at once */
	int rearm_ret;		/* setcallout() re-arming in the first run */
	int cpu[2];
	ktime_t start[2];
	ktime_t end[2];
};

static void hold_fn(void *arg)
{
	struct hold *h = arg;
	int i = min(atomic_read(&h->runs), 1);
	ktime_t until;

	if (atomic_inc_return(&h->active) > 1)
		WRITE_ONCE(h->overlapped, true);
	h->cpu[i] = raw_smp_processor_id();
	h->start[i] = ktime_get();
	if (i == 0) {
		if (h->rearm_ticks)
			h->rearm_ret = setcallout(&h->c, hold_fn, h,
						  h->rearm_ticks);
		atomic_set_release(&h->entered, 1);
		until = ktime_add_ns(h->start[0], h->hold_ns);
		while (!atomic_read_acquire(&h->release) &&
		       ktime_before(ktime_get(), until))
			cpu_relax();
	}
	h->end[i] = ktime_get();
	atomic_dec(&h->active);
	atomic_inc_return_release(&h->runs);
}

static void hold_reset(struct hold *h, u64 hold_ns, unsigned long rearm_ticks)
{
	h->hold_ns = hold_ns;
	h->rearm_ticks = rearm_ticks;
	h->rearm_ret = INT_MIN;
	h->overlapped = false;
	atomic_set(&h->release, 0);
	atomic_set(&h->entered, 0);
	atomic_set(&h->active, 0);
	atomic_set(&h->runs, 0);
}

/* A callout that re-arms itself from its own function. */
struct periodic {
	struct callout c;
	unsigned long period;	/* ticks */
	int limit;		/* runs in all, or 0: until @stop */
	bool stop;
	u64 busy_ns;		/* each run spins this long after re-arming */
	ktime_t armed;
	atomic_t in_fn;
	atomic_t runs;
	ktime_t at[NPERIODIC];
	int cpu[NPERIODIC];
	bool pending[NPERIODIC]; /* callout_pending() as the run began */
	int ret[NPERIODIC];	/* setcallout() re-arming */
	bool rearmed[NPERIODIC]; /* callout_pending() after it */
};

static void periodic_fn(void *arg)
{
	struct periodic *pr = arg;
	int i = atomic_read(&pr->runs);
	bool again;
	int ret;

	atomic_set_release(&pr->in_fn, 1);
	if (i < NPERIODIC) {
		pr->at[i] = ktime_get();
		pr->cpu[i] = raw_smp_processor_id();
		pr->pending[i] = callout_pending(&pr->c);
	}
	again = pr->limit ? i + 1 < pr->limit : !READ_ONCE(pr->stop);
	if (again) {
		ret = setcallout(&pr->c, periodic_fn, pr, pr->period);
		if (i < NPERIODIC) {
			pr->ret[i] = ret;
			pr->rearmed[i] = callout_pending(&pr->c);
		}
	}
	if (pr->busy_ns)
		spin_ns(pr->busy_ns);
	atomic_set_release(&pr->in_fn, 0);
	atomic_inc_return_release(&pr->runs);
}

/* Arming on a given CPU, from its IPI (hardirq) context. */
struct remote_arm {
	struct callout *c;	/* NULL: timeout() */
	callout_func_t fn;
	void *arg;
	struct probe *p;	/* if set, noted as arm() notes it */
	unsigned long ticks;
	ktime_t armed;
	int cpu;
	int ret;
};

static void remote_arm_fn(void *info)
{
	struct remote_arm *r = info;

	r->cpu = raw_smp_processor_id();
	if (r->p) {
		r->p->ticks = r->ticks;
		r->p->arm_cpu = r->cpu;
	}
	r->armed = ktime_get();
	if (r->p)
		r->p->armed = r->armed;
	r->ret = r->c ? setcallout(r->c, r->fn, r->arg, r->ticks) :
			timeout(r->fn, r->arg, r->ticks);
}

static int arm_on(int cpu, struct remote_arm *r)
{
	return smp_call_function_single(cpu, remote_arm_fn, r, 1);
}

/* Running a function in hardirq context: a pinned hard hrtimer. */
struct hardirq_call {
	struct hrtimer t;
	void (*fn)(void *data);
	void *data;
	atomic_t done;
	bool hardirq;
	int cpu;
};

static enum hrtimer_restart hardirq_call_fn(struct hrtimer *t)
{
	struct hardirq_call *hc = container_of(t, struct hardirq_call, t);

	hc->hardirq = in_hardirq();
	hc->cpu = raw_smp_processor_id();
	hc->fn(hc->data);
	atomic_set_release(&hc->done, 1);
	return HRTIMER_NORESTART;
}

/*
 * One handle set and unset from both CPUs at once, by the case thread and
 * a kthread, each playing until the callout has run TUG_RUNS times.
 */
#define TUG_RUNS	20

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
	bool started;		/* the kthread was created */
	atomic_t done;		/* the kthread has finished */
};

/*
 * A callout that re-arms itself for the next tick, every run.  When the
 * case raises @hold, a run, once started, waits for the case's @go and
 * then runs on for a while, so that the case knows it calls
 * unsetcallout_sync() mid-run.
 */
struct slow {
	struct callout c;
	atomic_t running;
	atomic_t runs;
	atomic_t hold;
	atomic_t go;
};

/* One of the burst case's callouts, due on one tick with all the others. */
struct burst {
	struct callout c;
	u64 not_before;		/* ns: it may only start after this */
	int runs;
};

/* What the burst's functions saw, over all of them. */
static atomic_t burst_ran, burst_early;

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

struct client {
	int cpu_a;		/* the CPU the case thread is pinned to */
	int cpu_b;		/* another online CPU, or -1 */
	struct probe probe[NPROBES];
	struct probe *many;	/* kvcalloc()ed, see alloc_many() */
	int nmany;
	atomic_t *counts;	/* kvcalloc()ed count_fn() args */
	int ncounts;
	struct burst *burst;	/* kvcalloc()ed, see alloc_burst() */
	int nburst;
	struct watch watch;	/* on cpu_a, where the burst is armed */
	struct watch control;	/* on cpu_b, where nothing is */
	struct hold hold;
	struct periodic per;
	struct hardirq_call hc;
	struct tug tug;
	struct slow slow;
	struct hotplug *hp;	/* the hotplug case's, once set up */
	struct lockc *lk;	/* a lock case's handle, once set up */
};

/* @n initialised probes, which .exit cancels and frees. */
static struct probe *alloc_many(struct kunit *test, int n)
{
	struct client *ctx = test->priv;
	int i;

	ctx->many = kvcalloc(n, sizeof(*ctx->many), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->many);
	for (i = 0; i < n; i++)
		callout_init(&ctx->many[i].c);
	ctx->nmany = n;
	return ctx->many;
}

/* @n counters for count_fn(), whose timeouts .exit cancels before freeing. */
static atomic_t *alloc_counts(struct kunit *test, int n)
{
	struct client *ctx = test->priv;

	ctx->counts = kvcalloc(n, sizeof(*ctx->counts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->counts);
	ctx->ncounts = n;
	return ctx->counts;
}

/* @n initialised burst callouts, which .exit cancels and frees. */
static struct burst *alloc_burst(struct kunit *test, int n)
{
	struct client *ctx = test->priv;
	int i;

	ctx->burst = kvcalloc(n, sizeof(*ctx->burst), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->burst);
	for (i = 0; i < n; i++)
		callout_init(&ctx->burst[i].c);
	ctx->nburst = n;
	return ctx->burst;
}

static void run_hardirq(struct kunit *test, void (*fn)(void *), void *data)
{
	struct hardirq_call *hc = &((struct client *)test->priv)->hc;
	bool fired;

	hc->fn = fn;
	hc->data = data;
	atomic_set(&hc->done, 0);
	hrtimer_start(&hc->t, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	fired = wait_count(&hc->done, 1, LATE_NS);
	hrtimer_cancel(&hc->t);		/* waits for the callback to return */
	KUNIT_ASSERT_TRUE_MSG(test, fired, "the hard hrtimer did not fire");
	KUNIT_ASSERT_TRUE_MSG(test, hc->hardirq,
			      "the hard hrtimer did not run in hardirq context");
}

/* The atomic contexts unsetcallout_sync() must refuse. */
enum atomic_where { AT_PREEMPT_OFF, AT_IRQS_OFF, AT_SPINLOCK, AT_BH_OFF, AT_HARDIRQ };

static DEFINE_SPINLOCK(client_lock);

static void run_in(struct kunit *test, enum atomic_where where,
		   void (*fn)(void *), void *data)
{
	unsigned long flags;

	switch (where) {
	case AT_PREEMPT_OFF:
		preempt_disable();
		fn(data);
		preempt_enable();
		break;
	case AT_IRQS_OFF:
		local_irq_save(flags);
		fn(data);
		local_irq_restore(flags);
		break;
	case AT_SPINLOCK:
		spin_lock(&client_lock);
		fn(data);
		spin_unlock(&client_lock);
		break;
	case AT_BH_OFF:
		local_bh_disable();
		fn(data);
		local_bh_enable();
		break;
	case AT_HARDIRQ:
		run_hardirq(test, fn, data);
		break;
	}
}

static void need_two_cpus(struct kunit *test)
{
	struct client *ctx = test->priv;

	if (ctx->cpu_b < 0)
		kunit_skip(test, "needs two online CPUs");
}

static int pin(int cpu)
{
	return set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

/* twheel_tick_ns(): within the range the tick_ns parameter allows. */
static void twheel_tick_ns_in_documented_range(struct kunit *test)
{
	u64 tick = twheel_tick_ns();

	KUNIT_EXPECT_GE_MSG(test, tick, 10 * NSEC_PER_USEC,
			    "tick of %llu ns, below 10 us", tick);
	KUNIT_EXPECT_LE_MSG(test, tick, NSEC_PER_SEC,
			    "tick of %llu ns, above 1 s", tick);
	KUNIT_EXPECT_EQ(test, twheel_tick_ns(), tick);
}

/* ns = ticks * twheel_tick_ns() + delta; or U64_MAX when @max. */
struct ns_case {
	u64 ticks;
	s64 delta;
	bool max;
	const char *desc;
};

static const struct ns_case ns_cases[] = {
	{ .ticks = 0, .delta = 0, .desc = "0 ns" },
	{ .ticks = 0, .delta = 1, .desc = "1 ns" },
	{ .ticks = 1, .delta = -1, .desc = "1 tick less 1 ns" },
	{ .ticks = 1, .delta = 0, .desc = "1 tick" },
	{ .ticks = 1, .delta = 1, .desc = "1 tick and 1 ns" },
	{ .ticks = 2, .delta = -1, .desc = "2 ticks less 1 ns" },
	{ .ticks = 2, .delta = 0, .desc = "2 ticks" },
	{ .ticks = 2, .delta = 1, .desc = "2 ticks and 1 ns" },
	{ .ticks = 1000, .delta = -1, .desc = "1000 ticks less 1 ns" },
	{ .ticks = 1000, .delta = 1, .desc = "1000 ticks and 1 ns" },
	{ .ticks = 1ULL << 32, .delta = 0, .desc = "2^32 ticks" },
	{ .ticks = 1ULL << 32, .delta = 1, .desc = "2^32 ticks and 1 ns" },
	{ .max = true, .desc = "U64_MAX ns" },
};

KUNIT_ARRAY_PARAM_DESC(ns, ns_cases, desc);

/* twheel_ns_to_ticks(): whole ticks, rounded up. */
static void twheel_ns_to_ticks_rounds_up(struct kunit *test)
{
	const struct ns_case *c = test->param_value;
	u64 tick = twheel_tick_ns();
	u64 ns, want;

	if (c->max) {
		ns = U64_MAX;
		want = U64_MAX / tick + (U64_MAX % tick ? 1 : 0);
	} else {
		ns = c->ticks * tick + (u64)c->delta;
		want = c->ticks + (c->delta > 0 ? 1 : 0);
	}
	KUNIT_EXPECT_EQ_MSG(test, (u64)twheel_ns_to_ticks(ns), want,
			    "twheel_ns_to_ticks(%llu) with a tick of %llu ns",
			    ns, tick);
}

/* Delays around the default geometry's edges (64 slots a level). */
struct ticks_case {
	unsigned long ticks;
	const char *desc;
};

static const struct ticks_case ticks_cases[] = {
	{ 0, "0 ticks (the next tick)" },
	{ 1, "1 tick" },
	{ 2, "2 ticks" },
	{ 3, "3 ticks" },
	{ 7, "7 ticks" },
	{ 10, "10 ticks" },
	{ 63, "63 ticks" },
	{ 64, "64 ticks" },
	{ 65, "65 ticks" },
	{ 127, "127 ticks" },
	{ 128, "128 ticks" },
	{ 129, "129 ticks" },
	{ 300, "300 ticks" },
};

/* Around the third level's edge: seconds each, at the default tick. */
static const struct ticks_case slow_ticks_cases[] = {
	{ 4095, "4095 ticks" },
	{ 4096, "4096 ticks" },
	{ 4097, "4097 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(ticks, ticks_cases, desc);
KUNIT_ARRAY_PARAM_DESC(slow_ticks, slow_ticks_cases, desc);

/*
 * setcallout(): armed for n ticks, func(arg) runs once (and not again),
 * strictly more than n ticks after the call, in softirq context on the
 * arming CPU.
 */
static void setcallout_runs_after_ticks(struct kunit *test)
{
	const struct ticks_case *tc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	/* idle -> pending */
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, tc->ticks), 0);
	check_ran(test, p, 1, "setcallout()");
	check_quiet(test, p, 1, 0, "setcallout()");
	KUNIT_EXPECT_EQ(test, p->fn, RAN_PROBE);
	KUNIT_EXPECT_FALSE_MSG(test, p->pending,
			       "callout_pending() true in its own function");
	/* pending -> run -> idle */
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
	kunit_info(test, "%lu ticks of %llu ns: ran %lld ns after the call\n",
		   tc->ticks, twheel_tick_ns(),
		   ktime_to_ns(ktime_sub(p->at, p->armed)));
}

static void setcallout_runs_after_thousands_of_ticks(struct kunit *test)
{
	setcallout_runs_after_ticks(test);
}

/*
 * setcallout() with 0 ticks runs on the next tick: before a callout armed
 * at the same moment for 1 tick, which may not run on the next tick.
 */
static void setcallout_zero_ticks_runs_on_next_tick(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p0 = &ctx->probe[0], *p1 = &ctx->probe[1];
	unsigned long flags;
	int round;

	for (round = 0; round < 5; round++) {
		atomic_set(&p0->runs, 0);
		atomic_set(&p1->runs, 0);
		local_irq_save(flags);
		KUNIT_EXPECT_EQ(test, arm(&p0->c, probe_fn, p0, 0), 0);
		KUNIT_EXPECT_EQ(test, arm(&p1->c, probe_fn, p1, 1), 0);
		local_irq_restore(flags);
		check_ran(test, p0, 1, "setcallout(0 ticks)");
		check_ran(test, p1, 1, "setcallout(1 tick)");
		KUNIT_EXPECT_LT_MSG(test, p0->seq, p1->seq,
				    "round %d: 0 ticks ran after 1 tick armed with it",
				    round);
	}
}

/*
 * setcallout() returns 0 on an idle handle and 1 on a pending one, which it
 * re-arms: the new func and arg run, once, the old ones not.
 */
static void setcallout_returns_whether_pending(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p0 = &ctx->probe[0], *p1 = &ctx->probe[1];
	unsigned long flags;
	int first, second;
	bool pending;

	KUNIT_EXPECT_FALSE(test, callout_pending(&p0->c));
	/* Interrupts off: nothing can run on this CPU between the calls. */
	local_irq_save(flags);
	first = arm(&p0->c, probe_fn, p0, 0);		/* idle -> pending */
	second = arm(&p0->c, alt_fn, p1, 0);		/* pending -> pending */
	pending = callout_pending(&p0->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ_MSG(test, first, 0, "setcallout() of an idle handle");
	KUNIT_EXPECT_EQ_MSG(test, second, 1, "setcallout() of a pending handle");
	KUNIT_EXPECT_TRUE(test, pending);

	check_ran(test, p1, 1, "re-armed with a new func and arg");
	KUNIT_EXPECT_EQ_MSG(test, p1->fn, RAN_ALT, "the old func ran");
	check_quiet(test, p0, 0, 0, "the old arg");
	KUNIT_EXPECT_FALSE(test, callout_pending(&p0->c));
}

/* Re-arming a pending handle: first ticks, then second ticks. */
struct rearm_case {
	bool far;		/* first is far_ticks() */
	unsigned long first;
	unsigned long second;
	const char *desc;
};

static const struct rearm_case rearm_cases[] = {
	{ .far = true, .second = 0, .desc = "far, then 0 ticks" },
	{ .first = 0, .second = 50, .desc = "0, then 50 ticks" },
	{ .first = 100, .second = 2, .desc = "100, then 2 ticks" },
	{ .first = 3, .second = 3, .desc = "3, then 3 ticks" },
	{ .first = 5, .second = 70, .desc = "5, then 70 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(rearm, rearm_cases, desc);

/* setcallout() of a pending handle: it runs once, timed by the new call. */
static void setcallout_rearm_pending_moves_expiry(struct kunit *test)
{
	const struct rearm_case *rc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];
	unsigned long first = rc->far ? far_ticks() : rc->first;
	unsigned long flags;
	int ret0, ret1;

	local_irq_save(flags);
	ret0 = arm(&p->c, probe_fn, p, first);
	ret1 = arm(&p->c, probe_fn, p, rc->second);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret0, 0);
	KUNIT_EXPECT_EQ(test, ret1, 1);
	check_ran(test, p, 1, "re-armed");
	check_quiet(test, p, 1, 0, "re-armed");
}

/* A setcallout() that must fail with -EINVAL. */
struct bad_set {
	bool null_c;
	bool null_fn;
	unsigned long ticks;
	const char *desc;
};

static const struct bad_set bad_sets[] = {
	{ .null_c = true, .desc = "NULL handle" },
	{ .null_fn = true, .desc = "NULL func" },
	{ .ticks = CALLOUT_MAX_TICKS + 1, .desc = "CALLOUT_MAX_TICKS + 1" },
	{ .ticks = ULONG_MAX, .desc = "ULONG_MAX ticks" },
};

KUNIT_ARRAY_PARAM_DESC(bad_set, bad_sets, desc);

/*
 * setcallout() with invalid arguments: -EINVAL, nothing changed.  A pending
 * handle stays pending and runs its old func(arg) at its old time; an idle
 * one stays idle.
 */
static void setcallout_rejects_invalid(struct kunit *test)
{
	const struct bad_set *b = test->param_value;
	struct client *ctx = test->priv;
	struct probe *pa = &ctx->probe[0];	/* pending */
	struct probe *pb = &ctx->probe[1];	/* idle */
	struct probe *bad = &ctx->probe[2];	/* the bad calls' arg */
	callout_func_t fn = b->null_fn ? NULL : alt_fn;
	unsigned long n = twheel_ns_to_ticks(50 * NSEC_PER_MSEC);
	unsigned long flags;
	int ret_a, ret_b;
	bool pend_a, pend_b;

	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, arm(&pa->c, probe_fn, pa, n), 0);
	ret_a = setcallout(b->null_c ? NULL : &pa->c, fn, bad, b->ticks);
	pend_a = callout_pending(&pa->c);
	ret_b = setcallout(b->null_c ? NULL : &pb->c, fn, bad, b->ticks);
	pend_b = callout_pending(&pb->c);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ_MSG(test, ret_a, -EINVAL, "%s, pending handle", b->desc);
	KUNIT_EXPECT_TRUE_MSG(test, pend_a, "%s: pending handle changed", b->desc);
	KUNIT_EXPECT_EQ_MSG(test, ret_b, -EINVAL, "%s, idle handle", b->desc);
	KUNIT_EXPECT_FALSE_MSG(test, pend_b, "%s: idle handle armed", b->desc);

	/* The pending one runs as first armed, strictly after its n ticks. */
	check_ran(test, pa, 1, "pending handle after a rejected setcallout()");
	KUNIT_EXPECT_EQ(test, pa->fn, RAN_PROBE);
	check_quiet(test, bad, 0, n, "the rejected call's arg");
	KUNIT_EXPECT_FALSE(test, callout_pending(&pb->c));
}

/*
 * setcallout() of a never-initialised handle (all zeroes, as static or
 * kzalloc()ed memory is): -EINVAL, and the handle's bytes left untouched.
 */
static void setcallout_uninitialised_handle_rejected(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	struct callout *c, *copy;
	int ret;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	copy = kunit_kzalloc(test, sizeof(*copy), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);

	ret = setcallout(c, probe_fn, p, 0);
	if (ret >= 0)			/* do not leave it armed */
		unsetcallout_sync(c);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(c, copy, sizeof(*c)), 0,
			    "the rejected handle was written to");
	check_quiet(test, p, 0, 0, "a never-initialised handle");
}

/* Far delays, up to the longest allowed; past the default geometry's range. */
struct far_case {
	unsigned long ticks;
	const char *desc;
};

static const struct far_case far_cases[] = {
	{ 1UL << 12, "2^12 ticks" },
	{ 1UL << 18, "2^18 ticks" },
	{ (1UL << 24) - 1, "2^24 - 1 ticks" },
	{ 1UL << 24, "2^24 ticks" },
	{ 1UL << 32, "2^32 ticks" },
	{ CALLOUT_MAX_TICKS - 1, "CALLOUT_MAX_TICKS - 1" },
	{ CALLOUT_MAX_TICKS, "CALLOUT_MAX_TICKS" },
};

KUNIT_ARRAY_PARAM_DESC(far, far_cases, desc);

/*
 * setcallout() up to CALLOUT_MAX_TICKS is accepted; the callout stays
 * pending, does not run early, and unsetcallout() cancels it.
 */
static void setcallout_far_ticks_stay_pending(struct kunit *test)
{
	const struct far_case *fc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, fc->ticks), 0);
	spin_ns(ticks_ns(10) + 20 * NSEC_PER_MSEC);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
}

static const char * const arming_ways[] = {
	"setcallout() in a pinned thread",
	"timeout() in a pinned thread",
	"setcallout() in an IPI",
	"timeout() in an IPI",
};

/*
 * setcallout() and timeout() run on the arming CPU: every online CPU, armed
 * from a thread pinned there and from an IPI to it.
 */
static void setcallout_runs_on_arming_cpu(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct remote_arm r;
	struct probe *p;
	int cpu, n = 0, i;

	for_each_online_cpu(cpu) {
		if (n + 4 > NPROBES)
			break;
		KUNIT_ASSERT_EQ(test, pin(cpu), 0);
		KUNIT_ASSERT_EQ(test, (int)raw_smp_processor_id(), cpu);
		p = &ctx->probe[n];
		KUNIT_EXPECT_EQ(test, arm(&p[0].c, probe_fn, &p[0], 1), 0);
		KUNIT_EXPECT_EQ(test, arm_timeout(probe_fn, &p[1], 1), 0);
		KUNIT_ASSERT_EQ(test, pin(ctx->cpu_a), 0);

		r = (struct remote_arm){ .c = &p[2].c, .fn = probe_fn,
					 .arg = &p[2], .p = &p[2], .ticks = 1 };
		KUNIT_ASSERT_EQ(test, arm_on(cpu, &r), 0);
		KUNIT_EXPECT_EQ(test, r.ret, 0);
		r = (struct remote_arm){ .fn = probe_fn, .arg = &p[3],
					 .p = &p[3], .ticks = 1 };
		KUNIT_ASSERT_EQ(test, arm_on(cpu, &r), 0);
		KUNIT_EXPECT_EQ(test, r.ret, 0);
		n += 4;
	}
	for (i = 0; i < n; i++)
		check_ran(test, &ctx->probe[i], 1, arming_ways[i % 4]);
}

/* What setcallout_in_hardirq_context() does in a hard hrtimer. */
struct hardirq_ops {
	struct probe *p[4];
	unsigned long far;
	int ret[7];
	bool pending;
};

static const struct {
	int want;
	const char *what;
} hardirq_want[] = {
	{ 0, "setcallout() of an idle handle" },
	{ 1, "setcallout() re-arming it" },
	{ 0, "timeout()" },
	{ 0, "setcallout() of another idle handle" },
	{ 1, "unsetcallout() of it" },
	{ 0, "timeout() of another arg" },
	{ 1, "untimeout() of it" },
};

static void hardirq_ops_fn(void *data)
{
	struct hardirq_ops *o = data;

	o->ret[0] = arm(&o->p[0]->c, probe_fn, o->p[0], 2);
	o->ret[1] = arm(&o->p[0]->c, probe_fn, o->p[0], 2);
	o->ret[2] = arm_timeout(probe_fn, o->p[1], 2);
	o->ret[3] = setcallout(&o->p[2]->c, probe_fn, o->p[2], o->far);
	o->ret[4] = unsetcallout(&o->p[2]->c);
	o->ret[5] = timeout(probe_fn, o->p[3], o->far);
	o->ret[6] = untimeout(probe_fn, o->p[3]);
	o->pending = callout_pending(&o->p[0]->c);
}

/*
 * setcallout(), unsetcallout(), timeout() and untimeout() from hardirq
 * context: the documented return values, and what was armed runs on the
 * hrtimer's CPU.
 */
static void setcallout_in_hardirq_context(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hardirq_ops o = { .far = far_ticks() };
	unsigned int i;

	for (i = 0; i < 4; i++)
		o.p[i] = &ctx->probe[i];
	run_hardirq(test, hardirq_ops_fn, &o);
	for (i = 0; i < ARRAY_SIZE(hardirq_want); i++)
		KUNIT_EXPECT_EQ_MSG(test, o.ret[i], hardirq_want[i].want,
				    "%s in hardirq context", hardirq_want[i].what);
	KUNIT_EXPECT_TRUE(test, o.pending);
	check_ran(test, o.p[0], 1, "setcallout() in hardirq context");
	check_ran(test, o.p[1], 1, "timeout() in hardirq context");
	KUNIT_EXPECT_EQ(test, o.p[0]->cpu, ctx->hc.cpu);
	check_quiet(test, o.p[2], 0, 2, "unsetcallout() in hardirq context");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&o.p[3]->runs), 0,
			    "untimeout() in hardirq context");
}

/* Periods of a callout that re-arms itself. */
static const struct ticks_case period_cases[] = {
	{ 0, "period 0 ticks" },
	{ 1, "period 1 tick" },
	{ 2, "period 2 ticks" },
	{ 5, "period 5 ticks" },
	{ 64, "period 64 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(period, period_cases, desc);

/*
 * setcallout() from the callout's own function re-arms it (returning 0: a
 * running callout is not pending); each run strictly more than a period
 * after the one before, on the same CPU; and it stops when no longer
 * re-armed.
 */
static void setcallout_rearm_in_own_function(struct kunit *test)
{
	const struct ticks_case *tc = test->param_value;
	struct client *ctx = test->priv;
	struct periodic *pr = &ctx->per;
	s64 gap, period_ns = ticks_ns(tc->ticks);
	int i;

	pr->period = tc->ticks;
	pr->limit = NPERIODIC;
	pr->armed = ktime_get();
	KUNIT_ASSERT_EQ(test, setcallout(&pr->c, periodic_fn, pr, pr->period), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&pr->runs, NPERIODIC, LATE_NS),
			      "ran %d of %d times", atomic_read(&pr->runs),
			      NPERIODIC);
	spin_ns(quiet_ns(tc->ticks));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pr->runs), NPERIODIC,
			    "ran on after it stopped re-arming itself");
	KUNIT_EXPECT_FALSE(test, callout_pending(&pr->c));

	for (i = 0; i < NPERIODIC; i++) {
		gap = ktime_to_ns(ktime_sub(pr->at[i],
					    i ? pr->at[i - 1] : pr->armed));
		KUNIT_EXPECT_GT_MSG(test, gap, period_ns,
				    "run %d came %lld ns after the previous re-arm, period %lld ns",
				    i, gap, period_ns);
		KUNIT_EXPECT_EQ_MSG(test, pr->cpu[i], ctx->cpu_a, "run %d", i);
		KUNIT_EXPECT_FALSE_MSG(test, pr->pending[i],
				       "run %d: callout_pending() in its own function", i);
		if (i + 1 == NPERIODIC)
			break;
		KUNIT_EXPECT_EQ_MSG(test, pr->ret[i], 0,
				    "run %d: setcallout() in its own function", i);
		KUNIT_EXPECT_TRUE_MSG(test, pr->rearmed[i],
				      "run %d: not pending after re-arming", i);
	}
}

/* Re-arms itself, cancels that, and cancels its peer. */
static void own_cancel_fn(void *arg)
{
	struct probe *p = arg;

	record(p, RAN_OWN);
	p->res[0] = setcallout(&p->c, own_cancel_fn, p, 0);
	p->res[1] = unsetcallout(&p->c);
	p->res[2] = callout_pending(&p->c);
	p->res[3] = unsetcallout(&p->peer->c);
	done(p);
}

/* unsetcallout() from a callout's own function, of itself and of another. */
static void setcallout_cancel_in_own_function(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p = &ctx->probe[0], *peer = &ctx->probe[1];

	p->peer = peer;
	KUNIT_ASSERT_EQ(test, arm(&peer->c, probe_fn, peer, far_ticks()), 0);
	KUNIT_ASSERT_EQ(test, arm(&p->c, own_cancel_fn, p, 0), 0);
	check_ran(test, p, 1, "own_cancel_fn()");
	KUNIT_EXPECT_EQ_MSG(test, p->res[0], 0, "setcallout() re-arming itself");
	KUNIT_EXPECT_EQ_MSG(test, p->res[1], 1, "unsetcallout() of itself, re-armed");
	KUNIT_EXPECT_EQ_MSG(test, p->res[2], 0, "callout_pending() after that");
	KUNIT_EXPECT_EQ_MSG(test, p->res[3], 1, "unsetcallout() of a pending peer");
	check_quiet(test, p, 1, 0, "cancelled in its own function");
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_FALSE(test, callout_pending(&peer->c));
	KUNIT_EXPECT_EQ(test, atomic_read(&peer->runs), 0);
}

/*
 * setcallout() while func runs on another CPU: the handle stays on that
 * CPU, and its next run starts only after the running one returned.
 */
static void setcallout_rearm_running_stays_on_cpu(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r = { .c = &h->c, .fn = hold_fn, .arg = h };
	bool pending_running, pending_rearmed;
	int ret;

	need_two_cpus(test);
	hold_reset(h, SAFETY_NS, 0);
	KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
	KUNIT_ASSERT_EQ(test, r.ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LATE_NS),
			      "did not run on CPU %d", ctx->cpu_b);

	/* running on cpu_b -> running and pending */
	pending_running = callout_pending(&h->c);
	ret = setcallout(&h->c, hold_fn, h, 0);
	pending_rearmed = callout_pending(&h->c);
	atomic_set_release(&h->release, 1);

	KUNIT_EXPECT_FALSE_MSG(test, pending_running,
			       "callout_pending() true while it runs");
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "setcallout() while it runs elsewhere");
	KUNIT_EXPECT_TRUE(test, pending_rearmed);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->runs, 2, LATE_NS),
			      "re-armed while running: ran %d of 2 times",
			      atomic_read(&h->runs));
	KUNIT_EXPECT_EQ(test, h->cpu[0], ctx->cpu_b);
	KUNIT_EXPECT_EQ_MSG(test, h->cpu[1], ctx->cpu_b,
			    "re-armed on CPU %d while running on CPU %d: ran on CPU %d",
			    ctx->cpu_a, ctx->cpu_b, h->cpu[1]);
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(h->overlapped),
			       "one handle's function ran on two CPUs at once");
	KUNIT_EXPECT_FALSE_MSG(test, ktime_before(h->start[1], h->end[0]),
			       "second run began %lld ns before the first returned",
			       ktime_to_ns(ktime_sub(h->end[0], h->start[1])));
}

/*
 * Many handles on both CPUs, some re-armed while pending and some
 * cancelled: each runs once or never, as its last call says, on time.
 */
static void setcallout_many_handles_run_once(struct kunit *test)
{
	struct client *ctx = test->priv;
	int half, i, want, expected = 0, ran;
	unsigned long flags, ticks, maxticks = 0;
	struct probe *p;
	ktime_t end;
	bool *cancelled;
	int r0, r1;

	cancelled = kunit_kcalloc(test, NMANY, sizeof(*cancelled), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cancelled);
	alloc_many(test, NMANY);

	for (half = 0; half < 2; half++) {
		KUNIT_ASSERT_EQ(test, pin(half && ctx->cpu_b >= 0 ?
					  ctx->cpu_b : ctx->cpu_a), 0);
		for (i = half * NMANY / 2; i < (half + 1) * NMANY / 2; i++) {
			p = &ctx->many[i];
			ticks = (i * 37) % 211;
			want = 1;
			r1 = 1;
			local_irq_save(flags);
			r0 = arm(&p->c, probe_fn, p, ticks);
			switch (i % 4) {
			case 1:		/* pending -> re-armed, other ticks */
				ticks = (i * 11) % 97;
				r1 = arm(&p->c, probe_fn, p, ticks);
				break;
			case 2:		/* pending -> idle */
				r1 = unsetcallout(&p->c);
				cancelled[i] = true;
				want = 0;
				break;
			case 3:		/* pending -> re-armed, same ticks */
				r1 = arm(&p->c, probe_fn, p, ticks);
				break;
			}
			local_irq_restore(flags);
			KUNIT_EXPECT_EQ_MSG(test, r0, 0, "handle %d: setcallout()", i);
			KUNIT_EXPECT_EQ_MSG(test, r1, 1, "handle %d: second call", i);
			expected += want;
			maxticks = max(maxticks, ticks);
		}
	}
	KUNIT_ASSERT_EQ(test, pin(ctx->cpu_a), 0);

	end = ktime_add_ns(ktime_get(), LATE_NS);
	do {
		ran = 0;
		for (i = 0; i < NMANY; i++)
			ran += !cancelled[i] &&
			       atomic_read_acquire(&ctx->many[i].runs);
	} while (ran < expected && ktime_before(ktime_get(), end));
	KUNIT_ASSERT_EQ_MSG(test, ran, expected, "handles that ran");
	spin_ns(quiet_ns(maxticks));

	for (i = 0; i < NMANY; i++) {
		p = &ctx->many[i];
		want = cancelled[i] ? 0 : 1;
		KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&p->runs), want,
				    "handle %d (case %d) ran %d times",
				    i, i % 4, atomic_read(&p->runs));
		if (want && atomic_read(&p->runs))
			check_record(test, p, "one of many handles");
	}
}

/* 10,000 callouts of seeded random intervals: each runs once, none early. */
static void setcallout_random_intervals_run_once(struct kunit *test)
{
	struct probe *p = alloc_many(test, NRANDOM);
	struct rnd_state rnd;
	ktime_t end;
	int i, ran;

	prandom_seed_state(&rnd, 20261121);
	for (i = 0; i < NRANDOM; i++)
		KUNIT_ASSERT_EQ(test, arm(&p[i].c, probe_fn, &p[i],
					  prandom_u32_state(&rnd) % 300), 0);
	end = ktime_add_ns(ktime_get(), LATE_NS);
	do {
		for (ran = 0, i = 0; i < NRANDOM; i++)
			ran += atomic_read_acquire(&p[i].runs) != 0;
	} while (ran < NRANDOM && ktime_before(ktime_get(), end));
	spin_ns(quiet_ns(0));	/* for a second run, were there one */

	for (i = 0; i < NRANDOM; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&p[i].runs), 1,
				    "callout %d of %lu ticks", i, p[i].ticks);
		if (atomic_read(&p[i].runs))
			check_record(test, &p[i], "a random interval");
	}
}

static void burst_fn(void *arg)
{
	struct burst *b = arg;

	if (ktime_get_ns() <= b->not_before)
		atomic_inc(&burst_early);
	b->runs++;
	atomic_inc_return_release(&burst_ran);
}

/*
 * 400,000 callouts armed on one CPU, all due on one tick 10 s ahead (more
 * if arming them takes longer here), while a pinned hard hrtimer on that
 * CPU measures the longest stretch with interrupts off: all run, none
 * early, and no stretch is long, in a bound relative to this machine
 * (below).  A tick that moves them all down with interrupts off, as the
 * old cascade did, exceeds it several times over.
 */
static void setcallout_burst_on_one_tick_bounds_irqs_off(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct burst *b = alloc_burst(test, NBURST);
	u64 tick = twheel_tick_ns(), due, cur, now, armed, batch_ns, bound, end;
	u64 guess, ahead, armed_end;
	s64 quiet, worst, control;
	unsigned long ticks;
	int i;

	atomic_set(&burst_ran, 0);
	atomic_set(&burst_early, 0);

	/* The watch alone first: what this machine does with nothing due. */
	watch_start(&ctx->watch);
	spin_ns(QUIET_NS);
	quiet = watch_stop(&ctx->watch);

	/*
	 * How long arming all takes here, from the first few (armed far off
	 * for now), so that the tick comes after arming with room to spare
	 * (twice the guess: a shared host's speed varies): the watch must
	 * see all twheel does with them.
	 */
	watch_start(&ctx->watch);
	if (ctx->cpu_b >= 0)
		smp_call_function_single(ctx->cpu_b, watch_start_here,
					 &ctx->control, 1);
	armed = ktime_get_ns();
	for (i = 0; i < NCALIBRATE; i++)
		KUNIT_ASSERT_EQ(test, setcallout(&b[i].c, burst_fn, &b[i],
						 far_ticks()), 0);
	guess = (ktime_get_ns() - armed) * (NBURST / NCALIBRATE);
	ahead = max(BURST_AHEAD_NS, 2 * guess + LEAD_NS);

	/*
	 * Arm each for the tick @due, which begins at @due * tick ns (README,
	 * "Timing"): n whole ticks from a call made in tick cur end at the
	 * start of tick cur + n + 1 at the earliest.
	 */
	due = div64_u64(ktime_get_ns() + ahead, tick);
	armed = ktime_get_ns();
	for (i = 0; i < NBURST; i++) {
		now = ktime_get_ns();
		cur = div64_u64(now, tick);
		ticks = due > cur + 1 ? due - cur - 1 : 0;
		b[i].not_before = now + ticks_ns(ticks);
		KUNIT_ASSERT_EQ(test, setcallout(&b[i].c, burst_fn, &b[i],
						 ticks), i < NCALIBRATE);
	}
	armed_end = ktime_get_ns();
	armed = armed_end - armed;
	batch_ns = div_u64(armed * WATCH_BATCH, NBURST);
	if (ktime_get_ns() + LEAD_NS / 2 > due * tick)
		kunit_info(test, "arming took %llu ns, not %llu: the watch may have missed some of the work\n",
			   armed, guess);

	/*
	 * Running a callout costs about what arming one did: 400,000 on one
	 * tick overload the CPU for as long, which the wait allows for.
	 */
	end = due * tick + LATE_NS + 2 * armed;
	now = ktime_get_ns();
	wait_count(&burst_ran, NBURST, end > now ? end - now : 0);
	spin_ns(quiet_ns(0));	/* for a second run, were there one */
	worst = watch_stop(&ctx->watch);
	control = watch_stop(&ctx->control);

	/*
	 * The bound (watch_bound()).  twheel's tick moves or runs at most
	 * WATCH_BATCH entries with interrupts off before it lets them in,
	 * and moving or expiring an entry costs no more than arming one with
	 * setcallout() (a lock round trip, a list insertion and a bitmap
	 * update).  The quiet allowance is the longer of the watch alone
	 * before and the watch on the other CPU, where nothing is armed.
	 * The old cascade moved all 400,000 in one stretch, some 1500
	 * batches, and exceeded this several times over.
	 */
	bound = watch_bound(batch_ns, max(quiet, control));
	kunit_info(test, "armed %d in %llu ns (%d: %llu ns), the tick %lld ns later\n",
		   NBURST, armed, WATCH_BATCH, batch_ns,
		   (s64)(due * tick - armed_end));
	kunit_info(test, "longest delay of the watch: %lld ns alone, %lld ns on the other CPU, %lld ns in %llu fires with the burst (%lld ns after the tick); bound %llu ns\n",
		   quiet, control, worst, ctx->watch.fires,
		   ktime_to_ns(ctx->watch.worst_at) - (s64)(due * tick),
		   bound);

	KUNIT_ASSERT_EQ_MSG(test, atomic_read_acquire(&burst_ran), NBURST,
			    "callouts run within %llu ns of their tick",
			    end - due * tick);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&burst_early), 0,
			    "callouts run early");
	for (i = 0; i < NBURST; i++)
		KUNIT_ASSERT_EQ_MSG(test, b[i].runs, 1, "callout %d", i);
	KUNIT_EXPECT_LE_MSG(test, worst, (s64)bound,
			    "interrupts held off %lld ns, bound %llu ns",
			    worst, bound);
}

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
	while (atomic_read(&t->ready) < 2 &&
	       ktime_before(ktime_get(), READ_ONCE(t->deadline)))
		cpu_relax();
	for (i = 0; ; i++) {
		ktime_t now = ktime_get();
		u32 r = prandom_u32_state(&rnd);
		u32 pause = prandom_u32_state(&rnd);

		if (!ktime_before(now, READ_ONCE(t->deadline)) ||
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
			spin_ns((pause >> 10) % ticks_ns(4));
		else if (!(pause & 3))
			spin_ns((pause >> 2) % (50 * NSEC_PER_USEC));
	}
}

static int tug_thread(void *arg)
{
	struct tug *t = arg;

	tug_play(t, t->seed + 1);
	atomic_set_release(&t->done, 1);
	return 0;
}

/*
 * setcallout() and unsetcallout() of one handle from both CPUs at once:
 * every arming of an idle handle ends in exactly one of a run or an
 * unsetcallout() that returned 1.  Nothing is lost and nothing runs twice.
 * The tug goes on until the callout has run TUG_RUNS times, so that runs
 * racing the other CPU's calls are always part of it.
 */
static void setcallout_unsetcallout_race(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tug *t = &ctx->tug;
	struct task_struct *k;

	need_two_cpus(test);
	t->rounds = 20000;
	t->until = ktime_add_ns(ktime_get(), ticks_ns(200));
	t->deadline = ktime_add_ns(t->until, LATE_NS);
	t->seed = 7;
	k = kthread_run_on_cpu(tug_thread, t, ctx->cpu_b, "twheel_tug/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	t->started = true;
	tug_play(t, t->seed);
	KUNIT_ASSERT_TRUE(test, wait_count(&t->done, 1, LATE_NS));
	if (unsetcallout_sync(&t->c) == 1)
		atomic_inc(&t->unset_hit);
	spin_ns(ticks_ns(3));

	kunit_info(test, "%d armed, %d ran, %d cancelled\n",
		   atomic_read(&t->set_idle), atomic_read(&t->fired),
		   atomic_read(&t->unset_hit));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->set_idle),
			atomic_read(&t->fired) + atomic_read(&t->unset_hit));
	KUNIT_EXPECT_GE(test, atomic_read(&t->fired), TUG_RUNS);
	KUNIT_EXPECT_GT(test, atomic_read(&t->unset_hit), 0);
}

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

	end = ktime_add_ns(ktime_get(), LATE_NS);
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
			stopped &= wait_count(&hp->worker[i].done, 1, LATE_NS);
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
		KUNIT_ASSERT_TRUE_MSG(test, wait_count(&per->runs, n + 1, LATE_NS),
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
	ctx->hp = hp;
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
		KUNIT_ASSERT_TRUE_MSG(test, wait_count(&wb->done, 1, LATE_NS),
				      "cycle %d: the worker of CPU %d still runs",
				      cycle, ctx->cpu_b);
		b_ops += wb->ops;
		b_irq_ops += wb->irq_ops;
		KUNIT_ASSERT_TRUE_MSG(test,
				      wait_count(&per->runs, n + 1, LATE_NS),
				      "cycle %d: the periodic callout stopped while CPU %d was down",
				      cycle, ctx->cpu_b);
		spin_ns(ticks_ns(prandom_u32_state(&rnd) % 30));

		KUNIT_ASSERT_EQ_MSG(test, add_cpu(ctx->cpu_b), 0,
				    "cycle %d: add_cpu(%d)", cycle, ctx->cpu_b);
	}

	KUNIT_ASSERT_TRUE_MSG(test, hp_stop(hp), "a worker did not stop");
	hp_cancel_all(hp);
	KUNIT_EXPECT_TRUE_MSG(test, hp_wait_ended(hp, LATE_NS),
			      "armings still open %llu ns after cancelling all",
			      LATE_NS);
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

/* unsetcallout() returns 1 for a pending handle, which then never runs. */
static void unsetcallout_returns_whether_pending(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	unsigned long flags;
	int idle, armed, cancel, again;
	bool pending;

	local_irq_save(flags);
	idle = unsetcallout(&p->c);		/* idle -> idle */
	armed = arm(&p->c, probe_fn, p, 0);	/* idle -> pending */
	cancel = unsetcallout(&p->c);		/* pending -> idle */
	pending = callout_pending(&p->c);
	again = unsetcallout(&p->c);		/* idle -> idle */
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ_MSG(test, idle, 0, "unsetcallout() of a fresh handle");
	KUNIT_EXPECT_EQ(test, armed, 0);
	KUNIT_EXPECT_EQ_MSG(test, cancel, 1, "unsetcallout() of a pending handle");
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ_MSG(test, again, 0, "unsetcallout() of a cancelled handle");
	check_quiet(test, p, 0, 0, "cancelled by unsetcallout()");

	/* A cancelled handle arms again as an idle one. */
	KUNIT_EXPECT_EQ(test, arm(&p->c, probe_fn, p, 1), 0);
	check_ran(test, p, 1, "armed again after unsetcallout()");
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
}

/*
 * unsetcallout() and unsetcallout_sync() of a NULL or never-initialised
 * (zero-filled) handle: -EINVAL, and the handle's bytes left untouched.
 */
static void unsetcallout_rejects_invalid_handle(struct kunit *test)
{
	struct callout *c, *copy;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	copy = kunit_kzalloc(test, sizeof(*copy), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);

	KUNIT_EXPECT_EQ(test, unsetcallout(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout(c), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(c), -EINVAL);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(c, copy, sizeof(*c)), 0,
			    "the rejected handle was written to");
}

/*
 * unsetcallout() while func runs on another CPU returns 0 at once, without
 * waiting for it (which is still running when it returns).
 */
static void unsetcallout_running_does_not_wait(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r = { .c = &h->c, .fn = hold_fn, .arg = h };
	int ret, returned;
	bool pending;

	need_two_cpus(test);
	hold_reset(h, SAFETY_NS, 0);
	KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
	KUNIT_ASSERT_EQ(test, r.ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LATE_NS),
			      "did not run on CPU %d", ctx->cpu_b);

	pending = callout_pending(&h->c);
	ret = unsetcallout(&h->c);
	returned = atomic_read_acquire(&h->runs);
	atomic_set_release(&h->release, 1);

	KUNIT_EXPECT_FALSE_MSG(test, pending, "callout_pending() while it runs");
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "unsetcallout() of a running callout");
	KUNIT_EXPECT_EQ_MSG(test, returned, 0,
			    "unsetcallout() waited for the running function");
	KUNIT_ASSERT_TRUE(test, wait_count(&h->runs, 1, LATE_NS));
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&h->runs), 1);
}

/*
 * unsetcallout_sync(): 0 for an idle handle, 1 for a pending one, which
 * never runs; either way nothing is pending or running when it returns.
 */
static void unsetcallout_sync_returns_whether_pending(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	int round, ret, runs;

	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->c), 0,
			    "unsetcallout_sync() of a fresh handle");
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, far_ticks()), 0);
	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->c), 1,
			    "unsetcallout_sync() of a pending handle");
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->c), 0,
			    "unsetcallout_sync() of a cancelled handle");

	/* Racing the next tick: 1 and never run, or 0 and already returned. */
	for (round = 0; round < 5; round++) {
		atomic_set(&p->runs, 0);
		KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, 0), 0);
		spin_ns(round * twheel_tick_ns() / 2);
		ret = unsetcallout_sync(&p->c);
		runs = atomic_read_acquire(&p->runs);
		KUNIT_EXPECT_EQ_MSG(test, runs, ret ? 0 : 1,
				    "round %d: unsetcallout_sync() returned %d", round, ret);
		KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
		check_quiet(test, p, runs, 0, "after unsetcallout_sync()");
	}
}

/*
 * unsetcallout_sync() while func runs on another CPU waits for it to
 * return, and returns 0 (it was not pending).
 */
static void unsetcallout_sync_waits_for_running(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r;
	ktime_t called = 0, returned_at = 0;
	int attempt, ret, returned;
	bool overlapped = false;

	need_two_cpus(test);
	for (attempt = 0; attempt < 5 && !overlapped; attempt++) {
		hold_reset(h, HOLD_NS, 0);
		r = (struct remote_arm){ .c = &h->c, .fn = hold_fn, .arg = h };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		KUNIT_ASSERT_EQ(test, r.ret, 0);
		KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LATE_NS),
				      "did not run on CPU %d", ctx->cpu_b);

		called = ktime_get();
		ret = unsetcallout_sync(&h->c);
		returned_at = ktime_get();
		returned = atomic_read_acquire(&h->runs);

		KUNIT_EXPECT_EQ_MSG(test, ret, 0,
				    "unsetcallout_sync() of a running callout");
		KUNIT_EXPECT_EQ_MSG(test, returned, 1,
				    "unsetcallout_sync() returned while its function ran");
		KUNIT_EXPECT_FALSE(test, callout_pending(&h->c));
		if (returned)
			KUNIT_EXPECT_FALSE(test, ktime_before(returned_at, h->end[0]));
		overlapped = ktime_before(called, h->end[0]);
	}
	if (overlapped)
		kunit_info(test, "waited %lld ns for the running function\n",
			   ktime_to_ns(ktime_sub(returned_at, called)));
	else
		kunit_info(test, "not exercised: each time, the function had returned before the call\n");
}

/*
 * unsetcallout_sync() of a callout that runs on another CPU and has
 * re-armed itself: 1 (it was pending and now will not run), after the
 * running function returned.
 */
static void unsetcallout_sync_running_rearmed_returns_pending(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r = { .c = &h->c, .fn = hold_fn, .arg = h };
	int ret, returned;

	need_two_cpus(test);
	hold_reset(h, HOLD_NS, far_ticks());
	KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
	KUNIT_ASSERT_EQ(test, r.ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LATE_NS),
			      "did not run on CPU %d", ctx->cpu_b);

	KUNIT_EXPECT_TRUE_MSG(test, callout_pending(&h->c),
			      "not pending after re-arming in its own function");
	ret = unsetcallout_sync(&h->c);
	returned = atomic_read_acquire(&h->runs);
	KUNIT_EXPECT_EQ_MSG(test, h->rearm_ret, 0,
			    "setcallout() re-arming in its own function");
	KUNIT_EXPECT_EQ_MSG(test, ret, 1,
			    "unsetcallout_sync() of a running, re-armed callout");
	KUNIT_EXPECT_EQ_MSG(test, returned, 1,
			    "unsetcallout_sync() returned while its function ran");
	KUNIT_EXPECT_FALSE(test, callout_pending(&h->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&h->c), 0);
}

/*
 * unsetcallout_sync() of a callout that re-arms itself every tick on
 * another CPU: when it returns, the callout is neither pending nor running
 * and does not run again.
 */
static void unsetcallout_sync_stops_self_rearming(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct periodic *pr = &ctx->per;
	struct remote_arm r;
	int round, ret, runs;

	need_two_cpus(test);
	pr->period = 0;
	pr->limit = 0;
	pr->busy_ns = 200 * NSEC_PER_USEC;
	for (round = 0; round < 5; round++) {
		WRITE_ONCE(pr->stop, false);
		atomic_set(&pr->runs, 0);
		r = (struct remote_arm){ .c = &pr->c, .fn = periodic_fn,
					 .arg = pr };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		KUNIT_ASSERT_EQ(test, r.ret, 0);
		KUNIT_ASSERT_TRUE_MSG(test,
				      wait_count(&pr->runs, 3, LATE_NS),
				      "round %d: ran %d times", round,
				      atomic_read(&pr->runs));

		ret = unsetcallout_sync(&pr->c);
		runs = atomic_read_acquire(&pr->runs);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&pr->in_fn), 0,
				    "round %d: still running", round);
		KUNIT_EXPECT_FALSE_MSG(test, callout_pending(&pr->c),
				       "round %d: still pending", round);
		KUNIT_EXPECT_TRUE_MSG(test, ret == 0 || ret == 1,
				      "round %d: unsetcallout_sync() returned %d",
				      round, ret);
		spin_ns(quiet_ns(0));
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&pr->runs), runs,
				    "round %d: ran on after unsetcallout_sync()", round);
		KUNIT_EXPECT_EQ_MSG(test, pr->cpu[0], ctx->cpu_b, "round %d", round);
	}
}

static void slow_fn(void *arg)
{
	struct slow *s = arg;

	atomic_set(&s->running, 1);
	if (atomic_read(&s->hold)) {
		ktime_t end = ktime_add_ns(ktime_get(), LATE_NS);

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

/*
 * unsetcallout_sync() racing a function that re-arms itself on the other
 * CPU, 1000 times: it returns only once the function has finished, and
 * leaves the callout neither pending nor running.  Odd rounds call it at a
 * random moment, even rounds while the function is known to be running.
 */
static void unsetcallout_sync_races_running_function(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct slow *s = &ctx->slow;
	unsigned int i, overlaps = 0, runs;
	struct remote_arm r;
	struct rnd_state rnd;

	need_two_cpus(test);
	prandom_seed_state(&rnd, 11);
	for (i = 0; i < NSYNCS; i++) {
		bool held = !(i & 1);

		atomic_set(&s->hold, held);
		atomic_set(&s->go, 0);
		r = (struct remote_arm){ .c = &s->c, .fn = slow_fn, .arg = s };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		if (held)
			KUNIT_ASSERT_TRUE(test, wait_count(&s->running, 1,
							   LATE_NS));
		else
			spin_ns(prandom_u32_state(&rnd) % ticks_ns(3));
		atomic_set(&s->go, 1);
		overlaps += atomic_read(&s->running);
		KUNIT_ASSERT_GE(test, unsetcallout_sync(&s->c), 0);
		KUNIT_ASSERT_EQ_MSG(test, atomic_read(&s->running), 0,
				    "round %u", i);
		KUNIT_ASSERT_FALSE_MSG(test, callout_pending(&s->c),
				       "round %u", i);
	}
	runs = atomic_read(&s->runs);
	spin_ns(ticks_ns(3));
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&s->runs), runs);
	kunit_info(test, "%u runs, %u syncs began while it ran\n", runs,
		   overlaps);
	KUNIT_EXPECT_GT(test, overlaps, 0U);
}

struct try_sync {
	struct callout *c[2];	/* a pending and an idle handle */
	bool before[2];
	int ret[2];
	bool after[2];
};

static void try_sync_fn(void *data)
{
	struct try_sync *s = data;
	int i;

	for (i = 0; i < 2; i++) {
		s->before[i] = callout_pending(s->c[i]);
		s->ret[i] = unsetcallout_sync(s->c[i]);
		s->after[i] = callout_pending(s->c[i]);
	}
}

struct atomic_case {
	enum atomic_where where;
	const char *desc;
};

static const struct atomic_case atomic_cases[] = {
	{ AT_PREEMPT_OFF, "preemption disabled" },
	{ AT_IRQS_OFF, "interrupts disabled" },
	{ AT_SPINLOCK, "spinlock held" },
	{ AT_BH_OFF, "bottom halves disabled" },
	{ AT_HARDIRQ, "hardirq (hard hrtimer)" },
};

KUNIT_ARRAY_PARAM_DESC(atomic, atomic_cases, desc);

/*
 * unsetcallout_sync() from atomic context: -EDEADLK, nothing changed; a
 * pending handle stays pending, an idle one idle.
 */
static void unsetcallout_sync_atomic_context_returns_edeadlk(struct kunit *test)
{
	const struct atomic_case *ac = test->param_value;
	struct client *ctx = test->priv;
	struct probe *pa = &ctx->probe[0], *pb = &ctx->probe[1];
	struct try_sync s = { .c = { &pa->c, &pb->c } };

	KUNIT_ASSERT_EQ(test, arm(&pa->c, probe_fn, pa, far_ticks()), 0);
	run_in(test, ac->where, try_sync_fn, &s);

	KUNIT_EXPECT_TRUE(test, s.before[0]);
	KUNIT_EXPECT_EQ_MSG(test, s.ret[0], -EDEADLK,
			    "unsetcallout_sync() of a pending handle, %s", ac->desc);
	KUNIT_EXPECT_TRUE_MSG(test, s.after[0], "pending handle cancelled, %s",
			      ac->desc);
	KUNIT_EXPECT_FALSE(test, s.before[1]);
	KUNIT_EXPECT_EQ_MSG(test, s.ret[1], -EDEADLK,
			    "unsetcallout_sync() of an idle handle, %s", ac->desc);
	KUNIT_EXPECT_FALSE(test, s.after[1]);
	/* Still armed: unsetcallout() finds it pending. */
	KUNIT_EXPECT_EQ(test, unsetcallout(&pa->c), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&pa->runs), 0);
}

static const struct {
	int want;
	const char *what;
} own_sync_want[] = {
	{ 0, "setcallout() re-arming in its own function" },
	{ 1, "callout_pending() after that" },
	{ -EDEADLK, "unsetcallout_sync() in its own function, re-armed" },
	{ 1, "callout_pending() after that -EDEADLK" },
	{ -EDEADLK, "unsetcallout_sync() in its own function, not re-armed" },
	{ 0, "callout_pending() after that -EDEADLK" },
};

/* First run: re-arm, try unsetcallout_sync(); second: try it idle. */
static void own_sync_fn(void *arg)
{
	struct probe *p = arg;
	int i = atomic_read(&p->runs);

	record(p, RAN_OWN);
	if (i == 0) {
		p->res[0] = setcallout(&p->c, own_sync_fn, p, 0);
		p->res[1] = callout_pending(&p->c);
		p->res[2] = unsetcallout_sync(&p->c);
		p->res[3] = callout_pending(&p->c);
	} else if (i == 1) {
		p->res[4] = unsetcallout_sync(&p->c);
		p->res[5] = callout_pending(&p->c);
	}
	done(p);
}

/*
 * unsetcallout_sync() from the callout's own function: -EDEADLK, nothing
 * changed, so the re-armed callout still runs a second time.
 */
static void unsetcallout_sync_own_function_returns_edeadlk(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, arm(&p->c, own_sync_fn, p, 0), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, 2, LATE_NS),
			      "ran %d of 2 times", atomic_read(&p->runs));
	check_quiet(test, p, 2, 0, "own_sync_fn()");
	for (i = 0; i < ARRAY_SIZE(own_sync_want); i++)
		KUNIT_EXPECT_EQ_MSG(test, p->res[i], own_sync_want[i].want,
				    "%s", own_sync_want[i].what);
	KUNIT_EXPECT_EQ(test, p->cpu, ((struct client *)test->priv)->cpu_a);
	KUNIT_EXPECT_FALSE(test, callout_pending(&p->c));
}

/* callout_pending(): true from arming until the run or the cancel. */
static void callout_pending_follows_state(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];

	unsigned long far = far_ticks(), flags;
	bool fresh, armed, rearmed;
	int ret0, ret1;

	/* Interrupts off: the 1-tick callout cannot run between the calls. */
	local_irq_save(flags);
	fresh = callout_pending(&p->c);
	ret0 = arm(&p->c, probe_fn, p, far);		/* idle -> pending */
	armed = callout_pending(&p->c);
	ret1 = arm(&p->c, probe_fn, p, 1);		/* pending -> pending */
	rearmed = callout_pending(&p->c);
	local_irq_restore(flags);

	KUNIT_EXPECT_FALSE_MSG(test, fresh, "after callout_init()");
	KUNIT_EXPECT_EQ(test, ret0, 0);
	KUNIT_EXPECT_TRUE_MSG(test, armed, "armed");
	KUNIT_EXPECT_EQ(test, ret1, 1);
	KUNIT_EXPECT_TRUE_MSG(test, rearmed, "re-armed");
	check_ran(test, p, 1, "re-armed");
	KUNIT_EXPECT_FALSE_MSG(test, p->pending, "in its own function");
	KUNIT_EXPECT_FALSE_MSG(test, callout_pending(&p->c), "after its run");
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, far), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);
	KUNIT_EXPECT_FALSE_MSG(test, callout_pending(&p->c), "cancelled");
}

/* timeout(): as setcallout(), and twheel frees the callout after its run. */
static void timeout_runs_after_ticks(struct kunit *test)
{
	const struct ticks_case *tc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_ASSERT_EQ(test, arm_timeout(probe_fn, p, tc->ticks), 0);
	check_ran(test, p, 1, "timeout()");
	check_quiet(test, p, 1, 0, "timeout()");
	KUNIT_EXPECT_EQ(test, p->fn, RAN_PROBE);
	KUNIT_EXPECT_EQ_MSG(test, untimeout(probe_fn, p), 0,
			    "untimeout() found a timeout that ran");
	kunit_info(test, "%lu ticks of %llu ns: ran %lld ns after the call\n",
		   tc->ticks, twheel_tick_ns(),
		   ktime_to_ns(ktime_sub(p->at, p->armed)));
}

static void timeout_runs_after_thousands_of_ticks(struct kunit *test)
{
	timeout_runs_after_ticks(test);
}

/* A timeout() that must fail with -EINVAL. */
static const struct bad_set bad_timeouts[] = {
	{ .null_fn = true, .desc = "NULL func" },
	{ .ticks = CALLOUT_MAX_TICKS + 1, .desc = "CALLOUT_MAX_TICKS + 1" },
	{ .ticks = ULONG_MAX, .desc = "ULONG_MAX ticks" },
};

KUNIT_ARRAY_PARAM_DESC(bad_timeout, bad_timeouts, desc);

/* timeout() with invalid arguments: -EINVAL, nothing armed. */
static void timeout_rejects_invalid(struct kunit *test)
{
	const struct bad_set *b = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_EXPECT_EQ_MSG(test, timeout(b->null_fn ? NULL : probe_fn, p, b->ticks),
			    -EINVAL, "%s", b->desc);
	if (!b->null_fn)
		KUNIT_EXPECT_EQ_MSG(test, untimeout(probe_fn, p), 0,
				    "%s: armed anyway", b->desc);
	check_quiet(test, p, 0, 0, b->desc);
}

/* timeout() up to CALLOUT_MAX_TICKS: accepted, pending, cancellable. */
static void timeout_far_ticks_stay_pending(struct kunit *test)
{
	const struct far_case *fc = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_ASSERT_EQ(test, arm_timeout(probe_fn, p, fc->ticks), 0);
	spin_ns(ticks_ns(10) + 20 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 0);
	KUNIT_EXPECT_EQ(test, untimeout(probe_fn, p), 1);
	KUNIT_EXPECT_EQ(test, untimeout(probe_fn, p), 0);
}

/* A timeout that arms its successor, @rearm times, from its own function. */
static void chain_fn(void *arg)
{
	struct probe *p = arg;
	int i = atomic_read(&p->runs);

	record(p, RAN_OWN);
	if (i < 4)
		p->res[i] = untimeout(chain_fn, p);
	if (READ_ONCE(p->rearm) > 0) {
		p->rearm--;
		p->res[6] = min(p->res[6], timeout(chain_fn, p, p->ticks));
	}
	done(p);
}

/*
 * timeout() from its own function arms a new one, each run strictly more
 * than its ticks after the one before; untimeout() there finds nothing
 * (the running one is not pending).
 */
static void timeout_rearm_in_own_function(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	s64 gap;
	int i;

	p->rearm = 3;
	p->res[6] = 0;
	KUNIT_ASSERT_EQ(test, arm_timeout(chain_fn, p, 2), 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, 4, LATE_NS),
			      "ran %d of 4 times", atomic_read(&p->runs));
	check_quiet(test, p, 4, 2, "chain_fn()");
	KUNIT_EXPECT_EQ_MSG(test, p->res[6], 0, "timeout() in its own function");
	for (i = 0; i < 4; i++) {
		gap = ktime_to_ns(ktime_sub(p->ats[i], i ? p->ats[i - 1] : p->armed));
		KUNIT_EXPECT_GT_MSG(test, gap, (s64)ticks_ns(2),
				    "run %d came %lld ns after the previous timeout()",
				    i, gap);
		KUNIT_EXPECT_EQ_MSG(test, p->res[i], 0,
				    "run %d: untimeout() of itself", i);
	}
	KUNIT_EXPECT_EQ(test, p->cpu, ((struct client *)test->priv)->cpu_a);
}

/* untimeout(): 1 for a pending timeout, which then never runs; else 0. */
static void untimeout_returns_whether_cancelled(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	unsigned long flags;
	int none, armed, cancel, again;

	local_irq_save(flags);
	none = untimeout(probe_fn, p);
	armed = timeout(probe_fn, p, 0);
	cancel = untimeout(probe_fn, p);
	again = untimeout(probe_fn, p);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ_MSG(test, none, 0, "untimeout() with nothing armed");
	KUNIT_EXPECT_EQ(test, armed, 0);
	KUNIT_EXPECT_EQ_MSG(test, cancel, 1, "untimeout() of a pending timeout");
	KUNIT_EXPECT_EQ_MSG(test, again, 0, "untimeout() of a cancelled timeout");
	check_quiet(test, p, 0, 0, "cancelled by untimeout()");
}

/*
 * untimeout() matches func and arg as pointers: the same func with another
 * arg, or another func with the same arg, cancels nothing.
 */
static void untimeout_matches_func_and_arg_pointers(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p = &ctx->probe[0], *twin = &ctx->probe[1];
	unsigned long flags;
	int other_arg, other_fn;

	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, arm_timeout(probe_fn, p, 1), 0);
	other_arg = untimeout(probe_fn, twin);
	other_fn = untimeout(alt_fn, p);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ_MSG(test, other_arg, 0, "untimeout() with another arg");
	KUNIT_EXPECT_EQ_MSG(test, other_fn, 0, "untimeout() with another func");
	check_ran(test, p, 1, "timeout() after non-matching untimeout()s");
	KUNIT_EXPECT_EQ(test, untimeout(probe_fn, p), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&twin->runs), 0);
}

/*
 * untimeout() of several pending timeouts with the same func and arg
 * cancels one, the most recently armed, per call.
 */
static void untimeout_cancels_most_recent_duplicate(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p = &ctx->probe[0], *mark = &ctx->probe[1];
	unsigned long t100 = twheel_ns_to_ticks(100 * NSEC_PER_MSEC);
	unsigned long flags;
	ktime_t armed;
	int ret[6], i;

	/* Older long, newer 0 ticks: the long one is left, never early. */
	local_irq_save(flags);
	armed = ktime_get();
	KUNIT_EXPECT_EQ(test, timeout(probe_fn, p, t100), 0);
	KUNIT_EXPECT_EQ(test, timeout(probe_fn, p, 0), 0);
	ret[0] = untimeout(probe_fn, p);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret[0], 1);
	p->armed = armed;
	p->ticks = t100;
	p->arm_cpu = ctx->cpu_a;
	check_ran(test, p, 1, "the older of two, armed for 100 ms");
	KUNIT_EXPECT_EQ(test, untimeout(probe_fn, p), 0);

	/*
	 * Older 0 ticks, newer 200 ms, and a marker at 100 ms: the 0-tick one
	 * is left, and runs before the marker.
	 */
	atomic_set(&p->runs, 0);
	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, arm_timeout(probe_fn, p, 0), 0);
	KUNIT_EXPECT_EQ(test, timeout(probe_fn, p, 2 * t100), 0);
	KUNIT_EXPECT_EQ(test, arm_timeout(probe_fn, mark, t100), 0);
	ret[0] = untimeout(probe_fn, p);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret[0], 1);
	check_ran(test, mark, 1, "the marker");
	KUNIT_ASSERT_TRUE(test, wait_count(&p->runs, 1, LATE_NS));
	KUNIT_EXPECT_LT_MSG(test, p->seq, mark->seq,
			    "the 200 ms timeout was left, not the 0-tick one");
	check_quiet(test, p, 1, 2 * t100, "the older of two, armed for 0 ticks");

	/*
	 * Three duplicates and one with another arg: three cancels, then
	 * none, though the other is pending; then the other, once.
	 */
	atomic_set(&p->runs, 0);
	atomic_set(&mark->runs, 0);
	local_irq_save(flags);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, timeout(probe_fn, p, i), 0);
	KUNIT_EXPECT_EQ(test, timeout(probe_fn, mark, 2), 0);
	for (i = 0; i < 4; i++)
		ret[i] = untimeout(probe_fn, p);
	ret[4] = untimeout(probe_fn, mark);
	ret[5] = untimeout(probe_fn, mark);
	local_irq_restore(flags);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, ret[i], i < 3 ? 1 : 0,
				    "untimeout() number %d of three duplicates", i + 1);
	KUNIT_EXPECT_EQ_MSG(test, ret[4], 1, "untimeout() of the other arg");
	KUNIT_EXPECT_EQ_MSG(test, ret[5], 0, "untimeout() of it again");
	check_quiet(test, p, 0, 2, "three cancelled duplicates");
	KUNIT_EXPECT_EQ(test, atomic_read(&mark->runs), 0);
}

/* 100,000 distinct (func, arg) pairs: untimeout() finds each, once. */
static void untimeout_many_pairs(struct kunit *test)
{
	/* Never reached, however long the 100,000 calls take. */
	unsigned long ticks = twheel_ns_to_ticks(100 * FAR_NS);
	atomic_t *arg = alloc_counts(test, NPAIRS);
	int i, cancelled = 0;

	for (i = 0; i < NPAIRS; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, &arg[i], ticks), 0);
	for (i = 0; i < NPAIRS; i++)
		cancelled += untimeout(count_fn, &arg[i]);
	KUNIT_EXPECT_EQ(test, cancelled, NPAIRS);
	for (i = 0; i < NPAIRS; i++)
		KUNIT_EXPECT_EQ_MSG(test, untimeout(count_fn, &arg[i]), 0,
				    "pair %d, cancelled before", i);
}

/*
 * untimeout() racing the expiry of a timeout() armed on the other CPU:
 * each one either runs, once, or is cancelled, never both or neither.
 */
static void untimeout_races_expiry(struct kunit *test)
{
	struct client *ctx = test->priv;
	unsigned int i, cancelled = 0, ran = 0, both = 0, neither = 0;
	struct remote_arm r;
	struct rnd_state rnd;
	atomic_t *fired;
	ktime_t end;
	u8 *hit;
	int f;

	need_two_cpus(test);
	fired = alloc_counts(test, NRACES);
	hit = kunit_kzalloc(test, NRACES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hit);
	prandom_seed_state(&rnd, 13);
	for (i = 0; i < NRACES; i++) {
		r = (struct remote_arm){ .fn = count_fn, .arg = &fired[i],
					 .ticks = prandom_u32_state(&rnd) % 2 };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		spin_ns(prandom_u32_state(&rnd) % ticks_ns(3));
		hit[i] = untimeout(count_fn, &fired[i]);
		cancelled += hit[i];
	}
	end = ktime_add_ns(ktime_get(), LATE_NS);
	do {
		for (ran = 0, i = 0; i < NRACES; i++)
			ran += atomic_read(&fired[i]);
	} while (ran + cancelled < NRACES && ktime_before(ktime_get(), end));
	spin_ns(ticks_ns(3));

	for (i = 0; i < NRACES; i++) {
		f = atomic_read(&fired[i]);
		both += f && hit[i];
		neither += !f && !hit[i];
		KUNIT_EXPECT_LE_MSG(test, f, 1, "timeout %u", i);
	}
	kunit_info(test, "%u cancelled, %u ran\n", cancelled,
		   NRACES - cancelled);
	KUNIT_EXPECT_EQ(test, both, 0U);
	KUNIT_EXPECT_EQ(test, neither, 0U);
	KUNIT_EXPECT_GT(test, cancelled, 0U);
	KUNIT_EXPECT_LT(test, cancelled, (unsigned int)NRACES);
}

/*
 * Lock-associated callouts.  The function records, for the arming whose
 * argument it was given, whether its handle's lock (and the other lock of
 * the pair, which it must not be) was held as it began; with
 * CALLOUT_RETURNUNLOCKED it releases the lock itself.
 */
struct lock_kind {
	bool raw;
	unsigned int flags;
	const char *desc;
};

static const struct lock_kind lock_kinds[] = {
	{ false, 0, "spinlock_t" },
	{ false, CALLOUT_RETURNUNLOCKED, "spinlock_t, returns unlocked" },
	{ true, 0, "raw_spinlock_t" },
	{ true, CALLOUT_RETURNUNLOCKED, "raw_spinlock_t, returns unlocked" },
};

KUNIT_ARRAY_PARAM_DESC(lock_kind, lock_kinds, desc);

struct lock_arming {
	struct lockc *lk;
	bool held;		/* its lock, as lockdep and the lock see it */
	bool other_held;	/* the lock it was not given */
	bool softirq;
	int cpu;
	atomic_t runs;
};

struct lockc {
	struct callout_locked lc;
	spinlock_t lock, other;
	raw_spinlock_t raw_lock;
	const struct lock_kind *kind;
	struct lock_arming arm[2];
};

static void lockc_lock(struct lockc *lk)
{
	if (lk->kind->raw)
		raw_spin_lock_bh(&lk->raw_lock);
	else
		spin_lock_bh(&lk->lock);
}

static void lockc_unlock(struct lockc *lk)
{
	if (lk->kind->raw)
		raw_spin_unlock_bh(&lk->raw_lock);
	else
		spin_unlock_bh(&lk->lock);
}

/* Is @l taken by anyone?  A try from a context that may take it. */
static bool spin_taken(spinlock_t *l, bool bh)
{
	bool got = bh ? spin_trylock_bh(l) : spin_trylock(l);

	if (got && bh)
		spin_unlock_bh(l);
	else if (got)
		spin_unlock(l);
	return !got;
}

static bool raw_spin_taken(raw_spinlock_t *l, bool bh)
{
	bool got = bh ? raw_spin_trylock_bh(l) : raw_spin_trylock(l);

	if (got && bh)
		raw_spin_unlock_bh(l);
	else if (got)
		raw_spin_unlock(l);
	return !got;
}

/* From process context: is the handle's lock taken? */
static bool lockc_is_locked(struct lockc *lk)
{
	return lk->kind->raw ? raw_spin_taken(&lk->raw_lock, true) :
			       spin_taken(&lk->lock, true);
}

static void lockc_fn(void *arg)
{
	struct lock_arming *a = arg;
	struct lockc *lk = a->lk;

	if (lk->kind->raw)
		a->held = raw_spin_taken(&lk->raw_lock, false) &&
			  lockdep_is_held_type(&lk->raw_lock, -1);
	else
		a->held = spin_taken(&lk->lock, false) &&
			  lockdep_is_held_type(&lk->lock, -1);
	a->other_held = spin_taken(&lk->other, false);
	a->softirq = in_serving_softirq() && !in_hardirq();
	a->cpu = raw_smp_processor_id();
	if (lk->kind->flags & CALLOUT_RETURNUNLOCKED) {
		if (lk->kind->raw)
			raw_spin_unlock(&lk->raw_lock);
		else
			spin_unlock(&lk->lock);
	}
	atomic_inc_return_release(&a->runs);
}

/* A handle set up for @kind, which .exit waits for. */
static struct lockc *lockc_setup(struct kunit *test,
				 const struct lock_kind *kind)
{
	struct client *ctx = test->priv;
	struct lockc *lk = kunit_kzalloc(test, sizeof(*lk), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, lk);
	lk->kind = kind;
	spin_lock_init(&lk->lock);
	spin_lock_init(&lk->other);
	raw_spin_lock_init(&lk->raw_lock);
	lk->arm[0].lk = lk;
	lk->arm[1].lk = lk;
	if (kind->raw)
		ret = callout_init_raw_lock(&lk->lc, &lk->raw_lock, kind->flags);
	else
		ret = callout_init_lock(&lk->lc, &lk->lock, kind->flags);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ctx->lk = lk;
	return lk;
}

static const struct lock_kind plain_lock = { false, 0, "spinlock_t" };

/*
 * callout_init_lock() and callout_init_raw_lock() refuse a NULL handle or
 * lock and an unknown flag with -EINVAL, changing nothing: a handle never
 * initialised stays refused by setcallout(), and one set up for a lock
 * still runs under that lock, not the one a refused call named.
 */
static void callout_init_lock_rejects_invalid(struct kunit *test)
{
	struct lockc *lk = lockc_setup(test, &plain_lock);
	struct callout_locked *stray = kunit_kzalloc(test, sizeof(*stray),
						     GFP_KERNEL);
	struct lock_arming *a = &lk->arm[0];

	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_EXPECT_EQ(test, callout_init_lock(NULL, &lk->lock, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_raw_lock(NULL, &lk->raw_lock, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_lock(stray, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_raw_lock(stray, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_lock(stray, &lk->lock, 0x80),
			-EINVAL);
	/* stray: still never initialised */
	KUNIT_EXPECT_EQ(test, setcallout(&stray->c, lockc_fn, a, 0), -EINVAL);

	KUNIT_EXPECT_EQ(test, callout_init_lock(&lk->lc, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init_lock(&lk->lc, &lk->other, ~0U),
			-EINVAL);
	/* lk->lc: still under lk->lock */
	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&a->runs, 1, LATE_NS));
	KUNIT_EXPECT_TRUE_MSG(test, a->held, "not under its own lock");
	KUNIT_EXPECT_FALSE_MSG(test, a->other_held,
			       "under the lock of a refused call");
}

/* Flags that callout_init_lock() and callout_init_raw_lock() refuse. */
struct bad_flags_case {
	unsigned int flags;
	bool raw;
	const char *desc;
};

static const struct bad_flags_case bad_flags_cases[] = {
	{ 0x2, false, "spinlock, 0x2" },
	{ 0x2, true, "raw spinlock, 0x2" },
	{ 0x3, false, "spinlock, RETURNUNLOCKED | 0x2" },
	{ 0x3, true, "raw spinlock, RETURNUNLOCKED | 0x2" },
	{ 0x4, false, "spinlock, 0x4" },
	{ 0x80000000, true, "raw spinlock, the top bit" },
	{ ~0U, false, "spinlock, every bit" },
	{ ~0U, true, "raw spinlock, every bit" },
};

KUNIT_ARRAY_PARAM_DESC(bad_flags, bad_flags_cases, desc);

/*
 * Any flag but CALLOUT_RETURNUNLOCKED is -EINVAL, for either lock type,
 * and nothing changes: a handle never initialised stays so.
 */
static void callout_init_lock_rejects_unknown_flags(struct kunit *test)
{
	const struct bad_flags_case *bc = test->param_value;
	struct lockc *lk = lockc_setup(test, &plain_lock);
	struct callout_locked *stray = kunit_kzalloc(test, sizeof(*stray),
						     GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, stray);
	ret = bc->raw ? callout_init_raw_lock(stray, &lk->raw_lock, bc->flags) :
			callout_init_lock(stray, &lk->lock, bc->flags);
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "flags %#x", bc->flags);
	KUNIT_EXPECT_EQ(test, setcallout(&stray->c, lockc_fn, &lk->arm[0], 0),
			-EINVAL);
}

/*
 * callout_init() returns 0 for a handle that is not pending, -EINVAL for
 * NULL, and -EBUSY for a pending handle, which stays as it was.
 */
static void callout_init_returns_what_it_did(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p = &ctx->probe[0];

	KUNIT_EXPECT_EQ(test, callout_init(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init(&p->c), 0);
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, far_ticks()), 0);
	KUNIT_EXPECT_EQ(test, callout_init(&p->c), -EBUSY);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);
	KUNIT_EXPECT_EQ(test, callout_init(&p->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
}

/*
 * Of a pending handle, callout_init_lock() and callout_init_raw_lock()
 * return -EBUSY and change nothing: it stays pending, and when it runs, it
 * runs under its first lock.
 */
static void callout_init_lock_pending_returns_ebusy(struct kunit *test)
{
	struct lockc *lk = lockc_setup(test, &plain_lock);
	struct lock_arming *a = &lk->arm[0];
	int busy, busy_raw;
	bool pending;

	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, far_ticks()), 0);
	busy = callout_init_lock(&lk->lc, &lk->other, 0);
	busy_raw = callout_init_raw_lock(&lk->lc, &lk->raw_lock, 0);
	pending = callout_pending(&lk->lc.c);
	KUNIT_EXPECT_EQ(test, busy, -EBUSY);
	KUNIT_EXPECT_EQ(test, busy_raw, -EBUSY);
	KUNIT_EXPECT_TRUE(test, pending);
	/* pending -> due on the next tick */
	KUNIT_EXPECT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, 0), 1);
	KUNIT_ASSERT_TRUE(test, wait_count(&a->runs, 1, LATE_NS));
	KUNIT_EXPECT_TRUE_MSG(test, a->held, "not under its first lock");
	KUNIT_EXPECT_FALSE_MSG(test, a->other_held,
			       "under the lock of a refused call");
}

/*
 * The function runs in softirq context, on the arming CPU, with the lock
 * held; afterwards nobody holds it, whether twheel or the function
 * (CALLOUT_RETURNUNLOCKED) released it.
 */
static void callout_init_lock_function_holds_lock(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct lockc *lk = lockc_setup(test, test->param_value);
	struct lock_arming *a = &lk->arm[0];

	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, a, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&a->runs, 1, LATE_NS));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&lk->lc.c), 0);
	KUNIT_EXPECT_TRUE_MSG(test, a->held, "%s: not held in the function",
			      lk->kind->desc);
	KUNIT_EXPECT_TRUE(test, a->softirq);
	KUNIT_EXPECT_EQ(test, a->cpu, ctx->cpu_a);
	KUNIT_EXPECT_FALSE_MSG(test, lockc_is_locked(lk),
			       "%s: still held after the function",
			       lk->kind->desc);
	lockc_lock(lk);
	lockc_unlock(lk);
}

/* Busy-poll, never sleep, until @c is not pending or @ns have passed. */
static bool wait_idle(struct callout *c, u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (callout_pending(c)) {
		if (!ktime_before(ktime_get(), end))
			return !callout_pending(c);
		cpu_relax();
	}
	return true;
}

/*
 * Hold the lock, arm @a on the other CPU for the next tick, and wait until
 * its tick has come: it is not pending, and its expiry waits for the lock.
 * Returns with the lock held either way.
 */
static bool lockc_hold_until_due(struct kunit *test, struct lockc *lk,
				 struct lock_arming *a)
{
	struct client *ctx = test->priv;
	struct remote_arm r = { .c = &lk->lc.c, .fn = lockc_fn, .arg = a };

	lockc_lock(lk);
	if (arm_on(ctx->cpu_b, &r) || r.ret)
		return false;
	return wait_idle(&lk->lc.c, LATE_NS);
}

/*
 * unsetcallout() with the lock held, after the callout's tick came on the
 * other CPU: returns 1, and the function never runs; the lock is free
 * again afterwards.
 */
static void unsetcallout_under_lock_after_tick_never_runs(struct kunit *test)
{
	struct lockc *lk;
	bool due;
	int ret;

	need_two_cpus(test);
	lk = lockc_setup(test, test->param_value);
	due = lockc_hold_until_due(test, lk, &lk->arm[0]);
	ret = unsetcallout(&lk->lc.c);
	lockc_unlock(lk);
	KUNIT_ASSERT_TRUE_MSG(test, due, "its tick did not come");
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&lk->lc.c), 0);
	spin_ns(ticks_ns(3));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&lk->arm[0].runs), 0,
			    "%s: ran after unsetcallout() returned 1",
			    lk->kind->desc);
	KUNIT_EXPECT_FALSE(test, lockc_is_locked(lk));
}

/*
 * setcallout() with the lock held, after the tick came on the other CPU:
 * returns 1 (re-armed); the old arming never runs, the new one once, on
 * that other CPU (where the callout was running).
 */
static void setcallout_under_lock_after_tick_rearms(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct lockc *lk;
	bool due, pending;
	int ret;

	need_two_cpus(test);
	lk = lockc_setup(test, test->param_value);
	due = lockc_hold_until_due(test, lk, &lk->arm[0]);
	ret = setcallout(&lk->lc.c, lockc_fn, &lk->arm[1], 0);
	pending = callout_pending(&lk->lc.c);
	lockc_unlock(lk);
	KUNIT_ASSERT_TRUE_MSG(test, due, "its tick did not come");
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_ASSERT_TRUE(test, wait_count(&lk->arm[1].runs, 1, LATE_NS));
	spin_ns(ticks_ns(3));
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&lk->lc.c), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&lk->arm[0].runs), 0,
			    "%s: the replaced arming ran", lk->kind->desc);
	KUNIT_EXPECT_EQ(test, atomic_read(&lk->arm[1].runs), 1);
	KUNIT_EXPECT_TRUE(test, lk->arm[1].held);
	KUNIT_EXPECT_EQ(test, lk->arm[1].cpu, ctx->cpu_b);
	KUNIT_EXPECT_FALSE(test, lockc_is_locked(lk));
}

/*
 * unsetcallout_sync() with the callout's lock held: -EDEADLK, nothing
 * changed.  lockdep would rightly report the inversion (the function
 * waits for the lock, the caller for the function); it is off for this
 * one call only.
 */
static void unsetcallout_sync_under_lock_returns_edeadlk(struct kunit *test)
{
	struct lockc *lk = lockc_setup(test, &plain_lock);
	bool pending;
	int ret;

	KUNIT_ASSERT_EQ(test, setcallout(&lk->lc.c, lockc_fn, &lk->arm[0],
					 far_ticks()), 0);
	lockc_lock(lk);
	lockdep_off();
	ret = unsetcallout_sync(&lk->lc.c);
	lockdep_on();
	pending = callout_pending(&lk->lc.c);
	lockc_unlock(lk);
	KUNIT_EXPECT_EQ(test, ret, -EDEADLK);
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_EXPECT_EQ(test, unsetcallout(&lk->lc.c), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&lk->arm[0].runs), 0);
}

static int client_init(struct kunit *test)
{
	struct client *ctx;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	for (i = 0; i < NPROBES; i++)
		callout_init(&ctx->probe[i].c);
	callout_init(&ctx->hold.c);
	callout_init(&ctx->per.c);
	callout_init(&ctx->tug.c);
	callout_init(&ctx->slow.c);
	hrtimer_init(&ctx->hc.t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	ctx->hc.t.function = hardirq_call_fn;
	watch_init(&ctx->watch);
	watch_init(&ctx->control);
	ctx->cpu_a = cpumask_first(cpu_online_mask);
	ctx->cpu_b = cpumask_next(ctx->cpu_a, cpu_online_mask);
	if (ctx->cpu_b >= nr_cpu_ids)
		ctx->cpu_b = -1;
	test->priv = ctx;
	return pin(ctx->cpu_a);
}

/* Cancel all a case armed, so that twheel never calls into this module later. */
static void client_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p;
	int i, n;

	if (!ctx)
		return;
	if (ctx->tug.started) {		/* stop the kthread's tug */
		WRITE_ONCE(ctx->tug.deadline, 0);
		wait_count(&ctx->tug.done, 1, LATE_NS);
	}
	if (ctx->hp)			/* and the hotplug case's workers */
		hp_stop(ctx->hp);
	if (ctx->cpu_b >= 0 && !cpu_online(ctx->cpu_b))
		add_cpu(ctx->cpu_b);
	hrtimer_cancel(&ctx->hc.t);
	watch_stop(&ctx->watch);
	watch_stop(&ctx->control);
	atomic_set_release(&ctx->hold.release, 1);
	atomic_set(&ctx->slow.hold, 0);
	atomic_set(&ctx->slow.go, 1);
	ctx->hold.rearm_ticks = 0;
	WRITE_ONCE(ctx->per.stop, true);
	ctx->per.limit = 0;
	for (i = 0; i < NPROBES; i++)
		WRITE_ONCE(ctx->probe[i].rearm, 0);
	/* A function under way (softirq: an RCU reader) sees the above. */
	synchronize_rcu();

	unsetcallout_sync(&ctx->hold.c);
	unsetcallout_sync(&ctx->per.c);
	unsetcallout_sync(&ctx->tug.c);
	unsetcallout_sync(&ctx->slow.c);
	if (ctx->lk)
		unsetcallout_sync(&ctx->lk->lc.c);
	if (ctx->hp)
		hp_cancel_all(ctx->hp);
	for (i = 0; i < NPROBES; i++) {
		p = &ctx->probe[i];
		unsetcallout_sync(&p->c);
		do {
			n = untimeout(probe_fn, p) + untimeout(alt_fn, p) +
			    untimeout(chain_fn, p);
		} while (n > 0);
	}
	for (i = 0; i < ctx->nmany; i++)
		unsetcallout_sync(&ctx->many[i].c);
	for (i = 0; i < ctx->nburst; i++)
		unsetcallout_sync(&ctx->burst[i].c);
	for (i = 0; i < ctx->ncounts; i++) {
		do {
			n = untimeout(count_fn, &ctx->counts[i]);
		} while (n > 0);
	}
	/* A timeout() function already started has returned after this. */
	synchronize_rcu();
	kvfree(ctx->many);
	kvfree(ctx->counts);
	kvfree(ctx->burst);
}

static struct kunit_case client_cases[] = {
	KUNIT_CASE(twheel_tick_ns_in_documented_range),
	KUNIT_CASE_PARAM(twheel_ns_to_ticks_rounds_up, ns_gen_params),
	KUNIT_CASE_PARAM(setcallout_runs_after_ticks, ticks_gen_params),
	TWHEEL_CASE_PARAM_SLOW(setcallout_runs_after_thousands_of_ticks,
			       slow_ticks_gen_params),
	KUNIT_CASE(setcallout_zero_ticks_runs_on_next_tick),
	KUNIT_CASE(setcallout_returns_whether_pending),
	KUNIT_CASE_PARAM(setcallout_rearm_pending_moves_expiry, rearm_gen_params),
	KUNIT_CASE_PARAM(setcallout_rejects_invalid, bad_set_gen_params),
	KUNIT_CASE(setcallout_uninitialised_handle_rejected),
	KUNIT_CASE_PARAM(setcallout_far_ticks_stay_pending, far_gen_params),
	KUNIT_CASE(setcallout_runs_on_arming_cpu),
	KUNIT_CASE(setcallout_in_hardirq_context),
	KUNIT_CASE_PARAM(setcallout_rearm_in_own_function, period_gen_params),
	KUNIT_CASE(setcallout_cancel_in_own_function),
	KUNIT_CASE(setcallout_rearm_running_stays_on_cpu),
	KUNIT_CASE(setcallout_many_handles_run_once),
	KUNIT_CASE_SLOW(setcallout_random_intervals_run_once),
	KUNIT_CASE_SLOW(setcallout_burst_on_one_tick_bounds_irqs_off),
	KUNIT_CASE_SLOW(setcallout_unsetcallout_race),
	KUNIT_CASE(setcallout_offline_cpu_moves_pending),
	KUNIT_CASE_SLOW(setcallout_cpu_down_up_under_load),
	KUNIT_CASE(unsetcallout_returns_whether_pending),
	KUNIT_CASE(unsetcallout_rejects_invalid_handle),
	KUNIT_CASE(unsetcallout_running_does_not_wait),
	KUNIT_CASE(unsetcallout_sync_returns_whether_pending),
	KUNIT_CASE(unsetcallout_sync_waits_for_running),
	KUNIT_CASE(unsetcallout_sync_running_rearmed_returns_pending),
	KUNIT_CASE(unsetcallout_sync_stops_self_rearming),
	KUNIT_CASE_SLOW(unsetcallout_sync_races_running_function),
	KUNIT_CASE_PARAM(unsetcallout_sync_atomic_context_returns_edeadlk,
			 atomic_gen_params),
	KUNIT_CASE(unsetcallout_sync_own_function_returns_edeadlk),
	KUNIT_CASE(callout_pending_follows_state),
	KUNIT_CASE(callout_init_returns_what_it_did),
	KUNIT_CASE(callout_init_lock_rejects_invalid),
	KUNIT_CASE_PARAM(callout_init_lock_rejects_unknown_flags,
			 bad_flags_gen_params),
	KUNIT_CASE(callout_init_lock_pending_returns_ebusy),
	KUNIT_CASE_PARAM(callout_init_lock_function_holds_lock,
			 lock_kind_gen_params),
	KUNIT_CASE_PARAM(unsetcallout_under_lock_after_tick_never_runs,
			 lock_kind_gen_params),
	KUNIT_CASE_PARAM(setcallout_under_lock_after_tick_rearms,
			 lock_kind_gen_params),
	KUNIT_CASE(unsetcallout_sync_under_lock_returns_edeadlk),
	KUNIT_CASE_PARAM(timeout_runs_after_ticks, ticks_gen_params),
	TWHEEL_CASE_PARAM_SLOW(timeout_runs_after_thousands_of_ticks,
			       slow_ticks_gen_params),
	KUNIT_CASE_PARAM(timeout_rejects_invalid, bad_timeout_gen_params),
	KUNIT_CASE_PARAM(timeout_far_ticks_stay_pending, far_gen_params),
	KUNIT_CASE(timeout_rearm_in_own_function),
	KUNIT_CASE(untimeout_returns_whether_cancelled),
	KUNIT_CASE(untimeout_matches_func_and_arg_pointers),
	KUNIT_CASE(untimeout_cancels_most_recent_duplicate),
	KUNIT_CASE_SLOW(untimeout_many_pairs),
	KUNIT_CASE_SLOW(untimeout_races_expiry),
	{}
};

static struct kunit_suite client_suite = {
	.name = "twheel_client",
	.init = client_init,
	.exit = client_exit,
	.test_cases = client_cases,
};

kunit_test_suite(client_suite);

MODULE_DESCRIPTION("KUnit: twheel's documented contract, seen by a client");
MODULE_LICENSE("GPL");
