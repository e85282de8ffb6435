// SPDX-License-Identifier: GPL-2.0
/*
 * cascade - how much a timing wheel (twheel_core.c) moves entries on each
 * tick, on the loads of issue #10, in user space.
 *
 * A "move" is what &struct twheel_stats counts as migrated or early_visits:
 * an entry taken from one slot and put in another without expiring.  Loads
 * (a) to (c) advance the wheel one tick at a time and take the moves of
 * each tick; (d) advances over a long stall in one call.
 *
 *  (a) 10^5 callouts, each re-armed from its expiry function at a uniform
 *      2..300 ticks; 2000 ticks of warm-up, then 20000 measured.  On
 *      Scheme 7 256/256/256 and on Scheme 6 4096 slots.
 *  (b) 10^6 callouts armed over the 256 ticks of one level-1 slot, all
 *      200000 ticks ahead, run until the last has expired.
 *  (c) 10^6 callouts at a uniform 60000..3600000 ticks (1 to 60 minutes of
 *      1 ms), re-armed likewise, over 262144 ticks: four level-2 slots.
 *  (d) 10^5 callouts at a uniform 1..300000 ticks, then one twheel_advance()
 *      over 10^5 ticks.
 *
 * Every expiry is checked to come on its due tick.  Prints one line per
 * figure as bench/bench_line.h says,
 *
 *   twheel-bench: user-moves load=LOAD figure=FIGURE | value=V
 *
 * which scripts/user-bench.sh reports, for two cores side by side with a
 * baseline.  The figures depend on fixed seeds only, never on the
 * machine.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bug.h>
#include <linux/container_of.h>
#include <linux/kernel.h>

#include "twheel_core.h"
#include "../bench/bench_line.h"

struct callout {
	struct twheel_entry e;
	u64 due;
};

/* One load: the wheel, its callouts and what the expiry function does. */
struct load {
	const char *name;	/* the load, as in the lines: "a-scheme7" */
	struct twheel w;
	struct callout *c;
	unsigned int n;
	u64 rng;
	u64 lo, hi;		/* re-arm at a uniform lo..hi ticks ... */
	bool rearm;		/* ... if set */
	u64 expired, off_time;
	u32 *moves;		/* per measured tick */
	size_t ticks, room;
};

/* splitmix64. */
static u64 rng_next(struct load *l)
{
	u64 z = (l->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 uniform(struct load *l, u64 lo, u64 hi)
{
	return lo + rng_next(l) % (hi - lo + 1);
}

static void __noreturn die(const char *what)
{
	fprintf(stderr, "cascade: %s\n", what);
	exit(1);
}

static void arm(struct load *l, struct callout *c, u64 interval)
{
	c->due = l->w.now + interval;
	if (twheel_add(&l->w, &c->e, interval) < 0)
		die("twheel_add() failed");
}

static void expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct callout *c = container_of(e, struct callout, e);
	struct load *l = ctx;

	l->expired++;
	if (w->now != c->due || e->expires != c->due)
		l->off_time++;
	if (l->rearm)
		arm(l, c, uniform(l, l->lo, l->hi));
}

static u64 moves(const struct twheel *w)
{
	return w->stats.migrated + w->stats.early_visits;
}

static void start(struct load *l, const char *name,
		  const struct twheel_geometry *geo, unsigned int n, u64 seed)
{
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->name = name;
	l->n = n;
	l->rng = seed;
	l->c = calloc(n, sizeof(*l->c));
	if (!l->c || twheel_init(&l->w, geo, 0))
		die("out of memory");
	for (i = 0; i < n; i++)
		twheel_entry_init(&l->c[i].e);
}

static void finish(struct load *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		twheel_del(&l->w, &l->c[i].e);
	twheel_destroy(&l->w);
	free(l->c);
	free(l->moves);
	if (shim_warnings)
		die("a WARN_ON fired");
}

/* Advance one tick; if @keep, keep its moves. */
static void step(struct load *l, bool keep)
{
	u64 before = moves(&l->w);

	twheel_advance(&l->w, l->w.now + 1, expire, l);
	if (!keep)
		return;
	if (l->ticks == l->room) {
		l->room = l->room ? 2 * l->room : 65536;
		l->moves = realloc(l->moves, l->room * sizeof(*l->moves));
		if (!l->moves)
			die("out of memory");
	}
	l->moves[l->ticks++] = moves(&l->w) - before;
}

static void steps(struct load *l, unsigned int ticks, bool keep)
{
	while (ticks--)
		step(l, keep);
}

static void __printf(3, 4)
show(struct load *l, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf(BENCH_PREFIX "user-moves load=%s figure=%s | value=", l->name,
	       name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return (x > y) - (x < y);
}

/* The core's own count of the most moves on one tick, if it keeps one. */
static void core_max(struct load *l)
{
#ifdef TWHEEL_DRAIN_MIN
	show(l, "core_moved_max", "%llu", l->w.stats.moved_max);
#else
	show(l, "core_moved_max", "%s", "-");
#endif
}

/* The value below which a fraction @q of the sorted @v lies (nearest rank). */
static u32 quantile(const u32 *v, size_t n, double q)
{
	size_t rank = (size_t)(q * n + 0.999999);

	return v[rank ? rank - 1 : 0];
}

/* The per-tick figures of the measured ticks. */
static void per_tick(struct load *l)
{
	u32 *v = malloc(l->ticks * sizeof(*v));
	size_t i, busy = 0;
	u64 sum = 0;
	double mean;

	if (!v)
		die("out of memory");
	memcpy(v, l->moves, l->ticks * sizeof(*v));
	qsort(v, l->ticks, sizeof(*v), cmp_u32);
	for (i = 0; i < l->ticks; i++) {
		sum += v[i];
		busy += v[i] != 0;
	}
	mean = (double)sum / l->ticks;
	show(l, "ticks", "%zu", l->ticks);
	show(l, "moves", "%llu", sum);
	show(l, "moves_mean", "%.2f", mean);
	show(l, "moves_p50", "%u", quantile(v, l->ticks, 0.5));
	show(l, "moves_p99", "%u", quantile(v, l->ticks, 0.99));
	show(l, "moves_p999", "%u", quantile(v, l->ticks, 0.999));
	show(l, "moves_max", "%u", v[l->ticks - 1]);
	show(l, "max_per_mean", "%.1f", mean ? v[l->ticks - 1] / mean : 0);
	show(l, "busy_ticks", "%zu", busy);
	core_max(l);
	free(v);
}

static void on_time(struct load *l)
{
	show(l, "expired", "%llu", l->expired);
	show(l, "off_tick", "%llu", l->off_time);
}

/* (a): short re-armed callouts, in steady state. */
static void load_rearm(const char *name, const struct twheel_geometry *geo)
{
	struct load l;
	unsigned int i;

	start(&l, name, geo, 100000, 1);
	l.rearm = true;
	l.lo = 2;
	l.hi = 300;
	for (i = 0; i < l.n; i++)
		arm(&l, &l.c[i], uniform(&l, l.lo, l.hi));
	steps(&l, 2000, false);
	steps(&l, 20000, true);
	per_tick(&l);
	on_time(&l);
	finish(&l);
}

/* (b): a burst armed within one level-1 slot, all for the same interval. */
static void load_burst(const struct twheel_geometry *geo)
{
	const unsigned int n = 1000000, span = 256;
	struct load l;
	unsigned int i, t;

	start(&l, "b", geo, n, 2);
	for (t = 0, i = 0; t < span; t++) {
		for (; i < (u64)n * (t + 1) / span; i++)
			arm(&l, &l.c[i], 200000);
		step(&l, true);
	}
	while (l.w.count)
		step(&l, true);
	per_tick(&l);
	on_time(&l);
	show(&l, "all_on_time", "%d", l.expired == n && !l.off_time);
	finish(&l);
}

/* (c): long re-armed callouts across level-2 slots. */
static void load_long(const struct twheel_geometry *geo)
{
	struct load l;
	unsigned int i;

	start(&l, "c", geo, 1000000, 3);
	l.rearm = true;
	l.lo = 60000;
	l.hi = 3600000;
	for (i = 0; i < l.n; i++)
		arm(&l, &l.c[i], uniform(&l, l.lo, l.hi));
	steps(&l, 262144, true);
	per_tick(&l);
	on_time(&l);
	finish(&l);
}

/* (d): a stall, caught up in one call. */
static void load_stall(const struct twheel_geometry *geo)
{
	struct load l;
	unsigned int i;
	u64 before;

	start(&l, "d", geo, 100000, 4);
	for (i = 0; i < l.n; i++)
		arm(&l, &l.c[i], uniform(&l, 1, 300000));
	before = moves(&l.w);
	twheel_advance(&l.w, 100000, expire, &l);
	show(&l, "moves", "%llu", moves(&l.w) - before);
	on_time(&l);
	show(&l, "ticks_processed", "%llu", l.w.stats.ticks);
	core_max(&l);
	finish(&l);
}

int main(void)
{
	static const struct twheel_geometry s7 =
		TWHEEL_GEOMETRY7(3, 256, 256, 256);
	static const struct twheel_geometry s6 = TWHEEL_GEOMETRY6(4096);

	load_rearm("a-scheme7", &s7);
	load_rearm("a-scheme6", &s6);
	load_burst(&s7);
	load_long(&s7);
	load_stall(&s7);
	return 0;
}
