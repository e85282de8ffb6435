// SPDX-License-Identifier: GPL-2.0
/*
 * client_burst.c - suite twheel_client_burst: 100,000 callouts due on one
 * tick, while a pinned hard hrtimer (../watch.h) measures how long their
 * CPU keeps interrupts off: all run, none early, and no stretch is long.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "client.h"
#include "../watch.h"		/* test scaffolding, no twheel call */

#define NBURST		100000	/* callouts due on one tick */
#define BURST_AHEAD_NS	(4ULL * NSEC_PER_SEC)	/* how far ahead that tick is */
#define QUIET_NS	(500ULL * NSEC_PER_MSEC) /* the watch alone, first */
#define NCALIBRATE	4000	/* callouts whose arming is timed first */
#define LEAD_NS		(2ULL * NSEC_PER_SEC)	/* the tick, after arming */

/* One of the burst case's callouts, due on one tick with all the others. */
struct burst {
	struct callout c;
	u64 not_before;		/* ns: it may only start after this */
	int runs;
};

/* What the burst's functions saw, over all of them. */
static atomic_t burst_ran, burst_early;

/* The suite's own state (client.own), which burst_exit() ends. */
struct burst_run {
	struct burst *burst;	/* kvcalloc()ed, see alloc_burst() */
	int nburst;
	struct watch watch;	/* on cpu_a, where the burst is armed */
	struct watch control;	/* on cpu_b, where nothing is */
};

/* @n initialised burst callouts, which .exit cancels and frees. */
static struct burst *alloc_burst(struct kunit *test, int n)
{
	struct burst_run *br = ((struct client *)test->priv)->own;
	int i;

	br->burst = kvcalloc(n, sizeof(*br->burst), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, br->burst);
	for (i = 0; i < n; i++)
		callout_init(&br->burst[i].c);
	br->nburst = n;
	return br->burst;
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
 * 100,000 callouts armed on one CPU, all due on one tick 4 s ahead (more
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
	struct burst_run *br = ctx->own;
	u64 tick = twheel_tick_ns(), due, cur, now, armed, batch_ns, bound, end;
	u64 guess, ahead, armed_end;
	s64 quiet, worst, control;
	unsigned long ticks;
	int i;

	atomic_set(&burst_ran, 0);
	atomic_set(&burst_early, 0);

	/* The watch alone first: what this machine does with nothing due. */
	watch_start(&br->watch);
	spin_ns(QUIET_NS);
	quiet = watch_stop(&br->watch);

	/*
	 * How long arming all takes here, from the first few (armed far off
	 * for now), so that the tick comes after arming with room to spare
	 * (twice the guess: a shared host's speed varies): the watch must
	 * see all twheel does with them.
	 */
	watch_start(&br->watch);
	if (ctx->cpu_b >= 0)
		smp_call_function_single(ctx->cpu_b, watch_start_here,
					 &br->control, 1);
	armed = ktime_get_ns();
	for (i = 0; i < NCALIBRATE; i++)
		KUNIT_ASSERT_EQ(test, setcallout(&b[i].c, burst_fn, &b[i],
						 far_ticks()), 0);
	guess = (ktime_get_ns() - armed) * (NBURST / NCALIBRATE);
	ahead = max(BURST_AHEAD_NS, 2 * guess + LEAD_NS);

	/*
	 * Arm each for the tick @due, which begins at @due * tick ns
	 * (docs/api.md, "Timing"): n whole ticks from a call made in tick cur end at the
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
	 * Running a callout costs about what arming one did: 100,000 on one
	 * tick overload the CPU for as long, which the wait allows for.
	 */
	end = due * tick + LOST_NS + 2 * armed;
	now = ktime_get_ns();
	wait_count(&burst_ran, NBURST, end > now ? end - now : 0);
	spin_ns(quiet_ns(0));	/* for a second run, were there one */
	worst = watch_stop(&br->watch);
	control = watch_stop(&br->control);

	/*
	 * The bound (watch_bound()).  twheel's tick moves or runs at most
	 * WATCH_BATCH entries with interrupts off before it lets them in,
	 * and moving or expiring an entry costs no more than arming one with
	 * setcallout() (a lock round trip, a list insertion and a bitmap
	 * update).  The quiet allowance is the longer of the watch alone
	 * before and the watch on the other CPU, where nothing is armed.
	 * The old cascade moved all of them in one stretch: 100,000 are some
	 * 390 batches, where the bound allows 16 and the quiet allowances.
	 */
	bound = watch_bound(batch_ns, max(quiet, control));
	kunit_info(test, "armed %d in %llu ns (%d: %llu ns), the tick %lld ns later\n",
		   NBURST, armed, WATCH_BATCH, batch_ns,
		   (s64)(due * tick - armed_end));
	kunit_info(test, "longest delay of the watch: %lld ns alone, %lld ns on the other CPU, %lld ns in %llu fires with the burst (%lld ns after the tick); bound %llu ns\n",
		   quiet, control, worst, br->watch.fires,
		   ktime_to_ns(br->watch.worst_at) - (s64)(due * tick),
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

static void burst_setup(void *own)
{
	struct burst_run *br = own;

	watch_init(&br->watch);
	watch_init(&br->control);
}

static int burst_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct burst_run), burst_setup);
}

/* Stop the watches, cancel and free the burst, then what all cases share. */
static void burst_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct burst_run *br = ctx ? ctx->own : NULL;
	int i;

	if (br) {
		watch_stop(&br->watch);
		watch_stop(&br->control);
		for (i = 0; i < br->nburst; i++)
			unsetcallout_sync(&br->burst[i].c);
	}
	client_exit(test);
	if (br)
		kvfree(br->burst);
}

static struct kunit_case burst_cases[] = {
	KUNIT_CASE_SLOW(setcallout_burst_on_one_tick_bounds_irqs_off),
	{}
};

CLIENT_SUITE(burst, burst_cases, burst_init, burst_exit);
