// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_schemes: differential tests of every timer scheme
 * behind bench/tsched.h: Schemes 1 to 5 and the Timer Lawn, whose code
 * (bench/tsched.c) is compiled in here, and twheel's Schemes 6 and 7,
 * reached in twheel.ko.
 *
 * The suite knows the schemes only through the tsched_*() calls and the
 * fields tsched.h documents, and holds every one of them to the reference
 * model of model.h, which twheel_wheel shares: the pending entries in a
 * plain list sorted by due tick and, within a tick, by the order they were
 * last armed in.  Each expiry must be the model's first entry, on its
 * tick; after each operation the scheme's clock and count, the return
 * value of the call and the state of the entries it touched are compared
 * with the model, and so is every entry after each advance.  A failure
 * names the random run's seed, the operation and the tick, so that it can
 * be replayed.
 *
 * Each configuration (a scheme and a shape) runs one seeded random
 * sequence of operations, then the model's directed scenarios for the
 * paths a random run reaches only by luck: order within a tick, del in
 * every state, adds from expiry functions; then teardown; and
 * tsched_init() refuses bad shapes.
 *
 * Built into twheel_model_test with twheel_wheel and the model
 * (wheel_test.c).
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
#include "model.h"

/*
 * The code under test, not exported, is built into this module too; it is
 * bench's, and Kbuild builds an object only within the folder it lists it
 * in: here, then, as a part of this file.  (bench/ builds tsched.o for
 * twheel_schemes.ko, with its own flags, in its own build.)
 */
#include "../bench/tsched.c"

/* A timer of the tests, with the model's view of it. */
struct st_entry {
	struct tsched_entry e;
	struct model_entry m;
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

/* One case's structure and model; test->priv. */
struct st {
	struct model m;
	struct tsched s;
	bool live;		/* @s is initialised */
};

static struct st *to_st(struct model *m)
{
	return container_of(m, struct st, m);
}

static struct tsched_entry *st_e(const struct model_entry *x)
{
	return &container_of(x, struct st_entry, m)->e;
}

static void st_entry_init(struct model *m, struct model_entry *x)
{
	tsched_entry_init(st_e(x));
}

static int st_add(struct model *m, struct model_entry *x, u64 interval)
{
	return tsched_add(&to_st(m)->s, st_e(x), interval);
}

static bool st_del(struct model *m, struct model_entry *x)
{
	return tsched_del(&to_st(m)->s, st_e(x));
}

static void st_expire(struct tsched *s, struct tsched_entry *e, void *ctx)
{
	model_expired(ctx, &container_of(e, struct st_entry, e)->m,
		      tsched_now(s));
}

static void st_advance(struct model *m, u64 to)
{
	tsched_advance(&to_st(m)->s, to, st_expire, m);
}

static u64 st_now(struct model *m)
{
	return tsched_now(&to_st(m)->s);
}

static unsigned long st_count(struct model *m)
{
	return tsched_count(&to_st(m)->s);
}

/* What tsched.h documents of an entry: e.w.expires and e.w.slot's state. */
static void st_view(struct model *m, const struct model_entry *x,
		    struct model_view *v)
{
	const struct tsched_entry *e = st_e(x);

	v->pending = tsched_pending(e);
	v->expired = tsched_due(&to_st(m)->s, e);
	v->expires = e->w.expires;
	v->slot = e->w.slot;
}

static const struct model_ops st_ops = {
	.name = "scheme",
	.entry_init = st_entry_init,
	.add = st_add,
	.del = st_del,
	.advance = st_advance,
	.now = st_now,
	.count = st_count,
	.view = st_view,
};

/* Stop every entry, then free the structure. */
static void st_teardown(struct st *t)
{
	unsigned int i;

	if (!t->live)
		return;
	for (i = 0; i < t->m.nent; i++)
		tsched_del(&t->s, st_e(model_ent(&t->m, i)));
	tsched_destroy(&t->s);
	t->live = false;
}

/* A new structure of @c at tick @now, @nent idle entries, an empty model. */
static void st_init(struct st *t, const struct st_config *c, u64 now,
		    unsigned int nent)
{
	struct model_shape shape = {
		.span = c->span,
		.ttls = c->ttls,
		.nttls = c->nttls,
	};

	st_teardown(t);
	KUNIT_ASSERT_EQ(t->m.test, tsched_init(&t->s, &c->cfg, now), 0);
	t->live = true;
	memcpy(shape.gran, c->gran, sizeof(c->gran));
	shape.max_interval = t->s.max_interval;
	model_reset(&t->m, &shape, now, nent);
}

static int st_case_init(struct kunit *test)
{
	struct st *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	test->priv = t;
	return model_case_init(&t->m, test, &st_ops, sizeof(struct st_entry),
			       offsetof(struct st_entry, m));
}

static void st_case_exit(struct kunit *test)
{
	struct st *t = test->priv;

	st_teardown(t);
	model_case_exit(&t->m);
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

KUNIT_ARRAY_PARAM_DESC(config, configs, desc);

#define ST_RANDOM_OPS		100000
#define ST_RANDOM_ENTRIES	40

/*
 * The differential test: model_random()'s ST_RANDOM_OPS random operations
 * on ST_RANDOM_ENTRIES entries.  After each operation the scheme must
 * agree with the model: the clock and count always, every entry after each
 * advance and every eighth operation.
 */
static void tsched_advance_random(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;
	const struct twheel_stats *stats;

	st_init(t, c, model_seed(&t->m, c->seed), ST_RANDOM_ENTRIES);
	kunit_info(test, "%s\n", tsched_name(c->cfg.scheme));
	model_random(&t->m, ST_RANDOM_OPS, 8);

	stats = tsched_stats(&t->s);
	kunit_info(test, "stats: ticks %llu skipped %llu migrated %llu early visits %llu expired %llu\n",
		   stats->ticks, stats->skipped, stats->migrated,
		   stats->early_visits, stats->expired);
}

/*
 * The interval limits of model_add_interval_limits(); tsched.h: Scheme 4
 * bounds intervals to @slots - 1 ticks.
 */
static void tsched_add_interval_limits(struct kunit *test)
{
	const struct st_config *c = test->param_value;
	struct st *t = test->priv;

	st_init(t, c, 1000, MODEL_LIMITS_ENTRIES);
	if (c->cfg.scheme == TSCHED_WHEEL)
		KUNIT_EXPECT_EQ(test, t->s.max_interval, (u64)c->cfg.slots - 1);
	model_add_interval_limits(&t->m);
}

/*
 * Entries due on one tick run in the order they were last armed, whatever
 * interval each was armed with (model_same_tick_order()): where intervals
 * have queues, two of them share one.
 */
static void tsched_advance_same_tick_order(struct kunit *test)
{
	struct st *t = test->priv;

	st_init(t, test->param_value, 1000, MODEL_ORDER_ENTRIES);
	model_same_tick_order(&t->m, 300);
}

/* tsched_del() in every state of an entry (model_del_every_state()). */
static void tsched_del_every_state(struct kunit *test)
{
	struct st *t = test->priv;

	st_init(t, test->param_value, 1000, MODEL_DEL_ENTRIES);
	model_del_every_state(&t->m);
}

/*
 * Adds from inside one tsched_advance() (model_rearm_from_expiry()), with
 * periods of about the configuration's span.
 */
static void tsched_add_rearm_from_expiry(struct kunit *test)
{
	struct st *t = test->priv;

	st_init(t, test->param_value, 3, MODEL_REARM_ENTRIES);
	model_rearm_from_expiry(&t->m);
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
	struct model *m = &t->m;
	unsigned int i, before = 0;
	u64 start = 1000;
	struct model_entry *a;

	st_init(t, c, start, ST_TEARDOWN_ENTRIES);
	for (i = 0; i < ST_TEARDOWN_ENTRIES; i++)
		model_arm(m, model_ent(m, i), 1 + (i % 20) * 9);
	model_advance(m, start + 50);
	model_verify(m);
	KUNIT_EXPECT_GT(test, m->n.fired, 0ULL);
	KUNIT_EXPECT_GT(test, m->npending, 0UL);
	for (i = 0; i < ST_TEARDOWN_ENTRIES; i++)
		model_stop(m, model_ent(m, i));
	model_verify(m);
	model_assert_empty(m);
	tsched_destroy(&t->s);
	t->live = false;

	st_init(t, c, start, ST_TEARDOWN_ENTRIES);
	a = model_ent(m, 0);
	a->act = MODEL_STOP_ALL;
	model_arm(m, a, 4);
	for (i = 1; i < ST_TEARDOWN_ENTRIES; i++) {
		model_arm(m, model_ent(m, i), 1 + i % 8);
		if (1 + i % 8 < 4)
			before++;
	}
	model_advance(m, start + 20);
	KUNIT_EXPECT_EQ(test, a->fired, 1U);
	KUNIT_EXPECT_EQ(test, a->ret, (int)(ST_TEARDOWN_ENTRIES - 1 - before));
	KUNIT_EXPECT_EQ(test, m->n.fired, before + 1ULL);
	KUNIT_EXPECT_GT(test, m->n.stopped_due, 0ULL);
	model_verify(m);
	model_assert_empty(m);
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

KUNIT_ARRAY_PARAM_DESC(bad_config, bad_configs, desc);

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
