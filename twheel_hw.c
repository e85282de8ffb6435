// SPDX-License-Identifier: GPL-2.0
/*
 * The callout engine: one wheel per CPU, each driven by a per-CPU hrtimer,
 * the paper's "hardware" clock; the handle API (setcallout() and its
 * kin); CPU hotplug.  It calls only the wheels (twheel_core.c); the module's
 * parameters, load and unload are twheel_main.c's.
 */

/**
 * DOC: twheel callout engine
 *
 * Every possible CPU has a &struct twheel_base: a wheel (twheel_core.c), a
 * raw spinlock and an hrtimer in softirq mode, pinned to the CPU.  The
 * paper's Appendix B (symmetric multiprocessing) observes that Schemes 5-7
 * suit processors that would otherwise queue for one locked structure;
 * per-CPU wheels take that to the end.  A callout is armed on the wheel of
 * the CPU that arms it and runs there, in softirq context, from the
 * hrtimer's callback.
 *
 * Time.  Tick k begins at k * tick_ns nanoseconds of CLOCK_MONOTONIC, the
 * same on all CPUs.  setcallout(c, f, a, n) called during tick T makes c due
 * on tick T + n + 1, so at least n whole ticks pass before it runs; n = 0
 * means the next tick.
 *
 * CPU hotplug.  A CPU going down stops its tick first (CPUHP_AP_ONLINE_DYN)
 * and hands its callouts to the CPU taking it down once it is dead
 * (CPUHP_BP_PREPARE_DYN); in between, what it has pending waits, late but
 * never lost, as kernel timers do.
 *
 * Tickless.  The hrtimer is programmed for the next tick on which the
 * wheel has work (the busy-slot bitmap is the Appendix A assist; between
 * ticks the wheel keeps it as a hint that arming lowers), and is not
 * restarted once the wheel is empty.  Cancelling leaves it as it is, even
 * for a wheel's last callout: it then fires once into an empty wheel and
 * stops, so that setting and cancelling a CPU's only callout again and
 * again costs no hrtimer work, and an idle CPU still takes no twheel
 * interrupt after that one.  When it fires,
 * however late, the wheel advances to the current tick and runs everything
 * that came due, in order, a batch of %TWHEEL_BATCH entries at a time: the
 * base lock, with interrupts off, is held for one batch, and with work left
 * the hrtimer is set to fire again at once, so a tick with 10^5 entries due
 * or a catch-up after a stall never keeps interrupts off for long.
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
 * started.  A cancel or re-arm in that window, which under the client's
 * lock is the only kind there is, clears run_pending and counts as
 * cancelling a pending callout (returns 1); the expiry, once it has the
 * lock, finds the flag clear, releases the lock and calls nothing.  Lock
 * order: the client's lock, then the base lock; the expiry never holds the
 * base lock while it waits for the client's.
 *
 * Locking.  Holding a base's lock means that its wheel, its clock and
 * hrtimer bookkeeping, and every callout whose entry.owner names the base
 * (func, arg, entry) are stable.  A callout's base changes only under the
 * old base's lock, with %CALLOUT_MOVING set in entry.owner until the new
 * base's lock is held, so lock_callout_base() can find the right lock
 * without one of its own.  The lock is dropped while a callout's function
 * runs.  Two base locks are held together only by the CPU hotplug dead
 * callback, which takes its own CPU's first.  No lock is held for more
 * than %TWHEEL_BATCH entries of work: the tick's batches, and the walks
 * of a wheel with a cursor, every wheel's when a module goes
 * (twheel_engine_cancel_if()) and one CPU's for the debugfs listing
 * (twheel_callouts_read()), each of which leaves its cursor's mark in one
 * of the wheel's lists while the lock is dropped.  Each holds the wheel
 * still meanwhile (twheel_engine_freeze(), hold_wheel()), so that the
 * tick moves no list the mark is in; the walks pass one another's marks,
 * and CPU hotplug, whose dead callback empties a wheel, waits.
 */

#include <linux/bitfield.h>
#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugobjects.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "twheel.h"
#include "twheel_core.h"
#include "twheel_core_inline.h"
#include "twheel_internal.h"
#include "twheel_timer.h"

/* The trace events read a callout's deadline with it. */
static u64 callout_deadline(const struct callout *c);

#define CREATE_TRACE_POINTS
#include "twheel_trace.h"

EXPORT_TRACEPOINT_SYMBOL_GPL(callout_init);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_start);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_cancel);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_expire_entry);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_expire_exit);
EXPORT_TRACEPOINT_SYMBOL_GPL(wheel_tick);

/* Set once by twheel_engine_init(), before any callout can be armed. */
static u64 tick_ns;
static u64 tick_recip;		/* twheel_recip(tick_ns) */
static u64 tick_last;		/* the last tick whose start a ktime_t holds */
static struct twheel_geometry twheel_geo;
static twheel_release_fn twheel_release;

/**
 * struct twheel_base - one CPU's callouts
 * @lock: see "Locking" in the DOC block above.
 * @in_tick: @timer's callback is running; it will program @timer itself
 *	before it returns.  Locked by @lock.
 * @online: the CPU is online and its hrtimer may be programmed.  Locked
 *	by @lock; arm_target() reads it without, to pick a base.
 * @programmed: the tick @timer is set for, %U64_MAX if it is not set.
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
 * @frozen: while not 0, the tick does not advance the wheel, so that no
 *	entry moves and no function starts: one for twheel_engine_freeze(),
 *	one for each walk of the debugfs listing (hold_wheel()).  Locked by
 *	@lock.
 * @wheel: the CPU's wheel.  Locked by @lock.
 * @timer: the tick: pinned to the CPU, expiring in softirq context.
 * @kick: programs @timer on the CPU, for another CPU that armed a callout
 *	here sooner than @timer is set for.
 * @kicked: @kick is on its way.  Locked by @lock.
 * @tick_start: CLOCK_MONOTONIC ns when @timer's callback began, and
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
	struct hrtimer timer;
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
static struct twheel_base __percpu *twheel_bases;
static int twheel_online_state;
static int twheel_dead_state;

/*
 * callout.entry.owner: the CPU whose base holds the callout, whether it is
 * moving between bases, whether timeout() allocated it, whether debug
 * objects track it, whether its function runs under callout.lock (a raw
 * one or not; released by twheel or by the function), whether it keeps
 * its CPU (%CALLOUT_PINNED), whether it was shut down, and a magic number
 * that tells an initialised handle from a stray one.
 */
#define CALLOUT_CPU_BITS	16
#define CALLOUT_CPU		GENMASK(CALLOUT_CPU_BITS - 1, 0)
#define CALLOUT_MOVING		BIT(CALLOUT_CPU_BITS)
#define CALLOUT_TIMEOUT		BIT(CALLOUT_CPU_BITS + 1)
#define CALLOUT_TRACKED		BIT(CALLOUT_CPU_BITS + 2)
#define CALLOUT_LOCKED		BIT(CALLOUT_CPU_BITS + 3)
#define CALLOUT_RAW		BIT(CALLOUT_CPU_BITS + 4)
#define CALLOUT_UNLOCKS		BIT(CALLOUT_CPU_BITS + 5)
#define CALLOUT_STAYS		BIT(CALLOUT_CPU_BITS + 6)
#define CALLOUT_SHUT		BIT(CALLOUT_CPU_BITS + 7)
#define CALLOUT_MAGIC		GENMASK(31, 24)
#define CALLOUT_MAGIC_VALUE	0xc7

/* The owner's fields do not overlap the magic number. */
static_assert(!((CALLOUT_CPU | CALLOUT_MOVING | CALLOUT_TIMEOUT |
		 CALLOUT_TRACKED | CALLOUT_LOCKED | CALLOUT_RAW |
		 CALLOUT_UNLOCKS | CALLOUT_STAYS | CALLOUT_SHUT) &
		CALLOUT_MAGIC));
/* DEFINE_CALLOUT()'s handles carry the magic number, on CPU 0. */
static_assert(__CALLOUT_OWNER_STATIC ==
	      (u32)CALLOUT_MAGIC_VALUE << __bf_shf(CALLOUT_MAGIC));
/* Every CPU the kernel can have fits the owner's CPU field. */
static_assert(BIT(CALLOUT_CPU_BITS) >= CONFIG_NR_CPUS);
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

	return FIELD_GET(CALLOUT_MAGIC, owner) == CALLOUT_MAGIC_VALUE &&
	       FIELD_GET(CALLOUT_CPU, owner) < nr_cpu_ids &&
	       cpu_possible(FIELD_GET(CALLOUT_CPU, owner));
}

/*
 * Debug objects, as timer_list has them (CONFIG_DEBUG_OBJECTS_TIMERS): a
 * handle is tracked from callout_init() and active while it is pending, so
 * that freeing the memory of a pending handle is reported, naming its
 * function, and the handle is cancelled before the memory goes.  Handles
 * on the stack are not tracked: no call says when their frame ends.
 */
static const struct debug_obj_descr callout_debug_descr;

static void *callout_debug_hint(void *addr)
{
	return ((struct callout *)addr)->func;
}

/* Memory holding a pending handle is being freed: cancel it first. */
static bool callout_fixup_free(void *addr, enum debug_obj_state state)
{
	struct callout *c = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	unsetcallout(c);
	debug_object_free(c, &callout_debug_descr);
	return true;
}

static const struct debug_obj_descr callout_debug_descr = {
	.name		= "callout",
	.debug_hint	= callout_debug_hint,
	.fixup_free	= callout_fixup_free,
};

static bool callout_tracked(const struct callout *c)
{
	return IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) &&
	       (c->entry.owner & CALLOUT_TRACKED);
}

/* @c has just become pending, or stopped being pending. */
static void callout_debug_activate(struct callout *c)
{
	if (callout_tracked(c))
		debug_object_activate(c, &callout_debug_descr);
}

static void callout_debug_deactivate(struct callout *c)
{
	if (callout_tracked(c))
		debug_object_deactivate(c, &callout_debug_descr);
}

static u32 owner_on(u32 owner, unsigned int cpu)
{
	return (owner & ~(CALLOUT_CPU | CALLOUT_MOVING)) |
	       FIELD_PREP(CALLOUT_CPU, cpu);
}

/* The tick @ns falls in. */
static u64 ns_to_tick(u64 ns)
{
	return twheel_div_recip(ns, tick_ns, tick_recip);
}

/* The tick now running: the one that began last. */
static u64 current_tick(void)
{
	return ns_to_tick(ktime_get_ns());
}

static ktime_t tick_to_ktime(u64 tick)
{
	if (tick > tick_last)
		return KTIME_MAX;
	return ns_to_ktime(tick * tick_ns);
}

/*
 * The deadline of @c's last arming.  callout.when holds it, or 0 for the
 * start of the tick the callout is due on: setcallout() stores that, so
 * that its path has no multiply to do.
 */
static u64 callout_deadline(const struct callout *c)
{
	u64 when = READ_ONCE(c->when);

	return when ?: tick_to_ktime(READ_ONCE(c->entry.expires));
}

static void hist_add(u64 *hist, u64 v)
{
	hist[min_t(unsigned int, fls64(v), TWHEEL_HIST_BUCKETS - 1)]++;
}

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

		if (!(owner & CALLOUT_MOVING)) {
			struct twheel_base *base;

			base = per_cpu_ptr(twheel_bases,
					   FIELD_GET(CALLOUT_CPU, owner));
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

/* arm_tick() once it has found that the hrtimer must be programmed. */
static noinline void arm_tick_program(struct twheel_base *base, u64 next)
{
	if (unlikely(base != this_cpu_ptr(twheel_bases))) {
		if (!base->kicked &&
		    !smp_call_function_single_async(base->cpu, &base->kick))
			WRITE_ONCE(base->kicked, true);
		return;
	}
	base->programmed = next;
	hrtimer_start(&base->timer, tick_to_ktime(next),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/*
 * Program @base's hrtimer for tick @next, if that is sooner than it is set
 * for.  Not while its callback runs (the callback programs it on its way
 * out) nor while the CPU is going down.  A pinned hrtimer is started from
 * its own CPU: another CPU's is kicked to do it (twheel_kick()).  The
 * test is inline: most armings need no interrupt sooner.
 */
static __always_inline void arm_tick(struct twheel_base *base, u64 next)
{
	lockdep_assert_held(&base->lock);
	if (base->in_tick || !base->online || next >= base->programmed)
		return;
	arm_tick_program(base, next);
}

/*
 * On @info's CPU, in hardirq context: program the hrtimer for what another
 * CPU armed there.  A CPU going down runs the calls queued for it before
 * it dies; its base is offline by then, and the dead callback moves the
 * callouts on.
 */
static void twheel_kick(void *info)
{
	struct twheel_base *base = info;

	raw_spin_lock(&base->lock);
	WRITE_ONCE(base->kicked, false);
	arm_tick(base, twheel_next_hint(&base->wheel));
	raw_spin_unlock(&base->lock);
}

/*
 * Bring an empty wheel's clock up to @now before arming it: a wheel is not
 * advanced while it sleeps, and would otherwise walk all the time it slept
 * on its first tick.  Not while its tick runs, which owns the clock.
 */
static void wake_idle_wheel(struct twheel_base *base, u64 now)
{
	lockdep_assert_held(&base->lock);
	if (!base->wheel.count && !base->in_tick)
		twheel_forward(&base->wheel, now);
}

/*
 * Is @c's function waiting for its lock on @base, not yet started?  Then
 * it will not be called.
 */
static bool cancel_run_locked(struct twheel_base *base, struct callout *c)
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

static void callout_lock(void *lock, u32 owner)
{
	if (owner & CALLOUT_RAW)
		raw_spin_lock(lock);
	else
		spin_lock(lock);
}

static void callout_unlock(void *lock, u32 owner)
{
	if (owner & CALLOUT_RAW)
		raw_spin_unlock(lock);
	else
		spin_unlock(lock);
}

/*
 * Take the lock of @c, a lock-associated callout that @base is running,
 * and say whether its function is still to be called.  If not (it was
 * cancelled or re-armed while this waited for the lock), the lock is
 * released again.
 */
static bool callout_lock_run(struct twheel_base *base, struct callout *c,
			     void *lock, u32 owner)
{
	bool run;

	callout_lock(lock, owner);
	raw_spin_lock_irq(&base->lock);
	run = base->run_pending;
	base->run_pending = false;
	base->stats.expired += run;
	raw_spin_unlock_irq(&base->lock);
	if (!run)
		callout_unlock(lock, owner);
	return run;
}

/*
 * Run one callout's function, due at @when ns; with its lock held if it
 * has one (@lock, @owner say which and how).  The function may free the
 * callout, so lockdep's map is copied first, as call_timer_fn() does; the
 * callout's lock is taken inside the map, so that lockdep sees
 * unsetcallout_sync() with that lock held wait for it.
 */
static void twheel_call(struct twheel_base *base, struct callout *c,
			callout_func_t func, void *arg, u64 when, u32 owner,
			void *lock)
{
	int count = preempt_count();
#ifdef CONFIG_LOCKDEP
	struct lockdep_map map;

	lockdep_copy_map(&map, &c->lockdep_map);
	lock_map_acquire(&map);
#endif
	if (unlikely(owner & CALLOUT_LOCKED) &&
	    !callout_lock_run(base, c, lock, owner))
		goto out;
	if (trace_callout_expire_entry_enabled()) {
		u64 ns = ktime_get_ns();

		trace_callout_expire_entry(c, func, ns_to_tick(ns),
					   ns - min(ns, when));
	}
	func(arg);
	trace_callout_expire_exit(c);
	if (unlikely((owner & (CALLOUT_LOCKED | CALLOUT_UNLOCKS)) ==
		     CALLOUT_LOCKED))
		callout_unlock(lock, owner);
out:
#ifdef CONFIG_LOCKDEP
	lock_map_release(&map);
#endif
	if (WARN_ONCE(preempt_count() != count,
		      "twheel: callout %ps changed the preempt count\n", func))
		preempt_count_set(count);
}

/*
 * @c, whose function has just returned on @base, was armed again while it
 * ran, for the CPU @base->move_to names: it stayed here while its function
 * ran, so as not to run on two CPUs at once, and moves there now, keeping
 * the tick it was armed for, as add_timer_on() moves a running timer's
 * next arming.  If that CPU has gone offline meanwhile, it stays.  Any
 * other arming or cancel of @c since cleared @base->move_to, so @c is
 * pending here: its memory is still the client's.
 */
static void move_after_run(struct twheel_base *base, struct callout *c)
	__releases(&base->lock) __acquires(&base->lock)
{
	struct twheel_base *to = per_cpu_ptr(twheel_bases, base->move_to);
	u64 expires = c->entry.expires;

	lockdep_assert_held(&base->lock);
	base->move_to = CALLOUT_CPU_ANY;
	if (WARN_ON_ONCE(c->entry.slot == TWHEEL_SLOT_IDLE) ||
	    !READ_ONCE(to->online))
		return;
	twheel_del(&base->wheel, &c->entry);
	WRITE_ONCE(c->entry.owner, c->entry.owner | CALLOUT_MOVING);
	raw_spin_unlock(&base->lock);
	raw_spin_lock(&to->lock);
	WRITE_ONCE(c->entry.owner, owner_on(c->entry.owner, to->cpu));
	wake_idle_wheel(to, current_tick());
	WARN_ON_ONCE(twheel_add_at(&to->wheel, &c->entry, expires) < 0);
	to->stats.peak = max_t(u64, to->stats.peak, to->wheel.count);
	arm_tick(to, twheel_next_hint(&to->wheel));
	raw_spin_unlock(&to->lock);
	raw_spin_lock(&base->lock);
}

/*
 * The wheel's expiry function: run @e's callout with the lock dropped, and
 * hand one that timeout() armed back to be freed once it has run.
 *
 * Paper: EXPIRY PROCESSING.
 */
static void twheel_expire(struct twheel *w, struct twheel_entry *e, void *ctx)
	__releases(&base->lock) __acquires(&base->lock)
{
	struct twheel_base *base = ctx;
	struct callout *c = container_of(e, struct callout, entry);
	callout_func_t func = c->func;
	void *arg = c->arg;
	u32 owner = c->entry.owner;
	void *lock = NULL;
	u64 when = callout_deadline(c);
	u64 t0;

	lockdep_assert_held(&base->lock);
	hist_add(base->stats.late_ticks, base->tick_to - w->now);
	hist_add(base->stats.late_ns, base->tick_start - w->now * tick_ns);

	base->running = c;
	base->runner = current;
	base->run_cancelled = false;
	/* A lock-associated function is counted once it has its lock. */
	if (owner & CALLOUT_LOCKED) {
		lock = container_of(c, struct callout_locked, c)->lock;
		base->run_pending = true;
	} else {
		base->stats.expired++;
	}
	callout_debug_deactivate(c);
	raw_spin_unlock_irq(&base->lock);
	t0 = local_clock();
	twheel_call(base, c, func, arg, when, owner, lock);
	if (owner & CALLOUT_TIMEOUT)
		twheel_release(c);
	t0 = local_clock() - t0;
	raw_spin_lock_irq(&base->lock);
	base->fn_ns += t0;
	base->running = NULL;
	if (unlikely(base->move_to != CALLOUT_CPU_ANY))
		move_after_run(base, c);
	if (unlikely(base->waiters)) {
		base->waiters = false;
		raw_spin_unlock_irq(&base->lock);
		wake_up_all(&base->wait);
		raw_spin_lock_irq(&base->lock);
	}
}

/*
 * The tick: advance the wheel to the tick now running, then sleep until the
 * next one with work.
 *
 * Paper: the hardware clock's interrupt, with Appendix A's assist; it calls
 * PER TICK BOOKKEEPING (twheel_advance()).
 */
static enum hrtimer_restart twheel_tick(struct hrtimer *timer)
{
	struct twheel_base *base = container_of(timer, struct twheel_base,
						timer);
	struct twheel_stats *ws = &base->wheel.stats;
	u64 t0 = local_clock();
	u64 next, done, from, moved, ran;
	bool more, wake;

	raw_spin_lock_irq(&base->lock);
	base->stats.interrupts++;
	if (unlikely(base->frozen)) {
		/* twheel_engine_freeze(): look again on the next tick. */
		next = current_tick() + 1;
		base->programmed = base->online ? next : U64_MAX;
		if (base->online)
			hrtimer_start(timer, tick_to_ktime(next),
				      HRTIMER_MODE_ABS_PINNED_SOFT);
		raw_spin_unlock_irq(&base->lock);
		return HRTIMER_NORESTART;
	}
	base->in_tick = true;
	base->fn_ns = 0;
	base->tick_start = ktime_get_ns();
	base->tick_to = ns_to_tick(base->tick_start);
	from = base->wheel.now;
	moved = ws->migrated + ws->early_visits;
	done = ws->expired;
	ran = base->stats.expired;
	more = twheel_advance_batch(&base->wheel, base->tick_to, twheel_expire,
				    base, TWHEEL_BATCH);
	moved = ws->migrated + ws->early_visits - moved;
	done = moved + ws->expired - done;
	ran = base->stats.expired - ran;
	base->in_tick = false;

	/*
	 * Restart with hrtimer_start(), not a changed expiry and
	 * HRTIMER_RESTART: a hardirq may have started the timer again
	 * between its expiry and the lock above, and the expiry of a queued
	 * timer must not be changed in place.  With work left over from the
	 * batch, come back at once: the hrtimer core runs it on its next
	 * pass, and others may take the lock in between.
	 */
	next = twheel_next_hint(&base->wheel);
	if (next == U64_MAX || !base->online) {
		base->programmed = U64_MAX;
	} else {
		base->programmed = next;
		hrtimer_start(timer, more ? ktime_get() : tick_to_ktime(next),
			      HRTIMER_MODE_ABS_PINNED_SOFT);
	}
	hist_add(base->stats.work_entries, done);
	base->stats.work_max = max(base->stats.work_max, done);
	t0 = local_clock() - t0 - base->fn_ns;
	hist_add(base->stats.book_ns, t0);
	base->stats.work_ns += t0;
	trace_wheel_tick(base->wheel.now, base->wheel.now - from, moved, ran,
			 t0);
	wake = base->waiters;
	base->waiters = false;
	raw_spin_unlock_irq(&base->lock);
	if (unlikely(wake))
		wake_up_all(&base->wait);
	return HRTIMER_NORESTART;
}

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
		if ((owner & CALLOUT_MOVING) ||
		    FIELD_GET(CALLOUT_CPU, owner) >= nr_cpu_ids)
			return false;
		base = per_cpu_ptr(twheel_bases, FIELD_GET(CALLOUT_CPU, owner));
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
	u32 owner = FIELD_PREP(CALLOUT_MAGIC, CALLOUT_MAGIC_VALUE) |
		    FIELD_PREP(CALLOUT_CPU, raw_smp_processor_id()) | flags;

	twheel_entry_init(&c->entry);
	if (IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) &&
	    !object_is_on_stack(c)) {
		debug_object_init(c, &callout_debug_descr);
		owner |= CALLOUT_TRACKED;
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
	return callout_setup_idle(c, flags & CALLOUT_PINNED ? CALLOUT_STAYS : 0,
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
	u32 owner = CALLOUT_LOCKED;

	if (!lc || !lock ||
	    (flags & ~(CALLOUT_RETURNUNLOCKED | CALLOUT_PINNED)))
		return -EINVAL;
	if (flags & CALLOUT_RETURNUNLOCKED)
		owner |= CALLOUT_UNLOCKS;
	if (flags & CALLOUT_PINNED)
		owner |= CALLOUT_STAYS;
	if (raw)
		owner |= CALLOUT_RAW;
	if (!callout_setup_idle(&lc->c, owner, name, key, _RET_IP_))
		return -EBUSY;
	lc->lock = lock;
	return 0;
}
EXPORT_SYMBOL_GPL(__callout_init_lock);

/*
 * Where an arming puts @c, whose base is locked: @cpu's base if one is
 * named, a pinned callout's own once it has been armed, else the calling
 * CPU's; %NULL if @cpu is not online.  A base whose CPU goes down still
 * takes callouts until its dead callback has moved them all, and that
 * callback cannot start while interrupts are off here (the CPU's death
 * waits for stop_machine()), so a base seen online is never one that
 * nothing will drain.
 */
static struct twheel_base *arm_target(struct callout *c, int cpu)
{
	struct twheel_base *base;
	u32 owner = c->entry.owner;

	if (cpu != CALLOUT_CPU_ANY) {
		base = per_cpu_ptr(twheel_bases, cpu);
		return READ_ONCE(base->online) ? base : NULL;
	}
	if ((owner & CALLOUT_STAYS) && c->func) {
		base = per_cpu_ptr(twheel_bases, FIELD_GET(CALLOUT_CPU, owner));
		if (READ_ONCE(base->online))
			return base;
	}
	return this_cpu_ptr(twheel_bases);
}

/*
 * The tick from @first to @last to arm a callout for on @base: one on
 * which @base takes an interrupt anyway, the one its hrtimer is set for
 * or one with work, else the window's roundest (twheel_coalesce()).
 */
static u64 coalesce(struct twheel_base *base, u64 first, u64 last)
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
#define ARM_IF_IDLE		0x100

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
 * the new window (an exact one's first): it then runs no later than the
 * new caller allows.  Its deadline is not what counts: an arming with a
 * precision may sit on a tick well after it.
 */
static int arm_condition(struct twheel_base *base, struct callout *c,
			 unsigned int how, u64 first, u64 last)
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
 * no CPU, takes no window and sets no condition, pays for none of them.
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
			   !(c->entry.owner & (CALLOUT_STAYS | CALLOUT_SHUT)))) {
			target = this_cpu_ptr(twheel_bases);
		} else if (c->entry.owner & CALLOUT_SHUT) {
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
				   c->entry.owner | CALLOUT_MOVING);
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
		if (unlikely(c->entry.owner & CALLOUT_LOCKED))
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
	 * comes sooner: the hrtimer need only move then.
	 */
	arm_tick(base, twheel_next_hint(&base->wheel));
unlock:
	raw_spin_unlock(&base->lock);
	return ret;
}

/*
 * The last tick an arming for @when ns with @precision may run on: the
 * last that begins by @when + @precision.  @when is at most %KTIME_MAX,
 * and so is the sum.
 */
static u64 window_last(u64 when, u64 precision)
{
	return ns_to_tick(when + min_t(u64, precision, KTIME_MAX - when));
}

/*
 * Fill in @a's ticks for an arming for @when ns with @precision, the clock
 * having read @now_ns: the tick now running, the first tick after it that
 * begins at or after @when, and window_last().
 */
static void arm_window(struct arming *a, u64 now_ns, u64 when, u64 precision)
{
	a->now = ns_to_tick(now_ns);
	a->first = max(ns_to_tick(when + tick_ns - 1), a->now + 1);
	a->last = window_last(when, precision);
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
	arm_window(a, now_ns, deadline, precision);
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
 *	for it lies no later than the new window's last, as timer_reduce());
 *	or 0.
 *
 * @func runs no sooner than the deadline, against ktime_get(), and,
 * unless the machine is overloaded, no later than the deadline plus
 * @precision or one tick, whichever is longer.  Within that window twheel
 * picks the tick: one for which @cpu's interrupt is already coming or on
 * which its wheel already has work, else the roundest (twheel_coalesce()),
 * so that callouts with overlapping windows share an interrupt.
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
	arm_window(&a, now_ns, when, precision);
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
	struct twheel_base *base;
	unsigned long flags;
	int ret;

	if (!c || !callout_valid(c))
		return -EINVAL;
	base = lock_callout_base(c, &flags);
	ret = cancel_locked(base, c);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
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
			FIELD_GET(CALLOUT_CPU, READ_ONCE(c->entry.owner)));

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
				   c->entry.owner | CALLOUT_SHUT);
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

/**
 * twheel_tick_ns() - the length of one tick
 *
 * Context: any.
 * Return: the tick length in nanoseconds, the module parameter tick_ns.
 */
u64 twheel_tick_ns(void)
{
	return tick_ns;
}
EXPORT_SYMBOL_GPL(twheel_tick_ns);

/**
 * twheel_ns_to_ticks() - convert a duration to ticks, rounding up
 * @ns: the duration.
 *
 * Context: any.
 * Return: the fewest ticks that last at least @ns, or %ULONG_MAX if that
 * does not fit.
 */
unsigned long twheel_ns_to_ticks(u64 ns)
{
	u64 ticks = ns_to_tick(ns);

	if (ticks * tick_ns < ns)
		ticks++;
	return min_t(u64, ticks, ULONG_MAX);
}
EXPORT_SYMBOL_GPL(twheel_ns_to_ticks);

/*
 * Set up a callout that timeout() has just taken from its free list or the
 * allocator, and so knows is not pending: callout_init() without its check.
 */
void twheel_init_timeout(struct callout *c, const char *name,
			 struct lock_class_key *key)
{
	callout_setup(c, CALLOUT_TIMEOUT, name, key);
}

/*
 * Arm @c, set up by twheel_init_timeout() and just taken from timeout()'s
 * free list or the allocator, its function and argument set: as
 * setcallout(), with a window of @precision ns after its deadline; its
 * owner's flag tells the expiry path to hand it back.  timeout() has
 * checked @ticks, and calls it with interrupts off, under the lock of the
 * callout's hash chain.  Inlined there: twheel_callout.c compiles
 * twheel_bsd.c with this file.
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
		a.last = window_last(a.when, precision);
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

/* For debugfs and KUnit: the wheels' geometry, and the tick now running. */
const struct twheel_geometry *twheel_geometry(void)
{
	return &twheel_geo;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_geometry);

u64 twheel_now(void)
{
	return current_tick();
}

/*
 * Count a timeout() that found no entry, from any context; one that took
 * an entry is counted as arm_callout() arms it.
 */
void twheel_count_timeout_failed(void)
{
	this_cpu_inc(twheel_bases->stats.timeout_failures);
}

/**
 * twheel_stats_read() - copy one CPU's counters
 * @cpu: the CPU.
 * @st: where to.
 */
void twheel_stats_read(unsigned int cpu, struct twheel_cpu_stats *st)
{
	struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&base->lock, flags);
	*st = base->stats;
	st->wheel = base->wheel.stats;
	st->outstanding = base->wheel.count;
	raw_spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_stats_read);

/**
 * twheel_stats_reset() - zero every CPU's counters
 *
 * The peak starts again from the callouts pending now.
 */
void twheel_stats_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);
		unsigned long flags;

		raw_spin_lock_irqsave(&base->lock, flags);
		memset(&base->stats, 0, sizeof(base->stats));
		memset(&base->wheel.stats, 0, sizeof(base->wheel.stats));
		base->stats.peak = base->wheel.count;
		raw_spin_unlock_irqrestore(&base->lock, flags);
	}
}
EXPORT_SYMBOL_IF_KUNIT(twheel_stats_reset);

static bool tick_settled(struct twheel_base *base);

/*
 * Hold @base's wheel still for a walk that leaves a cursor's mark in it
 * while the lock is dropped, as twheel_engine_freeze() holds every wheel,
 * and beside it: no tick advances the wheel (one running, its lock
 * dropped for a callout's function, is waited for), and CPU hotplug,
 * whose dead callback empties the wheel, waits.  Callouts due on the CPU
 * meanwhile run late, on the first tick after release_wheel().
 */
static void hold_wheel(struct twheel_base *base)
	__acquires(cpu_hotplug_lock)
{
	cpus_read_lock();
	raw_spin_lock_irq(&base->lock);
	base->frozen++;
	raw_spin_unlock_irq(&base->lock);
	wait_event(base->wait, tick_settled(base));
}

static void release_wheel(struct twheel_base *base)
	__releases(cpu_hotplug_lock)
{
	raw_spin_lock_irq(&base->lock);
	base->frozen--;
	raw_spin_unlock_irq(&base->lock);
	cpus_read_unlock();
}

/*
 * Copy into @info, from *@n on, the callouts that @cur gives in one hold
 * of @base's lock: %TWHEEL_BATCH entries or lists at most, and none past
 * @max, where the walk stops.  Return: true once the walk is done.
 */
static bool copy_callouts(struct twheel_base *base, struct twheel_cursor *cur,
			  struct twheel_callout_info *info, unsigned long max,
			  unsigned long *n)
{
	struct twheel *w = &base->wheel;
	unsigned int budget = TWHEEL_BATCH;
	struct twheel_entry *e;

	lockdep_assert_held(&base->lock);
	while (*n < max && (e = twheel_cursor_next(w, cur, &budget))) {
		const struct callout *c = container_of(e, struct callout,
						       entry);

		info[*n].func = c->func;
		info[*n].arg = c->arg;
		info[*n].expires = e->expires;
		(*n)++;
	}
	base->stats.walk_max = max_t(u64, base->stats.walk_max,
				     TWHEEL_BATCH - budget);
	if (*n == max)
		twheel_cursor_stop(w, cur);
	return twheel_cursor_done(w, cur);
}

/**
 * twheel_callouts_read() - copy some of one CPU's pending callouts
 * @cpu: the CPU.
 * @info: room for @max callouts.
 * @max: the most to copy.
 * @copied: how many were copied.
 *
 * The CPU's wheel is held still (no tick advances it; callouts due
 * meanwhile run late) and walked with a cursor, the lock held for
 * %TWHEEL_BATCH entries or lists at a time, as the tick holds it, however
 * many lists the wheel has.  Every callout pending throughout is copied
 * once, up to @max; one armed meanwhile may be copied or not, and one
 * re-armed meanwhile copied twice or not at all.
 *
 * Context: process context; sleeps.
 * Return: how many callouts are pending on @cpu, copied or not.
 */
unsigned long twheel_callouts_read(unsigned int cpu,
				   struct twheel_callout_info *info,
				   unsigned long max, unsigned long *copied)
{
	struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);
	struct twheel *w = &base->wheel;
	struct twheel_cursor cur;
	unsigned long n = 0, total;
	bool done;

	*copied = 0;
	if (!max) {
		raw_spin_lock_irq(&base->lock);
		total = w->count;
		raw_spin_unlock_irq(&base->lock);
		return total;
	}
	hold_wheel(base);
	raw_spin_lock_irq(&base->lock);
	twheel_cursor_start(w, &cur);
	for (;;) {
		done = copy_callouts(base, &cur, info, max, &n);
		total = w->count;
		raw_spin_unlock_irq(&base->lock);
		if (done)
			break;
		cond_resched();
		raw_spin_lock_irq(&base->lock);
	}
	release_wheel(base);
	*copied = n;
	return total;
}

/**
 * twheel_level_read() - occupancy of one level of one CPU's wheel
 * @cpu: the CPU.
 * @level: the level.
 * @li: its slots, the busy ones, the longest list and the entries.
 *
 * The lock is taken for %TWHEEL_BATCH slots' counts at a time, never
 * for their entries, so the figures are a sum of snapshots, not one
 * snapshot of the level.  Entries taken out of a slot to be drained or
 * run count in that slot.
 *
 * Context: process context.
 */
void twheel_level_read(unsigned int cpu, unsigned int level,
		       struct twheel_level_info *li)
{
	struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);
	struct twheel *w = &base->wheel;
	unsigned int i, end = w->first[level] + w->size[level];

	memset(li, 0, sizeof(*li));
	li->slots = w->size[level];
	for (i = w->first[level]; i < end; ) {
		unsigned int stop = min(end, i + TWHEEL_BATCH);
		unsigned long flags;

		raw_spin_lock_irqsave(&base->lock, flags);
		for (; i < stop; i++) {
			unsigned long len = w->len[i];

			li->busy += len != 0;
			li->longest = max(li->longest, len);
			li->entries += len;
		}
		raw_spin_unlock_irqrestore(&base->lock, flags);
		cond_resched();
	}
}

/* CPU hotplug: the tick starts on the CPU once it is up ... */
static int twheel_cpu_online(unsigned int cpu)
{
	struct twheel_base *base = this_cpu_ptr(twheel_bases);

	WARN_ON_ONCE(base->cpu != cpu);
	raw_spin_lock_irq(&base->lock);
	WRITE_ONCE(base->online, true);
	base->programmed = U64_MAX;
	arm_tick(base, twheel_next_work(&base->wheel));
	raw_spin_unlock_irq(&base->lock);
	return 0;
}

/* ... stops on it before it goes down ... */
static int twheel_cpu_offline(unsigned int cpu)
{
	struct twheel_base *base = this_cpu_ptr(twheel_bases);

	WARN_ON_ONCE(base->cpu != cpu);
	raw_spin_lock_irq(&base->lock);
	WRITE_ONCE(base->online, false);
	raw_spin_unlock_irq(&base->lock);
	hrtimer_cancel(&base->timer);
	return 0;
}

/*
 * ... and once it is dead, whatever is pending on it moves to the CPU
 * running this callback, keeping its expiry tick, a batch at a time.
 * The dead CPU's wheel does not tick, and a callout on it may still be
 * armed or cancelled between batches: its base lock is what counts.
 */
static int twheel_cpu_dead(unsigned int cpu)
{
	struct twheel_base *old = per_cpu_ptr(twheel_bases, cpu);
	bool done;

	do {
		struct twheel_base *new;
		struct twheel_entry *e;
		unsigned int moved = 0;

		local_irq_disable();
		new = this_cpu_ptr(twheel_bases);
		raw_spin_lock(&new->lock);
		raw_spin_lock_nested(&old->lock, SINGLE_DEPTH_NESTING);
		wake_idle_wheel(new, current_tick());
		while (moved++ < TWHEEL_BATCH &&
		       (e = twheel_first(&old->wheel))) {
			u64 expires = e->expires;

			twheel_del(&old->wheel, e);
			WRITE_ONCE(e->owner, owner_on(e->owner, new->cpu));
			WARN_ON_ONCE(twheel_add_at(&new->wheel, e, expires) < 0);
		}
		done = !old->wheel.count;
		new->stats.peak = max_t(u64, new->stats.peak,
					new->wheel.count);
		raw_spin_unlock(&old->lock);
		arm_tick(new, twheel_next_work(&new->wheel));
		raw_spin_unlock(&new->lock);
		local_irq_enable();
		cond_resched();
	} while (!done);
	return 0;
}

/* Has @base's tick finished what it was doing?  If not, wake the caller. */
static bool tick_settled(struct twheel_base *base)
{
	unsigned long flags;
	bool busy;

	raw_spin_lock_irqsave(&base->lock, flags);
	busy = base->in_tick;
	base->waiters |= busy;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return !busy;
}

/**
 * twheel_engine_freeze() - hold every wheel still
 *
 * Until twheel_engine_thaw(), no wheel advances: no entry moves between
 * slots or CPUs and no callout function starts, while arming and
 * cancelling go on as usual.  Returns once every function that was running
 * has returned.  Callouts that come due meanwhile run late, on the first
 * tick after the thaw.  Holds off CPU hotplug.
 *
 * Context: process context; may sleep.
 */
void twheel_engine_freeze(void)
	__acquires(cpu_hotplug_lock)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);

		raw_spin_lock_irq(&base->lock);
		base->frozen++;
		raw_spin_unlock_irq(&base->lock);
	}
	for_each_possible_cpu(cpu) {
		struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);

		wait_event(base->wait, tick_settled(base));
	}
}

/**
 * twheel_engine_thaw() - let the wheels move again after
 * twheel_engine_freeze()
 *
 * Context: process context.
 */
void twheel_engine_thaw(void)
	__releases(cpu_hotplug_lock)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);

		raw_spin_lock_irq(&base->lock);
		base->frozen--;
		raw_spin_unlock_irq(&base->lock);
	}
	cpus_read_unlock();
}

/**
 * twheel_engine_cancel_if() - cancel the callouts that match
 * @match: called for each pending callout, under its base's lock with
 *	interrupts off; true to cancel it.
 * @data: for @match.
 * @first: if it points to %NULL, set to the function of the first callout
 *	cancelled.
 *
 * Handles and timeout() callouts alike: a timeout() one is handed back to
 * the BSD interface, which unhashes and frees it, once the base's lock is
 * dropped (stripe lock before base lock).  Each wheel is walked with a
 * cursor, the lock held for %TWHEEL_BATCH entries or lists at a time,
 * however the entries are spread over the lists.  Between
 * twheel_engine_freeze() and twheel_engine_thaw() no wheel advances and
 * CPU hotplug waits, so the walk misses no callout pending when it began,
 * unless a setcallout() moves it meanwhile to a list or CPU already
 * walked: a departing module's callouts are not re-armed, as nothing runs
 * its code any more.
 *
 * Context: process context, between twheel_engine_freeze() and
 * twheel_engine_thaw().
 * Return: how many were cancelled.
 */
unsigned long twheel_engine_cancel_if(twheel_match_fn match, void *data,
				      callout_func_t *first)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);
		struct twheel_cursor cur;
		bool done;

		raw_spin_lock_irq(&base->lock);
		WARN_ON_ONCE(!base->frozen);
		twheel_cursor_start(&base->wheel, &cur);
		do {
			unsigned int budget = TWHEEL_BATCH;
			struct twheel_entry *e, *tmp;
			LIST_HEAD(released);

			while ((e = twheel_cursor_next(&base->wheel, &cur,
						       &budget))) {
				struct callout *c = container_of(e,
						struct callout, entry);

				if (!match(c, data))
					continue;
				if (!*first)
					*first = c->func;
				cancel_locked(base, c);
				n++;
				/* Idle now: its links are free to use. */
				if (e->owner & CALLOUT_TIMEOUT)
					list_add_tail(&e->node, &released);
			}
			done = twheel_cursor_done(&base->wheel, &cur);
			raw_spin_unlock_irq(&base->lock);
			list_for_each_entry_safe(e, tmp, &released, node) {
				list_del_init(&e->node);
				twheel_release(container_of(e, struct callout,
							    entry));
			}
			cond_resched();
			if (!done)
				raw_spin_lock_irq(&base->lock);
		} while (!done);
	}
	return n;
}

/**
 * twheel_engine_init() - build every CPU's wheel; nothing ticks yet
 * @geo: the wheels' geometry, checked by twheel_geometry_check().
 * @tick: the tick length in ns, from %TWHEEL_MIN_TICK_NS to
 *	%TWHEEL_MAX_TICK_NS.
 * @release: what to do with a callout armed by twheel_arm_timeout() once
 *	its function has returned, or twheel_engine_cancel_if() has
 *	cancelled it.
 *
 * Context: process context.
 * Return: %0, -%EINVAL for a @geo or @tick out of range, or -%ENOMEM; on
 * error nothing is left allocated.
 */
int twheel_engine_init(const struct twheel_geometry *geo, u64 tick,
		       twheel_release_fn release)
{
	unsigned int cpu;
	u64 now;
	int ret;

	if (tick < TWHEEL_MIN_TICK_NS || tick > TWHEEL_MAX_TICK_NS ||
	    twheel_geometry_check(geo) || !release)
		return -EINVAL;
	tick_ns = tick;
	tick_recip = twheel_recip(tick);
	tick_last = div64_u64(KTIME_MAX, tick);
	twheel_geo = *geo;
	twheel_release = release;

	twheel_bases = alloc_percpu(struct twheel_base);
	if (!twheel_bases)
		return -ENOMEM;
	now = current_tick();
	for_each_possible_cpu(cpu) {
		struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);

		raw_spin_lock_init(&base->lock);
		init_waitqueue_head(&base->wait);
		base->move_to = CALLOUT_CPU_ANY;
		hrtimer_init(&base->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_SOFT);
		base->timer.function = twheel_tick;
		INIT_CSD(&base->kick, twheel_kick, base);
		base->programmed = U64_MAX;
		base->cpu = cpu;
		ret = twheel_init(&base->wheel, &twheel_geo, now);
		if (ret) {
			twheel_engine_exit();
			return ret;
		}
	}
	return 0;
}

/**
 * twheel_engine_start() - start the ticks, and follow CPU hotplug
 *
 * Context: process context, after twheel_engine_init().
 * Return: %0, or a negative errno from the CPU hotplug core with nothing
 * started.
 */
int twheel_engine_start(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "twheel:dead",
					NULL, twheel_cpu_dead);
	if (ret < 0)
		return ret;
	twheel_dead_state = ret;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "twheel:online",
				twheel_cpu_online, twheel_cpu_offline);
	if (ret < 0) {
		cpuhp_remove_state_nocalls(twheel_dead_state);
		return ret;
	}
	twheel_online_state = ret;
	return 0;
}

/**
 * twheel_engine_stop() - stop every tick
 *
 * On return no callout function runs, and none will, until
 * twheel_engine_start(); callouts stay pending and may still be cancelled.
 *
 * Context: process context, after twheel_engine_start() succeeded.
 */
void twheel_engine_stop(void)
{
	unsigned int cpu;

	cpuhp_remove_state(twheel_online_state);
	cpuhp_remove_state_nocalls(twheel_dead_state);
	/*
	 * No base is online now, so no CPU kicks another any more: wait for
	 * the kicks on their way, and for their handlers, which run with
	 * interrupts off, to return.
	 */
	for_each_possible_cpu(cpu)
		while (READ_ONCE(per_cpu_ptr(twheel_bases, cpu)->kicked))
			cpu_relax();
	synchronize_rcu();
}

/*
 * Stop debug objects tracking the handles pending on @base, which are
 * about to be abandoned.  No tick runs, but a client may still free a
 * tracked handle, whose fix-up cancels it under @base's lock: that lock
 * is held for each list.  The walk reads the entries' links and writes
 * none, as the memory of an untracked entry may be gone; it holds the
 * lock for a whole list, which only twheel's own unload does.
 */
static void abandon_tracking(struct twheel_base *base)
{
	struct twheel_entry *e, *tmp;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) ||
	    !IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE))
		return;
	for (i = 0; i < twheel_lists(&base->wheel); i++) {
		raw_spin_lock_irq(&base->lock);
		list_for_each_entry_safe(e, tmp, twheel_list(&base->wheel, i),
					 node) {
			struct callout *c = container_of(e, struct callout,
							 entry);

			if (!callout_tracked(c))
				continue;
			debug_object_deactivate(c, &callout_debug_descr);
			debug_object_free(c, &callout_debug_descr);
		}
		raw_spin_unlock_irq(&base->lock);
		cond_resched();
	}
}

/**
 * twheel_engine_exit() - free every wheel
 *
 * Every client module's callouts went when it did (twheel_engine_cancel_if()
 * from the module notifier).  A callout still pending here lies, handle and
 * function, outside any module that is gone: it is counted and dropped.
 * Its handle's memory may have been freed since, so nothing is written
 * to it; but where debug objects check frees
 * (%CONFIG_DEBUG_OBJECTS_FREE), the free of a tracked pending handle
 * cancelled it, so a tracked handle still here is live, and its tracking
 * goes (abandon_tracking()): a later free of it must not call into this
 * module's text.
 *
 * Context: process context, with no tick running: before
 * twheel_engine_start() or after twheel_engine_stop().
 */
void twheel_engine_exit(void)
{
	unsigned int cpu;

	if (!twheel_bases)
		return;
	for_each_possible_cpu(cpu) {
		struct twheel_base *base = per_cpu_ptr(twheel_bases, cpu);

		if (!base->wheel.slot)
			continue;
		if (base->wheel.count) {
			pr_warn("twheel: unloading with %lu callouts still pending on CPU %u: dropped without running them\n",
				base->wheel.count, cpu);
			abandon_tracking(base);
			raw_spin_lock_irq(&base->lock);
			twheel_abandon(&base->wheel);
			raw_spin_unlock_irq(&base->lock);
		}
		twheel_destroy(&base->wheel);
	}
	free_percpu(twheel_bases);
	twheel_bases = NULL;
}
