// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU bases and their tick timers: expiry, CPU hotplug, freezing
 * the wheels, departing modules, start and stop, statistics.  "hw" for the
 * paper's "hardware clock", whose interrupt drives the wheels: here an
 * hrtimer per CPU, the tick timer.  The handle API that arms and cancels
 * on the bases is twheel_callout.c's.
 */

/**
 * DOC: twheel callout engine
 *
 * Every possible CPU has a &struct twheel_base (twheel_hw.h):
 * a wheel (twheel_core.c), a raw spinlock and the tick timer, an hrtimer
 * in softirq mode, pinned to the CPU.  The paper's Appendix B (symmetric
 * multiprocessing) observes that Schemes 5-7 suit processors that would
 * otherwise queue for one locked structure; per-CPU wheels take that to
 * the end.  A callout is armed on the wheel of the CPU that arms it and
 * runs there, in softirq context, from the tick timer's callback.
 *
 * Time.  A tick is the unit of time: tick k begins at k * tick_ns
 * nanoseconds of CLOCK_MONOTONIC, the same on all CPUs (&struct
 * twheel_clock).  setcallout(c, f, a, n) called during tick T makes c due
 * on tick T + n + 1, so at least n whole ticks pass before it runs; n = 0
 * means the next tick.  The tick timer fires only on ticks with work.
 *
 * CPU hotplug.  A CPU going down stops its tick timer first
 * (CPUHP_AP_ONLINE_DYN) and hands its callouts to the CPU taking it down
 * once it is dead (CPUHP_BP_PREPARE_DYN); in between, what it has pending waits, late but
 * never lost, as kernel timers do.
 *
 * Tickless.  The tick timer is programmed for the next tick on which the
 * wheel has work (the busy-slot bitmap is the Appendix A assist; between
 * ticks the wheel keeps it as a hint that arming lowers), and is not
 * restarted once the wheel is empty.  Cancelling leaves it as it is, even
 * for a wheel's last callout: it then fires once into an empty wheel and
 * stops, so that setting and cancelling a CPU's only callout again and
 * again costs no hrtimer work, and an idle CPU still takes no twheel
 * interrupt after that one.  When it fires, however late, the wheel
 * advances to the current tick and runs everything that came due, in
 * order, a batch of %TWHEEL_BATCH entries at a time: the base lock, with
 * interrupts off, is held for one batch, and with work left the tick
 * timer is set to fire again at once, so a tick with 10^5 entries due
 * or a catch-up after a stall never keeps interrupts off for long.
 *
 * Locking.  Holding a base's lock means that its wheel, its clock and
 * hrtimer bookkeeping, and every callout whose entry.owner names the base
 * (func, arg, entry) are stable.  A callout's base changes only under the
 * old base's lock, with %OWNER_MOVING set in entry.owner until the new
 * base's lock is held, so lock_callout_base() can find the right lock
 * without one of its own.  The lock is dropped while a callout's function
 * runs.  Two base locks are held together only by the CPU hotplug dead
 * callback, which takes its own CPU's first.  No lock is held for more
 * than %TWHEEL_BATCH entries of work: the tick timer's batches, and the walks
 * of a wheel with a cursor, every wheel's when a module goes
 * (twheel_engine_cancel_if()) and one CPU's for the debugfs listing
 * (twheel_callouts_read()), each of which leaves its cursor's mark in one
 * of the wheel's lists while the lock is dropped.  Each holds the wheel
 * still meanwhile (twheel_engine_freeze(), hold_wheel()), so that the
 * tick moves no list the mark is in; the walks pass one another's marks,
 * and CPU hotplug, whose dead callback empties a wheel, waits.
 */

#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugobjects.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_hw.h"
#include "twheel_internal.h"

#define CREATE_TRACE_POINTS
#include "twheel_trace.h"

EXPORT_TRACEPOINT_SYMBOL_GPL(callout_init);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_start);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_cancel);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_expire_entry);
EXPORT_TRACEPOINT_SYMBOL_GPL(callout_expire_exit);
EXPORT_TRACEPOINT_SYMBOL_GPL(wheel_tick);

struct twheel_clock twheel_clock __read_mostly;
static struct twheel_geometry twheel_geo;
static twheel_release_fn twheel_release;

struct twheel_base __percpu *twheel_bases;
static int twheel_online_state;
static int twheel_dead_state;

/*
 * Debug objects, as timer_list has them (CONFIG_DEBUG_OBJECTS_TIMERS): a
 * handle is tracked from callout_init() and active while it is pending, so
 * that freeing the memory of a pending handle is reported, naming its
 * function, and the handle is cancelled before the memory goes.  Handles
 * on the stack are not tracked: no call says when their frame ends.
 */
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
	cancel_callout(c);
	debug_object_free(c, &callout_debug_descr);
	return true;
}

const struct debug_obj_descr callout_debug_descr = {
	.name		= "callout",
	.debug_hint	= callout_debug_hint,
	.fixup_free	= callout_fixup_free,
};

static void hist_add(u64 *hist, u64 v)
{
	hist[min_t(unsigned int, fls64(v), TWHEEL_HIST_BUCKETS - 1)]++;
}

/*
 * tick_timer_set() once it has found that the tick timer must be
 * programmed: out of line, as few armings get this far.
 */
noinline void twheel_tick_timer_start(struct twheel_base *base, u64 next)
{
	if (unlikely(base != this_cpu_ptr(twheel_bases))) {
		if (!base->kicked &&
		    !smp_call_function_single_async(base->cpu, &base->kick))
			WRITE_ONCE(base->kicked, true);
		return;
	}
	base->programmed = next;
	hrtimer_start(&base->tick_timer, tick_to_ktime(next),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
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
	tick_timer_set(base, twheel_next_hint(&base->wheel));
	raw_spin_unlock(&base->lock);
}

static void callout_lock(void *lock, u32 owner)
{
	if (owner & OWNER_RAW)
		raw_spin_lock(lock);
	else
		spin_lock(lock);
}

static void callout_unlock(void *lock, u32 owner)
{
	if (owner & OWNER_RAW)
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
	if (unlikely(owner & OWNER_LOCKED) &&
	    !callout_lock_run(base, c, lock, owner))
		goto out;
	if (trace_callout_expire_entry_enabled()) {
		u64 ns = ktime_get_ns();

		trace_callout_expire_entry(c, func, ns_to_tick(ns),
					   ns - min(ns, when));
	}
	func(arg);
	trace_callout_expire_exit(c);
	if (unlikely((owner & (OWNER_LOCKED | OWNER_UNLOCKS)) ==
		     OWNER_LOCKED))
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
	WRITE_ONCE(c->entry.owner, c->entry.owner | OWNER_MOVING);
	raw_spin_unlock(&base->lock);
	raw_spin_lock(&to->lock);
	WRITE_ONCE(c->entry.owner, owner_on(c->entry.owner, to->cpu));
	wake_idle_wheel(to, current_tick());
	WARN_ON_ONCE(twheel_add_at(&to->wheel, &c->entry, expires) < 0);
	to->stats.peak = max_t(u64, to->stats.peak, to->wheel.count);
	tick_timer_set(to, twheel_next_hint(&to->wheel));
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
	hist_add(base->stats.late_ns, base->tick_start - w->now * twheel_clock.tick_ns);

	base->running = c;
	base->runner = current;
	base->run_cancelled = false;
	/* A lock-associated function is counted once it has its lock. */
	if (owner & OWNER_LOCKED) {
		lock = container_of(c, struct callout_locked, c)->lock;
		base->run_pending = true;
	} else {
		base->stats.expired++;
	}
	callout_debug_deactivate(c);
	raw_spin_unlock_irq(&base->lock);
	t0 = local_clock();
	twheel_call(base, c, func, arg, when, owner, lock);
	if (owner & OWNER_TIMEOUT)
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
 * The tick timer's function: advance the wheel to the tick now running,
 * then sleep until the next one with work.
 *
 * Paper: the hardware clock's interrupt, with Appendix A's assist; it calls
 * PER TICK BOOKKEEPING (twheel_advance()).
 */
static enum hrtimer_restart tick_timer_expired(struct hrtimer *timer)
{
	struct twheel_base *base = container_of(timer, struct twheel_base,
						tick_timer);
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

/**
 * twheel_tick_ns() - the length of one tick
 *
 * Context: any.
 * Return: the tick length in nanoseconds, the module parameter tick_ns.
 */
u64 twheel_tick_ns(void)
{
	return twheel_clock.tick_ns;
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

	if (ticks * twheel_clock.tick_ns < ns)
		ticks++;
	return min_t(u64, ticks, ULONG_MAX);
}
EXPORT_SYMBOL_GPL(twheel_ns_to_ticks);

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
 * %TWHEEL_BATCH entries or lists at a time, as the tick timer holds it, however
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

/* CPU hotplug: the tick timer starts on the CPU once it is up ... */
static int twheel_cpu_online(unsigned int cpu)
{
	struct twheel_base *base = this_cpu_ptr(twheel_bases);

	WARN_ON_ONCE(base->cpu != cpu);
	raw_spin_lock_irq(&base->lock);
	WRITE_ONCE(base->online, true);
	base->programmed = U64_MAX;
	tick_timer_set(base, twheel_next_work(&base->wheel));
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
	hrtimer_cancel(&base->tick_timer);
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
		tick_timer_set(new, twheel_next_work(&new->wheel));
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
				if (e->owner & OWNER_TIMEOUT)
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
	twheel_clock.tick_ns = tick;
	twheel_clock.recip = twheel_recip(tick);
	twheel_clock.last = div64_u64(KTIME_MAX, tick);
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
		hrtimer_setup(&base->tick_timer, tick_timer_expired,
			      CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);
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
 * twheel_engine_stop() - stop every tick timer
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
