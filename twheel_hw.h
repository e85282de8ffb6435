/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_hw.h - the per-CPU bases, and arming and cancelling a callout on
 * them, inline.
 *
 * What twheel_hw.c offers the rest: the base of each CPU, the owner word
 * of a handle, the tick clock; and the hot pieces of an arming and a
 * cancel, which twheel_callout.c (the handle API) and twheel_bsd.c
 * (timeout()) compile in, as they compile in the wheels' hot paths from
 * twheel_core.h.  A call into another file, with its entry and return,
 * costs a pair of setcallout() and unsetcallout() about ten of its 400 or
 * so instructions.  The DOC block of twheel_hw.c explains the base and
 * its locking.
 */
#ifndef _TWHEEL_HW_H
#define _TWHEEL_HW_H

#include <linux/bitfield.h>
#include <linux/debugobjects.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "twheel.h"
#include "twheel_core.h"
#include "twheel_internal.h"

/**
 * struct twheel_clock - the tick clock: tick k begins at k * @tick_ns ns
 *	of CLOCK_MONOTONIC
 * @tick_ns: a tick's length, the module parameter tick_ns.
 * @recip: twheel_recip(@tick_ns).
 * @last: the last tick whose start a ktime_t holds.
 *
 * Set once by twheel_engine_init(), before any callout can be armed.
 */
struct twheel_clock {
	u64 tick_ns;
	u64 recip;
	u64 last;
};

extern struct twheel_clock twheel_clock;

/**
 * struct twheel_base - one CPU's callouts
 * @lock: see "Locking" in twheel_hw.c's DOC block.
 * @in_tick: @tick_timer's callback is running; it will program
 *	@tick_timer itself before it returns.  Locked by @lock.
 * @online: the CPU is online and its tick timer may be programmed.  Locked
 *	by @lock; arm_target() reads it without, to pick a base.
 * @programmed: the tick @tick_timer is set for, %U64_MAX if it is not set.
 *	Locked by @lock.
 * @running: the callout whose function is running, or %NULL.  Locked by
 *	@lock.
 * @runner: the task that runs @running's function, so that a sync cancel
 *	can tell the function (or what interrupted it) from another caller.
 *	Locked by @lock; meaningful while @running is set.
 * @move_to: the CPU that @running, armed again with a CPU named while its
 *	function runs, moves to once the function has returned, or
 *	%CALLOUT_CPU_ANY to stay.  Locked by @lock.
 * @run_pending: @running is a lock-associated callout whose function
 *	waits for the callout's lock and has not started; cancelling @running
 *	clears it, and the function is then not called.  Locked by @lock.
 * @run_cancelled: @running was cancelled while its function ran, not
 *	being pending then (unsetcallout() returned 0); twheel_timer.h's
 *	wait for jiffies does not arm it again (__twheel_timer_defer()).
 *	Locked by @lock.
 * @waiters: someone sleeps on @wait until @running or @in_tick changes.
 *	Locked by @lock.
 * @frozen: while not 0, the tick timer does not advance the wheel, so
 *	that no entry moves and no function starts: one for
 *	twheel_engine_freeze(), one for each walk of the debugfs listing
 *	(hold_wheel()).  Locked by @lock.
 * @wheel: the CPU's wheel.  Locked by @lock.
 * @tick_timer: the tick timer, an hrtimer pinned to the CPU, expiring in
 *	softirq context.
 * @kick: programs @tick_timer on the CPU, for another CPU that armed a
 *	callout here sooner than @tick_timer is set for.
 * @kicked: @kick is on its way.  Locked by @lock.
 * @tick_start: CLOCK_MONOTONIC ns when @tick_timer's callback began, and
 * @tick_to: the tick it advances the wheel to; for the lateness figures.
 *	Locked by @lock.
 * @fn_ns: ns spent in callout functions by the running callback.  Locked by
 *	@lock.
 * @stats: see &struct twheel_cpu_stats; @stats.wheel is kept in @wheel.
 *	Locked by @lock, but for the timeout() counters, which are per-CPU
 *	increments safe in any context.
 * @wait: where unsetcallout_sync() and twheel_engine_freeze() sleep.
 * @cpu: the CPU.
 *
 * What arming and cancelling touch comes first, the wheel's own hot fields
 * (see &struct twheel) right after it.
 */
struct twheel_base {
	raw_spinlock_t lock;
	bool in_tick;
	bool online;
	bool waiters;
	unsigned int frozen;
	bool run_pending;
	bool run_cancelled;
	u64 programmed;
	struct callout *running;
	struct task_struct *runner;
	int move_to;
	struct twheel wheel;
	struct hrtimer tick_timer;
	call_single_data_t kick;
	bool kicked;
	u64 tick_start;
	u64 tick_to;
	u64 fn_ns;
	struct twheel_cpu_stats stats;
	struct wait_queue_head wait;
	unsigned int cpu;
};

/* Allocated at load: too large for the static per-CPU area of modules. */
extern struct twheel_base __percpu *twheel_bases;

/*
 * callout.entry.owner: the CPU whose base holds the callout, whether it is
 * moving between bases, whether timeout() allocated it, whether debug
 * objects track it, whether its function runs under callout.lock (a raw
 * one or not; released by twheel or by the function), whether it keeps
 * its CPU (%CALLOUT_PINNED), whether it was shut down, and a magic number
 * that tells an initialised handle from a stray one.
 */
#define OWNER_CPU_BITS		16
#define OWNER_CPU		GENMASK(OWNER_CPU_BITS - 1, 0)
#define OWNER_MOVING		BIT(OWNER_CPU_BITS)
#define OWNER_TIMEOUT		BIT(OWNER_CPU_BITS + 1)
#define OWNER_TRACKED		BIT(OWNER_CPU_BITS + 2)
#define OWNER_LOCKED		BIT(OWNER_CPU_BITS + 3)
#define OWNER_RAW		BIT(OWNER_CPU_BITS + 4)
#define OWNER_UNLOCKS		BIT(OWNER_CPU_BITS + 5)
#define OWNER_STAYS		BIT(OWNER_CPU_BITS + 6)
#define OWNER_SHUT		BIT(OWNER_CPU_BITS + 7)
#define OWNER_MAGIC		GENMASK(31, 24)
#define OWNER_MAGIC_VALUE	0xc7

/* The owner's fields do not overlap the magic number. */
static_assert(!((OWNER_CPU | OWNER_MOVING | OWNER_TIMEOUT |
		 OWNER_TRACKED | OWNER_LOCKED | OWNER_RAW |
		 OWNER_UNLOCKS | OWNER_STAYS | OWNER_SHUT) &
		OWNER_MAGIC));
/* DEFINE_CALLOUT()'s handles carry the magic number, on CPU 0. */
static_assert(__CALLOUT_OWNER_STATIC ==
	      (u32)OWNER_MAGIC_VALUE << __bf_shf(OWNER_MAGIC));
/* Every CPU the kernel can have fits the owner's CPU field. */
static_assert(BIT(OWNER_CPU_BITS) >= CONFIG_NR_CPUS);
/* The tick clock stays below the wheels' limit at any allowed tick. */
static_assert(U64_MAX / TWHEEL_MIN_TICK_NS < TWHEEL_CLOCK_LIMIT);
/*
 * setcallout() arms for now + ticks + 1 on a wheel whose clock may lag
 * the tick clock by up to all of it: the wheel never refuses that, nor
 * the tick of any deadline a ktime_t holds.
 */
static_assert(CALLOUT_MAX_TICKS + 1 <=
	      TWHEEL_MAX_INTERVAL - U64_MAX / TWHEEL_MIN_TICK_NS);
static_assert(KTIME_MAX / TWHEEL_MIN_TICK_NS + 1 <= CALLOUT_MAX_TICKS);
/* A callout is no bigger than a timer_list and its expiry in ns. */
static_assert(sizeof(struct callout) <= 56 ||
	      IS_ENABLED(CONFIG_LOCKDEP));

static __always_inline bool callout_valid(const struct callout *c)
{
	u32 owner = READ_ONCE(c->entry.owner);

	return FIELD_GET(OWNER_MAGIC, owner) == OWNER_MAGIC_VALUE &&
	       FIELD_GET(OWNER_CPU, owner) < nr_cpu_ids &&
	       cpu_possible(FIELD_GET(OWNER_CPU, owner));
}

/* Debug objects: twheel_hw.c. */
extern const struct debug_obj_descr callout_debug_descr;

static inline bool callout_tracked(const struct callout *c)
{
	return IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) &&
	       (c->entry.owner & OWNER_TRACKED);
}

/* @c has just become pending, or stopped being pending. */
static inline void callout_debug_activate(struct callout *c)
{
	if (callout_tracked(c))
		debug_object_activate(c, &callout_debug_descr);
}

static inline void callout_debug_deactivate(struct callout *c)
{
	if (callout_tracked(c))
		debug_object_deactivate(c, &callout_debug_descr);
}

static inline u32 owner_on(u32 owner, unsigned int cpu)
{
	return (owner & ~(OWNER_CPU | OWNER_MOVING)) |
	       FIELD_PREP(OWNER_CPU, cpu);
}

/* The tick @ns falls in. */
static inline u64 ns_to_tick(u64 ns)
{
	return twheel_div_recip(ns, twheel_clock.tick_ns, twheel_clock.recip);
}

/* The tick now running: the one that began last. */
static inline u64 current_tick(void)
{
	return ns_to_tick(ktime_get_ns());
}

static inline ktime_t tick_to_ktime(u64 tick)
{
	if (tick > twheel_clock.last)
		return KTIME_MAX;
	return ns_to_ktime(tick * twheel_clock.tick_ns);
}

/*
 * The deadline of @c's last arming.  callout.when holds it, or 0 for the
 * start of the tick the callout is due on: setcallout() stores that, so
 * that its path has no multiply to do.
 */
static inline u64 callout_deadline(const struct callout *c)
{
	u64 when = READ_ONCE(c->when);

	return when ?: tick_to_ktime(READ_ONCE(c->entry.expires));
}

/* The trace events read a callout's deadline with callout_deadline(). */
#include "twheel_trace.h"

/*
 * Lock and return the base @c is on; interrupts are off.  Inlined: it is
 * half of what unsetcallout() does.
 */
static __always_inline struct twheel_base *
lock_callout_base_irqoff(struct callout *c)
	__acquires(&base->lock)
{
	lockdep_assert_irqs_disabled();
	for (;;) {
		u32 owner = READ_ONCE(c->entry.owner);

		if (!(owner & OWNER_MOVING)) {
			struct twheel_base *base;

			base = per_cpu_ptr(twheel_bases,
					   FIELD_GET(OWNER_CPU, owner));
			raw_spin_lock(&base->lock);
			if (READ_ONCE(c->entry.owner) == owner)
				return base;
			raw_spin_unlock(&base->lock);
		}
		cpu_relax();
	}
}

/* Lock and return the base @c is on, saving and disabling interrupts. */
static __always_inline struct twheel_base *
lock_callout_base(struct callout *c, unsigned long *flags)
	__acquires(&base->lock)
{
	local_irq_save(*flags);
	return lock_callout_base_irqoff(c);
}

void twheel_tick_timer_start(struct twheel_base *base, u64 next);

/*
 * Program @base's tick timer for tick @next, if that is sooner than it is
 * set for.  Not while its callback runs (the callback programs it on its way
 * out) nor while the CPU is going down.  A pinned hrtimer is started from
 * its own CPU: another CPU's is kicked to do it (twheel_kick()).  The
 * test is inline: most armings need no interrupt sooner.
 */
static __always_inline void tick_timer_set(struct twheel_base *base, u64 next)
{
	lockdep_assert_held(&base->lock);
	if (base->in_tick || !base->online || next >= base->programmed)
		return;
	twheel_tick_timer_start(base, next);
}

/*
 * Bring an empty wheel's clock up to @now before arming it: a wheel is not
 * advanced while it sleeps, and would otherwise walk all the time it slept
 * on its first tick.  Not while its tick runs, which owns the clock.
 */
static inline void wake_idle_wheel(struct twheel_base *base, u64 now)
{
	lockdep_assert_held(&base->lock);
	if (!base->wheel.count && !base->in_tick)
		twheel_forward(&base->wheel, now);
}

/*
 * Is @c's function waiting for its lock on @base, not yet started?  Then
 * it will not be called.
 */
static inline bool cancel_run_locked(struct twheel_base *base,
				     struct callout *c)
{
	lockdep_assert_held(&base->lock);
	if (likely(base->running != c) || !base->run_pending)
		return false;
	base->run_pending = false;
	return true;
}

/*
 * Take @c off @base's wheel, or stop its function that waits for its lock;
 * true if it was pending in either way.  Inline: it is unsetcallout()'s
 * whole work, which the tracepoint's out-of-line code would otherwise put
 * behind a call of its own; always, for twheel_cancel_timeout() too.
 */
static __always_inline bool cancel_locked(struct twheel_base *base,
					  struct callout *c)
{
	lockdep_assert_held(&base->lock);
	if (__twheel_del(&base->wheel, &c->entry)) {
		callout_debug_deactivate(c);
	} else if (!cancel_run_locked(base, c)) {
		/* Running: __twheel_timer_defer() must not arm it again. */
		if (base->running == c)
			base->run_cancelled = true;
		return false;
	}
	/* Its function, running, armed it for another CPU: not any more. */
	if (unlikely(base->move_to != CALLOUT_CPU_ANY) && base->running == c)
		base->move_to = CALLOUT_CPU_ANY;
	base->stats.stopped++;
	trace_callout_cancel(c);
	return true;
}

/*
 * Cancel @c, a valid handle, under its base's lock: unsetcallout()'s
 * whole work.
 */
static __always_inline int cancel_callout(struct callout *c)
{
	struct twheel_base *base;
	unsigned long flags;
	int ret;

	base = lock_callout_base(c, &flags);
	ret = cancel_locked(base, c);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/*
 * Where an arming puts @c, whose base is locked: @cpu's base if one is
 * named, a pinned callout's own once it has been armed, else the calling
 * CPU's; %NULL if @cpu is not online.  A base whose CPU goes down still
 * takes callouts until its dead callback has moved them all, and that
 * callback cannot start while interrupts are off here (the CPU's death
 * waits for stop_machine()), so a base seen online is never one that
 * nothing will drain.
 */
static inline struct twheel_base *arm_target(struct callout *c, int cpu)
{
	struct twheel_base *base;
	u32 owner = c->entry.owner;

	if (cpu != CALLOUT_CPU_ANY) {
		base = per_cpu_ptr(twheel_bases, cpu);
		return READ_ONCE(base->online) ? base : NULL;
	}
	if ((owner & OWNER_STAYS) && c->func) {
		base = per_cpu_ptr(twheel_bases, FIELD_GET(OWNER_CPU, owner));
		if (READ_ONCE(base->online))
			return base;
	}
	return this_cpu_ptr(twheel_bases);
}

/*
 * The tick from @first to @last to arm a callout for on @base: one on
 * which @base takes an interrupt anyway, the one its tick timer is set for
 * or one with work, else the range's roundest (twheel_coalesce()).
 */
static inline u64 coalesce(struct twheel_base *base, u64 first, u64 last)
{
	u64 busy = base->programmed;

	lockdep_assert_held(&base->lock);
	if (busy < first || busy > last)
		busy = twheel_busy_tick(&base->wheel, first, last);
	return twheel_coalesce(first, last, busy);
}

/*
 * Not a condition of setcallout_on()'s: arm only a callout that is not
 * pending, and was not cancelled while its function ran (twheel_timer.h's
 * wait for jiffies, __twheel_timer_defer()).
 */
#define ARM_IF_IDLE		0x10000

/**
 * struct arming - one arming of a callout, as arm_callout() takes it
 * @now: the tick in which the caller read the clock.
 * @first: the first tick the callout may run on; and
 * @last: the last; arm_callout() picks one (twheel_coalesce()).
 * @when: the deadline in ns, or 0 for the start of @first (see
 *	callout_deadline()).
 * @cpu: the CPU to run on, or %CALLOUT_CPU_ANY: where setcallout() puts it.
 * @how: setcallout_on()'s conditions, and %ARM_IF_IDLE; 0 for none.
 * @shut: what the call returns for a callout that was shut down.
 * @jiffies_at: if set, where @jiffies is written, under the base lock, if
 *	the arming goes ahead: a twheel_timer's ->expires, so that it always
 *	names the arming the timer has (twheel_timer.h).
 * @jiffies: the value for @jiffies_at.
 */
struct arming {
	u64 now;
	u64 first;
	u64 last;
	u64 when;
	int cpu;
	unsigned int how;
	int shut;
	unsigned long *jiffies_at;
	unsigned long jiffies;
};

/*
 * Whether an arming for the ticks @first to @last with the conditions @how
 * (&struct arming's) goes ahead on @c, whose base @base is locked: -1 if
 * it does, else what the call returns, nothing changed.  Pending here is
 * what unsetcallout() would cancel.  With %CALLOUT_IF_SOONER, a pending
 * arming is kept if the tick chosen for it lies no later than the last of
 * the new range (an exact one's first): it then runs no later than the
 * new caller allows.  Its deadline is not what counts: an arming with a
 * precision may sit on a tick well after it.
 */
static inline int arm_condition(struct twheel_base *base,
				struct callout *c, unsigned int how, u64 first,
				u64 last)
{
	bool pending = c->entry.slot != TWHEEL_SLOT_IDLE ||
		       (base->running == c && base->run_pending);

	if (!pending) {
		/* Cancelled while its function ran: stays so. */
		if ((how & ARM_IF_IDLE) && base->running == c &&
		    base->run_cancelled)
			return 0;
		return how & CALLOUT_IF_PENDING ? 0 : -1;
	}
	if (how & ARM_IF_IDLE)
		return 1;
	if ((how & CALLOUT_IF_SOONER) && c->entry.expires <= max(first, last))
		return 1;
	return -1;
}

/*
 * Arm @c, a valid handle, with interrupts off, as @a says: for a tick from
 * @a->first to @a->last, on @a->cpu, if @a->how's conditions allow; @fresh
 * if @c has just been taken by timeout(), which has set its function and
 * argument, and so no one else can see it and it is neither pending nor
 * running: it is then armed on this CPU's base without a look at where it
 * was, @a->cpu and @a->how being %CALLOUT_CPU_ANY and 0.  Every arming
 * comes here: timeout() under the lock of its hash chain.  Inlined, with
 * @a built by the caller on its stack, so that setcallout(), which names
 * no CPU, takes no range and sets no condition, pays for none of them.
 *
 * A callout whose function is running stays on its base, so that the
 * function never runs on two CPUs at once; armed for a CPU named, it moves
 * there once the function has returned (move_after_run()).
 *
 * Return: as setcallout(); -%ENODEV if @a->cpu is offline, @a->shut if @c
 * was shut down, both with nothing changed; arm_condition()'s answer if
 * it refused.
 */
static __always_inline int arm_callout(struct callout *c,
				       callout_func_t func, void *arg,
				       const struct arming *a, bool fresh)
{
	struct twheel_base *base, *target;
	u64 expires = a->first;
	int ret = 0;

	if (fresh) {
		base = this_cpu_ptr(twheel_bases);
		target = base;
		raw_spin_lock(&base->lock);
		WRITE_ONCE(c->entry.owner, owner_on(c->entry.owner, base->cpu));
	} else {
		base = lock_callout_base_irqoff(c);
		if (likely(a->cpu == CALLOUT_CPU_ANY && !a->how &&
			   !(c->entry.owner & (OWNER_STAYS | OWNER_SHUT)))) {
			target = this_cpu_ptr(twheel_bases);
		} else if (c->entry.owner & OWNER_SHUT) {
			ret = a->shut;
			goto unlock;
		} else {
			if (a->how) {
				ret = arm_condition(base, c, a->how, a->first,
						    a->last);
				if (ret >= 0)
					goto unlock;
				ret = 0;
			}
			target = arm_target(c, a->cpu);
			if (!target) {
				ret = -ENODEV;
				goto unlock;
			}
		}
	}
	if (base != target) {
		if (unlikely(base->running == c)) {
			/* It stays while its function runs: move_after_run(). */
			base->move_to = a->cpu != CALLOUT_CPU_ANY ? target->cpu :
							       CALLOUT_CPU_ANY;
		} else {
			ret = twheel_del(&base->wheel, &c->entry);
			WRITE_ONCE(c->entry.owner,
				   c->entry.owner | OWNER_MOVING);
			raw_spin_unlock(&base->lock);
			base = target;
			raw_spin_lock(&base->lock);
			WRITE_ONCE(c->entry.owner,
				   owner_on(c->entry.owner, base->cpu));
		}
	} else if (unlikely(base->move_to != CALLOUT_CPU_ANY) &&
		   base->running == c) {
		/* Armed here again after a CPU was named: it stays. */
		base->move_to = CALLOUT_CPU_ANY;
	}
	/* A fresh callout's are timeout()'s hash key, set already. */
	if (!fresh) {
		c->func = func;
		c->arg = arg;
	}
	WRITE_ONCE(c->when, a->when);
	if (a->jiffies_at)
		WRITE_ONCE(*a->jiffies_at, a->jiffies);
	wake_idle_wheel(base, a->now);
	if (unlikely(a->last > a->first))
		expires = coalesce(base, a->first, a->last);
	ret |= __twheel_add_at(&base->wheel, &c->entry, expires);
	WARN_ON_ONCE(ret < 0);
	if (!ret) {
		callout_debug_activate(c);
		/* Its function waiting for its lock now will not run. */
		if (unlikely(c->entry.owner & OWNER_LOCKED))
			ret = cancel_run_locked(base, c);
	}
	if (ret)
		trace_callout_cancel(c);
	if (trace_callout_start_enabled())
		trace_callout_start(c, expires, max(a->first, a->last),
				    base->cpu, ret);
	base->stats.started++;
	base->stats.rearmed += ret;
	/* timeout() took an entry; twheel_count_timeout_failed() counts misses. */
	if (fresh)
		base->stats.timeout_allocs++;
	base->stats.peak = max_t(u64, base->stats.peak, base->wheel.count);
	/*
	 * The wheel has lowered its hint to this entry's first visit if that
	 * comes sooner: the tick timer need only move then.
	 */
	tick_timer_set(base, twheel_next_hint(&base->wheel));
unlock:
	raw_spin_unlock(&base->lock);
	return ret;
}

/*
 * The last tick an arming for @when ns with @precision may run on: the
 * last that begins by @when + @precision.  @when is at most %KTIME_MAX,
 * and so is the sum.
 */
static inline u64 range_last(u64 when, u64 precision)
{
	return ns_to_tick(when + min_t(u64, precision, KTIME_MAX - when));
}

#endif /* _TWHEEL_HW_H */
