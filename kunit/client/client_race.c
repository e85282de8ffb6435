// SPDX-License-Identifier: GPL-2.0
/*
 * client_race.c - suite twheel_client_race: both CPUs at once, thousands
 * of times.  setcallout() and unsetcallout() of one handle from each CPU:
 * every arming of an idle handle ends in exactly one run or one
 * unsetcallout() that returned 1; unsetcallout_sync() against a function
 * that re-arms itself on the other CPU returns only once it has finished.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "client.h"

#define NSYNCS		1000	/* unsetcallout_sync()s racing a run */

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

/* The suite's own state (client.own), which race_exit() ends. */
struct race {
	struct tug tug;
	struct slow slow;
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
	struct tug *t = &((struct race *)ctx->own)->tug;
	struct task_struct *k;

	need_two_cpus(test);
	t->rounds = 20000;
	t->until = ktime_add_ns(ktime_get(), ticks_ns(200));
	t->deadline = ktime_add_ns(t->until, LOST_NS);
	t->seed = 7;
	k = kthread_run_on_cpu(tug_thread, t, ctx->cpu_b, "twheel_tug/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	t->started = true;
	tug_play(t, t->seed);
	KUNIT_ASSERT_TRUE(test, wait_count(&t->done, 1, LOST_NS));
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

/*
 * unsetcallout_sync() racing a function that re-arms itself on the other
 * CPU, 1000 times: it returns only once the function has finished, and
 * leaves the callout neither pending nor running.  Odd rounds call it at a
 * random moment, even rounds while the function is known to be running.
 */
static void unsetcallout_sync_races_running_function(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct slow *s = &((struct race *)ctx->own)->slow;
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
							   LOST_NS));
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

static void race_setup(void *own)
{
	struct race *r = own;

	callout_init(&r->tug.c);
	callout_init(&r->slow.c);
}

static int race_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct race), race_setup);
}

/* Stop the kthread's tug and the slow callout, then what all cases share. */
static void race_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct race *r = ctx ? ctx->own : NULL;

	if (r) {
		if (r->tug.started) {
			WRITE_ONCE(r->tug.deadline, 0);
			wait_count(&r->tug.done, 1, LOST_NS);
		}
		atomic_set(&r->slow.hold, 0);
		atomic_set(&r->slow.go, 1);
		/* A function under way (softirq: an RCU reader) sees the above. */
		synchronize_rcu();
		unsetcallout_sync(&r->tug.c);
		unsetcallout_sync(&r->slow.c);
	}
	client_exit(test);
}

static struct kunit_case race_cases[] = {
	KUNIT_CASE_SLOW(setcallout_unsetcallout_race),
	KUNIT_CASE_SLOW(unsetcallout_sync_races_running_function),
	{}
};

CLIENT_SUITE(race, race_cases, race_init, race_exit);
