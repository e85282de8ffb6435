/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel.h - callouts on timing wheels, for client modules.
 *
 * Two interfaces, both from the BSD callout redesign that Varghese and Lauck
 * describe (Costello's implementation of Scheme 6): a caller-owned handle,
 * &struct callout, set up by callout_init() and armed and cancelled by
 * setcallout(), unsetcallout() and their kin, in O(1); and BSD's
 * timeout(func, arg, ticks) and untimeout(func, arg), which need no
 * handle.  What each call does, where it may be called and what it
 * returns is its kernel-doc: below for the inline ones, else beside its
 * definition (twheel_callout.c, twheel_bsd.c, twheel_hw.c).  docs/api.md
 * gathers them by task.
 *
 * timeout() and untimeout() are the BSD names, for BSD code; they call
 * twheel_timeout() and twheel_untimeout().  A file that has a name of its
 * own called timeout (a "static int timeout" module parameter, say)
 * defines TWHEEL_NO_BSD_NAMES before including this header and uses the
 * prefixed names; twheel_timer.h never brings the BSD names in.  Build a
 * client against twheel's Module.symvers (README.md).
 */
#ifndef _TWHEEL_H
#define _TWHEEL_H

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/spinlock_types.h>
#include <linux/stringify.h>
#include <linux/types.h>

#include "twheel_entry.h"

typedef void (*callout_func_t)(void *arg);

/**
 * struct callout - a caller-owned callout handle
 *
 * Embed it in your own structure and initialise it with callout_init()
 * before any other call.  All fields belong to twheel.
 */
struct callout {
	/* private: */
	struct twheel_entry entry;
	callout_func_t func;
	void *arg;
	u64 when;	/* the deadline in ns, or 0: the due tick's start */
#ifdef CONFIG_LOCKDEP
	struct lockdep_map lockdep_map;
#endif
};

/*
 * Flags of callout_init_flags() and callout_init_lock().  Their bits are
 * not setcallout_on()'s, so that either call refuses the other's flags
 * (-EINVAL).
 *
 * CALLOUT_RETURNUNLOCKED (lock-associated callouts only): the function
 * releases the lock itself before it returns (FreeBSD's flag of the same
 * name); twheel then leaves it alone.
 *
 * CALLOUT_PINNED: the callout stays on the CPU where it was first armed
 * (the calling CPU, or the one setcallout_on() names), whichever CPU arms
 * it again; only setcallout_on() with a CPU moves it.  If that CPU goes
 * offline, the callout moves with the others to the CPU taking it down,
 * and stays there.  Without it, every arming puts the callout on the
 * calling CPU.
 */
#define CALLOUT_RETURNUNLOCKED	0x1
#define CALLOUT_PINNED		0x2

/*
 * The owner word of a handle set up at build time: twheel's mark of an
 * initialised handle, on CPU 0 (twheel_hw.h checks it against
 * its own).
 */
#define __CALLOUT_OWNER_STATIC	0xc7000000U

/* Where a handle set up at build time is defined: its lockdep class. */
#define __CALLOUT_SITE		__FILE__ ":" __stringify(__LINE__)

#ifdef CONFIG_LOCKDEP
#define __CALLOUT_LOCKDEP_INIT						\
	.lockdep_map = STATIC_LOCKDEP_MAP_INIT(__CALLOUT_SITE, &__CALLOUT_SITE),
#else
#define __CALLOUT_LOCKDEP_INIT
#endif

/**
 * CALLOUT_INITIALIZER - a handle's value, set up at build time
 *
 * As callout_init() leaves a handle, for one with static storage; its
 * list node is not used while it is not pending.  Debug objects do not
 * track such a handle, as they do not track one on the stack.
 */
#define CALLOUT_INITIALIZER {						\
		.entry = {						\
			.slot = TWHEEL_SLOT_IDLE,			\
			.owner = __CALLOUT_OWNER_STATIC,		\
		},							\
		__CALLOUT_LOCKDEP_INIT					\
	}

/**
 * DEFINE_CALLOUT() - define a callout handle at file scope, ready for use
 * @_name: the handle's name.
 *
 * For a handle with static storage, which then needs no callout_init()
 * (as DEFINE_TIMER() for a timer_list).
 */
#define DEFINE_CALLOUT(_name)						\
	struct callout _name = CALLOUT_INITIALIZER

int __callout_init(struct callout *c, unsigned int flags, const char *name,
		   struct lock_class_key *key);

/**
 * callout_init() - make a callout handle ready for use
 * @c: the handle.
 *
 * Must come before any other call on @c, and must not be repeated while
 * @c may be pending or running: a pending @c is left as it is, and the
 * first such call is reported in the kernel log.  With lockdep, each call
 * site gets a class of its own, so that unsetcallout_sync() can teach
 * lockdep which locks the callout's function takes.
 *
 * Context: any but NMI.
 * Return: %0; -%EINVAL for a %NULL @c, -%EBUSY for a pending @c; nothing
 * changes on error.  Callers that set up their own handles may ignore it.
 */
#define callout_init(c)		callout_init_flags((c), 0)

/**
 * callout_init_flags() - callout_init(), with flags
 * @c: the handle.
 * @flags: 0, or %CALLOUT_PINNED.
 *
 * Context: any but NMI.
 * Return: as callout_init(), and -%EINVAL for an unknown flag.
 */
#define callout_init_flags(c, flags)					\
	({								\
		static struct lock_class_key __key;			\
									\
		__callout_init((c), (flags), #c, &__key);		\
	})

/**
 * struct callout_locked - a callout handle whose function runs under a lock
 * @c: the handle, for every call but callout_init_lock() and
 *	callout_init_raw_lock(): setcallout(&lc->c, ...), unsetcallout(&lc->c).
 *
 * A handle of its own type, so that a plain &struct callout (and every
 * timeout() entry) does not carry the lock pointer.
 */
struct callout_locked {
	struct callout c;
	/* private: */
	void *lock;
};

int __callout_init_lock(struct callout_locked *lc, void *lock, bool raw,
			unsigned int flags, const char *name,
			struct lock_class_key *key);

/**
 * callout_init_lock() - make a handle ready for a callout run under a lock
 * @lc: the handle; the other calls take &@lc->c.
 * @lock: a &spinlock_t that twheel takes before it calls the function and
 *	releases after it returns.
 * @flags: 0, or %CALLOUT_RETURNUNLOCKED if the function releases @lock
 *	itself, and %CALLOUT_PINNED.
 *
 * As callout_init(), and the function then always runs with @lock held.
 * What that buys: a caller that holds @lock and calls unsetcallout(c) or
 * setcallout(c, ...), c being &@lc->c, knows that the function of c's
 * previous arming will not run afterwards, even if its tick has come and
 * it waits for @lock on another CPU; the return value says whether that
 * arming was still pending, as for any callout.  FreeBSD's
 * callout_init_mtx() is the model.
 *
 * twheel takes @lock in softirq context with interrupts enabled, so every
 * other user of @lock must take it with spin_lock_bh() or
 * spin_lock_irqsave(), and none may take it in hardirq context (lockdep
 * reports both).  unsetcallout_sync(c) with @lock held would wait for a
 * function that waits for @lock: it is refused as under any spinlock, and
 * lockdep names the lock.  Before freeing @lc or @lock, call
 * unsetcallout_sync(c) without @lock held: a cancelled run may still be on
 * its way to take @lock.
 *
 * Context: any but NMI, as callout_init().
 * Return: %0; -%EINVAL with nothing changed for a %NULL @lc or @lock or an
 * unknown flag; -%EBUSY with nothing changed if &@lc->c is pending.
 */
#define callout_init_lock(lc, lock, flags)				\
	({								\
		static struct lock_class_key __key;			\
		spinlock_t *__lock = (lock);				\
									\
		__callout_init_lock((lc), __lock, false, (flags),	\
				    #lc, &__key);			\
	})

/**
 * callout_init_raw_lock() - callout_init_lock() with a &raw_spinlock_t
 * @lc: the handle; the other calls take &@lc->c.
 * @lock: the lock.
 * @flags: as for callout_init_lock().
 *
 * For a lock that must not sleep under PREEMPT_RT; everything else is as
 * for callout_init_lock().
 *
 * Context: any but NMI.
 * Return: as callout_init_lock().
 */
#define callout_init_raw_lock(lc, lock, flags)			\
	({								\
		static struct lock_class_key __key;			\
		raw_spinlock_t *__lock = (lock);			\
									\
		__callout_init_lock((lc), __lock, true, (flags),	\
				    #lc, &__key);			\
	})

/*
 * setcallout_on() flags.  CALLOUT_ABSOLUTE: @when is a time of
 * CLOCK_MONOTONIC (ktime_get()), not a delay from now.
 * CALLOUT_IF_PENDING: arm only a pending callout (mod_timer_pending());
 * one that is not stays so, and the call returns 0.
 * CALLOUT_IF_SOONER: leave a pending callout as it is, and return 1, if
 * the tick chosen for it is no later than the last the new arming's
 * range allows: it then runs no later than the new caller asks
 * (timer_reduce()).
 */
#define CALLOUT_ABSOLUTE	0x100
#define CALLOUT_IF_PENDING	0x200
#define CALLOUT_IF_SOONER	0x400

/* setcallout_on()'s @cpu for "where setcallout() would put it". */
#define CALLOUT_CPU_ANY		(-1)

int setcallout(struct callout *c, callout_func_t func, void *arg,
	       unsigned long ticks);
int setcallout_on(struct callout *c, callout_func_t func, void *arg,
		  ktime_t when, u64 precision, int cpu, unsigned int flags);
s64 callout_forward(struct callout *c, u64 period, u64 precision);
ktime_t callout_when(const struct callout *c);
int unsetcallout(struct callout *c);
int unsetcallout_sync(struct callout *c);
int unsetcallout_shutdown(struct callout *c);
bool callout_pending(const struct callout *c);
/*
 * twheel_timer.h's cancels: the sync ones, with timer_list's rules for the
 * wait; timer_shutdown()'s, which does not wait; timer_delete_sync_try()'s,
 * which cancels only a timer whose function is not running.
 */
int __twheel_timer_cancel_sync(struct callout *c, bool shut);
int __twheel_timer_shutdown(struct callout *c);
int __twheel_timer_cancel_try(struct callout *c);

/**
 * callout_remaining() - the time left before a pending callout's deadline
 * @c: the handle.
 *
 * Context: any but NMI; a snapshot, as callout_when().
 * Return: callout_when(@c) - ktime_get(), negative if the deadline has
 * passed and the function has not run yet; %KTIME_MAX if @c is not
 * pending.
 */
static inline ktime_t callout_remaining(const struct callout *c)
{
	ktime_t when = callout_when(c);

	return when == KTIME_MAX ? KTIME_MAX : ktime_sub(when, ktime_get());
}

/**
 * setcallout_ns() - arm a callout to run after a delay in nanoseconds
 * @c: the handle.
 * @func: the function to call; it runs in softirq context.
 * @arg: its argument.
 * @ns: the delay.
 *
 * Exact: @func runs no sooner than @ns after this call, against
 * ktime_get(), and, unless the machine is overloaded, within one tick
 * after that.  Otherwise as setcallout().
 *
 * Context: any but NMI.
 * Return: as setcallout_on().
 */
static inline int setcallout_ns(struct callout *c, callout_func_t func,
				void *arg, u64 ns)
{
	return setcallout_on(c, func, arg, ns_to_ktime(min_t(u64, ns, KTIME_MAX)),
			     0, CALLOUT_CPU_ANY, 0);
}

/**
 * setcallout_at() - arm a callout to run at a time of CLOCK_MONOTONIC
 * @c: the handle.
 * @func: the function to call; it runs in softirq context.
 * @arg: its argument.
 * @deadline: when, as ktime_get() tells it; a time already past runs on
 *	the next tick.
 *
 * Exact, as setcallout_ns().
 *
 * Context: any but NMI.
 * Return: as setcallout_on().
 */
static inline int setcallout_at(struct callout *c, callout_func_t func,
				void *arg, ktime_t deadline)
{
	return setcallout_on(c, func, arg, deadline, 0, CALLOUT_CPU_ANY,
			     CALLOUT_ABSOLUTE);
}

/**
 * twheel_jiffies_delay() - the delay until a jiffies deadline, in ns
 * @expires: the jiffies value, as mod_timer() takes it.
 *
 * Context: any.
 * Return: (@expires - jiffies) jiffies of %TICK_NSEC, 0 for a deadline
 * not after jiffies now, %KTIME_MAX for one too far to count in ns.
 */
static inline ktime_t twheel_jiffies_delay(unsigned long expires)
{
	long left = (long)(expires - jiffies);

	if (left <= 0)
		return 0;
	if ((unsigned long)left > KTIME_MAX / TICK_NSEC)
		return KTIME_MAX;
	return (u64)left * TICK_NSEC;
}

/**
 * setcallout_jiffies() - arm a callout for a jiffies deadline
 * @c: the handle.
 * @func: the function to call; it runs in softirq context.
 * @arg: its argument.
 * @expires: the jiffies value to wait for, as mod_timer() takes it; one
 *	not after jiffies now runs on the next tick.
 *
 * @func runs no sooner than (@expires - jiffies) jiffies of %TICK_NSEC
 * after this call, and within one tick after that; a timer_list timer
 * armed with @expires would wait for the jiffies tick after the one where
 * jiffies reaches @expires (twheel_timer.h says more).
 *
 * Context: any but NMI.
 * Return: as setcallout_on().
 */
static inline int setcallout_jiffies(struct callout *c, callout_func_t func,
				     void *arg, unsigned long expires)
{
	return setcallout_on(c, func, arg, twheel_jiffies_delay(expires), 0,
			     CALLOUT_CPU_ANY, 0);
}

int twheel_timeout(callout_func_t func, void *arg, unsigned long ticks);
int twheel_untimeout(callout_func_t func, void *arg);

u64 twheel_tick_ns(void);
unsigned long twheel_ns_to_ticks(u64 ns);

/*
 * The longest @ticks setcallout() and timeout() take: 2^61 - 1 on 64-bit,
 * far beyond any tick length's useful range, and far enough from U64_MAX
 * that adding the current tick cannot wrap.
 */
#define CALLOUT_MAX_TICKS	(ULONG_MAX >> 3)

#endif /* _TWHEEL_H */

/*
 * The BSD names, outside the guard above: a file that included
 * twheel_timer.h (which leaves them out) and then this header has them.
 */
#if !defined(TWHEEL_NO_BSD_NAMES) && !defined(_TWHEEL_BSD_NAMES)
#define _TWHEEL_BSD_NAMES

/**
 * timeout() - arm func(arg) after whole ticks, with no handle (BSD)
 * @func: the function.
 * @arg: its argument.
 * @ticks: as setcallout()'s.
 *
 * twheel_timeout() under its BSD name.
 *
 * Context: as twheel_timeout().
 * Return: as twheel_timeout().
 */
static inline int timeout(callout_func_t func, void *arg, unsigned long ticks)
{
	return twheel_timeout(func, arg, ticks);
}

/**
 * untimeout() - cancel one pending timeout() of func(arg) (BSD)
 * @func: the function.
 * @arg: its argument.
 *
 * twheel_untimeout() under its BSD name.
 *
 * Context: as twheel_untimeout().
 * Return: as twheel_untimeout().
 */
static inline int untimeout(callout_func_t func, void *arg)
{
	return twheel_untimeout(func, arg);
}
#endif
