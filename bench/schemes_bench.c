// SPDX-License-Identifier: GPL-2.0
/*
 * Every scheme of the papers, measured behind one interface (tsched.h):
 * the cost of start, stop and a tick against n, and twheel's per-tick
 * bookkeeping against n and the mean interval T.  Loaded by
 * scripts/bench.sh; runs in its init, single-threaded, on a clock driven
 * by hand (no hrtimer: this is the data structures alone), and prints one
 * line per figure to the kernel log, in the format of bench_line.h:
 *
 *   ops scheme=SCHEME n=N | start_ns=NS stop_ns=NS tick_ns=NS
 *       expired_per_tick=X
 *   bookkeeping scheme=S geometry=G n=N T=T | ticks=TICKS expired=E
 *       tick_ns=NS expiry_ns=NS visits_per_expiry=X
 *       migrations_per_expiry=X
 *
 * (one line each).
 *
 * ops: n entries are armed with intervals uniform in [T, 2T), T = 1000
 * ticks (the Lawn's favourable case draws them from 8 values in that
 * range instead).  start_ns arms idle entries into that population and
 * stop_ns stops them again; tick_ns advances the clock one tick at a time
 * for up to T/2 ticks, on which nothing comes due (expired_per_tick says
 * so): the bookkeeping a tick costs, without expiries.
 *
 * bookkeeping: n entries, each re-armed as it expires for an interval
 * uniform in [T/2, 3T/2], are run for T ticks to settle and then measured
 * over the next max(T, 4096) ticks, one tick at a time.  The paper puts
 * Scheme 6's bookkeeping per entry at c(6) * T/M (an entry is looked at
 * each time its slot comes round) and Scheme 7's at c(7) * m (it moves
 * down at most once per level): visits_per_expiry and
 * migrations_per_expiry count exactly those.
 */

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "bench_line.h"
#include "tsched.h"

/* The lines this module prints, as bench_line.h says. */
#define OPS_LINE \
	"ops scheme=%s n=%u | start_ns=%llu stop_ns=%llu tick_ns=%llu expired_per_tick=%s"
#define BOOKKEEPING_LINE \
	"bookkeeping scheme=%s geometry=%s n=%u T=%u | ticks=%u expired=%llu tick_ns=%llu " \
	"expiry_ns=%llu visits_per_expiry=%s migrations_per_expiry=%s"

static unsigned int max_n = 1000000;
module_param(max_n, uint, 0444);
MODULE_PARM_DESC(max_n, "largest N; N runs over the powers of 10 from 100");

static unsigned int min_ms = 100;
module_param(min_ms, uint, 0444);
MODULE_PARM_DESC(min_ms, "time each figure is measured for, at least");

static unsigned int budget_ms = 4000;
module_param(budget_ms, uint, 0444);
MODULE_PARM_DESC(budget_ms,
		 "a scheme whose point took longer is not run at the next N");

#define OPS_T		1000	/* the mean interval of the ops figures */
#define LAWN_FEW_TTLS	8

/* A measured configuration: a scheme, its shape and its intervals. */
struct config {
	const char *name;
	struct tsched_config cfg;
	bool few_ttls;		/* intervals from LAWN_FEW_TTLS values */
};

static const struct config ops_configs[] = {
	{ "scheme1", { .scheme = TSCHED_UNORDERED } },
	{ "scheme2", { .scheme = TSCHED_ORDERED } },
	{ "scheme3", { .scheme = TSCHED_TREE } },
	{ "scheme4", { .scheme = TSCHED_WHEEL, .slots = 4 * OPS_T } },
	{ "scheme5", { .scheme = TSCHED_HASHED_SORTED, .slots = 4096 } },
	{ "scheme6", { .scheme = TSCHED_HASHED, .geo = TWHEEL_GEOMETRY6(4096) } },
	{ "scheme7", { .scheme = TSCHED_HIERARCHY,
		       .geo = TWHEEL_GEOMETRY7(3, 256, 256, 256) } },
	{ "lawn_few", { .scheme = TSCHED_LAWN }, true },
	{ "lawn_many", { .scheme = TSCHED_LAWN } },
};

struct bench_entry {
	struct tsched_entry e;
	u32 interval;
};

/* One run's structure and entries. */
struct run {
	struct tsched s;
	struct bench_entry *ent;
	unsigned int n;			/* entries armed at the start */
	unsigned int extra;		/* idle entries after them */
	const struct config *c;
	struct rnd_state rnd;
	u32 lo, span;			/* re-arm intervals: lo + [0, span) */
	bool rearm;			/* expiries re-arm their entry */
	u64 expired;
};

static u32 ops_interval(struct run *r)
{
	u32 x = prandom_u32_state(&r->rnd);

	if (r->c->few_ttls)
		return OPS_T + x % LAWN_FEW_TTLS * (OPS_T / LAWN_FEW_TTLS);
	return OPS_T + x % OPS_T;
}

static void expire(struct tsched *s, struct tsched_entry *e, void *ctx)
{
	struct run *r = ctx;
	struct bench_entry *b = container_of(e, struct bench_entry, e);

	r->expired++;
	if (r->rearm) {
		b->interval = r->lo + prandom_u32_state(&r->rnd) % r->span;
		tsched_add(s, e, b->interval);
	}
}

static int cmp_desc(const void *a, const void *b)
{
	const struct bench_entry *x = a, *y = b;

	return (x->interval < y->interval) - (x->interval > y->interval);
}

/*
 * A structure holding @n entries, intervals as ops_interval() or as
 * [@lo, @lo + @span) gives them, and @extra idle entries after them.  The
 * entries are armed latest first, so that no scheme's start walks far.
 */
static int run_setup(struct run *r, const struct config *c, unsigned int n,
		     unsigned int extra, u32 lo, u32 span)
{
	unsigned int i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->c = c;
	r->n = n;
	r->extra = extra;
	r->lo = lo;
	r->span = span;
	prandom_seed_state(&r->rnd, 1987);
	r->ent = vzalloc(array_size(n + extra, sizeof(*r->ent)));
	if (!r->ent)
		return -ENOMEM;
	ret = tsched_init(&r->s, &c->cfg, 0);
	if (ret) {
		vfree(r->ent);
		r->ent = NULL;
		return ret;
	}
	for (i = 0; i < n + extra; i++) {
		tsched_entry_init(&r->ent[i].e);
		r->ent[i].interval = span ? lo + prandom_u32_state(&r->rnd) % span
					  : ops_interval(r);
	}
	sort(r->ent, n, sizeof(*r->ent), cmp_desc, NULL);
	for (i = 0; i < n; i++) {
		ret = tsched_add(&r->s, &r->ent[i].e, r->ent[i].interval);
		if (ret < 0)
			return ret;
		if (!(i & 0xffff))
			cond_resched();
	}
	return 0;
}

static void run_teardown(struct run *r)
{
	unsigned int i;

	if (!r->ent)
		return;
	for (i = 0; i < r->n + r->extra; i++)
		tsched_del(&r->s, &r->ent[i].e);
	tsched_destroy(&r->s);
	vfree(r->ent);
	r->ent = NULL;
}

/* ns per start and per stop of @k idle entries, best of three batches. */
static void measure_start_stop(struct run *r, u64 *start, u64 *stop)
{
	struct bench_entry *x = r->ent + r->n;
	unsigned int k = min(r->extra, 16U), round, i;
	u64 t0, t1, t2;

	*start = *stop = U64_MAX;
	for (round = 0; round < 3; ) {
		t0 = ktime_get_ns();
		for (i = 0; i < k; i++)
			tsched_add(&r->s, &x[i].e, x[i].interval);
		t1 = ktime_get_ns();
		for (i = 0; i < k; i++)
			tsched_del(&r->s, &x[i].e);
		t2 = ktime_get_ns();
		cond_resched();
		if (t2 - t0 < (u64)min_ms * NSEC_PER_MSEC / 2 && k < r->extra) {
			k = min(2 * k, r->extra);
			continue;
		}
		*start = min(*start, div_u64(t1 - t0, k));
		*stop = min(*stop, div_u64(t2 - t1, k));
		round++;
	}
}

/*
 * ns per tick over as many ticks as last min_ms, but at most T/2, before
 * any entry comes due.  @expired: thousandths of an expiry per tick, which
 * should be none.
 */
static u64 measure_ticks(struct run *r, u64 *expired)
{
	u64 now = tsched_now(&r->s), t0, ns;
	unsigned int ticks = 0, i;

	r->expired = 0;
	t0 = ktime_get_ns();
	do {
		for (i = 0; i < 8; i++)
			tsched_advance(&r->s, ++now, expire, r);
		ticks += 8;
		ns = ktime_get_ns() - t0;
	} while (ns < (u64)min_ms * NSEC_PER_MSEC && ticks < OPS_T / 2);
	*expired = div_u64(1000 * r->expired, ticks);
	return div_u64(ns, ticks);
}

static void bench_ops(void)
{
	u64 skip_above[ARRAY_SIZE(ops_configs)] = { 0 };
	unsigned int i, n;
	struct run *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return;
	for (n = 100; n <= max_n; n *= 10) {
		for (i = 0; i < ARRAY_SIZE(ops_configs); i++) {
			const struct config *c = &ops_configs[i];
			u64 t0 = ktime_get_ns(), start, stop, tick, expired;
			char x[24];
			int ret;

			if (skip_above[i])
				continue;
			ret = run_setup(r, c, n, min(n, 4096U), 0, 0);
			if (ret) {
				pr_err("twheel_bench: %s with %u entries: error %d\n",
				       c->name, n, ret);
				run_teardown(r);
				skip_above[i] = n;
				continue;
			}
			measure_start_stop(r, &start, &stop);
			tick = measure_ticks(r, &expired);
			run_teardown(r);
			bench_line(OPS_LINE, c->name, n, start, stop, tick,
				   bench_frac(x, sizeof(x), expired, 1000, 3));
			if (ktime_get_ns() - t0 > (u64)budget_ms * NSEC_PER_MSEC)
				skip_above[i] = n;
			cond_resched();
		}
	}
	for (i = 0; i < ARRAY_SIZE(ops_configs); i++)
		if (skip_above[i] && skip_above[i] < max_n)
			pr_info("twheel_bench: %s stopped after n = %llu: over budget_ms\n",
				ops_configs[i].name, skip_above[i]);
	kfree(r);
}

static const struct config book_configs[] = {
	{ "6", { .scheme = TSCHED_HASHED, .geo = TWHEEL_GEOMETRY6(256) } },
	{ "7", { .scheme = TSCHED_HIERARCHY, .geo = TWHEEL_GEOMETRY7(3, 64, 64, 64) } },
};

static void geometry_name(const struct twheel_geometry *geo, char *buf,
			  size_t size)
{
	unsigned int l;
	int len = 0;

	for (l = 0; l < geo->levels; l++)
		len += scnprintf(buf + len, size - len, "%s%u", l ? "/" : "",
				 geo->slots[l]);
}

static void bench_bookkeeping(void)
{
	static const unsigned int ts[] = { 64, 256, 1024, 4096, 16384, 65536 };
	unsigned int i, j, n;
	struct run *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return;
	for (i = 0; i < ARRAY_SIZE(book_configs); i++) {
		const struct config *c = &book_configs[i];
		char geo[48];

		geometry_name(&c->cfg.geo, geo, sizeof(geo));
		for (n = 1000; n <= min(max_n, 100000U); n *= 10) {
			for (j = 0; j < ARRAY_SIZE(ts); j++) {
				u32 t = ts[j], ticks = max(t, 4096U);
				struct twheel_stats before;
				u64 now, t0, ns, k;
				char v[24], m[24];

				if (run_setup(r, c, n, 0, t / 2, t)) {
					run_teardown(r);
					continue;
				}
				r->rearm = true;
				now = tsched_now(&r->s);
				for (k = 0; k < t; k++)
					tsched_advance(&r->s, ++now, expire, r);
				before = *tsched_stats(&r->s);
				r->expired = 0;
				t0 = ktime_get_ns();
				for (k = 0; k < ticks; k++)
					tsched_advance(&r->s, ++now, expire, r);
				ns = ktime_get_ns() - t0;
				k = max_t(u64, r->expired, 1);
				bench_line(BOOKKEEPING_LINE,
					   c->name, geo, n, t, ticks, r->expired,
					   div_u64(ns, ticks), div64_u64(ns, k),
					   bench_frac(v, sizeof(v),
						      tsched_stats(&r->s)->early_visits -
						      before.early_visits, k, 3),
					   bench_frac(m, sizeof(m),
						      tsched_stats(&r->s)->migrated -
						      before.migrated, k, 3));
				run_teardown(r);
				cond_resched();
			}
		}
	}
	kfree(r);
}

static char *parts = "ops,bookkeeping";
module_param(parts, charp, 0444);
MODULE_PARM_DESC(parts, "which figures: ops, bookkeeping");

static int __init schemes_init(void)
{
	if (strstr(parts, "ops"))
		bench_ops();
	if (strstr(parts, "bookkeeping"))
		bench_bookkeeping();
	return 0;
}
module_init(schemes_init);

static void __exit schemes_exit(void)
{
}
module_exit(schemes_exit);

MODULE_DESCRIPTION("twheel benchmark: every scheme of the papers");
MODULE_LICENSE("GPL");
