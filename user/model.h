/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - the plain meaning of the wheel's API, for the user-space checks
 * (user/wheel_check.c, user/fuzz.c) to hold a wheel against.
 *
 * The model knows nothing of slots or levels.  Each entry is idle, or
 * pending with the tick it is due on and the sequence number of the call
 * that armed it last.  Pending entries run in the order of (due tick,
 * sequence number), each exactly once, on its due tick.  Arming for a
 * tick not after the clock means the next tick; arming more than
 * %TWHEEL_MAX_INTERVAL ticks ahead fails with -EINVAL and changes nothing.
 */
#ifndef _TWHEEL_USER_MODEL_H
#define _TWHEEL_USER_MODEL_H

#include <stddef.h>

#include <linux/minmax.h>
#include <linux/types.h>

#include "twheel_core.h"

/**
 * struct model_item - an entry of the wheel and what the model knows of it
 * @e: the wheel's entry.
 * @pending: armed and not yet run or deleted.
 * @due: while @pending, the tick it must run on.
 * @seq: while @pending, the sequence number of the call that armed it last.
 */
struct model_item {
	struct twheel_entry e;
	bool pending;
	u64 due;
	u64 seq;
};

/**
 * struct model - the entries a check drives, and the model's counts
 * @items: the pool of entries.
 * @nitems: entries in @items.
 * @pending: entries pending, which the wheel's count must equal.
 * @seq: the sequence number of the last arming call.
 */
struct model {
	struct model_item *items;
	unsigned int nitems;
	unsigned long pending;
	u64 seq;
};

/*
 * What arming at clock @now does: twheel_add(@val) if @rel, else
 * twheel_add_at(@val).  Returns false if the call must fail with -EINVAL;
 * else sets *@due to the tick the entry is then due on.
 */
static inline bool model_arm_due(u64 now, bool rel, u64 val, u64 *due)
{
	if (rel ? val > TWHEEL_MAX_INTERVAL :
		  val > now && val - now > TWHEEL_MAX_INTERVAL)
		return false;
	*due = max(rel ? now + val : val, now + 1);
	return true;
}

/* @it was armed, successfully, to run on @due. */
static inline void model_armed(struct model *m, struct model_item *it, u64 due)
{
	if (!it->pending)
		m->pending++;
	it->pending = true;
	it->due = due;
	it->seq = ++m->seq;
}

/* @it was deleted, or handed to the expiry function. */
static inline void model_stopped(struct model *m, struct model_item *it)
{
	if (it->pending)
		m->pending--;
	it->pending = false;
}

/* The pending item to run first, or NULL. */
static inline struct model_item *model_first(const struct model *m)
{
	struct model_item *best = NULL, *it;

	for (it = m->items; it < m->items + m->nitems; it++) {
		if (!it->pending)
			continue;
		if (!best || it->due < best->due ||
		    (it->due == best->due && it->seq < best->seq))
			best = it;
	}
	return best;
}

static inline unsigned int model_nr(const struct model *m,
				    const struct model_item *it)
{
	return it - m->items;
}

#endif /* _TWHEEL_USER_MODEL_H */
