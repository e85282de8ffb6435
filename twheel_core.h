/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_core.h - the timing wheels, without a clock.
 *
 * Internal to the twheel module and its KUnit tests; client modules use
 * <twheel.h>.  twheel_core.c explains the design in its DOC: block.
 *
 * Below the declarations, the wheels' hot paths, inline: arming and
 * stopping an entry.  twheel_core.c builds twheel_add_at() and twheel_del()
 * from them, and the callout layer (twheel_hw.h) inlines them where it
 * arms and cancels a callout: a call into another file, with its entry
 * and return, cost about ten of the 400 or so instructions of an
 * unsetcallout()+setcallout() pair, and a pair made two.  One copy of the
 * code, compiled into each caller.
 */
#ifndef _TWHEEL_CORE_H
#define _TWHEEL_CORE_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/types.h>

#include "twheel_entry.h"

#define TWHEEL_MAX_LEVELS	8
#define TWHEEL_MAX_SLOTS	65536	/* per level of the geometry */
#define TWHEEL_MIN_SLOTS	2

/*
 * The fewest entries a level moves on a tick while it drains a slot, when
 * that many are left: a slot of a few entries is emptied in one tick.
 */
#define TWHEEL_DRAIN_MIN	8

/*
 * The wheel's limits in ticks, each from the one before, so that no sum the
 * wheel forms can wrap a u64.  The owner keeps the clock below
 * %TWHEEL_CLOCK_LIMIT (a clock of ns since boot divided by any tick length
 * of a microsecond or more does).  What remains of the u64 range is split
 * between the longest interval a wheel accepts and the longest span of a
 * hierarchy: a visit tick lies at most one span past an entry's interval.
 *
 * The top level of every wheel is hashed, so a hierarchy's span only bounds
 * how often an entry far ahead is looked at, not how far ahead it may be.
 */
#define TWHEEL_CLOCK_LIMIT	BIT_ULL(63)
#define TWHEEL_MAX_SPAN		((U64_MAX - TWHEEL_CLOCK_LIMIT) / 2 + 1)
#define TWHEEL_MAX_INTERVAL	TWHEEL_MAX_SPAN

enum twheel_scheme {
	TWHEEL_SCHEME6 = 6,	/* hashed wheel, unordered lists */
	TWHEEL_SCHEME7 = 7,	/* hierarchy of wheels */
};

/**
 * struct twheel_geometry - the shape of a wheel, fixed when it is created
 * @scheme: %TWHEEL_SCHEME6 or %TWHEEL_SCHEME7.
 * @levels: number of levels: 1 for Scheme 6, 2 or more for Scheme 7.
 * @slots: slots per level, finest level first.  A power of two for Scheme 6;
 *	any count from %TWHEEL_MIN_SLOTS to %TWHEEL_MAX_SLOTS for Scheme 7, so
 *	that the paper's seconds/minutes/hours/days wheel can be built.
 */
struct twheel_geometry {
	enum twheel_scheme scheme;
	unsigned int levels;
	unsigned int slots[TWHEEL_MAX_LEVELS];
};

/* Initialisers of a &struct twheel_geometry, for tables of geometries. */
#define TWHEEL_GEOMETRY6(s)						\
	{ .scheme = TWHEEL_SCHEME6, .levels = 1, .slots = { s } }
#define TWHEEL_GEOMETRY7(n, ...)					\
	{ .scheme = TWHEEL_SCHEME7, .levels = (n), .slots = { __VA_ARGS__ } }

/**
 * struct twheel_stats - what a wheel counts as it works
 * @ticks: ticks processed, one for each tick whose slots were looked at.
 * @skipped: ticks passed over because the busy-slot bitmap showed no work.
 * @migrated: entries moved to a finer level by the drains (Scheme 7).
 * @early_visits: entries looked at in a slot before they were due (the
 *	paper's "decrement the high-order bits" of Scheme 6, and the top level
 *	of Scheme 7 for intervals beyond its range).
 * @expired: entries handed to the expiry function.
 * @moved_max: the most entries moved (migrations and early visits) while
 *	processing one tick.
 */
struct twheel_stats {
	u64 ticks;
	u64 skipped;
	u64 migrated;
	u64 early_visits;
	u64 expired;
	u64 moved_max;
};

/**
 * struct twheel - a timing wheel of either scheme
 * @now: the last tick processed, or being processed while @open; entries
 *	due before it have run.
 * @next: a tick after @now on which the wheel may have work, and no later
 *	than the first on which it has: lowered as entries are armed, set
 *	exactly each time the wheel finds its next tick with work, left as it
 *	is when entries are stopped.  An advance to a tick before it is a
 *	store of the clock.
 * @count: entries pending.
 * @open: the processing of tick @now is not finished: twheel_advance_batch()
 *	ran out of budget, and the next call goes on with it.
 * @pow2: every level's slot count, and so every @gran, is a power of two.
 * @top: the top level, @geo.levels - 1.
 * @shift: log2(@gran[n]) for each n when @pow2, so that divisions become
 *	shifts.
 * @mask: @size[n] - 1 for each level when @pow2.
 * @lag: the least prefix distance from the clock an entry of each level
 *	has: 1 at level 0, 2 above it (see twheel_place()); when @pow2.
 * @level_of: when @pow2, the lowest level whose window holds every
 *	distance from the clock below 2^(i + 1), for each bit number i; marked
 *	when the level below it holds some of the distances from 2^i too (see
 *	twheel_place()).
 * @slot: the slot lists, level 0 first.
 * @len: entries of each slot, counting those taken out of its list for
 *	processing (@drain, @due) that have not left it yet.
 * @busy: one bit per slot, set while its @len is not zero: the paper's
 *	Appendix A "busy" marks, which let the wheel skip empty slots.
 * @park: while @due is processed, the last entry put back in its slot
 *	(Scheme 6: not due on this rotation); %NULL when none is.
 * @first: index in @slot of each level's first slot.
 * @size: slots of each level: twice the geometry's count below the top
 *	level of Scheme 7, so that a level holds its parent's current slot
 *	and the next one; the geometry's count at the top.
 * @gran: ticks per slot of each level; @gran[@geo.levels] is the span of
 *	the whole hierarchy as the geometry gives it.
 * @nslots: slots in all levels together.
 * @geo: the geometry it was created with.
 * @drain: of each level from 1 up, the entries of its next slot not yet
 *	moved down; their &twheel_entry.slot still names that slot.
 * @drain_q: of each level from 1 up, the prefix (@now / @gran[n] + 1 when
 *	it was taken) of the slot last taken into @drain.
 * @drain_left: of each level, at least how many entries @drain holds.
 * @quota: of each level, the entries it still moves on tick @now.
 * @due: the entries of level 0's slot for tick @now not yet processed.
 * @tick_moved: entries moved on tick @now so far.
 * @stats: see &struct twheel_stats.
 *
 * The fields that arming, stopping and an advance over a tick without work
 * read come first, so that they share a cache line or two.
 */
struct twheel {
	u64 now;
	u64 next;
	unsigned long count;
	bool open;
	bool pow2;
	u8 top;
	u8 shift[TWHEEL_MAX_LEVELS + 1];
	struct list_head *slot;
	u32 *len;
	unsigned long *busy;
	struct list_head *park;
	unsigned int first[TWHEEL_MAX_LEVELS];
	unsigned int mask[TWHEEL_MAX_LEVELS];
	u8 lag[TWHEEL_MAX_LEVELS];
	u8 level_of[64];
	unsigned int size[TWHEEL_MAX_LEVELS];
	u64 gran[TWHEEL_MAX_LEVELS + 1];
	unsigned int nslots;
	struct twheel_geometry geo;
	struct list_head drain[TWHEEL_MAX_LEVELS];
	u64 drain_q[TWHEEL_MAX_LEVELS];
	unsigned long drain_left[TWHEEL_MAX_LEVELS];
	unsigned long quota[TWHEEL_MAX_LEVELS];
	struct list_head due;
	u64 tick_moved;
	struct twheel_stats stats;
};

/**
 * twheel_lists() - how many lists a wheel keeps its entries on
 * @w: the wheel.
 *
 * Return: the number of lists twheel_list() takes.
 */
static inline unsigned int twheel_lists(const struct twheel *w)
{
	return w->geo.levels + w->nslots;
}

/**
 * twheel_list() - one of the lists a wheel keeps its entries on
 * @w: the wheel.
 * @i: below twheel_lists(@w).
 *
 * For walks by the wheel's owner, under the owner's lock: every pending
 * entry is on one of them, and twheel_del() may take it off.
 *
 * Return: @w->due for 0, @w->drain[@i] for 1 up to the top level, else
 * the slots in order, level 0 first.
 */
static inline struct list_head *twheel_list(struct twheel *w, unsigned int i)
{
	if (!i)
		return &w->due;
	if (i < w->geo.levels)
		return &w->drain[i];
	return &w->slot[i - w->geo.levels];
}

/**
 * typedef twheel_expire_fn - called for each entry as it comes due
 * @w: the wheel, whose clock reads the entry's tick.
 * @e: the entry, already idle: it may be re-armed at once.
 * @ctx: what the caller of twheel_advance() passed.
 *
 * It may add and delete entries of @w, including @e, and may drop and retake
 * the caller's lock on @w, provided nothing else advances @w meanwhile.
 */
typedef void (*twheel_expire_fn)(struct twheel *w, struct twheel_entry *e,
				 void *ctx);

/**
 * struct twheel_cursor - a walk of a wheel's entries that can pause
 * @list: the list being walked, as twheel_list() numbers them;
 *	twheel_lists() once the walk is over.
 * @mark: holds the walk's place in that list (twheel_cursor_start()).
 */
struct twheel_cursor {
	unsigned int list;
	struct twheel_entry mark;
};

int twheel_geometry_check(const struct twheel_geometry *geo);
u64 twheel_span(const struct twheel_geometry *geo);
int twheel_init(struct twheel *w, const struct twheel_geometry *geo, u64 now);
void twheel_abandon(struct twheel *w);
void twheel_destroy(struct twheel *w);
void twheel_forward(struct twheel *w, u64 now);

/**
 * struct twheel_place - where an entry goes, and when the wheel looks at it
 * @visit: the first tick on which the wheel looks at the entry.
 * @level: the level it goes to.
 * @slot: its slot, an index in &twheel.slot.
 */
struct twheel_place {
	u64 visit;
	unsigned int level;
	unsigned int slot;
};

void twheel_place(const struct twheel *w, u64 now, u64 expires,
		  struct twheel_place *pl);
unsigned int twheel_slot_index(const struct twheel *w, unsigned int level,
			       u64 expires);
u64 twheel_coalesce(u64 first, u64 last, u64 busy);

void twheel_entry_init(struct twheel_entry *e);
int twheel_add(struct twheel *w, struct twheel_entry *e, u64 interval);
int twheel_add_at(struct twheel *w, struct twheel_entry *e, u64 expires);
bool twheel_del(struct twheel *w, struct twheel_entry *e);
u64 twheel_next_work(const struct twheel *w);
u64 twheel_busy_tick(const struct twheel *w, u64 first, u64 last);
void twheel_cursor_start(struct twheel *w, struct twheel_cursor *cur);
struct twheel_entry *twheel_cursor_next(struct twheel *w,
					struct twheel_cursor *cur,
					unsigned int *budget);
void twheel_cursor_stop(struct twheel *w, struct twheel_cursor *cur);

struct twheel_entry *twheel_first(const struct twheel *w);
bool twheel_advance_batch(struct twheel *w, u64 to, twheel_expire_fn fn,
			  void *ctx, unsigned int budget);
void twheel_advance(struct twheel *w, u64 to, twheel_expire_fn fn, void *ctx);

/**
 * twheel_entry_pending() - is the entry in a slot or due to run?
 * @e: the entry.
 *
 * Return: true from twheel_add() until the entry is deleted or handed to
 * the expiry function.
 */
static inline bool twheel_entry_pending(const struct twheel_entry *e)
{
	return READ_ONCE(e->slot) != TWHEEL_SLOT_IDLE;
}

/**
 * twheel_entry_due() - is the entry due on the tick being processed?
 * @w: the wheel.
 * @e: the entry.
 *
 * Such an entry has not been handed to the expiry function yet; others due
 * on the same tick may have been.  Between calls of twheel_advance_batch()
 * that left the tick unfinished, and while the expiry function runs.
 *
 * Return: true if @e is pending and due on @w->now, whose processing is
 * under way.
 */
static inline bool twheel_entry_due(const struct twheel *w,
				    const struct twheel_entry *e)
{
	return w->open && twheel_entry_pending(e) && e->expires == w->now;
}

/**
 * twheel_next_hint() - a tick by which to look at the wheel again
 * @w: the wheel.
 *
 * As twheel_next_work(), but from what the wheel already knows, in O(1):
 * never after the tick twheel_next_work() gives, and earlier when the
 * entry that tick was for has been stopped since (an advance to it then
 * finds nothing to do, and learns the next tick with work).
 *
 * Return: @w->now if a tick is left unfinished; %U64_MAX if no entry is
 * pending; else a tick after @w->now.
 */
static inline u64 twheel_next_hint(const struct twheel *w)
{
	if (w->open)
		return w->now;
	return w->count ? w->next : U64_MAX;
}

/**
 * twheel_cursor_done() - has a walk given every entry?
 * @w: the wheel.
 * @cur: the cursor.
 *
 * Return: true once twheel_cursor_next() has passed the last list; the
 * mark is then out of the wheel, and @cur may go.
 */
static inline bool twheel_cursor_done(const struct twheel *w,
				      const struct twheel_cursor *cur)
{
	return cur->list >= twheel_lists(w);
}

/*
 * The hot paths, inline.
 */

/* &twheel.level_of: a level number, and this flag. */
#define TWHEEL_LEVEL_CHECK	0x80
static_assert(TWHEEL_MAX_LEVELS <= TWHEEL_LEVEL_CHECK);

/* Tick @t in units of level @n's slots: the clock's (or expiry's) prefix. */
static inline u64 lvl_div(const struct twheel *w, u64 t, unsigned int n)
{
	return w->pow2 ? t >> w->shift[n] : div64_u64(t, w->gran[n]);
}

/* The slot of level @n, counted from the level's first, of prefix @q. */
static inline unsigned int lvl_slot(const struct twheel *w, u64 q,
				    unsigned int n)
{
	u32 rem;

	if (w->pow2)
		return q & w->mask[n];
	div_u64_rem(q, w->size[n], &rem);
	return rem;
}

/*
 * Link @e at the tail of slot list @head, and unlink it, without the
 * checks CONFIG_DEBUG_LIST (on in Debian's kernel) adds to list_add_tail()
 * and list_del(): out-of-line calls that cost as much as the rest of a
 * stop+start pair (make bench), on the paths that arm, stop and expire.
 * kernel/time/timer.c links its buckets with hlist, which is never
 * checked; the wheels' lists are checked against a model by the KUnit
 * suites and the fuzzer instead.
 */
static inline void entry_link_tail(struct twheel_entry *e,
				   struct list_head *head)
{
	struct list_head *prev = head->prev;

	e->node.next = head;
	e->node.prev = prev;
	WRITE_ONCE(prev->next, &e->node);
	head->prev = &e->node;
}

static inline void entry_unlink(struct twheel_entry *e)
{
	struct list_head *prev = e->node.prev, *next = e->node.next;

	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}

/*
 * Slot @i gains an entry ...  The busy bit is set in plain C, not with
 * __set_bit(), whose x86 form clobbers all memory and so makes the
 * compiler reload every field of the wheel after it.
 */
static inline void slot_get(struct twheel *w, unsigned int i)
{
	if (!w->len[i]++)
		w->busy[BIT_WORD(i)] |= BIT_MASK(i);
}

/* ... or loses one. */
static inline void slot_put(struct twheel *w, unsigned int i)
{
	if (!--w->len[i])
		w->busy[BIT_WORD(i)] &= ~BIT_MASK(i);
}

/*
 * place() for a geometry that is not all powers of two: one level at a
 * time from the bottom, with divisions.
 */
static __always_inline struct twheel_place
place_any(const struct twheel *w, u64 now, u64 expires)
{
	struct twheel_place pl;
	unsigned int n;
	u64 p = now, q = expires;

	for (n = 0; n < w->top; n++) {
		u64 pp = lvl_div(w, now, n + 1), qq = lvl_div(w, expires, n + 1);

		if (qq - pp <= 1)
			break;
		p = pp;
		q = qq;
	}
	pl.level = n;
	pl.slot = w->first[n] + lvl_slot(w, q, n);
	if (n < w->top)
		pl.visit = n ? (q - 1) * w->gran[n] : q;
	else if (!n)
		pl.visit = p + 1 + lvl_slot(w, q - p - 1, 0);
	else	/* placed at level n >= 1, q is at least p + 2 */
		pl.visit = (p + 1 + lvl_slot(w, q - p - 2, n)) * w->gran[n];
	return pl;
}

/*
 * Where an entry due on @expires goes with the clock at @now, and when the
 * wheel first looks at it: twheel_place(), and every arming's placement.
 *
 * The level is the lowest n whose window holds @expires: below the top,
 * the prefixes of level n + 1 of @expires and @now differ by at most 1.
 * With d = @expires - @now and k = log2(g[n + 1]), that holds whenever
 * d <= 2^k and never when d >= 2^(k + 1): so the highest set bit of d
 * leaves two candidates, the lowest level with k at least that bit's
 * number plus one (&twheel.level_of), and the level below it, which one
 * comparison of prefixes settles when the table marks that level as one
 * that may hold the entry.  No loop, as timer.c's calc_wheel_index();
 * geometries of other slot counts take place_any().
 *
 * Below the top, the slot of level n holding prefix q comes round exactly:
 * on tick q at level 0, and at level n >= 1 it starts draining a span
 * earlier, at (q - 1) * g[n].  The hashed top level's slot comes round
 * first on the rotation that reaches it, counting from the clock's prefix
 * p (from p + 1 to the slot's own tick at level 0, from p + 2 to the slot
 * a span ahead of the drain above it).  A level below the top holds only
 * prefixes from p + 1 (level 0) or p + 2 (above it) to within its size,
 * where that rotation is the first, so one formula serves every level of
 * a geometry of powers of two.
 *
 * @hashed says the wheel has one level (Scheme 6), @pow2 is &twheel.pow2:
 * each caller passes what it has tested already, so that its copy keeps
 * one path.
 */
static __always_inline struct twheel_place
place(const struct twheel *w, bool hashed, bool pow2, u64 now, u64 expires)
{
	struct twheel_place pl;
	unsigned int n, sh;
	u64 p, q, mask;

	if (hashed) {
		/* Scheme 6: the slot of the expiry's low bits, hashed. */
		mask = w->mask[0];
		pl.level = 0;
		pl.slot = expires & mask;
		pl.visit = now + 1 + ((expires - now - 1) & mask);
		return pl;
	}
	if (!pow2)
		return place_any(w, now, expires);
	n = w->level_of[__fls((expires - now) | 1)];
	if (unlikely(n & TWHEEL_LEVEL_CHECK)) {
		n &= ~TWHEEL_LEVEL_CHECK;
		sh = w->shift[n];
		if ((expires >> sh) - (now >> sh) <= 1)
			n--;
	}
	sh = w->shift[n];
	q = expires >> sh;
	p = now >> sh;
	mask = w->mask[n];
	pl.level = n;
	pl.slot = w->first[n] + (q & mask);
	pl.visit = (p + 1 + ((q - p - w->lag[n]) & mask)) << sh;
	return pl;
}

/*
 * twheel_add_at(): place() with @hashed and @pow2 as it takes them; @idle
 * says the caller knows @e to be idle, so that its copy has no path for a
 * pending one.
 */
static __always_inline int add_at(struct twheel *w, struct twheel_entry *e,
				  u64 expires, bool hashed, bool pow2,
				  bool idle)
{
	u32 old = idle ? TWHEEL_SLOT_IDLE : e->slot;
	struct twheel_place pl;
	u64 now = w->now;

	/* One test for both: @expires not after @now wraps the distance. */
	if (unlikely(expires - now - 1 >= TWHEEL_MAX_INTERVAL)) {
		if (expires > now)
			return -EINVAL;
		expires = now + 1;
	}
	if (old != TWHEEL_SLOT_IDLE) {
		if (unlikely(w->park == &e->node))
			w->park = e->node.prev;
		entry_unlink(e);
		slot_put(w, old);
	} else {
		w->count++;
	}
	pl = place(w, hashed, pow2, now, expires);
	e->expires = expires;
	entry_link_tail(e, &w->slot[pl.slot]);
	slot_get(w, pl.slot);
	WRITE_ONCE(e->slot, pl.slot);
	if (pl.visit < w->next)
		w->next = pl.visit;
	return old != TWHEEL_SLOT_IDLE;
}

/* add_at() for a geometry not of powers of two, out of line (twheel_core.c). */
int twheel_add_at_any(struct twheel *w, struct twheel_entry *e, u64 expires);

/*
 * twheel_add_at(), for a caller that wants every path inline but the one
 * of a geometry not of powers of two.
 */
static __always_inline int __twheel_add_at(struct twheel *w,
					   struct twheel_entry *e,
					   u64 expires)
{
	if (!w->top)
		return add_at(w, e, expires, true, true, false);
	if (unlikely(!w->pow2))
		return twheel_add_at_any(w, e, expires);
	return add_at(w, e, expires, false, true, false);
}

/* twheel_del(), inline. */
static __always_inline bool __twheel_del(struct twheel *w,
					 struct twheel_entry *e)
{
	u32 i = e->slot;

	if (i == TWHEEL_SLOT_IDLE)
		return false;
	if (unlikely(w->park == &e->node))
		w->park = e->node.prev;
	entry_unlink(e);
	WRITE_ONCE(e->slot, TWHEEL_SLOT_IDLE);
	w->count--;
	slot_put(w, i);
	return true;
}

#endif /* _TWHEEL_CORE_H */
