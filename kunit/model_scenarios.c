// SPDX-License-Identifier: GPL-2.0
/*
 * The directed scenarios of the reference model (see model.h), which the
 * wheel and scheme suites, and user/fuzz.c, run on every geometry: the
 * interval limits, same-tick order, a cancel in every state, and re-arms
 * from the expiry function.  They use only the model's calls.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "model.h"

/**
 * model_add_interval_limits() - the shortest and longest intervals
 * @m: the model, just reset with %MODEL_LIMITS_ENTRIES entries.
 *
 * Interval 0 is taken as 1, and 0 runs before 1 on that tick, being armed
 * first; the longest interval is taken as it is, one tick more is refused
 * with nothing changed (model_arm() compares the timer), whether the entry
 * is idle or pending; and an add of a pending entry re-arms it and returns
 * 1.  The longest runs on its tick, if the clock can get there soon;
 * otherwise it waits, rotation on rotation.
 */
void model_add_interval_limits(struct model *m)
{
	struct model_entry *zero = model_ent(m, 0), *one = model_ent(m, 1);
	struct model_entry *max = model_ent(m, 2), *idle = model_ent(m, 3);
	struct model_entry *p = model_ent(m, 4);
	u64 start = m->now, longest = m->shape.max_interval;
	u64 soon = max_t(u64, 4096, 3 * m->shape.span);
	struct kunit *test = m->test;

	/* model_arm() checks each due tick: 0 and 1 both mean the next. */
	KUNIT_EXPECT_EQ(test, model_arm(m, zero, 0), 0);
	KUNIT_EXPECT_EQ(test, model_arm(m, one, 1), 0);
	KUNIT_EXPECT_EQ(test, model_arm(m, max, longest), 0);
	KUNIT_EXPECT_EQ(test, model_arm(m, p, 5), 0);
	model_verify(m);

	/* One tick longer is refused and changes nothing, idle or pending. */
	if (model_bounded(m)) {
		KUNIT_EXPECT_EQ(test, model_arm(m, idle, longest + 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, model_arm(m, p, longest + 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, model_arm(m, p, U64_MAX), -EINVAL);
		KUNIT_EXPECT_EQ(test, m->n.refused, 3ULL);
	}
	model_verify(m);

	/* An add of a pending entry moves it, and says it was pending. */
	KUNIT_EXPECT_EQ(test, model_arm(m, p, 9), 1);
	model_verify(m);

	model_advance(m, start + 1);
	KUNIT_ASSERT_EQ(test, m->nlog, 2U);
	KUNIT_EXPECT_EQ(test, m->log[0], zero->id);
	KUNIT_EXPECT_EQ(test, m->log[1], one->id);
	model_advance(m, start + 8);
	KUNIT_EXPECT_EQ(test, p->fired, 0U);
	model_advance(m, start + 9);
	KUNIT_EXPECT_EQ(test, p->fired, 1U);

	if (longest <= soon) {
		model_advance(m, start + longest - 1);
		KUNIT_EXPECT_EQ(test, max->fired, 0U);
		model_advance(m, start + longest);
		KUNIT_EXPECT_EQ(test, max->fired, 1U);
	} else {
		model_advance(m, start + soon);
		KUNIT_EXPECT_EQ(test, max->fired, 0U);
		model_verify(m);
		KUNIT_EXPECT_TRUE(test, model_stop(m, max));
	}
	KUNIT_EXPECT_EQ(test, idle->fired, 0U);
	model_verify(m);
	model_assert_empty(m);
}

/**
 * model_same_tick_order() - one tick's entries run in arming order
 * @m: the model, just reset with %MODEL_ORDER_ENTRIES entries.
 * @dist: ticks from the clock to T, the tick they share: beyond a wheel's
 *	rotation, so that they are armed into different levels or rounds.
 *
 * Entries due on one tick run in the order they were last armed, whatever
 * interval each was armed with and wherever it went.  Due on T: K, armed
 * @dist / 6 ticks on; J, armed later with the interval P had been armed
 * with before K (so that where intervals have queues, J's is the older); B
 * later still; C two ticks before; then A, armed first of all, is re-armed
 * for T and so goes after C; F, armed for T by D's expiry on the tick
 * before, goes last.  D, due on T - 1, runs ahead of G and H, armed for
 * that tick later with intervals 0 and 1; E, due on T + 1, after them all.
 */
void model_same_tick_order(struct model *m, u64 dist)
{
	struct model_entry *a = model_ent(m, 0), *b = model_ent(m, 1);
	struct model_entry *c = model_ent(m, 2), *d = model_ent(m, 3);
	struct model_entry *e = model_ent(m, 4), *f = model_ent(m, 5);
	struct model_entry *g = model_ent(m, 6), *h = model_ent(m, 7);
	struct model_entry *j = model_ent(m, 8), *k = model_ent(m, 9);
	struct model_entry *p = model_ent(m, 10);
	u64 start = m->now, due = start + dist;
	struct kunit *test = m->test;

	d->act = MODEL_ARM_OTHER;
	d->other = f;
	d->arg = 1;

	model_arm(m, a, due - m->now);
	model_arm(m, e, due + 1 - m->now);
	model_arm(m, d, due - 1 - m->now);
	model_arm(m, p, dist - dist / 3);
	model_advance(m, start + dist / 6);
	model_arm(m, k, due - m->now);
	model_advance(m, start + dist / 3);
	model_arm(m, j, dist - dist / 3);
	model_advance(m, start + dist / 2);
	model_verify(m);
	model_arm(m, b, due - m->now);
	model_advance(m, due - 2);
	model_verify(m);
	model_arm(m, c, 2);
	model_arm(m, g, 0);
	model_arm(m, h, 1);
	KUNIT_EXPECT_EQ(test, model_arm(m, a, 2), 1);
	model_verify(m);

	model_advance(m, due + 1);
	KUNIT_ASSERT_EQ(test, m->nlog, 11U);
	KUNIT_EXPECT_EQ(test, m->log[0], p->id);
	KUNIT_EXPECT_EQ(test, m->log[1], d->id);
	KUNIT_EXPECT_EQ(test, m->log[2], g->id);
	KUNIT_EXPECT_EQ(test, m->log[3], h->id);
	KUNIT_EXPECT_EQ(test, m->log[4], k->id);
	KUNIT_EXPECT_EQ(test, m->log[5], j->id);
	KUNIT_EXPECT_EQ(test, m->log[6], b->id);
	KUNIT_EXPECT_EQ(test, m->log[7], c->id);
	KUNIT_EXPECT_EQ(test, m->log[8], a->id);
	KUNIT_EXPECT_EQ(test, m->log[9], f->id);
	KUNIT_EXPECT_EQ(test, m->log[10], e->id);
	KUNIT_EXPECT_EQ(test, j->fired_at, due);
	KUNIT_EXPECT_EQ(test, f->fired_at, due);
	KUNIT_EXPECT_EQ(test, m->n.same_tick, 7ULL);
	model_verify(m);
	model_assert_empty(m);
}

/**
 * model_del_every_state() - a del in every state of an entry
 * @m: the model, just reset with %MODEL_DEL_ENTRIES entries.
 *
 * Never armed; pending; stopped already; after it ran; pending for long,
 * beside a twin armed alike that still runs; and due on the tick being
 * processed but not yet handed over, from another entry's expiry function,
 * first or last of its tick.  An entry that stops itself from its expiry
 * function finds it idle.  A del returns whether the entry was pending,
 * and a stopped entry never runs.
 */
void model_del_every_state(struct model *m)
{
	u64 len = min_t(u64, m->shape.max_interval, 400);
	struct kunit *test = m->test;
	struct model_entry *x, *y, *a, *b, *c, *d, *e;

	/* Never armed, then pending, then stopped. */
	x = model_ent(m, 0);
	KUNIT_EXPECT_FALSE(test, model_stop(m, x));
	KUNIT_EXPECT_EQ(test, model_arm(m, x, 5), 0);
	KUNIT_EXPECT_TRUE(test, model_stop(m, x));
	KUNIT_EXPECT_FALSE(test, model_stop(m, x));
	model_verify(m);

	/* After it ran. */
	x = model_ent(m, 1);
	model_arm(m, x, 3);
	model_advance(m, m->now + 4);
	KUNIT_EXPECT_EQ(test, x->fired, 1U);
	KUNIT_EXPECT_FALSE(test, model_stop(m, x));
	model_verify(m);

	/* Pending for long, half-way there; its twin still runs. */
	x = model_ent(m, 2);
	y = model_ent(m, 3);
	model_arm(m, x, len);
	model_arm(m, y, len);
	model_advance(m, m->now + len / 2);
	KUNIT_EXPECT_TRUE(test, model_stop(m, x));
	model_verify(m);
	model_advance(m, y->due);
	KUNIT_EXPECT_EQ(test, x->fired, 0U);
	KUNIT_EXPECT_EQ(test, y->fired, 1U);

	/*
	 * Due but not yet run: A, armed first, stops B, due on the same
	 * tick.  C, due then too, stops itself: it is idle by then.
	 */
	a = model_ent(m, 4);
	b = model_ent(m, 5);
	c = model_ent(m, 6);
	a->act = MODEL_STOP_OTHER;
	a->other = b;
	c->act = MODEL_STOP_SELF;
	model_arm(m, a, 7);
	model_arm(m, b, 7);
	model_arm(m, c, 7);
	m->n.stopped_due = 0;
	model_advance(m, m->now + 7);
	KUNIT_EXPECT_EQ(test, a->fired, 1U);
	KUNIT_EXPECT_TRUE(test, a->other_view.pending);
	KUNIT_EXPECT_TRUE(test, a->other_view.expired);
	KUNIT_EXPECT_EQ(test, a->ret, 1);
	KUNIT_EXPECT_EQ(test, b->fired, 0U);
	KUNIT_EXPECT_FALSE(test, b->pending);
	KUNIT_EXPECT_EQ(test, c->fired, 1U);
	KUNIT_EXPECT_EQ(test, c->ret, 0);
	KUNIT_EXPECT_EQ(test, m->n.stopped_due, 1ULL);
	KUNIT_EXPECT_FALSE(test, model_stop(m, a));
	model_verify(m);

	/* The last of its tick, stopped by the first. */
	d = model_ent(m, 7);
	e = model_ent(m, 8);
	d->act = MODEL_STOP_OTHER;
	d->other = e;
	model_arm(m, d, 4);
	model_arm(m, e, 4);
	model_advance(m, m->now + 10);
	KUNIT_EXPECT_EQ(test, d->fired, 1U);
	KUNIT_EXPECT_EQ(test, d->ret, 1);
	KUNIT_EXPECT_EQ(test, e->fired, 0U);
	KUNIT_EXPECT_EQ(test, m->n.stopped_due, 2ULL);
	model_verify(m);
	model_assert_empty(m);
}

/**
 * model_rearm_from_expiry() - adds and dels from inside one advance
 * @m: the model, just reset with %MODEL_REARM_ENTRIES entries.
 *
 * Entries re-arming themselves with a period of 0 (taken as 1), of a few
 * ticks, and of just under and over the span; A re-arming B, due on the
 * same tick and not yet run, so that B runs on its new tick instead; C
 * re-arming D, pending in a slot, for an earlier tick; E stopping F; G
 * arming idle H for the next tick.  Each entry armed for a tick within the
 * advance runs on that tick, within it.
 */
void model_rearm_from_expiry(struct model *m)
{
	struct model_entry *a = model_ent(m, 4), *b = model_ent(m, 5);
	struct model_entry *c = model_ent(m, 6), *d = model_ent(m, 7);
	struct model_entry *e = model_ent(m, 8), *f = model_ent(m, 9);
	struct model_entry *g = model_ent(m, 10), *h = model_ent(m, 11);
	u64 span = m->shape.span, longest = m->shape.max_interval;
	u64 start = m->now, periods[4], last = 0;
	struct kunit *test = m->test;
	struct model_entry *x;
	unsigned int i;

	periods[0] = 0;
	periods[1] = 3;
	periods[2] = min(span - 1, longest);
	periods[3] = min(span + 1, longest);
	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		x = model_ent(m, i);
		x->act = MODEL_REARM_SELF;
		x->arg = periods[i];
		x->times = 5;
		model_arm(m, x, periods[i]);
		last = max(last, periods[i]);
	}
	a->act = MODEL_ARM_OTHER;
	a->other = b;
	a->arg = 4;
	model_arm(m, a, 10);
	model_arm(m, b, 10);
	c->act = MODEL_ARM_OTHER;
	c->other = d;
	c->arg = 2;
	model_arm(m, c, 20);
	model_arm(m, d, min(3 * span, longest));
	e->act = MODEL_STOP_OTHER;
	e->other = f;
	model_arm(m, e, 30);
	model_arm(m, f, 31);
	g->act = MODEL_ARM_OTHER;
	g->other = h;
	g->arg = 0;
	model_arm(m, g, 40);
	model_verify(m);

	model_advance(m, start + 6 * last + 1);

	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		x = model_ent(m, i);
		KUNIT_EXPECT_EQ_MSG(test, x->fired, 6U, "period %llu",
				    periods[i]);
		KUNIT_EXPECT_EQ_MSG(test, x->fired_at,
				    start + 6 * max_t(u64, periods[i], 1),
				    "period %llu", periods[i]);
	}
	KUNIT_EXPECT_EQ(test, a->ret, 1);
	KUNIT_EXPECT_TRUE(test, a->other_view.pending);
	KUNIT_EXPECT_TRUE(test, a->other_view.expired);
	KUNIT_EXPECT_EQ(test, b->fired, 1U);
	KUNIT_EXPECT_EQ(test, b->fired_at, start + 10 + 4);
	KUNIT_EXPECT_EQ(test, c->ret, 1);
	KUNIT_EXPECT_TRUE(test, c->other_view.pending);
	KUNIT_EXPECT_FALSE(test, c->other_view.expired);
	KUNIT_EXPECT_EQ(test, d->fired, 1U);
	KUNIT_EXPECT_EQ(test, d->fired_at, start + 20 + 2);
	KUNIT_EXPECT_EQ(test, e->ret, 1);
	KUNIT_EXPECT_EQ(test, f->fired, 0U);
	KUNIT_EXPECT_EQ(test, g->ret, 0);
	KUNIT_EXPECT_EQ(test, h->fired, 1U);
	KUNIT_EXPECT_EQ(test, h->fired_at, start + 40 + 1);
	KUNIT_EXPECT_EQ(test, m->n.rearmed_due, 1ULL);
	model_verify(m);
	model_assert_empty(m);
}
