// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_wheel: the wheels at work: entries armed, stopped and re-armed
 * with twheel_add() and twheel_del(), and the clock driven by hand with
 * twheel_advance(), on wheels of both schemes.
 *
 * Every expiry is checked against the reference model of model.h, which
 * twheel_schemes shares: the pending entries in a plain list sorted by
 * expiry tick and, within a tick, by the order they were last armed in
 * (the order twheel_core.c's DOC: block promises).  This file adapts a
 * wheel to it, and adds what only a wheel has: after each operation each
 * pending entry must sit in the slot twheel_place() names, the busy bits
 * must mark those slots and no
 * others, and twheel_next_work() must be the earliest visit of them.
 *
 * What a wheel does besides add, del and advance (twheel_add_at(),
 * twheel_forward(), twheel_abandon(), twheel_first(), the cursor) is
 * checked without the model, in wheel_ops_test.c.
 *
 * One module, twheel_model_test, holds the suites held to the model:
 * this one and twheel_schemes (schemes_test.c), linked with the model
 * (model.c, model_scenarios.c) once.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "twheel_compat.h"
#include "twheel_core.h"
#include "model.h"
#include "wheel_geometry.h"

/* A timer of the tests, with the model's view of it. */
struct wt_entry {
	struct twheel_entry e;
	struct model_entry m;
};

/* One case's wheel and model; test->priv. */
struct wt {
	struct model m;
	struct twheel w;
	bool live;		/* @w is initialised */
	unsigned long *busy;	/* the busy bits the model expects */
	unsigned int busy_cap;	/* bits allocated */
};

static struct wt *to_wt(struct model *m)
{
	return container_of(m, struct wt, m);
}

static struct twheel_entry *wt_e(const struct model_entry *x)
{
	return &container_of(x, struct wt_entry, m)->e;
}

/* Where an entry due on @due is placed at the model's clock. */
static struct twheel_place wt_place(struct wt *t, u64 due)
{
	struct twheel_place pl;

	twheel_place(&t->w, t->m.now, due, &pl);
	return pl;
}

/* The slot an entry due on @due is placed in at the model's clock. */
static u32 wt_slot(struct wt *t, u64 due)
{
	return wt_place(t, due).slot;
}

/*
 * The slot of the level above an entry's that is being drained into its
 * level, if the entry's tick is one it holds; U32_MAX if none is.  Such an
 * entry may still be waiting in it.
 */
static u32 wt_drain_slot(struct wt *t, u64 due)
{
	const struct twheel *w = &t->w;
	unsigned int n = wt_place(t, due).level + 1;

	if (n >= w->geo.levels || list_empty(&w->drain[n]) ||
	    div64_u64(due, w->gran[n]) != w->drain_q[n])
		return U32_MAX;
	return w->first[n] + twheel_slot_index(w, n, due);
}

static void wt_entry_init(struct model *m, struct model_entry *x)
{
	twheel_entry_init(wt_e(x));
}

/* A refused add leaves the wheel as it was (model_arm() checks the entry). */
static int wt_add(struct model *m, struct model_entry *x, u64 interval)
{
	struct twheel *w = &to_wt(m)->w;
	struct twheel_stats stats = w->stats;
	unsigned long count = w->count;
	int ret;

	ret = twheel_add(w, wt_e(x), interval);
	if (ret < 0)
		model_check(m, x, w->count == count &&
			    !memcmp(&w->stats, &stats, sizeof(stats)),
			    "refused add changed the wheel");
	return ret;
}

static bool wt_del(struct model *m, struct model_entry *x)
{
	return twheel_del(&to_wt(m)->w, wt_e(x));
}

static void wt_expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	model_expired(ctx, &container_of(e, struct wt_entry, e)->m, w->now);
}

static void wt_advance(struct model *m, u64 to)
{
	twheel_advance(&to_wt(m)->w, to, wt_expire, m);
}

static u64 wt_now(struct model *m)
{
	return to_wt(m)->w.now;
}

static unsigned long wt_count(struct model *m)
{
	return to_wt(m)->w.count;
}

static u64 wt_next_work(struct model *m)
{
	return twheel_next_work(&to_wt(m)->w);
}

static void wt_view(struct model *m, const struct model_entry *x,
		    struct model_view *v)
{
	const struct twheel_entry *e = wt_e(x);

	v->pending = twheel_entry_pending(e);
	v->expired = twheel_entry_due(&to_wt(m)->w, e);
	v->expires = e->expires;
	v->slot = e->slot;
}

/*
 * An idle entry has no slot; a pending one not due on the tick being
 * processed is in the slot twheel_place() names for
 * its tick at the model's clock, or still waits in the slot above that is
 * draining into it.
 */
static bool wt_check_entry(struct model *m, const struct model_entry *x)
{
	const struct twheel_entry *e = wt_e(x);
	struct wt *t = to_wt(m);

	if (!x->pending)
		return model_check(m, x, e->slot == TWHEEL_SLOT_IDLE,
				   "idle entry has a slot");
	if (x->due == m->now)
		return true;
	return model_check(m, x, e->slot == wt_slot(t, x->due) ||
			   e->slot == wt_drain_slot(t, x->due),
			   "pending entry not in its slot");
}

/* Some level has a drain going on. */
static bool wt_draining(const struct twheel *w)
{
	unsigned int n;

	for (n = 1; n < w->geo.levels; n++)
		if (!list_empty(&w->drain[n]))
			return true;
	return false;
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
 * The busy bits are set for the slots of pending entries, and no others;
 * twheel_next_work() is the next tick while a level drains, and otherwise
 * the earliest visit tick (twheel_place()) of the pending entries (U64_MAX for
 * none); never after the earliest expiry, and for Scheme 6 equal to it
 * when every entry is due within one rotation.  twheel_next_hint() lies
 * after the clock and not after twheel_next_work().
 */
static void wt_verify(struct model *m)
{
	struct wt *t = to_wt(m);
	const struct twheel *w = &t->w;
	u64 visit = U64_MAX, first = U64_MAX, next;
	const struct model_entry *x;
	bool one_rotation = true;
	unsigned int i;

	bitmap_zero(t->busy, w->nslots);
	for (i = 0; i < m->nent; i++) {
		x = model_ent(m, i);
		if (!x->pending)
			continue;
		__set_bit(wt_e(x)->slot, t->busy);
		visit = min(visit, wt_place(t, x->due).visit);
		first = min(first, x->due);
		if (x->due - m->now > w->geo.slots[0])
			one_rotation = false;
	}
	KUNIT_ASSERT_EQ_MSG(m->test, wt_busy_mismatch(t), w->nslots,
			    MODEL_AT " busy bit wrong", m->seed, m->op, m->now);
	if (wt_draining(w))
		visit = m->now + 1;
	next = twheel_next_work(w);
	KUNIT_ASSERT_EQ_MSG(m->test, next, visit, MODEL_AT " next work",
			    m->seed, m->op, m->now);
	KUNIT_ASSERT_LE_MSG(m->test, next, first, MODEL_AT " next work",
			    m->seed, m->op, m->now);
	if (w->geo.scheme == TWHEEL_SCHEME6 && one_rotation)
		KUNIT_ASSERT_EQ_MSG(m->test, next, first,
				    MODEL_AT " next work", m->seed, m->op, m->now);
	/* The hint: after the clock, never after the next tick with work. */
	KUNIT_ASSERT_GT_MSG(m->test, twheel_next_hint(w), m->now,
			    MODEL_AT " next hint", m->seed, m->op, m->now);
	KUNIT_ASSERT_LE_MSG(m->test, twheel_next_hint(w), next,
			    MODEL_AT " next hint", m->seed, m->op, m->now);
}

/* No busy bit, no entry in any slot, no work. */
static void wt_assert_empty(struct model *m)
{
	const struct twheel *w = &to_wt(m)->w;
	unsigned int i;

	KUNIT_ASSERT_TRUE_MSG(m->test, bitmap_empty(w->busy, w->nslots),
			      MODEL_AT, m->seed, m->op, m->now);
	for (i = 0; i < w->nslots; i++)
		KUNIT_ASSERT_TRUE_MSG(m->test, list_empty(&w->slot[i]),
				      MODEL_AT " slot %u", m->seed, m->op, m->now, i);
	KUNIT_ASSERT_EQ_MSG(m->test, twheel_next_work(w), U64_MAX, MODEL_AT,
			    m->seed, m->op, m->now);
	KUNIT_ASSERT_EQ_MSG(m->test, twheel_next_hint(w), U64_MAX, MODEL_AT,
			    m->seed, m->op, m->now);
}

static const struct model_ops wt_ops = {
	.name = "wheel",
	.entry_init = wt_entry_init,
	.add = wt_add,
	.del = wt_del,
	.advance = wt_advance,
	.now = wt_now,
	.count = wt_count,
	.view = wt_view,
	.check_entry = wt_check_entry,
	.verify = wt_verify,
	.assert_empty = wt_assert_empty,
	.next_work = wt_next_work,
};

/* Take every entry off the wheel, then free the wheel. */
static void wt_teardown(struct wt *t)
{
	unsigned int i;

	if (!t->live)
		return;
	for (i = 0; i < t->m.nent; i++)
		twheel_del(&t->w, wt_e(model_ent(&t->m, i)));
	twheel_destroy(&t->w);
	t->live = false;
}

/*
 * A new wheel of @geo at tick @now, @nent idle entries, an empty model
 * that aims random runs at the wheel's slot boundaries.
 */
static void wt_init(struct wt *t, const struct twheel_geometry *geo, u64 now,
		    unsigned int nent)
{
	struct model_shape shape = { .max_interval = TWHEEL_MAX_INTERVAL };
	struct kunit *test = t->m.test;
	unsigned int n;

	wt_teardown(t);
	KUNIT_ASSERT_EQ(test, twheel_init(&t->w, geo, now), 0);
	t->live = true;
	if (t->w.nslots > t->busy_cap) {
		bitmap_free(t->busy);
		t->busy = bitmap_zalloc(t->w.nslots, GFP_KERNEL);
		t->busy_cap = t->busy ? t->w.nslots : 0;
		KUNIT_ASSERT_NOT_NULL(test, t->busy);
	}
	for (n = 0; n <= geo->levels; n++)
		shape.gran[n] = t->w.gran[n];
	shape.span = t->w.gran[geo->levels];
	/* Long jumps, over many rotations of entries waiting at the top. */
	shape.far_spans = 64;
	model_reset(&t->m, &shape, now, nent);
}

static int wt_case_init(struct kunit *test)
{
	struct wt *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	test->priv = t;
	return model_case_init(&t->m, test, &wt_ops, sizeof(struct wt_entry),
			       offsetof(struct wt_entry, m));
}

static void wt_case_exit(struct kunit *test)
{
	struct wt *t = test->priv;

	wt_teardown(t);
	model_case_exit(&t->m);
	bitmap_free(t->busy);
}

/* Small wheels, so that sweeps cross every kind of boundary many times. */
static const struct wt_geometry sweep_geometries[] = {
	{ "scheme 6: 2", TWHEEL_GEOMETRY6(2) },
	{ "scheme 6: 8", TWHEEL_GEOMETRY6(8) },
	{ "scheme 6: 64", TWHEEL_GEOMETRY6(64) },
	{ "scheme 7: 4 4", TWHEEL_GEOMETRY7(2, 4, 4) },
	{ "scheme 7: 8 8", TWHEEL_GEOMETRY7(2, 8, 8) },
	{ "scheme 7: 4 3 5", TWHEEL_GEOMETRY7(3, 4, 3, 5) },
	{ "scheme 7: 4 4 4", TWHEEL_GEOMETRY7(3, 4, 4, 4) },
	{ "scheme 7: 2 3 2 3", TWHEEL_GEOMETRY7(4, 2, 3, 2, 3) },
	{ "scheme 7: 2 2 2 2 2 2", TWHEEL_GEOMETRY7(6, 2, 2, 2, 2, 2, 2) },
};

KUNIT_ARRAY_PARAM_DESC(sweep, sweep_geometries, desc);

/*
 * Every interval up to @last from @start, all armed at once; the clock goes
 * a tick at a time, or in one jump.
 */
static void sweep_together(struct wt *t, const struct twheel_geometry *geo,
			   u64 start, u64 last, bool by_tick)
{
	struct model *m = &t->m;
	u64 i;

	wt_init(t, geo, start, last + 1);
	m->op = start;
	for (i = 0; i <= last; i++)
		KUNIT_ASSERT_EQ_MSG(m->test, model_arm(m, model_ent(m, i), i),
				    0, "start %llu interval %llu", start, i);
	model_verify(m);
	for (i = 1; by_tick && i < last; i++) {
		model_advance(m, start + i);
		/* Intervals 0 and 1 are both due on start + 1. */
		KUNIT_ASSERT_EQ_MSG(m->test, m->n.fired, i + 1,
				    "start %llu tick %llu", start, start + i);
	}
	model_advance(m, start + last);
	KUNIT_ASSERT_EQ_MSG(m->test, m->n.fired, last + 1, "start %llu",
			    start);
	model_assert_empty(m);
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
	struct model *m = &t->m;
	struct model_entry *x;

	wt_init(t, geo, base, 1);
	x = model_ent(m, 0);
	for (r = 0; r < span; r++) {
		for (i = 0; i <= last; i++) {
			start = m->now + (r + span - m->now % span) % span;
			due = start + max_t(u64, i, 1);
			model_advance(m, start);
			m->op = start;
			KUNIT_ASSERT_EQ_MSG(m->test, model_arm(m, x, i), 0,
					    "start %llu interval %llu",
					    start, i);
			model_verify(m);
			model_advance(m, due - 1);
			KUNIT_ASSERT_EQ_MSG(m->test, x->fired, 0U,
					    "start %llu interval %llu",
					    start, i);
			model_verify(m);
			model_advance(m, due);
			KUNIT_ASSERT_EQ_MSG(m->test, x->fired, 1U,
					    "start %llu interval %llu",
					    start, i);
			x->fired = 0;
			model_assert_empty(m);
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
	const struct wt_geometry *p = test->param_value;
	const struct twheel_geometry *geo = &p->geo;
	struct wt *t = test->priv;
	u64 span = twheel_span(geo), last = 3 * span + 1;
	u64 far = 0x123456789ULL * span + 7, s;

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

KUNIT_ARRAY_PARAM_DESC(random, random_cases, desc);

/*
 * The differential test: model_random()'s WT_RANDOM_OPS random operations
 * on WT_RANDOM_ENTRIES entries, the whole wheel checked after each one.
 * The wheel must have taken its own rare paths too: entries looked at
 * before they were due, and for Scheme 7 cascades.
 */
static void twheel_advance_random(struct kunit *test)
{
	const struct random_case *c = test->param_value;
	struct wt *t = test->priv;
	const struct twheel_stats *stats = &t->w.stats;

	wt_init(t, &c->geo, model_seed(&t->m, c->seed), WT_RANDOM_ENTRIES);
	model_random(&t->m, WT_RANDOM_OPS, 1);

	kunit_info(test, "wheel: ticks %llu skipped %llu migrated %llu\n",
		   stats->ticks, stats->skipped, stats->migrated);
	kunit_info(test, "wheel: early visits %llu expired %llu\n",
		   stats->early_visits, stats->expired);
	KUNIT_EXPECT_EQ(test, stats->expired, t->m.n.fired);
	KUNIT_EXPECT_GT(test, stats->early_visits, 0ULL);
	if (c->geo.scheme == TWHEEL_SCHEME7)
		KUNIT_EXPECT_GT(test, stats->migrated, 0ULL);
}

/*
 * Interval 0 is taken as 1; 1 and TWHEEL_MAX_INTERVAL are taken as they
 * are; one tick more is refused with nothing changed, entry or wheel,
 * whether the entry is idle or pending; and an add of a pending entry
 * re-arms it and returns 1 (model_add_interval_limits()).
 */
static void twheel_add_interval_limits(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	struct wt *t = test->priv;

	wt_init(t, &p->geo, 1000, MODEL_LIMITS_ENTRIES);
	model_add_interval_limits(&t->m);
}

/*
 * Entries due on one tick run in the order they were last armed, whatever
 * level each went into: the tick is beyond the hierarchy's rotation when
 * the first of them is armed (model_same_tick_order()).
 */
static void twheel_advance_same_tick_order(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	struct wt *t = test->priv;
	u64 span = twheel_span(&p->geo);

	wt_init(t, &p->geo, 1, MODEL_ORDER_ENTRIES);
	model_same_tick_order(&t->m, span + span / 2 + 1);
}

/*
 * Stop an entry that has moved on from where it was armed: after its first
 * visit (an early one: it is due beyond the rotation), and after the wheel
 * has looked at it for the last time before it is due, which for Scheme 7
 * follows migrations.  Neither runs.
 */
static void del_after_visits(struct wt *t, struct model_entry *x,
			     struct model_entry *y)
{
	struct model *m = &t->m;
	struct kunit *test = m->test;
	struct twheel *w = &t->w;
	u64 span = m->shape.span, moves = w->stats.early_visits;

	model_arm(m, x, 2 * span + span / 2 + 1);
	model_arm(m, y, 2 * span + span / 2 + 1);
	model_advance(m, twheel_next_work(w));
	KUNIT_EXPECT_GT(test, w->stats.early_visits, moves);
	model_verify(m);
	KUNIT_EXPECT_TRUE(test, model_stop(m, y));

	moves = w->stats.migrated;
	while (twheel_next_work(w) < x->due) {
		model_advance(m, twheel_next_work(w));
		model_verify(m);
	}
	if (w->geo.scheme == TWHEEL_SCHEME7)
		KUNIT_EXPECT_GT(test, w->stats.migrated, moves);
	KUNIT_EXPECT_TRUE(test, model_stop(m, x));
	model_verify(m);
	model_advance(m, x->due + 1);
	KUNIT_EXPECT_EQ(test, x->fired, 0U);
	KUNIT_EXPECT_EQ(test, y->fired, 0U);
}

/*
 * twheel_del() from every state of model_del_every_state(), then from
 * those only a wheel has: pending in each level and beyond the hierarchy's
 * rotation; pending after visits.  It returns whether the entry was
 * pending, and a stopped entry never runs.
 */
static void twheel_del_every_state(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	const struct twheel_geometry *geo = &p->geo;
	struct wt *t = test->priv;
	struct model *m = &t->m;
	struct twheel *w = &t->w;
	unsigned int n, top = geo->levels - 1;
	u64 span = twheel_span(geo), start = 5 * span;
	struct model_entry *x;

	wt_init(t, geo, start, MODEL_DEL_ENTRIES);
	model_del_every_state(m);

	/*
	 * Pending in each level: every digit of the clock is 0, so an entry
	 * 2 * gran[n] ticks on lies two slots ahead at level n, beyond the
	 * window of level n - 1, and within the current slot of level n + 1.
	 * Then one beyond the rotation, at the top level.
	 */
	wt_init(t, geo, start, geo->levels + 3);
	for (n = 0; n < geo->levels; n++) {
		u64 ahead = n ? 2 * w->gran[n] : 1;
		struct twheel_place pl;

		x = model_ent(m, n);
		twheel_place(w, start, start + ahead, &pl);
		KUNIT_ASSERT_EQ(test, pl.level, n);
		model_arm(m, x, ahead);
		KUNIT_EXPECT_GE_MSG(test, wt_e(x)->slot, w->first[n],
				    "level %u", n);
		KUNIT_EXPECT_LT_MSG(test, wt_e(x)->slot,
				    w->first[n] + w->size[n], "level %u", n);
	}
	x = model_ent(m, geo->levels);
	model_arm(m, x, 2 * span + 1);
	KUNIT_EXPECT_GE(test, wt_e(x)->slot, w->first[top]);
	model_verify(m);
	for (n = 0; n <= geo->levels; n++) {
		x = model_ent(m, n);
		KUNIT_EXPECT_TRUE_MSG(test, model_stop(m, x), "level %u", n);
		KUNIT_EXPECT_EQ_MSG(test, wt_e(x)->slot, TWHEEL_SLOT_IDLE,
				    "level %u", n);
		model_verify(m);
	}
	model_assert_empty(m);
	model_advance(m, start + 3 * span + 2);
	KUNIT_EXPECT_EQ(test, m->n.fired, 0ULL);

	/* Pending after the wheel has looked at it. */
	del_after_visits(t, model_ent(m, geo->levels + 1),
			 model_ent(m, geo->levels + 2));
	model_verify(m);
	model_assert_empty(m);
}

/*
 * Adds and dels from inside one twheel_advance() (model_rearm_from_expiry()),
 * with periods of just under and over the hierarchy's span.
 */
static void twheel_advance_rearm_from_expiry(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	struct wt *t = test->priv;

	wt_init(t, &p->geo, 3, MODEL_REARM_ENTRIES);
	model_rearm_from_expiry(&t->m);
}

#define T_SEC	1ULL
#define T_MIN	(60 * T_SEC)
#define T_HOUR	(60 * T_MIN)
#define T_DAY	(24 * T_HOUR)

/*
 * Where the paper's timer sits on @tick, and how many moves it has made.
 * Levels below the top have twice the geometry's slots: the minute wheel's
 * slot 75 is minute 15 of the next hour, the second wheel's slot 75 second
 * 15 of the next minute.
 */
static void paper_where(const struct twheel *w, u64 tick, u32 *slot,
			u64 *migrated)
{
	u64 drain = 11 * T_DAY + 11 * T_HOUR + 14 * T_MIN;

	if (tick < drain) {
		*slot = w->first[1] + 75;	/* minutes */
		*migrated = 0;
	} else {
		*slot = w->first[0] + 75;	/* seconds */
		*migrated = 1;
	}
}

/*
 * The paper's Fig. 7 and 8 through a real wheel: seconds, minutes, hours
 * and days; at 11 d 10 h 24 min 30 s a timer of 50 min 45 s is set.  The
 * paper puts it in hour slot 11; twheel's minute wheel holds the next hour
 * too, so it goes straight to minute 15 of that hour.  The minute wheel
 * drains that slot from 11 d 11 h 14 min, the minute before it, so the
 * timer moves to the second wheel then, and fires at 11 d 11 h 15 min 15 s,
 * not a tick before: one move where the paper makes two.  First with the
 * clock jumping from stage to stage, then a tick at a time.
 */
static void twheel_advance_paper_example(struct kunit *test)
{
	static const struct twheel_geometry geo = TWHEEL_GEOMETRY7(4, 60, 60, 24, 100);
	u64 start = 11 * T_DAY + 10 * T_HOUR + 24 * T_MIN + 30 * T_SEC;
	u64 drain = 11 * T_DAY + 11 * T_HOUR + 14 * T_MIN;
	u64 due = drain + T_MIN + 15 * T_SEC, tick, migrated;
	struct wt *t = test->priv;
	struct model *m = &t->m;
	struct twheel *w = &t->w;
	struct model_entry *x;
	u32 slot;

	wt_init(t, &geo, start, 1);
	x = model_ent(m, 0);
	KUNIT_ASSERT_EQ(test, model_arm(m, x, 50 * T_MIN + 45 * T_SEC), 0);
	KUNIT_EXPECT_EQ(test, wt_e(x)->expires, due);

	/* The minute wheel, slot 75, until 11 d 11 h 14 min. */
	KUNIT_EXPECT_EQ(test, wt_e(x)->slot, w->first[1] + 75);
	KUNIT_EXPECT_EQ(test, twheel_next_work(w), drain);
	model_advance(m, drain - 1);
	KUNIT_EXPECT_EQ(test, wt_e(x)->slot, w->first[1] + 75);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 0ULL);

	/* The second wheel, slot 75, until it is due. */
	model_advance(m, drain);
	KUNIT_EXPECT_EQ(test, wt_e(x)->slot, w->first[0] + 75);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_next_work(w), due);
	model_advance(m, due - 1);
	KUNIT_EXPECT_EQ(test, x->fired, 0U);

	/* Due at 11 d 11 h 15 min 15 s. */
	model_advance(m, due);
	KUNIT_EXPECT_EQ(test, x->fired, 1U);
	KUNIT_EXPECT_EQ(test, x->fired_at, due);
	KUNIT_EXPECT_EQ(test, w->stats.migrated, 1ULL);
	KUNIT_EXPECT_EQ(test, w->stats.expired, 1ULL);
	model_assert_empty(m);

	/* Again, a tick at a time. */
	wt_init(t, &geo, start, 1);
	x = model_ent(m, 0);
	KUNIT_ASSERT_EQ(test, model_arm(m, x, 50 * T_MIN + 45 * T_SEC), 0);
	for (tick = start + 1; tick < due; tick++) {
		model_advance(m, tick);
		paper_where(w, tick, &slot, &migrated);
		KUNIT_ASSERT_EQ_MSG(test, wt_e(x)->slot, slot, "tick %llu", tick);
		KUNIT_ASSERT_EQ_MSG(test, w->stats.migrated, migrated,
				    "tick %llu", tick);
		KUNIT_ASSERT_EQ_MSG(test, x->fired, 0U, "tick %llu", tick);
	}
	model_advance(m, due);
	KUNIT_EXPECT_EQ(test, x->fired_at, due);
	model_assert_empty(m);
}

#define WT_MILLION	1000000

/* Wide wheels, as a million entries want. */
static const struct wt_geometry million_geometries[] = {
	{ "scheme 6: 4096", TWHEEL_GEOMETRY6(4096) },
	{ "scheme 7: 64 64 64 64", TWHEEL_GEOMETRY7(4, 64, 64, 64, 64) },
};

KUNIT_ARRAY_PARAM_DESC(million, million_geometries, desc);

/*
 * An interval for the million: Scheme 6 mostly within its one rotation,
 * some up to four; Scheme 7 spread over every level, some beyond the span.
 */
static u64 million_interval(struct wt *t)
{
	const struct twheel *w = &t->w;
	struct model *m = &t->m;
	u64 span = m->shape.span, r = model_below(m, 20);

	if (w->geo.scheme == TWHEEL_SCHEME6)
		return model_below(m, r < 18 ? span : 4 * span);
	if (r == 19)
		return span + model_below(m, span);
	return model_below(m, w->gran[1 + r % w->geo.levels]);
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
	const struct wt_geometry *p = test->param_value;
	struct wt *t = test->priv;
	struct model *m = &t->m;
	struct twheel *w = &t->w;
	u64 end = 0, fired = 0;
	struct model_entry *x;
	unsigned int i;

	m->ordered = false;
	wt_init(t, &p->geo,
		model_seed(m, 0x94d049bb133111ebULL + p->geo.scheme) >> 12,
		WT_MILLION);
	kunit_info(test, "seed %#llx: %u entries from tick %llu\n", m->seed,
		   WT_MILLION, m->now);

	for (i = 0; i < WT_MILLION; i++) {
		x = model_ent(m, i);
		model_arm(m, x, million_interval(t));
		end = max(end, x->due);
		if (!(i % 4096))
			cond_resched();
	}
	KUNIT_ASSERT_FALSE(test, m->failed);
	KUNIT_ASSERT_EQ(test, w->count, (unsigned long)WT_MILLION);
	for (i = 0; i < w->nslots; i++)
		KUNIT_ASSERT_EQ_MSG(test, test_bit(i, w->busy),
				    !list_empty(&w->slot[i]), "slot %u", i);

	for (i = 0; i < WT_MILLION; i++)
		if (!model_below(m, 5))
			model_stop(m, model_ent(m, i));
	KUNIT_ASSERT_FALSE(test, m->failed);

	while (m->now < end) {
		model_advance(m, min(end, m->now + 1 +
				     model_below(m, (end - m->now) / 64 + 1)));
		for (i = 0; i < 64; i++) {
			x = model_ent(m, model_below(m, WT_MILLION));
			if (x->pending)
				model_stop(m, x);
		}
		KUNIT_ASSERT_FALSE(test, m->failed);
		cond_resched();
	}

	for (i = 0; i < WT_MILLION; i++) {
		x = model_ent(m, i);
		KUNIT_ASSERT_FALSE_MSG(test, x->pending, "entry %u", i);
		KUNIT_ASSERT_LE_MSG(test, x->fired, 1U, "entry %u", i);
		if (x->fired)
			KUNIT_ASSERT_EQ_MSG(test, x->fired_at, x->due,
					    "entry %u", i);
		fired += x->fired;
	}
	kunit_info(test, "fired %llu, stopped %llu\n", fired, m->n.stopped);
	kunit_info(test, "wheel: ticks %llu skipped %llu migrated %llu\n",
		   w->stats.ticks, w->stats.skipped, w->stats.migrated);
	kunit_info(test, "wheel: early visits %llu\n", w->stats.early_visits);
	KUNIT_EXPECT_EQ(test, fired, m->n.fired);
	KUNIT_EXPECT_EQ(test, fired + m->n.stopped, (u64)WT_MILLION);
	KUNIT_EXPECT_EQ(test, w->stats.expired, fired);
	model_assert_empty(m);
}

static struct kunit_case twheel_wheel_cases[] = {
	TWHEEL_CASE_PARAM_SLOW(twheel_advance_sweep, sweep_gen_params),
	TWHEEL_CASE_PARAM_SLOW(twheel_advance_random, random_gen_params),
	KUNIT_CASE_PARAM(twheel_add_interval_limits, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_advance_same_tick_order, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_del_every_state, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_advance_rearm_from_expiry, wheel_gen_params),
	KUNIT_CASE(twheel_advance_paper_example),
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

MODULE_DESCRIPTION("KUnit tests of twheel's wheels and of every timer scheme against a reference model");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
