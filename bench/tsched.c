// SPDX-License-Identifier: GPL-2.0
/*
 * tsched.c - the timer schemes of the papers behind one interface.
 *
 * Built into the benchmark module (bench/), which compares them, and into
 * the KUnit suite kunit/schemes_test.c, which proves them against one
 * reference model.  Schemes 6 and 7 are twheel's own wheels: the calls go
 * straight to twheel_core.c.  tsched.h states the contract.
 */

/**
 * DOC: the baseline schemes
 *
 * Numbered as in G. Varghese and T. Lauck, "Hashed and Hierarchical Timing
 * Wheels" (SOSP 1987; IEEE/ACM ToN 1997), with the costs the paper gives
 * for n pending entries:
 *
 *  ===========================  ===========  ========  ==================
 *  scheme                       start        stop      per tick
 *  ===========================  ===========  ========  ==================
 *  1 unordered list             O(1)         O(1)      O(n): scan all
 *  2 ordered list               O(n)         O(1)      O(1): the head
 *  3 balanced tree (rbtree)     O(log n)     O(log n)  O(1): leftmost
 *  4 one slot per tick          O(1)         O(1)      O(1), MaxInterval
 *  5 hashed wheel, sorted       O(n/M) avg   O(1)      O(1)
 *  Lawn (Lev-Libfeld)           O(1)         O(1)      O(t), t TTLs in use
 *  ===========================  ===========  ========  ==================
 *
 * Every scheme keeps an entry's absolute due tick, as twheel does, where the
 * paper decrements a count: the cost of a tick is the same (Scheme 1 still
 * looks at every entry), and the clock may jump.  Scheme 4 refuses intervals
 * of MaxInterval = slots ticks or more, as the paper's does.
 *
 * The Timer Lawn (Y. Lev-Libfeld, "Timer Lawn: Unbound Low Latency Timer
 * Data Structure for Large Scale, High Throughput Systems") hashes entries
 * by their TTL, the interval they were armed with, into FIFO queues: all
 * entries of one queue share a TTL, so each queue is in expiry order by
 * arrival alone, and a tick looks at the head of every queue.  Empty queues
 * are freed, as in the paper; a queue is allocated (%GFP_ATOMIC) the first
 * time its TTL is used.
 *
 * Entries due on one tick run in the order they were last armed, in every
 * scheme: list schemes append in arming order, the sorted ones break ties
 * with a sequence number, and the Lawn merges its queues' heads by it.
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/list_sort.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "tsched.h"

/* twheel_entry.slot of an entry pending in a scheme without slot numbers. */
#define TSCHED_LISTED		0

#define LAWN_HASH_BITS		10

/**
 * struct tsched_queue - one Lawn queue: the pending entries of one TTL
 * @ttl: the interval its entries were armed with.
 * @entries: in arming order, hence in expiry order.
 * @link: in tsched.queues.
 * @hash: in tsched.hash.
 */
struct tsched_queue {
	u64 ttl;
	struct list_head entries;
	struct list_head link;
	struct hlist_node hash;
};

static struct tsched_entry *to_entry(struct list_head *node)
{
	return list_entry(node, struct tsched_entry, w.node);
}

static bool wheel_scheme(const struct tsched *s)
{
	return s->scheme == TSCHED_HASHED || s->scheme == TSCHED_HIERARCHY;
}

/* Does @a run before @b, both due on one tick or compared by due tick? */
static bool runs_before(const struct tsched_entry *a,
			const struct tsched_entry *b)
{
	if (a->w.expires != b->w.expires)
		return a->w.expires < b->w.expires;
	return a->seq < b->seq;
}

const char *tsched_name(enum tsched_scheme scheme)
{
	switch (scheme) {
	case TSCHED_UNORDERED:
		return "scheme1";
	case TSCHED_ORDERED:
		return "scheme2";
	case TSCHED_TREE:
		return "scheme3";
	case TSCHED_WHEEL:
		return "scheme4";
	case TSCHED_HASHED_SORTED:
		return "scheme5";
	case TSCHED_HASHED:
		return "scheme6";
	case TSCHED_HIERARCHY:
		return "scheme7";
	case TSCHED_LAWN:
		return "lawn";
	}
	return "?";
}

/**
 * tsched_init() - build an empty structure
 * @s: the structure.
 * @cfg: its scheme and shape.
 * @now: the tick its clock starts at.
 *
 * Context: process context; allocates with %GFP_KERNEL.
 * Return: %0, -%EINVAL for a configuration the scheme cannot take, or
 * -%ENOMEM.
 */
int tsched_init(struct tsched *s, const struct tsched_config *cfg, u64 now)
{
	unsigned int i, n = cfg->slots;

	memset(s, 0, sizeof(*s));
	s->scheme = cfg->scheme;
	s->now = now;
	s->max_interval = TWHEEL_MAX_INTERVAL;
	INIT_LIST_HEAD(&s->due);

	switch (cfg->scheme) {
	case TSCHED_UNORDERED:
	case TSCHED_ORDERED:
		INIT_LIST_HEAD(&s->list);
		return 0;
	case TSCHED_TREE:
		s->tree = RB_ROOT_CACHED;
		return 0;
	case TSCHED_WHEEL:
	case TSCHED_HASHED_SORTED:
		if (n < TWHEEL_MIN_SLOTS || n > TWHEEL_MAX_SLOTS * 16 ||
		    (cfg->scheme == TSCHED_HASHED_SORTED && !is_power_of_2(n)))
			return -EINVAL;
		if (cfg->scheme == TSCHED_WHEEL)
			s->max_interval = n - 1;
		s->slot = kvmalloc_array(n, sizeof(*s->slot), GFP_KERNEL);
		if (!s->slot)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			INIT_LIST_HEAD(&s->slot[i]);
		s->nslots = n;
		return 0;
	case TSCHED_HASHED:
	case TSCHED_HIERARCHY:
		if (cfg->geo.scheme != (cfg->scheme == TSCHED_HASHED ?
					TWHEEL_SCHEME6 : TWHEEL_SCHEME7))
			return -EINVAL;
		return twheel_init(&s->wheel, &cfg->geo, now);
	case TSCHED_LAWN:
		INIT_LIST_HEAD(&s->queues);
		s->hash_bits = LAWN_HASH_BITS;
		s->hash = kvcalloc(1U << s->hash_bits, sizeof(*s->hash),
				   GFP_KERNEL);
		return s->hash ? 0 : -ENOMEM;
	}
	return -EINVAL;
}

/**
 * tsched_destroy() - free an empty structure
 * @s: the structure, with no entry pending.
 *
 * Context: process context.
 */
void tsched_destroy(struct tsched *s)
{
	struct tsched_queue *q, *tmp;

	if (wheel_scheme(s)) {
		twheel_destroy(&s->wheel);
		return;
	}
	WARN_ON_ONCE(s->count);
	switch (s->scheme) {
	case TSCHED_WHEEL:
	case TSCHED_HASHED_SORTED:
		kvfree(s->slot);
		s->slot = NULL;
		break;
	case TSCHED_LAWN:
		list_for_each_entry_safe(q, tmp, &s->queues, link)
			kfree(q);
		INIT_LIST_HEAD(&s->queues);
		kvfree(s->hash);
		s->hash = NULL;
		break;
	default:
		break;
	}
}

/**
 * tsched_entry_init() - make an entry idle
 * @e: the entry.
 */
void tsched_entry_init(struct tsched_entry *e)
{
	twheel_entry_init(&e->w);
	RB_CLEAR_NODE(&e->rb);
	e->seq = 0;
	e->queue = NULL;
}

u64 tsched_now(const struct tsched *s)
{
	return wheel_scheme(s) ? s->wheel.now : s->now;
}

unsigned long tsched_count(const struct tsched *s)
{
	return wheel_scheme(s) ? s->wheel.count : s->count;
}

const struct twheel_stats *tsched_stats(const struct tsched *s)
{
	return wheel_scheme(s) ? &s->wheel.stats : &s->stats;
}

/* ---- the Lawn's queues ------------------------------------------------ */

static struct hlist_head *lawn_bucket(const struct tsched *s, u64 ttl)
{
	return &s->hash[hash_64(ttl, s->hash_bits)];
}

/* The queue of @ttl, made if there is none; %NULL if out of memory. */
static struct tsched_queue *lawn_queue(struct tsched *s, u64 ttl)
{
	struct hlist_head *b = lawn_bucket(s, ttl);
	struct tsched_queue *q;

	hlist_for_each_entry(q, b, hash)
		if (q->ttl == ttl)
			return q;
	q = kmalloc(sizeof(*q), GFP_ATOMIC);
	if (!q)
		return NULL;
	q->ttl = ttl;
	INIT_LIST_HEAD(&q->entries);
	list_add_tail(&q->link, &s->queues);
	hlist_add_head(&q->hash, b);
	return q;
}

/* Free @q if it has emptied, unless it is @keep. */
static void lawn_queue_put(struct tsched_queue *q, struct tsched_queue *keep)
{
	if (q == keep || !list_empty(&q->entries))
		return;
	list_del(&q->link);
	hlist_del(&q->hash);
	kfree(q);
}

/* ---- start and stop --------------------------------------------------- */

/* Take @e, pending and not due on the tick being processed, off its list. */
static void unlink_pending(struct tsched *s, struct tsched_entry *e,
			   struct tsched_queue *keep)
{
	switch (s->scheme) {
	case TSCHED_TREE:
		rb_erase_cached(&e->rb, &s->tree);
		RB_CLEAR_NODE(&e->rb);
		break;
	case TSCHED_LAWN:
		list_del_init(&e->w.node);
		lawn_queue_put(e->queue, keep);
		e->queue = NULL;
		break;
	default:
		list_del_init(&e->w.node);
		break;
	}
}

/* tsched_del() of the schemes other than 6 and 7, sparing queue @keep. */
static bool del_keeping(struct tsched *s, struct tsched_entry *e,
			struct tsched_queue *keep)
{
	if (e->w.slot == TWHEEL_SLOT_IDLE)
		return false;
	if (e->w.slot == TSCHED_SLOT_EXPIRED)
		list_del_init(&e->w.node);
	else
		unlink_pending(s, e, keep);
	WRITE_ONCE(e->w.slot, TWHEEL_SLOT_IDLE);
	s->count--;
	return true;
}

/**
 * tsched_due() - is the entry due on the tick being processed?
 * @s: the structure.
 * @e: the entry.
 *
 * Return: true if @e is pending, due on the tick being processed and not
 * yet handed to the expiry function.
 */
bool tsched_due(const struct tsched *s, const struct tsched_entry *e)
{
	if (wheel_scheme(s))
		return twheel_entry_due(&s->wheel, &e->w);
	return e->w.slot == TSCHED_SLOT_EXPIRED;
}

/**
 * tsched_del() - stop an entry
 * @s: the structure.
 * @e: the entry.
 *
 * Return: true if @e was pending (due on the tick being processed and not
 * yet handed over counts) and will now not expire, false if it was idle.
 */
bool tsched_del(struct tsched *s, struct tsched_entry *e)
{
	if (wheel_scheme(s))
		return twheel_del(&s->wheel, &e->w);
	return del_keeping(s, e, NULL);
}

/* Insert @e into @head, kept sorted by (due tick, arming order). */
static void insert_sorted(struct list_head *head, struct tsched_entry *e)
{
	struct list_head *pos;

	list_for_each(pos, head)
		if (runs_before(e, to_entry(pos)))
			break;
	list_add_tail(&e->w.node, pos);
}

static void tree_insert(struct tsched *s, struct tsched_entry *e)
{
	struct rb_node **link = &s->tree.rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (runs_before(e, rb_entry(parent, struct tsched_entry, rb))) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&e->rb, parent, link);
	rb_insert_color_cached(&e->rb, &s->tree, leftmost);
}

static u32 slot_of(const struct tsched *s, u64 tick)
{
	u32 rem;

	if (s->scheme == TSCHED_HASHED_SORTED)
		return tick & (s->nslots - 1);
	div_u64_rem(tick, s->nslots, &rem);
	return rem;
}

/**
 * tsched_add() - arm an entry, re-arming it if it is pending
 * @s: the structure.
 * @e: the entry, initialised by tsched_entry_init().
 * @interval: ticks from tsched_now(); %0 is taken as %1.
 *
 * Context: any; the Lawn allocates a queue with %GFP_ATOMIC.
 * Return: %1 if @e was pending (and is now re-armed), %0 if it was idle,
 * -%EINVAL with nothing changed if @interval exceeds the scheme's longest,
 * -%ENOMEM with nothing changed if the Lawn has no memory for a new queue.
 */
int tsched_add(struct tsched *s, struct tsched_entry *e, u64 interval)
{
	struct tsched_queue *q = NULL;
	bool pending;

	if (wheel_scheme(s))
		return twheel_add(&s->wheel, &e->w, interval);
	if (interval > s->max_interval)
		return -EINVAL;
	interval = max_t(u64, interval, 1);
	if (s->scheme == TSCHED_LAWN) {
		/* The new queue first, so that a failure changes nothing. */
		q = lawn_queue(s, interval);
		if (!q)
			return -ENOMEM;
	}
	/* Keep @q, should @e be the only entry of its own queue. */
	pending = del_keeping(s, e, q);
	e->w.expires = s->now + interval;
	e->seq = ++s->seq;
	WRITE_ONCE(e->w.slot, TSCHED_LISTED);
	s->count++;

	switch (s->scheme) {
	case TSCHED_UNORDERED:
		list_add_tail(&e->w.node, &s->list);
		break;
	case TSCHED_ORDERED:
		insert_sorted(&s->list, e);
		break;
	case TSCHED_TREE:
		tree_insert(s, e);
		break;
	case TSCHED_WHEEL:
		e->w.slot = slot_of(s, e->w.expires);
		list_add_tail(&e->w.node, &s->slot[e->w.slot]);
		break;
	case TSCHED_HASHED_SORTED:
		e->w.slot = slot_of(s, e->w.expires);
		insert_sorted(&s->slot[e->w.slot], e);
		break;
	case TSCHED_LAWN:
		list_add_tail(&e->w.node, &q->entries);
		e->queue = q;
		break;
	default:
		break;
	}
	return pending;
}

/* ---- expiry ----------------------------------------------------------- */

/* Move @e, due on the tick being processed, to the end of s->due. */
static void make_due(struct tsched *s, struct tsched_entry *e)
{
	list_move_tail(&e->w.node, &s->due);
	WRITE_ONCE(e->w.slot, TSCHED_SLOT_EXPIRED);
}

/* Hand over s->due one entry at a time: @fn may stop the others. */
static void run_due(struct tsched *s, tsched_expire_fn fn, void *ctx)
{
	s->stats.ticks++;
	while (!list_empty(&s->due)) {
		struct tsched_entry *e = to_entry(s->due.next);

		list_del_init(&e->w.node);
		WRITE_ONCE(e->w.slot, TWHEEL_SLOT_IDLE);
		s->count--;
		s->stats.expired++;
		fn(s, e, ctx);
	}
}

/* Scheme 1: every step looks at every entry for the earliest. */
static void advance_unordered(struct tsched *s, u64 to, tsched_expire_fn fn,
			      void *ctx)
{
	struct tsched_entry *e, *tmp;

	while (s->now < to) {
		u64 next = U64_MAX;

		list_for_each_entry(e, &s->list, w.node)
			next = min(next, e->w.expires);
		if (next > to) {
			s->stats.early_visits += s->count;
			break;
		}
		s->now = next;
		/* The list is in arming order: so is s->due. */
		list_for_each_entry_safe(e, tmp, &s->list, w.node) {
			if (e->w.expires == next)
				make_due(s, e);
			else
				s->stats.early_visits++;
		}
		run_due(s, fn, ctx);
	}
}

/* Schemes 2 and 3: the earliest entry is at hand. */
static struct tsched_entry *first_sorted(struct tsched *s)
{
	struct rb_node *rb;

	if (s->scheme == TSCHED_ORDERED)
		return list_first_entry_or_null(&s->list, struct tsched_entry,
						w.node);
	rb = rb_first_cached(&s->tree);
	return rb ? rb_entry(rb, struct tsched_entry, rb) : NULL;
}

static void advance_sorted(struct tsched *s, u64 to, tsched_expire_fn fn,
			   void *ctx)
{
	struct tsched_entry *e;

	for (;;) {
		e = first_sorted(s);
		if (!e || e->w.expires > to)
			break;
		s->now = e->w.expires;
		do {
			if (s->scheme == TSCHED_TREE) {
				rb_erase_cached(&e->rb, &s->tree);
				RB_CLEAR_NODE(&e->rb);
				list_add_tail(&e->w.node, &s->due);
				WRITE_ONCE(e->w.slot, TSCHED_SLOT_EXPIRED);
			} else {
				make_due(s, e);
			}
			e = first_sorted(s);
		} while (e && e->w.expires == s->now);
		run_due(s, fn, ctx);
	}
}

/*
 * Scheme 4: one step per tick.  Every interval is shorter than the wheel,
 * so the slot of the tick holds the entries due on it and no others.  Once
 * nothing is pending the clock jumps.
 */
static void advance_wheel(struct tsched *s, u64 to, tsched_expire_fn fn,
			  void *ctx)
{
	struct tsched_entry *e, *tmp;
	struct list_head *slot;

	while (s->now < to && s->count) {
		slot = &s->slot[slot_of(s, ++s->now)];
		if (list_empty(slot)) {
			s->stats.skipped++;
			continue;
		}
		list_for_each_entry_safe(e, tmp, slot, w.node) {
			WARN_ON_ONCE(e->w.expires != s->now);
			make_due(s, e);
		}
		run_due(s, fn, ctx);
	}
}

/*
 * Scheme 5: one step per tick, taking the due entries off the head of the
 * tick's sorted slot.  A jump longer than the wheel first finds the
 * earliest entry among the slots' heads.
 */
static void advance_hashed_sorted(struct tsched *s, u64 to,
				  tsched_expire_fn fn, void *ctx)
{
	struct tsched_entry *e;
	struct list_head *slot;
	unsigned int i;

	while (s->now < to && s->count) {
		if (to - s->now > s->nslots) {
			u64 next = U64_MAX;

			for (i = 0; i < s->nslots; i++)
				if (!list_empty(&s->slot[i]))
					next = min(next,
						   to_entry(s->slot[i].next)->w.expires);
			if (next > to)
				break;
			/* An entry left behind its tick would turn the clock back. */
			if (WARN_ON_ONCE(next <= s->now))
				break;
			s->stats.skipped += next - 1 - s->now;
			s->now = next - 1;
		}
		slot = &s->slot[slot_of(s, ++s->now)];
		while (!list_empty(slot)) {
			e = to_entry(slot->next);
			if (e->w.expires != s->now)
				break;
			make_due(s, e);
		}
		if (list_empty(&s->due))
			s->stats.skipped++;
		else
			run_due(s, fn, ctx);
	}
}

static int seq_cmp(void *priv, const struct list_head *a,
		   const struct list_head *b)
{
	return to_entry((struct list_head *)a)->seq >
	       to_entry((struct list_head *)b)->seq;
}

/*
 * The Lawn: each step looks at the head of every queue for the earliest
 * tick, then takes the entries due on it off the heads and merges them in
 * arming order.  Queues that empty are freed.
 */
static void advance_lawn(struct tsched *s, u64 to, tsched_expire_fn fn,
			 void *ctx)
{
	struct tsched_queue *q, *tmp;
	struct tsched_entry *e;

	while (s->now < to) {
		u64 next = U64_MAX;

		list_for_each_entry(q, &s->queues, link)
			next = min(next, to_entry(q->entries.next)->w.expires);
		if (next > to)
			break;
		s->now = next;
		list_for_each_entry_safe(q, tmp, &s->queues, link) {
			while (!list_empty(&q->entries)) {
				e = to_entry(q->entries.next);
				if (e->w.expires != next)
					break;
				make_due(s, e);
				e->queue = NULL;
			}
			if (list_empty(&q->entries))
				lawn_queue_put(q, NULL);
			else
				s->stats.early_visits++;
		}
		list_sort(NULL, &s->due, seq_cmp);
		run_due(s, fn, ctx);
	}
}

/* Schemes 6 and 7: twheel's expiry function calls the caller's. */
struct wheel_call {
	struct tsched *s;
	tsched_expire_fn fn;
	void *ctx;
};

static void wheel_expire(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	struct wheel_call *call = ctx;

	call->fn(call->s, container_of(e, struct tsched_entry, w), call->ctx);
}

/**
 * tsched_advance() - move the clock forward, expiring what comes due
 * @s: the structure.
 * @to: the new time; nothing happens if it is not after tsched_now().
 * @fn: called for each entry on its tick, in expiry order.
 * @ctx: passed to @fn.
 *
 * As twheel_advance(): an entry that @fn arms for a tick not after @to
 * expires within this call.
 */
void tsched_advance(struct tsched *s, u64 to, tsched_expire_fn fn, void *ctx)
{
	struct wheel_call call = { .s = s, .fn = fn, .ctx = ctx };

	switch (s->scheme) {
	case TSCHED_UNORDERED:
		advance_unordered(s, to, fn, ctx);
		break;
	case TSCHED_ORDERED:
	case TSCHED_TREE:
		advance_sorted(s, to, fn, ctx);
		break;
	case TSCHED_WHEEL:
		advance_wheel(s, to, fn, ctx);
		break;
	case TSCHED_HASHED_SORTED:
		advance_hashed_sorted(s, to, fn, ctx);
		break;
	case TSCHED_HASHED:
	case TSCHED_HIERARCHY:
		twheel_advance(&s->wheel, to, wheel_expire, &call);
		return;
	case TSCHED_LAWN:
		advance_lawn(s, to, fn, ctx);
		break;
	}
	s->now = max(s->now, to);
}
