/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_core_inline.h - arming and stopping an entry, inline.
 *
 * The wheels' hot paths, for twheel_core.c, whose twheel_add_at() and
 * twheel_del() are built from them, and for the callout layer
 * (twheel_callout_inline.h), which inlines them where it arms and cancels
 * a callout:
 * a call into another file, with its entry and return, cost about ten of
 * the 400 or so instructions of an unsetcallout()+setcallout() pair, and
 * a pair made two.  One copy of the code, compiled into each caller.
 * twheel_core.c's DOC block explains the wheels.
 */
#ifndef _TWHEEL_CORE_INLINE_H
#define _TWHEEL_CORE_INLINE_H

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/math64.h>

#include "twheel_core.h"

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

#endif /* _TWHEEL_CORE_INLINE_H */
