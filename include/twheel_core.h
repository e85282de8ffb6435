/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_core.h - the timing wheels, without a clock.
 *
 * Internal to the twheel module and its KUnit tests; client modules use
 * <twheel.h>.  twheel_core.c explains the design in its DOC: block.
 */
#ifndef _TWHEEL_CORE_H
#define _TWHEEL_CORE_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/types.h>

#include "twheel_entry.h"

#define TWHEEL_MAX_LEVELS	8
#define TWHEEL_MAX_SLOTS	65536	/* per level */
#define TWHEEL_MIN_SLOTS	2

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
#define TWHEEL_MAX_INTERVAL	(TWHEEL_MAX_SPAN - 1)

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
 * @migrated: entries moved to a finer level (Scheme 7's cascades).
 * @early_visits: entries looked at in a slot before they were due (the
 *	paper's "decrement the high-order bits" of Scheme 6, and the top level
 *	of Scheme 7 for intervals beyond its range).
 * @expired: entries handed to the expiry function.
 */
struct twheel_stats {
	u64 ticks;
	u64 skipped;
	u64 migrated;
	u64 early_visits;
	u64 expired;
};

/**
 * struct twheel - a timing wheel of either scheme
 * @geo: the geometry it was created with.
 * @now: the last tick processed; entries due on or before it have run.
 * @count: entries pending in slots.
 * @nslots: slots in all levels together.
 * @first: index in @slot of each level's first slot.
 * @gran: ticks per slot of each level; @gran[@geo.levels] is the span of
 *	the whole hierarchy, the tick count after which the top level wraps.
 * @shift: log2(@gran[n]) for each n when @pow2, so that divisions become
 *	shifts.
 * @pow2: every level's slot count, and so every @gran, is a power of two.
 * @slot: the slot lists, level 0 first.
 * @busy: one bit per slot, set while its list is not empty: the paper's
 *	Appendix A "busy" marks, which let the wheel skip empty slots.
 * @stats: see &struct twheel_stats.
 */
struct twheel {
	struct twheel_geometry geo;
	u64 now;
	unsigned long count;
	unsigned int nslots;
	unsigned int first[TWHEEL_MAX_LEVELS];
	u64 gran[TWHEEL_MAX_LEVELS + 1];
	u8 shift[TWHEEL_MAX_LEVELS + 1];
	bool pow2;
	struct list_head *slot;
	unsigned long *busy;
	struct twheel_stats stats;
};

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

int twheel_geometry_check(const struct twheel_geometry *geo);
u64 twheel_span(const struct twheel_geometry *geo);
int twheel_init(struct twheel *w, const struct twheel_geometry *geo, u64 now);
void twheel_destroy(struct twheel *w);
void twheel_forward(struct twheel *w, u64 now);

unsigned int twheel_level(const struct twheel *w, u64 now, u64 expires);
unsigned int twheel_slot_index(const struct twheel *w, unsigned int level,
			       u64 expires);
u64 twheel_visit_tick(const struct twheel *w, u64 now, u64 expires);

void twheel_entry_init(struct twheel_entry *e);
int twheel_add(struct twheel *w, struct twheel_entry *e, u64 interval);
int twheel_add_at(struct twheel *w, struct twheel_entry *e, u64 expires);
bool twheel_del(struct twheel *w, struct twheel_entry *e);
u64 twheel_next_work(const struct twheel *w);
struct twheel_entry *twheel_first(const struct twheel *w);
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

#endif /* _TWHEEL_CORE_H */
