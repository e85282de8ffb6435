// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.c - a libFuzzer target: the timing wheels of twheel_core.c driven by
 * the fuzzer's input and held against the reference model of user/model.h.
 *
 * The input is read as a program, a few bytes at a time; once it runs out,
 * every byte reads as zero and the program ends.  It picks a geometry from
 * a table (the module's defaults, small and odd Schemes 6 and 7), where the
 * clock starts and how many entries to use, then runs operations:
 * twheel_add() and twheel_add_at() with intervals that are 0, short, on and
 * around every level's boundaries, beyond the hierarchy and past
 * %TWHEEL_MAX_INTERVAL; twheel_del(); twheel_first(); twheel_advance() by
 * one tick up to long jumps; twheel_advance_batch() with small budgets and
 * arming and deleting between the batches.  The expiry function, led by
 * the input too, re-arms or deletes the entry it runs, or others, among
 * them entries due on the same tick that have not run yet.
 *
 * Every entry must run on its tick, exactly once, in the order of its last
 * arming among those due on the same tick; the wheel's count must be the
 * model's; twheel_next_work() must lie after the clock (at it only while a
 * batch left the tick unfinished) and not after the first due tick; a call
 * that returns -EINVAL must change nothing; and no WARN_ON() may fire (the
 * shim counts them).  A violation prints "fuzz: FAIL KIND: ..." and aborts,
 * KIND naming what went wrong: early, late, lost, order, twice, count,
 * next_work, einval, return, clock, stats, first, warn.  scripts/user-fuzz.sh
 * builds and runs it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bug.h>
#include <linux/container_of.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#include "twheel_core.h"
#include "model.h"

#define MAX_ITEMS	48
#define MAX_OPS		4096
/* Entries looked at, about, in one advance before a jump is shortened. */
#define JUMP_WORK	4000

/* One input's run: what is left of it, the wheel and the model. */
struct fuzz {
	const u8 *in;
	size_t left;
	unsigned int op;
	const char *what;	/* the op being run */
	const char *cb_what;	/* what the expiry function is doing, if any */

	struct twheel w;
	struct twheel_geometry geo;
	u64 gran[TWHEEL_MAX_LEVELS + 1];	/* ticks per slot of each level */
	u64 span;
	u64 start;

	struct model m;
	struct model_item items[MAX_ITEMS];
	u64 to;			/* target of the advance being run */
	bool open;		/* twheel_advance_batch() left a tick unfinished */
	unsigned int cb_budget;	/* actions left to the expiry function */
	unsigned long expired;
};

static void __printf(3, 4) __noreturn fail(struct fuzz *f, const char *kind,
					   const char *fmt, ...)
{
	unsigned int n;
	va_list ap;

	fprintf(stderr, "fuzz: FAIL %s: ", kind);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  geometry %d:", f->geo.scheme);
	for (n = 0; n < f->geo.levels; n++)
		fprintf(stderr, "%s%u", n ? "," : "", f->geo.slots[n]);
	fprintf(stderr, " from %llu, now %llu, %u entries, op %u: %s\n",
		f->start, f->w.now, f->m.nitems, f->op, f->what);
	if (f->cb_what)
		fprintf(stderr, "  in the expiry function: %s\n", f->cb_what);
	abort();
}

/* The next byte of input, or 0 once it is used up. */
static u8 byte(struct fuzz *f)
{
	if (!f->left)
		return 0;
	f->left--;
	return *f->in++;
}

/* A number below @n (0 if @n is 0) from as few bytes as it takes. */
static u64 below(struct fuzz *f, u64 n)
{
	u64 v = 0, range;

	for (range = n - 1; n && range; range >>= 8)
		v = v << 8 | byte(f);
	return n ? v % n : 0;
}

static struct model_item *any_item(struct fuzz *f)
{
	return &f->items[below(f, f->m.nitems)];
}

/* A pending item due on tick @t, or NULL. */
static struct model_item *due_on(struct fuzz *f, u64 t)
{
	unsigned int i, at = below(f, f->m.nitems);

	for (i = 0; i < f->m.nitems; i++) {
		struct model_item *it = &f->items[(at + i) % f->m.nitems];

		if (it->pending && it->due == t)
			return it;
	}
	return NULL;
}

static void check_item(struct fuzz *f, struct model_item *it)
{
	unsigned int nr = model_nr(&f->m, it);

	if (twheel_entry_pending(&it->e) != it->pending)
		fail(f, it->pending ? "lost" : "twice",
		     "item %u: twheel_entry_pending() %d, model %d", nr,
		     twheel_entry_pending(&it->e), it->pending);
	if (it->pending && it->e.expires != it->due)
		fail(f, "return", "item %u: expires %llu, model due %llu", nr,
		     it->e.expires, it->due);
}

static void check_count(struct fuzz *f)
{
	if (f->w.count != f->m.pending)
		fail(f, "count", "count %lu, model has %lu pending", f->w.count,
		     f->m.pending);
}

/* Everything the model can say about the wheel between two ops. */
static void check_all(struct fuzz *f)
{
	struct model_item *first = model_first(&f->m);
	u64 next = twheel_next_work(&f->w);
	unsigned int i;

	check_count(f);
	for (i = 0; i < f->m.nitems; i++)
		check_item(f, &f->items[i]);
	if (f->open) {
		if (next != f->w.now)
			fail(f, "next_work",
			     "twheel_next_work() %llu with tick %llu unfinished",
			     next, f->w.now);
	} else if (!first && next != U64_MAX) {
		fail(f, "next_work", "twheel_next_work() %llu, nothing pending",
		     next);
	} else if (first && next <= f->w.now) {
		fail(f, "next_work", "twheel_next_work() %llu not after now",
		     next);
	}
	if (first && next > first->due)
		fail(f, "next_work", "twheel_next_work() %llu after item %u due %llu",
		     next, model_nr(&f->m, first), first->due);
	if (f->w.stats.expired != f->expired)
		fail(f, "stats", "stats.expired %llu, %lu expiries seen",
		     f->w.stats.expired, f->expired);
	if (f->w.stats.ticks + f->w.stats.skipped != f->w.now - f->start)
		fail(f, "stats", "%llu ticks + %llu skipped, clock moved %llu",
		     f->w.stats.ticks, f->w.stats.skipped, f->w.now - f->start);
	if (shim_warnings)
		fail(f, "warn", "WARN_ON fired %lu times", shim_warnings);
}

/* Arm @it with twheel_add(@val) if @rel, else with twheel_add_at(@val). */
static void arm(struct fuzz *f, struct model_item *it, bool rel, u64 val)
{
	struct twheel *w = &f->w;
	u64 next = twheel_next_work(w), expires = it->e.expires, due;
	bool ok = model_arm_due(w->now, rel, val, &due);
	unsigned long count = w->count;
	u32 slot = it->e.slot;
	int ret;

	ret = rel ? twheel_add(w, &it->e, val) : twheel_add_at(w, &it->e, val);
	if (!ok) {
		if (ret != -EINVAL)
			fail(f, "einval", "%s(item %u, %llu) returned %d",
			     rel ? "twheel_add" : "twheel_add_at",
			     model_nr(&f->m, it), val, ret);
		if (w->count != count || it->e.slot != slot ||
		    it->e.expires != expires || twheel_next_work(w) != next)
			fail(f, "einval", "%s(item %u, %llu) failed but changed the wheel",
			     rel ? "twheel_add" : "twheel_add_at",
			     model_nr(&f->m, it), val);
		return;
	}
	if (ret != it->pending)
		fail(f, "return", "%s(item %u, %llu) returned %d, want %d",
		     rel ? "twheel_add" : "twheel_add_at", model_nr(&f->m, it),
		     val, ret, it->pending);
	model_armed(&f->m, it, due);
	check_count(f);
	check_item(f, it);
}

static void del(struct fuzz *f, struct model_item *it)
{
	bool ret = twheel_del(&f->w, &it->e);

	if (ret != it->pending)
		fail(f, "return", "twheel_del(item %u) returned %d, want %d",
		     model_nr(&f->m, it), ret, it->pending);
	model_stopped(&f->m, it);
	check_count(f);
	check_item(f, it);
}

/* An interval for twheel_add(), of every class the wheel tells apart. */
static u64 pick_interval(struct fuzz *f)
{
	unsigned int n;

	switch (byte(f) % 12) {
	case 0:
		return 0;
	case 1:
		return 1 + below(f, 4);
	case 2:
		return 1 + below(f, 2 * f->geo.slots[0]);
	case 3:
	case 4:
		/* On and around a whole number of some level's slots. */
		n = 1 + below(f, f->geo.levels);
		return f->gran[n] * (1 + below(f, 3)) + below(f, 5) - 2;
	case 5:
		return 1 + below(f, f->span);
	case 6:
		/* Beyond the hierarchy: waits at the hashed top level. */
		return f->span + below(f, 7 * f->span);
	case 7:
		return TWHEEL_MAX_INTERVAL - below(f, 3);
	case 8:
		/* Too long: -EINVAL. */
		return byte(f) & 1 ? TWHEEL_MAX_INTERVAL + 1 + below(f, 3) :
				     U64_MAX - below(f, 3);
	case 9:
		return below(f, U64_MAX);
	default:
		return below(f, 32);
	}
}

/* A tick for twheel_add_at(): past, present, digit carries, too far. */
static u64 pick_tick(struct fuzz *f)
{
	u64 now = f->w.now, g;

	switch (byte(f) % 6) {
	case 0:
		return now - below(f, min(now, 3ULL) + 1);
	case 1:
		return below(f, now + 1);
	case 2:
	case 3:
		/* On and around the tick where some level's digit changes. */
		g = f->gran[1 + below(f, f->geo.levels)];
		return (now / g + 1 + below(f, 3)) * g + below(f, 5) - 2;
	case 4:
		/* Too far: -EINVAL. */
		return byte(f) & 1 ? now + TWHEEL_MAX_INTERVAL + 1 + below(f, 3) :
				     U64_MAX - below(f, 2);
	default:
		return now + min(pick_interval(f), TWHEEL_MAX_INTERVAL + 1);
	}
}

/*
 * Called by the wheel for each entry that comes due: check it against the
 * model, then do what the input says: re-arm or delete it or another.
 */
static void expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct model_item *it = container_of(e, struct model_item, e), *first, *o;
	struct fuzz *f = ctx;
	unsigned int nr = model_nr(&f->m, it);

	f->cb_what = NULL;
	f->expired++;
	if (!it->pending)
		fail(f, "twice", "item %u ran on %llu, not pending: twice, or deleted",
		     nr, w->now);
	if (twheel_entry_pending(e))
		fail(f, "return", "item %u pending in its expiry function", nr);
	if (w->now != it->due)
		fail(f, w->now < it->due ? "early" : "late",
		     "item %u ran on tick %llu, due on %llu", nr, w->now,
		     it->due);
	if (w->now > f->to)
		fail(f, "late", "item %u ran on %llu, after the advance's end %llu",
		     nr, w->now, f->to);
	first = model_first(&f->m);
	if (first->due < it->due)
		fail(f, "lost", "item %u due on %llu ran before item %u due on %llu",
		     nr, it->due, model_nr(&f->m, first), first->due);
	if (first != it)
		fail(f, "order", "item %u (#%llu) ran before item %u (#%llu), due on %llu",
		     nr, it->seq, model_nr(&f->m, first), first->seq, it->due);
	model_stopped(&f->m, it);
	check_count(f);

	if (!f->cb_budget)
		return;
	f->cb_budget--;
	switch (byte(f) % 10) {
	case 0:
	case 1:
		f->cb_what = "re-arm itself";
		arm(f, it, true, byte(f) & 1 ? below(f, 4) : pick_interval(f));
		break;
	case 2:
		f->cb_what = "arm another at a tick";
		o = any_item(f);
		arm(f, o, false, pick_tick(f));
		break;
	case 3:
		f->cb_what = "delete another";
		del(f, any_item(f));
		break;
	case 4:
		f->cb_what = "delete itself";
		del(f, it);
		break;
	case 5:
	case 6:
		/* One due on this tick that has not run yet, if any. */
		o = due_on(f, w->now);
		if (!o)
			break;
		if (byte(f) & 1) {
			f->cb_what = "delete one due on this tick";
			del(f, o);
		} else {
			f->cb_what = "re-arm one due on this tick";
			arm(f, o, true, below(f, 3));
		}
		break;
	default:
		break;
	}
	f->cb_what = NULL;
}

/* After an advance to @to: nothing due by then may be left. */
static void check_advanced(struct fuzz *f, u64 before, u64 to)
{
	struct model_item *first = model_first(&f->m);

	if (f->w.now != max(before, to))
		fail(f, "clock", "clock %llu after advancing from %llu to %llu",
		     f->w.now, before, to);
	if (first && first->due <= f->w.now)
		fail(f, "lost", "item %u due on %llu still pending at %llu",
		     model_nr(&f->m, first), first->due, f->w.now);
}

static void advance(struct fuzz *f, u64 to)
{
	u64 before = f->w.now;

	f->to = to;
	f->cb_budget = 16 + 2 * f->m.nitems;
	twheel_advance(&f->w, to, expire, f);
	f->cb_what = NULL;
	check_advanced(f, before, to);
}

/*
 * twheel_advance_batch() to @to with a small budget until it says nothing
 * is left, arming and deleting between calls as an owner that drops its
 * lock between batches lets others do; then twheel_advance() to @to, which
 * must find nothing left to run.
 */
static void advance_batch(struct fuzz *f, u64 to)
{
	static const unsigned int budgets[] = {
		1, 2, 3, TWHEEL_DRAIN_MIN - 1, TWHEEL_DRAIN_MIN, 1000
	};
	unsigned int budget = budgets[byte(f) % ARRAY_SIZE(budgets)];
	unsigned long calls = 0, expired;
	struct model_item *it;
	u64 before = f->w.now;

	f->to = to;
	f->cb_budget = 16 + 2 * f->m.nitems;
	while (twheel_advance_batch(&f->w, to, expire, f, budget)) {
		f->open = true;
		f->cb_what = NULL;
		if (f->w.now > to)
			fail(f, "clock", "clock %llu in batches to %llu",
			     f->w.now, to);
		if (++calls > 1000000)
			fail(f, "clock", "batches to %llu still busy after %lu calls",
			     to, calls);
		check_all(f);
		switch (byte(f) % 8) {
		case 0:
			/* Often one due on the unfinished tick. */
			it = due_on(f, f->w.now);
			del(f, it ?: any_item(f));
			break;
		case 1:
			it = due_on(f, f->w.now);
			arm(f, it ?: any_item(f), true, pick_interval(f));
			break;
		case 2:
			arm(f, any_item(f), false, pick_tick(f));
			break;
		default:
			break;
		}
	}
	f->open = false;
	f->cb_what = NULL;
	check_advanced(f, before, to);
	expired = f->expired;
	advance(f, to);
	if (f->expired != expired)
		fail(f, "lost", "twheel_advance() ran %lu entries the batches left",
		     f->expired - expired);
}

/*
 * Shorten a jump of @d ticks so that it stays cheap (each pending entry is
 * looked at about once per rotation of the top level) and the clock stays
 * below %TWHEEL_CLOCK_LIMIT.
 */
static u64 limit_jump(struct fuzz *f, u64 d)
{
	while (d > 1 && f->m.pending * (d / f->span) > JUMP_WORK)
		d /= 2;
	return min(d, TWHEEL_CLOCK_LIMIT - 1 - f->w.now);
}

static void op_advance(struct fuzz *f, bool batch)
{
	struct model_item *first;
	u64 d;

	switch (byte(f) % 8) {
	case 0:
		d = 1;
		break;
	case 1:
		d = 2 + below(f, 16);
		break;
	case 2:
		d = 1 + below(f, 2 * f->gran[1]);
		break;
	case 3:
		d = 1 + below(f, 4 * f->span);
		break;
	case 4:
		d = below(f, 1ULL << (20 + byte(f) % 24));
		break;
	case 5:
		/* To the first entry due, a tick short of it, or past it. */
		first = model_first(&f->m);
		d = first ? first->due - f->w.now + below(f, 3) - 1 : 0;
		break;
	case 6:
		d = twheel_next_work(&f->w) - f->w.now;
		break;
	default:
		d = 0;
		break;
	}
	d = limit_jump(f, d);
	if (batch) {
		f->what = "twheel_advance_batch()";
		advance_batch(f, f->w.now + d);
	} else {
		f->what = "twheel_advance()";
		advance(f, f->w.now + d);
	}
}

/*
 * Arm many entries within one slot of some level, on one tick or spread
 * over the slot: a slot that must run or move down in order, in one piece.
 */
static void op_burst(struct fuzz *f)
{
	u64 g = f->gran[1 + below(f, f->geo.levels)], base, off = below(f, g);
	unsigned int k = 1 + below(f, f->m.nitems), i;
	bool one_tick = byte(f) & 1;

	f->what = "a burst of arming";
	base = (f->w.now / g + 1 + below(f, 3)) * g;
	for (i = 0; i < k; i++)
		arm(f, any_item(f), false, base + (one_tick ? off : below(f, g)));
}

static void run_op(struct fuzz *f)
{
	struct twheel_entry *e;
	struct model_item *it;

	switch (byte(f) % 16) {
	case 0:
	case 1:
	case 2:
	case 3:
		f->what = "twheel_add()";
		it = any_item(f);
		arm(f, it, true, pick_interval(f));
		break;
	case 4:
	case 5:
		f->what = "twheel_add_at()";
		it = any_item(f);
		arm(f, it, false, pick_tick(f));
		break;
	case 6:
	case 7:
		f->what = "twheel_del()";
		del(f, any_item(f));
		break;
	case 8:
		f->what = "twheel_first()";
		e = twheel_first(&f->w);
		if (!e != !f->m.pending)
			fail(f, "first", "twheel_first() %s with %lu pending",
			     e ? "an entry" : "NULL", f->m.pending);
		if (e && !container_of(e, struct model_item, e)->pending)
			fail(f, "first", "twheel_first() gave an idle entry");
		break;
	case 9:
		op_burst(f);
		break;
	case 10:
	case 11:
	case 12:
	case 13:
		op_advance(f, false);
		break;
	default:
		op_advance(f, true);
		break;
	}
	check_all(f);
}

/* The geometries an input picks from. */
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

static u64 pick_start(struct fuzz *f)
{
	switch (byte(f) % 6) {
	case 0:
		return 0;
	case 1:
		return below(f, 1000);
	case 2:
		return below(f, 1ULL << 32);
	case 3:
		/* Just before the top level wraps, never before 0. */
		return f->span * (1 + below(f, 1000)) - 1 -
		       below(f, min(f->span, 3ULL));
	case 4:
		return (1ULL << 62) + below(f, 1ULL << 40);
	default:
		/* Where the clock can hardly move. */
		return TWHEEL_CLOCK_LIMIT - 1 - below(f, 1ULL << 20);
	}
}

/* libFuzzer's entry point, under the name it looks for. */
int fuzz_one_input(const u8 *data, size_t size)
	__asm__("LLVMFuzzerTestOneInput");

int fuzz_one_input(const u8 *data, size_t size)
{
	static struct fuzz fz;
	struct fuzz *f = &fz;
	struct twheel_entry *e;
	unsigned int i, n;

	memset(f, 0, sizeof(*f));
	f->in = data;
	f->left = size;
	f->what = "twheel_init()";
	f->geo = table[byte(f) % ARRAY_SIZE(table)];
	f->gran[0] = 1;
	for (n = 0; n < f->geo.levels; n++)
		f->gran[n + 1] = f->gran[n] * f->geo.slots[n];
	f->span = f->gran[f->geo.levels];
	f->start = pick_start(f);
	if (twheel_init(&f->w, &f->geo, f->start))
		fail(f, "return", "twheel_init() refused the geometry");
	f->m.items = f->items;
	f->m.nitems = 1 + below(f, MAX_ITEMS);
	for (i = 0; i < f->m.nitems; i++)
		twheel_entry_init(&f->items[i].e);
	check_all(f);

	for (f->op = 0; f->left && f->op < MAX_OPS; f->op++)
		run_op(f);

	f->what = "emptying the wheel";
	while ((e = twheel_first(&f->w))) {
		if (!container_of(e, struct model_item, e)->pending)
			fail(f, "first", "twheel_first() gave an idle entry");
		del(f, container_of(e, struct model_item, e));
	}
	check_all(f);
	twheel_destroy(&f->w);
	if (shim_warnings)
		fail(f, "warn", "WARN_ON fired %lu times", shim_warnings);
	return 0;
}
