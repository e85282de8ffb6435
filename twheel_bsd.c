// SPDX-License-Identifier: GPL-2.0
/*
 * The BSD interface: timeout(func, arg, ticks) and untimeout(func, arg),
 * which has no handle and finds the callout to cancel through a hash table
 * on (func, arg), as in Costello's BSD implementation of Scheme 6.
 */

/**
 * DOC: twheel timeout hash
 *
 * A &struct twheel_timeout is a callout and its links in the hash table, 64
 * bytes on x86_64 without debug options.  The table has 2^bits buckets,
 * each a chain of keys: one entry per distinct (func, arg) hashed there,
 * the key's most recently armed, linked through ->next_key.  That entry
 * holds the key's older entries behind it on its ->dups, newest first.
 * Looking up a key walks the keys of its chain, never another key's
 * duplicates.  A timeout() of a key already hashed puts the new entry in
 * the old newest one's place in the chain and the old one at the front of
 * ->dups; removing a key's newest entry puts the first of its ->dups in
 * its place.  Each is O(1) past the walk of the chain's keys.
 *
 *   bucket -> [f, a] -> [g, b] -> [h, c] -> NULL     ->next_key
 *               |                  |
 *             [f, a]             [h, c]              ->dups, newest first
 *               |
 *             [f, a]
 *
 * A chain is protected by one of %TWHEEL_HASH_LOCKS striped locks, chosen
 * by the low bits of the hash, so that a bucket and the buckets it splits
 * into in a larger table share a lock.  Each is a bit lock, taken with
 * interrupts off (stripe_lock()): inline, where a raw spinlock costs a
 * call to take it and another to release it in every timeout() and
 * untimeout(), and, interrupts being off, without bit_spin_lock()'s
 * count in the preempt count.  It is not fair, but it is held for one
 * chain's walk and one arming or cancelling at a time; lockdep follows it
 * through a map of its own.  The hash mixes func and arg with three
 * multiplications (hash_key()); it is computed once per call, and again
 * only when the entry is released or its key moved.
 *
 * The table grows, never shrinks, and it counts keys, not entries:
 * duplicates make no chain longer, so they do not make it grow.  Each
 * stripe counts the keys in its chains, under its lock.  When a stripe's
 * count rises past twice its share of the buckets, and again each time its
 * count doubles from there, it asks a work item to grow the table; the
 * work sums the stripes, and while the keys hashed exceed twice the
 * buckets, builds a table with a bucket for each key (a power of two, at
 * least twice the size) and moves the keys over, each with its
 * duplicates, one old bucket at a time, each under its stripe lock,
 * marking the old bucket moved; callers that find their old bucket moved
 * use the new table.  Then the new table is published and, after an RCU
 * grace period, the old one is freed.  A request made while the work is
 * queued is lost, but the work sizes the table for every key hashed when
 * it runs, and looks again once it has grown.  Readers hold a stripe lock
 * with interrupts off, which is an RCU read-side section.  A table whose load
 * passes the limit without any stripe crossing its share, or doubling,
 * afterwards stays as it is until one does: its chains are then near two
 * keys long, and one stripe's at most twice that.  Lookups are O(1)
 * expected, however many duplicates a key has.
 *
 * Lock order: stripe lock, then base lock (timeout() arms, untimeout()
 * cancels, with the stripe lock held and interrupts disabled once).  Once
 * an entry's function has returned, or the engine's sweep of a departing
 * module's callouts (twheel_engine_cancel_if()) has cancelled it, the
 * engine hands it back through twheel_timeout_release(), with no lock
 * held, which unhashes and frees it.  An entry is freed by whoever
 * unhashes it: untimeout() after a successful cancel, the release, or
 * twheel_timeout_cancel_if(), which twheel_timeout_exit() uses at unload.
 * While its function runs, the entry stays hashed but not pending, so
 * untimeout() passes it over, to the key's next older entry.
 *
 * twheel_timeout_cancel_if() walks a chain %TWHEEL_BATCH entries at a
 * time, and holds its place while the stripe lock is dropped with a mark:
 * an entry of no function, which timeout() never hashes (is_mark()),
 * either in the chain as a key of its own, before the key to walk next,
 * which no lookup finds, or among a key's older entries, before those to
 * walk next, which untimeout() passes over.  A key whose newest entry
 * goes from before such a mark has had none of its others walked: the
 * mark moves into the chain, before the key (key_del()).
 */

/**
 * DOC: twheel timeout free lists
 *
 * As BSD's callfree list, but one per CPU: timeout() takes an entry from
 * the calling CPU's list with interrupts off, and the free paths put
 * entries back on the list of the CPU they run on, up to
 * %TWHEEL_FREE_MAX; beyond that, and at unload, entries go back to the
 * kmem_cache (under PREEMPT_RT, from a caller that may not be preempted,
 * by way of the list and its CPU's refill work: timeout_free()).  A list
 * is touched only by its own CPU with interrupts off, so it needs no
 * lock.
 *
 * When timeout() leaves a list shorter than %TWHEEL_FREE_LOW, it queues
 * the CPU's refill work, which allocates with %GFP_KERNEL until the list
 * holds %TWHEEL_FREE_FILL, and stops early if the allocator fails.  When a
 * list is empty, timeout() allocates with %GFP_ATOMIC, interrupts as its
 * caller has them, and fails with -%ENOMEM, nothing armed, if that fails
 * too; under PREEMPT_RT, whose allocator sleeps, it does not allocate
 * where its caller may not be preempted, and fails at once.  Neither
 * allocation warns (%__GFP_NOWARN): a refill that fails leaves the atomic
 * path, and a timeout() that fails says so to its caller and in t_failed.
 * At load, every possible CPU's list is filled.
 *
 * debugfs's t_allocs counts the entries timeout() took, from its list or
 * the cache alike; t_failed counts the calls that found neither.
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/static_key.h>
#include <linux/workqueue.h>
#include <asm/processor.h>
#include <kunit/visibility.h>

#include "twheel.h"
#include "twheel_hw.h"
#include "twheel_internal.h"

#define TWHEEL_HASH_LOCK_BITS	6
#define TWHEEL_HASH_LOCKS	BIT(TWHEEL_HASH_LOCK_BITS)
#define TWHEEL_HASH_MIN_BITS	10
#define TWHEEL_HASH_MAX_BITS	24

/*
 * A bucket and the buckets it splits into share a stripe lock only while
 * the lock bits are bits of every table's index; and an index is a u32
 * hash's low bits.
 */
static_assert(TWHEEL_HASH_LOCK_BITS <= TWHEEL_HASH_MIN_BITS);
static_assert(TWHEEL_HASH_MIN_BITS <= TWHEEL_HASH_MAX_BITS);
static_assert(TWHEEL_HASH_MAX_BITS < 32);
/* A refill asked for below the low mark leaves room under the cap. */
static_assert(TWHEEL_FREE_LOW < TWHEEL_FREE_FILL);
static_assert(TWHEEL_FREE_FILL <= TWHEEL_FREE_MAX);

/**
 * struct twheel_timeout - a callout armed by timeout()
 * @c: the callout; @c.func and @c.arg are the hash key.
 * @next_key: while the newest entry of its key: the newest entry of the
 *	next key in the bucket's chain, or %NULL.
 * @dups: while the newest entry of its key: the key's older entries,
 *	newest first.
 * @dup: while an older entry of its key: its link in the newest one's
 *	@dups.
 * @free_next: link in a CPU's free list, while on one.
 *
 * An entry is its key's newest, an older one, or free, and the links of
 * the three share memory: the timeout hash's DOC block says how an entry
 * goes from one to another.
 */
struct twheel_timeout {
	struct callout c;
	union {
		struct {
			struct twheel_timeout *next_key;
			struct hlist_head dups;
		};
		struct hlist_node dup;
		struct twheel_timeout *free_next;
	};
};

/* Where a walk of a bucket's chain paused: see &struct cancel_walk. */
enum walk_place {
	WALK_START,
	WALK_CHAIN,
	WALK_DUPS,
};

/**
 * struct cancel_walk - twheel_timeout_cancel_if()'s walk of the table
 * @mark: the walk's place in the bucket it walks while the stripe lock is
 *	dropped, an entry with no function: with @place %WALK_CHAIN a key of
 *	its own in the chain, before the key to walk next; with %WALK_DUPS
 *	one of the older entries of the key (@func, @arg), before those to
 *	walk next; with %WALK_START nowhere, the bucket to be walked from its
 *	first key.  Locked by the bucket's stripe lock.
 * @place: see @mark.  key_del() sets it to %WALK_CHAIN when it moves the
 *	mark into the chain.
 * @func: with @arg, the key @mark is among the older entries of.
 * @arg: see @func.
 * @match: the walk's test of an entry.
 * @data: passed to @match.
 * @first: if not %NULL, where to store the function of the first entry
 *	cancelled.
 * @cancelled: how many were cancelled so far.
 * @spill: entries unhashed that the local CPU's list did not keep, for
 *	the walk to free with the stripe lock dropped.
 *
 * One walk at a time: the growth mutex is held.
 */
struct cancel_walk {
	struct twheel_timeout mark;
	enum walk_place place;
	callout_func_t func;
	void *arg;
	twheel_match_fn match;
	void *data;
	callout_func_t *first;
	unsigned long cancelled;
	struct twheel_timeout *spill;
};

/* A paused walk's mark: no entry timeout() hashes has a %NULL function. */
static bool is_mark(const struct twheel_timeout *t)
{
	return !t->c.func;
}

/**
 * struct twheel_htab - one size of the hash table
 * @bits: log2 of the bucket count.
 * @mask: the bucket count less one: a hash's bucket is its bits under it.
 * @stripe_max: the keys a stripe holds when the table's are twice its
 *	buckets, past which it asks to grow; %ULONG_MAX at
 *	%TWHEEL_HASH_MAX_BITS, where it never does.
 * @next: the table being grown into, or %NULL.  Set before any bucket is
 *	marked moved.
 * @moved: one bit per bucket, set once its chain is in @next.  Locked by
 *	the bucket's stripe lock.
 * @bucket: the chains of keys, each the newest entry of its first key.
 *	Each locked by its stripe lock.
 */
struct twheel_htab {
	unsigned int bits;
	u32 mask;
	unsigned long stripe_max;
	struct twheel_htab *next;
	unsigned long *moved;
	struct twheel_timeout *bucket[];
};

/**
 * struct twheel_stripe - one lock of the hash table
 * @lock: bit %TWHEEL_STRIPE_LOCKED is the lock, and no other bit is used:
 *	holding it means that the chains of every bucket whose index has
 *	these low bits, in every size of the table, are locked.
 * @keys: the keys in those chains, each counted once however many entries
 *	it has.  Locked by @lock; read without it by the growth work, for a
 *	sum.
 * @dep_map: what lockdep knows of @lock, which stripe_lock() acquires.
 */
struct twheel_stripe {
	unsigned long lock;
	unsigned long keys;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map dep_map;
#endif
} ____cacheline_aligned_in_smp;

#define TWHEEL_STRIPE_LOCKED	0

/**
 * struct twheel_free - one CPU's free entries
 * @first: the most recently freed entry; the list runs through @free_next.
 * @count: the entries on the list.
 * @refill: the work that brings @count up to %TWHEEL_FREE_FILL.
 *
 * @first and @count belong to the CPU, which changes them with interrupts
 * off; other CPUs only read @count, for statistics.
 */
struct twheel_free {
	struct twheel_timeout *first;
	unsigned int count;
	struct work_struct refill;
};

static struct kmem_cache *twheel_timeout_cache;
static struct twheel_htab __rcu *twheel_htab;
static struct twheel_stripe twheel_stripes[TWHEEL_HASH_LOCKS];
static struct twheel_free __percpu *twheel_free;
static struct lock_class_key twheel_timeout_key;
static struct lock_class_key twheel_stripe_key;
/*
 * Set once by twheel_timeout_init(): every timeout()'s precision, in ns,
 * and whether it is not 0, so that timeout() arms through an inlined
 * arming that knows it: without a range, that one has none to test for.
 */
static u64 timeout_precision;
static DEFINE_STATIC_KEY_FALSE(timeout_range);

/*
 * Holding it means that the table is not growing: twheel_htab stays
 * published and its ->next stays %NULL.  Taken by the growth work, and by
 * twheel_timeout_cancel_if(), so that its walk misses no bucket.
 */
static DEFINE_MUTEX(twheel_grow_mutex);
static void twheel_htab_grow(struct work_struct *work);
static DECLARE_WORK(twheel_grow_work, twheel_htab_grow);

/*
 * The bucket and stripe of a key are the low bits of this.  One
 * multiplication of (arg ^ hash of func) leaves those bits uneven for
 * arguments that are an array's consecutive elements, a common case (a
 * quarter of the buckets used, at one key a bucket): a shift and a second
 * multiplication spread them as random placement would.
 */
static u32 hash_key(callout_func_t func, void *arg)
{
	u64 x = ((unsigned long)arg ^ hash_64((unsigned long)func, 32)) *
		GOLDEN_RATIO_64;

	x ^= x >> 29;
	return (x * GOLDEN_RATIO_64) >> 32;
}

static struct twheel_stripe *stripe(u32 hash)
{
	return &twheel_stripes[hash & (TWHEEL_HASH_LOCKS - 1)];
}

/*
 * Take @s's lock, interrupts being off; the DOC block says why a bit lock.
 * As bit_spin_lock(), but without its preempt_disable(): with interrupts
 * off the holder cannot be preempted anyway.
 */
static __always_inline void stripe_lock(struct twheel_stripe *s)
	__acquires(s)
{
	lockdep_assert_irqs_disabled();
	while (unlikely(test_and_set_bit_lock(TWHEEL_STRIPE_LOCKED,
					      &s->lock))) {
		do {
			cpu_relax();
		} while (test_bit(TWHEEL_STRIPE_LOCKED, &s->lock));
	}
	lock_map_acquire(&s->dep_map);
}

/* Release @s's lock; @s->lock has no other bit for anyone to change. */
static __always_inline void stripe_unlock(struct twheel_stripe *s)
	__releases(s)
{
	lock_map_release(&s->dep_map);
	__clear_bit_unlock(TWHEEL_STRIPE_LOCKED, &s->lock);
}

/* stripe_lock() with interrupts saved and disabled, as spin_lock_irqsave(). */
static __always_inline unsigned long
stripe_lock_irqsave(struct twheel_stripe *s)
	__acquires(s)
{
	unsigned long flags;

	local_irq_save(flags);
	stripe_lock(s);
	return flags;
}

static __always_inline void
stripe_unlock_irqrestore(struct twheel_stripe *s, unsigned long flags)
	__releases(s)
{
	stripe_unlock(s);
	local_irq_restore(flags);
}

/*
 * The current table.  Called with a stripe lock held and interrupts off,
 * which keep the growth work from freeing it.
 */
static struct twheel_htab *htab(void)
{
	return rcu_dereference_sched(twheel_htab);
}

/*
 * The chain for @hash in @t, the current table, or, once its bucket has
 * moved, in the one being grown into.  Called under the stripe lock of
 * @hash.
 */
static inline struct twheel_timeout **chain(struct twheel_htab *t, u32 hash)
{
	lockdep_assert_held(stripe(hash));
	if (unlikely(READ_ONCE(t->next)) && test_bit(hash & t->mask, t->moved))
		t = READ_ONCE(t->next);
	return &t->bucket[hash & t->mask];
}

/*
 * The link in the chain at @link that points at the newest entry of
 * (@func, @arg), or %NULL if the key is not there.  Walks the chain's keys,
 * never their older entries, comparing arguments first: keys that share a
 * function (one per object it serves) are the common case.  Called under
 * the chain's stripe lock.
 */
static struct twheel_timeout **key_find(struct twheel_timeout **link,
					callout_func_t func, void *arg)
{
	for (; *link; link = &(*link)->next_key) {
		if ((*link)->c.arg == arg && (*link)->c.func == func)
			return link;
	}
	return NULL;
}

/*
 * Hash @t, its key set, as its key's newest entry: in the place of the
 * newest so far, which @link points at, or, if @link is %NULL, as a new
 * key at the front of the chain at @head.  Called under the chain's stripe
 * lock.
 */
static void key_add(struct twheel_timeout **head, struct twheel_timeout **link,
		    struct twheel_timeout *t)
{
	struct twheel_timeout *old;

	if (!link) {
		t->next_key = *head;
		INIT_HLIST_HEAD(&t->dups);
		*head = t;
		return;
	}
	/* old's links become @dup: take what they held first. */
	old = *link;
	t->next_key = old->next_key;
	hlist_move_list(&old->dups, &t->dups);
	hlist_add_head(&old->dup, &t->dups);
	*link = t;
}

static bool key_del_before_mark(struct twheel_timeout **link,
				struct twheel_timeout *t,
				struct twheel_timeout *mark);

/*
 * Unhash @t, an entry of the key whose newest @link points at; if @t is
 * the newest, the next older takes its place.  Called under the chain's
 * stripe lock.  Return: true if @t was the key's last entry, and the key
 * has left the chain.
 */
static inline bool key_del(struct twheel_timeout **link,
			   struct twheel_timeout *t)
{
	struct twheel_timeout *next;

	if (*link != t) {
		hlist_del(&t->dup);
		return false;
	}
	if (hlist_empty(&t->dups)) {
		*link = t->next_key;
		return true;
	}
	next = hlist_entry(t->dups.first, struct twheel_timeout, dup);
	if (unlikely(is_mark(next)))
		return key_del_before_mark(link, t, next);
	hlist_del(&next->dup);
	next->next_key = t->next_key;
	hlist_move_list(&t->dups, &next->dups);
	*link = next;
	return false;
}

/*
 * key_del() of @t, the newest entry of its key, with a paused walk's
 * @mark first among the older ones: the walk has walked @t and none of
 * the others.  @t goes as it would without the mark, and the mark moves
 * into the chain, just before the key, whose entries the walk then walks
 * from the newest; or, if @t was the last, where the key was.
 */
static bool key_del_before_mark(struct twheel_timeout **link,
				struct twheel_timeout *t,
				struct twheel_timeout *mark)
{
	struct cancel_walk *walk = container_of(mark, struct cancel_walk,
						mark);
	bool gone;

	hlist_del(&mark->dup);
	gone = key_del(link, t);
	mark->next_key = *link;
	INIT_HLIST_HEAD(&mark->dups);
	*link = mark;
	walk->place = WALK_CHAIN;
	return gone;
}

/*
 * Arm @c, set up by twheel_init_timeout() and just taken from timeout()'s
 * free list or the allocator, its function and argument set: as
 * setcallout(), with a range of @precision ns after its deadline; its
 * owner's flag tells the expiry path to hand it back.  timeout() has
 * checked @ticks, and calls it with interrupts off, under the lock of the
 * callout's hash chain.  Inline, as setcallout()'s arming is.
 */
static __always_inline int twheel_arm_timeout(struct callout *c,
					      unsigned long ticks,
					      u64 precision)
{
	struct arming a = { .cpu = CALLOUT_CPU_ANY };

	lockdep_assert_irqs_disabled();
	a.now = current_tick();
	a.first = a.now + ticks + 1;
	a.last = a.first;
	if (unlikely(precision)) {
		a.when = tick_to_ktime(a.first);
		a.last = range_last(a.when, precision);
	}
	return arm_callout(c, c->func, c->arg, &a, true);
}

/*
 * Cancel a callout allocated by timeout(), as unsetcallout(), with
 * interrupts off: the caller holds the lock of its hash chain.  Inlined
 * there, as twheel_arm_timeout().
 */
static __always_inline int twheel_cancel_timeout(struct callout *c)
{
	struct twheel_base *base;
	int ret;

	lockdep_assert_irqs_disabled();
	base = lock_callout_base_irqoff(c);
	ret = cancel_locked(base, c);
	raw_spin_unlock(&base->lock);
	return ret;
}

/*
 * Cancel the most recently armed pending entry of the key whose newest
 * @link points at, passing over any whose function is running.  Called
 * under the chain's stripe lock, with interrupts off.  Return: the entry,
 * still hashed, or %NULL if none was pending.
 */
static struct twheel_timeout *key_cancel(struct twheel_timeout **link)
{
	struct twheel_timeout *t = *link;

	if (twheel_cancel_timeout(&t->c) == 1)
		return t;
	hlist_for_each_entry(t, &(*link)->dups, dup) {
		if (!is_mark(t) && twheel_cancel_timeout(&t->c) == 1)
			return t;
	}
	return NULL;
}

/* Take an entry off @fl, the local CPU's list; interrupts are off. */
static struct twheel_timeout *free_pop(struct twheel_free *fl)
{
	struct twheel_timeout *t = fl->first;

	lockdep_assert_irqs_disabled();
	if (t) {
		fl->first = t->free_next;
		fl->count--;
	}
	return t;
}

/* Put @t on @fl, the local CPU's list, however long; interrupts are off. */
static void free_link(struct twheel_free *fl, struct twheel_timeout *t)
{
	lockdep_assert_irqs_disabled();
	t->free_next = fl->first;
	fl->first = t;
	fl->count++;
}

/*
 * Put @t on @fl, the local CPU's list, unless it is full; interrupts are
 * off.  Return: true if @t is on the list, false if the caller must free it.
 */
static bool free_push(struct twheel_free *fl, struct twheel_timeout *t)
{
	if (fl->count >= TWHEEL_FREE_MAX)
		return false;
	free_link(fl, t);
	return true;
}

/* Queue @fl's refill work, unless it is pending; interrupts are off. */
static void free_ask(struct twheel_free *fl)
{
	/* Not the locked test of queue_work_on() on every call. */
	if (!work_pending(&fl->refill))
		queue_work_on(smp_processor_id(), system_wq, &fl->refill);
}

/*
 * Empty @fl into the cache; its refill work is stopped, and nothing else
 * uses it.
 */
static void free_drain(struct twheel_free *fl)
{
	struct twheel_timeout *t, *next;

	for (t = fl->first; t; t = next) {
		next = t->free_next;
		kmem_cache_free(twheel_timeout_cache, t);
	}
	fl->first = NULL;
	fl->count = 0;
}

/*
 * A new entry from the cache, set up as a callout.  It is set up once: an
 * entry that comes back to a free list (cancelled, or its function has
 * returned) is idle with the owner flags it had, and timeout() arms it
 * again as it is, as setcallout() re-arms a handle.
 */
static struct twheel_timeout *timeout_alloc(gfp_t gfp)
{
	struct twheel_timeout *t = kmem_cache_alloc(twheel_timeout_cache, gfp);

	if (t)
		twheel_init_timeout(&t->c, "timeout", &twheel_timeout_key);
	return t;
}

/*
 * Fill the local CPU's list up to TWHEEL_FREE_FILL, with GFP_KERNEL, in
 * the calling task; stop early if the allocator fails.  The caller keeps
 * to one CPU, or does not mind which CPU's list it fills.
 */
static void free_fill(void)
{
	struct twheel_timeout *t;
	unsigned long flags;
	bool kept;

	for (;;) {
		if (raw_cpu_read(twheel_free->count) >= TWHEEL_FREE_FILL)
			return;
		t = timeout_alloc(GFP_KERNEL | __GFP_NOWARN);
		if (!t)
			return;
		local_irq_save(flags);
		kept = free_push(this_cpu_ptr(twheel_free), t);
		local_irq_restore(flags);
		if (!kept) {
			kmem_cache_free(twheel_timeout_cache, t);
			return;
		}
		cond_resched();
	}
}

/*
 * Give the local CPU's list's entries over %TWHEEL_FREE_MAX back to the
 * cache: timeout_free() left them there, where it could not free them.
 */
static void free_trim(void)
{
	struct twheel_free *fl;
	struct twheel_timeout *t;
	unsigned long flags;

	for (;;) {
		local_irq_save(flags);
		fl = this_cpu_ptr(twheel_free);
		t = fl->count > TWHEEL_FREE_MAX ? free_pop(fl) : NULL;
		local_irq_restore(flags);
		if (!t)
			return;
		kmem_cache_free(twheel_timeout_cache, t);
		cond_resched();
	}
}

/*
 * A CPU's refill work, which also trims the list.  It runs on the CPU
 * that queued it, or on another once that one has gone offline: either
 * way it works on the list of the CPU it runs on.
 */
static void free_refill(struct work_struct *work)
{
	free_trim();
	free_fill();
}

/*
 * Give back @t, an entry that no list kept, to the cache.  Under
 * PREEMPT_RT the allocator's locks sleep, so from a caller that may not be
 * preempted (untimeout() in hardirq context, say) @t goes on the local
 * list over its cap instead, and the CPU's refill work frees it.
 */
static void timeout_free(struct twheel_timeout *t)
{
	struct twheel_free *fl;
	unsigned long flags;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT) || preemptible()) {
		kmem_cache_free(twheel_timeout_cache, t);
		return;
	}
	local_irq_save(flags);
	fl = this_cpu_ptr(twheel_free);
	free_link(fl, t);
	free_ask(fl);
	local_irq_restore(flags);
}

/*
 * An entry for timeout() from @fl, the local CPU's list, or %NULL if it is
 * empty; interrupts are off.  A list left short asks for a refill.
 */
static struct twheel_timeout *timeout_get(struct twheel_free *fl)
{
	struct twheel_timeout *t = free_pop(fl);

	if (unlikely(fl->count < TWHEEL_FREE_LOW))
		free_ask(fl);
	return t;
}

/*
 * An entry for timeout() from the cache, the CPU's list being empty:
 * GFP_ATOMIC, with interrupts as the caller has them.  Under PREEMPT_RT
 * the allocator takes sleeping locks, so a caller that may not be
 * preempted (hardirq context, interrupts or preemption off, a raw
 * spinlock held) gets nothing: its timeout() has only the list.
 */
static struct twheel_timeout *timeout_alloc_atomic(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && !preemptible())
		return NULL;
	return timeout_alloc(GFP_ATOMIC | __GFP_NOWARN);
}

/*
 * Unhash @t, an entry of the key whose newest @link points at, under @s's
 * lock.  Return: true if its key has left the chain.
 */
static bool unhash(struct twheel_stripe *s, struct twheel_timeout **link,
		   struct twheel_timeout *t)
{
	lockdep_assert_held(s);
	if (!key_del(link, t))
		return false;
	s->keys--;
	return true;
}

/*
 * Unhash @t, an entry of the key whose newest @link points at, under @s's
 * lock with interrupts off, and keep it on the local CPU's list.  Return:
 * true if kept, false if the caller must free it.
 */
static bool timeout_put(struct twheel_stripe *s, struct twheel_timeout **link,
			struct twheel_timeout *t)
{
	unhash(s, link, t);
	return free_push(this_cpu_ptr(twheel_free), t);
}

static struct twheel_htab *htab_alloc(unsigned int bits)
{
	struct twheel_htab *t;

	t = kvzalloc(struct_size(t, bucket, BIT(bits)), GFP_KERNEL);
	if (!t)
		return NULL;
	t->moved = bitmap_zalloc(BIT(bits), GFP_KERNEL);
	if (!t->moved) {
		kvfree(t);
		return NULL;
	}
	t->bits = bits;
	t->mask = BIT(bits) - 1;
	t->stripe_max = bits < TWHEEL_HASH_MAX_BITS ?
			2UL << (bits - TWHEEL_HASH_LOCK_BITS) : ULONG_MAX;
	return t;
}

static void htab_free(struct twheel_htab *t)
{
	bitmap_free(t->moved);
	kvfree(t);
}

/* The keys hashed now: a sum of the stripes, each read as it is. */
static unsigned long keys_sum(void)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < TWHEEL_HASH_LOCKS; i++)
		n += READ_ONCE(twheel_stripes[i].keys);
	return n;
}

/*
 * Move every chain of @old, the published table, into @new, a larger one,
 * and publish @new; see the DOC block.  The growth mutex is held.
 */
static void htab_move(struct twheel_htab *old, struct twheel_htab *new)
{
	unsigned long flags;
	u32 b;

	/* Readers only look at ->next after seeing a moved bit. */
	WRITE_ONCE(old->next, new);
	for (b = 0; b < BIT(old->bits); b++) {
		struct twheel_stripe *s = stripe(b);
		struct twheel_timeout *t, *next;

		/*
		 * Bucket b's keys go to the new buckets whose low bits are
		 * b, all under b's stripe lock; each key goes with its older
		 * entries, and the order of a chain's keys does not matter.
		 */
		flags = stripe_lock_irqsave(s);
		for (t = old->bucket[b]; t; t = next) {
			u32 h = hash_key(t->c.func, t->c.arg);
			struct twheel_timeout **head;

			next = t->next_key;
			head = &new->bucket[h & new->mask];
			t->next_key = *head;
			*head = t;
		}
		old->bucket[b] = NULL;
		__set_bit(b, old->moved);
		stripe_unlock_irqrestore(s, flags);
		cond_resched();
	}
	rcu_assign_pointer(twheel_htab, new);
	synchronize_rcu();
	htab_free(old);
}

/*
 * Grow the table until it holds no more than two keys a bucket, each time
 * to a bucket for every key hashed: one run catches up with any burst,
 * whatever requests were lost while the work was queued or running.
 */
static void twheel_htab_grow(struct work_struct *work)
{
	struct twheel_htab *t, *new;
	unsigned long keys;

	mutex_lock(&twheel_grow_mutex);
	t = rcu_dereference_protected(twheel_htab,
				      lockdep_is_held(&twheel_grow_mutex));
	while (t->bits < TWHEEL_HASH_MAX_BITS &&
	       (keys = keys_sum()) > 2 * BIT(t->bits)) {
		new = htab_alloc(clamp_t(unsigned int, order_base_2(keys),
					 t->bits + 1, TWHEEL_HASH_MAX_BITS));
		if (!new)
			break;
		htab_move(t, new);
		t = new;
	}
	mutex_unlock(&twheel_grow_mutex);
}

/**
 * twheel_timeout() - BSD timeout(): call func(arg) after some ticks
 * @func: the function; it runs in softirq context.
 * @arg: its argument.
 * @ticks: as for setcallout().
 *
 * twheel supplies the callout, from the calling CPU's free list or the
 * allocator, and takes it back after @func has run or untimeout() has
 * cancelled it.  Several pending callouts may share @func and @arg; they
 * cost the lookups of other keys nothing.  Exact, as setcallout(), unless
 * twheel was loaded with timeout_precision_ns: then @func may run that
 * many ns after the start of its due tick, on an interrupt it shares
 * (setcallout_on()).
 *
 * Paper: START TIMER through the BSD interface, as in Costello's
 * implementation.
 *
 * Context: any, including hardirq context; allocates with %GFP_ATOMIC when
 * the CPU's free list is empty, but under PREEMPT_RT only where the caller
 * may be preempted (not in hardirq context, nor with interrupts or
 * preemption off): there it returns -%ENOMEM instead.
 * Return: %0, -%ENOMEM if the free list and the allocator were both out,
 * or -%EINVAL if @func is %NULL or @ticks is over %CALLOUT_MAX_TICKS;
 * nothing is armed on error.
 */
int twheel_timeout(callout_func_t func, void *arg, unsigned long ticks)
{
	struct twheel_timeout **head, **link;
	struct twheel_stripe *s;
	struct twheel_timeout *t;
	struct twheel_htab *tab;
	unsigned long flags;
	bool grow = false;
	int ret;
	u32 h;

	if (!func || ticks > CALLOUT_MAX_TICKS)
		return -EINVAL;
	h = hash_key(func, arg);
	s = stripe(h);

	local_irq_save(flags);
	t = timeout_get(this_cpu_ptr(twheel_free));
	if (unlikely(!t)) {
		/* Not with interrupts off: see timeout_alloc_atomic(). */
		local_irq_restore(flags);
		t = timeout_alloc_atomic();
		if (!t) {
			twheel_count_timeout_failed();
			return -ENOMEM;
		}
		local_irq_save(flags);
	}
	/* The key, in place before the entry is hashed, and what it runs. */
	t->c.func = func;
	t->c.arg = arg;

	stripe_lock(s);
	tab = htab();
	head = chain(tab, h);
	link = key_find(head, func, arg);
	key_add(head, link, t);
	/*
	 * A new key past its stripe's share, and again each time that
	 * doubles (a power of 2); duplicates do not count.
	 */
	if (!link && unlikely(++s->keys > tab->stripe_max))
		grow = is_power_of_2(s->keys - 1);
	if (static_branch_unlikely(&timeout_range))
		ret = twheel_arm_timeout(&t->c, ticks, timeout_precision);
	else
		ret = twheel_arm_timeout(&t->c, ticks, 0);
	WARN_ON_ONCE(ret < 0);
	stripe_unlock(s);
	local_irq_restore(flags);

	if (unlikely(grow))
		schedule_work(&twheel_grow_work);
	return 0;
}
EXPORT_SYMBOL_GPL(twheel_timeout);

/**
 * twheel_untimeout() - BSD untimeout(): cancel a callout of timeout()
 * @func: its function.
 * @arg: its argument.
 *
 * Of several pending callouts with this @func and @arg, the one cancelled
 * is the most recently armed.  One whose function has started running is
 * not pending, and is not waited for.
 *
 * Paper: STOP TIMER through the BSD interface: the (func, arg) hash table
 * of Costello's implementation finds the callout in O(1) expected time,
 * past the key's own entries whose functions are running.
 *
 * Context: any, including hardirq context.
 * Return: %1 if a pending callout was cancelled, %0 if none matched.
 */
int twheel_untimeout(callout_func_t func, void *arg)
{
	u32 h = hash_key(func, arg);
	struct twheel_stripe *s = stripe(h);
	struct twheel_timeout **link, *found;
	unsigned long flags;
	bool kept;

	flags = stripe_lock_irqsave(s);
	link = key_find(chain(htab(), h), func, arg);
	found = link ? key_cancel(link) : NULL;
	if (!found) {
		stripe_unlock_irqrestore(s, flags);
		return 0;
	}
	kept = timeout_put(s, link, found);
	stripe_unlock_irqrestore(s, flags);
	if (unlikely(!kept))
		timeout_free(found);
	return 1;
}
EXPORT_SYMBOL_GPL(twheel_untimeout);

/**
 * twheel_timeout_release() - take back a timeout() callout that is done
 * @c: the callout, no longer pending: its function has returned, or
 *	twheel_engine_cancel_if() cancelled it.
 *
 * The engine calls it with no lock held.  Until then @c stays hashed, not
 * pending, and untimeout() passes it over.
 *
 * Context: softirq context, from the engine's tick; process context, from
 * twheel_engine_cancel_if().
 */
void twheel_timeout_release(struct callout *c)
{
	struct twheel_timeout *t = container_of(c, struct twheel_timeout, c);
	u32 h = hash_key(c->func, c->arg);
	struct twheel_stripe *s = stripe(h);
	struct twheel_timeout **link;
	unsigned long flags;
	bool kept = false;

	flags = stripe_lock_irqsave(s);
	link = key_find(chain(htab(), h), c->func, c->arg);
	/* Hashed since timeout(): its key has at least this entry. */
	if (!WARN_ON_ONCE(!link))
		kept = timeout_put(s, link, t);
	stripe_unlock_irqrestore(s, flags);
	if (!kept && link)
		kmem_cache_free(twheel_timeout_cache, t);
}

/*
 * Keep @t, unhashed, on the local CPU's list, or if that is full push it on
 * @spill, for the caller to free; interrupts are off.
 */
static void keep_or_spill(struct twheel_timeout *t,
			  struct twheel_timeout **spill)
{
	if (free_push(this_cpu_ptr(twheel_free), t))
		return;
	t->free_next = *spill;
	*spill = t;
}

/*
 * Take @walk's mark out of the chain at @head, where it paused, and return
 * the link to the key it stood at, or before; *@pos is the older entry of
 * that key to go on from (%NULL: the key is done), or @walk->place is
 * %WALK_START, to walk the key from its newest entry.  Finding the key
 * walks the keys before it, as a lookup does.  Called under the chain's
 * stripe lock.  Return: %NULL if the walk has lost its place, which
 * key_del() should not let happen.
 */
static struct twheel_timeout **walk_resume(struct twheel_timeout **head,
					   struct cancel_walk *walk,
					   struct hlist_node **pos)
{
	struct twheel_timeout **link = head;

	*pos = NULL;
	switch (walk->place) {
	case WALK_START:
		return link;
	case WALK_CHAIN:
		while (*link && *link != &walk->mark)
			link = &(*link)->next_key;
		if (WARN_ON_ONCE(!*link))
			return NULL;
		*link = walk->mark.next_key;
		break;
	case WALK_DUPS:
		*pos = walk->mark.dup.next;
		hlist_del(&walk->mark.dup);
		link = key_find(head, walk->func, walk->arg);
		if (WARN_ON_ONCE(!link))
			return NULL;
		break;
	}
	walk->place = WALK_START;
	return link;
}

/* Leave @walk's mark in the chain at @link, before the key there. */
static void walk_pause_chain(struct twheel_timeout **link,
			     struct cancel_walk *walk)
{
	walk->mark.next_key = *link;
	INIT_HLIST_HEAD(&walk->mark.dups);
	*link = &walk->mark;
	walk->place = WALK_CHAIN;
}

/*
 * Leave @walk's mark among the older entries of the key whose newest
 * @link points at, before @pos.
 */
static void walk_pause_dups(struct twheel_timeout **link,
			    struct hlist_node *pos, struct cancel_walk *walk)
{
	hlist_add_before(&walk->mark.dup, pos);
	walk->func = (*link)->c.func;
	walk->arg = (*link)->c.arg;
	walk->place = WALK_DUPS;
}

/*
 * Offer @t, an entry of the key whose newest @link points at, to @walk's
 * test; if it accepts and @t is pending, cancel and unhash it.  Called
 * under @s's lock.  Return: true if @t was unhashed.
 */
static bool walk_offer(struct twheel_stripe *s, struct twheel_timeout **link,
		       struct twheel_timeout *t, struct cancel_walk *walk)
{
	if (!walk->match(&t->c, walk->data) ||
	    twheel_cancel_timeout(&t->c) != 1)
		return false;
	unhash(s, link, t);
	if (!walk->cancelled++ && walk->first)
		*walk->first = t->c.func;
	keep_or_spill(t, &walk->spill);
	return true;
}

/*
 * Walk bucket @b's chain in @tab on from where @walk paused, offering each
 * entry, the newest of its key first, to @walk's test: %TWHEEL_BATCH
 * entries at most, cancelled or not, in one hold of the stripe lock;
 * then leave the mark where the walk stopped.  The growth mutex is held.
 * Return: true once the whole chain is walked, and the mark is out.
 */
static bool bucket_cancel_if(struct twheel_htab *tab, u32 b,
			     struct cancel_walk *walk)
{
	struct twheel_stripe *s = stripe(b);
	unsigned int budget = TWHEEL_BATCH;
	struct twheel_timeout **link;
	struct hlist_node *pos, *next;
	unsigned long flags;
	bool newest, done = false;

	lockdep_assert_held(&twheel_grow_mutex);
	flags = stripe_lock_irqsave(s);
	newest = walk->place != WALK_DUPS;
	link = walk_resume(&tab->bucket[b], walk, &pos);
	while (link && *link) {
		if (newest) {
			if (!budget) {
				walk_pause_chain(link, walk);
				goto out;
			}
			budget--;
			/* Unhashed: what took its place is not walked yet. */
			if (walk_offer(s, link, *link, walk))
				continue;
			newest = false;
			pos = (*link)->dups.first;
		}
		for (; pos; pos = next) {
			if (!budget) {
				walk_pause_dups(link, pos, walk);
				goto out;
			}
			budget--;
			next = pos->next;
			walk_offer(s, link, hlist_entry(pos, struct twheel_timeout,
							dup), walk);
		}
		link = &(*link)->next_key;
		newest = true;
	}
	done = true;
out:
	stripe_unlock_irqrestore(s, flags);
	return done;
}

/**
 * twheel_timeout_cancel_if() - cancel the timeout() callouts a test picks
 * @match: the test; called under a stripe lock with interrupts off, it
 *	may only look at the callout (its func and arg) and @data.
 * @data: passed to @match.
 * @first: if not %NULL, set to the function of the first callout
 *	cancelled; left as it is if none is.
 *
 * Cancels and frees every pending callout armed by timeout() for which
 * @match returns true.  @match is called once for every callout hashed
 * throughout, pending or running, and may be or not for one hashed
 * meanwhile; one whose function is running is left alone, for the engine
 * to wait for, and its release to free.  The table does not grow
 * meanwhile, so that the walk misses no bucket.  Interrupts are off for
 * %TWHEEL_BATCH callouts at a time, cancelled or not, however they are
 * spread over keys and duplicates, and for a walk of the keys of the
 * chain before its place when it goes on, as a lookup walks them.
 *
 * Context: process context; sleeps.
 * Return: how many callouts were cancelled.
 */
unsigned long twheel_timeout_cancel_if(twheel_match_fn match, void *data,
				       callout_func_t *first)
{
	struct cancel_walk walk = {
		.match = match,
		.data = data,
		.first = first,
	};
	struct twheel_htab *tab;
	struct twheel_timeout *t;
	bool done;
	u32 b;

	mutex_lock(&twheel_grow_mutex);
	tab = rcu_dereference_protected(twheel_htab,
					lockdep_is_held(&twheel_grow_mutex));
	for (b = 0; b < BIT(tab->bits); b++) {
		walk.place = WALK_START;
		do {
			done = bucket_cancel_if(tab, b, &walk);
			while ((t = walk.spill)) {
				walk.spill = t->free_next;
				kmem_cache_free(twheel_timeout_cache, t);
			}
			cond_resched();
		} while (!done);
	}
	mutex_unlock(&twheel_grow_mutex);
	return walk.cancelled;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timeout_cancel_if);

/**
 * twheel_hash_read() - the size of the timeout() hash table, and its
 * longest chain
 * @bits: log2 of the bucket count.
 * @longest: the most keys in one chain, bucket by bucket under each
 *	stripe lock: what a lookup may walk.  A key's older entries are not
 *	counted.
 *
 * A statistic: taken bucket by bucket, it may straddle a growth of the
 * table, and then counts some chains in the new table.
 *
 * Context: process context.
 */
void twheel_hash_read(unsigned int *bits, unsigned long *longest)
{
	unsigned long flags;
	u32 b;

	*longest = 0;
	rcu_read_lock();
	*bits = rcu_dereference(twheel_htab)->bits;
	rcu_read_unlock();
	for (b = 0; b < BIT(*bits); b++) {
		struct twheel_stripe *s = stripe(b);
		struct twheel_timeout *t;
		unsigned long len = 0;

		flags = stripe_lock_irqsave(s);
		for (t = *chain(htab(), b); t; t = t->next_key)
			len += !is_mark(t);
		stripe_unlock_irqrestore(s, flags);
		*longest = max(*longest, len);
		if (!(b & 1023))
			cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_hash_read);

/**
 * twheel_timeout_lookup() - the callout untimeout() would try first
 * @func: its function.
 * @arg: its argument.
 *
 * For tests: the entry may be gone by the time the caller looks, so the
 * pointer is only for comparing.
 *
 * Context: any.
 * Return: the most recently armed hashed callout with @func and @arg, or
 * %NULL.
 */
const struct callout *twheel_timeout_lookup(callout_func_t func, void *arg)
{
	u32 h = hash_key(func, arg);
	struct twheel_stripe *s = stripe(h);
	const struct callout *found = NULL;
	struct twheel_timeout **link;
	unsigned long flags;

	flags = stripe_lock_irqsave(s);
	link = key_find(chain(htab(), h), func, arg);
	if (link)
		found = &(*link)->c;
	stripe_unlock_irqrestore(s, flags);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timeout_lookup);

/**
 * twheel_timeout_free_read() - one CPU's free list
 * @cpu: the CPU.
 * @first: if not %NULL, set to the callout of the entry timeout() on @cpu
 *	would take next, or %NULL.  Meaningful only when called on @cpu with
 *	the caller keeping to it.
 *
 * Context: any.
 * Return: the entries on @cpu's list.
 */
unsigned int twheel_timeout_free_read(unsigned int cpu,
				      const struct callout **first)
{
	struct twheel_free *fl = per_cpu_ptr(twheel_free, cpu);

	if (first) {
		struct twheel_timeout *t = READ_ONCE(fl->first);

		*first = t ? &t->c : NULL;
	}
	return READ_ONCE(fl->count);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_timeout_free_read);

/* What one timeout() callout takes: the callout and its hash linkage. */
size_t twheel_timeout_entry_size(void)
{
	return sizeof(struct twheel_timeout);
}

/* Free every CPU's list, its refill work stopped first. */
static void free_lists_destroy(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct twheel_free *fl = per_cpu_ptr(twheel_free, cpu);

		cancel_work_sync(&fl->refill);
		free_drain(fl);
	}
	free_percpu(twheel_free);
	twheel_free = NULL;
}

/*
 * Give every possible CPU's list TWHEEL_FREE_FILL entries.  Nothing else
 * touches the lists yet.
 */
static int free_lists_create(void)
{
	unsigned int cpu, i;

	twheel_free = alloc_percpu(struct twheel_free);
	if (!twheel_free)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		INIT_WORK(&per_cpu_ptr(twheel_free, cpu)->refill, free_refill);
	for_each_possible_cpu(cpu) {
		struct twheel_free *fl = per_cpu_ptr(twheel_free, cpu);

		for (i = 0; i < TWHEEL_FREE_FILL; i++) {
			struct twheel_timeout *t;

			t = timeout_alloc(GFP_KERNEL);
			if (!t) {
				free_lists_destroy();
				return -ENOMEM;
			}
			t->free_next = fl->first;
			fl->first = t;
			fl->count++;
		}
	}
	return 0;
}

int twheel_timeout_init(u64 precision)
{
	struct twheel_htab *t;
	unsigned int i;

	for (i = 0; i < TWHEEL_HASH_LOCKS; i++) {
		twheel_stripes[i].lock = 0;
		twheel_stripes[i].keys = 0;
		lockdep_init_map(&twheel_stripes[i].dep_map, "twheel_stripe",
				 &twheel_stripe_key, 0);
	}
	twheel_timeout_cache = KMEM_CACHE(twheel_timeout, 0);
	if (!twheel_timeout_cache)
		return -ENOMEM;
	t = htab_alloc(TWHEEL_HASH_MIN_BITS);
	if (!t || free_lists_create()) {
		if (t)
			htab_free(t);
		kmem_cache_destroy(twheel_timeout_cache);
		return -ENOMEM;
	}
	RCU_INIT_POINTER(twheel_htab, t);
	timeout_precision = precision;
	if (precision)
		static_branch_enable(&timeout_range);
	return 0;
}

static bool match_any(const struct callout *c, void *data)
{
	return true;
}

/**
 * twheel_timeout_exit() - cancel and free every timeout() callout
 *
 * What is still hashed here was armed by a client that unloaded without
 * untimeout(): it is cancelled, freed and reported, one line in all.  Then
 * the free lists go back to the cache, and the cache is destroyed.
 *
 * Context: process context, with no tick running (twheel_engine_stop()),
 * so that no entry's function runs meanwhile, and no client left to call
 * timeout().
 */
void twheel_timeout_exit(void)
{
	callout_func_t first = NULL;
	unsigned long leaked;

	cancel_work_sync(&twheel_grow_work);
	leaked = twheel_timeout_cancel_if(match_any, NULL, &first);
	if (leaked)
		pr_warn("twheel: unloading with %lu timeout() callouts still pending, the first %ps\n",
			leaked, first);
	/* With no tick, every entry was pending, and is gone. */
	WARN_ON_ONCE(keys_sum());
	htab_free(rcu_dereference_protected(twheel_htab, 1));
	RCU_INIT_POINTER(twheel_htab, NULL);
	free_lists_destroy();
	kmem_cache_destroy(twheel_timeout_cache);
}
