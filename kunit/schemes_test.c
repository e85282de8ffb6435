// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit differential tests of every timer scheme behind bench/tsched.h:
 * Schemes 1 to 5 and the Timer Lawn, whose code (bench/tsched.c) is
 * compiled in here, and twheel's Schemes 6 and 7, reached in twheel.ko.
 *
 * The suite knows the schemes only through the tsched_*() calls and the
 * fields tsched.h documents, and holds every one of them to one reference
 * model: the pending entries in a plain list sorted by due tick and, within
 * a tick, by the order they were last armed in.  The expiry function takes
 * the model's first entry off the list and complains unless the scheme
 * handed over that very entry, on its tick; after each operation the
 * scheme's clock and count, the return value of the call and the state of
 * the entries it touched are compared with the model, and so is every
 * entry after each advance.  A failure names the random run's seed, the
 * operation and the tick, so that it can be replayed.
 *
 * Each configuration (a scheme and a shape) runs one seeded random
 * sequence of operations, then directed cases for the paths a random run
 * reaches only by luck: order within a tick, del in every state, adds from
 * expiry functions, teardown; and tsched_init() refuses bad shapes.
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "twheel_compat.h"

/* The code under test: not exported, it is built into this module too. */
#include "../bench/tsched.c"

/*
 * What every message starts with: the random run's seed (0 in the directed
 * cases), the index of its operation and the model's clock.
 */
#define ST_AT		"seed %#llx op %llu tick %llu"

/* And for an entry: the model's view of it, then the scheme's. */
#define ST_ENTRY	" entry %u: due %llu seq %llu pending %d;" \
			" scheme now %llu count %lu, expires %llu pending %d"

/* What an entry's expiry does besides being checked (see st_act()). */
enum st_act {
	ST_NOTHING,
	ST_REARM_SELF,		/* re-arm itself @arg ticks on, @times over */
	ST_ARM_OTHER,		/* arm or re-arm @other @arg ticks on */
	ST_STOP_OTHER,		/* stop @other */
	ST_STOP_SELF,		/* stop itself, which is idle already */
	ST_STOP_ALL,		/* stop every entry of the case */
};

/* A timer of the tests, with the model's view of it. */
struct st_entry {
	struct tsched_entry e;
	struct list_head model;	/* in st.model while pending there */
	u64 due;		/* the tick the model expects it on */
	u64 seq;		/* when the model last armed it */
	u64 fired_at;		/* the tick it last expired on */
	u32 id;
	u32 fired;		/* expiries seen */
	bool pending;		/* the model's view */
	enum st_act act;
	struct st_entry *other;
	u64 arg;
	unsigned int times;
	int ret;		/* what the act's add or del returned */
	bool other_pending;	/* tsched_pending(@other) just before the act */
	u32 other_slot;		/* @other's e.w.slot just before the act */
};

/* How often the rarer paths were taken: a random run must reach them. */
struct st_counts {
	u64 fired;
	u64 same_tick;		/* expiries on the previous one's tick */
	u64 rearmed;		/* adds of a pending entry */
	u64 rearmed_due;	/* ... of one due on the tick being processed */
	u64 stopped;		/* dels of a pending entry */
	u64 stopped_due;	/* ... of one due on the tick being processed */
	u64 refused;		/* adds beyond s->max_interval */
	u64 far;		/* adds for longer than any one advance */
	u64 acts;		/* adds and dels made by expiry functions */
	u64 jumps;		/* advances by more than one tick */
	u64 pending;		/* entries pending, summed over operations */
};

/*
 * A configuration of the cases: a scheme and its shape, the seed of its
 * random run, and what the run's intervals and jumps are drawn around.
 */
struct st_config {
	const char *desc;
	struct tsched_config cfg;
	u64 seed;
	u64 span;		/* ticks the structure repeats over, or a scale */
	u64 gran[3];		/* boundaries the random run aims near */
	const u64 *ttls;	/* if set, the only intervals the run uses */
	unsigned int nttls;
};

#define ST_LOG	16

/* One case's structure, its entries and the model; test->priv. */
struct st {
	struct kunit *test;
	const struct st_config *c;
	struct tsched s;
	bool live;		/* @s is initialised */
	struct st_entry *ent;
	unsigned int cap;	/* entries allocated */
	unsigned int nent;	/* entries in use */

	/* The model. */
	struct list_head model;	/* pending entries by (due, seq) */
	unsigned long npending;
	u64 now;
	u64 seq;
	u64 to;			/* the target of the advance under way */

	/* What the expiry function has seen. */
	u64 last_tick;		/* the latest expiry's */
	bool failed;		/* a check made while advancing failed */
	u32 log[ST_LOG];	/* ids of the first expiries */
	unsigned int nlog;

	/* The random operations of tsched_advance_random(). */
	bool rand_acts;		/* expiry functions act at random */
	u64 seed, rnd, op;
	struct st_counts n;
};

/* xorshift64*: a few lines, and the same sequence from a seed every run. */
static u64 st_rand(struct st *t)
{
	t->rnd ^= t->rnd >> 12;
	t->rnd ^= t->rnd << 25;
	t->rnd ^= t->rnd >> 27;
	return t->rnd * 0x2545f4914f6cdd1dULL;
}

static u64 st_below(struct st *t, u64 n)
{
	return n ? st_rand(t) % n : 0;
}

/* Can an interval be refused, or does the scheme take any u64? */
static bool st_bounded(const struct st *t)
{
	return t->s.max_interval < U64_MAX;
}

/*
 * Report the first failed check about @x.  Used where an assertion must not
 * abort the case, inside tsched_advance() above all: the callers assert on
 * @t->failed once the structure is back in their hands.
 */
static bool st_check(struct st *t, const struct st_entry *x, bool ok,
		     const char *what)
{
	if (!ok && !t->failed) {
		t->failed = true;
		KUNIT_FAIL(t->test, "%s: " ST_AT ST_ENTRY, what,
			   t->seed, t->op, t->now, x->id, x->due, x->seq,
			   x->pending, tsched_now(&t->s), tsched_count(&t->s),
			   x->e.w.expires, tsched_pending(&x->e));
	}
	return ok;
}

/*
 * The entry is as the model says: idle, or pending with its due tick in
 * e.w.expires, and marked %TWHEEL_SLOT_EXPIRED if that is the tick being
 * processed.
 */
static bool st_check_entry(struct st *t, const struct st_entry *x)
{
	if (!st_check(t, x, tsched_pending(&x->e) == x->pending,
		      "pending disagrees with the model"))
		return false;
	if (!x->pending)
		return true;
	if (!st_check(t, x, x->e.w.expires == x->due, "wrong due tick"))
		return false;
	if (x->due == t->now)
		return st_check(t, x, x->e.w.slot == TWHEEL_SLOT_EXPIRED,
				"due entry not marked expired");
	return true;
}

static bool st_check_count(struct st *t, const struct st_entry *x)
{
	return st_check(t, x, tsched_count(&t->s) == t->npending,
			"count disagrees with the model");
}

static struct st_entry *st_model_first(struct st *t)
{
	return list_first_entry_or_null(&t->model, struct st_entry, model);
}

/* The model arms @x at its clock: due @interval ticks on, 0 taken as 1. */
static void st_model_add(struct st *t, struct st_entry *x, u64 interval)
{
	struct st_entry *p;

	x->due = t->now + max_t(u64, interval, 1);
	x->seq = ++t->seq;
	x->pending = true;
	t->npending++;
	/* The newest of its tick: after every entry due then or before. */
	list_for_each_entry_reverse(p, &t->model, model)
		if (p->due <= x->due)
			break;
	list_add(&x->model, &p->model);
}

static void st_model_del(struct st *t, struct st_entry *x)
{
	x->pending = false;
	t->npending--;
	list_del_init(&x->model);
}

/* Intervals longer than this are far: beyond any one random advance. */
static u64 st_far(const struct st *t)
{
	return 64 * t->c->span;
}

/* tsched_add(), checked against the model and applied to it. */
static int st_arm(struct st *t, struct st_entry *x, u64 interval)
{
	struct tsched_entry was_e = x->e;
	bool was = x->pending;
	int ret;

	st_check_entry(t, x);
	ret = tsched_add(&t->s, &x->e, interval);
	if (interval > t->s.max_interval) {
		t->n.refused++;
		st_check(t, x, ret == -EINVAL, "too long an interval taken");
		st_check(t, x, !memcmp(&was_e, &x->e, sizeof(was_e)),
			 "refused add changed the entry");
		st_check_entry(t, x);
		st_check_count(t, x);
		return ret;
	}
	st_check(t, x, ret == was, "add misreported the entry's state");
	if (interval > st_far(t))
		t->n.far++;
	if (was) {
		t->n.rearmed++;
		if (x->due == t->now)
			t->n.rearmed_due++;
		st_model_del(t, x);
	}
	st_model_add(t, x, interval);
	st_check_entry(t, x);
	st_check_count(t, x);
	return ret;
}

/* tsched_del(), checked against the model and applied to it. */
static bool st_stop(struct st *t, struct st_entry *x)
{
	bool was = x->pending, ret;

	st_check_entry(t, x);
	ret = tsched_del(&t->s, &x->e);
	st_check(t, x, ret == was, "del misreported the entry's state");
	if (was) {
		t->n.stopped++;
		if (x->due == t->now)
			t->n.stopped_due++;
		st_model_del(t, x);
	}
	st_check_entry(t, x);
	st_check_count(t, x);
	return ret;
}

/*
 * An interval for a random add: 0, 1, a few ticks, within the
 * configuration's span or a few spans, just around a boundary (a multiple
 * of a slot count, as an interval or as a due tick), around the scheme's
 * longest, and, if that is huge, now and then anything up to it; or refused.
 * A configuration with its own TTLs (the Lawn's favourable case) draws from
 * those alone, and is refused now and then.
 */
static u64 st_rand_interval(struct st *t)
{
	const struct st_config *c = t->c;
	u64 max = t->s.max_interval, r, g;

	if (c->nttls) {
		if (st_bounded(t) && !st_below(t, 64))
			return max + 1 + st_below(t, 2);
		return c->ttls[st_below(t, c->nttls)];
	}
	r = st_below(t, 64);
	if (r < 3)
		return 0;
	if (r < 6)
		return 1;
	if (r < 14)
		return 2 + st_below(t, 15);
	if (r < 30)
		return 1 + st_below(t, min(c->span, max));
	if (r < 38)
		return 1 + st_below(t, min(4 * c->span, max));
	if (r < 54) {
		do {
			g = c->gran[st_below(t, ARRAY_SIZE(c->gran))];
		} while (!g);
		/* One tick before, on or after a multiple of g... */
		if (r < 46)
			return (1 + st_below(t, 3)) * g - 1 + st_below(t, 3);
		/* ... or due one tick before, on or after one. */
		return (div64_u64(t->now, g) + 1 + st_below(t, 3)) * g - 1 +
			st_below(t, 3) - t->now;
	}
	if (r < 58)
		return max - min(max, st_below(t, 3));
	if (r < 60 && max > st_far(t))
		return st_far(t) + st_below(t, max - st_far(t));
	if (r < 62 || !st_bounded(t))
		return 1 + st_below(t, min(c->span, max));
	/* Refused: just too long, or the longest u64. */
	r = st_below(t, 4);
	return r == 3 ? U64_MAX : max + 1 + r;
}

/*
 * A tick for a random advance: the next one, a small jump, a jump within
 * the span or beyond it, to the model's earliest expiry or the tick before
 * it (unless that is far off), or to the present tick.
 */
static u64 st_rand_to(struct st *t)
{
	struct st_entry *first = st_model_first(t);
	u64 span = t->c->span, r = st_below(t, 64);

	if (r < 40)
		return t->now + 1;
	if (r < 44)
		return t->now + 2 + st_below(t, 15);
	if (r < 50)
		return t->now + 1 + st_below(t, span);
	if (r < 52)
		return t->now + span + st_below(t, 8 * span);
	if (r < 60) {
		if (!first || first->due - t->now > 16 * span)
			return t->now + 1;
		return first->due - (r & 1);
	}
	if (r < 62)
		return t->now;
	return t->now + 1 + st_below(t, 2 * span);
}

static struct st_entry *st_rand_entry(struct st *t)
{
	return &t->ent[st_below(t, t->nent)];
}

static struct st_entry *st_rand_pending(struct st *t)
{
	unsigned int i, k = st_below(t, t->nent);

	for (i = 0; i < t->nent; i++)
		if (t->ent[(k + i) % t->nent].pending)
			return &t->ent[(k + i) % t->nent];
	return NULL;
}

/*
 * What an expiry function of tsched_advance_random() does: now and then
 * re-arm its own entry, or arm or stop another, often the model's next,
 * which may be due on this very tick and not yet handed over.
 */
static void st_rand_act(struct st *t, struct st_entry *x)
{
	u64 r = st_below(t, 16);
	struct st_entry *y;

	if (r >= 8)
		return;
	t->n.acts++;
	if (r < 3) {
		st_arm(t, x, st_rand_interval(t));
		return;
	}
	y = st_model_first(t);
	if (!y || st_below(t, 2))
		y = st_rand_entry(t);
	if (r < 6)
		st_arm(t, y, st_rand_interval(t));
	else
		st_stop(t, y);
}

/* What an expiry function of the directed cases does, as @x->act says. */
static void st_act(struct st *t, struct st_entry *x)
{
	unsigned int i;

	if (x->other) {
		x->other_pending = tsched_pending(&x->other->e);
		x->other_slot = x->other->e.w.slot;
	}
	switch (x->act) {
	case ST_NOTHING:
		break;
	case ST_REARM_SELF:
		if (x->times) {
			x->times--;
			x->ret = st_arm(t, x, x->arg);
		}
		break;
	case ST_ARM_OTHER:
		x->ret = st_arm(t, x->other, x->arg);
		break;
	case ST_STOP_OTHER:
		x->ret = st_stop(t, x->other);
		break;
	case ST_STOP_SELF:
		x->ret = st_stop(t, x);
		break;
	case ST_STOP_ALL:
		for (i = 0; i < t->nent; i++)
			x->ret += st_stop(t, &t->ent[i]);
		break;
	}
}

/*
 * The expiry function of every case: @e must be the model's first entry,
 * due on this tick, which lies between the last one and the advance's
 * target; it must be idle, and the count must say so.
 */
static void st_expire(struct tsched *s, struct tsched_entry *e, void *ctx)
{
	struct st_entry *x = container_of(e, struct st_entry, e);
	struct st *t = ctx;
	struct st_entry *first = st_model_first(t);
	bool reported = t->failed;
	u64 now = tsched_now(s);

	st_check(t, x, now >= t->now && now <= t->to,
		 "clock outside the advance");
	/* The model's clock is at the tick being processed too. */
	t->now = now;
	st_check(t, x, x->pending, "expired while not pending");
	st_check(t, x, x->due == now, "expired on the wrong tick");
	if (!st_check(t, x, first == x,
		      "expired ahead of the model's first entry") &&
	    first && !reported)
		kunit_err(t->test, "the model's first is entry %u: due %llu seq %llu\n",
			  first->id, first->due, first->seq);
	st_check(t, x, !tsched_pending(e), "handed over still pending");

	if (x->pending)
		st_model_del(t, x);
	st_check_count(t, x);
	if (t->n.fired && now == t->last_tick)
		t->n.same_tick++;
	x->fired++;
	x->fired_at = now;
	t->last_tick = now;
	t->n.fired++;
	if (t->nlog < ST_LOG)
		t->log[t->nlog++] = x->id;

	if (t->rand_acts)
		st_rand_act(t, x);
	else
		st_act(t, x);
}

/*
 * The clock and the count are as the model says, and so is every entry if
 * @all: the entries an operation touched have been checked already, the
 * others may change only in an advance.
 */
static void st_verify_some(struct st *t, bool all)
{
	struct kunit *test = t->test;
	const struct st_entry *x;
	unsigned int i;

	KUNIT_ASSERT_FALSE_MSG(test, t->failed, ST_AT,
			       t->seed, t->op, t->now);
	KUNIT_ASSERT_EQ_MSG(test, tsched_now(&t->s), t->now, ST_AT,
			    t->seed, t->op, t->now);
	KUNIT_ASSERT_EQ_MSG(test, tsched_count(&t->s), t->npending,
			    ST_AT " count", t->seed, t->op, t->now);
	t->n.pending += t->npending;
	for (i = 0; all && i < t->nent; i++) {
		x = &t->ent[i];
		if (tsched_pending(&x->e) != x->pending ||
		    (x->pending && x->e.w.expires != x->due))
			st_check_entry(t, x);
	}
	KUNIT_ASSERT_FALSE_MSG(test, t->failed, ST_AT,
			       t->seed, t->op, t->now);
}

static void st_verify(struct st *t)
{
	st_verify_some(t, true);
}

/* tsched_advance() to @to: everything due by then, and only that, runs. */
static void st_advance(struct st *t, u64 to)
{
	struct kunit *test = t->test;
	struct st_entry *first;

	if (to > t->now + 1)
		t->n.jumps++;
	t->to = to;
	tsched_advance(&t->s, to, st_expire, t);
	KUNIT_ASSERT_FALSE_MSG(test, t->failed, ST_AT " advancing to %llu",
			       t->seed, t->op, t->now, to);
	t->now = max(t->now, to);
	KUNIT_ASSERT_EQ_MSG(test, tsched_now(&t->s), t->now,
			    ST_AT " advancing to %llu",
			    t->seed, t->op, t->now, to);
	first = st_model_first(t);
	if (first)
		KUNIT_ASSERT_GT_MSG(test, first->due, t->now,
				    ST_AT " entry %u did not expire",
				    t->seed, t->op, t->now, first->id);
}

/* Nothing left behind: no count, and no entry pending. */
static void st_assert_empty(struct st *t)
{
	struct kunit *test = t->test;
	unsigned int i;

	KUNIT_ASSERT_EQ_MSG(test, tsched_count(&t->s), 0UL, ST_AT,
			    t->seed, t->op, t->now);
	for (i = 0; i < t->nent; i++)
		KUNIT_ASSERT_FALSE_MSG(test, tsched_pending(&t->ent[i].e),
				       ST_AT " entry %u",
				       t->seed, t->op, t->now, i);
}

/* Stop every entry, then free the structure. */
static void st_teardown(struct st *t)
{
	unsigned int i;

	if (!t->live)
		return;
	for (i = 0; i < t->nent; i++)
		tsched_del(&t->s, &t->ent[i].e);
	tsched_destroy(&t->s);
	t->live = false;
}

/* A new structure of @c at tick @now, @nent idle entries, an empty model. */
static void st_init(struct st *t, const struct st_config *c, u64 now,
		    unsigned int nent)
{
	struct kunit *test = t->test;
	unsigned int i;

	st_teardown(t);
	if (nent > t->cap) {
		kvfree(t->ent);
		t->ent = kvcalloc(nent, sizeof(*t->ent), GFP_KERNEL);
		t->cap = t->ent ? nent : 0;
		KUNIT_ASSERT_NOT_NULL(test, t->ent);
	}
	t->nent = nent;
	for (i = 0; i < nent; i++) {
		struct st_entry *x = &t->ent[i];

		memset(x, 0, sizeof(*x));
		tsched_entry_init(&x->e);
		INIT_LIST_HEAD(&x->model);
		x->id = i;
	}
	t->c = c;
	INIT_LIST_HEAD(&t->model);
	t->npending = 0;
	t->now = now;
	t->to = now;
	t->seq = 0;
	t->last_tick = 0;
	t->failed = false;
	t->nlog = 0;
	memset(&t->n, 0, sizeof(t->n));
	KUNIT_ASSERT_EQ(test, tsched_init(&t->s, &c->cfg, now), 0);
	t->live = true;
}

static int st_case_init(struct kunit *test)
{
	struct st *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->test = test;
	INIT_LIST_HEAD(&t->model);
	test->priv = t;
	return 0;
}

static void st_case_exit(struct kunit *test)
{
	struct st *t = test->priv;

	st_teardown(t);
	kvfree(t->ent);
}

/* The Lawn's favourable case: few TTLs, so few queues (0 is taken as 1). */
static const u64 lawn_few_ttls[] = { 0, 5, 64, 500 };

static const struct st_config configs[] = {
	{ "scheme 1, unordered list", { .scheme = TSCHED_UNORDERED },
	  0x9e3779b97f4a7c15ULL, 256, { 16, 256 } },
	{ "scheme 2, ordered list", { .scheme = TSCHED_ORDERED },
	  0xd1b54a32d192ed03ULL, 256, { 16, 256 } },
	{ "scheme 3, rbtree", { .scheme = TSCHED_TREE },
	  0x94d049bb133111ebULL, 256, { 16, 256 } },
	{ "scheme 4, 512 slots", { .scheme = TSCHED_WHEEL, .slots = 512 },
	  0x8cb92ba72f3d8dd7ULL, 512, { 64, 512 } },
	{ "scheme 5, 64 slots",
	  { .scheme = TSCHED_HASHED_SORTED, .slots = 64 },
	  0xbf58476d1ce4e5b9ULL, 64, { 64 } },
	{ "scheme 6, 64 slots", { .scheme = TSCHED_HASHED, .geo = TWHEEL_GEOMETRY6(64) },
	  0x6a09e667f3bcc909ULL, 64, { 64 } },
	{ "scheme 7, 8/8/8",
	  { .scheme = TSCHED_HIERARCHY, .geo = TWHEEL_GEOMETRY7(3, 8, 8, 8) },
	  0xbb67ae8584caa73bULL, 512, { 8, 64, 512 } },
	{ "scheme 7, 10/6/5",
	  { .scheme = TSCHED_HIERARCHY, .geo = TWHEEL_GEOMETRY7(3, 10, 6, 5) },
	  0x3c6ef372fe94f82bULL, 300, { 10, 60, 300 } },
	{ "lawn, 4 TTLs", { .scheme = TSCHED_LAWN },
	  0xa54ff53a5f1d36f1ULL, 512, { 64 },
	  lawn_few_ttls, ARRAY_SIZE(lawn_few_ttls) },
	{ "lawn, random TTLs", { .scheme = TSCHED_LAWN },
	  0x510e527fade682d1ULL, 256, { 16, 256 } },
};

static void config_desc(const struct st_config *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(config, configs, config_desc);

#define ST_RANDOM_OPS		100000
#define ST_RANDOM_ENTRIES	40

/*
 * The differential test: ST_RANDOM_OPS random operations on
 * ST_RANDOM_ENTRIES entries.  Two in five are adds of any entry (a start or
 * a re-arm), one in twenty a burst of 2 to 8 such adds, one in ten a
 * re-arm of a pending entry, 7 in 100 dels of any entry, the rest advances:
 * mostly by one tick, else by jumps (see st_rand_to()).  The expiry
 * functions add and del at random too.  Each expiry must be the model's
 * next one, on its tick; after each operation the scheme must agree with
 * the model (st_verify_some(): the clock and count always, every entry
 * after each advance and every eighth operation).  The run ends by checking that it took the rare
 * paths.
 */
static void tsched_advance_random(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;
	const struct twheel_stats *stats;
	u64 start_ns = ktime_get_ns(), start, r;
	struct st_entry *x;
	unsigned int n;
	bool all;

	t->seed = c->seed;
	t->rnd = c->seed;
	t->rand_acts = true;
	start = st_rand(t) >> 28;
	st_init(t, c, start, ST_RANDOM_ENTRIES);
	kunit_info(test, "%s: seed %#llx, %u operations, %u entries, tick %llu, max interval %llu\n",
		   tsched_name(c->cfg.scheme), t->seed, ST_RANDOM_OPS, t->nent,
		   t->now, t->s.max_interval);

	for (t->op = 0; t->op < ST_RANDOM_OPS; t->op++) {
		all = !(t->op % 8);
		r = st_below(t, 100);
		if (r < 40) {
			st_arm(t, st_rand_entry(t), st_rand_interval(t));
		} else if (r < 45) {
			for (n = 2 + st_below(t, 7); n; n--)
				st_arm(t, st_rand_entry(t),
				       st_rand_interval(t));
		} else if (r < 55) {
			x = st_rand_pending(t);
			if (x)
				st_arm(t, x, st_rand_interval(t));
		} else if (r < 62) {
			st_stop(t, st_rand_entry(t));
		} else {
			st_advance(t, st_rand_to(t));
			all = true;
		}
		st_verify_some(t, all);
		if (!(t->op % 1024))
			cond_resched();
	}

	stats = tsched_stats(&t->s);
	kunit_info(test, "fired %llu, %llu on the tick of the one before\n",
		   t->n.fired, t->n.same_tick);
	kunit_info(test, "re-armed %llu (%llu due), stopped %llu (%llu due)\n",
		   t->n.rearmed, t->n.rearmed_due, t->n.stopped,
		   t->n.stopped_due);
	kunit_info(test, "refused %llu, far %llu, from expiry %llu, jumps %llu\n",
		   t->n.refused, t->n.far, t->n.acts, t->n.jumps);
	kunit_info(test, "pending %llu.%02llu on average, clock moved %llu ticks\n",
		   t->n.pending / ST_RANDOM_OPS,
		   t->n.pending % ST_RANDOM_OPS * 100 / ST_RANDOM_OPS,
		   t->now - start);
	kunit_info(test, "stats: ticks %llu skipped %llu migrated %llu early visits %llu expired %llu\n",
		   stats->ticks, stats->skipped, stats->migrated,
		   stats->early_visits, stats->expired);
	kunit_info(test, "%s: %u operations in %llu ms\n",
		   tsched_name(c->cfg.scheme), ST_RANDOM_OPS,
		   div_u64(ktime_get_ns() - start_ns, NSEC_PER_MSEC));

	KUNIT_EXPECT_GT(test, t->n.fired, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.same_tick, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.rearmed_due, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.stopped_due, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.acts, 0ULL);
	KUNIT_EXPECT_GT(test, t->n.jumps, 0ULL);
	if (st_bounded(t))
		KUNIT_EXPECT_GT(test, t->n.refused, 0ULL);
	if (t->s.max_interval > st_far(t) && !c->nttls)
		KUNIT_EXPECT_GT(test, t->n.far, 0ULL);

	for (n = 0; n < t->nent; n++)
		st_stop(t, &t->ent[n]);
	st_verify(t);
	st_assert_empty(t);
}

/*
 * Interval 0 is taken as 1, and 0 runs before 1 on that tick, being armed
 * first; the longest interval is taken as it is, one tick more is refused
 * with nothing changed, whether the entry is idle or pending; and an add of
 * a pending entry re-arms it and returns 1.
 */
static void tsched_add_interval_limits(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;
	struct st_entry *zero, *one, *max, *idle, *p;
	u64 start = 1000, m;

	st_init(t, c, start, 5);
	zero = &t->ent[0];
	one = &t->ent[1];
	max = &t->ent[2];
	idle = &t->ent[3];
	p = &t->ent[4];
	m = t->s.max_interval;
	/* tsched.h: Scheme 4 bounds intervals to @slots - 1 ticks. */
	if (c->cfg.scheme == TSCHED_WHEEL)
		KUNIT_EXPECT_EQ(test, m, (u64)c->cfg.slots - 1);

	/* st_arm() checks each due tick: 0 and 1 both mean the next tick. */
	KUNIT_EXPECT_EQ(test, st_arm(t, zero, 0), 0);
	KUNIT_EXPECT_EQ(test, st_arm(t, one, 1), 0);
	KUNIT_EXPECT_EQ(test, st_arm(t, max, m), 0);
	KUNIT_EXPECT_EQ(test, st_arm(t, p, 5), 0);
	st_verify(t);

	/* One tick longer is refused and changes nothing, idle or pending. */
	if (st_bounded(t)) {
		KUNIT_EXPECT_EQ(test, st_arm(t, idle, m + 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, st_arm(t, p, m + 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, st_arm(t, p, U64_MAX), -EINVAL);
		KUNIT_EXPECT_EQ(test, t->n.refused, 3ULL);
	}
	st_verify(t);

	/* An add of a pending entry moves it, and says it was pending. */
	KUNIT_EXPECT_EQ(test, st_arm(t, p, 9), 1);
	st_verify(t);

	st_advance(t, start + 1);
	KUNIT_ASSERT_EQ(test, t->nlog, 2U);
	KUNIT_EXPECT_EQ(test, t->log[0], zero->id);
	KUNIT_EXPECT_EQ(test, t->log[1], one->id);
	st_advance(t, start + 8);
	KUNIT_EXPECT_EQ(test, p->fired, 0U);
	st_advance(t, start + 9);
	KUNIT_EXPECT_EQ(test, p->fired, 1U);

	/* The longest runs on its tick, if the clock can get there. */
	if (m <= 4096) {
		st_advance(t, start + m - 1);
		KUNIT_EXPECT_EQ(test, max->fired, 0U);
		st_advance(t, start + m);
		KUNIT_EXPECT_EQ(test, max->fired, 1U);
	} else {
		st_advance(t, start + 4096);
		KUNIT_EXPECT_EQ(test, max->fired, 0U);
		KUNIT_EXPECT_TRUE(test, st_stop(t, max));
	}
	KUNIT_EXPECT_EQ(test, idle->fired, 0U);
	st_verify(t);
	st_assert_empty(t);
}

/*
 * Entries due on one tick run in the order they were last armed, whatever
 * interval each was armed with.  Due on tick T: K, armed 250 ticks before;
 * J, armed later with interval 200, an interval P had been armed with
 * before K (so that where intervals have queues, J's is the older); B
 * later still; C two ticks before; then A, armed first of all, is re-armed
 * for T and so goes after C; F, armed for T by D's expiry on the tick
 * before, goes last.  D, due on T - 1, runs ahead of G and H, armed for
 * that tick later with intervals 0 and 1; E, due on T + 1, after them all.
 */
static void tsched_advance_same_tick_order(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;
	u64 start = 1000, due = start + 300;
	struct st_entry *a, *b, *cc, *d, *e, *f, *g, *h, *j, *k, *p;

	st_init(t, c, start, 11);
	a = &t->ent[0];
	b = &t->ent[1];
	cc = &t->ent[2];
	d = &t->ent[3];
	e = &t->ent[4];
	f = &t->ent[5];
	g = &t->ent[6];
	h = &t->ent[7];
	j = &t->ent[8];
	k = &t->ent[9];
	p = &t->ent[10];
	d->act = ST_ARM_OTHER;
	d->other = f;
	d->arg = 1;

	st_arm(t, a, due - t->now);
	st_arm(t, e, due + 1 - t->now);
	st_arm(t, d, due - 1 - t->now);
	st_arm(t, p, 200);
	st_advance(t, start + 50);
	st_arm(t, k, due - t->now);
	st_advance(t, start + 100);
	st_arm(t, j, 200);
	st_advance(t, start + 150);
	st_arm(t, b, due - t->now);
	st_advance(t, due - 2);
	st_arm(t, cc, 2);
	st_arm(t, g, 0);
	st_arm(t, h, 1);
	KUNIT_EXPECT_EQ(test, st_arm(t, a, 2), 1);
	st_verify(t);

	st_advance(t, due + 1);
	KUNIT_ASSERT_EQ(test, t->nlog, 11U);
	KUNIT_EXPECT_EQ(test, t->log[0], p->id);
	KUNIT_EXPECT_EQ(test, t->log[1], d->id);
	KUNIT_EXPECT_EQ(test, t->log[2], g->id);
	KUNIT_EXPECT_EQ(test, t->log[3], h->id);
	KUNIT_EXPECT_EQ(test, t->log[4], k->id);
	KUNIT_EXPECT_EQ(test, t->log[5], j->id);
	KUNIT_EXPECT_EQ(test, t->log[6], b->id);
	KUNIT_EXPECT_EQ(test, t->log[7], cc->id);
	KUNIT_EXPECT_EQ(test, t->log[8], a->id);
	KUNIT_EXPECT_EQ(test, t->log[9], f->id);
	KUNIT_EXPECT_EQ(test, t->log[10], e->id);
	KUNIT_EXPECT_EQ(test, j->fired_at, due);
	KUNIT_EXPECT_EQ(test, f->fired_at, due);
	KUNIT_EXPECT_EQ(test, t->n.same_tick, 7ULL);
	st_verify(t);
	st_assert_empty(t);
}

/*
 * tsched_del() in every state of an entry: never armed; pending; stopped
 * already; after it ran; pending for long, beside a twin armed alike that
 * still runs; and due on the tick being processed but not yet handed
 * over, from another entry's expiry function, first or last of its tick.
 * An entry that stops itself from its expiry function finds it idle.
 */
static void tsched_del_every_state(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;
	struct st_entry *x, *y, *a, *b, *cc, *d, *e;
	u64 start = 1000, len;

	st_init(t, c, start, 12);
	len = min_t(u64, t->s.max_interval, 400);

	/* Never armed, then pending, then stopped. */
	x = &t->ent[0];
	KUNIT_EXPECT_FALSE(test, st_stop(t, x));
	KUNIT_EXPECT_EQ(test, st_arm(t, x, 5), 0);
	KUNIT_EXPECT_TRUE(test, st_stop(t, x));
	KUNIT_EXPECT_FALSE(test, st_stop(t, x));
	st_verify(t);

	/* After it ran. */
	x = &t->ent[1];
	st_arm(t, x, 3);
	st_advance(t, t->now + 4);
	KUNIT_EXPECT_EQ(test, x->fired, 1U);
	KUNIT_EXPECT_FALSE(test, st_stop(t, x));
	st_verify(t);

	/* Pending for long, half-way there; its twin still runs. */
	x = &t->ent[2];
	y = &t->ent[3];
	st_arm(t, x, len);
	st_arm(t, y, len);
	st_advance(t, t->now + len / 2);
	KUNIT_EXPECT_TRUE(test, st_stop(t, x));
	st_verify(t);
	st_advance(t, y->due);
	KUNIT_EXPECT_EQ(test, x->fired, 0U);
	KUNIT_EXPECT_EQ(test, y->fired, 1U);

	/*
	 * Due but not yet run: A, armed first, stops B, due on the same
	 * tick.  C, due then too, stops itself: it is idle by then.
	 */
	a = &t->ent[4];
	b = &t->ent[5];
	cc = &t->ent[6];
	a->act = ST_STOP_OTHER;
	a->other = b;
	cc->act = ST_STOP_SELF;
	st_arm(t, a, 7);
	st_arm(t, b, 7);
	st_arm(t, cc, 7);
	t->n.stopped_due = 0;
	st_advance(t, t->now + 7);
	KUNIT_EXPECT_EQ(test, a->fired, 1U);
	KUNIT_EXPECT_TRUE(test, a->other_pending);
	KUNIT_EXPECT_EQ(test, a->other_slot, TWHEEL_SLOT_EXPIRED);
	KUNIT_EXPECT_EQ(test, a->ret, 1);
	KUNIT_EXPECT_EQ(test, b->fired, 0U);
	KUNIT_EXPECT_FALSE(test, tsched_pending(&b->e));
	KUNIT_EXPECT_EQ(test, cc->fired, 1U);
	KUNIT_EXPECT_EQ(test, cc->ret, 0);
	KUNIT_EXPECT_EQ(test, t->n.stopped_due, 1ULL);
	KUNIT_EXPECT_FALSE(test, st_stop(t, a));
	st_verify(t);

	/* The last of its tick, stopped by the first. */
	d = &t->ent[7];
	e = &t->ent[8];
	d->act = ST_STOP_OTHER;
	d->other = e;
	st_arm(t, d, 4);
	st_arm(t, e, 4);
	st_advance(t, t->now + 10);
	KUNIT_EXPECT_EQ(test, d->fired, 1U);
	KUNIT_EXPECT_EQ(test, d->ret, 1);
	KUNIT_EXPECT_EQ(test, e->fired, 0U);
	KUNIT_EXPECT_EQ(test, t->n.stopped_due, 2ULL);
	st_verify(t);
	st_assert_empty(t);
}

/*
 * Adds from inside tsched_advance(), all in one call of it: entries
 * re-arming themselves with a period of 0 (taken as 1), of a few ticks,
 * and of about the configuration's span; A re-arming B, due on the same
 * tick and not yet run, so that B runs on its new tick instead; C
 * re-arming D, pending, for an earlier tick; E stopping F; G arming idle H
 * for the next tick.  Each entry armed for a tick within the call runs on
 * that tick, within the call.
 */
static void tsched_add_rearm_from_expiry(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;
	u64 start = 3, m, periods[4], last = 0;
	struct st_entry *x, *a, *b, *cc, *d, *e, *f, *g, *h;
	unsigned int i;

	st_init(t, c, start, ARRAY_SIZE(periods) + 8);
	m = t->s.max_interval;
	periods[0] = 0;
	periods[1] = 3;
	periods[2] = min(c->span - 1, m);
	periods[3] = min(c->span + 1, m);
	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		x = &t->ent[i];
		x->act = ST_REARM_SELF;
		x->arg = periods[i];
		x->times = 5;
		st_arm(t, x, periods[i]);
		last = max(last, periods[i]);
	}
	a = &t->ent[i];
	b = &t->ent[i + 1];
	cc = &t->ent[i + 2];
	d = &t->ent[i + 3];
	e = &t->ent[i + 4];
	f = &t->ent[i + 5];
	g = &t->ent[i + 6];
	h = &t->ent[i + 7];
	a->act = ST_ARM_OTHER;
	a->other = b;
	a->arg = 4;
	st_arm(t, a, 10);
	st_arm(t, b, 10);
	cc->act = ST_ARM_OTHER;
	cc->other = d;
	cc->arg = 2;
	st_arm(t, cc, 20);
	st_arm(t, d, min(3 * c->span, m));
	e->act = ST_STOP_OTHER;
	e->other = f;
	st_arm(t, e, 30);
	st_arm(t, f, 31);
	g->act = ST_ARM_OTHER;
	g->other = h;
	g->arg = 0;
	st_arm(t, g, 40);
	st_verify(t);

	st_advance(t, start + 6 * last + 1);

	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		x = &t->ent[i];
		KUNIT_EXPECT_EQ_MSG(test, x->fired, 6U, "period %llu",
				    periods[i]);
		KUNIT_EXPECT_EQ_MSG(test, x->fired_at,
				    start + 6 * max_t(u64, periods[i], 1),
				    "period %llu", periods[i]);
	}
	KUNIT_EXPECT_EQ(test, a->ret, 1);
	KUNIT_EXPECT_TRUE(test, a->other_pending);
	KUNIT_EXPECT_EQ(test, a->other_slot, TWHEEL_SLOT_EXPIRED);
	KUNIT_EXPECT_EQ(test, b->fired, 1U);
	KUNIT_EXPECT_EQ(test, b->fired_at, start + 10 + 4);
	KUNIT_EXPECT_EQ(test, cc->ret, 1);
	KUNIT_EXPECT_EQ(test, d->fired, 1U);
	KUNIT_EXPECT_EQ(test, d->fired_at, start + 20 + 2);
	KUNIT_EXPECT_EQ(test, e->ret, 1);
	KUNIT_EXPECT_EQ(test, f->fired, 0U);
	KUNIT_EXPECT_EQ(test, g->ret, 0);
	KUNIT_EXPECT_EQ(test, h->fired, 1U);
	KUNIT_EXPECT_EQ(test, h->fired_at, start + 40 + 1);
	KUNIT_EXPECT_EQ(test, t->n.rearmed_due, 1ULL);
	st_verify(t);
	st_assert_empty(t);
}

#define ST_TEARDOWN_ENTRIES	64

/*
 * A structure is torn down by stopping its entries, then destroyed: first
 * with entries pending across many ticks (and, for the Lawn, queues of
 * many TTLs), some sharing a tick, some run already; then from inside an
 * expiry function, where A, first of its tick, stops every entry, the
 * others due on that tick too among them.  Nothing runs afterwards, and
 * nothing is left for tsched_destroy() to leak (KASAN and kmemleak
 * kernels run this).
 */
static void tsched_destroy_after_teardown(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;
	unsigned int i, before = 0;
	u64 start = 1000;
	struct st_entry *a;

	st_init(t, c, start, ST_TEARDOWN_ENTRIES);
	for (i = 0; i < ST_TEARDOWN_ENTRIES; i++)
		st_arm(t, &t->ent[i], 1 + (i % 20) * 9);
	st_advance(t, start + 50);
	st_verify(t);
	KUNIT_EXPECT_GT(test, t->n.fired, 0ULL);
	KUNIT_EXPECT_GT(test, t->npending, 0UL);
	for (i = 0; i < ST_TEARDOWN_ENTRIES; i++)
		st_stop(t, &t->ent[i]);
	st_verify(t);
	st_assert_empty(t);
	tsched_destroy(&t->s);
	t->live = false;

	st_init(t, c, start, ST_TEARDOWN_ENTRIES);
	a = &t->ent[0];
	a->act = ST_STOP_ALL;
	st_arm(t, a, 4);
	for (i = 1; i < ST_TEARDOWN_ENTRIES; i++) {
		st_arm(t, &t->ent[i], 1 + i % 8);
		if (1 + i % 8 < 4)
			before++;
	}
	st_advance(t, start + 20);
	KUNIT_EXPECT_EQ(test, a->fired, 1U);
	KUNIT_EXPECT_EQ(test, a->ret, (int)(ST_TEARDOWN_ENTRIES - 1 - before));
	KUNIT_EXPECT_EQ(test, t->n.fired, before + 1ULL);
	KUNIT_EXPECT_GT(test, t->n.stopped_due, 0ULL);
	st_verify(t);
	st_assert_empty(t);
	tsched_destroy(&t->s);
	t->live = false;
}

/* A configuration that tsched_init() must refuse. */
struct bad_config {
	const char *desc;
	struct tsched_config cfg;
};

static const struct bad_config bad_configs[] = {
	{ "scheme 4, 0 slots", { .scheme = TSCHED_WHEEL, .slots = 0 } },
	{ "scheme 4, 1 slot", { .scheme = TSCHED_WHEEL, .slots = 1 } },
	{ "scheme 5, 0 slots", { .scheme = TSCHED_HASHED_SORTED } },
	{ "scheme 5, 3 slots",
	  { .scheme = TSCHED_HASHED_SORTED, .slots = 3 } },
	{ "scheme 5, 48 slots",
	  { .scheme = TSCHED_HASHED_SORTED, .slots = 48 } },
	{ "scheme 6, 48 slots", { .scheme = TSCHED_HASHED, .geo = TWHEEL_GEOMETRY6(48) } },
	{ "scheme 6, 0 slots", { .scheme = TSCHED_HASHED, .geo = TWHEEL_GEOMETRY6(0) } },
	{ "scheme 6, 2 levels",
	  { .scheme = TSCHED_HASHED,
	    .geo = { .scheme = TWHEEL_SCHEME6, .levels = 2,
		     .slots = { 8, 8 } } } },
	{ "scheme 6, a scheme 7 geometry",
	  { .scheme = TSCHED_HASHED, .geo = TWHEEL_GEOMETRY7(2, 8, 8) } },
	{ "scheme 7, 1 level",
	  { .scheme = TSCHED_HIERARCHY, .geo = TWHEEL_GEOMETRY7(1, 64) } },
	{ "scheme 7, 0 levels",
	  { .scheme = TSCHED_HIERARCHY, .geo = TWHEEL_GEOMETRY7(0) } },
	{ "scheme 7, 9 levels",
	  { .scheme = TSCHED_HIERARCHY,
	    .geo = TWHEEL_GEOMETRY7(TWHEEL_MAX_LEVELS + 1, 2, 2, 2, 2, 2, 2, 2, 2) } },
	{ "scheme 7, a level of 1 slot",
	  { .scheme = TSCHED_HIERARCHY, .geo = TWHEEL_GEOMETRY7(3, 8, 1, 8) } },
	{ "scheme 7, 2^64 ticks",
	  { .scheme = TSCHED_HIERARCHY,
	    .geo = TWHEEL_GEOMETRY7(4, 65536, 65536, 65536, 65536) } },
	{ "scheme 0", { .scheme = 0 } },
	{ "scheme 9", { .scheme = 9 } },
};

static void bad_config_desc(const struct bad_config *b, char *desc)
{
	strscpy(desc, b->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_config, bad_configs, bad_config_desc);

/* tsched_init() refuses a configuration no scheme can take. */
static void tsched_init_bad_config(struct kunit *test)
{
	const struct bad_config *b = test->param_value;
	struct tsched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, s);
	ret = tsched_init(s, &b->cfg, 0);
	if (!ret)
		tsched_destroy(s);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
}

static struct kunit_case tsched_cases[] = {
	TWHEEL_CASE_PARAM_SLOW(tsched_advance_random, config_gen_params),
	KUNIT_CASE_PARAM(tsched_add_interval_limits, config_gen_params),
	KUNIT_CASE_PARAM(tsched_advance_same_tick_order, config_gen_params),
	KUNIT_CASE_PARAM(tsched_del_every_state, config_gen_params),
	KUNIT_CASE_PARAM(tsched_add_rearm_from_expiry, config_gen_params),
	KUNIT_CASE_PARAM(tsched_destroy_after_teardown, config_gen_params),
	KUNIT_CASE_PARAM(tsched_init_bad_config, bad_config_gen_params),
	{}
};

static struct kunit_suite tsched_suite = {
	.name = "twheel_schemes",
	.init = st_case_init,
	.exit = st_case_exit,
	.test_cases = tsched_cases,
};

kunit_test_suite(tsched_suite);

MODULE_DESCRIPTION("KUnit differential tests of every timer scheme of tsched.h");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
