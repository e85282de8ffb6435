/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_timer.h - timer_list's interface, on twheel's callouts.
 *
 * For moving a module off struct timer_list with the least change: each
 * call of <linux/timer.h> has its twin here, with the same arguments, the
 * same return values and the same context rules, so that a conversion is
 * a change of names (scripts/twheel.cocci makes it):
 *
 *   struct timer_list            struct twheel_timer
 *   timer_setup()                twheel_timer_setup()
 *   timer_setup_on_stack()       twheel_timer_setup_on_stack()
 *   destroy_timer_on_stack(),
 *   timer_destroy_on_stack()     twheel_timer_destroy_on_stack()
 *   DEFINE_TIMER()               DEFINE_TWHEEL_TIMER()
 *   from_timer(),
 *   timer_container_of()         twheel_from_timer()
 *   mod_timer()                  twheel_mod_timer()
 *   mod_timer_pending()          twheel_mod_timer_pending()
 *   timer_reduce()               twheel_timer_reduce()
 *   add_timer()                  twheel_add_timer()
 *   add_timer_local()            twheel_add_timer_local()
 *   add_timer_global()           twheel_add_timer_global()
 *   add_timer_on()               twheel_add_timer_on()
 *   del_timer(), timer_delete()  twheel_timer_delete()
 *   del_timer_sync(),
 *   timer_delete_sync()          twheel_timer_delete_sync()
 *   try_to_del_timer_sync(),
 *   timer_delete_sync_try()      twheel_timer_delete_sync_try()
 *   timer_shutdown()             twheel_timer_shutdown()
 *   timer_shutdown_sync()        twheel_timer_shutdown_sync()
 *   timer_pending()              twheel_timer_pending()
 *
 * Each spelling in the left column is that of some supported kernel
 * (6.1, 6.12, 7.2; the first of two is the older); the twins are the
 * same on every kernel.  The rest of <linux/timer.h> is the kernel's own
 * (timer_init_key() and its kin, which timer_setup() wraps) or works on
 * jiffies values alone (round_jiffies() and its kin), and stays.
 *
 * The fields a timer's owner may use are timer_list's: @function and
 * @expires.  What differs from timer_list:
 *
 * - Exact expiry.  A timer armed for @expires runs no sooner than
 *   (@expires - jiffies) jiffies of %TICK_NSEC after the arming call,
 *   jiffies as that call reads it, nor before jiffies has reached
 *   @expires (as with timer_list, a function that compares jiffies with
 *   ->expires finds it due), and, unless the machine is overloaded (or
 *   the jiffies tick late), within one twheel tick after that
 *   (twheel_tick_ns(), 1 ms by default).  timer_list runs it on the
 *   jiffies tick after the one where jiffies reaches @expires (it rounds
 *   up, so that the delay is whole even from the start of the current
 *   jiffy), and, beyond 63 jiffies, up to 12.5% of the delay later still
 *   (its wheel's granularity).  So a converted timer runs up to a jiffy
 *   sooner than the timer_list one (more for long timers), never sooner
 *   than the delay asked.  A delay computed from jiffies read before a tick and
 *   armed after it counts from the later jiffy, and comes one jiffy
 *   short, as with any call that takes a time relative to now.
 * - %TIMER_DEFERRABLE: twheel does not defer a timer until its CPU wakes
 *   for something else.  It gives the timer a precision of one eighth of
 *   its delay instead (setcallout_on()), timer_list's allowance for long
 *   timers: it runs within that range on an interrupt its CPU takes
 *   anyway, if there is one, so it seldom wakes a CPU of its own.
 * - The CPU: an arming puts the timer on the calling CPU (twheel never
 *   moves a timer to another, busier CPU), so %TIMER_PINNED changes
 *   nothing; twheel_add_timer_on() puts it on the CPU named.  If the
 *   timer's function is running on another CPU at the time, the timer
 *   stays there, as timer_list keeps it on its base; armed by
 *   twheel_add_timer_on() meanwhile (from the function itself, say), it
 *   moves to the CPU named once the function has returned.
 * - ->expires is written by the arming calls under twheel's base lock,
 *   with the arming, as timer_list writes it: it always names the
 *   arming the timer has, and a call that arms nothing (on a timer shut
 *   down, say) leaves it alone.
 * - %TIMER_IRQSAFE is not supported: the function runs in softirq context
 *   with interrupts enabled.
 * - twheel_timer_delete_sync() and twheel_timer_shutdown_sync() keep
 *   timer_list's context rules: they sleep for a running function in
 *   process context and spin for it in softirq context or with a lock
 *   held, as timer_delete_sync() does.  On every path they cancel the
 *   timer (and shut it down) first.  Only the wait is left out where it
 *   could not end: in the timer's own function or an interrupt of it,
 *   and, with PREEMPT_RT, in hardirq context, or where the caller spins
 *   on the CPU whose softirq thread it preempted mid-function (there
 *   timer_delete_sync() blocks on its expiry lock instead).  That is
 *   reported in the kernel log, where timer_list would warn or deadlock.
 * - A timer whose setup was skipped is reported (WARN_ON_ONCE(), once
 *   for each file that uses the layer) and left alone: the arming calls
 *   return 0 and arm nothing.  So is twheel_add_timer() of a pending
 *   timer, which timer_list reports too.
 *
 * This header does not declare the BSD names timeout() and untimeout()
 * of twheel.h, whatever the file defines of its own.
 */
#ifndef _TWHEEL_TIMER_H
#define _TWHEEL_TIMER_H

#include <linux/bug.h>
#include <linux/container_of.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/timer.h>	/* TIMER_PINNED, TIMER_DEFERRABLE */

#ifdef TWHEEL_NO_BSD_NAMES
#include "twheel.h"
#else
#define TWHEEL_NO_BSD_NAMES
#include "twheel.h"
#undef TWHEEL_NO_BSD_NAMES
#endif

/**
 * struct twheel_timer - a timer with timer_list's fields, on a callout
 * @c: the callout that runs it; twheel's.
 * @function: the function to call, with the timer, in softirq context.
 * @expires: the jiffies value of the last arming, as timer_list's.
 * @flags: the flags of twheel_timer_setup().
 */
struct twheel_timer {
	struct callout c;
	void (*function)(struct twheel_timer *timer);
	unsigned long expires;
	u32 flags;
};

/* The flags twheel_timer_setup() takes. */
#define TWHEEL_TIMER_FLAGS	(TIMER_PINNED | TIMER_DEFERRABLE)

int __twheel_timer_arm(struct twheel_timer *timer, callout_func_t run,
		       unsigned long expires, int cpu, unsigned int how);
int __twheel_timer_defer(struct twheel_timer *timer, callout_func_t run);

/*
 * The callout's function: calls the timer's, once jiffies has reached
 * ->expires, as timer_list does.  twheel counts in ns, and jiffies may lag
 * behind (its tick can be late): come due before jiffies has caught up,
 * the timer is tried again on the next twheel tick, unless it was
 * cancelled meanwhile.  Armed again meanwhile (its armer was told it was
 * not pending), the function runs now, and for the new arming later.
 * Static, so that a copy lies in every module that uses timers: twheel
 * cancels the callouts whose function lies in a module that goes away.
 */
static void __maybe_unused __twheel_timer_run(void *arg)
{
	struct twheel_timer *timer = arg;

	if (unlikely(time_before(jiffies, READ_ONCE(timer->expires))) &&
	    __twheel_timer_defer(timer, __twheel_timer_run) != 1)
		return;
	timer->function(timer);
}

/**
 * twheel_from_timer() - the structure a timer is embedded in
 * @var: a pointer of the structure's type (only its type is used).
 * @timer: the &struct twheel_timer, as the timer's function receives it.
 * @field: the timer's member in the structure.
 *
 * As from_timer() and timer_container_of().
 */
#define twheel_from_timer(var, timer, field)				\
	container_of(timer, typeof(*(var)), field)

/**
 * twheel_timer_setup() - make a timer ready for use
 * @timer: the timer.
 * @callback: its function, which receives @timer.
 * @flags: 0, %TIMER_PINNED, %TIMER_DEFERRABLE or both.
 *
 * As timer_setup(): must come before any other call on @timer, and not
 * while @timer may be pending or running.  An unsupported flag
 * (%TIMER_IRQSAFE) is reported (once per file) and ignored; on a
 * pending timer it changes nothing, as callout_init().
 *
 * Context: any but NMI.
 */
#define twheel_timer_setup(timer, callback, flags)			\
	do {								\
		static struct lock_class_key __key;			\
									\
		__twheel_timer_setup((timer), (callback), (flags),	\
				     #timer, &__key);			\
	} while (0)

static inline void __twheel_timer_setup(struct twheel_timer *timer,
					void (*callback)(struct twheel_timer *),
					unsigned int flags, const char *name,
					struct lock_class_key *key)
{
	WARN_ON_ONCE(flags & ~TWHEEL_TIMER_FLAGS);
	if (__callout_init(&timer->c, 0, name, key))
		return;
	timer->function = callback;
	timer->expires = 0;
	timer->flags = flags & TWHEEL_TIMER_FLAGS;
}

/**
 * DEFINE_TWHEEL_TIMER() - define a timer at file scope, ready for use
 * @_name: the timer's name.
 * @_function: its function.
 *
 * As DEFINE_TIMER(): the timer needs no twheel_timer_setup().
 */
#define DEFINE_TWHEEL_TIMER(_name, _function)				\
	struct twheel_timer _name = {					\
		.c = CALLOUT_INITIALIZER,				\
		.function = (_function),				\
	}

/**
 * twheel_timer_setup_on_stack() - make a timer on the stack ready for use
 * @timer: the timer, on the stack.
 * @callback: its function, which receives @timer.
 * @flags: as for twheel_timer_setup().
 *
 * As timer_setup_on_stack(): twheel_timer_setup(), which is the same for
 * a timer on the stack (twheel's debug objects do not track a callout
 * there); twheel_timer_destroy_on_stack() must follow before the frame
 * ends.
 *
 * Context: as twheel_timer_setup().
 */
#define twheel_timer_setup_on_stack(timer, callback, flags)		\
	twheel_timer_setup(timer, callback, flags)

/*
 * Arm @timer for @expires on @cpu, with setcallout_on()'s conditions
 * @how; ->expires is set with the arming (__twheel_timer_arm()).  A setup
 * that was skipped is reported (once per file), and nothing is armed.
 */
static inline int __twheel_timer_set(struct twheel_timer *timer,
				     unsigned long expires, int cpu,
				     unsigned int how)
{
	int ret = __twheel_timer_arm(timer, __twheel_timer_run, expires, cpu,
				     how);

	if (WARN_ON_ONCE(ret < 0 && ret != -ENODEV))
		return 0;
	return ret;
}

/**
 * twheel_mod_timer() - arm a timer, or move it, for a jiffies deadline
 * @timer: the timer.
 * @expires: the deadline, in jiffies.
 *
 * As mod_timer(), exact (see above).
 *
 * Context: any but NMI, including hardirq context and the timer's own
 * function.
 * Return: %1 if @timer was pending, %0 if not.
 */
static inline int twheel_mod_timer(struct twheel_timer *timer,
				   unsigned long expires)
{
	/*
	 * timer_list's shortcut: re-arming for the same deadline.  ->expires
	 * changes only with an arming, under the base lock.
	 */
	if (READ_ONCE(timer->expires) == expires &&
	    callout_pending(&timer->c))
		return 1;
	return __twheel_timer_set(timer, expires, CALLOUT_CPU_ANY, 0);
}

/**
 * twheel_mod_timer_pending() - move a timer that is pending
 * @timer: the timer.
 * @expires: the new deadline, in jiffies.
 *
 * As mod_timer_pending(): a timer that is not pending is left so.
 *
 * Context: as twheel_mod_timer().
 * Return: %1 if @timer was pending (and has been moved), %0 if not.
 */
static inline int twheel_mod_timer_pending(struct twheel_timer *timer,
					   unsigned long expires)
{
	return __twheel_timer_set(timer, expires, CALLOUT_CPU_ANY,
				  CALLOUT_IF_PENDING);
}

/**
 * twheel_timer_reduce() - arm a timer, or bring its deadline forward
 * @timer: the timer.
 * @expires: the deadline, in jiffies.
 *
 * As timer_reduce(): a pending timer that runs no later than an arming
 * for @expires may (on a tick no later than its range's end, see
 * setcallout_on()'s %CALLOUT_IF_SOONER) is left as it is, ->expires too.
 *
 * Context: as twheel_mod_timer().
 * Return: %1 if @timer was pending, %0 if not.
 */
static inline int twheel_timer_reduce(struct twheel_timer *timer,
				      unsigned long expires)
{
	return __twheel_timer_set(timer, expires, CALLOUT_CPU_ANY,
				  CALLOUT_IF_SOONER);
}

/**
 * twheel_add_timer() - arm a timer that is not pending, for @timer->expires
 * @timer: the timer, its @expires set.
 *
 * As add_timer(): arming a pending timer this way is a bug, reported
 * (once per file; the timer is left as it is).
 *
 * Context: as twheel_mod_timer().
 */
static inline void twheel_add_timer(struct twheel_timer *timer)
{
	if (WARN_ON_ONCE(callout_pending(&timer->c)))
		return;
	__twheel_timer_set(timer, timer->expires, CALLOUT_CPU_ANY, 0);
}

/**
 * twheel_add_timer_local() - arm a timer that is not pending, on this CPU
 * @timer: the timer, its @expires set.
 *
 * As add_timer_local(), which sets %TIMER_PINNED so that the timer runs
 * on the calling CPU: twheel_add_timer(), which puts it there anyway.
 * @timer->flags is left as it is (%TIMER_PINNED changes nothing here).
 *
 * Context: as twheel_mod_timer().
 */
static inline void twheel_add_timer_local(struct twheel_timer *timer)
{
	twheel_add_timer(timer);
}

/**
 * twheel_add_timer_global() - arm a timer that is not pending, unpinned
 * @timer: the timer, its @expires set.
 *
 * As add_timer_global(), which clears %TIMER_PINNED so that timer_list
 * may run the timer on another, busier CPU: twheel_add_timer(), which
 * runs it on the calling CPU, as twheel does every timer (see above).
 * @timer->flags is left as it is.
 *
 * Context: as twheel_mod_timer().
 */
static inline void twheel_add_timer_global(struct twheel_timer *timer)
{
	twheel_add_timer(timer);
}

/**
 * twheel_add_timer_on() - arm a timer that is not pending, on a CPU
 * @timer: the timer, its @expires set.
 * @cpu: the CPU to run it on.
 *
 * As add_timer_on().  If @cpu is not online, the timer is armed on the
 * calling CPU instead (timer_list would leave it on the offline CPU's
 * wheel until that CPU came back).  From the timer's own function, or
 * while it runs elsewhere, the timer moves to @cpu once the function has
 * returned, keeping its deadline.
 *
 * Context: as twheel_mod_timer().
 */
static inline void twheel_add_timer_on(struct twheel_timer *timer, int cpu)
{
	if (WARN_ON_ONCE(callout_pending(&timer->c)))
		return;
	if (__twheel_timer_set(timer, timer->expires, cpu, 0) == -ENODEV)
		__twheel_timer_set(timer, timer->expires, CALLOUT_CPU_ANY, 0);
}

/**
 * twheel_timer_delete() - cancel a timer, without waiting
 * @timer: the timer.
 *
 * As del_timer() and timer_delete(): the function may still be running
 * on another CPU when this returns.
 *
 * Context: any but NMI.
 * Return: %1 if @timer was pending, %0 if not.
 */
static inline int twheel_timer_delete(struct twheel_timer *timer)
{
	return max(unsetcallout(&timer->c), 0);
}

/**
 * twheel_timer_delete_sync() - cancel a timer and wait for its function
 * @timer: the timer.
 *
 * As del_timer_sync() and timer_delete_sync(): on return the function
 * is not running, and the timer is not pending unless the caller arms it
 * again.  Sleeps for a running function in process context, spins for it
 * in softirq context or with a lock held or bottom halves off.  The
 * caller must not hold a lock the function takes (lockdep is told).
 *
 * Context: any but NMI.  In the timer's own function or an interrupt of
 * it, and, with PREEMPT_RT, in hardirq context or spinning on the CPU
 * where the function runs, the timer is cancelled but the running
 * function is not waited for; that is reported.
 * Return: %1 if @timer was pending, %0 if not.
 */
static inline int twheel_timer_delete_sync(struct twheel_timer *timer)
{
	return max(__twheel_timer_cancel_sync(&timer->c, false), 0);
}

/**
 * twheel_timer_delete_sync_try() - cancel a timer whose function is not running
 * @timer: the timer.
 *
 * As timer_delete_sync_try() (try_to_del_timer_sync() on 6.1 and 6.12):
 * if the timer's function is running, on another CPU or in the caller
 * itself, nothing is done and %-1 returned; otherwise
 * twheel_timer_delete(), and on return the function is not running
 * either.  Never waits.  Nothing keeps the timer from being armed again
 * after it returns.
 *
 * Context: any but NMI.
 * Return: %1 if @timer was pending and is cancelled, %0 if it was not
 * pending, %-1 if its function is running.
 */
static inline int twheel_timer_delete_sync_try(struct twheel_timer *timer)
{
	int ret = __twheel_timer_cancel_try(&timer->c);

	return ret == -EBUSY ? -1 : max(ret, 0);
}

/**
 * twheel_timer_shutdown() - cancel a timer for good, without waiting
 * @timer: the timer.
 *
 * As timer_shutdown(): twheel_timer_delete(), and every later arming is
 * ignored, including one by the function, which may still be running on
 * another CPU when this returns.  For teardown where
 * twheel_timer_shutdown_sync() may not wait; twheel_timer_setup() makes
 * the timer usable again, once its function has returned.
 *
 * Context: any but NMI.
 * Return: %1 if @timer was pending, %0 if not.
 */
static inline int twheel_timer_shutdown(struct twheel_timer *timer)
{
	return max(__twheel_timer_shutdown(&timer->c), 0);
}

/**
 * twheel_timer_shutdown_sync() - cancel a timer for good, and wait
 * @timer: the timer.
 *
 * As timer_shutdown_sync(): twheel_timer_delete_sync(), and every later
 * arming is ignored, including one by the function while this waits for
 * it; twheel_timer_setup() makes the timer usable again.
 *
 * Context: as twheel_timer_delete_sync().
 * Return: as twheel_timer_delete_sync().
 */
static inline int twheel_timer_shutdown_sync(struct twheel_timer *timer)
{
	return max(__twheel_timer_cancel_sync(&timer->c, true), 0);
}

/**
 * twheel_timer_pending() - is a timer armed?
 * @timer: the timer.
 *
 * As timer_pending(): a snapshot.
 *
 * Context: any but NMI.
 * Return: %1 if @timer is pending, %0 if not.
 */
static inline int twheel_timer_pending(const struct twheel_timer *timer)
{
	return callout_pending(&timer->c);
}

/**
 * twheel_timer_destroy_on_stack() - done with a timer on the stack
 * @timer: the timer, set up by twheel_timer_setup_on_stack().
 *
 * As timer_destroy_on_stack() (destroy_timer_on_stack() on 6.1 and
 * 6.12): the timer must be neither pending nor running by now
 * (twheel_timer_delete_sync() or twheel_timer_shutdown_sync() first).
 * One still pending is reported (once per file) and cancelled, its
 * function waited for, as timer_list's debug objects do.
 *
 * Context: as twheel_timer_delete_sync().
 */
static inline void twheel_timer_destroy_on_stack(struct twheel_timer *timer)
{
	if (WARN_ON_ONCE(twheel_timer_pending(timer)))
		twheel_timer_delete_sync(timer);
}

#endif /* _TWHEEL_TIMER_H */
