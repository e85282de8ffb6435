// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the wheels at work: entries armed, stopped and re-armed
 * with twheel_add() and twheel_del(), and the clock driven by hand with
 * twheel_advance(), on wheels of both schemes.
 *
 * Every expiry is checked against a reference model kept here: the pending
 * entries in a plain list sorted by expiry tick and, within a tick, by the
 * order they were last armed in (the order twheel_core.c's DOC: block
 * promises).  The expiry function takes the model's first entry off the
 * list and complains unless the wheel handed over that very entry on its
 * tick; after each operation the wheel's clock, count, slots, busy bits and
 * twheel_next_work() are compared with the model.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "twheel_compat.h"
#include "twheel_core.h"

/*
 * What every message starts with: the random run's seed, the index of its
 * operation and the model's clock.  The sweeps have no seed; their "op" is
 * the tick the entries were armed on.
 */
#define WT_AT	"seed %#llx op %llu tick %llu"

/* And for an entry: the model's view of it, then the wheel's. */
#define WT_ENTRY	" entry %u: due %llu seq %llu pending %d;" \
			" wheel now %llu, expires %llu slot %u"

/* What an entry's expiry does besides being checked (see wt_act()). */
enum wt_act {
	WT_NOTHING,
	WT_REARM_SELF,		/* re-arm itself @arg ticks on, @times over */
	WT_ARM_OTHER,		/* arm or re-arm @other @arg ticks on */
	WT_STOP_OTHER,		/* stop @other */
	WT_STOP_SELF,		/* stop itself, which is idle already */
};

/* A timer of the tests, with the model's view of it. */
struct wt_entry {
	struct twheel_entry e;
	struct list_head model;	/* in wt.model while pending there */
	u64 due;		/* the tick the model expects it on */
	u64 seq;		/* when it was last armed: orders one tick */
	u64 fired_at;		/* the tick it last expired on */
	u32 id;
	u32 fired;		/* expiries seen */
	bool pending;		/* the model's view */
	enum wt_act act;
	struct wt_entry *other;
	u64 arg;
	unsigned int times;
	int ret;		/* what the act's add or del returned */
	u32 other_slot;		/* @other's slot just before the act */
};

/* How often the rarer paths were taken: a random run must reach them all. */
struct wt_counts {
	u64 fired;
	u64 refused;		/* adds beyond TWHEEL_MAX_INTERVAL */
	u64 rearmed;		/* adds of a pending entry */
	u64 rearmed_due;	/* ... of one due on the tick being processed */
	u64 stopped;		/* dels of a pending entry */
	u64 stopped_due;	/* ... of one due on the tick being processed */
	u64 acts;		/* adds and dels made by expiry functions */
	u64 jumps;		/* advances by more than one tick */
	u64 same_tick;		/* expiries on the previous one's tick */
	u64 pending;		/* entries pending, summed over ops */
};

#define WT_LOG	16

/* One case's wheel, its entries and the model; test->priv. */
struct wt {
	struct kunit *test;
	struct twheel w;
	bool live;		/* @w is initialised */
	struct wt_entry *ent;
	unsigned int cap;	/* entries allocated */
	unsigned int nent;	/* entries in use */
	unsigned long *busy;	/* the busy bits the model expects */
	unsigned int busy_cap;	/* bits allocated */

	/* The model. */
	bool model_on;		/* keep @model, else check order only */
	struct list_head model;	/* pending entries by (due, seq) */
	unsigned long npending;
	u64 now;
	u64 seq;

	/* What the expiry function has seen. */
	u64 last_tick, last_seq;	/* the latest expiry */
	bool failed;		/* a check made while advancing failed */
	u32 log[WT_LOG];	/* ids of the first expiries */
	unsigned int nlog;

	/* The random operations of twheel_advance_random(). */
	bool rand_acts;		/* expiry functions act at random */
	u64 seed, rnd, op;
	struct wt_counts n;
};

/* xorshift64*: a few lines, and the same sequence from a seed every run. */
static u64 wt_rand(struct wt *t)
{
	t->rnd ^= t->rnd >> 12;
	t->rnd ^= t->rnd << 25;
	t->rnd ^= t->rnd >> 27;
	return t->rnd * 0x2545f4914f6cdd1dULL;
}

static u64 wt_below(struct wt *t, u64 n)
{
	return wt_rand(t) % n;
}

static u64 wt_span(const struct wt *t)
{
	return t->w.gran[t->w.geo.levels];
}

/*
 * Report the first failed check about @x.  Used where an assertion must not
 * abort the case, inside twheel_advance() above all: the callers assert on
 * @t->failed once the wheel is back in their hands.
 */
static bool wt_check(struct wt *t, const struct wt_entry *x, bool ok,
		     const char *what)
{
	if (!ok && !t->failed) {
		t->failed = true;
		KUNIT_FAIL(t->test, "%s: " WT_AT WT_ENTRY, what,
			   t->seed, t->op, t->now, x->id, x->due, x->seq,
			   x->pending, t->w.now, x->e.expires, x->e.slot);
	}
	return ok;
}

/* The slot an entry due on @due sits in at the model's clock. */
static u32 wt_slot(const struct wt *t, u64 due)
{
	unsigned int n = twheel_level(&t->w, t->now, due);

	return t->w.first[n] + twheel_slot_index(&t->w, n, due);
}

/*
 * The entry is where the model says: idle; due on the tick being processed
 * and marked so; or in the slot twheel_level() and twheel_slot_index() name
 * for its tick at the model's clock.
 */
static bool wt_check_entry(struct wt *t, const struct wt_entry *x)
{
	const struct twheel_entry *e = &x->e;

	if (!x->pending)
		return wt_check(t, x, e->slot == TWHEEL_SLOT_IDLE &&
				list_empty(&e->node), "idle entry not idle");
	if (!wt_check(t, x, e->expires == x->due, "wrong expiry tick"))
		return false;
	if (x->due == t->now)
		return wt_check(t, x, e->slot == TWHEEL_SLOT_EXPIRED,
				"due entry not marked expired");
	return wt_check(t, x, e->slot == wt_slot(t, x->due),
			"pending entry not in its slot");
}

static struct wt_entry *wt_model_first(struct wt *t)
{
	return list_first_entry_or_null(&t->model, struct wt_entry, model);
}

/* The model arms @x at its clock: due @interval ticks on, 0 taken as 1. */
static void wt_model_add(struct wt *t, struct wt_entry *x, u64 interval)
{
	struct wt_entry *p;

	x->due = t->now + max_t(u64, interval, 1);
	x->seq = ++t->seq;
	x->pending = true;
	t->npending++;
	if (!t->model_on)
		return;
	/* The newest of its tick: after every entry due then or before. */
	list_for_each_entry_reverse(p, &t->model, model)
		if (p->due <= x->due)
			break;
	list_add(&x->model, &p->model);
}

static void wt_model_del(struct wt *t, struct wt_entry *x)
{
	x->pending = false;
	t->npending--;
	if (t->model_on)
		list_del_init(&x->model);
}

/* twheel_add(), checked against the model and applied to it. */
static int wt_arm(struct wt *t, struct wt_entry *x, u64 interval)
{
	bool was = x->pending;
	int ret;

	wt_check_entry(t, x);
	ret = twheel_add(&t->w, &x->e, interval);
	if (interval > TWHEEL_MAX_INTERVAL) {
		t->n.refused++;
		wt_check(t, x, ret == -EINVAL, "too long an interval taken");
		wt_check_entry(t, x);
		return ret;
	}
	wt_check(t, x, ret == was, "add misreported the entry's state");
	if (was) {
		t->n.rearmed++;
		if (x->due == t->now)
			t->n.rearmed_due++;
		wt_model_del(t, x);
	}
	wt_model_add(t, x, interval);
	wt_check_entry(t, x);
	return ret;
}

/* twheel_del(), checked against the model and applied to it. */
static bool wt_stop(struct wt *t, struct wt_entry *x)
{
	bool was = x->pending, ret;

	wt_check_entry(t, x);
	ret = twheel_del(&t->w, &x->e);
	wt_check(t, x, ret == was, "del misreported the entry's state");
	if (was) {
		t->n.stopped++;
		if (x->due == t->now)
			t->n.stopped_due++;
		wt_model_del(t, x);
	}
	wt_check_entry(t, x);
	return ret;
}

/*
 * An interval for a random add: mostly within the hierarchy's span, often
 * beyond it or just around a boundary of some level's slots, sometimes 0,
 * huge, or too long to be taken.
 */
static u64 wt_rand_interval(struct wt *t)
{
	const struct twheel *w = &t->w;
	u64 r = wt_below(t, 32), g;

	if (r < 2)
		return 0;
	if (r < 14)
		return 1 + wt_below(t, wt_span(t));
	if (r < 22)
		return 1 + wt_below(t, 4 * wt_span(t));
	if (r < 30) {
		/* One tick before, on or after the start of a slot's span. */
		g = w->gran[wt_below(t, w->geo.levels + 1)];
		return (t->now / g + 1 + wt_below(t, 3)) * g - 1 +
			wt_below(t, 3) - t->now;
	}
	if (r < 31)
		return 1 + wt_below(t, TWHEEL_MAX_INTERVAL);
	/* TWHEEL_MAX_INTERVAL itself, or refused. */
	r = wt_below(t, 4);
	return r == 3 ? U64_MAX : TWHEEL_MAX_INTERVAL + r;
}

/*
 * A tick for a random advance: the next one, a jump within or beyond the
 * hierarchy's span, the wheel's next work or the earliest expiry (or the
 * tick before either), or the present.
 */
static u64 wt_rand_to(struct wt *t)
{
	struct wt_entry *first = wt_model_first(t);
	u64 span = wt_span(t), r = wt_below(t, 64), next;

	if (r < 44)
		return t->now + 1;
	if (r < 52)
		return t->now + 1 + wt_below(t, span);
	if (r < 55)
		return t->now + span + wt_below(t, 4 * span);
	if (r < 58) {
		next = twheel_next_work(&t->w);
		return next == U64_MAX ? t->now + 1 : next - wt_below(t, 2);
	}
	if (r < 61) {
		/* Not to an entry armed for ages: that is all early visits. */
		if (!first || first->due - t->now > 64 * span)
			return t->now + 1;
		return first->due - wt_below(t, 2);
	}
	if (r < 62)
		return t->now;
	return t->now + wt_below(t, 64 * span);
}

static struct wt_entry *wt_rand_entry(struct wt *t)
{
	return &t->ent[wt_below(t, t->nent)];
}

static struct wt_entry *wt_rand_pending(struct wt *t)
{
	unsigned int i, k = wt_below(t, t->nent);

	for (i = 0; i < t->nent; i++)
		if (t->ent[(k + i) % t->nent].pending)
			return &t->ent[(k + i) % t->nent];
	return NULL;
}

/*
 * What an expiry function of twheel_advance_random() does: now and then
 * re-arm its own entry, or arm or stop another, often the next one due,
 * which may be due on this very tick and not yet run.
 */
static void wt_rand_act(struct wt *t, struct wt_entry *x)
{
	u64 r = wt_below(t, 16);
	struct wt_entry *y;

	if (r >= 8)
		return;
	t->n.acts++;
	if (r < 3) {
		wt_arm(t, x, wt_below(t, 2 * wt_span(t)));
		return;
	}
	y = wt_model_first(t);
	if (!y || wt_below(t, 2))
		y = wt_rand_entry(t);
	if (r < 6)
		wt_arm(t, y, wt_rand_interval(t));
	else
		wt_stop(t, y);
}

/* What an expiry function of the directed cases does, as @x->act says. */
static void wt_act(struct wt *t, struct wt_entry *x)
{
	if (x->other)
		x->other_slot = x->other->e.slot;
	switch (x->act) {
	case WT_NOTHING:
		break;
	case WT_REARM_SELF:
		if (x->times) {
			x->times--;
			x->ret = wt_arm(t, x, x->arg);
		}
		break;
	case WT_ARM_OTHER:
		x->ret = wt_arm(t, x->other, x->arg);
		break;
	case WT_STOP_OTHER:
		x->ret = wt_stop(t, x->other);
		break;
	case WT_STOP_SELF:
		x->ret = wt_stop(t, x);
		break;
	}
}

/*
 * The expiry function of every case: @e must be due on this tick and come
 * after the previous expiry in (tick, arming order); with the model on, it
 * must be the model's first entry.
 */
static void wt_expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct wt_entry *x = container_of(e, struct wt_entry, e);
	struct wt *t = ctx;

	/* The model's clock is at the tick being processed too. */
	t->now = w->now;
	wt_check(t, x, x->pending, "expired while not pending");
	wt_check(t, x, x->due == w->now, "expired on the wrong tick");
	wt_check(t, x, w->now > t->last_tick ||
		 (w->now == t->last_tick && x->seq > t->last_seq),
		 "expired out of order");
	if (t->model_on)
		wt_check(t, x, wt_model_first(t) == x,
			 "expired ahead of the model's first entry");
	wt_check(t, x, !twheel_entry_pending(e) && list_empty(&e->node),
		 "handed over still pending");

	if (x->pending)
		wt_model_del(t, x);
	if (w->now == t->last_tick)
		t->n.same_tick++;
	x->fired++;
	x->fired_at = w->now;
	t->last_tick = w->now;
	t->last_seq = x->seq;
	t->n.fired++;
	if (t->nlog < WT_LOG)
		t->log[t->nlog++] = x->id;

	if (t->rand_acts)
		wt_rand_act(t, x);
	else
		wt_act(t, x);
}

/* twheel_advance() to @to: everything due by then, and only that, runs. */
static void wt_advance(struct wt *t, u64 to)
{
	struct kunit *test = t->test;
	struct wt_entry *first;

	if (to > t->now + 1)
		t->n.jumps++;
	twheel_advance(&t->w, to, wt_expire, t);
	KUNIT_ASSERT_FALSE_MSG(test, t->failed, WT_AT " advancing to %llu",
			       t->seed, t->op, t->now, to);
	t->now = max(t->now, to);
	KUNIT_ASSERT_EQ_MSG(test, t->w.now, t->now, WT_AT " advancing to %llu",
			    t->seed, t->op, t->now, to);
	first = wt_model_first(t);
	if (first)
		KUNIT_ASSERT_GT_MSG(test, first->due, t->now,
				    WT_AT " entry %u did not expire",
				    t->seed, t->op, t->now, first->id);
}

/* The first slot whose busy bit is not what the model expects, or nslots. */
static unsigned int wt_busy_mismatch(const struct wt *t)
{
	const struct twheel *w = &t->w;
	unsigned int i = 0;

	if (bitmap_equal(w->busy, t->busy, w->nslots))
		return w->nslots;
	while (test_bit(i, w->busy) == test_bit(i, t->busy))
		i++;
	return i;
}

/*
 * The whole wheel agrees with the model: clock, count, each entry's state
 * and slot, the busy bits (set for the slots of pending entries, and no
 * others), and twheel_next_work(), which must be the earliest
 * twheel_visit_tick() of the pending entries (U64_MAX for none), not after
 * the earliest expiry, and for Scheme 6 equal to it when every entry is due
 * within one rotation.
 */
static void wt_verify(struct wt *t)
{
	struct kunit *test = t->test;
	const struct twheel *w = &t->w;
	u64 visit = U64_MAX, first = U64_MAX, next;
	bool one_rotation = true;
	unsigned int i;

	KUNIT_ASSERT_EQ_MSG(test, w->now, t->now, WT_AT,
			    t->seed, t->op, t->now);
	KUNIT_ASSERT_EQ_MSG(test, w->count, t->npending, WT_AT,
			    t->seed, t->op, t->now);
	t->n.pending += t->npending;
	bitmap_zero(t->busy, w->nslots);
	for (i = 0; i < t->nent; i++) {
		const struct wt_entry *x = &t->ent[i];

		wt_check_entry(t, x);
		if (!x->pending)
			continue;
		__set_bit(wt_slot(t, x->due), t->busy);
		visit = min(visit, twheel_visit_tick(w, t->now, x->due));
		first = min(first, x->due);
		if (x->due - t->now > w->geo.slots[0])
			one_rotation = false;
	}
	KUNIT_ASSERT_FALSE_MSG(test, t->failed, WT_AT,
			       t->seed, t->op, t->now);
	KUNIT_ASSERT_EQ_MSG(test, wt_busy_mismatch(t), w->nslots,
			    WT_AT " busy bit wrong", t->seed, t->op, t->now);
	if (t->model_on)
		KUNIT_ASSERT_EQ_MSG(test, wt_model_first(t) ?
				    wt_model_first(t)->due : U64_MAX, first,
				    WT_AT " model out of order",
				    t->seed, t->op, t->now);

	next = twheel_next_work(w);
	KUNIT_ASSERT_EQ_MSG(test, next, visit, WT_AT " next work",
			    t->seed, t->op, t->now);
	KUNIT_ASSERT_LE_MSG(test, next, first, WT_AT " next work",
			    t->seed, t->op, t->now);
	if (w->geo.scheme == TWHEEL_SCHEME6 && one_rotation)
		KUNIT_ASSERT_EQ_MSG(test, next, first, WT_AT " next work",
				    t->seed, t->op, t->now);
}

/* Nothing left behind: no count, no busy bit, no entry in any slot. */
static void wt_assert_empty(struct wt *t)
{
	struct kunit *test = t->test;
	const struct twheel *w = &t->w;
	unsigned int i;

	KUNIT_ASSERT_EQ_MSG(test, w->count, 0UL, WT_AT,
			    t->seed, t->op, t->now);
	KUNIT_ASSERT_TRUE_MSG(test, bitmap_empty(w->busy, w->nslots), WT_AT,
			      t->seed, t->op, t->now);
	for (i = 0; i < w->nslots; i++)
		KUNIT_ASSERT_TRUE_MSG(test, list_empty(&w->slot[i]),
				      WT_AT " slot %u",
				      t->seed, t->op, t->now, i);
	KUNIT_ASSERT_EQ_MSG(test, twheel_next_work(w), U64_MAX, WT_AT,
			    t->seed, t->op, t->now);
}

/* Take every entry off the wheel, then free the wheel. */
static void wt_teardown(struct wt *t)
{
	unsigned int i;

	if (!t->live)
		return;
	for (i = 0; i < t->nent; i++)
		twheel_del(&t->w, &t->ent[i].e);
	twheel_destroy(&t->w);
	t->live = false;
}

/* A new wheel of @geo at tick @now, @nent idle entries, an empty model. */
static void wt_init(struct wt *t, const struct twheel_geometry *geo, u64 now,
		    unsigned int nent)
{
	struct kunit *test = t->test;
	unsigned int i;

	wt_teardown(t);
	if (nent > t->cap) {
		kvfree(t->ent);
		t->ent = kvcalloc(nent, sizeof(*t->ent), GFP_KERNEL);
		t->cap = t->ent ? nent : 0;
		KUNIT_ASSERT_NOT_NULL(test, t->ent);
	}
	t->nent = nent;
	for (i = 0; i < nent; i++) {
		struct wt_entry *x = &t->ent[i];

		memset(x, 0, sizeof(*x));
		twheel_entry_init(&x->e);
		INIT_LIST_HEAD(&x->model);
		x->id = i;
	}
	INIT_LIST_HEAD(&t->model);
	t->npending = 0;
	t->now = now;
	t->seq = 0;
	t->last_tick = 0;
	t->last_seq = 0;
	t->nlog = 0;
	memset(&t->n, 0, sizeof(t->n));
	KUNIT_ASSERT_EQ(test, twheel_init(&t->w, geo, now), 0);
	t->live = true;
	if (t->w.nslots > t->busy_cap) {
		bitmap_free(t->busy);
		t->busy = bitmap_zalloc(t->w.nslots, GFP_KERNEL);
		t->busy_cap = t->busy ? t->w.nslots : 0;
		KUNIT_ASSERT_NOT_NULL(test, t->busy);
	}
}

static int wt_case_init(struct kunit *test)
{
	struct wt *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->test = test;
	t->model_on = true;
	INIT_LIST_HEAD(&t->model);
	test->priv = t;
	return 0;
}

static void wt_case_exit(struct kunit *test)
{
	struct wt *t = test->priv;

	wt_teardown(t);
	kvfree(t->ent);
	bitmap_free(t->busy);
}

static void geometry_desc(const struct twheel_geometry *geo, char *desc)
{
	int len, n;

	len = scnprintf(desc, KUNIT_PARAM_DESC_SIZE, "scheme %d:", geo->scheme);
	for (n = 0; n < geo->levels; n++)
		len += scnprintf(desc + len, KUNIT_PARAM_DESC_SIZE - len, " %u",
				 geo->slots[n]);
}

/* Small wheels, so that sweeps cross every kind of boundary many times. */
static const struct twheel_geometry sweep_geometries[] = {
	TWHEEL_GEOMETRY6(2),
	TWHEEL_GEOMETRY6(8),
	TWHEEL_GEOMETRY6(64),
	TWHEEL_GEOMETRY7(2, 4, 4),
	TWHEEL_GEOMETRY7(2, 8, 8),
	TWHEEL_GEOMETRY7(3, 4, 3, 5),
	TWHEEL_GEOMETRY7(3, 4, 4, 4),
	TWHEEL_GEOMETRY7(4, 2, 3, 2, 3),
	TWHEEL_GEOMETRY7(6, 2, 2, 2, 2, 2, 2),
};

KUNIT_ARRAY_PARAM(sweep, sweep_geometries, geometry_desc);

/*
 * Every interval up to @last from @start, all armed at once; the clock goes
 * a tick at a time, or in one jump.
 */
static void sweep_together(struct wt *t, const struct twheel_geometry *geo,
			   u64 start, u64 last, bool by_tick)
{
	u64 i;

	wt_init(t, geo, start, last + 1);
	t->op = start;
	for (i = 0; i <= last; i++)
		KUNIT_ASSERT_EQ_MSG(t->test, wt_arm(t, &t->ent[i], i), 0,
				    "start %llu interval %llu", start, i);
	wt_verify(t);
	for (i = 1; by_tick && i < last; i++) {
		wt_advance(t, start + i);
		/* Intervals 0 and 1 are both due on start + 1. */
		KUNIT_ASSERT_EQ_MSG(t->test, t->n.fired, i + 1,
				    "start %llu tick %llu", start, start + i);
	}
	wt_advance(t, start + last);
	KUNIT_ASSERT_EQ_MSG(t->test, t->n.fired, last + 1, "start %llu",
			    start);
	wt_assert_empty(t);
}

/*
 * Every interval up to @last alone in the wheel, armed at a clock of each
 * value modulo the hierarchy's span, which is all that tells one start
 * from another: the clock jumps to the tick before the entry is due and
 * nothing happens, then to the tick it is due on and it fires.  The wheel
 * is empty between entries, so moving its clock on costs nothing.
 */
static void sweep_alone(struct wt *t, const struct twheel_geometry *geo,
			u64 base, u64 last)
{
	u64 span = twheel_span(geo), r, i, start, due;
	struct wt_entry *x;

	wt_init(t, geo, base, 1);
	x = &t->ent[0];
	for (r = 0; r < span; r++) {
		for (i = 0; i <= last; i++) {
			start = t->now + (r + span - t->now % span) % span;
			due = start + max_t(u64, i, 1);
			wt_advance(t, start);
			t->op = start;
			KUNIT_ASSERT_EQ_MSG(t->test,
					    wt_arm(t, x, i), 0,
					    "start %llu interval %llu",
					    start, i);
			wt_verify(t);
			wt_advance(t, due - 1);
			KUNIT_ASSERT_EQ_MSG(t->test, x->fired, 0U,
					    "start %llu interval %llu",
					    start, i);
			wt_verify(t);
			wt_advance(t, due);
			KUNIT_ASSERT_EQ_MSG(t->test, x->fired, 1U,
					    "start %llu interval %llu",
					    start, i);
			x->fired = 0;
			wt_assert_empty(t);
		}
		cond_resched();
	}
}

/*
 * Every interval from 0 to three rotations of the hierarchy and a tick, so
 * across every slot, level and wrap boundary, armed at every clock value
 * over two rotations and over one rotation far from 0: each entry fires on
 * its tick and in the model's order, whether the clock moves a tick at a
 * time or jumps, and whether the entry is alone in the wheel or not.
 */
static void twheel_advance_sweep(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct wt *t = test->priv;
	u64 span = twheel_span(geo), last = 3 * span + 1;
	u64 far = 0x123456789ULL * span + 7, s;

	t->seed = 0;
	for (s = 0; s < 2 * span; s++) {
		sweep_together(t, geo, s, last, true);
		sweep_together(t, geo, s, last, false);
		cond_resched();
	}
	for (s = far; s < far + span; s++) {
		sweep_together(t, geo, s, last, true);
		sweep_together(t, geo, s, last, false);
		cond_resched();
	}
	sweep_alone(t, geo, 0, last);
	sweep_alone(t, geo, far, last);
}

/* The shapes of wheel the directed cases run on. */
static const struct twheel_geometry wheel_geometries[] = {
	TWHEEL_GEOMETRY6(16),
	TWHEEL_GEOMETRY7(3, 4, 4, 4),
	TWHEEL_GEOMETRY7(3, 4, 3, 5),
	TWHEEL_GEOMETRY7(4, 60, 60, 24, 100),
};

KUNIT_ARRAY_PARAM(wheel, wheel_geometries, geometry_desc);

struct random_case {
	const char *desc;
	struct twheel_geometry geo;
	u64 seed;
};

#define WT_RANDOM_OPS		100000
#define WT_RANDOM_ENTRIES	40

static const struct random_case random_cases[] = {
	{ "scheme 6, 16 slots", TWHEEL_GEOMETRY6(16), 0x9e3779b97f4a7c15ULL },
	{ "scheme 6, 4 slots", TWHEEL_GEOMETRY6(4), 0xd1b54a32d192ed03ULL },
	{ "scheme 6, 1024 slots", TWHEEL_GEOMETRY6(1024), 0x94d049bb133111ebULL },
	{ "scheme 7, 3 x 4", TWHEEL_GEOMETRY7(3, 4, 4, 4), 0x8cb92ba72f3d8dd7ULL },
	{ "scheme 7, 4/3/5", TWHEEL_GEOMETRY7(3, 4, 3, 5), 0xbf58476d1ce4e5b9ULL },
	{ "scheme 7, 8 x 2", TWHEEL_GEOMETRY7(8, 2, 2, 2, 2, 2, 2, 2, 2),
	  0x6a09e667f3bcc909ULL },
	{ "scheme 7, paper 60/60/24/100", TWHEEL_GEOMETRY7(4, 60, 60, 24, 100),
	  0xbb67ae8584caa73bULL },
};

static void random_case_desc(const struct random_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(random, random_cases, random_case_desc);

/*
 * The differential test: WT_RANDOM_OPS random operations on
 * WT_RANDOM_ENTRIES entries.  Two in five are adds of any entry (a start or
 * a re-arm), one in twenty a burst of 2 to 16 such adds, one in ten a
 * re-arm of a pending entry, 7 in 100 dels, the rest advances: mostly by
 * one tick, else by jumps (see wt_rand_to()).  The expiry functions add and
 * del at random too.  Each expiry must be the model's next one, on its
 * tick; after each operation the wheel must agree with the model
 * (wt_verify()).  The run ends by checking that it took the rare paths.
 */
static void twheel_advance_random(struct kunit *test)
{
	const struct random_case *c = test->param_value;
	struct wt *t = test->priv;
	struct wt_entry *x;
	unsigned int n;
	u64 r;

	t->seed = c->seed;
	t->rnd = c->seed;
	t->rand_acts = true;
	wt_init(t, &c->geo, wt_rand(t) >> 40, WT_RANDOM_ENTRIES);
	kunit_info(test, "seed %#llx: %u operations, %u entries, tick %llu\n",
		   t->seed, WT_RANDOM_OPS, t->nent, t->now);

	for (t->op = 0; t->op < WT_RANDOM_OPS; t->op++) {
		r = wt_below(t, 100);
		if (r < 40) {
			wt_arm(t, wt_rand_entry(t), wt_rand_interval(t));
		} else if (r < 45) {
			for (n = 2 + wt_below(t, 15); n; n--)
				wt_arm(t, wt_rand_entry(t),
				       wt_rand_interval(t));
		} else if (r < 55) {
			x = wt_rand_pending(t);
			if (x)
				wt_arm(t, x, wt_rand_interval(t));
		} else if (r < 62) {
			wt_stop(t, wt_rand_entry(t));
		} else {
			wt_advance(t, wt_rand_to(t));
		}
		wt_verify(t);
		if (!(t->op % 1024))
			cond_resched();
	}

	kunit_info(test, "fired %llu, %llu on the tick of the one before\n",
		   t->n.fired, t->n.same_tick);
	kunit_info(test, "re-armed %llu (%llu due), stopped %llu (%llu due)\n",
		   t->n.rearmed, t->n.rearmed_due, t->n.stopped,
		   t->n.stopped_due);
	kunit_info(test, "refused %llu, from expiry %llu, jumps %llu\n",
		   t->n.refused, t->n.acts, t->n.jumps);
	kunit_info(test, "pending %llu.%02llu on average\n",
		   t->n.pending / WT_RANDOM_OPS,
		   t->n.pending % WT_RANDOM_OPS * 100 / WT_RANDOM_OPS);
	kunit_info(test, "wheel: ticks %llu skipped %llu migrated %llu\n",
		   t->w.stats.ticks, t->w.stats.skipped, t->w.stats.migrated);
	kunit_info(test, "wheel: early visits %llu expired %llu\n",
		   t->w.stats.early_visits, t->w.stats.expired);
	KUNIT_EXPECT_EQ(test, t->w.stats.expired, t->n.fired);
	KUNIT_EXPECT_GT(test, t->n.refused, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.same_tick, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.rearmed_due, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.stopped_due, 0ULL);
	KUNIT_EXPECT_GT(test, t->w.stats.early_visits, 0ULL);
	if (c->geo.scheme == TWHEEL_SCHEME7)
		KUNIT_EXPECT_GT(test, t->w.stats.migrated, 0ULL);

	for (n = 0; n < t->nent; n++)
		wt_stop(t, &t->ent[n]);
	wt_verify(t);
	wt_assert_empty(t);
}

/* The entry's visible state is what it was. */
static bool entry_same(const struct twheel_entry *a,
		       const struct twheel_entry *b)
{
	return a->node.next == b->node.next && a->node.prev == b->node.prev &&
	       a->expires == b->expires && a->slot == b->slot;
}

/*
 * Interval 0 is taken as 1; 1 and TWHEEL_MAX_INTERVAL are taken as they
 * are; one tick more is refused with nothing changed, whether the entry is
 * idle or pending; and an add of a pending entry re-arms it and returns 1.
 */
static void twheel_add_interval_limits(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct wt *t = test->priv;
	struct twheel *w = &t->w;
	struct wt_entry *zero, *one, *max, *idle, *p;
	struct twheel_entry idle_was, p_was;
	struct twheel_stats stats_was;
	unsigned long *busy_was, count_was;
	u64 start = 1000;

	wt_init(t, geo, start, 5);
	zero = &t->ent[0];
	one = &t->ent[1];
	max = &t->ent[2];
	idle = &t->ent[3];
	p = &t->ent[4];
	busy_was = kunit_kcalloc(test, BITS_TO_LONGS(w->nslots),
				 sizeof(*busy_was), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, busy_was);

	/* 0 and 1 both mean the next tick; the longest is taken as it is. */
	KUNIT_EXPECT_EQ(test, wt_arm(t, zero, 0), 0);
	KUNIT_EXPECT_EQ(test, zero->e.expires, start + 1);
	KUNIT_EXPECT_EQ(test, wt_arm(t, one, 1), 0);
	KUNIT_EXPECT_EQ(test, one->e.expires, start + 1);
	KUNIT_EXPECT_EQ(test, wt_arm(t, max, TWHEEL_MAX_INTERVAL), 0);
	KUNIT_EXPECT_EQ(test, max->e.expires, start + TWHEEL_MAX_INTERVAL);
	KUNIT_EXPECT_EQ(test, wt_arm(t, p, 5), 0);
	wt_verify(t);

	/* One tick longer is refused and changes nothing, idle or pending. */
	idle_was = idle->e;
	p_was = p->e;
	count_was = w->count;
	stats_was = w->stats;
	bitmap_copy(busy_was, w->busy, w->nslots);
	KUNIT_EXPECT_EQ(test, twheel_add(w, &idle->e, TWHEEL_MAX_INTERVAL + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_add(w, &p->e, TWHEEL_MAX_INTERVAL + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_add(w, &p->e, U64_MAX), -EINVAL);
	KUNIT_EXPECT_TRUE(test, entry_same(&idle->e, &idle_was));
	KUNIT_EXPECT_TRUE(test, entry_same(&p->e, &p_was));
	KUNIT_EXPECT_EQ(test, w->count, count_was);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(w->busy, busy_was, w->nslots));
	KUNIT_EXPECT_TRUE(test, !memcmp(&w->stats, &stats_was,
					sizeof(stats_was)));
	wt_verify(t);

	/* An add of a pending entry moves it, and says it was pending. */
	KUNIT_EXPECT_EQ(test, wt_arm(t, p, 9), 1);
	KUNIT_EXPECT_EQ(test, p->e.expires, start + 9);
	KUNIT_EXPECT_EQ(test, w->count, count_was);
	wt_verify(t);

	/* Interval 0 runs first on start + 1: it was armed first. */
	wt_advance(t, start + 1);
	KUNIT_ASSERT_EQ(test, t->nlog, 2U);
	KUNIT_EXPECT_EQ(test, t->log[0], zero->id);
	KUNIT_EXPECT_EQ(test, t->log[1], one->id);
	wt_advance(t, start + 8);
	KUNIT_EXPECT_EQ(test, p->fired, 0U);
	wt_advance(t, start + 9);
	KUNIT_EXPECT_EQ(test, p->fired, 1U);

	/* The longest interval waits at the top level, rotation on rotation. */
	wt_advance(t, start + 3 * twheel_span(geo));
	KUNIT_EXPECT_EQ(test, max->fired, 0U);
	wt_verify(t);
	KUNIT_EXPECT_TRUE(test, wt_stop(t, max));
	wt_verify(t);
	wt_assert_empty(t);
}

/*
 * Entries due on one tick run in the order they were last armed, whatever
 * level each went into: A is armed first, beyond the hierarchy's rotation;
 * B later, C later still, two ticks before; then A is re-armed for the same
 * tick and so goes last.  D, due the tick before, and E, the tick after,
 * keep their places.
 */
static void twheel_advance_same_tick_order(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct wt *t = test->priv;
	u64 span = twheel_span(geo), start = 1;
	u64 due = start + span + span / 2 + 1;
	struct wt_entry *a, *b, *c, *d, *e;

	wt_init(t, geo, start, 5);
	a = &t->ent[0];
	b = &t->ent[1];
	c = &t->ent[2];
	d = &t->ent[3];
	e = &t->ent[4];

	wt_arm(t, a, due - t->now);
	wt_arm(t, e, due + 1 - t->now);
	wt_arm(t, d, due - 1 - t->now);
	wt_advance(t, start + (due - start) / 2);
	wt_verify(t);
	wt_arm(t, b, due - t->now);
	wt_advance(t, due - 2);
	wt_verify(t);
	wt_arm(t, c, due - t->now);
	KUNIT_EXPECT_EQ(test, wt_arm(t, a, due - t->now), 1);
	wt_verify(t);

	wt_advance(t, due + 1);
	KUNIT_ASSERT_EQ(test, t->nlog, 5U);
	KUNIT_EXPECT_EQ(test, t->log[0], d->id);
	KUNIT_EXPECT_EQ(test, t->log[1], b->id);
	KUNIT_EXPECT_EQ(test, t->log[2], c->id);
	KUNIT_EXPECT_EQ(test, t->log[3], a->id);
	KUNIT_EXPECT_EQ(test, t->log[4], e->id);
	wt_assert_empty(t);
}

/*
 * Stop an entry that has moved on from where it was armed: after its first
 * visit (an early one: it is due beyond the rotation), and after the wheel
 * has looked at it for the last time before it is due, which for Scheme 7
 * follows migrations.  Neither runs.
 */
static void del_after_visits(struct wt *t, struct wt_entry *x,
			     struct wt_entry *y)
{
	struct kunit *test = t->test;
	struct twheel *w = &t->w;
	u64 span = wt_span(t), moves = w->stats.early_visits;

	wt_arm(t, x, 2 * span + span / 2 + 1);
	wt_arm(t, y, 2 * span + span / 2 + 1);
	wt_advance(t, twheel_next_work(w));
	KUNIT_EXPECT_GT(test, w->stats.early_visits, moves);
	wt_verify(t);
	KUNIT_EXPECT_TRUE(test, wt_stop(t, y));

	moves = w->stats.migrated;
	while (twheel_next_work(w) < x->due) {
		wt_advance(t, twheel_next_work(w));
		wt_verify(t);
	}
	if (w->geo.scheme == TWHEEL_SCHEME7)
		KUNIT_EXPECT_GT(test, w->stats.migrated, moves);
	KUNIT_EXPECT_TRUE(test, wt_stop(t, x));
	wt_verify(t);
	wt_advance(t, x->due + 1);
	KUNIT_EXPECT_EQ(test, x->fired, 0U);
	KUNIT_EXPECT_EQ(test, y->fired, 0U);
}

/*
 * twheel_del() from every state: idle, never armed; pending in each level
 * and beyond the hierarchy's rotation; pending after visits; due on the
 * tick being processed but not yet run, stopped by an earlier expiry of
 * that tick; from its own expiry function; after it ran.  It returns
 * whether the entry was pending, and a stopped entry never runs.
 */
static void twheel_del_every_state(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct wt *t = test->priv;
	struct twheel *w = &t->w;
	unsigned int n, top = geo->levels - 1;
	u64 span = twheel_span(geo), start = 5 * span;
	struct wt_entry *x, *a, *b, *c;

	wt_init(t, geo, start, geo->levels + 7);

	/* Idle, never armed. */
	KUNIT_EXPECT_FALSE(test, wt_stop(t, &t->ent[0]));
	wt_verify(t);

	/*
	 * Pending in each level: every digit of the clock is 0, so an entry
	 * gran[n] ticks on differs from it at level n alone.  Then one beyond
	 * the rotation, at the top level.
	 */
	for (n = 0; n < geo->levels; n++) {
		x = &t->ent[1 + n];
		KUNIT_ASSERT_EQ(test,
				twheel_level(w, start, start + w->gran[n]), n);
		wt_arm(t, x, w->gran[n]);
		KUNIT_EXPECT_GE_MSG(test, x->e.slot, w->first[n],
				    "level %u", n);
		KUNIT_EXPECT_LT_MSG(test, x->e.slot,
				    w->first[n] + geo->slots[n], "level %u", n);
	}
	x = &t->ent[1 + geo->levels];
	wt_arm(t, x, 2 * span + 1);
	KUNIT_EXPECT_GE(test, x->e.slot, w->first[top]);
	wt_verify(t);
	for (n = 0; n <= geo->levels; n++) {
		x = &t->ent[1 + n];
		KUNIT_EXPECT_TRUE_MSG(test, wt_stop(t, x), "level %u", n);
		KUNIT_EXPECT_EQ_MSG(test, x->e.slot, TWHEEL_SLOT_IDLE,
				    "level %u", n);
		wt_verify(t);
	}
	wt_assert_empty(t);
	wt_advance(t, start + 3 * span + 2);
	KUNIT_EXPECT_EQ(test, t->n.fired, 0ULL);

	/* Pending after the wheel has looked at it. */
	del_after_visits(t, &t->ent[2 + geo->levels], &t->ent[3 + geo->levels]);

	/*
	 * Due but not yet run: A, armed first, stops B, due on the same tick.
	 * C, due then too, stops itself from its expiry function: it is idle
	 * by then.
	 */
	a = &t->ent[4 + geo->levels];
	b = &t->ent[5 + geo->levels];
	c = &t->ent[6 + geo->levels];
	a->act = WT_STOP_OTHER;
	a->other = b;
	c->act = WT_STOP_SELF;
	wt_arm(t, a, 7);
	wt_arm(t, b, 7);
	wt_arm(t, c, 7);
	t->n.stopped_due = 0;
	wt_advance(t, t->now + 7);
	KUNIT_EXPECT_EQ(test, a->fired, 1U);
	KUNIT_EXPECT_EQ(test, a->other_slot, TWHEEL_SLOT_EXPIRED);
	KUNIT_EXPECT_EQ(test, a->ret, 1);
	KUNIT_EXPECT_EQ(test, t->n.stopped_due, 1ULL);
	KUNIT_EXPECT_EQ(test, b->fired, 0U);
	KUNIT_EXPECT_EQ(test, b->e.slot, TWHEEL_SLOT_IDLE);
	KUNIT_EXPECT_EQ(test, c->fired, 1U);
	KUNIT_EXPECT_EQ(test, c->ret, 0);

	/* After it ran. */
	KUNIT_EXPECT_FALSE(test, wt_stop(t, a));
	wt_verify(t);
	wt_assert_empty(t);
}

/*
 * Adds and dels from inside twheel_advance(), all in one call of it:
 * entries re-arming themselves with a period of 0 (taken as 1), of a few
 * ticks, and of just under and over the hierarchy's span; A re-arming B,
 * due on the same tick and not yet run, so that B runs on its new tick
 * instead; C re-arming D, pending, for an earlier tick; E stopping F; G
 * arming idle H for the next tick.  Each entry re-armed for a tick within
 * the call runs on that tick, within the call.
 */
static void twheel_advance_rearm_from_expiry(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct wt *t = test->priv;
	u64 span = twheel_span(geo), start = 3;
	const u64 periods[] = { 0, 3, span - 1, span + 1 };
	struct wt_entry *x, *a, *b, *c, *d, *e, *f, *g, *h;
	unsigned int i;

	wt_init(t, geo, start, ARRAY_SIZE(periods) + 8);
	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		x = &t->ent[i];
		x->act = WT_REARM_SELF;
		x->arg = periods[i];
		x->times = 5;
		wt_arm(t, x, periods[i]);
	}
	a = &t->ent[i];
	b = &t->ent[i + 1];
	c = &t->ent[i + 2];
	d = &t->ent[i + 3];
	e = &t->ent[i + 4];
	f = &t->ent[i + 5];
	g = &t->ent[i + 6];
	h = &t->ent[i + 7];
	a->act = WT_ARM_OTHER;
	a->other = b;
	a->arg = 4;
	wt_arm(t, a, 10);
	wt_arm(t, b, 10);
	c->act = WT_ARM_OTHER;
	c->other = d;
	c->arg = 2;
	wt_arm(t, c, 20);
	wt_arm(t, d, 3 * span);
	e->act = WT_STOP_OTHER;
	e->other = f;
	wt_arm(t, e, 30);
	wt_arm(t, f, 31);
	g->act = WT_ARM_OTHER;
	g->other = h;
	g->arg = 0;
	wt_arm(t, g, 40);
	wt_verify(t);

	wt_advance(t, start + 6 * (span + 1) + 1);

	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		x = &t->ent[i];
		KUNIT_EXPECT_EQ_MSG(test, x->fired, 6U, "period %llu",
				    periods[i]);
		KUNIT_EXPECT_EQ_MSG(test, x->fired_at,
				    start + 6 * max_t(u64, periods[i], 1),
				    "period %llu", periods[i]);
	}
	KUNIT_EXPECT_EQ(test, a->ret, 1);
	KUNIT_EXPECT_EQ(test, a->other_slot, TWHEEL_SLOT_EXPIRED);
	KUNIT_EXPECT_EQ(test, b->fired, 1U);
	KUNIT_EXPECT_EQ(test, b->fired_at, start + 10 + 4);
	KUNIT_EXPECT_EQ(test, c->ret, 1);
	KUNIT_EXPECT_LT(test, c->other_slot, t->w.nslots);
	KUNIT_EXPECT_EQ(test, d->fired, 1U);
	KUNIT_EXPECT_EQ(test, d->fired_at, start + 20 + 2);
	KUNIT_EXPECT_EQ(test, e->ret, 1);
	KUNIT_EXPECT_EQ(test, f->fired, 0U);
	KUNIT_EXPECT_EQ(test, g->ret, 0);
	KUNIT_EXPECT_EQ(test, h->fired, 1U);
	KUNIT_EXPECT_EQ(test, h->fired_at, start + 40 + 1);
	wt_verify(t);
	wt_assert_empty(t);
}

#define T_SEC	1ULL
#define T_MIN	(60 * T_SEC)
#define T_HOUR	(60 * T_MIN)
#define T_DAY	(24 * T_HOUR)

/* Where the paper's timer sits on @tick, and how many moves it has made. */
static void paper_where(const struct twheel *w, u64 tick, u32 *slot,
			u64 *migrated)
{
	u64 hour = 11 * T_DAY + 11 * T_HOUR, minute = hour + 15 * T_MIN;

	if (tick < hour) {
		*slot = w->first[2] + 11;	/* hours */
		*migrated = 0;
	} else if (tick < minute) {
		*slot = w->first[1] + 15;	/* minutes */
		*migrated = 1;
	} else {
		*slot = w->first[0] + 15;	/* seconds */
		*migrated = 2;
	}
}

/*
 * The paper's Fig. 7 and 8 through a real wheel: seconds, minutes, hours
 * and days; at 11 d 10 h 24 min 30 s a timer of 50 min 45 s is set.  It
 * waits in hour slot 11, moves to minute slot 15 at 11 d 11 h, to second
 * slot 15 at 11 d 11 h 15 min, and fires at 11 d 11 h 15 min 15 s, not a
 * tick before.  First with the clock jumping from stage to stage, then a
 * tick at a time.
 */
static void twheel_advance_paper_example(struct kunit *test)
{
	static const struct twheel_geometry geo = TWHEEL_GEOMETRY7(4, 60, 60, 24, 100);
	u64 start = 11 * T_DAY + 10 * T_HOUR + 24 * T_MIN + 30 * T_SEC;
	u64 hour = 11 * T_DAY + 11 * T_HOUR, minute = hour + 15 * T_MIN;
	u64 due = minute + 15 * T_SEC, tick, migrated;
	struct wt *t = test->priv;
	struct twheel *w = &t->w;
	struct wt_entry *x;
	u32 slot;

	wt_init(t, &geo, start, 1);
	x = &t->ent[0];
	KUNIT_ASSERT_EQ(test, wt_arm(t, x, 50 * T_MIN + 45 * T_SEC), 0);
	KUNIT_EXPECT_EQ(test, x->e.expires, due);

	/* The hour wheel, slot 11, until 11 d 11 h. */
	KUNIT_EXPECT_EQ(test, x->e.slot, w->first[2] + 11);
	KUNIT_EXPECT_EQ(test, twheel_next_work(w), hour);
	wt_advance(t, hour - 1);
	KUNIT_EXPECT_EQ(test, x->e.slot, w->first[2] + 11);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 0ULL);

	/* The minute wheel, slot 15, until 11 d 11 h 15 min. */
	wt_advance(t, hour);
	KUNIT_EXPECT_EQ(test, x->e.slot, w->first[1] + 15);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_next_work(w), minute);
	wt_advance(t, minute - 1);
	KUNIT_EXPECT_EQ(test, x->e.slot, w->first[1] + 15);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 1ULL);

	/* The second wheel, slot 15, until it is due. */
	wt_advance(t, minute);
	KUNIT_EXPECT_EQ(test, x->e.slot, w->first[0] + 15);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 2ULL);
	KUNIT_EXPECT_EQ(test, twheel_next_work(w), due);
	wt_advance(t, due - 1);
	KUNIT_EXPECT_EQ(test, x->fired, 0U);

	/* Due at 11 d 11 h 15 min 15 s. */
	wt_advance(t, due);
	KUNIT_EXPECT_EQ(test, x->fired, 1U);
	KUNIT_EXPECT_EQ(test, x->fired_at, due);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 2ULL);
	KUNIT_EXPECT_EQ(test, w->stats.expired, 1ULL);
	wt_assert_empty(t);

	/* Again, a tick at a time. */
	wt_init(t, &geo, start, 1);
	KUNIT_ASSERT_EQ(test, wt_arm(t, x, 50 * T_MIN + 45 * T_SEC), 0);
	for (tick = start + 1; tick < due; tick++) {
		wt_advance(t, tick);
		paper_where(w, tick, &slot, &migrated);
		KUNIT_ASSERT_EQ_MSG(test, x->e.slot, slot, "tick %llu", tick);
		KUNIT_ASSERT_EQ_MSG(test, w->stats.migrated, migrated,
				    "tick %llu", tick);
		KUNIT_ASSERT_EQ_MSG(test, x->fired, 0U, "tick %llu", tick);
	}
	wt_advance(t, due);
	KUNIT_EXPECT_EQ(test, x->fired_at, due);
	wt_assert_empty(t);
}

#define WT_MILLION	1000000

/* Wide wheels, as a million entries want. */
static const struct twheel_geometry million_geometries[] = {
	TWHEEL_GEOMETRY6(4096),
	TWHEEL_GEOMETRY7(4, 64, 64, 64, 64),
};

KUNIT_ARRAY_PARAM(million, million_geometries, geometry_desc);

/*
 * An interval for the million: Scheme 6 mostly within its one rotation,
 * some up to four; Scheme 7 spread over every level, some beyond the span.
 */
static u64 million_interval(struct wt *t)
{
	const struct twheel *w = &t->w;
	u64 span = wt_span(t), r = wt_below(t, 20);

	if (w->geo.scheme == TWHEEL_SCHEME6)
		return wt_below(t, r < 18 ? span : 4 * span);
	if (r == 19)
		return span + wt_below(t, span);
	return wt_below(t, w->gran[1 + r % w->geo.levels]);
}

/*
 * A million entries outstanding at once, over every level and beyond the
 * hierarchy's span; a fifth of them stopped then, more stopped as the
 * clock goes on in jumps, the rest each fired on its tick and in the order
 * of tick and arming (checked without the model, whose list would be too
 * slow: each expiry must come after the previous one).  Nothing is left
 * behind.
 */
static void twheel_add_million(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct wt *t = test->priv;
	struct twheel *w = &t->w;
	u64 end = 0, fired = 0;
	struct wt_entry *x;
	unsigned int i;

	t->seed = 0x94d049bb133111ebULL + geo->scheme;
	t->rnd = t->seed;
	t->model_on = false;
	wt_init(t, geo, wt_rand(t) >> 40, WT_MILLION);
	kunit_info(test, "seed %#llx: %u entries from tick %llu\n", t->seed,
		   WT_MILLION, t->now);

	for (i = 0; i < WT_MILLION; i++) {
		x = &t->ent[i];
		wt_arm(t, x, million_interval(t));
		end = max(end, x->due);
		if (!(i % 4096))
			cond_resched();
	}
	KUNIT_ASSERT_FALSE(test, t->failed);
	KUNIT_ASSERT_EQ(test, w->count, (unsigned long)WT_MILLION);
	for (i = 0; i < w->nslots; i++)
		KUNIT_ASSERT_EQ_MSG(test, test_bit(i, w->busy),
				    !list_empty(&w->slot[i]), "slot %u", i);

	for (i = 0; i < WT_MILLION; i++)
		if (!wt_below(t, 5))
			wt_stop(t, &t->ent[i]);
	KUNIT_ASSERT_FALSE(test, t->failed);

	while (t->now < end) {
		wt_advance(t, min(end, t->now + 1 +
				  wt_below(t, (end - t->now) / 64 + 1)));
		for (i = 0; i < 64; i++) {
			x = wt_rand_entry(t);
			if (x->pending)
				wt_stop(t, x);
		}
		KUNIT_ASSERT_FALSE(test, t->failed);
		cond_resched();
	}

	for (i = 0; i < WT_MILLION; i++) {
		x = &t->ent[i];
		KUNIT_ASSERT_FALSE_MSG(test, x->pending, "entry %u", i);
		KUNIT_ASSERT_LE_MSG(test, x->fired, 1U, "entry %u", i);
		if (x->fired)
			KUNIT_ASSERT_EQ_MSG(test, x->fired_at, x->due,
					    "entry %u", i);
		fired += x->fired;
	}
	kunit_info(test, "fired %llu, stopped %llu\n", fired, t->n.stopped);
	kunit_info(test, "wheel: ticks %llu skipped %llu migrated %llu\n",
		   w->stats.ticks, w->stats.skipped, w->stats.migrated);
	kunit_info(test, "wheel: early visits %llu\n", w->stats.early_visits);
	KUNIT_EXPECT_EQ(test, fired, t->n.fired);
	KUNIT_EXPECT_EQ(test, fired + t->n.stopped, (u64)WT_MILLION);
	KUNIT_EXPECT_EQ(test, w->stats.expired, fired);
	wt_assert_empty(t);
}

/* Entries of an array, and the tick each last expired on. */
struct at_ctx {
	struct twheel_entry e[4];
	u64 fired_at[4];
};

static void at_expiry(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct at_ctx *c = ctx;

	c->fired_at[e - c->e] = w->now;
}

/*
 * twheel_add_at() arms for an absolute tick: one already processed is
 * taken as the next tick, one too far ahead is refused with nothing
 * changed, and a clock that jumps past the due tick fires it on the way.
 */
static void twheel_add_at_absolute_ticks(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct at_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u64 start = 500;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, twheel_init(w, geo, start), 0);
	for (i = 0; i < 4; i++)
		twheel_entry_init(&c->e[i]);

	KUNIT_EXPECT_EQ(test, twheel_add_at(w, &c->e[0], 100), 0);
	KUNIT_EXPECT_EQ(test, c->e[0].expires, start + 1);
	KUNIT_EXPECT_EQ(test, twheel_add_at(w, &c->e[1], start), 0);
	KUNIT_EXPECT_EQ(test, c->e[1].expires, start + 1);
	KUNIT_EXPECT_EQ(test, twheel_add_at(w, &c->e[2], start + 777), 0);
	KUNIT_EXPECT_EQ(test, twheel_add_at(w, &c->e[2], start + 777), 1);
	KUNIT_EXPECT_EQ(test, twheel_add_at(w, &c->e[3],
					    start + TWHEEL_MAX_INTERVAL + 1),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, twheel_entry_pending(&c->e[3]));
	KUNIT_EXPECT_EQ(test, w->count, 3UL);

	twheel_advance(w, start + 10000, at_expiry, c);
	KUNIT_EXPECT_EQ(test, c->fired_at[0], start + 1);
	KUNIT_EXPECT_EQ(test, c->fired_at[1], start + 1);
	KUNIT_EXPECT_EQ(test, c->fired_at[2], start + 777);
	KUNIT_EXPECT_EQ(test, c->fired_at[3], 0ULL);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	twheel_destroy(w);
}

/* twheel_forward() moves an empty wheel's clock; arming then counts from it. */
static void twheel_forward_empty_wheel(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct at_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u64 far = 1000000007ULL;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, twheel_init(w, geo, 10), 0);
	twheel_forward(w, far);
	KUNIT_EXPECT_EQ(test, w->now, far);
	KUNIT_EXPECT_EQ(test, w->stats.skipped, far - 10);
	/* Backwards is ignored. */
	twheel_forward(w, 5);
	KUNIT_EXPECT_EQ(test, w->now, far);

	twheel_entry_init(&c->e[0]);
	KUNIT_ASSERT_EQ(test, twheel_add(w, &c->e[0], 3), 0);
	KUNIT_EXPECT_GT(test, twheel_next_work(w), far);
	KUNIT_EXPECT_LE(test, twheel_next_work(w), far + 3);
	twheel_advance(w, far + 3, at_expiry, c);
	KUNIT_EXPECT_EQ(test, c->fired_at[0], far + 3);
	/* A tick a level at most, however long the wheel had slept. */
	KUNIT_EXPECT_LE(test, w->stats.ticks, (u64)geo->levels);
	twheel_destroy(w);
}

/* twheel_first() hands out every pending entry, then NULL. */
static void twheel_first_empties_wheel(struct kunit *test)
{
	const struct twheel_geometry *geo = test->param_value;
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct twheel_entry *e = kunit_kcalloc(test, 50, sizeof(*e), GFP_KERNEL);
	struct twheel_entry *f;
	unsigned int i, seen = 0;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_EQ(test, twheel_init(w, geo, 0), 0);
	KUNIT_EXPECT_NULL(test, twheel_first(w));
	for (i = 0; i < 50; i++) {
		twheel_entry_init(&e[i]);
		KUNIT_ASSERT_EQ(test, twheel_add(w, &e[i], 1 + i * i * i), 0);
	}
	while ((f = twheel_first(w))) {
		KUNIT_ASSERT_TRUE(test, twheel_entry_pending(f));
		KUNIT_ASSERT_TRUE(test, twheel_del(w, f));
		KUNIT_ASSERT_LT(test, ++seen, 51U);
	}
	KUNIT_EXPECT_EQ(test, seen, 50U);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(w->busy, w->nslots));
	twheel_destroy(w);
}

static struct kunit_case twheel_wheel_cases[] = {
	TWHEEL_CASE_PARAM_SLOW(twheel_advance_sweep, sweep_gen_params),
	TWHEEL_CASE_PARAM_SLOW(twheel_advance_random, random_gen_params),
	KUNIT_CASE_PARAM(twheel_add_interval_limits, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_advance_same_tick_order, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_del_every_state, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_advance_rearm_from_expiry, wheel_gen_params),
	KUNIT_CASE(twheel_advance_paper_example),
	KUNIT_CASE_PARAM(twheel_add_at_absolute_ticks, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_first_empties_wheel, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_forward_empty_wheel, wheel_gen_params),
	TWHEEL_CASE_PARAM_SLOW(twheel_add_million, million_gen_params),
	{}
};

static struct kunit_suite twheel_wheel_suite = {
	.name = "twheel_wheel",
	.init = wt_case_init,
	.exit = wt_case_exit,
	.test_cases = twheel_wheel_cases,
};

kunit_test_suite(twheel_wheel_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's wheels at work");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
