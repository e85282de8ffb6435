/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kind_lock.h - a lock of either kind a lock-associated callout is set up
 * with (callout_init_lock(), callout_init_raw_lock()), and the helpers
 * that set a callout up under it, take and release it, and tell whether
 * it is taken or held by the function, for the in-tree and the client
 * suites that set callouts up under locks.  lock_kinds.h has the kinds as
 * a KUnit parameter table.  Public API only, for the client suites' sake.
 */
#ifndef _TWHEEL_KUNIT_KIND_LOCK_H
#define _TWHEEL_KUNIT_KIND_LOCK_H

#include <linux/bottom_half.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <twheel.h>

/* A kind of lock, and who releases it after the function. */
struct lock_kind {
	bool raw;		/* raw_spinlock_t, else spinlock_t */
	unsigned int flags;	/* CALLOUT_RETURNUNLOCKED: the function does */
	const char *desc;
};

/*
 * A lock of one of the kinds for a &struct callout_locked: one of each
 * type, and the kind, which says whose the handle's is.
 */
struct kind_lock {
	const struct lock_kind *kind;
	spinlock_t spin;		/* the handle's, unless @kind says raw */
	raw_spinlock_t raw_spin;	/* the handle's, if @kind says raw */
};

static inline void kind_lock_init(struct kind_lock *l,
				  const struct lock_kind *kind)
{
	l->kind = kind;
	spin_lock_init(&l->spin);
	raw_spin_lock_init(&l->raw_spin);
}

/*
 * Set @lc up under @l: callout_init_lock() or callout_init_raw_lock(),
 * with the kind's flags and @flags.
 */
static inline int kind_lock_callout_init(struct callout_locked *lc,
					 struct kind_lock *l,
					 unsigned int flags)
{
	flags |= l->kind->flags;
	return l->kind->raw ? callout_init_raw_lock(lc, &l->raw_spin, flags) :
			      callout_init_lock(lc, &l->spin, flags);
}

/*
 * Take and release @l from process context, bottom halves off while it is
 * held: the function runs in softirq context, on this CPU too.
 */
static inline void kind_lock_bh(struct kind_lock *l)
{
	if (l->kind->raw)
		raw_spin_lock_bh(&l->raw_spin);
	else
		spin_lock_bh(&l->spin);
}

static inline void kind_unlock_bh(struct kind_lock *l)
{
	if (l->kind->raw)
		raw_spin_unlock_bh(&l->raw_spin);
	else
		spin_unlock_bh(&l->spin);
}

/*
 * Is the lock taken, by anyone?  Seen through a try, from a context that
 * may take it: process context with @bh (bottom halves off for the try),
 * softirq (the function) without.
 */
static inline bool spin_taken(spinlock_t *lock, bool bh)
{
	bool got = bh ? spin_trylock_bh(lock) : spin_trylock(lock);

	if (got && bh)
		spin_unlock_bh(lock);
	else if (got)
		spin_unlock(lock);
	return !got;
}

static inline bool raw_spin_taken(raw_spinlock_t *lock, bool bh)
{
	bool got = bh ? raw_spin_trylock_bh(lock) : raw_spin_trylock(lock);

	if (got && bh)
		raw_spin_unlock_bh(lock);
	else if (got)
		raw_spin_unlock(lock);
	return !got;
}

static inline bool kind_lock_taken(struct kind_lock *l, bool bh)
{
	return l->kind->raw ? raw_spin_taken(&l->raw_spin, bh) :
			      spin_taken(&l->spin, bh);
}

/*
 * In the function: @l is taken, and held by this context as lockdep sees
 * it.
 */
static inline bool kind_lock_held(struct kind_lock *l)
{
	if (l->kind->raw)
		return raw_spin_taken(&l->raw_spin, false) &&
		       lockdep_is_held_type(&l->raw_spin, -1);
	return spin_taken(&l->spin, false) &&
	       lockdep_is_held_type(&l->spin, -1);
}

/*
 * At the end of the function: release @l if the kind says the function
 * does (%CALLOUT_RETURNUNLOCKED).
 */
static inline void kind_lock_fn_return(struct kind_lock *l)
{
	if (!(l->kind->flags & CALLOUT_RETURNUNLOCKED))
		return;
	if (l->kind->raw)
		raw_spin_unlock(&l->raw_spin);
	else
		spin_unlock(&l->spin);
}

#endif /* _TWHEEL_KUNIT_KIND_LOCK_H */
