// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_check - the timing wheels of twheel_core.c against a reference
 * model, in user space.
 *
 * Each seed builds one wheel of a geometry drawn from a table of Schemes 6
 * and 7 (or made up at random), starts its clock somewhere, and runs random
 * operations on a small pool of entries: twheel_add() and twheel_add_at()
 * with intervals that are 0, short, on and around the digit boundaries of
 * every level, beyond the hierarchy's span, at %TWHEEL_MAX_INTERVAL and past
 * it; twheel_del(); twheel_first(); and twheel_advance() by one tick, a few,
 * a slot's worth, several spans, a long jump, or straight to the next due
 * entry.  The expiry function checks every entry as it runs and then, at
 * random, re-arms or deletes it or others, among them entries due on the
 * same tick that have not run yet.
 *
 * The model is the plain meaning of the API (user/model.h): each entry is
 * idle, or pending with a due tick and the sequence number of the call
 * that armed it last.  Pending entries run in the order of (due tick,
 * sequence), each exactly once, on its due tick, with the wheel's clock
 * reading that tick; none is lost; the wheel's count is the model's;
 * twheel_next_work() is never after the first due tick and never at or
 * before the clock; and every call returns what the model says, -EINVAL
 * changing nothing.  A WARN_ON() in the core (user/shim/linux/bug.h counts
 * them) fails too.
 *
 * Everything follows from the seed: a failure prints the seed, the op
 * number and what the op was doing, and the command that repeats it.
 * "-f FAULT" plants a fault in the wheel or in its use, to show that the
 * checks catch it: the run must then fail (scripts/user-check.sh).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bug.h>
#include <linux/container_of.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>

#include "twheel_core.h"
#include "model.h"

/* Faults -f plants, each every FAULT_EVERY ops, and what must catch it. */
enum fault {
	FAULT_NONE,
	FAULT_LATE,	/* an entry's tick moved one later behind the wheel */
	FAULT_EARLY,	/* ... one earlier */
	FAULT_ORDER,	/* two entries due on one tick swapped in their list */
	FAULT_WARN,	/* a wheel destroyed with an entry still pending */
};

static const char *const fault_names[] = {
	[FAULT_NONE] = "none",
	[FAULT_LATE] = "late",
	[FAULT_EARLY] = "early",
	[FAULT_ORDER] = "order",
	[FAULT_WARN] = "warn",
};

#define FAULT_EVERY	200

/* One seed's run: the wheel, the model and what is being done. */
struct run {
	u64 seed;
	unsigned long op;
	char what[160];		/* the op being run */
	char cb_what[160];	/* what the expiry function is doing, if any */
	u64 rng;
	enum fault fault;

	struct twheel w;
	struct twheel_geometry geo;
	u64 gran[TWHEEL_MAX_LEVELS + 1];	/* ticks per slot of each level */
	u64 span;
	u64 start;		/* the clock twheel_init() was given */

	struct model m;		/* the pool of entries, and the model */
	bool *planted;		/* of each entry: expires moved by -f */
	u64 to;			/* target of the advance being run */
	bool open;		/* twheel_advance_batch() left a tick unfinished */
	unsigned int cb_budget;	/* re-arms left to the expiry function */

	unsigned long expired, rearmed_in_fn, deleted_in_fn, einval;
};

/* The options, printed again in a failure's command line. */
static struct {
	unsigned long ops;
	int scheme;
	const char *geometry;
	enum fault fault;
	bool verbose;
} opt = { .ops = 20000 };

static struct run *cur;

static void geo_name(const struct twheel_geometry *geo, char *buf, size_t len)
{
	unsigned int n;
	int at;

	at = snprintf(buf, len, "%d:", geo->scheme);
	for (n = 0; n < geo->levels; n++)
		at += snprintf(buf + at, len - at, "%s%u", n ? "," : "",
			       geo->slots[n]);
}

static void __printf(1, 2) __noreturn fail(const char *fmt, ...)
{
	struct run *r = cur;
	char geo[96];
	va_list ap;

	geo_name(&r->geo, geo, sizeof(geo));
	fprintf(stderr, "wheel_check: FAIL seed %llu op %lu, geometry %s, now %llu\n",
		r->seed, r->op, geo, r->w.now);
	fprintf(stderr, "  op: %s\n", r->what);
	if (r->cb_what[0])
		fprintf(stderr, "  in the expiry function: %s\n", r->cb_what);
	fprintf(stderr, "  ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  again: wheel_check -s %llu -n 1 -o %lu", r->seed,
		opt.ops);
	if (opt.scheme)
		fprintf(stderr, " -S %d", opt.scheme);
	if (opt.geometry)
		fprintf(stderr, " -g %s", opt.geometry);
	if (opt.fault)
		fprintf(stderr, " -f %s", fault_names[opt.fault]);
	fprintf(stderr, "\n");
	exit(1);
}

/* splitmix64: a small generator whose whole state is one u64. */
static u64 rng_next(struct run *r)
{
	u64 z = (r->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in 0..n-1; 0 if @n is 0. */
static u64 rnd(struct run *r, u64 n)
{
	return n ? rng_next(r) % n : 0;
}

static bool chance(struct run *r, unsigned int percent)
{
	return rnd(r, 100) < percent;
}

static unsigned int item_nr(const struct run *r, const struct model_item *it)
{
	return model_nr(&r->m, it);
}

/* A pending item due on tick @t, or NULL. */
static struct model_item *model_due_on(struct run *r, u64 t)
{
	unsigned int i, start = rnd(r, r->m.nitems);

	for (i = 0; i < r->m.nitems; i++) {
		struct model_item *it = &r->m.items[(start + i) % r->m.nitems];

		if (it->pending && it->due == t)
			return it;
	}
	return NULL;
}

static struct model_item *any_item(struct run *r)
{
	return &r->m.items[rnd(r, r->m.nitems)];
}

static void check_count(struct run *r)
{
	if (r->w.count != r->m.pending)
		fail("count %lu, model has %lu pending", r->w.count,
		     r->m.pending);
}

/* The model's view of one item against the wheel's. */
static void check_item(struct run *r, struct model_item *it)
{
	if (twheel_entry_pending(&it->e) != it->pending)
		fail("item %u: twheel_entry_pending() %d, model %d",
		     item_nr(r, it), twheel_entry_pending(&it->e),
		     it->pending);
	if (it->pending && !r->planted[item_nr(r, it)] &&
	    it->e.expires != it->due)
		fail("item %u: expires %llu, model due %llu", item_nr(r, it),
		     it->e.expires, it->due);
}

/* Everything the model can say about the wheel between two ops. */
static void check_all(struct run *r)
{
	struct model_item *first = model_first(&r->m);
	u64 next = twheel_next_work(&r->w);
	unsigned int i;

	check_count(r);
	for (i = 0; i < r->m.nitems; i++)
		check_item(r, &r->m.items[i]);
	if (r->open) {
		if (next != r->w.now)
			fail("twheel_next_work() %llu with tick %llu unfinished",
			     next, r->w.now);
	} else if (!first && next != U64_MAX) {
		fail("twheel_next_work() %llu with nothing pending", next);
	} else if (first && next <= r->w.now) {
		fail("twheel_next_work() %llu not after now", next);
	}
	if (first && next > first->due)
		fail("twheel_next_work() %llu after item %u due %llu", next,
		     item_nr(r, first), first->due);
	if (r->w.stats.expired != r->expired)
		fail("stats.expired %llu, expiry function called %lu times",
		     r->w.stats.expired, r->expired);
	if (r->w.stats.ticks + r->w.stats.skipped != r->w.now - r->start)
		fail("stats: %llu ticks + %llu skipped, clock moved %llu",
		     r->w.stats.ticks, r->w.stats.skipped,
		     r->w.now - r->start);
#ifdef TWHEEL_DRAIN_MIN
	if (r->w.stats.moved_max >
	    r->w.stats.migrated + r->w.stats.early_visits)
		fail("stats.moved_max %llu above all moves, %llu",
		     r->w.stats.moved_max,
		     r->w.stats.migrated + r->w.stats.early_visits);
#endif
	if (shim_warnings)
		fail("WARN_ON fired %lu times", shim_warnings);
}

/*
 * Arm @it with twheel_add(@val) if @rel, else twheel_add_at(@val), and
 * check the result and the model's update.
 */
static void arm(struct run *r, struct model_item *it, bool rel, u64 val)
{
	struct twheel *w = &r->w;
	u64 due = 0;
	bool bad = !model_arm_due(w->now, rel, val, &due);
	int ret;

	ret = rel ? twheel_add(w, &it->e, val) : twheel_add_at(w, &it->e, val);
	if (bad) {
		if (ret != -EINVAL)
			fail("%s(%llu) on item %u returned %d, want -EINVAL",
			     rel ? "twheel_add" : "twheel_add_at", val,
			     item_nr(r, it), ret);
		r->einval++;
		check_count(r);
		check_item(r, it);
		return;
	}
	if (ret != it->pending)
		fail("%s(%llu) on item %u returned %d, want %d",
		     rel ? "twheel_add" : "twheel_add_at", val,
		     item_nr(r, it), ret, it->pending);
	model_armed(&r->m, it, due);
	r->planted[item_nr(r, it)] = false;
	check_count(r);
	check_item(r, it);
}

static void del(struct run *r, struct model_item *it)
{
	bool ret = twheel_del(&r->w, &it->e);

	if (ret != it->pending)
		fail("twheel_del() on item %u returned %d, want %d",
		     item_nr(r, it), ret, it->pending);
	model_stopped(&r->m, it);
	r->planted[item_nr(r, it)] = false;
	check_count(r);
	check_item(r, it);
}

/* An interval for twheel_add(): every class the API distinguishes. */
static u64 pick_interval(struct run *r)
{
	unsigned int n;

	switch (rnd(r, 12)) {
	case 0:
		return 0;
	case 1:
		return 1 + rnd(r, 4);
	case 2:
		return 1 + rnd(r, 2 * r->geo.slots[0]);
	case 3:
	case 4:
		/* On and around a whole number of some level's slots. */
		n = 1 + rnd(r, r->geo.levels);
		return r->gran[n] * (1 + rnd(r, 3)) + rnd(r, 5) - 2;
	case 5:
	case 6:
		return 1 + rnd(r, r->span);
	case 7:
		/* Beyond the hierarchy: waits at the hashed top level. */
		return r->span + rnd(r, 7 * r->span);
	case 8:
		return TWHEEL_MAX_INTERVAL - rnd(r, 3);
	case 9:
		/* Too long: -EINVAL. */
		return chance(r, 50) ? TWHEEL_MAX_INTERVAL + 1 + rnd(r, 3) :
				       U64_MAX - rnd(r, 3);
	default:
		return rnd(r, 32);
	}
}

/* A tick for twheel_add_at(): past, present, digit carries, too far. */
static u64 pick_tick(struct run *r)
{
	u64 now = r->w.now, iv, g;

	switch (rnd(r, 8)) {
	case 0:
		return now - rnd(r, min(now, 3ULL) + 1);
	case 1:
		return rnd(r, now + 1);
	case 2:
	case 3:
		/* On and around the tick where some level's digit changes. */
		g = r->gran[1 + rnd(r, r->geo.levels)];
		return (now / g + 1 + rnd(r, 3)) * g + rnd(r, 5) - 2;
	case 4:
		/* Too far: -EINVAL. */
		return chance(r, 50) ? now + TWHEEL_MAX_INTERVAL + 1 + rnd(r, 3) :
				       U64_MAX - rnd(r, 2);
	default:
		iv = min(pick_interval(r), TWHEEL_MAX_INTERVAL + 1);
		return now + iv;
	}
}

/*
 * Called by twheel_advance() for each entry due: check it against the
 * model, then maybe re-arm or delete it or another.
 */
static void expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct run *r = ctx;
	struct model_item *it = container_of(e, struct model_item, e);
	struct model_item *first, *o;
	u64 iv;

	r->cb_what[0] = 0;
	r->expired++;
	if (w != &r->w)
		fail("expiry function called for another wheel");
	if (!it->pending)
		fail("item %u expired on tick %llu, not pending: twice, or deleted",
		     item_nr(r, it), w->now);
	if (twheel_entry_pending(e))
		fail("item %u pending inside its expiry function",
		     item_nr(r, it));
	if (w->now != it->due)
		fail("item %u expired on tick %llu, due on %llu: %s",
		     item_nr(r, it), w->now, it->due,
		     w->now < it->due ? "early" : "late");
	if (e->expires != w->now)
		fail("item %u expired on tick %llu with expires %llu",
		     item_nr(r, it), w->now, e->expires);
	if (w->now > r->to)
		fail("item %u expired on tick %llu, after the advance's end %llu",
		     item_nr(r, it), w->now, r->to);
	first = model_first(&r->m);
	if (first != it && first->due < it->due)
		fail("item %u due on %llu expired before item %u due on %llu: lost or late",
		     item_nr(r, it), it->due, item_nr(r, first), first->due);
	if (first != it)
		fail("order: item %u (armed #%llu) before item %u (#%llu), due on %llu",
		     item_nr(r, it), it->seq, item_nr(r, first), first->seq,
		     it->due);
	model_stopped(&r->m, it);
	check_count(r);

	if (!r->cb_budget)
		return;
	r->cb_budget--;
	switch (rnd(r, 10)) {
	case 0:
	case 1:
	case 2:
		iv = chance(r, 50) ? rnd(r, 4) : pick_interval(r);
		snprintf(r->cb_what, sizeof(r->cb_what),
			 "re-arm item %u itself, interval %llu",
			 item_nr(r, it), iv);
		arm(r, it, true, iv);
		r->rearmed_in_fn++;
		break;
	case 3:
		o = any_item(r);
		iv = pick_tick(r);
		snprintf(r->cb_what, sizeof(r->cb_what),
			 "arm item %u at tick %llu", item_nr(r, o), iv);
		arm(r, o, false, iv);
		r->rearmed_in_fn++;
		break;
	case 4:
		o = any_item(r);
		snprintf(r->cb_what, sizeof(r->cb_what), "delete item %u",
			 item_nr(r, o));
		del(r, o);
		r->deleted_in_fn++;
		break;
	case 5:
		snprintf(r->cb_what, sizeof(r->cb_what),
			 "delete item %u itself", item_nr(r, it));
		del(r, it);
		break;
	case 6:
	case 7:
		/* One due on this tick that has not run yet, if any. */
		o = model_due_on(r, w->now);
		if (!o)
			break;
		if (chance(r, 50)) {
			snprintf(r->cb_what, sizeof(r->cb_what),
				 "delete item %u, due on this tick",
				 item_nr(r, o));
			del(r, o);
			r->deleted_in_fn++;
		} else {
			iv = rnd(r, 3);
			snprintf(r->cb_what, sizeof(r->cb_what),
				 "re-arm item %u, due on this tick, interval %llu",
				 item_nr(r, o), iv);
			arm(r, o, true, iv);
			r->rearmed_in_fn++;
		}
		break;
	default:
		break;
	}
	r->cb_what[0] = 0;
}

/* twheel_advance() to @to, then check that nothing due was left behind. */
static void advance(struct run *r, u64 to)
{
	u64 before = r->w.now;
	struct model_item *first;

	r->to = to;
	r->cb_budget = 64 + 4 * r->m.nitems;
	twheel_advance(&r->w, to, expire, r);
	r->cb_what[0] = 0;
	if (r->w.now != max(before, to))
		fail("clock %llu after advancing from %llu to %llu", r->w.now,
		     before, to);
	first = model_first(&r->m);
	if (first && first->due <= r->w.now)
		fail("item %u due on %llu still pending at %llu: lost",
		     item_nr(r, first), first->due, r->w.now);
}

#ifdef TWHEEL_DRAIN_MIN
/*
 * twheel_advance_batch() to @to until it says no work is left, with a
 * random budget, and random adds and deletes between the calls, as an
 * owner that drops its lock between batches would see them.  Then
 * twheel_advance() to @to, which must find nothing left to run.
 */
static void advance_batch(struct run *r, u64 to)
{
	static const unsigned int budgets[] = {
		1, 2, 3, TWHEEL_DRAIN_MIN - 1, TWHEEL_DRAIN_MIN, 1000
	};
	unsigned int budget = budgets[rnd(r, ARRAY_SIZE(budgets))];
	unsigned long calls = 0, expired;
	struct model_item *first, *it;

	snprintf(r->what, sizeof(r->what),
		 "twheel_advance_batch() to %llu, budget %u, call 1", to,
		 budget);
	r->to = to;
	r->cb_budget = 64 + 4 * r->m.nitems;
	while (twheel_advance_batch(&r->w, to, expire, r, budget)) {
		r->open = true;
		r->cb_what[0] = 0;
		if (r->w.now > to)
			fail("clock %llu after twheel_advance_batch() to %llu",
			     r->w.now, to);
		if (++calls > 10000000)
			fail("twheel_advance_batch() still busy after %lu calls",
			     calls);
		check_all(r);
		snprintf(r->what, sizeof(r->what),
			 "twheel_advance_batch() to %llu, budget %u, call %lu",
			 to, budget, calls + 1);
		if (chance(r, 20)) {
			/* Often one due on the unfinished tick. */
			it = model_due_on(r, r->w.now);
			if (!it || chance(r, 50))
				it = any_item(r);
			if (chance(r, 30))
				del(r, it);
			else
				arm(r, it, true, pick_interval(r));
		}
	}
	r->open = false;
	r->cb_what[0] = 0;
	first = model_first(&r->m);
	if (first && first->due <= to)
		fail("item %u due on %llu pending after the batches to %llu: lost",
		     item_nr(r, first), first->due, to);
	snprintf(r->what, sizeof(r->what),
		 "twheel_advance() to %llu after %lu batches of %u", to,
		 calls + 1, budget);
	expired = r->expired;
	advance(r, to);
	if (r->expired != expired)
		fail("twheel_advance() ran %lu entries the batches left",
		     r->expired - expired);
}
#endif

/*
 * Shorten a jump of @d ticks so that it stays cheap: each pending entry is
 * looked at about once per rotation of the top level, and the clock stays
 * below %TWHEEL_CLOCK_LIMIT.
 */
static u64 limit_jump(struct run *r, u64 d)
{
	while (d > 1 && r->m.pending * (d / r->span) > 20000)
		d /= 2;
	return min(d, TWHEEL_CLOCK_LIMIT - 1 - r->w.now);
}

static void op_advance(struct run *r)
{
	u64 now = r->w.now, d;
	unsigned int k = rnd(r, 100);
	struct model_item *first;

	if (k < 35) {
		d = 1;
	} else if (k < 60) {
		d = 2 + rnd(r, 15);
	} else if (k < 75) {
		d = 1 + rnd(r, 2 * r->gran[1]);
	} else if (k < 85) {
		d = 1 + rnd(r, 4 * r->span);
	} else if (k < 90) {
		d = rnd(r, 1ULL << (20 + rnd(r, 24)));
	} else if (k < 98) {
		/* To the first entry due, a tick short of it, or past it. */
		first = model_first(&r->m);
		d = first ? first->due - now + rnd(r, 3) - 1 :
			1 + rnd(r, r->span);
	} else {
		d = 0;
	}
	d = limit_jump(r, d);
#ifdef TWHEEL_DRAIN_MIN
	if (chance(r, 30)) {
		advance_batch(r, now + d);
		return;
	}
#endif
	snprintf(r->what, sizeof(r->what), "advance by %llu to %llu", d,
		 now + d);
	advance(r, now + d);
}

/*
 * Arm half the pool or more within one slot of some level, all on one tick
 * or spread over the slot: a slot that must be moved down, or run, in one
 * piece, and (with twheel_advance_batch()) a drain that must keep pace.
 */
static void op_burst(struct run *r)
{
	u64 g = r->gran[1 + rnd(r, r->geo.levels)], base, off = rnd(r, g);
	unsigned int k, i;
	bool one_tick = chance(r, 30);

	base = (r->w.now / g + 1 + rnd(r, 3)) * g;
	k = r->m.nitems / 2 + rnd(r, r->m.nitems / 2 + 1);
	snprintf(r->what, sizeof(r->what),
		 "burst of %u in the %llu ticks from %llu%s", k, g, base,
		 one_tick ? ", on one tick" : "");
	for (i = 0; i < k; i++)
		arm(r, any_item(r), false,
		    base + (one_tick ? off : rnd(r, g)));
	if (chance(r, 50))
		advance(r, r->w.now + limit_jump(r, base + g - r->w.now));
}

/* Plant the fault of -f: the run must fail soon after. */
static void plant(struct run *r)
{
	struct model_item *a = any_item(r), *b;
	u64 due = r->w.now + 2 + rnd(r, min(r->span, 1000ULL));

	switch (r->fault) {
	case FAULT_LATE:
	case FAULT_EARLY:
		snprintf(r->what, sizeof(r->what),
			 "fault: item %u due on %llu, its expires moved %s",
			 item_nr(r, a), due,
			 r->fault == FAULT_LATE ? "later" : "earlier");
		arm(r, a, false, due);
		a->e.expires += r->fault == FAULT_LATE ? 1 : -1;
		r->planted[item_nr(r, a)] = true;
		advance(r, due + 1);
		break;
	case FAULT_ORDER:
		b = &r->m.items[(item_nr(r, a) + 1) % r->m.nitems];
		if (a == b)
			break;
		snprintf(r->what, sizeof(r->what),
			 "fault: items %u and %u due on %llu, swapped",
			 item_nr(r, a), item_nr(r, b), due);
		arm(r, a, false, due);
		arm(r, b, false, due);
		/* b went in last, at the tail: put it at the head. */
		list_move(&b->e.node, b->e.node.next);
		advance(r, due);
		break;
	default:
		break;
	}
}

static void run_op(struct run *r)
{
	unsigned int k = rnd(r, 100);
	struct twheel_entry *e;
	struct model_item *it;
	u64 v;

	r->what[0] = 0;
	if (r->fault && r->op % FAULT_EVERY == FAULT_EVERY - 1) {
		plant(r);
	} else if (k < 28) {
		it = any_item(r);
		v = pick_interval(r);
		snprintf(r->what, sizeof(r->what),
			 "twheel_add(item %u, %llu)", item_nr(r, it), v);
		arm(r, it, true, v);
	} else if (k < 40) {
		it = any_item(r);
		v = pick_tick(r);
		snprintf(r->what, sizeof(r->what),
			 "twheel_add_at(item %u, %llu)", item_nr(r, it), v);
		arm(r, it, false, v);
	} else if (k < 52) {
		it = any_item(r);
		snprintf(r->what, sizeof(r->what), "twheel_del(item %u)",
			 item_nr(r, it));
		del(r, it);
	} else if (k < 54) {
		op_burst(r);
	} else if (k < 56) {
		snprintf(r->what, sizeof(r->what), "twheel_first()");
		e = twheel_first(&r->w);
		if (!e != !r->m.pending)
			fail("twheel_first() %s with %lu pending",
			     e ? "an entry" : "NULL", r->m.pending);
		if (e && !container_of(e, struct model_item, e)->pending)
			fail("twheel_first() gave item %u, not pending",
			     item_nr(r, container_of(e, struct model_item, e)));
	} else {
		op_advance(r);
	}
	check_all(r);
}

/* The geometries every run draws from, then random ones. */
static const struct twheel_geometry table[] = {
	TWHEEL_GEOMETRY6(2),
	TWHEEL_GEOMETRY6(4),
	TWHEEL_GEOMETRY6(16),
	TWHEEL_GEOMETRY6(256),
	TWHEEL_GEOMETRY6(4096),
	TWHEEL_GEOMETRY7(2, 2, 2),
	TWHEEL_GEOMETRY7(2, 16, 16),
	TWHEEL_GEOMETRY7(3, 2, 3, 2),
	TWHEEL_GEOMETRY7(3, 60, 60, 24),
	TWHEEL_GEOMETRY7(3, 256, 256, 256),
	TWHEEL_GEOMETRY7(4, 3, 5, 7, 2),
	TWHEEL_GEOMETRY7(4, 64, 64, 64, 64),
	TWHEEL_GEOMETRY7(4, 60, 60, 24, 100),
};

static void pick_geometry(struct run *r, struct twheel_geometry *geo)
{
	static const unsigned int sizes[] = {
		2, 3, 4, 5, 7, 8, 10, 12, 16, 24, 60, 64, 100, 128, 256, 1000
	};
	unsigned int n;

	do {
		memset(geo, 0, sizeof(*geo));
		if (rnd(r, 3)) {
			*geo = table[rnd(r, ARRAY_SIZE(table))];
		} else if (chance(r, 30)) {
			geo->scheme = TWHEEL_SCHEME6;
			geo->levels = 1;
			geo->slots[0] = 2U << rnd(r, 12);
		} else {
			geo->scheme = TWHEEL_SCHEME7;
			geo->levels = 2 + rnd(r, 3);
			for (n = 0; n < geo->levels; n++)
				geo->slots[n] = sizes[rnd(r, ARRAY_SIZE(sizes))];
		}
	} while (opt.scheme && geo->scheme != (enum twheel_scheme)opt.scheme);
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
	return *end ? -EINVAL : 0;
}

static void run_seed(u64 seed)
{
	static const unsigned int pool[] = { 1, 3, 8, 32, 100, 300, 1000 };
	struct run *r = calloc(1, sizeof(*r));
	struct twheel_entry *e;
	unsigned int i, n;
	u64 start;
	char geo[96];

	if (!r)
		abort();
	cur = r;
	r->seed = seed;
	r->rng = seed;
	r->fault = opt.fault;
	snprintf(r->what, sizeof(r->what), "twheel_init()");
	if (opt.geometry)
		parse_geometry(opt.geometry, &r->geo);
	else
		pick_geometry(r, &r->geo);
	r->gran[0] = 1;
	for (n = 0; n < r->geo.levels; n++)
		r->gran[n + 1] = r->gran[n] * r->geo.slots[n];
	r->span = r->gran[r->geo.levels];

	switch (rnd(r, 5)) {
	case 0:
		start = 0;
		break;
	case 1:
		start = rnd(r, 1000);
		break;
	case 2:
		start = rnd(r, 1ULL << 32);
		break;
	case 3:
		/* Just before the top level wraps, never before 0. */
		start = r->span * (1 + rnd(r, 1000)) - 1 -
			rnd(r, min(r->span, 3ULL));
		break;
	default:
		start = (1ULL << 62) + rnd(r, 1ULL << 40);
		break;
	}
	r->start = start;
	if (twheel_init(&r->w, &r->geo, start))
		fail("twheel_init() refused the geometry");
	r->m.nitems = pool[rnd(r, ARRAY_SIZE(pool))];
	r->m.items = calloc(r->m.nitems, sizeof(*r->m.items));
	r->planted = calloc(r->m.nitems, sizeof(*r->planted));
	if (!r->m.items || !r->planted)
		abort();
	for (i = 0; i < r->m.nitems; i++)
		twheel_entry_init(&r->m.items[i].e);
	check_all(r);

	for (r->op = 0; r->op < opt.ops; r->op++)
		run_op(r);

	snprintf(r->what, sizeof(r->what), "emptying the wheel");
	if (r->fault == FAULT_WARN) {
		snprintf(r->what, sizeof(r->what),
			 "fault: twheel_destroy() with an entry pending");
		if (!r->m.pending)
			arm(r, &r->m.items[0], true, 1);
		twheel_destroy(&r->w);
		if (shim_warnings)
			fail("WARN_ON fired %lu times", shim_warnings);
		printf("wheel_check: the planted fault went unnoticed\n");
		exit(0);
	}
	while ((e = twheel_first(&r->w))) {
		struct model_item *it = container_of(e, struct model_item, e);

		if (!it->pending)
			fail("twheel_first() gave item %u, not pending",
			     item_nr(r, it));
		del(r, it);
	}
	check_all(r);
	twheel_destroy(&r->w);
	if (shim_warnings)
		fail("WARN_ON fired %lu times", shim_warnings);

	if (opt.verbose) {
		geo_name(&r->geo, geo, sizeof(geo));
		printf("seed %llu: %s from %llu, %u entries, %lu expired\n",
		       seed, geo, start, r->m.nitems, r->expired);
		printf("  in the expiry function %lu armed, %lu deleted; %lu -EINVAL; clock %llu\n",
		       r->rearmed_in_fn, r->deleted_in_fn, r->einval,
		       r->w.now);
	}
	free(r->m.items);
	free(r->planted);
	free(r);
	cur = NULL;
}

/* Geometries twheel_init() must refuse, whatever the core. */
static void check_refusals(void)
{
	static const struct twheel_geometry bad[] = {
		TWHEEL_GEOMETRY6(3),
		TWHEEL_GEOMETRY6(1),
		TWHEEL_GEOMETRY7(1, 256),
		TWHEEL_GEOMETRY7(2, 256, 1),
		{ .scheme = 5, .levels = 1, .slots = { 256 } },
	};
	struct twheel w;
	unsigned int i;
	char geo[96];

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (twheel_init(&w, &bad[i], 0) != -EINVAL) {
			geo_name(&bad[i], geo, sizeof(geo));
			fprintf(stderr, "wheel_check: FAIL twheel_init() took geometry %s\n",
				geo);
			exit(1);
		}
	}
}

static void help(void)
{
	fprintf(stderr,
		"usage: wheel_check [-s SEED] [-n SEEDS] [-o OPS] [-S 6|7] [-g S:N,N,...] [-f FAULT] [-v]\n"
		"  runs seeds SEED..SEED+SEEDS-1 (default 1..20), OPS ops each (20000);\n"
		"  -S draws geometries of one scheme only, -g uses this one;\n"
		"  -f plants a fault (late, early, order, warn): the run must fail\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long seeds = 20, i;
	struct twheel_geometry geo;
	u64 seed = 1;
	int c;

	while ((c = getopt(argc, argv, "s:n:o:S:g:f:v")) != -1) {
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
			if (parse_geometry(optarg, &geo) ||
			    twheel_geometry_check(&geo))
				help();
			break;
		case 'f':
			for (opt.fault = FAULT_LATE;
			     opt.fault < ARRAY_SIZE(fault_names); opt.fault++)
				if (!strcmp(optarg, fault_names[opt.fault]))
					break;
			if (opt.fault == ARRAY_SIZE(fault_names))
				help();
			break;
		case 'v':
			opt.verbose = true;
			break;
		default:
			help();
		}
	}
	if (optind != argc)
		help();

	check_refusals();
	for (i = 0; i < seeds; i++)
		run_seed(seed + i);
	printf("wheel_check: seeds %llu..%llu, %lu ops each%s%s: all passed\n",
	       seed, seed + seeds - 1, opt.ops, opt.scheme ? ", scheme " : "",
	       opt.scheme == 6 ? "6" : opt.scheme == 7 ? "7" : "");
	return 0;
}
