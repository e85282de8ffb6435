// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.c - the timing wheels of twheel_core.c held against the reference
 * model of the KUnit suites (kunit/model.c, built here over user/shim/),
 * under a fuzzer or from seeds.
 *
 * Each run picks a geometry (one of a table of both schemes, small, odd
 * and the module's own, or one made up), where the clock starts (0, far
 * from it, just before the top level wraps, just below
 * %TWHEEL_CLOCK_LIMIT) and how many entries to use, then hands the wheel
 * to model_run(): adds for intervals and, through twheel_add_at(), for
 * ticks, of every class the wheel tells apart, refused ones among them;
 * bursts into one slot; dels; advances by a tick up to long jumps, to the
 * next work or the first due tick; expiry functions that re-arm or stop
 * their own entry or others, among them entries due on the tick being
 * processed.  Here, three advances in ten go by twheel_advance_batch(),
 * with small budgets and adds and dels between the batches.
 *
 * The model checks every call, every expiry and, after each operation,
 * every entry (see model.h); here the wheel must besides keep
 * twheel_next_work() after the clock (at it while a batch left a tick
 * unfinished) and not after the first due tick, twheel_next_hint() between
 * the two, twheel_first() to a pending entry, its stats to what happened,
 * and fire no WARN_ON() (the shim counts them).  A failure prints
 * "fuzz: FAIL: WHAT ..." and aborts; a seeded run's exits with 1 and the
 * command that repeats it.
 *
 * libFuzzer calls LLVMFuzzerTestOneInput(), whose input the model reads
 * its choices from, a few bytes each; "fuzz seeded [-s SEED] [-n SEEDS]
 * [-o OPS] [-S 6|7] [-g S:N,N,...] [-v]" runs seeds instead, each choice
 * drawn from the model's generator; "fuzz scenarios" checks that
 * twheel_init() refuses bad geometries, then runs the model's directed
 * scenarios on the geometries of the table.  scripts/user-check.sh builds
 * and runs all three.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/container_of.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#include "twheel_core.h"
#include "model.h"

#define FUZZ_OPS	4096	/* operations of one input, at the most */
#define FUZZ_BATCHES	1000000	/* batches of one advance, at the most */

/* An entry of the wheel, with the model's view of it. */
struct fz_entry {
	struct twheel_entry e;
	struct model_entry m;
};

/* One run: the wheel and its model. */
struct fz {
	struct model m;
	struct kunit test;
	struct twheel w;
	struct twheel_geometry geo;
	bool open;		/* a batch left the tick unfinished */
	u64 start;
};

/* The options of "fuzz seeded", printed again in a failure's command. */
static struct {
	unsigned long ops;
	int scheme;
	const char *geometry;
} opt = { .ops = 20000 };

static struct fz fz;

static struct fz *to_fz(struct model *m)
{
	return container_of(m, struct fz, m);
}

static struct twheel_entry *fz_e(const struct model_entry *x)
{
	return &container_of(x, struct fz_entry, m)->e;
}

static void geo_name(const struct twheel_geometry *geo, char *buf, size_t len)
{
	unsigned int n;
	int at;

	at = snprintf(buf, len, "%d:", geo->scheme);
	for (n = 0; n < geo->levels; n++)
		at += snprintf(buf + at, len - at, "%s%u", n ? "," : "",
			       geo->slots[n]);
}

/*
 * After a failure's message: the run, and how to repeat it; a seeded run
 * then exits with 1, a fuzzer's aborts.
 */
static void fz_report(struct kunit *test)
{
	struct fz *f = container_of(test, struct fz, test);
	char geo[96];

	geo_name(&f->geo, geo, sizeof(geo));
	fprintf(stderr, "  geometry %s from %llu, %u entries, op %llu, now %llu\n",
		geo, f->start, f->m.nent, f->m.op, f->w.now);
	if (f->m.in)
		return;
	fprintf(stderr, "  again: fuzz seeded -s %llu -n 1 -o %lu%s%s\n",
		f->m.seed, opt.ops, opt.geometry ? " -g " : "",
		opt.geometry ?: "");
	exit(1);
}

static void fz_entry_init(struct model *m, struct model_entry *x)
{
	twheel_entry_init(fz_e(x));
}

/* A refused add changes nothing (model_arm() compares the entry). */
static int fz_add_how(struct model *m, struct model_entry *x, bool at,
		      u64 val)
{
	struct twheel *w = &to_fz(m)->w;
	struct twheel_stats stats = w->stats;
	u64 next = twheel_next_work(w);
	unsigned long count = w->count;
	int ret;

	ret = at ? twheel_add_at(w, fz_e(x), val) : twheel_add(w, fz_e(x), val);
	if (ret < 0)
		model_check(m, x, w->count == count &&
			    twheel_next_work(w) == next &&
			    !memcmp(&w->stats, &stats, sizeof(stats)),
			    "refused add changed the wheel");
	return ret;
}

static int fz_add(struct model *m, struct model_entry *x, u64 interval)
{
	return fz_add_how(m, x, false, interval);
}

static int fz_add_at(struct model *m, struct model_entry *x, u64 tick)
{
	return fz_add_how(m, x, true, tick);
}

static bool fz_del(struct model *m, struct model_entry *x)
{
	return twheel_del(&to_fz(m)->w, fz_e(x));
}

static void fz_expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct fz *f = ctx;
	struct model_entry *x = &container_of(e, struct fz_entry, e)->m;

	model_check(&f->m, x, w == &f->w, "handed over by another wheel");
	model_check(&f->m, x, e->expires == w->now,
		    e->expires > w->now ? "expired early" : "expired late");
	model_expired(&f->m, x, w->now);
}

/*
 * twheel_advance_batch() to @to with a small budget until it says nothing
 * is left, others arming and stopping entries between the batches as an
 * owner that drops its lock lets them (in a random run); then
 * twheel_advance() to @to, which must find nothing left to run.
 */
static void fz_advance_batch(struct fz *f, u64 to)
{
	static const unsigned int budgets[] = {
		1, 2, 3, TWHEEL_DRAIN_MIN - 1, TWHEEL_DRAIN_MIN, 1000
	};
	struct model *m = &f->m;
	unsigned int budget = budgets[model_below(m, ARRAY_SIZE(budgets))];
	unsigned long calls = 0;
	u64 fired;

	while (twheel_advance_batch(&f->w, to, fz_expire, f, budget)) {
		KUNIT_ASSERT_LT_MSG(&f->test, ++calls, FUZZ_BATCHES + 0UL,
				    "batches to %llu still busy", to);
		f->open = true;
		model_paused(m);
		model_verify(m);
		if (m->rand_acts)
			model_rand_act(m, model_ent(m, model_below(m, m->nent)));
	}
	f->open = false;
	fired = m->n.fired;
	twheel_advance(&f->w, to, fz_expire, f);
	KUNIT_ASSERT_EQ_MSG(&f->test, m->n.fired, fired,
			    "twheel_advance() ran entries the batches left");
}

static void fz_advance(struct model *m, u64 to)
{
	struct fz *f = to_fz(m);

	if (model_below(m, 10) < 3)
		fz_advance_batch(f, to);
	else
		twheel_advance(&f->w, to, fz_expire, f);
}

static u64 fz_now(struct model *m)
{
	return to_fz(m)->w.now;
}

static unsigned long fz_count(struct model *m)
{
	return to_fz(m)->w.count;
}

static u64 fz_next_work(struct model *m)
{
	return twheel_next_work(&to_fz(m)->w);
}

static void fz_view(struct model *m, const struct model_entry *x,
		    struct model_view *v)
{
	const struct twheel_entry *e = fz_e(x);

	v->pending = twheel_entry_pending(e);
	v->expired = twheel_entry_due(&to_fz(m)->w, e);
	v->expires = e->expires;
	v->slot = e->slot;
}

/* What the wheel promises besides what the model checks. */
static void fz_verify(struct model *m)
{
	struct fz *f = to_fz(m);
	const struct twheel *w = &f->w;
	struct model_entry *first = model_first(m);
	struct twheel_entry *e = twheel_first(&f->w);
	u64 next = twheel_next_work(w), hint = twheel_next_hint(w);
	struct kunit *test = &f->test;

	if (f->open)
		KUNIT_ASSERT_EQ_MSG(test, next, w->now,
				    "next work with the tick unfinished");
	else if (first)
		KUNIT_ASSERT_GT_MSG(test, next, w->now, "next work");
	else
		KUNIT_ASSERT_EQ_MSG(test, next, U64_MAX, "next work");
	if (first)
		KUNIT_ASSERT_LE_MSG(test, next, first->due,
				    "next work after entry %u", first->id);
	if (!f->open) {
		KUNIT_ASSERT_GT_MSG(test, hint, w->now, "next hint");
		KUNIT_ASSERT_LE_MSG(test, hint, next, "next hint");
	}
	KUNIT_ASSERT_EQ_MSG(test, !e, !first, "twheel_first()");
	if (e)
		KUNIT_ASSERT_TRUE_MSG(test, container_of(e, struct fz_entry, e)->m.pending,
				      "twheel_first() gave an idle entry");
	KUNIT_ASSERT_EQ_MSG(test, w->stats.expired, m->n.fired, "stats");
	KUNIT_ASSERT_EQ_MSG(test, w->stats.ticks + w->stats.skipped,
			    w->now - f->start, "stats");
	KUNIT_ASSERT_LE_MSG(test, w->stats.moved_max,
			    w->stats.migrated + w->stats.early_visits, "stats");
	KUNIT_ASSERT_EQ_MSG(test, shim_warnings, 0UL, "WARN_ON fired");
}

static const struct model_ops fz_ops = {
	.name = "wheel",
	.entry_init = fz_entry_init,
	.add = fz_add,
	.add_at = fz_add_at,
	.del = fz_del,
	.advance = fz_advance,
	.now = fz_now,
	.count = fz_count,
	.view = fz_view,
	.verify = fz_verify,
	.next_work = fz_next_work,
};

/* The geometries a run picks from, when it does not make one up. */
static const struct twheel_geometry table[] = {
	TWHEEL_GEOMETRY6(4096),
	TWHEEL_GEOMETRY7(3, 256, 256, 256),
	TWHEEL_GEOMETRY6(2),
	TWHEEL_GEOMETRY6(4),
	TWHEEL_GEOMETRY6(16),
	TWHEEL_GEOMETRY6(256),
	TWHEEL_GEOMETRY7(2, 2, 2),
	TWHEEL_GEOMETRY7(2, 3, 2),
	TWHEEL_GEOMETRY7(2, 16, 16),
	TWHEEL_GEOMETRY7(2, 1000, 3),
	TWHEEL_GEOMETRY7(3, 2, 3, 2),
	TWHEEL_GEOMETRY7(3, 60, 60, 24),
	TWHEEL_GEOMETRY7(4, 3, 5, 7, 2),
	TWHEEL_GEOMETRY7(4, 64, 64, 64, 64),
	TWHEEL_GEOMETRY7(4, 60, 60, 24, 100),
	TWHEEL_GEOMETRY7(8, 4, 2, 3, 2, 2, 2, 2, 5),
};

/*
 * One of the table's geometries, two times in three, or one made up; of
 * the scheme of -S only.
 */
static void pick_geometry(struct model *m, struct twheel_geometry *geo)
{
	static const unsigned int sizes[] = {
		2, 3, 4, 5, 7, 8, 10, 12, 16, 24, 60, 64, 100, 128, 256, 1000
	};
	unsigned int n;

	do {
		memset(geo, 0, sizeof(*geo));
		if (model_below(m, 3)) {
			*geo = table[model_below(m, ARRAY_SIZE(table))];
		} else if (model_below(m, 10) < 3) {
			geo->scheme = TWHEEL_SCHEME6;
			geo->levels = 1;
			geo->slots[0] = 2U << model_below(m, 12);
		} else {
			geo->scheme = TWHEEL_SCHEME7;
			geo->levels = 2 + model_below(m, 3);
			for (n = 0; n < geo->levels; n++)
				geo->slots[n] = sizes[model_below(m, ARRAY_SIZE(sizes))];
		}
	} while (opt.scheme && geo->scheme != (enum twheel_scheme)opt.scheme);
}

static u64 pick_start(struct model *m, u64 span)
{
	switch (model_below(m, 6)) {
	case 0:
		return 0;
	case 1:
		return model_below(m, 1000);
	case 2:
		return model_below(m, 1ULL << 32);
	case 3:
		/* Just before the top level wraps, never before 0. */
		return span * (1 + model_below(m, 1000)) - 1 -
		       model_below(m, min(span, 3ULL));
	case 4:
		return (1ULL << 62) + model_below(m, 1ULL << 40);
	default:
		/* Where the clock can hardly move. */
		return TWHEEL_CLOCK_LIMIT - 1 - model_below(m, 1ULL << 20);
	}
}

/* A wheel of @f->geo from @f->start, and a model of @nent idle entries. */
static void fz_start(struct fz *f, unsigned int nent)
{
	struct model_shape shape = { .max_interval = TWHEEL_MAX_INTERVAL };
	unsigned int n;

	KUNIT_ASSERT_EQ_MSG(&f->test, twheel_init(&f->w, &f->geo, f->start), 0,
			    "twheel_init() refused the geometry");
	for (n = 0; n <= f->geo.levels; n++)
		shape.gran[n] = f->w.gran[n];
	shape.span = f->w.gran[f->geo.levels];
	/* Jumps as long as 2^44 ticks, if few entries are pending. */
	shape.far_spans = max(1ULL, (1ULL << 44) / shape.span);
	shape.max_now = TWHEEL_CLOCK_LIMIT - 1;
	model_reset(&f->m, &shape, f->start, nent);
	model_verify(&f->m);
}

/* Every entry stopped, through twheel_first(); then the wheel freed. */
static void fz_finish(struct fz *f)
{
	struct twheel_entry *e;

	while ((e = twheel_first(&f->w)))
		model_stop(&f->m, &container_of(e, struct fz_entry, e)->m);
	model_verify(&f->m);
	model_assert_empty(&f->m);
	twheel_destroy(&f->w);
	KUNIT_ASSERT_EQ_MSG(&f->test, shim_warnings, 0UL, "WARN_ON fired");
}

/*
 * One run of at most @ops operations on a wheel of @geo (else picked),
 * with the choices of @f->m: model_run().
 */
static void fz_run(struct fz *f, const struct twheel_geometry *geo,
		   unsigned int ops)
{
	static const unsigned int pool[] = { 1, 3, 8, 16, 48, 100, 300, 1000 };
	struct model *m = &f->m;

	if (geo)
		f->geo = *geo;
	else
		pick_geometry(m, &f->geo);
	f->start = pick_start(m, twheel_span(&f->geo));
	/* A fuzzer's input, short, is better spent on fewer entries. */
	fz_start(f, pool[model_below(m, m->in ? 5 : ARRAY_SIZE(pool))]);
	model_run(m, ops, 1);
	fz_finish(f);
}

/*
 * The model's directed scenarios, as twheel_wheel runs them, on a wheel
 * of @geo from tick 0 and from just before its top level wraps far out;
 * not on the smallest wheels, shorter than their timelines.
 */
static void fz_scenarios(struct fz *f, const struct twheel_geometry *geo)
{
	u64 span = twheel_span(geo);
	u64 starts[] = { 0, ((1ULL << 40) / span + 1) * span - 2 };
	unsigned int i;

	if (span < 16)
		return;
	f->geo = *geo;
	model_seed(&f->m, 1);
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		f->start = starts[i];
		fz_start(f, MODEL_LIMITS_ENTRIES);
		model_add_interval_limits(&f->m);
		fz_finish(f);
		fz_start(f, MODEL_ORDER_ENTRIES);
		model_same_tick_order(&f->m, span + span / 2 + 1);
		fz_finish(f);
		fz_start(f, MODEL_DEL_ENTRIES);
		model_del_every_state(&f->m);
		fz_finish(f);
		fz_start(f, MODEL_REARM_ENTRIES);
		model_rearm_from_expiry(&f->m);
		fz_finish(f);
	}
}

/* Set up @fz once: the model keeps its entries from run to run. */
static struct fz *fz_get(void)
{
	struct fz *f = &fz;

	if (!f->test.name) {
		f->test.name = "fuzz";
		f->test.report = fz_report;
		if (model_case_init(&f->m, &f->test, &fz_ops,
				    sizeof(struct fz_entry),
				    offsetof(struct fz_entry, m)))
			abort();
	}
	return f;
}

/* libFuzzer's entry point, under the name it looks for. */
int fuzz_one_input(const u8 *data, size_t size)
	__asm__("LLVMFuzzerTestOneInput");

int fuzz_one_input(const u8 *data, size_t size)
{
	static const u8 none;
	struct fz *f = fz_get();

	f->m.in = size ? data : &none;
	f->m.left = size;
	f->m.seed = 0;
	fz_run(f, NULL, FUZZ_OPS);
	return 0;
}

static int parse_geometry(const char *s, struct twheel_geometry *geo)
{
	char *end;

	memset(geo, 0, sizeof(*geo));
	geo->scheme = strtoul(s, &end, 10);
	if (*end != ':')
		return -EINVAL;
	do {
		if (geo->levels == TWHEEL_MAX_LEVELS)
			return -EINVAL;
		geo->slots[geo->levels++] = strtoul(end + 1, &end, 10);
	} while (*end == ',');
	return *end ? -EINVAL : twheel_geometry_check(geo);
}

static void __noreturn help(void)
{
	fprintf(stderr,
		"usage: fuzz seeded [-s SEED] [-n SEEDS] [-o OPS] [-S 6|7] [-g S:N,N,...] [-v]\n"
		"  runs seeds SEED..SEED+SEEDS-1 (default 1..20), OPS ops each (20000);\n"
		"  -S on geometries of one scheme only, -g on this one;\n"
		"otherwise the options and inputs are libFuzzer's\n");
	exit(2);
}

/* Geometries twheel_init() must refuse. */
static void fz_refusals(struct fz *f)
{
	static const struct twheel_geometry bad[] = {
		TWHEEL_GEOMETRY6(3),
		TWHEEL_GEOMETRY6(1),
		TWHEEL_GEOMETRY7(1, 256),
		TWHEEL_GEOMETRY7(2, 256, 1),
		{ .scheme = 5, .levels = 1, .slots = { 256 } },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		f->geo = bad[i];
		KUNIT_ASSERT_EQ_MSG(&f->test, twheel_init(&f->w, &bad[i], 0),
				    -EINVAL, "twheel_init() took a bad geometry");
	}
}

/* "fuzz seeded ...": the runs of seeds, one after another. */
static void __noreturn seeded(int argc, char **argv)
{
	struct twheel_geometry geo;
	unsigned long seeds = 20, i;
	struct fz *f = fz_get();
	u64 seed = 1;
	int c;

	while ((c = getopt(argc, argv, "s:n:o:S:g:v")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			seeds = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			opt.ops = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			opt.scheme = atoi(optarg);
			if (opt.scheme != 6 && opt.scheme != 7)
				help();
			break;
		case 'g':
			opt.geometry = optarg;
			if (parse_geometry(optarg, &geo))
				help();
			break;
		case 'v':
			f->test.verbose = true;
			break;
		default:
			help();
		}
	}
	if (optind != argc || !seed)
		help();

	for (i = 0; i < seeds; i++) {
		model_seed(&f->m, seed + i);
		fz_run(f, opt.geometry ? &geo : NULL, opt.ops);
		kunit_info(&f->test, "seed %llu: %u entries, %llu fired, %llu from expiry functions, %llu refused\n",
			   seed + i, f->m.nent, f->m.n.fired, f->m.n.acts,
			   f->m.n.refused);
	}
	printf("fuzz: seeds %llu..%llu, %lu ops each%s%s: all passed\n", seed,
	       seed + seeds - 1, opt.ops, opt.geometry ? ", geometry " :
	       opt.scheme == 6 ? ", scheme 6" : opt.scheme == 7 ? ", scheme 7" : "",
	       opt.geometry ?: "");
	exit(0);
}

/* "fuzz scenarios": the directed ones, on every geometry of the table. */
static void __noreturn all_scenarios(void)
{
	struct fz *f = fz_get();
	unsigned int i;

	fz_refusals(f);
	for (i = 0; i < ARRAY_SIZE(table); i++)
		fz_scenarios(f, &table[i]);
	printf("fuzz: bad geometries refused, scenarios passed\n");
	exit(0);
}

/* Called by libFuzzer before its own options are read. */
int fuzz_init(int *argc, char ***argv) __asm__("LLVMFuzzerInitialize");

int fuzz_init(int *argc, char ***argv)
{
	if (*argc == 2 && !strcmp((*argv)[1], "scenarios"))
		all_scenarios();
	if (*argc > 1 && !strcmp((*argv)[1], "seeded"))
		seeded(*argc - 1, *argv + 1);
	return 0;
}
