// SPDX-License-Identifier: GPL-2.0
/*
 * Hashed and hierarchical timing wheels, without a clock.
 *
 * This file owns the data structures of Schemes 6 and 7; it knows nothing of
 * hrtimers, CPUs or locks.  A wheel moves only when its owner says "the time
 * is now tick T" (twheel_advance()), so the KUnit tests drive it by hand.
 */

/**
 * DOC: twheel timing wheels
 *
 * The schemes are those of G. Varghese and T. Lauck, "Hashed and
 * Hierarchical Timing Wheels: Efficient Data Structures for Implementing a
 * Timer Facility" (SOSP 1987; IEEE/ACM ToN 1997).
 *
 * Scheme 6, hashed wheel with unordered lists.  One array of 2^k slots.  An
 * entry due on absolute tick E sits in slot E mod 2^k; the paper keeps the
 * quotient (the "rounds" left) in the entry's high-order bits, twheel keeps
 * E itself and compares it with the clock when the slot comes round, which
 * survives jumps of the clock unchanged.  Start and stop are O(1); each
 * visit to a slot looks at every entry in it, so a tick costs n / 2^k on
 * average for n entries spread over the wheel.
 *
 * Scheme 7, hierarchical wheels.  Levels 0..m-1 of s[0]..s[m-1] slots; a
 * slot of level n spans g[n] = s[0] * ... * s[n-1] ticks, and the whole
 * hierarchy spans g[m].  Written in the mixed radix of the levels, E and the
 * clock T share their high digits; an entry sits at the highest level whose
 * digit differs, in the slot named by E's digit there.  When the clock
 * enters that slot's span the slot is visited and each entry in it goes
 * down to the level of the first digit that still differs ("migration"),
 * so it reaches level 0 exactly on tick E and fires then, without any loss
 * of precision.  Start is O(m), stop O(1), and an entry migrates at most
 * m - 1 times in its life.
 *
 * Scheme 6 is the one-level case of the same machinery: the top level of
 * every wheel is hashed.  An entry due beyond the top level's current
 * rotation waits in the slot of its top digit and is looked at, and left,
 * once per rotation.  No interval up to %TWHEEL_MAX_INTERVAL is clamped,
 * whatever the geometry; the geometry only sets how often such an entry is
 * looked at.
 *
 * The busy-slot bitmap, one bit per slot, is the hardware assist of the
 * paper's Appendix A: the bit is set while the slot's list is not empty.
 * twheel_next_work() finds the next tick on which any busy slot comes round
 * by scanning m bitmaps, and twheel_advance() jumps straight to it, so empty
 * ticks cost nothing and the owner's clock need not run while nothing is
 * due.  The owner is interrupted T/M times in an entry's life of T ticks
 * for Scheme 6 with M slots, and at most m times for Scheme 7.
 *
 * Ranges at a 1 ms tick (g[n+1] ticks is the longest interval level n takes
 * without hashing; longer ones wait at the top level):
 *
 *  ======================  ========  =========  ==========  ==========
 *  geometry                level 0   level 1    level 2     level 3
 *  ======================  ========  =========  ==========  ==========
 *  Scheme 6, 256 slots     256 ms
 *  Scheme 6, 4096 slots    4.1 s
 *  Scheme 7, 4 x 64        64 ms     4.1 s      4.4 min     4.7 h
 *  Scheme 7, 3 x 256       256 ms    65.5 s     4.7 h
 *  Scheme 7, 4 x 256       256 ms    65.5 s     4.7 h       49.7 days
 *  Scheme 7, 60/60/24/100  60 s      1 h        1 day       100 days
 *  ======================  ========  =========  ==========  ==========
 *
 * (The last row is the paper's example with a 1 s tick.)
 *
 * Entries due on the same tick run in the order they were last armed:
 * every slot list is kept in arrival order, migration walks a list from its
 * head and appends, and all pending entries due on one tick always share one
 * slot.  The order across ticks is that of their expiry ticks.
 *
 * The paper's timer module, routine by routine, and where each is here
 * (the kernel-doc of each function names its routine on a "Paper:" line):
 *
 *  =========================  ==========================================
 *  paper                      twheel
 *  =========================  ==========================================
 *  START TIMER                twheel_add(), twheel_add_at(); for clients
 *                             setcallout() and timeout() (twheel_hw.c,
 *                             twheel_bsd.c)
 *  STOP TIMER                 twheel_del(); unsetcallout(), untimeout()
 *  PER TICK BOOKKEEPING       twheel_advance(), over every tick the
 *                             clock brings: run_tick(), visit_slot()
 *  EXPIRY PROCESSING          the &twheel_expire_fn given to
 *                             twheel_advance(); twheel_expire() runs a
 *                             callout's function (twheel_hw.c)
 *  Scheme 6 hash              twheel_slot_index() of the only level
 *  Scheme 7 level, migration  twheel_level(), visit_slot()
 *  Appendix A busy bits       &twheel.busy, twheel_next_work()
 *  the hardware clock         one hrtimer per CPU, twheel_tick()
 *                             (twheel_hw.c)
 *  =========================  ==========================================
 *
 * The core takes no locks.  Its owner serialises every call on a wheel; the
 * expiry function may drop the owner's lock while it runs a callback as
 * long as nothing else advances the wheel meanwhile (see twheel_advance()).
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "twheel_core.h"

/* Clock + interval + span, the furthest visit tick, fits a u64. */
static_assert(TWHEEL_CLOCK_LIMIT - 1 <= U64_MAX - TWHEEL_MAX_INTERVAL -
	      TWHEEL_MAX_SPAN);
/* Every slot number lies below the values of twheel_entry.slot that are not. */
static_assert((u64)TWHEEL_MAX_LEVELS * TWHEEL_MAX_SLOTS < TWHEEL_SLOT_EXPIRED);

/* Tick @t in units of level @n's slots: the clock's (or expiry's) prefix. */
static inline u64 lvl_div(const struct twheel *w, u64 t, unsigned int n)
{
	return w->pow2 ? t >> w->shift[n] : div64_u64(t, w->gran[n]);
}

/* The digit of @q, a level-@n prefix, at level @n: its slot number there. */
static inline unsigned int lvl_digit(const struct twheel *w, u64 q,
				     unsigned int n)
{
	u32 rem;

	if (w->pow2)
		return q & (w->geo.slots[n] - 1);
	div_u64_rem(q, w->geo.slots[n], &rem);
	return rem;
}

/**
 * twheel_span() - ticks spanned by a geometry's whole hierarchy
 * @geo: a geometry that passed twheel_geometry_check().
 *
 * Return: the product of the slot counts of all levels.
 */
u64 twheel_span(const struct twheel_geometry *geo)
{
	u64 span = 1;
	unsigned int n;

	for (n = 0; n < geo->levels; n++)
		span *= geo->slots[n];
	return span;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_span);

/**
 * twheel_geometry_check() - can a wheel be built with this geometry?
 * @geo: the geometry.
 *
 * Scheme 6 takes one level whose slot count is a power of two; Scheme 7
 * takes 2 to %TWHEEL_MAX_LEVELS levels of %TWHEEL_MIN_SLOTS to
 * %TWHEEL_MAX_SLOTS slots, spanning at most %TWHEEL_MAX_SPAN ticks
 * together.
 *
 * Return: %0 if it can, -%EINVAL if not.
 */
int twheel_geometry_check(const struct twheel_geometry *geo)
{
	u64 span = 1;
	unsigned int n;

	switch (geo->scheme) {
	case TWHEEL_SCHEME6:
		if (geo->levels != 1 || !is_power_of_2(geo->slots[0]))
			return -EINVAL;
		break;
	case TWHEEL_SCHEME7:
		if (geo->levels < 2 || geo->levels > TWHEEL_MAX_LEVELS)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	for (n = 0; n < geo->levels; n++) {
		if (geo->slots[n] < TWHEEL_MIN_SLOTS ||
		    geo->slots[n] > TWHEEL_MAX_SLOTS)
			return -EINVAL;
		if (check_mul_overflow(span, (u64)geo->slots[n], &span) ||
		    span > TWHEEL_MAX_SPAN)
			return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_geometry_check);

/**
 * twheel_level() - the level an entry belongs to
 * @w: the wheel, for its geometry.
 * @now: the clock.
 * @expires: the entry's tick, not before @now.
 *
 * The highest level at which @expires and @now have different digits, or
 * the top level when they lie in different rotations of the whole
 * hierarchy.  An entry due on @now itself belongs to level 0.
 *
 * Paper: Scheme 7, the wheel (hours, minutes, seconds) a timer goes in.
 *
 * Return: a level from 0 to @w->geo.levels - 1.
 */
unsigned int twheel_level(const struct twheel *w, u64 now, u64 expires)
{
	unsigned int n;

	for (n = w->geo.levels - 1; n > 0; n--)
		if (lvl_div(w, expires, n) != lvl_div(w, now, n))
			return n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_level);

/**
 * twheel_slot_index() - where an entry due on @expires sits in a level
 * @w: the wheel.
 * @level: the level.
 * @expires: the entry's tick.
 *
 * Paper: Scheme 6's hash of the expiry time (its low-order bits), and
 * Scheme 7's slot within a level.
 *
 * Return: the slot number within @level, from 0 to its slot count - 1.
 */
unsigned int twheel_slot_index(const struct twheel *w, unsigned int level,
			       u64 expires)
{
	return lvl_digit(w, lvl_div(w, expires, level), level);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_slot_index);

/**
 * twheel_visit_tick() - when the slot holding an entry next comes round
 * @w: the wheel.
 * @now: the clock.
 * @expires: the entry's tick, after @now.
 *
 * This is the tick on which the wheel next looks at the entry: @expires
 * itself at level 0, the start of the slot's span at a higher level, and a
 * later rotation of the top level when @expires lies beyond this one.
 *
 * Return: a tick after @now and not after @expires.
 */
u64 twheel_visit_tick(const struct twheel *w, u64 now, u64 expires)
{
	unsigned int n = twheel_level(w, now, expires);
	u64 p = lvl_div(w, now, n), q = lvl_div(w, expires, n);
	u32 ahead;

	/* The first prefix after p whose digit is q's. */
	div_u64_rem(q - p - 1, w->geo.slots[n], &ahead);
	return (p + 1 + ahead) * w->gran[n];
}
EXPORT_SYMBOL_IF_KUNIT(twheel_visit_tick);

/**
 * twheel_init() - build an empty wheel
 * @w: the wheel.
 * @geo: its geometry.
 * @now: the tick its clock starts at.
 *
 * Context: process context; allocates with %GFP_KERNEL.
 * Return: %0, -%EINVAL for a geometry twheel_geometry_check() refuses, or
 * -%ENOMEM.
 */
int twheel_init(struct twheel *w, const struct twheel_geometry *geo, u64 now)
{
	struct list_head *slot;
	unsigned long *busy;
	unsigned int n, i;
	int ret;

	ret = twheel_geometry_check(geo);
	if (ret)
		return ret;

	memset(w, 0, sizeof(*w));
	w->geo = *geo;
	w->now = now;
	w->pow2 = true;
	w->gran[0] = 1;
	for (n = 0; n < geo->levels; n++) {
		w->first[n] = w->nslots;
		w->nslots += geo->slots[n];
		w->gran[n + 1] = w->gran[n] * geo->slots[n];
		if (!is_power_of_2(geo->slots[n]))
			w->pow2 = false;
	}
	for (n = 0; w->pow2 && n <= geo->levels; n++)
		w->shift[n] = ilog2(w->gran[n]);

	slot = kvmalloc_array(w->nslots, sizeof(*slot), GFP_KERNEL);
	busy = bitmap_zalloc(w->nslots, GFP_KERNEL);
	if (!slot || !busy) {
		kvfree(slot);
		bitmap_free(busy);
		return -ENOMEM;
	}
	for (i = 0; i < w->nslots; i++)
		INIT_LIST_HEAD(&slot[i]);
	w->slot = slot;
	w->busy = busy;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_init);

/**
 * twheel_destroy() - free an empty wheel
 * @w: the wheel, with no entry pending.
 *
 * Context: process context.
 */
void twheel_destroy(struct twheel *w)
{
	WARN_ON_ONCE(w->count);
	kvfree(w->slot);
	bitmap_free(w->busy);
	w->slot = NULL;
	w->busy = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_destroy);

/**
 * twheel_forward() - move an empty wheel's clock on without processing
 * @w: the wheel, with no entry pending.
 * @now: the new time; nothing happens if it is not after @w->now.
 *
 * An owner whose wheel sleeps while empty calls this before arming it
 * again, so that the first advance does not walk the time it slept: a
 * hashed wheel would visit the new entry's slot once per rotation of it.
 */
void twheel_forward(struct twheel *w, u64 now)
{
	if (WARN_ON_ONCE(w->count) || now <= w->now)
		return;
	w->stats.skipped += now - w->now;
	w->now = now;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_forward);

/**
 * twheel_entry_init() - make an entry idle
 * @e: the entry.
 */
void twheel_entry_init(struct twheel_entry *e)
{
	INIT_LIST_HEAD(&e->node);
	e->expires = 0;
	e->slot = TWHEEL_SLOT_IDLE;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_entry_init);

/* Put @e, due on e->expires, into the slot it belongs to at w->now. */
static void place(struct twheel *w, struct twheel_entry *e)
{
	unsigned int n = twheel_level(w, w->now, e->expires);
	unsigned int i = w->first[n] + twheel_slot_index(w, n, e->expires);

	list_add_tail(&e->node, &w->slot[i]);
	__set_bit(i, w->busy);
	WRITE_ONCE(e->slot, i);
}

/**
 * twheel_add_at() - arm an entry for an absolute tick, re-arming it if pending
 * @w: the wheel.
 * @e: the entry, initialised by twheel_entry_init().
 * @expires: the tick it comes due on.  A tick not after @w->now, which has
 *	been processed already, is taken as @w->now + 1: the entry runs on
 *	the next tick processed, late but never lost.
 *
 * An owner whose clock runs ahead of @w->now (a wheel that sleeps while it
 * has no work) arms entries this way, so that they are due counting from
 * the real time, not from the last tick the wheel processed.
 *
 * Paper: START TIMER, in O(levels).
 *
 * Return: %1 if @e was pending (and is now re-armed), %0 if it was idle,
 * -%EINVAL with nothing changed if @expires lies more than
 * %TWHEEL_MAX_INTERVAL ticks after @w->now.
 */
int twheel_add_at(struct twheel *w, struct twheel_entry *e, u64 expires)
{
	bool pending;

	if (expires > w->now && expires - w->now > TWHEEL_MAX_INTERVAL)
		return -EINVAL;
	pending = twheel_del(w, e);
	e->expires = max(expires, w->now + 1);
	place(w, e);
	w->count++;
	return pending;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_add_at);

/**
 * twheel_add() - arm an entry, re-arming it if it is pending
 * @w: the wheel.
 * @e: the entry, initialised by twheel_entry_init().
 * @interval: ticks from now: the entry comes due on tick @w->now +
 *	@interval.  Tick @w->now has been processed already, so an @interval
 *	of 0 is taken as 1, the next tick.
 *
 * Paper: START TIMER.
 *
 * Return: %1 if @e was pending (and is now re-armed), %0 if it was idle,
 * -%EINVAL with nothing changed if @interval exceeds %TWHEEL_MAX_INTERVAL.
 */
int twheel_add(struct twheel *w, struct twheel_entry *e, u64 interval)
{
	if (interval > TWHEEL_MAX_INTERVAL)
		return -EINVAL;
	return twheel_add_at(w, e, w->now + interval);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_add);

/**
 * twheel_del() - stop an entry
 * @w: the wheel.
 * @e: the entry.
 *
 * An entry that has come due but not yet been handed to the expiry function
 * (one of several due on the tick being processed) is stopped too.
 *
 * Paper: STOP TIMER, in O(1).
 *
 * Return: true if @e was pending and will now not expire, false if it was
 * idle already.
 */
bool twheel_del(struct twheel *w, struct twheel_entry *e)
{
	u32 i = e->slot;

	if (i == TWHEEL_SLOT_IDLE)
		return false;
	list_del_init(&e->node);
	if (i != TWHEEL_SLOT_EXPIRED && list_empty(&w->slot[i]))
		__clear_bit(i, w->busy);
	WRITE_ONCE(e->slot, TWHEEL_SLOT_IDLE);
	w->count--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_del);

/*
 * How many slots after slot @from of level @n the next busy one is, counting
 * cyclically and @from itself as 0; the level's slot count if none is busy.
 */
static unsigned int busy_distance(const struct twheel *w, unsigned int n,
				  unsigned int from)
{
	unsigned int s = w->geo.slots[n];
	unsigned int first = w->first[n], end = first + s;
	unsigned int i;

	i = find_next_bit(w->busy, end, first + from);
	if (i < end)
		return i - (first + from);
	i = find_next_bit(w->busy, first + from, first);
	if (i < first + from)
		return i + s - (first + from);
	return s;
}

/**
 * twheel_next_work() - the next tick on which a busy slot comes round
 * @w: the wheel.
 *
 * Advancing the clock to any tick before this one touches no slot, so an
 * owner may sleep until then.  It is never later than the earliest pending
 * entry's tick, and earlier when a slot holding only later entries comes
 * round first: a migration of Scheme 7, or an early visit to an entry that
 * lies beyond the top level's current rotation.
 *
 * Paper: Appendix A, the chip that interrupts the host only for a slot
 * marked busy; O(levels) bitmap scans stand in for its hardware.
 *
 * Return: a tick after @w->now, or %U64_MAX if no entry is pending.
 */
u64 twheel_next_work(const struct twheel *w)
{
	u64 best = U64_MAX;
	unsigned int n;

	if (!w->count)
		return U64_MAX;
	for (n = 0; n < w->geo.levels; n++) {
		u64 p = lvl_div(w, w->now, n);
		unsigned int d;

		/* Level n's next slot comes round at the start of prefix p + 1. */
		d = busy_distance(w, n, lvl_digit(w, p + 1, n));
		if (d < w->geo.slots[n])
			best = min(best, (p + 1 + d) * w->gran[n]);
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_next_work);

/**
 * twheel_first() - any pending entry, for emptying a wheel
 * @w: the wheel.
 *
 * Return: the first entry of the lowest-numbered busy slot, or %NULL if
 * no entry is pending.  Not the earliest due: see twheel_next_work().
 */
struct twheel_entry *twheel_first(const struct twheel *w)
{
	unsigned int i = find_first_bit(w->busy, w->nslots);

	if (i >= w->nslots)
		return NULL;
	return list_first_entry(&w->slot[i], struct twheel_entry, node);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_first);

/*
 * Process the slot of level @n that comes round on tick w->now.  Entries
 * due now go to @expired; the others go back to the slot they belong to,
 * which is a finer level (a migration) or, at the hashed top level, this
 * slot again (an early visit).
 */
static void visit_slot(struct twheel *w, unsigned int n,
		       struct list_head *expired)
{
	unsigned int i = w->first[n] + twheel_slot_index(w, n, w->now);
	struct twheel_entry *e, *tmp;
	LIST_HEAD(todo);

	if (!test_bit(i, w->busy))
		return;
	list_splice_init(&w->slot[i], &todo);
	__clear_bit(i, w->busy);

	list_for_each_entry_safe(e, tmp, &todo, node) {
		list_del(&e->node);
		if (e->expires == w->now) {
			list_add_tail(&e->node, expired);
			WRITE_ONCE(e->slot, TWHEEL_SLOT_EXPIRED);
			continue;
		}
		if (lvl_div(w, e->expires, n) == lvl_div(w, w->now, n))
			w->stats.migrated++;
		else
			w->stats.early_visits++;
		place(w, e);
	}
}

/* Process tick w->now: coarse levels first, so migrations land in time. */
static void run_tick(struct twheel *w, struct list_head *expired)
{
	unsigned int n;

	w->stats.ticks++;
	for (n = w->geo.levels - 1; n > 0; n--)
		if (lvl_div(w, w->now, n) != lvl_div(w, w->now - 1, n))
			visit_slot(w, n, expired);
	visit_slot(w, 0, expired);
}

/**
 * twheel_advance() - move the clock forward, expiring what comes due
 * @w: the wheel.
 * @to: the new time; nothing happens if it is not after @w->now.
 * @fn: called for each entry on its tick, in expiry order.
 * @ctx: passed to @fn.
 *
 * Every tick up to @to with work is processed in turn, and @fn runs for the
 * entries due on it with @w->now set to that tick before the clock moves
 * on; so an entry that @fn arms for a tick not after @to expires within
 * this call.  Ticks without work are skipped in one step.
 *
 * Paper: PER TICK BOOKKEEPING for all the ticks up to @to, calling
 * EXPIRY PROCESSING (@fn) for each entry that comes due.
 *
 * Context: the caller serialises all calls on @w.  @fn may drop and retake
 * the caller's lock; others may then add and delete entries, but must not
 * advance @w.
 */
void twheel_advance(struct twheel *w, u64 to, twheel_expire_fn fn, void *ctx)
{
	LIST_HEAD(expired);

	while (w->now < to) {
		u64 next = twheel_next_work(w);

		if (next > to) {
			w->stats.skipped += to - w->now;
			w->now = to;
			break;
		}
		w->stats.skipped += next - w->now - 1;
		w->now = next;
		run_tick(w, &expired);

		/* @fn may stop other entries on @expired: take one at a time. */
		while (!list_empty(&expired)) {
			struct twheel_entry *e;

			e = list_first_entry(&expired, struct twheel_entry, node);
			list_del_init(&e->node);
			WRITE_ONCE(e->slot, TWHEEL_SLOT_IDLE);
			w->count--;
			w->stats.expired++;
			fn(w, e, ctx);
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_advance);
