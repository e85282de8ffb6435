// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_arith: the wheels' pure arithmetic: which geometries
 * are accepted, and where an entry sits and when it is next looked at.
 * The expected values come from a mixed-radix digit computation written
 * out here, not from the code under test.
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "twheel_compat.h"
#include "twheel_core.h"

struct geometry_case {
	const char *desc;
	struct twheel_geometry geo;
	int ret;
};

static const struct geometry_case geometry_cases[] = {
	{ "scheme 6, 256 slots", TWHEEL_GEOMETRY6(256), 0 },
	{ "scheme 6, 2 slots", TWHEEL_GEOMETRY6(2), 0 },
	{ "scheme 6, 65536 slots", TWHEEL_GEOMETRY6(65536), 0 },
	{ "scheme 6, 100 slots (not a power of two)", TWHEEL_GEOMETRY6(100), -EINVAL },
	{ "scheme 6, 1 slot", TWHEEL_GEOMETRY6(1), -EINVAL },
	{ "scheme 6, 131072 slots", TWHEEL_GEOMETRY6(131072), -EINVAL },
	{ "scheme 6, two levels", { TWHEEL_SCHEME6, 2, { 64, 64 } }, -EINVAL },
	{ "scheme 7, 4 x 64", TWHEEL_GEOMETRY7(4, 64, 64, 64, 64), 0 },
	{ "scheme 7, paper 60/60/24/100", TWHEEL_GEOMETRY7(4, 60, 60, 24, 100), 0 },
	{ "scheme 7, 8 x 128 (2^56)", TWHEEL_GEOMETRY7(8, 128, 128, 128, 128, 128, 128, 128,
				       128), 0 },
	{ "scheme 7, 8 x 256 (2^64 overflows)", TWHEEL_GEOMETRY7(8, 256, 256, 256, 256, 256,
						   256, 256, 256), -EINVAL },
	{ "scheme 7, one level", TWHEEL_GEOMETRY7(1, 64), -EINVAL },
	{ "scheme 7, nine levels", TWHEEL_GEOMETRY7(9, 2, 2, 2, 2, 2, 2, 2, 2), -EINVAL },
	{ "scheme 7, a level of 1 slot", TWHEEL_GEOMETRY7(3, 64, 1, 64), -EINVAL },
	{ "scheme 5 does not exist here", { 5, 1, { 64 } }, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(geometry, geometry_cases, desc);

/* Each geometry is accepted or refused as the table says. */
static void twheel_geometry_check_table(struct kunit *test)
{
	const struct geometry_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, twheel_geometry_check(&c->geo), c->ret);
}

/* The reference, written from the definitions with plain division. */
static u64 ref_gran(const struct twheel_geometry *geo, unsigned int level)
{
	u64 g = 1;
	unsigned int n;

	for (n = 0; n < level; n++)
		g *= geo->slots[n];
	return g;
}

/* Slots of a level: twice the geometry's below the top of Scheme 7. */
static u64 ref_size(const struct twheel_geometry *geo, unsigned int level)
{
	return geo->slots[level] * (level + 1 < geo->levels ? 2 : 1);
}

/*
 * The level twheel puts an entry in: the lowest one whose slots, counted
 * from the start of the clock's slot of the level above, reach @expires;
 * the top level if none does.
 */
static unsigned int ref_level(const struct twheel_geometry *geo, u64 now,
			      u64 expires)
{
	unsigned int n;

	for (n = 0; n + 1 < geo->levels; n++) {
		u64 above = ref_gran(geo, n + 1);

		if (expires < (now / above) * above + ref_size(geo, n) *
			      ref_gran(geo, n))
			return n;
	}
	return n;
}

/*
 * The tick after @now on which the wheel first looks at an entry of
 * @expires at @level, found by walking the level's slot boundaries one at
 * a time: at level 0 the tick its slot comes round, above it the start of
 * the slot before the entry's (when that slot begins to drain).
 */
static u64 ref_visit(const struct twheel_geometry *geo, unsigned int level,
		     u64 now, u64 expires)
{
	u64 g = ref_gran(geo, level), s = ref_size(geo, level);
	u64 t = (now / g + 1) * g;
	u64 ahead = level ? 1 : 0;

	while ((t / g + ahead) % s != (expires / g) % s)
		t += g;
	return t;
}

/* twheel_place(), the function every arming places its entry with. */
static struct twheel_place place_of(const struct twheel *w, u64 now,
				    u64 expires)
{
	struct twheel_place pl;

	twheel_place(w, now, expires, &pl);
	return pl;
}

/*
 * Level, slot and visit of an entry of @expires at @now agree with the
 * digit reference, and the visit lies in (now, expires].
 */
static void expect_placed(struct kunit *test, const struct twheel *w,
			  u64 now, u64 e)
{
	const struct twheel_geometry *geo = &w->geo;
	unsigned int lvl = ref_level(geo, now, e);
	u64 g = ref_gran(geo, lvl);
	u64 visit = ref_visit(geo, lvl, now, e);
	struct twheel_place pl = place_of(w, now, e);

	KUNIT_ASSERT_EQ_MSG(test, pl.level, lvl, "now %llu expires %llu",
			    now, e);
	KUNIT_ASSERT_EQ_MSG(test, pl.slot - w->first[lvl],
			    (unsigned int)((e / g) % ref_size(geo, lvl)),
			    "now %llu expires %llu", now, e);
	KUNIT_ASSERT_EQ_MSG(test, twheel_slot_index(w, lvl, e),
			    pl.slot - w->first[lvl], "now %llu expires %llu",
			    now, e);
	KUNIT_ASSERT_EQ_MSG(test, pl.visit, visit, "now %llu expires %llu",
			    now, e);
	KUNIT_ASSERT_TRUE_MSG(test, visit > now && visit <= e,
			      "now %llu expires %llu visit %llu", now, e,
			      visit);
}

/* A geometry the sweep runs on, named for its parameter row. */
struct sweep_geometry {
	const char *desc;
	struct twheel_geometry geo;
};

static const struct sweep_geometry sweep_geometries[] = {
	{ "scheme 6: 8", TWHEEL_GEOMETRY6(8) },
	{ "scheme 6: 64", TWHEEL_GEOMETRY6(64) },
	{ "scheme 7: 4 4", TWHEEL_GEOMETRY7(2, 4, 4) },
	{ "scheme 7: 4 3 5", TWHEEL_GEOMETRY7(3, 4, 3, 5) },
	{ "scheme 7: 4 4 4", TWHEEL_GEOMETRY7(3, 4, 4, 4) },
	{ "scheme 7: 2 3 2 3", TWHEEL_GEOMETRY7(4, 2, 3, 2, 3) },
	/* Powers of two of unequal widths: log2 of the spans 0 1 4 6, 0 3 4 5 7. */
	{ "scheme 7: 2 8 4", TWHEEL_GEOMETRY7(3, 2, 8, 4) },
	{ "scheme 7: 8 2 2 4", TWHEEL_GEOMETRY7(4, 8, 2, 2, 4) },
};

KUNIT_ARRAY_PARAM_DESC(sweep, sweep_geometries, desc);

/*
 * For every clock value over two rotations of the hierarchy and every
 * expiry up to two more rotations ahead: the level, the slot and the visit
 * tick agree with the digit reference, and the visit lies in (now, expires].
 */
static void twheel_place_sweep(struct kunit *test)
{
	const struct sweep_geometry *p = test->param_value;
	const struct twheel_geometry *geo = &p->geo;
	struct twheel *w;
	u64 span, now, e;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, twheel_init(w, geo, 0), 0);
	span = twheel_span(geo);
	KUNIT_EXPECT_EQ(test, span, ref_gran(geo, geo->levels));

	for (now = 0; now < 2 * span; now++)
		for (e = now + 1; e <= now + 2 * span; e++)
			expect_placed(test, w, now, e);
	twheel_destroy(w);
}

/* Wheels too large to sweep: the module's defaults, and wider ones. */
static const struct sweep_geometry large_geometries[] = {
	{ "scheme 6: 4096", TWHEEL_GEOMETRY6(4096) },
	{ "scheme 7: 256 256 256", TWHEEL_GEOMETRY7(3, 256, 256, 256) },
	{ "scheme 7: 4 x 64", TWHEEL_GEOMETRY7(4, 64, 64, 64, 64) },
	{ "scheme 7: 16 1024 4 256", TWHEEL_GEOMETRY7(4, 16, 1024, 4, 256) },
	{ "scheme 7: 8 x 128", TWHEEL_GEOMETRY7(8, 128, 128, 128, 128, 128,
						128, 128, 128) },
	{ "scheme 7: 60 60 24 100", TWHEEL_GEOMETRY7(4, 60, 60, 24, 100) },
};

KUNIT_ARRAY_PARAM_DESC(large, large_geometries, desc);

/* xorshift64: the same samples on every run. */
static u64 next_sample(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Clocks anywhere below the wheels' limit, and distances of every
 * magnitude up to %TWHEEL_MAX_INTERVAL, each magnitude also at the edges
 * that decide a level: a power of two, and one either side of it, and
 * the clock at the end of a slot of each level.
 */
static void twheel_place_large(struct kunit *test)
{
	const struct sweep_geometry *p = test->param_value;
	struct twheel *w;
	u64 x = 1987, now, d;
	unsigned int i, b;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &p->geo, 0), 0);
	for (i = 0; i < 1000; i++) {
		now = next_sample(&x) & (TWHEEL_CLOCK_LIMIT - 1);
		if (i & 1) {
			/* The last tick of a slot of some level. */
			u64 g = ref_gran(&p->geo, next_sample(&x) %
					 (p->geo.levels + 1));

			now = now / g * g + g - 1;
		}
		for (b = 0; b < 62; b++) {
			d = BIT_ULL(b) + (next_sample(&x) & (BIT_ULL(b) - 1));
			expect_placed(test, w, now, now + d);
			expect_placed(test, w, now, now + BIT_ULL(b));
			if (b)
				expect_placed(test, w, now,
					      now + BIT_ULL(b) - 1);
			expect_placed(test, w, now, now + BIT_ULL(b) + 1);
		}
	}
	twheel_destroy(w);
}

/*
 * A level-0 entry is visited on its own tick; one higher up from the start
 * of the slot before its own.
 */
static void twheel_place_level0_visit_is_expiry(struct kunit *test)
{
	static const struct twheel_geometry geo = TWHEEL_GEOMETRY7(3, 16, 16, 16);
	struct twheel *w;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &geo, 1000), 0);
	/* 1000 = 3*256 + 14*16 + 8: 1001..1007 share every higher digit. */
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1007).level, 0U);
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1007).visit, 1007ULL);
	/* 1008 starts the next level-1 slot, which level 0 holds too. */
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1008).level, 0U);
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1023).visit, 1023ULL);
	/* 1024 is two level-1 slots on: level 1, drained from 1008. */
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1024).level, 1U);
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1030).visit, 1008ULL);
	/* 1300 is in level-2 slot 5, two on: level 2, drained from 1024. */
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1300).level, 2U);
	KUNIT_EXPECT_EQ(test, place_of(w, 1000, 1300).visit, 1024ULL);
	twheel_destroy(w);
}

#define T_SEC	1ULL
#define T_MIN	(60 * T_SEC)
#define T_HOUR	(60 * T_MIN)
#define T_DAY	(24 * T_HOUR)

/*
 * The paper's Fig. 7 and 8: seconds, minutes, hours and days wheels; at
 * 11 d 10 h 24 min 30 s a timer of 50 min 45 s is set, due at 11 d 11 h
 * 15 min 15 s.  The paper puts it in hour slot 11.  twheel's minute wheel
 * has 120 slots, this hour's and the next's, so it goes to slot 75 there
 * (minute 15 of the next hour); that slot is drained from 11 d 11 h 14 min,
 * into slot 75 of the second wheel (second 15 of the next minute).
 */
static void twheel_place_paper_example(struct kunit *test)
{
	static const struct twheel_geometry geo = TWHEEL_GEOMETRY7(4, 60, 60, 24, 100);
	u64 now = 11 * T_DAY + 10 * T_HOUR + 24 * T_MIN + 30 * T_SEC;
	u64 e = now + 50 * T_MIN + 45 * T_SEC;
	struct twheel *w;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, twheel_init(w, &geo, now), 0);
	KUNIT_EXPECT_EQ(test, e, 11 * T_DAY + 11 * T_HOUR + 15 * T_MIN + 15 * T_SEC);

	/* Minute wheel, slot 75, looked at on 11 d 11 h 14 min. */
	KUNIT_EXPECT_EQ(test, place_of(w, now, e).level, 1U);
	KUNIT_EXPECT_EQ(test, twheel_slot_index(w, 1, e), 75U);
	now = place_of(w, now, e).visit;
	KUNIT_EXPECT_EQ(test, now, 11 * T_DAY + 11 * T_HOUR + 14 * T_MIN);

	/* Second wheel, slot 75: due. */
	KUNIT_EXPECT_EQ(test, place_of(w, now, e).level, 0U);
	KUNIT_EXPECT_EQ(test, twheel_slot_index(w, 0, e), 75U);
	KUNIT_EXPECT_EQ(test, place_of(w, now, e).visit, e);
	twheel_destroy(w);
}

/*
 * Beyond the hierarchy's span an entry waits in the top level and is looked
 * at once per rotation; for Scheme 6 every rotation of its one level.
 */
static void twheel_place_beyond_span(struct kunit *test)
{
	static const struct twheel_geometry geo6 = TWHEEL_GEOMETRY6(256);
	static const struct twheel_geometry geo7 = TWHEEL_GEOMETRY7(2, 16, 16);
	struct twheel *w;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);

	KUNIT_ASSERT_EQ(test, twheel_init(w, &geo6, 10), 0);
	/* Slot 1000 % 256 = 232 comes round on 232, 488, 744, 1000. */
	KUNIT_EXPECT_EQ(test, twheel_slot_index(w, 0, 1000), 232U);
	KUNIT_EXPECT_EQ(test, place_of(w, 10, 1000).visit, 232ULL);
	KUNIT_EXPECT_EQ(test, place_of(w, 232, 1000).visit, 488ULL);
	KUNIT_EXPECT_EQ(test, place_of(w, 744, 1000).visit, 1000ULL);
	/* The longest interval is accepted arithmetic, not an overflow. */
	KUNIT_EXPECT_GT(test, place_of(w, 10, 10 + TWHEEL_MAX_INTERVAL).visit,
			10ULL);
	twheel_destroy(w);

	KUNIT_ASSERT_EQ(test, twheel_init(w, &geo7, 0), 0);
	/*
	 * 1000 = 62 * 16 + 8: top digit 62 % 16 = 14, drained from the slot
	 * before it: 208, 464, 720, and in its own rotation on 976, when it
	 * goes down to level 0.
	 */
	KUNIT_EXPECT_EQ(test, place_of(w, 0, 1000).level, 1U);
	KUNIT_EXPECT_EQ(test, place_of(w, 0, 1000).visit, 208ULL);
	KUNIT_EXPECT_EQ(test, place_of(w, 208, 1000).visit, 464ULL);
	KUNIT_EXPECT_EQ(test, place_of(w, 720, 1000).visit, 976ULL);
	KUNIT_EXPECT_EQ(test, place_of(w, 976, 1000).level, 0U);
	twheel_destroy(w);
}

static struct kunit_case twheel_arith_cases[] = {
	KUNIT_CASE_PARAM(twheel_geometry_check_table, geometry_gen_params),
	TWHEEL_CASE_PARAM_SLOW(twheel_place_sweep, sweep_gen_params),
	TWHEEL_CASE_PARAM_SLOW(twheel_place_large, large_gen_params),
	KUNIT_CASE(twheel_place_level0_visit_is_expiry),
	KUNIT_CASE(twheel_place_paper_example),
	KUNIT_CASE(twheel_place_beyond_span),
	{}
};

static struct kunit_suite twheel_arith_suite = {
	.name = "twheel_arith",
	.test_cases = twheel_arith_cases,
};

kunit_test_suite(twheel_arith_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's wheel arithmetic");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
