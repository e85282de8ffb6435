// SPDX-License-Identifier: GPL-2.0
/*
 * The handle API: callout_init(), the arming calls (setcallout() and its
 * kin, callout_forward()), callout_when() and callout_pending(), the
 * cancels and the sync cancel, and the out-of-line half of twheel_timer.h.
 * Each arms and cancels on the per-CPU bases of twheel_hw.c, with the
 * inline pieces of twheel_hw.h.
 */

/**
 * DOC: twheel callouts
 *
 * Life of a callout.  PENDING and RUNNING are independent: a callout whose
 * function is running may be armed again (a periodic callout re-arms itself
 * from its own function), and is then both::
 *
 *	           callout_init()
 *	                 |
 *	                 v        unsetcallout(): returns 1
 *	   +---------> IDLE <-------------------------------+
 *	   |             | setcallout(): returns 0          |
 *	   |             v                                  |
 *	   |          PENDING --setcallout(): returns 1--+  |
 *	   |             |   ^                           |  |
 *	   |    its tick |   +---------------------------+--+
 *	   |             v
 *	   +-------- RUNNING       (setcallout() here: PENDING too,
 *	  func returns              on the same CPU)
 *
 * unsetcallout() on an IDLE or only-RUNNING callout returns 0 and changes
 * nothing; unsetcallout_sync() also waits until it is not RUNNING.
 *
 * Lock-associated callouts (callout_init_lock(), after FreeBSD's
 * callout_init_mtx()).  Between leaving the wheel and calling the function
 * lies a wait for the client's lock, with the base unlocked and the base's
 * run_pending set: the callout is RUNNING but its function has not
 * started.  A cancel or re-arm in that gap, which under the client's
 * lock is the only kind there is, clears run_pending and counts as
 * cancelling a pending callout (returns 1); the expiry, once it has the
 * lock, finds the flag clear, releases the lock and calls nothing.  Lock
 * order: the client's lock, then the base lock; the expiry never holds the
 * base lock while it waits for the client's.
 */

#include <linux/bitfield.h>
#include <linux/bug.h>
#include <linux/debugobjects.h>
#include <linux/hardirq.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "twheel.h"
#include "twheel_hw.h"
#include "twheel_timer.h"

/*
 * Is @c on its base's wheel, or is its function running there?
 * callout_init() asks this of memory that may never have held a handle,
 * so what @c says is trusted only once checked under the base's lock: its
 * owner names the base, and either the base runs @c (an address compared,
 * nothing read through it) or its slot is one of the wheel's and its
 * links are those of a list member, each neighbour pointing back at it.
 * The neighbours are read with copy_from_kernel_nofault(), as they may be
 * stray pointers: the magic number, a possible CPU and a slot in range
 * can all be found in stray memory, and only the links tell such memory
 * from a pending handle without walking a list.  O(1): no list is walked.
 *
 * A CPU going down moves its handles to another base under both locks
 * (twheel_cpu_dead()); an owner that changed while this waited for the
 * old base's lock is looked up again, as lock_callout_base() does.
 */
static bool callout_in_use(struct callout *c)
{
	struct list_head *node = &c->entry.node;
	struct list_head *next, *prev, *back;
	struct twheel_base *base;
	unsigned long flags;
	bool linked;
	u32 owner;

	for (;;) {
		owner = READ_ONCE(c->entry.owner);
		/*
		 * Not lock_callout_base(): in stray memory, the moving flag
		 * would never clear.  A handle really moving is being armed,
		 * which must not race with callout_init() anyway.
		 */
		if ((owner & OWNER_MOVING) ||
		    FIELD_GET(OWNER_CPU, owner) >= nr_cpu_ids)
			return false;
		base = per_cpu_ptr(twheel_bases, FIELD_GET(OWNER_CPU, owner));
		raw_spin_lock_irqsave(&base->lock, flags);
		if (READ_ONCE(c->entry.owner) == owner)
			break;
		raw_spin_unlock_irqrestore(&base->lock, flags);
		cpu_relax();
	}
	if (base->running == c) {
		raw_spin_unlock_irqrestore(&base->lock, flags);
		return true;
	}
	next = READ_ONCE(node->next);
	prev = READ_ONCE(node->prev);
	linked = READ_ONCE(c->entry.slot) < base->wheel.nslots &&
		 next != node &&
		 !copy_from_kernel_nofault(&back, &next->prev, sizeof(back)) &&
		 back == node &&
		 !copy_from_kernel_nofault(&back, &prev->next, sizeof(back)) &&
		 back == node;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return linked;
}

/* Set up @c, known not to be pending, with the owner bits @flags. */
static void callout_setup(struct callout *c, u32 flags, const char *name,
			  struct lock_class_key *key)
{
	u32 owner = FIELD_PREP(OWNER_MAGIC, OWNER_MAGIC_VALUE) |
		    FIELD_PREP(OWNER_CPU, raw_smp_processor_id()) | flags;

	twheel_entry_init(&c->entry);
	if (IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) &&
	    !object_is_on_stack(c)) {
		debug_object_init(c, &callout_debug_descr);
		owner |= OWNER_TRACKED;
	}
	c->entry.owner = owner;
	c->func = NULL;
	c->arg = NULL;
	c->when = 0;
	lockdep_init_map(&c->lockdep_map, name, key, 0);
	trace_callout_init(c);
}

/*
 * callout_init() and callout_init_lock(): callout_setup(), unless @c is
 * pending or its function is running, which is reported once (naming the
 * caller at @ip) and left as it is: setting up a running callout anew
 * would write another CPU into its owner, and a later sync cancel would
 * look for the function on the wrong base.  False in that case.
 */
static bool callout_setup_idle(struct callout *c, u32 flags,
			       const char *name, struct lock_class_key *key,
			       unsigned long ip)
{
	if (callout_valid(c) && callout_in_use(c)) {
		pr_warn_once("twheel: callout_init() of pending or running callout %p (%ps) by %pS: ignored\n",
			     c, READ_ONCE(c->func), (void *)ip);
		return false;
	}
	callout_setup(c, flags, name, key);
	return true;
}

/**
 * __callout_init() - callout_init_flags() for one lockdep class
 * @c: the handle.
 * @flags: 0 or %CALLOUT_PINNED.
 * @name: the class's name for lockdep.
 * @key: the class, one per call site of callout_init().
 *
 * Use callout_init() or callout_init_flags(), which supply @name and
 * @key.  A handle that is pending is left as it is, and the first such
 * call is reported.
 *
 * Context: any but NMI.
 * Return: %0; -%EINVAL for a %NULL @c or an unknown flag, -%EBUSY for a
 * pending @c; nothing changes on error.
 */
int __callout_init(struct callout *c, unsigned int flags, const char *name,
		   struct lock_class_key *key)
{
	if (!c || (flags & ~CALLOUT_PINNED))
		return -EINVAL;
	return callout_setup_idle(c, flags & CALLOUT_PINNED ? OWNER_STAYS : 0,
				  name, key, _RET_IP_) ? 0 : -EBUSY;
}
EXPORT_SYMBOL_GPL(__callout_init);

/**
 * __callout_init_lock() - callout_init_lock() for one lockdep class
 * @lc: the handle.
 * @lock: a &spinlock_t, or a &raw_spinlock_t if @raw.
 * @raw: @lock is a &raw_spinlock_t.
 * @flags: %CALLOUT_RETURNUNLOCKED, %CALLOUT_PINNED, both or 0.
 * @name: the class's name for lockdep.
 * @key: the class, one per call site.
 *
 * Use callout_init_lock() or callout_init_raw_lock(), which check @lock's
 * type and supply @name and @key.
 *
 * Context: any but NMI.
 * Return: %0; -%EINVAL for a %NULL @lc or @lock or an unknown flag,
 * -%EBUSY for a &@lc->c pending or running; nothing changes on error.
 */
int __callout_init_lock(struct callout_locked *lc, void *lock, bool raw,
			unsigned int flags, const char *name,
			struct lock_class_key *key)
{
	u32 owner = OWNER_LOCKED;

	if (!lc || !lock ||
	    (flags & ~(CALLOUT_RETURNUNLOCKED | CALLOUT_PINNED)))
		return -EINVAL;
	if (flags & CALLOUT_RETURNUNLOCKED)
		owner |= OWNER_UNLOCKS;
	if (flags & CALLOUT_PINNED)
		owner |= OWNER_STAYS;
	if (raw)
		owner |= OWNER_RAW;
	if (!callout_setup_idle(&lc->c, owner, name, key, _RET_IP_))
		return -EBUSY;
	lc->lock = lock;
	return 0;
}
EXPORT_SYMBOL_GPL(__callout_init_lock);

/*
 * Fill in @a's ticks for an arming for @when ns with @precision, the clock
 * having read @now_ns: the tick now running, the first tick after it that
 * begins at or after @when, and range_last().
 */
static void arm_range(struct arming *a, u64 now_ns, u64 when, u64 precision)
{
	a->now = ns_to_tick(now_ns);
	a->first = max(ns_to_tick(when + twheel_clock.tick_ns - 1), a->now + 1);
	a->last = range_last(when, precision);
	a->when = when;
}

/**
 * setcallout() - arm a callout, re-arming it if it is pending
 * @c: the handle, initialised with callout_init().
 * @func: the function to call; it runs in softirq context.
 * @arg: its argument.
 * @ticks: whole ticks that must pass first, 0 for the next tick; at most
 *	%CALLOUT_MAX_TICKS.
 *
 * @c is armed on the calling CPU and @func runs there, unless @func is
 * running on another CPU right now: then @c stays on that CPU, so that
 * its function never runs on two CPUs at once.  (A %CALLOUT_PINNED
 * callout stays on its own CPU.)  It runs no sooner than @ticks whole
 * ticks after this call, and, unless the machine is overloaded, within
 * one tick after that; its deadline (callout_when()) is the start of the
 * tick it is due on.
 *
 * For a callout set up by callout_init_lock(), called with its lock held:
 * the function of the previous arming does not run after this call, even
 * if its tick has come and it waits for the lock; that arming counts as
 * pending, and was replaced.
 *
 * Paper: START TIMER, through Costello's handle-based interface.
 *
 * Context: any, including hardirq context and @c's own function.
 * Return: %1 if @c was pending (it has been re-armed), %0 if not or if
 * @c was shut down (unsetcallout_shutdown(); nothing is armed), or
 * -%EINVAL with nothing changed if @c or @func is %NULL, @c was never
 * initialised, or @ticks is over %CALLOUT_MAX_TICKS.
 */
int setcallout(struct callout *c, callout_func_t func, void *arg,
	       unsigned long ticks)
{
	struct arming a = { .cpu = CALLOUT_CPU_ANY };
	unsigned long flags;
	int ret;

	if (!c || !func || !callout_valid(c) || ticks > CALLOUT_MAX_TICKS)
		return -EINVAL;
	local_irq_save(flags);
	a.now = current_tick();
	a.first = a.now + ticks + 1;
	a.last = a.first;
	ret = arm_callout(c, func, arg, &a, false);
	local_irq_restore(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(setcallout);

/* @cpu is %CALLOUT_CPU_ANY or a possible CPU. */
static bool arm_cpu_valid(int cpu)
{
	return cpu == CALLOUT_CPU_ANY ||
	       (cpu >= 0 && cpu < nr_cpu_ids && cpu_possible(cpu));
}

/*
 * setcallout_on() once its arguments are checked: arm @c for @when, a
 * time of CLOCK_MONOTONIC if @absolute, else a delay from now, with
 * @precision, as @a says besides (its CPU, its conditions, the
 * ->expires to set).
 */
static int arm_at(struct callout *c, callout_func_t func, void *arg,
		  ktime_t when, u64 precision, bool absolute, struct arming *a)
{
	unsigned long flags;
	u64 now_ns, deadline;
	int ret;

	when = max_t(ktime_t, when, 0);
	local_irq_save(flags);
	now_ns = ktime_get_ns();
	if (absolute)
		deadline = max_t(u64, when, 1);	/* 0 means something else */
	else
		deadline = now_ns + min_t(u64, when, KTIME_MAX - now_ns);
	arm_range(a, now_ns, deadline, precision);
	ret = arm_callout(c, func, arg, a, false);
	local_irq_restore(flags);
	return ret;
}

/**
 * setcallout_on() - arm a callout for a time in ns, with a precision, on
 *	a CPU
 * @c: the handle, initialised with callout_init().
 * @func: the function to call; it runs in softirq context.
 * @arg: its argument.
 * @when: the deadline: a time of CLOCK_MONOTONIC (ktime_get()) with
 *	%CALLOUT_ABSOLUTE, else a delay from now.  A deadline already past
 *	(a delay of 0 or less) runs on the next tick; an absolute one of 0
 *	or less is taken as 1 ns.
 * @precision: how late, in ns, @func may run after the deadline; 0 for
 *	exact.
 * @cpu: the CPU to run on, online; or %CALLOUT_CPU_ANY for where
 *	setcallout() would put it.
 * @flags: %CALLOUT_ABSOLUTE, and the conditions %CALLOUT_IF_PENDING (arm
 *	@c only if it is pending, as mod_timer_pending()) and
 *	%CALLOUT_IF_SOONER (leave a pending @c as it is if the tick chosen
 *	for it lies no later than the new range's last, as timer_reduce());
 *	or 0.
 *
 * @func runs no sooner than the deadline, against ktime_get(), and,
 * unless the machine is overloaded, no later than the deadline plus
 * @precision or one tick, whichever is longer.  Within that range twheel
 * picks the tick: one for which @cpu's interrupt is already coming or on
 * which its wheel already has work, else the roundest (twheel_coalesce()),
 * so that callouts with overlapping ranges share an interrupt.
 * FreeBSD's callout_reset_sbt_on() and hrtimer_start_range_ns() are the
 * models.
 *
 * If @func is running right now, @c stays on the CPU where it runs, so
 * that its function never runs on two CPUs at once; if @cpu names
 * another, @c moves there, keeping its tick, once the function has
 * returned (so a function can re-arm its callout on another CPU, as
 * add_timer_on() allows).  A callout on a CPU that goes offline moves to
 * the CPU taking it down, keeping its tick.
 *
 * Context: any, including hardirq context and @c's own function.
 * Return: %1 if @c was pending (it has been re-armed, or left as it was
 * by %CALLOUT_IF_SOONER), %0 if not or if @c was shut down (nothing is
 * armed, nor with %CALLOUT_IF_PENDING); -%EINVAL if @c or @func is %NULL,
 * @c was never initialised, @cpu is not a possible CPU or @flags has an
 * unknown bit; -%ENODEV if @cpu is not online.  Nothing changes on error.
 */
int setcallout_on(struct callout *c, callout_func_t func, void *arg,
		  ktime_t when, u64 precision, int cpu, unsigned int flags)
{
	struct arming a = {
		.cpu = cpu,
		.how = flags & (CALLOUT_IF_PENDING | CALLOUT_IF_SOONER),
	};

	if (!c || !func || !callout_valid(c) ||
	    (flags & ~(CALLOUT_ABSOLUTE | CALLOUT_IF_PENDING |
		       CALLOUT_IF_SOONER)) || !arm_cpu_valid(cpu))
		return -EINVAL;
	return arm_at(c, func, arg, when, precision,
		      flags & CALLOUT_ABSOLUTE, &a);
}
EXPORT_SYMBOL_GPL(setcallout_on);

/**
 * callout_forward() - re-arm a periodic callout from its last deadline
 * @c: the handle, armed at least once.
 * @period: the period, in ns.
 * @precision: as for setcallout_on().
 *
 * Re-arms @c, with the function and argument of its last arming, for the
 * first of its last deadline plus one, two, ... periods that lies after
 * now, as setcallout_on() with %CALLOUT_ABSOLUTE does.  Deadlines follow
 * one another by exactly @period, however late each run starts, so
 * lateness never adds up; periods that passed entirely while the callout
 * was late are skipped, not run in a burst (hrtimer_forward() does the
 * same).  Meant for @c's own function; other armings of @c must not race
 * with it.  Before its last deadline has come, @c is left as it is,
 * pending or not, and %0 returned, as hrtimer_forward() does: calling it
 * twice moves the deadline once.
 *
 * Context: any, including hardirq context and @c's own function.
 * Return: how many periods the deadline moved on: %1 on time, %1 + the
 * periods skipped if late; %0 if it did not move, its last deadline being
 * still to come, or if @c was shut down (nothing is armed); -%EINVAL with
 * nothing changed if @c is %NULL, was never initialised or armed,
 * @period is 0, or the deadline would pass %KTIME_MAX.
 */
s64 callout_forward(struct callout *c, u64 period, u64 precision)
{
	struct arming a = { .cpu = CALLOUT_CPU_ANY, .shut = -ESHUTDOWN };
	struct twheel_base *base;
	u64 now_ns, when, step, k;
	unsigned long flags;
	callout_func_t func;
	void *arg;
	int ret = -EINVAL;

	if (!c || !callout_valid(c) || !period)
		return -EINVAL;
	local_irq_save(flags);
	base = lock_callout_base_irqoff(c);
	func = c->func;
	arg = c->arg;
	when = callout_deadline(c);
	raw_spin_unlock(&base->lock);
	if (!func)
		goto out;
	now_ns = ktime_get_ns();
	/* Not due yet: left as it is, as hrtimer_forward() leaves it. */
	ret = 0;
	if (now_ns < when)
		goto out;
	k = div64_u64(now_ns - when, period) + 1;
	ret = -EINVAL;
	if (check_mul_overflow(k, period, &step) ||
	    check_add_overflow(when, step, &when) || when > KTIME_MAX)
		goto out;
	arm_range(&a, now_ns, when, precision);
	ret = arm_callout(c, func, arg, &a, false);
	if (ret >= 0)
		ret = k;
out:
	local_irq_restore(flags);
	return ret == -ESHUTDOWN ? 0 : ret;
}
EXPORT_SYMBOL_GPL(callout_forward);

/**
 * callout_when() - the deadline of a pending callout
 * @c: the handle.
 *
 * A snapshot, as callout_pending() is.  The deadline is the time asked
 * for (for setcallout(), the start of the tick it is due on), not the
 * tick twheel picked within a precision.
 *
 * Context: any but NMI.
 * Return: the deadline, a time of CLOCK_MONOTONIC, while @c is pending;
 * %KTIME_MAX if it is not, or for %NULL or a handle never initialised.
 */
ktime_t callout_when(const struct callout *c)
{
	if (!callout_pending(c))
		return KTIME_MAX;
	return callout_deadline(c);
}
EXPORT_SYMBOL_GPL(callout_when);

/**
 * unsetcallout() - cancel a callout
 * @c: the handle.
 *
 * Never waits: if @c's function is running it goes on running (see
 * unsetcallout_sync()).  If @c was the last callout pending on its CPU,
 * that CPU's tick fires once more, for nothing, at the tick it was set for,
 * and then stays off.
 *
 * For a callout set up by callout_init_lock(), called with its lock held:
 * @c's function does not run after this call, even if its tick has come
 * and it waits for the lock; it was then pending, and returns %1.
 *
 * Paper: STOP TIMER, by handle in O(1): Costello's unsetcallout().
 *
 * Context: any, including hardirq context and @c's own function.
 * Return: %1 if @c was pending and now will not run, %0 if it was not
 * pending, -%EINVAL if @c is %NULL or was never initialised.
 */
int unsetcallout(struct callout *c)
{
	if (!c || !callout_valid(c))
		return -EINVAL;
	return cancel_callout(c);
}
EXPORT_SYMBOL_GPL(unsetcallout);

/*
 * Is @c's function still running on @base?  If so, the next change of
 * @base->running wakes the caller.
 */
static bool still_running(struct twheel_base *base, const struct callout *c)
{
	unsigned long flags;
	bool running;

	raw_spin_lock_irqsave(&base->lock, flags);
	running = base->running == c;
	base->waiters |= running;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return running;
}

#ifdef CONFIG_LOCKDEP
/*
 * Is the caller @c's function, running now?  Without the base lock: if
 * it is, what it reads was set before the function began and stays while
 * it runs; if not, neither can match.
 */
static bool runs_here(const struct callout *c)
{
	struct twheel_base *base = per_cpu_ptr(twheel_bases,
			FIELD_GET(OWNER_CPU, READ_ONCE(c->entry.owner)));

	/* Racy but exact for the function itself: see above. */
	return data_race(base->running == c && base->runner == current);
}
#endif

/* How a sync cancel waits for a function that runs elsewhere. */
enum sync_wait {
	SYNC_SLEEP,	/* on @base->wait: process context */
	SYNC_SPIN,	/* atomic context: for a function on another CPU */
	SYNC_NONE,	/* not at all: the wait is refused */
};

/*
 * How the caller may wait for a running function: sleep in process
 * context, as might_sleep() judges it (an RCU read-side section
 * included); else, with @spin (timer_delete_sync()'s rules), spin in
 * atomic context, hardirq context too, as timer_delete_sync() spins
 * there.  Under PREEMPT_RT a spinner waits only for a function on another
 * CPU: on its own, the function's softirq thread is what the caller
 * preempted (cancel_sync() refuses that wait), and hardirq context never
 * waits.  The caller that interrupted the function on its own CPU is
 * told apart later (base->runner).  (Under PREEMPT_RT a spinlock_t held,
 * or bottom halves off, show as an RCU read-side section, with
 * preemption on.)
 */
static enum sync_wait sync_wait_how(bool spin)
{
	bool atomic;

	if (in_hardirq())
		return spin && !IS_ENABLED(CONFIG_PREEMPT_RT) ? SYNC_SPIN :
								SYNC_NONE;
	atomic = !in_task() ||
		 (IS_ENABLED(CONFIG_PREEMPT_COUNT) ? !preemptible() :
						     irqs_disabled()) ||
		 rcu_preempt_depth();
	if (!atomic)
		return SYNC_SLEEP;
	return spin ? SYNC_SPIN : SYNC_NONE;
}

/*
 * Would waiting for @c's function, running on @base, never end?  It runs
 * in the calling task (the caller is the function, or interrupted it), or
 * under PREEMPT_RT a spinner preempted its thread on this CPU.
 */
static bool wait_cannot_end(struct twheel_base *base, enum sync_wait how)
{
	lockdep_assert_held(&base->lock);
	return how == SYNC_NONE || base->runner == current ||
	       (IS_ENABLED(CONFIG_PREEMPT_RT) && how == SYNC_SPIN &&
		base->cpu == raw_smp_processor_id());
}

/*
 * unsetcallout_sync(), and with @shut, unsetcallout_shutdown(): under
 * the base lock, mark @c shut down, then cancel what is pending, on every
 * path; *@pending says whether something was.  Then wait for a running
 * function as sync_wait_how() allows, cancelling again whatever it armed
 * meanwhile.  The wait alone is refused, and only where it cannot end:
 * the function runs in the calling task (the caller is the function, or
 * interrupted it), or sync_wait_how() finds no way to wait.  @spin:
 * twheel_timer.h's sync cancels, which keep timer_list's rules.  @name
 * and @ip name the caller for the report of a refused wait.
 *
 * Return: %0 once @c is neither pending nor running; -%EINVAL for a %NULL
 * or stray @c, and -%EDEADLK from NMI, both with nothing changed;
 * -%EDEADLK if the wait was refused, @c cancelled (and shut down).
 */
static int cancel_sync(struct callout *c, bool shut, bool spin, int *pending,
		       const char *name, unsigned long ip)
{
	struct twheel_base *base;
	enum sync_wait how;
	unsigned long flags;
	bool running;

	*pending = 0;
	if (!c || !callout_valid(c))
		return -EINVAL;
	if (in_nmi())
		goto refused;
	how = sync_wait_how(spin);

#ifdef CONFIG_LOCKDEP
	/*
	 * Waiting for the function is taking the locks it takes.  Tell
	 * lockdep before refusing a caller in atomic context, so that it
	 * names the lock such a caller holds; but not the function itself,
	 * which holds that map already and waits for nothing.
	 */
	if (!in_hardirq() && (spin || in_task()) && !runs_here(c)) {
		local_irq_save(flags);
		lock_map_acquire(&c->lockdep_map);
		lock_map_release(&c->lockdep_map);
		local_irq_restore(flags);
	}
#endif
	for (;;) {
		base = lock_callout_base(c, &flags);
		if (shut)
			WRITE_ONCE(c->entry.owner,
				   c->entry.owner | OWNER_SHUT);
		*pending |= cancel_locked(base, c);
		running = base->running == c;
		if (running && wait_cannot_end(base, how)) {
			raw_spin_unlock_irqrestore(&base->lock, flags);
			goto refused;
		}
		base->waiters |= running && how == SYNC_SLEEP;
		raw_spin_unlock_irqrestore(&base->lock, flags);
		if (!running)
			return 0;
		switch (how) {
		case SYNC_SLEEP:
			/*
			 * Sleep, not spin: the CPU is free for others
			 * meanwhile, and where softirq threads are
			 * preemptible the function may be running in one
			 * on this very CPU.
			 */
			wait_event(base->wait, !still_running(base, c));
			break;
		default:
			/* On another CPU: it returns without this one. */
			cpu_relax();
			break;
		}
	}

refused:
	pr_warn_once("twheel: %s() by %pS cannot wait for the callout's running function here; cancelled without waiting, returning -EDEADLK\n",
		     name, (void *)ip);
	return -EDEADLK;
}

/**
 * unsetcallout_sync() - cancel a callout and wait for its function
 * @c: the handle.
 *
 * As unsetcallout(), and if @c's function is running, sleeps until it has
 * returned; if the function re-arms @c meanwhile, that is cancelled too.
 * On return @c is neither pending nor running, and stays so until it is
 * armed again.
 *
 * The caller must not hold a lock that @c's function takes, or it waits
 * forever; lockdep is taught this dependency, as timer_delete_sync()
 * teaches it for timers.  Where it cannot sleep, it cannot wait: from
 * atomic context, hardirq context and @c's own function (which runs in
 * softirq context), @c is cancelled all the same, but if its function is
 * running this returns -%EDEADLK at once, and reports that once in the
 * kernel log, naming the caller.  (Atomic context is seen through the
 * preempt count, so a spinlock held is caught only with
 * CONFIG_PREEMPT_COUNT; disabled interrupts always are, and so is an RCU
 * read-side section where it may be preempted.  Under PREEMPT_RT, a
 * spinlock_t held or bottom halves off, which leave preemption on there,
 * are caught as that.)
 *
 * Context: process context, no locks held that @c's function takes;
 * elsewhere (not NMI) it cancels without waiting, see above.
 * Return: %1 if @c was pending and now will not run, %0 if it was not
 * pending, -%EINVAL if @c is %NULL or was never initialised (nothing
 * changed), -%EDEADLK if its function is running and this may not wait
 * for it (@c was cancelled), or if called from NMI (nothing changed).
 */
int unsetcallout_sync(struct callout *c)
{
	int pending, ret;

	ret = cancel_sync(c, false, false, &pending, __func__, _RET_IP_);
	return ret ?: pending;
}
EXPORT_SYMBOL_GPL(unsetcallout_sync);

/**
 * unsetcallout_shutdown() - cancel a callout for good
 * @c: the handle.
 *
 * As unsetcallout_sync(), and every later arming of @c, by any of the
 * setcallout calls or callout_forward(), returns %0 and arms nothing,
 * including one from @c's function while this waits for it to return:
 * for teardown paths that race with a callout that re-arms itself, as
 * timer_shutdown_sync() is.  callout_init() makes @c usable again.
 * Where it may not wait (-%EDEADLK, see unsetcallout_sync()), @c is shut
 * down all the same, and its running function's arming refused.
 *
 * Context: as unsetcallout_sync().
 * Return: as unsetcallout_sync().
 */
int unsetcallout_shutdown(struct callout *c)
{
	int pending, ret;

	ret = cancel_sync(c, true, false, &pending, __func__, _RET_IP_);
	return ret ?: pending;
}
EXPORT_SYMBOL_GPL(unsetcallout_shutdown);

/**
 * __twheel_timer_cancel_sync() - twheel_timer.h's sync cancels
 * @c: the handle.
 * @shut: shut @c down, as unsetcallout_shutdown().
 *
 * unsetcallout_sync(), or with @shut unsetcallout_shutdown(), with
 * timer_delete_sync()'s context rules for the wait: from softirq context
 * (another callout's function, a tasklet) or with a spinlock held or
 * bottom halves off, it spins while the function runs on another CPU,
 * instead of refusing; in hardirq context too (not under PREEMPT_RT).  @c
 * is cancelled (and shut down) on every path; where the wait cannot end
 * (@c's own function or an interrupt of it, and under PREEMPT_RT a
 * function whose thread the caller preempted on its CPU, or hardirq
 * context), it is left out and reported once.  timer_list blocks on its
 * expiry lock there instead.  Use twheel_timer_delete_sync() and
 * twheel_timer_shutdown_sync().
 *
 * Context: any but NMI.
 * Return: %1 if @c was pending, %0 if not, whether or not the wait was
 * left out; -%EINVAL if @c is %NULL or was never initialised.
 */
int __twheel_timer_cancel_sync(struct callout *c, bool shut)
{
	int pending, ret;

	ret = cancel_sync(c, shut, true, &pending,
			  shut ? "twheel_timer_shutdown_sync" :
				 "twheel_timer_delete_sync", _RET_IP_);
	return ret == -EINVAL ? ret : pending;
}
EXPORT_SYMBOL_GPL(__twheel_timer_cancel_sync);

/*
 * twheel_timer.h's cancels that never wait: under the base lock, unless
 * @try finds @c's function running, mark @c shut down (with @shut) and
 * cancel what is pending, as cancel_sync() does before it waits.
 */
static int cancel_nowait(struct callout *c, bool shut, bool try)
{
	struct twheel_base *base;
	unsigned long flags;
	int ret = -EBUSY;

	if (!c || !callout_valid(c))
		return -EINVAL;
	base = lock_callout_base(c, &flags);
	if (!try || base->running != c) {
		if (shut)
			WRITE_ONCE(c->entry.owner,
				   c->entry.owner | OWNER_SHUT);
		ret = cancel_locked(base, c);
	}
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/**
 * __twheel_timer_shutdown() - twheel_timer.h's shutdown without a wait
 * @c: the handle.
 *
 * As unsetcallout_shutdown(), but never waits: if @c's function is
 * running it goes on running, and an arming it makes is refused, as are
 * all later ones.  timer_shutdown()'s rules.  Use twheel_timer_shutdown().
 *
 * Context: any but NMI.
 * Return: %1 if @c was pending, %0 if not; -%EINVAL if @c is %NULL or was
 * never initialised.
 */
int __twheel_timer_shutdown(struct callout *c)
{
	return cancel_nowait(c, true, false);
}
EXPORT_SYMBOL_GPL(__twheel_timer_shutdown);

/**
 * __twheel_timer_cancel_try() - twheel_timer.h's cancel unless running
 * @c: the handle.
 *
 * As unsetcallout(), unless @c's function is running (on any CPU, the
 * caller's own included): then @c is left as it is, pending or not.
 * timer_delete_sync_try()'s rules: on success the function is not
 * running either.  Use twheel_timer_delete_sync_try().
 *
 * Context: any but NMI.
 * Return: %1 if @c was pending, %0 if not; -%EBUSY if its function is
 * running, nothing changed; -%EINVAL if @c is %NULL or was never
 * initialised.
 */
int __twheel_timer_cancel_try(struct callout *c)
{
	return cancel_nowait(c, false, true);
}
EXPORT_SYMBOL_GPL(__twheel_timer_cancel_try);

/**
 * __twheel_timer_arm() - twheel_timer.h's arming calls
 * @timer: the timer, set up.
 * @run: the callout's function: twheel_timer.h's, in the calling module.
 * @expires: the deadline, in jiffies.
 * @cpu: as setcallout_on()'s.
 * @how: %CALLOUT_IF_PENDING, %CALLOUT_IF_SOONER or 0.
 *
 * setcallout_on() of @timer's callout for (@expires - jiffies) jiffies of
 * %TICK_NSEC from now, with a precision of an eighth of that for a
 * %TIMER_DEFERRABLE timer.  If that arms the timer, @timer->expires is set
 * to @expires under the base lock, in the same hold: it names the arming
 * the timer has, whichever of two racing calls comes last, as timer_list
 * writes ->expires under its base lock.  Where nothing is armed (the
 * timer is shut down, or @how refused) it is left as it is.
 *
 * Context: any but NMI.
 * Return: as setcallout_on().
 */
int __twheel_timer_arm(struct twheel_timer *timer, callout_func_t run,
		       unsigned long expires, int cpu, unsigned int how)
{
	struct arming a = {
		.cpu = cpu,
		.how = how,
		.jiffies_at = &timer->expires,
		.jiffies = expires,
	};
	u64 precision = 0;
	ktime_t delay;

	if (!run || !callout_valid(&timer->c) ||
	    (how & ~(CALLOUT_IF_PENDING | CALLOUT_IF_SOONER)) ||
	    !arm_cpu_valid(cpu))
		return -EINVAL;
	delay = twheel_jiffies_delay(expires);
	if (timer->flags & TIMER_DEFERRABLE)
		precision = delay / 8;
	return arm_at(&timer->c, run, timer, delay, precision, false, &a);
}
EXPORT_SYMBOL_GPL(__twheel_timer_arm);

/**
 * __twheel_timer_defer() - try a timer again on the next tick
 * @timer: the timer, whose callout's function is running.
 * @run: as for __twheel_timer_arm().
 *
 * For twheel_timer.h's callout function, which came due before jiffies
 * reached @timer->expires: arms the callout for the next tick, leaving
 * ->expires as it is; unless, since the callout came due, it was armed
 * again (that arming stands), cancelled, or shut down.
 *
 * Context: the timer's callout function.
 * Return: %0 if armed for the next tick, or not armed, the timer having
 * been cancelled or shut down meanwhile; %1 if it was armed meanwhile:
 * whoever armed it was told it was not pending, so the caller runs the
 * timer's function now, as timer_list would have.
 */
int __twheel_timer_defer(struct twheel_timer *timer, callout_func_t run)
{
	struct arming a = { .cpu = CALLOUT_CPU_ANY, .how = ARM_IF_IDLE };
	unsigned long flags;
	int ret;

	if (!run || !callout_valid(&timer->c))
		return -EINVAL;
	local_irq_save(flags);
	a.now = current_tick();
	a.first = a.now + 1;
	a.last = a.first;
	ret = arm_callout(&timer->c, run, timer, &a, false);
	local_irq_restore(flags);
	return ret;
}
EXPORT_SYMBOL_GPL(__twheel_timer_defer);

/**
 * callout_pending() - is a callout armed?
 * @c: the handle.
 *
 * A snapshot: without the caller's own serialisation the answer may be
 * stale when it arrives.  A callout whose function is running is not
 * pending unless it was armed again; nor is a lock-associated callout
 * whose tick has come while its function waits for the lock, though
 * unsetcallout() under that lock still cancels it (as FreeBSD's
 * callout_pending() and callout_stop() behave).
 *
 * Context: any but NMI.
 * Return: true if @c is armed and has not yet run; false for %NULL and for
 * a handle never initialised (zero-filled, say).
 */
bool callout_pending(const struct callout *c)
{
	return c && callout_valid(c) &&
	       READ_ONCE(c->entry.slot) != TWHEEL_SLOT_IDLE;
}
EXPORT_SYMBOL_GPL(callout_pending);

/*
 * Set up a callout that timeout() has just taken from its free list or the
 * allocator, and so knows is not pending: callout_init() without its check.
 */
void twheel_init_timeout(struct callout *c, const char *name,
			 struct lock_class_key *key)
{
	callout_setup(c, OWNER_TIMEOUT, name, key);
}
