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
 * The words this file uses, each for one thing only:
 *
 *  ===========  ===========================================================
 *  tick         the unit of time; the owner's clock counts ticks
 *  level        an array of slots, level 0 the finest; Scheme 6 has one.
 *               Level n has s[n] slots in the geometry
 *  slot         a list of entries, with its busy bit
 *  span         the ticks one slot of level n covers, g[n] = s[0] * ... *
 *               s[n-1]; the span of a hierarchy is that of all its levels
 *  prefix       a tick divided by g[n]: which slot, counted from tick 0,
 *               of level n's endless sequence holds it
 *  rotation     one pass of the clock over every slot of a level
 *  window       the ticks a level below the top holds: the current slot of
 *               the level above and the next one (2 * s[n] slots)
 *  range        the ticks from @first to @last that an owner's arming with
 *               a precision allows; twheel_coalesce() picks one of them
 *  visit        the tick on which the wheel looks at a slot's entries
 *  early visit  a visit to an entry that is not due yet, which leaves it
 *               where it is: a hashed level holds later rotations
 *  drain        the move of one slot's entries down one level, spread over
 *               the ticks before its span begins
 *  migrate      what a drain does to one entry: the paper's "migration",
 *               counted in &twheel_stats.migrated.  A callout that goes to
 *               another CPU's base changes base (%OWNER_MOVING in
 *               twheel_hw.c); it never migrates
 *  moved        of a tick: the entries it migrated or visited early, its
 *               work besides the expiries (&twheel_stats.moved_max)
 *  cascade      the migration of a whole slot on one tick, as the paper
 *               and Linux's old wheel do it: what the drains replace.
 *               Suite twheel_cascade and bench/twheel_cascade.c show that
 *               no tick does it
 *  busy bit     one bit per slot, set while the slot holds entries: the
 *               hardware assist of the paper's Appendix A
 *  open         said of a tick whose processing twheel_advance_batch()
 *               paused for lack of budget (&twheel.open)
 *  park         while level 0's slot for this tick is processed, the last
 *               entry put back in it (not due on this rotation), so that
 *               those after it keep their order (&twheel.park)
 *  ===========  ===========================================================
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
 * slot of level n spans g[n] = s[0] * ... * s[n-1] ticks.  Written in the
 * mixed radix of the levels, an entry due on tick E and the clock T share
 * their high digits, and the paper keeps the entry at the highest level
 * whose digit differs; when the clock enters that slot's span, every entry
 * in it moves down ("migration") until it reaches level 0 exactly on tick
 * E.  Start is O(m), stop O(1), and an entry migrates at most m - 1 times.
 * But the move is made in one tick for the whole slot: the cascade that
 * Linux took out of its timer wheel in 2016 by giving up exact expiry.
 *
 * twheel keeps exact expiry and bounds the work of a tick instead.  Each
 * level below the top has 2 * s[n] slots, so that it holds the current
 * slot of the level above and the next one; an entry is placed at the
 * lowest level whose window holds it.  The next slot of each level n >= 1
 * is drained into level n - 1 while the clock crosses the slot before it:
 * a slot of N entries moves at about N / (g[n] - g[n-1]) entries a tick,
 * at least %TWHEEL_DRAIN_MIN while any are left, and is empty g[n-1] ticks
 * before its span begins, so every entry lands in a slot of level n - 1 that
 * nothing is draining.  No entry is ever placed in a slot being drained:
 * one due that soon fits a lower level.  The top level is hashed like
 * Scheme 6: its draining slot may hold entries of later rotations, which
 * are looked at and left (early visits).
 *
 * Scheme 6 is the one-level case of the same machinery: the top level of
 * every wheel is hashed.  An entry due beyond the top level's current
 * rotation waits in the slot of its top digit and is looked at, and left,
 * once per rotation.  No interval up to %TWHEEL_MAX_INTERVAL is clamped,
 * whatever the geometry; the geometry only sets how often such an entry is
 * looked at.
 *
 * The busy-slot bitmap, one bit per slot, is the hardware assist of the
 * paper's Appendix A: the bit is set while the slot holds entries.
 * twheel_next_work() finds the next tick on which any level has work (an
 * entry due, a slot to start draining, a drain going on) by scanning m
 * bitmaps, and twheel_advance() jumps straight to it, so empty ticks cost
 * nothing and the owner's clock need not run while nothing is due.  The
 * owner is interrupted T/M times in an entry's life of T ticks for Scheme 6
 * with M slots, and about m times for Scheme 7 while slots are small.
 *
 * The work of one tick is bounded by the entries due on it plus each
 * level's drain rate, and twheel_advance_batch() splits even that into
 * batches of a budget the owner chooses, so that an owner holding a lock
 * with interrupts off can drop it between batches.
 *
 * Ranges at a 1 ms tick: g[n+1] ticks, the span of one slot of level n + 1
 * (level n holds its current one and the next); at the top level, one
 * rotation, beyond which entries wait there hashed:
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
 * Entries due on the same tick run in the order they were last armed.  A
 * new entry is appended to its slot.  A drain takes entries from the tail
 * of the slot it empties and puts each at the head of its new slot, so a
 * slot reads: the entries drained into it, in the order they had above,
 * then those placed in it directly, which are all newer (an entry is placed
 * at a level only once its window there has opened, and the drains into
 * it are older).  Level 0 runs a slot from its head.  The order across
 * ticks is that of their expiry ticks.
 *
 * The paper's timer module, routine by routine, and where each is here
 * (the kernel-doc of each function names its routine on a "Paper:" line):
 *
 *  =========================  ==========================================
 *  paper                      twheel
 *  =========================  ==========================================
 *  START TIMER                twheel_add(), twheel_add_at(); for clients
 *                             setcallout() and timeout()
 *                             (twheel_callout.c, twheel_bsd.c)
 *  STOP TIMER                 twheel_del(); unsetcallout(), untimeout()
 *                             (twheel_callout.c, twheel_bsd.c)
 *  PER TICK BOOKKEEPING       twheel_advance(), over every tick the
 *                             clock brings: open_tick(), run_tick()
 *  EXPIRY PROCESSING          the &twheel_expire_fn given to
 *                             twheel_advance(); twheel_expire() runs a
 *                             callout's function (twheel_hw.c)
 *  Scheme 6 hash              twheel_slot_index() of the only level
 *  Scheme 7 level, migration  twheel_place(), drain_one()
 *  Appendix A busy bits       &twheel.busy, twheel_next_work()
 *  the hardware clock         the tick timer, one hrtimer per CPU:
 *                             tick_timer_expired() (twheel_hw.c)
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
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "twheel_core.h"

/* Clock + interval + span, the furthest visit tick, fits a u64. */
static_assert(TWHEEL_CLOCK_LIMIT - 1 <= U64_MAX - TWHEEL_MAX_INTERVAL -
	      TWHEEL_MAX_SPAN);
/*
 * Every slot number, at up to twice the geometry's slots a level, lies
 * below %TWHEEL_SLOT_IDLE.
 */
static_assert(2ULL * TWHEEL_MAX_LEVELS * TWHEEL_MAX_SLOTS < TWHEEL_SLOT_IDLE);

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
 * twheel_coalesce() - the tick to arm an entry for, within its range
 * @first: the earliest tick the entry may run on, at least 1 (a tick
 *	after some wheel's clock).
 * @last: the latest; not after @first means exactly @first.
 * @busy: a tick on which the owner already has an interrupt coming
 *	(%U64_MAX for none).
 *
 * A range of more than one tick is a chance to share an interrupt with
 * other work.  @busy is taken if it lies in the range.  Otherwise the
 * tick with the most trailing zero bits: entries whose ranges overlap
 * tend to pick the same such tick without knowing of one another, as
 * round_jiffies() and the coarse levels of timer.c's wheel make them do.
 * It is @last with the bits cleared below the highest bit in which
 * @first - 1 and @last differ: that bit is set in @last and clear in
 * @first - 1, so the result lies above @first - 1 and not above @last,
 * and no multiple of a higher power of two lies between them.
 *
 * Return: a tick from @first to max(@first, @last).
 */
u64 twheel_coalesce(u64 first, u64 last, u64 busy)
{
	if (last <= first)
		return first;
	if (busy >= first && busy <= last)
		return busy;
	return last & ~(BIT_ULL(__fls((first - 1) ^ last)) - 1);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_coalesce);

/**
 * twheel_slot_index() - where an entry due on @expires sits in a level
 * @w: the wheel.
 * @level: the level.
 * @expires: the entry's tick.
 *
 * Paper: Scheme 6's hash of the expiry time (its low-order bits), and
 * Scheme 7's slot within a level.
 *
 * Return: the slot number within @level, from 0 to @w->size[@level] - 1.
 */
unsigned int twheel_slot_index(const struct twheel *w, unsigned int level,
			       u64 expires)
{
	return lvl_slot(w, lvl_div(w, expires, level), level);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_slot_index);

/**
 * twheel_place() - where an entry goes, and when the wheel looks at it
 * @w: the wheel.
 * @now: the clock.
 * @expires: the entry's tick, not before @now.
 * @pl: the answer.
 *
 * The level is the lowest whose window holds @expires: level n below the
 * top holds the ticks of the current and the next slot of level n + 1.
 * The top level holds the rest, however far ahead.  An entry due on @now
 * itself belongs to level 0.  The visit tick is, for an entry placed at
 * level 0, the tick its slot comes round: @expires itself in Scheme 7, and
 * in Scheme 6 the first rotation that reaches the slot; at a higher level,
 * the tick the level starts draining the entry's slot, the start of the
 * span before the slot's own (for the hashed top level, on the first
 * rotation that reaches it).  twheel_add_at() places every entry with the
 * same code.
 *
 * Paper: Scheme 6's hash of the expiry time (its low-order bits), and
 * Scheme 7's choice of the wheel (hours, minutes, seconds) a timer goes
 * in; twheel places it lower when the wheel below already has room for it.
 *
 * Return: nothing; @pl->level from 0 to @w->top, @pl->slot an index in
 * @w->slot within that level's slots, @pl->visit a tick after @now and
 * not after @expires when @expires is after @now.
 */
void twheel_place(const struct twheel *w, u64 now, u64 expires,
		  struct twheel_place *pl)
{
	*pl = place(w, !w->top, w->pow2, now, expires);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_place);

/* No drain is open: each level's next slot at w->now counts as drained. */
static void reset_drains(struct twheel *w)
{
	unsigned int n;

	w->next = U64_MAX;
	for (n = 1; n < w->geo.levels; n++) {
		w->drain_q[n] = lvl_div(w, w->now, n) + 1;
		w->drain_left[n] = 0;
		w->quota[n] = 0;
	}
}

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
	u32 *len;
	int ret;

	ret = twheel_geometry_check(geo);
	if (ret)
		return ret;

	memset(w, 0, sizeof(*w));
	w->geo = *geo;
	w->now = now;
	w->top = geo->levels - 1;
	w->pow2 = true;
	w->gran[0] = 1;
	for (n = 0; n < geo->levels; n++) {
		w->first[n] = w->nslots;
		w->size[n] = geo->slots[n];
		if (n < geo->levels - 1)
			w->size[n] *= 2;
		w->nslots += w->size[n];
		w->gran[n + 1] = w->gran[n] * geo->slots[n];
		if (!is_power_of_2(geo->slots[n]))
			w->pow2 = false;
		INIT_LIST_HEAD(&w->drain[n]);
	}
	for (n = 0; w->pow2 && n <= geo->levels; n++)
		w->shift[n] = ilog2(w->gran[n]);
	for (n = 0; w->pow2 && n < geo->levels; n++) {
		w->mask[n] = w->size[n] - 1;
		w->lag[n] = n ? 2 : 1;
	}
	/*
	 * place()'s level for a distance whose highest set bit is bit i: the
	 * lowest level that holds every distance below 2^(i + 1), that is,
	 * with g[n + 1] >= 2^(i + 1), else the top; marked when the level
	 * below holds some of the distances from 2^i, as it does when g[n]
	 * is 2^i.
	 */
	for (i = 0; w->pow2 && i < ARRAY_SIZE(w->level_of); i++) {
		for (n = 0; n < w->top && w->shift[n + 1] < i + 1; n++)
			;
		w->level_of[i] = n;
		if (n && w->shift[n] == i)
			w->level_of[i] |= TWHEEL_LEVEL_CHECK;
	}
	INIT_LIST_HEAD(&w->due);
	reset_drains(w);

	slot = kvmalloc_array(w->nslots, sizeof(*slot), GFP_KERNEL);
	len = kvcalloc(w->nslots, sizeof(*len), GFP_KERNEL);
	busy = bitmap_zalloc(w->nslots, GFP_KERNEL);
	if (!slot || !len || !busy) {
		kvfree(slot);
		kvfree(len);
		bitmap_free(busy);
		return -ENOMEM;
	}
	for (i = 0; i < w->nslots; i++)
		INIT_LIST_HEAD(&slot[i]);
	w->slot = slot;
	w->len = len;
	w->busy = busy;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_init);

/**
 * twheel_abandon() - empty a wheel without looking at its entries
 * @w: the wheel.
 *
 * For an owner that can no longer trust the memory of the entries still
 * pending: the wheel forgets them, touching none, and is empty.  Their
 * links still point into the wheel.
 *
 * Context: any, under the owner's lock.
 */
void twheel_abandon(struct twheel *w)
{
	unsigned int i;

	for (i = 0; i < twheel_lists(w); i++)
		INIT_LIST_HEAD(twheel_list(w, i));
	memset(w->len, 0, w->nslots * sizeof(*w->len));
	bitmap_zero(w->busy, w->nslots);
	w->count = 0;
	w->park = NULL;
	w->open = false;
	reset_drains(w);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_abandon);

/**
 * twheel_destroy() - free an empty wheel
 * @w: the wheel, with no entry pending (twheel_abandon() empties one).
 *
 * Context: process context.
 */
void twheel_destroy(struct twheel *w)
{
	WARN_ON_ONCE(w->count);
	kvfree(w->slot);
	kvfree(w->len);
	bitmap_free(w->busy);
	w->slot = NULL;
	w->len = NULL;
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
 * A tick left open by twheel_advance_batch() has nothing left to do in an
 * empty wheel, and is closed.
 */
void twheel_forward(struct twheel *w, u64 now)
{
	if (WARN_ON_ONCE(w->count))
		return;
	w->open = false;
	w->park = NULL;
	if (now <= w->now)
		return;
	w->stats.skipped += now - w->now;
	w->now = now;
	reset_drains(w);
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

/*
 * add_at() for a geometry of other slot counts than powers of two, out of
 * line: place_any()'s divisions take registers that the other paths would
 * otherwise save and restore too.
 */
noinline int twheel_add_at_any(struct twheel *w, struct twheel_entry *e,
			       u64 expires)
{
	return add_at(w, e, expires, false, false, false);
}

/*
 * twheel_add_at()'s other paths, each out of line for the same reason:
 * an idle entry of a hierarchy, and a pending entry of any wheel.
 */
static noinline int add_idle_levels(struct twheel *w, struct twheel_entry *e,
				    u64 expires)
{
	if (unlikely(!w->pow2))
		return twheel_add_at_any(w, e, expires);
	return add_at(w, e, expires, false, true, true);
}

static noinline int add_pending(struct twheel *w, struct twheel_entry *e,
				u64 expires)
{
	return __twheel_add_at(w, e, expires);
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
 * Paper: START TIMER, in O(1); in O(levels) for a geometry whose slot
 * counts are not all powers of two.
 *
 * Return: %1 if @e was pending (and is now re-armed), %0 if it was idle,
 * -%EINVAL with nothing changed if @expires lies more than
 * %TWHEEL_MAX_INTERVAL ticks after @w->now.
 */
int twheel_add_at(struct twheel *w, struct twheel_entry *e, u64 expires)
{
	/*
	 * Each path in a copy of its own, so that the commonest, an idle
	 * entry of Scheme 6, saves no registers; the callout layer inlines
	 * __twheel_add_at() instead.
	 */
	if (unlikely(e->slot != TWHEEL_SLOT_IDLE))
		return add_pending(w, e, expires);
	if (w->top)
		return add_idle_levels(w, e, expires);
	return add_at(w, e, expires, true, true, true);
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
 * (one of several due on the tick being processed) is stopped too, as is
 * one waiting to be drained to a lower level.
 *
 * Paper: STOP TIMER, in O(1).
 *
 * Return: true if @e was pending and will now not expire, false if it was
 * idle already.
 */
bool twheel_del(struct twheel *w, struct twheel_entry *e)
{
	return __twheel_del(w, e);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_del);

/*
 * How many slots after slot @from of level @n the next busy one is, counting
 * cyclically and @from itself as 0, among the @len slots from @from (at
 * most the level's count); the level's slot count if none is busy.
 */
static unsigned int busy_distance(const struct twheel *w, unsigned int n,
				  unsigned int from, unsigned int len)
{
	unsigned int s = w->size[n];
	unsigned int first = w->first[n], end = first + s;
	unsigned int stop = first + from + len;
	unsigned int i;

	i = find_next_bit(w->busy, min(end, stop), first + from);
	if (i < min(end, stop))
		return i - (first + from);
	if (stop <= end)
		return s;
	i = find_next_bit(w->busy, stop - s, first);
	if (i < stop - s)
		return i + s - (first + from);
	return s;
}

/**
 * twheel_next_work() - the next tick on which the wheel has work
 * @w: the wheel.
 *
 * Advancing the clock to any tick before this one touches no entry, so an
 * owner may sleep until then.  It is never later than the earliest pending
 * entry's tick, and earlier when a level must start or go on draining a
 * slot, or when a slot holding only later entries comes round (an early
 * visit of the hashed top level).
 *
 * Paper: Appendix A, the chip that interrupts the host only for a slot
 * marked busy; O(levels) bitmap scans stand in for its hardware.
 *
 * Return: a tick after @w->now; @w->now itself if twheel_advance_batch()
 * left that tick's processing unfinished; %U64_MAX if no entry is pending.
 */
u64 twheel_next_work(const struct twheel *w)
{
	u64 best = U64_MAX;
	unsigned int n, d;

	if (w->open)
		return w->now;
	if (!w->count)
		return U64_MAX;

	/* Level 0: the next slot to come round holding entries. */
	d = busy_distance(w, 0, lvl_slot(w, w->now + 1, 0), w->size[0]);
	if (d < w->size[0])
		best = w->now + 1 + d;

	/* Higher levels: a drain going on, or the next one to start. */
	for (n = 1; n < w->geo.levels; n++) {
		u64 p = lvl_div(w, w->now, n);

		if (!list_empty(&w->drain[n]))
			return w->now + 1;
		/* Prefix p + 2 + d is drained from the start of p + 1 + d. */
		d = busy_distance(w, n, lvl_slot(w, p + 2, n), w->size[n]);
		if (d < w->size[n])
			best = min(best, (p + 1 + d) * w->gran[n]);
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_next_work);

/**
 * twheel_busy_tick() - a tick of a range on which the wheel has work
 * @w: the wheel.
 * @first: the range's first tick, after @w->now.
 * @last: its last.
 *
 * Looks at level 0's busy bits, over the part of the range that level 0
 * holds: Scheme 7's level 0 holds the ticks up to the end of the next
 * level-1 slot, each in a slot of its own; Scheme 6's one level holds any
 * tick, and a busy slot may then hold only entries of a later rotation.
 * An owner arming an entry with a range puts it on such a tick, to share
 * the interrupt it takes there anyway (twheel_coalesce()).
 *
 * Paper: Appendix A's busy bits, read for a range instead of the next one.
 *
 * Return: the first tick from @first to @last whose level-0 slot holds
 * entries, or %U64_MAX if none does; O(range / BITS_PER_LONG), and at
 * most level 0's slots.
 */
u64 twheel_busy_tick(const struct twheel *w, u64 first, u64 last)
{
	unsigned int d, len;

	if (w->top)
		last = min(last, (lvl_div(w, w->now, 1) + 2) * w->gran[1] - 1);
	if (last < first || first <= w->now)
		return U64_MAX;
	len = min_t(u64, last - first + 1, w->size[0]);
	d = busy_distance(w, 0, lvl_slot(w, first, 0), len);
	return d < len ? first + d : U64_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_busy_tick);

/**
 * twheel_first() - any pending entry, for emptying a wheel
 * @w: the wheel.
 *
 * Not the earliest due (see twheel_next_work()), but an owner that takes
 * entries in the order this gives them and arms them on another wheel in
 * that order keeps the order of the entries due on each tick: the lists
 * that hold the older of them, drains and a slot's entries put back while
 * Scheme 6 runs it, come first.
 *
 * Return: a pending entry, or %NULL if none is.
 */
struct twheel_entry *twheel_first(const struct twheel *w)
{
	const struct list_head *head = NULL;
	const struct list_head *run = &w->slot[w->first[0] +
					       lvl_slot(w, w->now, 0)];
	unsigned int n, i;

	/* Scheme 6 half way through a slot: those put back come first. */
	if (w->park && w->park != run)
		head = run;
	for (n = 1; n < w->geo.levels && !head; n++)
		if (!list_empty(&w->drain[n]))
			head = &w->drain[n];
	if (!head && !list_empty(&w->due))
		head = &w->due;
	for_each_set_bit(i, w->busy, w->nslots) {
		if (head)
			break;
		if (!list_empty(&w->slot[i]))
			head = &w->slot[i];
	}
	return head ? list_first_entry(head, struct twheel_entry, node) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_first);

/*
 * Take @cur's mark out of the list it holds the place in.  Stopping the
 * entry after which Scheme 6 puts back the entries of the slot it runs
 * (twheel_del()) may have left @w->park on the mark: it then moves to
 * the mark's predecessor, where the entry stopped would have left it.
 */
static void cursor_unlink(struct twheel *w, struct twheel_cursor *cur)
{
	if (w->park == &cur->mark.node)
		w->park = cur->mark.node.prev;
	list_del_init(&cur->mark.node);
}

/**
 * twheel_cursor_start() - begin a walk of every pending entry
 * @w: the wheel.
 * @cur: the cursor, the caller's until the walk is done.
 *
 * The cursor's mark, an entry that is not pending, sits in the list being
 * walked just after the entry walked last, so that the walk can stop, let
 * the owner's lock go, and go on from there.  Meanwhile the owner may add
 * and delete entries, and twheel_forward() an empty wheel (which touches
 * no list), but must not advance the wheel, empty it with twheel_first(),
 * abandon it or destroy it; an entry added behind the mark is not walked.
 * Walkers of the lists (twheel_list()) that may run meanwhile skip an
 * entry whose &twheel_entry.slot is %TWHEEL_SLOT_IDLE: it is a mark.
 * Other walks with cursors may run meanwhile too: twheel_cursor_next()
 * passes over their marks.
 *
 * Context: under the owner's lock.
 */
void twheel_cursor_start(struct twheel *w, struct twheel_cursor *cur)
{
	twheel_entry_init(&cur->mark);
	cur->list = 0;
	list_add(&cur->mark.node, twheel_list(w, 0));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_cursor_start);

/**
 * twheel_cursor_next() - the next pending entry of a walk
 * @w: the wheel.
 * @cur: the cursor, from twheel_cursor_start().
 * @budget: what the caller allows before it lets its lock go: each entry
 *	given, each list passed and each other walk's mark passed costs one.
 *
 * The caller may delete the entry it is given, or re-arm it (it may then
 * be given again, if it lands in a list not walked yet).
 *
 * Context: under the owner's lock.
 * Return: the next entry, or %NULL when the budget has run out (call again
 * with more) or the walk is over (twheel_cursor_done()).
 */
struct twheel_entry *twheel_cursor_next(struct twheel *w,
					struct twheel_cursor *cur,
					unsigned int *budget)
{
	while (*budget && cur->list < twheel_lists(w)) {
		struct list_head *head = twheel_list(w, cur->list);
		struct list_head *next = cur->mark.node.next;

		(*budget)--;
		if (next != head) {
			struct twheel_entry *e = list_entry(next,
					struct twheel_entry, node);

			/* The mark goes past the entry it gives. */
			cursor_unlink(w, cur);
			list_add(&cur->mark.node, next);
			/* Not pending: another walk's mark, to pass over. */
			if (twheel_entry_pending(e))
				return e;
			continue;
		}
		cursor_unlink(w, cur);
		if (++cur->list < twheel_lists(w))
			list_add(&cur->mark.node, twheel_list(w, cur->list));
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_cursor_next);

/**
 * twheel_cursor_stop() - end a walk before it has given every entry
 * @w: the wheel.
 * @cur: the cursor, from twheel_cursor_start().
 *
 * Takes the mark out of the wheel, as the end of the walk does; the walk
 * is then done (twheel_cursor_done()), and @cur may go.  Nothing if it
 * was done already.
 *
 * Context: under the owner's lock.
 */
void twheel_cursor_stop(struct twheel *w, struct twheel_cursor *cur)
{
	if (twheel_cursor_done(w, cur))
		return;
	cursor_unlink(w, cur);
	cur->list = twheel_lists(w);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_cursor_stop);

/* How many of @left entries to move with @ticks ticks left to do it in. */
static unsigned long drain_quota(unsigned long left, u64 ticks)
{
	unsigned long q;

	if (ticks <= 1)
		return ULONG_MAX;
	q = div64_u64(left + ticks - 1, ticks);
	return max(q, min_t(unsigned long, left, TWHEEL_DRAIN_MIN));
}

/*
 * Start processing tick w->now: take level 0's slot for it to run, and for
 * every higher level whose next slot has just become next, take that slot
 * to drain; then set what each level moves on this tick.  A level must have
 * emptied its next slot g[n-1] ticks before the slot's span begins, so that
 * what it moves lands in a slot of level n - 1 that is not draining.
 */
static void open_tick(struct twheel *w)
{
	unsigned int n, i;

	w->stats.ticks++;
	w->tick_moved = 0;
	w->open = true;
	for (n = 1; n < w->geo.levels; n++) {
		u64 p = lvl_div(w, w->now, n), end;

		w->quota[n] = 0;
		if (w->drain_q[n] != p + 1) {
			/* Entries of a slot whose span has begun are lost. */
			WARN_ON_ONCE(!list_empty(&w->drain[n]));
			w->drain_q[n] = p + 1;
			/*
			 * Only on the first tick of the span: the slot can
			 * have gained nothing due in it since, only later
			 * rotations of the top level's.
			 */
			i = w->first[n] + lvl_slot(w, p + 1, n);
			if (w->now == p * w->gran[n]) {
				list_splice_tail_init(&w->slot[i],
						      &w->drain[n]);
				w->drain_left[n] = w->len[i];
			}
		}
		if (list_empty(&w->drain[n]))
			continue;
		end = (p + 1) * w->gran[n] - w->gran[n - 1];
		w->quota[n] = drain_quota(w->drain_left[n],
					  end > w->now ? end - w->now : 1);
	}
	i = w->first[0] + lvl_slot(w, w->now, 0);
	list_splice_tail_init(&w->slot[i], &w->due);
}

/*
 * Move the newest entry of level @n's drain down to level n - 1, to the
 * head of its slot there, ahead of the newer entries placed in it directly.
 * An entry of a later rotation of the hashed top level goes back to the
 * head of its own slot instead, ahead of entries armed since the drain
 * began.
 */
static void drain_one(struct twheel *w, unsigned int n)
{
	struct twheel_entry *e;
	u32 from;
	unsigned int i;

	e = list_last_entry(&w->drain[n], struct twheel_entry, node);
	from = e->slot;
	list_del(&e->node);
	if (w->drain_left[n])
		w->drain_left[n]--;
	w->tick_moved++;
	if (lvl_div(w, e->expires, n) != w->drain_q[n]) {
		list_add(&e->node, &w->slot[from]);
		w->stats.early_visits++;
		return;
	}
	/* Two slots ahead at least: level n - 1 is not draining it. */
	WARN_ON_ONCE(lvl_div(w, e->expires, n - 1) <
		     lvl_div(w, w->now, n - 1) + 2);
	slot_put(w, from);
	i = w->first[n - 1] + twheel_slot_index(w, n - 1, e->expires);
	list_add(&e->node, &w->slot[i]);
	slot_get(w, i);
	WRITE_ONCE(e->slot, i);
	w->stats.migrated++;
}

/*
 * Go on processing tick w->now, handling at most *@budget entries: run
 * what is due, then move what each level's quota allows, coarse levels
 * first.  Returns true once the tick is done.
 */
static bool run_tick(struct twheel *w, twheel_expire_fn fn, void *ctx,
		     unsigned int *budget)
{
	unsigned int n;

	/* @fn may stop other entries of the tick: take one at a time. */
	while (!list_empty(&w->due)) {
		struct twheel_entry *e;

		if (!*budget)
			return false;
		(*budget)--;
		e = list_first_entry(&w->due, struct twheel_entry, node);
		if (e->expires != w->now) {
			/* Scheme 6: due on a later rotation; back in order. */
			list_move(&e->node, w->park ?: &w->slot[e->slot]);
			w->park = &e->node;
			w->stats.early_visits++;
			w->tick_moved++;
			continue;
		}
		entry_unlink(e);
		slot_put(w, e->slot);
		WRITE_ONCE(e->slot, TWHEEL_SLOT_IDLE);
		w->count--;
		w->stats.expired++;
		fn(w, e, ctx);
	}
	w->park = NULL;

	for (n = w->geo.levels - 1; n > 0; n--) {
		while (w->quota[n] && !list_empty(&w->drain[n])) {
			if (!*budget)
				return false;
			(*budget)--;
			w->quota[n]--;
			drain_one(w, n);
		}
		if (list_empty(&w->drain[n]))
			w->drain_left[n] = 0;
	}
	return true;
}

/* twheel_advance_batch() past its fast path: a tick with work comes. */
static noinline bool advance_work(struct twheel *w, u64 to,
				  twheel_expire_fn fn, void *ctx,
				  unsigned int budget)
{
	for (;;) {
		u64 next;

		if (w->open) {
			if (!run_tick(w, fn, ctx, &budget))
				return true;
			w->open = false;
			w->stats.moved_max = max(w->stats.moved_max,
						 w->tick_moved);
		}
		/*
		 * Up to w->next the wheel has nothing to do; at it there is
		 * work, or the hint is out of date (or was for the tick just
		 * processed): find out.
		 */
		next = w->next;
		if (next <= max(w->now, to)) {
			next = twheel_next_work(w);
			w->next = next;
		}
		if (w->now >= to)
			return false;
		if (next > to) {
			w->stats.skipped += to - w->now;
			w->now = to;
			return false;
		}
		w->stats.skipped += next - w->now - 1;
		w->now = next;
		open_tick(w);
	}
}

/*
 * An advance that ends before the wheel's next tick with work (@w->next,
 * after the clock whenever no tick is open) only moves the clock.
 */
static __always_inline bool advance_idle(struct twheel *w, u64 to)
{
	if (w->open || w->next <= to)
		return false;
	if (to > w->now) {
		w->stats.skipped += to - w->now;
		w->now = to;
	}
	return true;
}

/**
 * twheel_advance_batch() - move the clock forward, a batch of work at a time
 * @w: the wheel.
 * @to: the new time.
 * @fn: called for each entry on its tick, in expiry order.
 * @ctx: passed to @fn.
 * @budget: the most entries to handle in this call: entries run, moved
 *	down a level, or looked at and left.
 *
 * As twheel_advance(), but returns once @budget entries have been handled,
 * in the middle of a tick if need be; the next call goes on from there.
 * An owner that holds a lock with interrupts off while it advances the
 * wheel drops it between calls, and so holds it for a bounded time however
 * much work a tick has.  Between calls entries may be added and deleted as
 * usual; @w->now is the tick being processed, and an entry armed then runs
 * on a later tick.
 *
 * Paper: PER TICK BOOKKEEPING, in bounded pieces.
 *
 * Context: as twheel_advance().
 * Return: true if work at or before @to remains (twheel_next_work() then
 * returns @w->now), false once the clock reads @to with nothing left.
 */
bool twheel_advance_batch(struct twheel *w, u64 to, twheel_expire_fn fn,
			  void *ctx, unsigned int budget)
{
	if (advance_idle(w, to))
		return false;
	return advance_work(w, to, fn, ctx, budget);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_advance_batch);

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
	if (advance_idle(w, to))
		return;
	while (advance_work(w, to, fn, ctx, UINT_MAX))
		;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_advance);
