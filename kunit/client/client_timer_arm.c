// SPDX-License-Identifier: GPL-2.0
/*
 * client_timer_arm.c - suite twheel_client_timer_arm: what the arming
 * calls of <twheel_timer.h> promise a converted driver besides their
 * deadlines (suite twheel_client_timer checks those).
 *
 * ->expires names the arming the timer has, even when two CPUs call
 * twheel_mod_timer() on it at once with different expiries, as code that
 * compares ->expires before re-arming assumes.  twheel_add_timer_on() from
 * the timer's own function moves the next run to the CPU named, so that a
 * timer can walk the CPUs (as the clocksource watchdog does).  And the
 * function runs only once jiffies has reached ->expires, as with
 * timer_list, even while the jiffies tick is held up: the other CPUs are
 * held with interrupts off meanwhile, one of them the CPU that counts
 * jiffies, unless the timer's own is.
 *
 * Of twheel's headers: client.h's <twheel.h>, and <twheel_timer.h>.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/smp.h>

#include "client.h"
#include <twheel_timer.h>

#define RACE_ROUNDS	3000	/* rounds of both CPUs arming at once */
#define NROT		16	/* runs of the timer that walks the CPUs */
#define HOLD_JIFFIES	6	/* how long the other CPUs are held */

/*
 * One timer armed from both CPUs at once, the case thread with e[0] and
 * a kthread on the other CPU with e[1], one call each a round, the case
 * thread starting a little later each round, 0 to 63 spins, so that the
 * calls overlap in every way.
 */
struct race {
	struct twheel_timer timer;
	unsigned long e[2];
	atomic_t round;		/* the round the case has begun */
	atomic_t finished;	/* the last round the kthread finished */
	atomic_t stop;
	atomic_t done;		/* the kthread has returned */
	bool started;
};

/* A timer that re-arms itself on the next online CPU, NROT times. */
struct rotor {
	struct twheel_timer timer;
	atomic_t runs;
	int cpu[NROT];		/* where each run ran */
	int want[NROT];		/* where the run before put it */
};

/* A timer whose function notes jiffies against ->expires. */
struct jtimer {
	struct twheel_timer timer;
	atomic_t runs;
	unsigned long seen;	/* jiffies in its last run */
	unsigned long expires;	/* ->expires then */
	ktime_t until;		/* the other CPUs are held until then */
};

/* The suite's state, client.own. */
struct tarm {
	struct race race;
	struct rotor rot;
	struct jtimer jt;
};

static struct tarm *ta_own(struct kunit *test)
{
	return ((struct client *)test->priv)->own;
}

static void race_fn(struct twheel_timer *t)
{
}

/* Spin until @r's round reaches @n, or it stops; false if it stopped. */
static bool race_wait(struct race *r, int n)
{
	ktime_t end = ktime_add_ns(ktime_get(), LOST_NS);
	unsigned int i;

	for (i = 0; atomic_read_acquire(&r->round) < n; i++) {
		if (!(i % 1024) && (atomic_read(&r->stop) ||
				    !ktime_before(ktime_get(), end)))
			return false;
		cpu_relax();
	}
	return true;
}

static int race_thread(void *arg)
{
	struct race *r = arg;
	int n;

	for (n = 1; n <= RACE_ROUNDS && race_wait(r, n); n++) {
		twheel_mod_timer(&r->timer, READ_ONCE(r->e[1]));
		atomic_set_release(&r->finished, n);
	}
	atomic_set_release(&r->done, 1);
	return 0;
}

/*
 * How far the pending timer's deadline lies from the one its ->expires
 * gives, in ns: an arming for E made at jiffies j and time t is due at
 * t + (E - j) jiffies, so now + (E - jiffies) jiffies within a jiffy.
 */
static s64 expires_off(struct twheel_timer *t)
{
	unsigned long flags;
	s64 want, got;

	local_irq_save(flags);
	want = (long)(READ_ONCE(t->expires) - jiffies) * (s64)TICK_NSEC;
	got = ktime_to_ns(ktime_sub(callout_when(&t->c), ktime_get()));
	local_irq_restore(flags);
	return got - want;
}

/*
 * Two CPUs call twheel_mod_timer() on one timer at once, one with E1, the
 * other with E2, five seconds later: after each round, the timer is armed
 * for the ->expires it holds, never for one expiry while ->expires names
 * the other.  Its deadline lies within a jiffy of what ->expires gives,
 * give or take how late the jiffies tick is, which on a loaded emulator
 * is several jiffies: a round counts as wrong past half the five seconds,
 * and the largest offset of the others is reported.
 */
static void twheel_mod_timer_racing_keeps_expires(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct race *r = &ta_own(test)->race;
	struct task_struct *k;
	s64 off, worst = 0, good = 0, limit = 5 * HZ / 2 * (s64)TICK_NSEC;
	int n, i, bad = 0;

	need_two_cpus(test);
	k = kthread_run_on_cpu(race_thread, r, ctx->cpu_b, "twheel_race/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	r->started = true;
	for (n = 1; n <= RACE_ROUNDS; n++) {
		WRITE_ONCE(r->e[0], jiffies + 10 * HZ);
		WRITE_ONCE(r->e[1], r->e[0] + 5 * HZ);
		atomic_set_release(&r->round, n);
		for (i = 0; i < n % 64; i++)
			cpu_relax();
		twheel_mod_timer(&r->timer, r->e[0]);
		KUNIT_ASSERT_TRUE(test, poll_until(atomic_read_acquire(&r->finished) >= n));
		KUNIT_ASSERT_TRUE(test, twheel_timer_pending(&r->timer));
		off = abs(expires_off(&r->timer));
		if (off > limit) {
			bad++;
			worst = max(worst, off);
		} else {
			good = max(good, off);
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0,
			    "%d of %d rounds left the timer armed %lld ns from what ->expires names",
			    bad, RACE_ROUNDS, worst);
	kunit_info(test, "the other rounds: deadlines at most %lld ns from ->expires\n",
		   good);
}

static int next_online(int cpu)
{
	int next = cpumask_next(cpu, cpu_online_mask);

	return next < nr_cpu_ids ? next : cpumask_first(cpu_online_mask);
}

static void rotor_fn(struct twheel_timer *t)
{
	struct rotor *rot = twheel_from_timer(rot, t, timer);
	int i = atomic_read(&rot->runs), cpu = smp_processor_id();

	rot->cpu[i] = cpu;
	if (i + 1 < NROT) {
		rot->want[i + 1] = next_online(cpu);
		t->expires = jiffies + 1;
		twheel_add_timer_on(t, rot->want[i + 1]);
	}
	atomic_inc_return_release(&rot->runs);
}

/*
 * A timer's function re-arms it with twheel_add_timer_on() for the next
 * online CPU: each run is on the CPU the run before named, so the timer
 * walks round the CPUs.
 */
static void twheel_add_timer_on_own_function_moves(struct kunit *test)
{
	struct rotor *rot = &ta_own(test)->rot;
	struct client *ctx = test->priv;
	int i, moved = 0;

	need_two_cpus(test);
	rot->want[0] = ctx->cpu_b;
	rot->timer.expires = jiffies + 1;
	twheel_add_timer_on(&rot->timer, ctx->cpu_b);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&rot->runs, NROT, LOST_NS),
			      "ran %d of %d times", atomic_read(&rot->runs),
			      NROT);
	for (i = 0; i < NROT; i++) {
		KUNIT_EXPECT_EQ_MSG(test, rot->cpu[i], rot->want[i],
				    "run %d: on CPU %d, armed for CPU %d", i,
				    rot->cpu[i], rot->want[i]);
		moved += i && rot->cpu[i] != rot->cpu[i - 1];
	}
	KUNIT_EXPECT_EQ(test, moved, NROT - 1);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&rot->timer));
}

static void jt_fn(struct twheel_timer *t)
{
	struct jtimer *jt = twheel_from_timer(jt, t, timer);

	jt->seen = jiffies;
	jt->expires = t->expires;
	atomic_inc_return_release(&jt->runs);
}

/* An IPI's handler: hold this CPU, interrupts off, until @arg's time. */
static void hold_irqs_off(void *arg)
{
	ktime_t until = *(ktime_t *)arg;

	while (ktime_before(ktime_get(), until))
		cpu_relax();
}

/*
 * On each online CPU in turn, a timer armed for jiffies + 1 and + 2 while
 * the other CPUs are held with interrupts off for HOLD_JIFFIES: on every
 * CPU but the one that counts jiffies, jiffies then stops while the
 * timer's deadline passes.  Its function still finds jiffies at or past
 * ->expires, each time.
 */
static void twheel_timer_runs_once_jiffies_reach_expires(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct jtimer *jt = &ta_own(test)->jt;
	int cpu, ahead, runs = 0, early = 0;
	struct cpumask others;

	need_two_cpus(test);
	for_each_online_cpu(cpu) {
		KUNIT_ASSERT_EQ(test, pin(cpu), 0);
		for (ahead = 1; ahead <= 2; ahead++) {
			cpumask_andnot(&others, cpu_online_mask,
				       cpumask_of(cpu));
			jt->until = ktime_add_ns(ktime_get(),
						 HOLD_JIFFIES * TICK_NSEC);
			preempt_disable();
			smp_call_function_many(&others, hold_irqs_off,
					       &jt->until, false);
			preempt_enable();
			KUNIT_EXPECT_EQ(test, twheel_mod_timer(&jt->timer,
							       jiffies + ahead),
					0);
			runs++;
			KUNIT_ASSERT_TRUE(test, wait_count(&jt->runs, runs,
							   LOST_NS));
			if (time_before(jt->seen, jt->expires)) {
				early++;
				kunit_info(test, "CPU %d: ran at jiffies %lu, ->expires %lu\n",
					   cpu, jt->seen, jt->expires);
			}
			/* The others are back before the next round. */
			while (ktime_before(ktime_get(), jt->until))
				cpu_relax();
			spin_ns(TICK_NSEC);
		}
	}
	KUNIT_ASSERT_EQ(test, pin(ctx->cpu_a), 0);
	KUNIT_EXPECT_EQ_MSG(test, early, 0,
			    "%d of %d runs came before jiffies reached ->expires",
			    early, runs);
}

static void tarm_setup(void *own)
{
	struct tarm *ta = own;

	twheel_timer_setup(&ta->race.timer, race_fn, 0);
	twheel_timer_setup(&ta->rot.timer, rotor_fn, 0);
	twheel_timer_setup(&ta->jt.timer, jt_fn, 0);
}

static int tarm_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct tarm), tarm_setup);
}

static void tarm_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tarm *ta = ctx ? ctx->own : NULL;

	if (ta) {
		if (ta->race.started) {
			atomic_set(&ta->race.stop, 1);
			wait_count(&ta->race.done, 1, LOST_NS);
		}
		twheel_timer_shutdown_sync(&ta->race.timer);
		twheel_timer_shutdown_sync(&ta->rot.timer);
		twheel_timer_shutdown_sync(&ta->jt.timer);
		/* The other CPUs are not held any more. */
		while (ktime_before(ktime_get(), ta->jt.until))
			cpu_relax();
	}
	client_exit(test);
}

static struct kunit_case tarm_cases[] = {
	KUNIT_CASE_SLOW(twheel_mod_timer_racing_keeps_expires),
	KUNIT_CASE(twheel_add_timer_on_own_function_moves),
	KUNIT_CASE(twheel_timer_runs_once_jiffies_reach_expires),
	{}
};

CLIENT_SUITE(timer_arm, tarm_cases, tarm_init, tarm_exit);
