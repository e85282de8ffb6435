/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel.h - callouts on timing wheels, for client modules.
 *
 * Two interfaces, both from the BSD callout redesign that Varghese and Lauck
 * describe (Costello's implementation of Scheme 6):
 *
 *   callout_init()        make a caller-owned handle ready for use
 *   callout_init_lock()   the same, for a callout whose function twheel
 *                         calls with the caller's spinlock held
 *   callout_init_raw_lock()  the same, with a raw_spinlock_t
 *   callout_init_flags()  callout_init() with flags: CALLOUT_PINNED
 *   setcallout()          arm (or re-arm) a handle to run func(arg) after
 *                         whole ticks
 *   setcallout_ns()       the same, after nanoseconds, exact
 *   setcallout_at()       the same, at a CLOCK_MONOTONIC time, exact
 *   setcallout_jiffies()  the same, at a jiffies deadline (as mod_timer())
 *   setcallout_on()       all of them: relative or absolute, with a
 *                         precision that lets twheel save interrupts, on
 *                         a chosen CPU
 *   callout_forward()     re-arm a periodic callout from its last deadline
 *   callout_when()        the deadline of a pending callout
 *   callout_remaining()   the time left before it
 *   unsetcallout()        cancel a handle, O(1), never waits
 *   unsetcallout_sync()   cancel it and wait for a running func to return
 *   unsetcallout_shutdown()  that, and every later arming is a no-op
 *   callout_pending()     is a handle armed?
 *   timeout()             BSD: arm func(arg), no handle (twheel allocates)
 *   untimeout()           BSD: cancel one pending func(arg), found by hash
 *   twheel_tick_ns()      the length of one tick
 *   twheel_ns_to_ticks()  nanoseconds to ticks, rounded up
 *
 * The exported symbols carry no prefix: these are the names modules link
 * against.  Build a client against twheel's Module.symvers (README.md).
 */
#ifndef _TWHEEL_H
#define _TWHEEL_H

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/spinlock_types.h>
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
 * Flags of callout_init_flags() and callout_init_lock().
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
 */
#define CALLOUT_ABSOLUTE	0x1

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
 * setcallout_jiffies() - arm a callout for a jiffies deadline
 * @c: the handle.
 * @func: the function to call; it runs in softirq context.
 * @arg: its argument.
 * @expires: the jiffies value to wait for, as mod_timer() takes it; one
 *	not after jiffies now runs on the next tick.
 *
 * @func runs no sooner than (@expires - jiffies) jiffies of %TICK_NSEC
 * after this call, so never before a timer_list timer armed with @expires
 * would, and within one tick after that.
 *
 * Context: any but NMI.
 * Return: as setcallout_on().
 */
static inline int setcallout_jiffies(struct callout *c, callout_func_t func,
				     void *arg, unsigned long expires)
{
	long left = (long)(expires - jiffies);

	return setcallout_on(c, func, arg,
			     left > 0 ? ns_to_ktime((u64)left * TICK_NSEC) : 0,
			     0, CALLOUT_CPU_ANY, 0);
}

int timeout(callout_func_t func, void *arg, unsigned long ticks);
int untimeout(callout_func_t func, void *arg);

u64 twheel_tick_ns(void);
unsigned long twheel_ns_to_ticks(u64 ns);

/*
 * The longest @ticks setcallout() and timeout() take: 2^61 - 1 on 64-bit,
 * far beyond any tick length's useful range, and far enough from U64_MAX
 * that adding the current tick cannot wrap.
 */
#define CALLOUT_MAX_TICKS	(ULONG_MAX >> 3)

#endif /* _TWHEEL_H */
