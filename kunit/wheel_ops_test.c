// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_wheel_ops: what a wheel does besides add, del and
 * advance, driven by hand on wheels of both schemes and checked without
 * the reference model: arming for an absolute tick (twheel_add_at()),
 * moving an empty wheel's clock (twheel_forward()), emptying a wheel
 * without touching its entries (twheel_abandon()) or one entry at a time
 * (twheel_first()), and walking every entry with a cursor that pauses
 * halfway through a tick while entries come and go.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "twheel_compat.h"
#include "twheel_core.h"
#include "wheel_geometry.h"

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
	const struct wt_geometry *p = test->param_value;
	const struct twheel_geometry *geo = &p->geo;
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
	const struct wt_geometry *p = test->param_value;
	const struct twheel_geometry *geo = &p->geo;
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

/*
 * twheel_abandon() empties a wheel without touching its entries, even
 * halfway through a tick, and leaves it usable.
 */
static void twheel_abandon_forgets_entries(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct at_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct twheel_entry before;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &p->geo, 10), 0);
	for (i = 0; i < 3; i++) {
		twheel_entry_init(&c->e[i]);
		KUNIT_ASSERT_EQ(test, twheel_add(w, &c->e[i], 1 + 1000 * i),
				0);
	}
	/* A batch of one leaves the tick open with entries on the way. */
	twheel_advance_batch(w, 2000, at_expiry, c, 1);
	before = c->e[2];
	twheel_abandon(w);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	KUNIT_EXPECT_EQ(test, twheel_next_work(w), U64_MAX);
	KUNIT_EXPECT_NULL(test, twheel_first(w));
	KUNIT_EXPECT_TRUE(test, !memcmp(&before, &c->e[2], sizeof(before)));

	twheel_entry_init(&c->e[3]);
	KUNIT_ASSERT_EQ(test, twheel_add(w, &c->e[3], 5), 0);
	twheel_advance(w, w->now + 5, at_expiry, c);
	KUNIT_EXPECT_EQ(test, c->fired_at[3], w->now);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	twheel_destroy(w);
}

/* twheel_first() hands out every pending entry, then NULL. */
static void twheel_first_empties_wheel(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	const struct twheel_geometry *geo = &p->geo;
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

/* The entries of the cursor case, and how often each fired. */
#define CUR_N		120
#define CUR_EXTRA	40

struct cur_ctx {
	struct twheel_entry e[CUR_N + CUR_EXTRA];
	unsigned int given[CUR_N + CUR_EXTRA];
	unsigned int fired[CUR_N + CUR_EXTRA];
	bool gone[CUR_N + CUR_EXTRA];	/* deleted while the walk paused */
};

static void cur_expiry(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct cur_ctx *c = ctx;

	c->fired[e - c->e]++;
}

/* Every node on the wheel's lists, the mark's included. */
static unsigned long cur_nodes(struct twheel *w, const struct list_head *mark,
			       bool *mark_seen)
{
	unsigned long n = 0;
	unsigned int i;
	struct list_head *pos;

	for (i = 0; i < twheel_lists(w); i++) {
		list_for_each(pos, twheel_list(w, i)) {
			n++;
			*mark_seen |= pos == mark;
		}
	}
	return n;
}

/*
 * A cursor walk that pauses after every few entries, halfway through a
 * tick (due, drains and Scheme 6's put-back entries all in use): while it
 * pauses, entries are deleted and added, and it deletes some of those it
 * is given.  Every entry pending throughout is given once, none twice;
 * the mark leaves the wheel when the walk ends; the wheel then runs every
 * entry still pending once.
 */
static void twheel_cursor_walks_every_entry(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct cur_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct twheel_cursor cur;
	struct twheel_entry *e;
	unsigned int i, gone = 0, added = 0, round = 0, budget;
	bool mark_seen = false;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &p->geo, 0), 0);
	for (i = 0; i < CUR_N + CUR_EXTRA; i++)
		twheel_entry_init(&c->e[i]);
	/* Many due on tick 40 (some of them a rotation later), the rest spread. */
	for (i = 0; i < CUR_N; i++) {
		u64 at = i % 3 ? 1 + (u64)i * i * 7 : 40 + (i % 2) * 16;

		KUNIT_ASSERT_EQ(test, twheel_add_at(w, &c->e[i], at), 0);
	}
	/* Leave tick 40 half done. */
	twheel_advance(w, 39, cur_expiry, c);
	twheel_advance_batch(w, 40, cur_expiry, c, 2);

	twheel_cursor_start(w, &cur);
	while (!twheel_cursor_done(w, &cur)) {
		budget = 3;
		while ((e = twheel_cursor_next(w, &cur, &budget))) {
			i = e - c->e;
			KUNIT_ASSERT_LT(test, i, CUR_N + CUR_EXTRA);
			KUNIT_EXPECT_TRUE(test, twheel_entry_pending(e));
			c->given[i]++;
			if (i % 5 == 0)
				KUNIT_EXPECT_TRUE(test, twheel_del(w, e));
		}
		/* Paused: delete an entry, perhaps one not walked yet ... */
		i = (round * 37) % CUR_N;
		if (twheel_entry_pending(&c->e[i]) && !c->given[i] &&
		    twheel_del(w, &c->e[i])) {
			c->gone[i] = true;
			gone++;
		}
		/* ... and add one, perhaps behind the mark. */
		if (added < CUR_EXTRA)
			KUNIT_ASSERT_EQ(test,
					twheel_add_at(w, &c->e[CUR_N + added++],
						      w->now + 1 + round % 50),
					0);
		round++;
	}
	KUNIT_EXPECT_EQ(test, cur_nodes(w, &cur.mark.node, &mark_seen),
			w->count);
	KUNIT_EXPECT_FALSE(test, mark_seen);
	for (i = 0; i < CUR_N + CUR_EXTRA; i++) {
		KUNIT_EXPECT_LE_MSG(test, c->given[i], 1U, "entry %u", i);
		if (i < CUR_N && !c->gone[i] && !c->fired[i])
			KUNIT_EXPECT_EQ_MSG(test, c->given[i], 1U,
					    "entry %u, pending throughout", i);
	}
	KUNIT_EXPECT_GT(test, gone, 0U);

	/* The wheel is whole: what is pending runs once. */
	twheel_advance(w, 1 + (u64)CUR_N * CUR_N * 7, cur_expiry, c);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	for (i = 0; i < CUR_N + CUR_EXTRA; i++) {
		bool deleted = c->gone[i] || (c->given[i] && i % 5 == 0);

		if (i < CUR_N + added)
			KUNIT_EXPECT_EQ_MSG(test, c->fired[i], deleted ? 0U : 1U,
					    "entry %u", i);
	}
	twheel_destroy(w);
}

/* Whether @e is one of the first @n entries of @c. */
static bool cur_entry(const struct cur_ctx *c, const struct twheel_entry *e,
		      unsigned int n)
{
	return e >= c->e && e < c->e + n;
}

/*
 * Two walks of one wheel at once, as the debugfs listing and a departing
 * module's sweep make, pausing at different paces (after one step, after
 * two): each passes over the other's mark, wherever the two meet, and is
 * given every entry once and nothing else.  Neither mark is left in the
 * wheel once both walks are done, and the wheel then runs every entry.
 */
static void twheel_cursor_next_passes_other_mark(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct cur_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	/* Walk k gave entry i given[k * CUR_N + i] times. */
	unsigned int *given = kunit_kcalloc(test, 2 * CUR_N, sizeof(*given),
					    GFP_KERNEL);
	struct twheel_cursor cur[2];
	struct twheel_entry *e;
	unsigned int i, k, budget;
	bool mark_seen = false;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, given);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &p->geo, 0), 0);
	/* Twelve entries in each of ten lists, for the marks to meet in. */
	for (i = 0; i < CUR_N; i++) {
		twheel_entry_init(&c->e[i]);
		KUNIT_ASSERT_EQ(test, twheel_add_at(w, &c->e[i],
						    1 + (i % 10) * 13), 0);
	}

	twheel_cursor_start(w, &cur[0]);
	twheel_cursor_start(w, &cur[1]);
	while (!twheel_cursor_done(w, &cur[0]) ||
	       !twheel_cursor_done(w, &cur[1])) {
		for (k = 0; k < 2; k++) {
			budget = 1 + k;
			while ((e = twheel_cursor_next(w, &cur[k], &budget))) {
				KUNIT_ASSERT_TRUE_MSG(test,
						      cur_entry(c, e, CUR_N),
						      "walk %u was given a node that is no entry",
						      k);
				given[k * CUR_N + (e - c->e)]++;
			}
		}
	}
	for (k = 0; k < 2; k++) {
		KUNIT_EXPECT_EQ(test, cur_nodes(w, &cur[k].mark.node,
						&mark_seen), w->count);
		for (i = 0; i < CUR_N; i++)
			KUNIT_EXPECT_EQ_MSG(test, given[k * CUR_N + i], 1U,
					    "walk %u, entry %u", k, i);
	}
	KUNIT_EXPECT_FALSE(test, mark_seen);

	twheel_advance(w, 1 + 9 * 13, cur_expiry, c);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	for (i = 0; i < CUR_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, c->fired[i], 1U, "entry %u", i);
	twheel_destroy(w);
}

/*
 * A walk stopped half way (twheel_cursor_stop()) is done, leaves no mark
 * in the wheel, and gives nothing more; the wheel runs every entry.
 */
static void twheel_cursor_stop_takes_mark_out(struct kunit *test)
{
	const struct wt_geometry *p = test->param_value;
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct cur_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct twheel_cursor cur;
	unsigned int i, budget, given = 0;
	bool mark_seen = false;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &p->geo, 0), 0);
	for (i = 0; i < CUR_N; i++) {
		twheel_entry_init(&c->e[i]);
		KUNIT_ASSERT_EQ(test, twheel_add_at(w, &c->e[i],
						    1 + (i % 10) * 13), 0);
	}
	twheel_cursor_start(w, &cur);
	/* Half of the entries, which leaves the mark inside a list. */
	while (given < CUR_N / 2) {
		budget = 1;
		given += !!twheel_cursor_next(w, &cur, &budget);
		KUNIT_ASSERT_FALSE(test, twheel_cursor_done(w, &cur));
	}
	twheel_cursor_stop(w, &cur);
	KUNIT_EXPECT_TRUE(test, twheel_cursor_done(w, &cur));
	KUNIT_EXPECT_EQ(test, cur_nodes(w, &cur.mark.node, &mark_seen),
			w->count);
	KUNIT_EXPECT_FALSE(test, mark_seen);
	budget = 1;
	KUNIT_EXPECT_NULL(test, twheel_cursor_next(w, &cur, &budget));
	/* Stopping a walk that is done changes nothing. */
	twheel_cursor_stop(w, &cur);
	KUNIT_EXPECT_TRUE(test, twheel_cursor_done(w, &cur));

	twheel_advance(w, 1 + 9 * 13, cur_expiry, c);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	for (i = 0; i < CUR_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, c->fired[i], 1U, "entry %u", i);
	twheel_destroy(w);
}

/*
 * Scheme 6 half way through a slot keeps the last entry it put back in the
 * slot (park); a walk paused just before that entry, which is then
 * stopped, must leave the wheel putting entries back in the slot, not
 * after its mark: the entry of a later rotation still to be put back runs
 * on its own tick.
 */
static void twheel_cursor_pause_before_parked_entry(struct kunit *test)
{
	static const struct twheel_geometry geo = TWHEEL_GEOMETRY6(16);
	struct twheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct cur_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	/* In one slot: two of later rotations, then two due on tick 40. */
	static const u64 at[] = { 56, 72, 40, 40 };
	struct twheel_cursor cur;
	unsigned int i, budget;
	bool before = false;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &geo, 0), 0);
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		twheel_entry_init(&c->e[i]);
		KUNIT_ASSERT_EQ(test, twheel_add_at(w, &c->e[i], at[i]), 0);
	}
	/* Tick 40 open: e[0] put back in its slot, the rest still due. */
	twheel_advance(w, 39, cur_expiry, c);
	twheel_advance_batch(w, 40, cur_expiry, c, 1);
	KUNIT_ASSERT_TRUE(test, w->open);
	KUNIT_ASSERT_PTR_EQ(test, w->park, &c->e[0].node);

	/* One step at a time, until the mark stands just before e[0]. */
	twheel_cursor_start(w, &cur);
	while (!twheel_cursor_done(w, &cur)) {
		if (cur.mark.node.next == &c->e[0].node) {
			before = true;
			KUNIT_EXPECT_TRUE(test, twheel_del(w, &c->e[0]));
		}
		budget = 1;
		twheel_cursor_next(w, &cur, &budget);
	}
	KUNIT_ASSERT_TRUE(test, before);

	twheel_advance(w, 80, cur_expiry, c);
	KUNIT_EXPECT_EQ(test, c->fired[0], 0U);
	KUNIT_EXPECT_EQ(test, c->fired[1], 1U);
	KUNIT_EXPECT_EQ(test, c->fired[2], 1U);
	KUNIT_EXPECT_EQ(test, c->fired[3], 1U);
	KUNIT_EXPECT_EQ(test, w->count, 0UL);
	twheel_destroy(w);
}

static struct kunit_case twheel_wheel_ops_cases[] = {
	KUNIT_CASE_PARAM(twheel_add_at_absolute_ticks, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_first_empties_wheel, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_forward_empty_wheel, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_abandon_forgets_entries, wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_cursor_walks_every_entry, wheel_gen_params),
	KUNIT_CASE(twheel_cursor_pause_before_parked_entry),
	KUNIT_CASE_PARAM(twheel_cursor_next_passes_other_mark,
			 wheel_gen_params),
	KUNIT_CASE_PARAM(twheel_cursor_stop_takes_mark_out, wheel_gen_params),
	{}
};

static struct kunit_suite twheel_wheel_ops_suite = {
	.name = "twheel_wheel_ops",
	.test_cases = twheel_wheel_ops_cases,
};

kunit_test_suite(twheel_wheel_ops_suite);

MODULE_DESCRIPTION("KUnit tests of a twheel wheel's cursor, first, forward and abandon");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
