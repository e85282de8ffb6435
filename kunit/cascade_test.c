// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the work a wheel does per tick: Scheme 7's cascade, spread
 * over the ticks before a slot's window, and twheel_advance_batch().
 *
 * Every case drives the clock by hand and counts the entries moved on each
 * tick (migrations and early visits, from the wheel's own counters), and
 * checks every expiry as it happens: on its due tick exactly, after the one
 * before it (by tick, and within a tick by arming order), and counted.
 *
 * The bound on the moves of one tick is what the drain promises (see
 * twheel_core.c's DOC: block): each level k >= 1 moves its next slot down
 * over the g[k] - g[k-1] ticks before that slot must be on the level below,
 * so a slot of N entries costs ceil(N / (g[k] - g[k-1])) a tick, or
 * %TWHEEL_DRAIN_MIN when that is more.  With N_k the most entries sharing
 * one slot of level k (one slot digit at the hashed top level), a tick moves
 * at most
 *
 *	B = sum over k >= 1 of max(TWHEEL_DRAIN_MIN,
 *				   ceil(N_k / (g[k] - g[k-1])))
 *
 * which a case computes from the due ticks it chose.  The expiries of a
 * tick are not moves, and are not bounded here: a tick runs all that are
 * due on it.
 *
 * Moves are counted one tick at a time by advancing to twheel_next_work()
 * (or the next tick), which processes exactly one tick with work, and
 * taking the difference of the counters; a single long twheel_advance() is
 * judged by &twheel_stats.moved_max.
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "twheel_compat.h"
#include "twheel_core.h"

#define CT_MILLION	1000000
#define CT_LOAD		100000	/* entries of the re-arm load and the stall */

/* The default geometry, on which the cases count. */
static const struct twheel_geometry ct_default_geo =
	TWHEEL_GEOMETRY7(3, 256, 256, 256);

/* A timer of the tests. */
struct ct_entry {
	struct twheel_entry e;
	u64 due;	/* the tick it was last armed for */
	u64 seq;	/* when it was last armed: the order within a tick */
	u32 fired;	/* expiries seen */
};

/*
 * The first expiry that broke a rule, kept for the message: checks made
 * during an advance must not abort the case with the wheel in mid-tick.
 */
struct ct_fault {
	const char *what;
	u32 id;
	u64 tick;
	u64 due;
	u64 seq;
	u64 last_tick;
	u64 last_seq;
};

/* One case's wheel, entries and the expiries seen; test->priv. */
struct ct {
	struct kunit *test;
	struct twheel w;
	bool live;		/* @w is initialised */
	struct ct_entry *ent;	/* kvmalloc_array()ed */
	unsigned int nent;
	u64 seq;		/* arming sequence, from 1 */

	/* The expiries seen. */
	u64 fired;
	u64 last_tick, last_seq;	/* of the latest expiry */
	u64 faults;
	struct ct_fault fault;

	/* The re-arm load: expiry re-arms the entry 2..300 ticks on. */
	bool rearm;
	struct rnd_state rnd;

	/* The expiry order of a reference run, written or compared. */
	u32 *order;		/* kvmalloc_array()ed, @nent ids */
	bool compare;		/* compare with @order, else record it */
};

static u32 ct_id(const struct ct *t, const struct ct_entry *x)
{
	return x - t->ent;
}

static u64 ct_moves(const struct twheel *w)
{
	return w->stats.migrated + w->stats.early_visits;
}

static void ct_fault(struct ct *t, const struct ct_entry *x, const char *what)
{
	if (!t->faults++)
		t->fault = (struct ct_fault){
			.what = what, .id = ct_id(t, x), .tick = t->w.now,
			.due = x->due, .seq = x->seq,
			.last_tick = t->last_tick, .last_seq = t->last_seq,
		};
}

/* No expiry has broken a rule so far. */
static void ct_assert_clean(struct ct *t)
{
	const struct ct_fault *f = &t->fault;

	KUNIT_ASSERT_EQ_MSG(t->test, t->faults, 0ULL,
			    "entry %u %s: tick %llu, due %llu, armed #%llu; the expiry before: tick %llu, armed #%llu",
			    f->id, f->what, f->tick, f->due, f->seq,
			    f->last_tick, f->last_seq);
}

/* Arm @x @interval ticks from the wheel's clock. */
static int ct_arm(struct ct *t, struct ct_entry *x, u64 interval)
{
	x->due = t->w.now + interval;
	x->seq = ++t->seq;
	return twheel_add(&t->w, &x->e, interval);
}

static u64 ct_rand(struct ct *t, u64 n)
{
	return prandom_u32_state(&t->rnd) % n;
}

/* The re-arm load's interval: 2..300 ticks. */
static u64 ct_load_interval(struct ct *t)
{
	return 2 + ct_rand(t, 299);
}

/*
 * The expiry function: on the due tick, after the previous expiry, in the
 * reference run's order when there is one; re-armed for the load.
 */
static void ct_expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct ct_entry *x = container_of(e, struct ct_entry, e);
	struct ct *t = ctx;

	if (w->now != x->due)
		ct_fault(t, x, "expired off its tick");
	else if (w->now < t->last_tick ||
		 (w->now == t->last_tick && x->seq <= t->last_seq))
		ct_fault(t, x, "expired out of order");
	if (t->order && t->fired < t->nent) {
		if (!t->compare)
			t->order[t->fired] = ct_id(t, x);
		else if (t->order[t->fired] != ct_id(t, x))
			ct_fault(t, x, "expired out of the reference's order");
	} else if (t->order) {
		ct_fault(t, x, "expired once too often");
	}
	t->last_tick = w->now;
	t->last_seq = x->seq;
	t->fired++;
	x->fired++;
	if (t->rearm && ct_arm(t, x, ct_load_interval(t)) < 0)
		ct_fault(t, x, "re-arm refused");
}

/* An empty wheel of @geo at tick @now, after any the case had before. */
static void ct_wheel(struct ct *t, const struct twheel_geometry *geo, u64 now)
{
	struct twheel_entry *e;

	if (t->live) {
		while ((e = twheel_first(&t->w)))
			twheel_del(&t->w, e);
		twheel_destroy(&t->w);
		t->live = false;
	}
	KUNIT_ASSERT_EQ(t->test, twheel_init(&t->w, geo, now), 0);
	t->live = true;
	t->fired = 0;
	t->last_tick = 0;
	t->last_seq = 0;
}

/* @n idle entries, which .exit frees. */
static void ct_entries(struct ct *t, unsigned int n)
{
	unsigned int i;

	t->ent = kvmalloc_array(n, sizeof(*t->ent), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t->test, t->ent);
	t->nent = n;
	for (i = 0; i < n; i++) {
		twheel_entry_init(&t->ent[i].e);
		t->ent[i].fired = 0;
	}
}

/*
 * Advance by one tick with work at most, up to @to: the moves it made.
 * twheel_next_work() is the next tick that touches a slot, so advancing
 * there processes that one tick and skips those before it.
 */
static u64 ct_step(struct ct *t, u64 to)
{
	u64 before = ct_moves(&t->w);

	twheel_advance(&t->w, min(to, twheel_next_work(&t->w)), ct_expire, t);
	return ct_moves(&t->w) - before;
}

/*
 * Advance to @to a tick with work at a time, asserting the moves of each
 * tick are at most @bound and every expiry is right; return the most moves
 * of a tick.
 */
static u64 ct_run(struct ct *t, u64 to, u64 bound)
{
	u64 moves, most = 0;

	while (t->w.now < to) {
		moves = ct_step(t, to);
		KUNIT_ASSERT_LE_MSG(t->test, moves, bound,
				    "tick %llu moved %llu entries, bound %llu",
				    t->w.now, moves, bound);
		most = max(most, moves);
		ct_assert_clean(t);
		cond_resched();
	}
	return most;
}

/* Stop every pending entry: each stop must find one, and none be left. */
static void ct_stop_all(struct ct *t, u64 pending)
{
	u64 stopped = 0;
	unsigned int i;

	for (i = 0; i < t->nent; i++)
		stopped += twheel_del(&t->w, &t->ent[i].e);
	KUNIT_EXPECT_EQ(t->test, stopped, pending);
	KUNIT_EXPECT_EQ(t->test, t->w.count, 0UL);
	KUNIT_EXPECT_NULL(t->test, twheel_first(&t->w));
}

/*
 * The most entries due in one slot of level @n: one prefix of the clock's
 * digits below the top level, one slot digit at the (hashed) top level.
 */
static u64 ct_slot_most(struct ct *t, unsigned int n)
{
	const struct twheel *w = &t->w;
	bool top = n == w->geo.levels - 1;
	u64 lo = U64_MAX, hi = 0, most = 0, q, span;
	unsigned int i;
	u32 *count, digit;

	for (i = 0; i < t->nent; i++) {
		lo = min(lo, t->ent[i].due);
		hi = max(hi, t->ent[i].due);
	}
	lo = div64_u64(lo, w->gran[n]);
	span = top ? w->geo.slots[n] : div64_u64(hi, w->gran[n]) - lo + 1;
	count = kvcalloc(span, sizeof(*count), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(t->test, count);
	for (i = 0; i < t->nent; i++) {
		q = div64_u64(t->ent[i].due, w->gran[n]);
		if (top)
			div_u64_rem(q, w->geo.slots[n], &digit);
		else
			digit = q - lo;
		count[digit]++;
		most = max_t(u64, most, count[digit]);
	}
	kvfree(count);
	return most;
}

/* B, the most moves a tick may make for the due ticks of the entries. */
static u64 ct_bound(struct ct *t)
{
	const struct twheel *w = &t->w;
	u64 bound = 0, most, ticks;
	unsigned int n;

	for (n = 1; n < w->geo.levels; n++) {
		most = ct_slot_most(t, n);
		ticks = w->gran[n] - w->gran[n - 1];
		bound += max_t(u64, TWHEEL_DRAIN_MIN,
			       div64_u64(most + ticks - 1, ticks));
		kunit_info(t->test, "level %u: at most %llu entries a slot, drained over %llu ticks\n",
			   n, most, ticks);
	}
	kunit_info(t->test, "bound: %llu moves a tick\n", bound);
	return bound;
}

/*
 * The benchmark's lateness load, by hand: 10^5 entries, each re-armed from
 * its own expiry 2..300 ticks on, advanced one tick at a time.  After a
 * warm-up of a few level-1 slots, the most entries moved on one tick is at
 * most twice the mean per tick (the target; the old cascade moved
 * a whole level-1 slot, ~97,000 entries, on every 256th tick).
 */
#define LOAD_WARMUP	512	/* ticks, two level-1 slots */
#define LOAD_TICKS	5120	/* ticks measured, twenty level-1 slots */

static void twheel_advance_rearm_load(struct kunit *test)
{
	struct ct *t = test->priv;
	struct twheel *w = &t->w;
	u64 moves, most = 0, total = 0, fired;
	unsigned int i;

	ct_entries(t, CT_LOAD);
	ct_wheel(t, &ct_default_geo, 1000003);
	prandom_seed_state(&t->rnd, 0x5eed0001);
	t->rearm = true;
	for (i = 0; i < CT_LOAD; i++)
		KUNIT_ASSERT_EQ(test, ct_arm(t, &t->ent[i],
					     ct_load_interval(t)), 0);

	for (i = 0; i < LOAD_WARMUP; i++) {
		twheel_advance(w, w->now + 1, ct_expire, t);
		ct_assert_clean(t);
	}
	memset(&w->stats, 0, sizeof(w->stats));	/* moved_max too */
	fired = t->fired;
	for (i = 0; i < LOAD_TICKS; i++) {
		moves = ct_moves(w);
		twheel_advance(w, w->now + 1, ct_expire, t);
		moves = ct_moves(w) - moves;
		most = max(most, moves);
		total += moves;
		ct_assert_clean(t);
		if (!(i % 256))
			cond_resched();
	}
	kunit_info(test, "%u ticks: %llu expiries, %llu moves, mean %llu.%02llu a tick, most %llu\n",
		   LOAD_TICKS, t->fired - fired, total, total / LOAD_TICKS,
		   total * 100 / LOAD_TICKS % 100, most);
	KUNIT_EXPECT_EQ(test, w->stats.expired, t->fired - fired);
	KUNIT_EXPECT_EQ(test, w->count, (unsigned long)CT_LOAD);
	KUNIT_EXPECT_EQ_MSG(test, w->stats.moved_max, most,
			    "moved_max is not the most moves of a tick");
	/* most <= 2 * total / LOAD_TICKS, without rounding */
	KUNIT_EXPECT_LE_MSG(test, most * LOAD_TICKS, 2 * total,
			    "most moves on a tick (%llu) above twice the mean (%llu / %u ticks)",
			    most, total, LOAD_TICKS);
	for (i = 0; i < CT_LOAD; i++)
		KUNIT_ASSERT_GT_MSG(test, t->ent[i].fired, 0U,
				    "entry %u never expired", i);
	t->rearm = false;
	ct_stop_all(t, CT_LOAD);
}

/*
 * 10^6 entries armed over the 256 ticks of one level-1 slot, all for the
 * same far interval (beyond level 1's reach, so they start at the top
 * level), run to the end: each tick moves at most B, and all expire on
 * their ticks, in order.  The old cascade moved them all on one tick at
 * each level boundary.
 */
#define SAME_INTERVAL	200000

static void twheel_advance_same_far_interval(struct kunit *test)
{
	struct ct *t = test->priv;
	struct twheel *w = &t->w;
	u64 start = 7 * 65536 + 3 * 256, bound, most, end = 0;
	unsigned int i, tick;

	ct_entries(t, CT_MILLION);
	for (i = 0; i < CT_MILLION; i++) {
		/* The dues the arming below gives, for the bound. */
		t->ent[i].due = start + (u64)i * 256 / CT_MILLION +
				SAME_INTERVAL;
		end = max(end, t->ent[i].due);
	}
	ct_wheel(t, &ct_default_geo, start);
	bound = ct_bound(t);

	for (most = 0, tick = 0, i = 0; tick < 256; tick++) {
		for (; i < CT_MILLION && (u64)i * 256 / CT_MILLION == tick; i++)
			KUNIT_ASSERT_EQ(test, ct_arm(t, &t->ent[i],
						     SAME_INTERVAL), 0);
		KUNIT_ASSERT_EQ(test, w->now, start + tick);
		most = max(most, ct_run(t, w->now + 1, bound));
	}
	KUNIT_ASSERT_EQ(test, w->count, (unsigned long)CT_MILLION);
	memset(&w->stats, 0, sizeof(w->stats));	/* moved_max too */

	most = max(most, ct_run(t, end, bound));
	kunit_info(test, "%llu expiries by tick %llu; most moves on a tick %llu, migrated %llu, early visits %llu\n",
		   t->fired, w->now, most, w->stats.migrated,
		   w->stats.early_visits);
	KUNIT_EXPECT_EQ(test, t->fired, (u64)CT_MILLION);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	KUNIT_EXPECT_LE(test, w->stats.moved_max, bound);
	for (i = 0; i < CT_MILLION; i++)
		KUNIT_ASSERT_EQ_MSG(test, t->ent[i].fired, 1U, "entry %u", i);
}

/*
 * 10^6 entries of 1 to 60 minutes at a 1 ms tick, armed at once in the
 * middle of a level-2 slot, run past two level-2 slot starts: each tick
 * moves at most B, all that come due in the run expire on their ticks, in
 * order; the rest are still pending, and are stopped.
 */
#define MINUTE		60000ULL	/* ticks of 1 ms */

static void twheel_advance_minutes_cross_level2(struct kunit *test)
{
	struct ct *t = test->priv;
	struct twheel *w = &t->w;
	u64 start = 5 * 65536 + 40000, end, bound, most, due = 0;
	unsigned int i;

	ct_entries(t, CT_MILLION);
	ct_wheel(t, &ct_default_geo, start);
	prandom_seed_state(&t->rnd, 0x5eed0003);
	for (i = 0; i < CT_MILLION; i++) {
		KUNIT_ASSERT_EQ(test, ct_arm(t, &t->ent[i], MINUTE +
					     ct_rand(t, 59 * MINUTE + 1)), 0);
		if (!(i % 4096))
			cond_resched();
	}
	bound = ct_bound(t);
	/* Past the second level-2 slot start, and its level-1 drain. */
	end = round_up(start + 1, 65536) + 65536 + 1024;
	for (i = 0; i < CT_MILLION; i++)
		due += t->ent[i].due <= end;

	most = ct_run(t, end, bound);
	kunit_info(test, "%llu expiries by tick %llu; most moves on a tick %llu, migrated %llu, early visits %llu\n",
		   t->fired, w->now, most, w->stats.migrated,
		   w->stats.early_visits);
	KUNIT_EXPECT_GT(test, due, 0ULL);
	KUNIT_EXPECT_EQ(test, t->fired, due);
	KUNIT_EXPECT_EQ(test, w->stats.expired, due);
	KUNIT_EXPECT_LE(test, w->stats.moved_max, bound);
	for (i = 0; i < CT_MILLION; i++)
		KUNIT_ASSERT_EQ_MSG(test, t->ent[i].fired,
				    t->ent[i].due <= end ? 1U : 0U,
				    "entry %u due on tick %llu",
				    i, t->ent[i].due);
	ct_stop_all(t, CT_MILLION - due);
}

/*
 * A stall: 10^5 entries at 1..300000 ticks, then one twheel_advance() over
 * 10^5 ticks, as the tick does after the hrtimer was held off.  Each tick
 * within it moves at most B (moved_max), and each entry due in the stall
 * expires with the clock on its tick, in order.
 */
#define STALL_TICKS	100000

static void twheel_advance_stall(struct kunit *test)
{
	struct ct *t = test->priv;
	struct twheel *w = &t->w;
	u64 start = 3 * 65536 + 1000, bound, due = 0;
	unsigned int i;

	ct_entries(t, CT_LOAD);
	ct_wheel(t, &ct_default_geo, start);
	prandom_seed_state(&t->rnd, 0x5eed0004);
	for (i = 0; i < CT_LOAD; i++) {
		KUNIT_ASSERT_EQ(test, ct_arm(t, &t->ent[i],
					     1 + ct_rand(t, 300000)), 0);
		due += t->ent[i].due <= start + STALL_TICKS;
	}
	bound = ct_bound(t);
	memset(&w->stats, 0, sizeof(w->stats));	/* moved_max too */

	twheel_advance(w, start + STALL_TICKS, ct_expire, t);
	ct_assert_clean(t);
	kunit_info(test, "%llu expiries; most moves on a tick %llu, migrated %llu, early visits %llu\n",
		   t->fired, w->stats.moved_max, w->stats.migrated,
		   w->stats.early_visits);
	KUNIT_EXPECT_EQ(test, w->now, start + STALL_TICKS);
	KUNIT_EXPECT_LE(test, w->stats.moved_max, bound);
	KUNIT_EXPECT_EQ(test, t->fired, due);
	KUNIT_EXPECT_EQ(test, w->stats.expired, due);
	for (i = 0; i < CT_LOAD; i++)
		KUNIT_ASSERT_EQ_MSG(test, t->ent[i].fired,
				    t->ent[i].due <= w->now ? 1U : 0U,
				    "entry %u due on tick %llu",
				    i, t->ent[i].due);
	ct_stop_all(t, CT_LOAD - due);
}

/* A wheel and a budget for twheel_advance_batch(). */
struct ct_batch_case {
	const char *desc;
	struct twheel_geometry geo;
	unsigned int budget;
};

static const struct ct_batch_case ct_batch_cases[] = {
	{ "scheme 7: 256 256 256, budget 1", TWHEEL_GEOMETRY7(3, 256, 256, 256), 1 },
	{ "scheme 7: 256 256 256, budget 7", TWHEEL_GEOMETRY7(3, 256, 256, 256), 7 },
	{ "scheme 7: 256 256 256, budget 256", TWHEEL_GEOMETRY7(3, 256, 256, 256), 256 },
	{ "scheme 6: 4096, budget 1", TWHEEL_GEOMETRY6(4096), 1 },
	{ "scheme 6: 4096, budget 7", TWHEEL_GEOMETRY6(4096), 7 },
	{ "scheme 6: 4096, budget 256", TWHEEL_GEOMETRY6(4096), 256 },
};

KUNIT_ARRAY_PARAM_DESC(ct_batch, ct_batch_cases, desc);

#define BATCH_ENTRIES	3000
#define BATCH_TICKS	300000	/* the advance */
#define BATCH_CROWD	70000	/* the tick a tenth of them share */

/*
 * The arming of the batch case, the same on every call: a tenth due on one
 * tick (more than the largest budget), a tenth a rotation of the top level
 * later than half-way through the advance (early visits), the rest within
 * the advance or a little past it.
 */
static void ct_batch_arm(struct ct *t, u64 start)
{
	struct ct_entry *x;
	unsigned int i;
	u64 interval;

	prandom_seed_state(&t->rnd, 0x5eed0005);
	for (i = 0; i < BATCH_ENTRIES; i++) {
		x = &t->ent[i];
		if (i % 10 == 0)
			interval = BATCH_CROWD;
		else if (i % 10 == 1)
			interval = twheel_span(&t->w.geo) + BATCH_TICKS / 2 +
				   ct_rand(t, 1000);
		else
			interval = 1 + ct_rand(t, BATCH_TICKS + 20000);
		KUNIT_ASSERT_EQ(t->test, ct_arm(t, x, interval), 0);
	}
}

/*
 * twheel_advance_batch() with a small budget expires the same entries in
 * the same order, each on its tick, as one twheel_advance() over the same
 * arming, and no call handles more than its budget of entries (moves,
 * early visits and expiries together).
 */
static void twheel_advance_batch_small_budget(struct kunit *test)
{
	const struct ct_batch_case *p = test->param_value;
	struct ct *t = test->priv;
	struct twheel *w = &t->w;
	u64 start = 123457, to = start + BATCH_TICKS;
	u64 ref_fired, ref_moves, handled, before, calls = 0;
	unsigned long ref_count;
	bool more;

	ct_entries(t, BATCH_ENTRIES);
	t->order = kvmalloc_array(BATCH_ENTRIES, sizeof(*t->order),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->order);

	/* The reference: one twheel_advance(), its expiry order recorded. */
	ct_wheel(t, &p->geo, start);
	ct_batch_arm(t, start);
	twheel_advance(w, to, ct_expire, t);
	ct_assert_clean(t);
	ref_fired = t->fired;
	ref_moves = ct_moves(w);
	ref_count = w->count;
	KUNIT_ASSERT_GT(test, ref_fired, 0ULL);
	KUNIT_ASSERT_GT(test, ref_moves, 0ULL);

	/* The same arming, in batches, compared expiry by expiry. */
	ct_wheel(t, &p->geo, start);
	ct_batch_arm(t, start);
	t->compare = true;
	do {
		before = t->fired + ct_moves(w);
		more = twheel_advance_batch(w, to, ct_expire, t, p->budget);
		handled = t->fired + ct_moves(w) - before;
		ct_assert_clean(t);
		KUNIT_ASSERT_LE_MSG(test, handled, (u64)p->budget,
				    "call %llu at tick %llu handled %llu entries",
				    calls, w->now, handled);
		/* Each entry handled at most once a tick: calls are bounded. */
		KUNIT_ASSERT_LT_MSG(test, ++calls,
				    2 * (ref_fired + ref_moves) + BATCH_TICKS,
				    "twheel_advance_batch() makes no progress at tick %llu",
				    w->now);
	} while (more);
	kunit_info(test, "%llu calls: %llu expiries and %llu moves (reference: %llu and %llu)\n",
		   calls, t->fired, ct_moves(w), ref_fired, ref_moves);
	KUNIT_EXPECT_EQ(test, w->now, to);
	KUNIT_EXPECT_EQ(test, t->fired, ref_fired);
	KUNIT_EXPECT_EQ(test, w->count, ref_count);
	ct_stop_all(t, ref_count);
}

static int ct_case_init(struct kunit *test)
{
	struct ct *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	t->test = test;
	test->priv = t;
	return 0;
}

/* Empty and free what the case left, however it ended. */
static void ct_case_exit(struct kunit *test)
{
	struct ct *t = test->priv;
	struct twheel_entry *e;

	if (t->live) {
		while ((e = twheel_first(&t->w)))
			twheel_del(&t->w, e);
		twheel_destroy(&t->w);
	}
	kvfree(t->ent);
	kvfree(t->order);
}

static struct kunit_case twheel_cascade_cases[] = {
	KUNIT_CASE_SLOW(twheel_advance_rearm_load),
	KUNIT_CASE_SLOW(twheel_advance_same_far_interval),
	KUNIT_CASE_SLOW(twheel_advance_minutes_cross_level2),
	KUNIT_CASE_SLOW(twheel_advance_stall),
	TWHEEL_CASE_PARAM_SLOW(twheel_advance_batch_small_budget,
			       ct_batch_gen_params),
	{}
};

static struct kunit_suite twheel_cascade_suite = {
	.name = "twheel_cascade",
	.init = ct_case_init,
	.exit = ct_case_exit,
	.test_cases = twheel_cascade_cases,
};

kunit_test_suite(twheel_cascade_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's work per tick: the cascade spread");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
