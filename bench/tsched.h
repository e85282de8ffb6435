/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsched.h - every timer scheme of the papers behind one interface, for the
 * benchmark and its differential KUnit suite.
 *
 * Schemes 1 to 5 of Varghese & Lauck and the Timer Lawn of Lev-Libfeld are
 * kept here, outside twheel.ko, as baselines; Schemes 6 and 7 are twheel's
 * own wheels (twheel_core.c), reached through the same calls.  A call
 * dispatches on the scheme with a switch, not through a function pointer,
 * so that every scheme pays the same small price for the interface and
 * none pays for an indirect call.
 *
 * The contract is twheel_core.h's, whatever the scheme: a structure is
 * driven by hand ("the time is now tick T"); an entry added with interval
 * i at clock t is due on tick t + max(i, 1); tsched_advance() hands over
 * every entry due by its target, each on its own tick, ordered by tick and
 * within a tick by the order in which the entries were last armed.  While
 * an entry's tick is being processed its clock reads that tick, and the
 * expiry function may add and delete entries, including the one it was
 * given, which is idle by then.  An entry due on the tick being processed
 * that has not been handed over yet is still pending: deleting it returns
 * true and it is not handed over.
 *
 * Not locked: the caller serialises every call on one structure.
 */
#ifndef _TSCHED_H
#define _TSCHED_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>

#include "twheel_core.h"

/*
 * A value of twheel_entry.slot, beside %TWHEEL_SLOT_IDLE, for the schemes
 * other than 6 and 7: due on the tick being processed, not handed over.
 */
#define TSCHED_SLOT_EXPIRED	(U32_MAX - 1)
static_assert(2ULL * TWHEEL_MAX_LEVELS * TWHEEL_MAX_SLOTS <
	      TSCHED_SLOT_EXPIRED);

enum tsched_scheme {
	TSCHED_UNORDERED = 1,	/* Scheme 1: unordered list */
	TSCHED_ORDERED = 2,	/* Scheme 2: list ordered by expiry */
	TSCHED_TREE = 3,	/* Scheme 3: balanced tree (rbtree) */
	TSCHED_WHEEL = 4,	/* Scheme 4: one slot per tick to MaxInterval */
	TSCHED_HASHED_SORTED = 5, /* Scheme 5: hashed wheel, sorted lists */
	TSCHED_HASHED = 6,	/* Scheme 6: twheel's hashed wheel */
	TSCHED_HIERARCHY = 7,	/* Scheme 7: twheel's hierarchical wheels */
	TSCHED_LAWN = 8,	/* Lev-Libfeld's Timer Lawn: TTL queues */
};

/**
 * struct tsched_config - what a structure is created with
 * @scheme: one of &enum tsched_scheme.
 * @slots: Scheme 4: slots, which bounds intervals to @slots - 1 ticks
 *	(the paper's MaxInterval); Scheme 5: slots, a power of two; Schemes
 *	6 and 7: @geo says.  Ignored by the others.
 * @geo: Schemes 6 and 7: the wheel's geometry.
 */
struct tsched_config {
	enum tsched_scheme scheme;
	unsigned int slots;
	struct twheel_geometry geo;
};

struct tsched_queue;

/**
 * struct tsched_entry - one timer, embedded in its owner's structure
 * @w: Schemes 6 and 7 keep the entry here.  The other schemes use its
 *	@w.node for their lists, @w.expires for the due tick and @w.slot for
 *	the state: %TWHEEL_SLOT_IDLE, %TSCHED_SLOT_EXPIRED (due on the tick
 *	being processed, not handed over yet), or any other value while
 *	pending.  tsched_due() reads that state for every scheme.
 * @rb: Scheme 3's tree node.
 * @seq: when the entry was last armed, in a count kept by the structure:
 *	orders the entries due on one tick (Schemes 2, 3, 5 and the Lawn).
 * @queue: the Lawn's queue that holds the entry.
 */
struct tsched_entry {
	struct twheel_entry w;
	struct rb_node rb;
	u64 seq;
	struct tsched_queue *queue;
};

/**
 * struct tsched - one timer structure of any scheme
 * @scheme: the scheme.
 * @now: the last tick processed (Schemes 6 and 7 keep it in @wheel.now).
 * @count: entries pending, including those due on the tick being processed
 *	(Schemes 6 and 7 keep it in @wheel.count).
 * @seq: arming count, see &struct tsched_entry.
 * @max_interval: the longest interval tsched_add() accepts.
 * @due: entries due on the tick being processed, in the order they run.
 * @stats: work counted as it is done, to set against the papers'
 *	complexity: @stats.early_visits counts entries looked at before they
 *	were due (Scheme 1's scan, Scheme 6's rounds, the Lawn's queue heads),
 *	@stats.migrated Scheme 7's cascades, @stats.ticks ticks whose slots
 *	were looked at.  Schemes 6 and 7 keep them in @wheel.stats.
 * @wheel: Schemes 6 and 7.
 * @list: Schemes 1 and 2.
 * @tree: Scheme 3.
 * @slot: Schemes 4 and 5: @nslots lists.
 * @queues: the Lawn: its non-empty queues, and @hash, @hash_bits, a table
 *	of them by TTL.
 */
struct tsched {
	enum tsched_scheme scheme;
	u64 now;
	unsigned long count;
	u64 seq;
	u64 max_interval;
	struct list_head due;
	struct twheel_stats stats;
	union {
		struct twheel wheel;
		struct list_head list;
		struct rb_root_cached tree;
		struct {
			struct list_head *slot;
			unsigned int nslots;
		};
		struct {
			struct list_head queues;
			struct hlist_head *hash;
			unsigned int hash_bits;
		};
	};
};

/**
 * typedef tsched_expire_fn - called for each entry as it comes due
 * @s: the structure, whose clock reads the entry's tick.
 * @e: the entry, already idle.
 * @ctx: what the caller of tsched_advance() passed.
 */
typedef void (*tsched_expire_fn)(struct tsched *s, struct tsched_entry *e,
				 void *ctx);

int tsched_init(struct tsched *s, const struct tsched_config *cfg, u64 now);
void tsched_destroy(struct tsched *s);
const char *tsched_name(enum tsched_scheme scheme);
void tsched_entry_init(struct tsched_entry *e);
int tsched_add(struct tsched *s, struct tsched_entry *e, u64 interval);
bool tsched_del(struct tsched *s, struct tsched_entry *e);
void tsched_advance(struct tsched *s, u64 to, tsched_expire_fn fn, void *ctx);
u64 tsched_now(const struct tsched *s);
unsigned long tsched_count(const struct tsched *s);
const struct twheel_stats *tsched_stats(const struct tsched *s);

/**
 * tsched_pending() - is the entry pending, in any scheme?
 * @e: the entry.
 *
 * Return: true from tsched_add() until the entry is deleted or handed to
 * the expiry function.
 */
static inline bool tsched_pending(const struct tsched_entry *e)
{
	return twheel_entry_pending(&e->w);
}

bool tsched_due(const struct tsched *s, const struct tsched_entry *e);

#endif /* _TSCHED_H */
