// SPDX-License-Identifier: GPL-2.0
/*
 * client_timeout.c - suite twheel_client_timeout: timeout() and
 * untimeout() as a pair.  untimeout() returns whether it cancelled,
 * matches (func, arg) as pointers, and cancels the most recently armed of
 * equal pairs; it finds each of 100,000 distinct pairs once; timeout()
 * from its own function arms the next; untimeout() racing expiry on the
 * other CPU: each one runs or is cancelled, never both or neither.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "client.h"

#define NPAIRS		100000	/* distinct (func, arg) for untimeout() */
#define NRACES		3000	/* untimeout()s racing expiry */

/* A case's count_fn() arguments (client.own), which timeout_exit() frees. */
struct counts {
	atomic_t *v;		/* kvcalloc()ed */
	int n;
};

/*
 * @n counters for count_fn(), whose timeouts .exit cancels before freeing.
 * count_fn() is a static inline of ../wait.h: the one .exit cancels by is
 * this file's, the one the cases arm.
 */
static atomic_t *alloc_counts(struct kunit *test, int n)
{
	struct client *ctx = test->priv;
	struct counts *cn = kunit_kzalloc(test, sizeof(*cn), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cn);
	ctx->own = cn;
	cn->v = kvcalloc(n, sizeof(*cn->v), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cn->v);
	cn->n = n;
	return cn->v;
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
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, 4, LOST_NS),
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
	KUNIT_ASSERT_TRUE(test, wait_count(&p->runs, 1, LOST_NS));
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
 * The timeout()s run in hardirq context, where they have only that CPU's
 * free list under PREEMPT_RT: one that finds it empty returns -ENOMEM,
 * nothing armed, and then neither runs nor is cancelled.
 */
static void untimeout_races_expiry(struct kunit *test)
{
	struct client *ctx = test->priv;
	unsigned int i, cancelled = 0, ran = 0, refused = 0, both = 0;
	unsigned int neither = 0;
	struct remote_arm r;
	struct rnd_state rnd;
	atomic_t *fired;
	ktime_t end;
	u8 *hit, *armed;
	int f;

	need_two_cpus(test);
	fired = alloc_counts(test, NRACES);
	hit = kunit_kzalloc(test, NRACES, GFP_KERNEL);
	armed = kunit_kzalloc(test, NRACES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hit);
	KUNIT_ASSERT_NOT_NULL(test, armed);
	prandom_seed_state(&rnd, 13);
	for (i = 0; i < NRACES; i++) {
		r = (struct remote_arm){ .fn = count_fn, .arg = &fired[i],
					 .ticks = prandom_u32_state(&rnd) % 2 };
		KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
		if (r.ret)
			KUNIT_EXPECT_EQ_MSG(test, r.ret, -ENOMEM, "timeout %u", i);
		armed[i] = !r.ret;
		refused += !armed[i];
		spin_ns(prandom_u32_state(&rnd) % ticks_ns(3));
		hit[i] = untimeout(count_fn, &fired[i]);
		cancelled += hit[i];
	}
	end = ktime_add_ns(ktime_get(), LOST_NS);
	do {
		for (ran = 0, i = 0; i < NRACES; i++)
			ran += atomic_read(&fired[i]);
	} while (ran + cancelled + refused < NRACES &&
		 ktime_before(ktime_get(), end));
	spin_ns(ticks_ns(3));

	for (ran = 0, i = 0; i < NRACES; i++) {
		f = atomic_read(&fired[i]);
		ran += f;
		KUNIT_EXPECT_LE_MSG(test, f, 1, "timeout %u", i);
		if (!armed[i]) {
			KUNIT_EXPECT_EQ_MSG(test, f + hit[i], 0,
					    "timeout %u, refused", i);
			continue;
		}
		both += f && hit[i];
		if (f || hit[i])
			continue;
		/* Lost: the first few say if still pending, or gone. */
		if (neither++ < 5)
			kunit_info(test, "timeout %u neither ran nor was cancelled; untimeout() now: %d\n",
				   i, untimeout(count_fn, &fired[i]));
	}
	kunit_info(test, "%u cancelled, %u ran, %u refused (-ENOMEM)\n",
		   cancelled, ran, refused);
	KUNIT_EXPECT_EQ(test, both, 0U);
	KUNIT_EXPECT_EQ(test, neither, 0U);
	KUNIT_EXPECT_GT(test, cancelled, 0U);
	KUNIT_EXPECT_GT(test, ran, 0U);
}

/* Cancel the chains and the counters' timeouts, then what all cases share. */
static void timeout_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct counts *cn;
	int i, n;

	if (!ctx)
		return;
	cn = ctx->own;
	for (i = 0; i < NPROBES; i++)
		WRITE_ONCE(ctx->probe[i].rearm, 0);
	/* A chain_fn() under way (softirq: an RCU reader) sees the above. */
	synchronize_rcu();
	for (i = 0; i < NPROBES; i++) {
		do {
			n = untimeout(chain_fn, &ctx->probe[i]);
		} while (n > 0);
	}
	for (i = 0; cn && i < cn->n; i++) {
		do {
			n = untimeout(count_fn, &cn->v[i]);
		} while (n > 0);
	}
	/* After this a function already started has returned. */
	client_exit(test);
	if (cn)
		kvfree(cn->v);
}

static struct kunit_case timeout_cases[] = {
	KUNIT_CASE(timeout_rearm_in_own_function),
	KUNIT_CASE(untimeout_returns_whether_cancelled),
	KUNIT_CASE(untimeout_matches_func_and_arg_pointers),
	KUNIT_CASE(untimeout_cancels_most_recent_duplicate),
	KUNIT_CASE_SLOW(untimeout_many_pairs),
	KUNIT_CASE_SLOW(untimeout_races_expiry),
	{}
};

CLIENT_SUITE(timeout, timeout_cases, client_init, timeout_exit);
