// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_torture.c - arm and cancel twheel callouts from every CPU and
 * every context at once, and keep a ledger of every arming.
 *
 * In the manner of kernel/locking/locktorture.c: load it, it runs for
 * @duration seconds on its own, printing a summary every @stat_interval
 * seconds and, at the end, one line "twheel_torture: SUCCESS" or
 * "twheel_torture: FAILURE"; then unload it.
 *
 * Who arms and cancels, all at once and on one shared pool of handles:
 * @writers_per_cpu kthreads per CPU; an hrtimer per CPU in hardirq
 * context and another in softirq context; the callout functions
 * themselves (a periodic handle re-arms itself, the others now and then
 * arm another handle or a timeout() key).  A thread also takes CPUs
 * offline and back (@onoff_interval), and every @stutter seconds all of
 * them pause while the ledger is balanced.
 *
 * The handles are of four kinds: plain, periodic (its function re-arms
 * it), and lock-associated with a spinlock_t or a raw_spinlock_t.  Beside
 * them, @keys timeout() keys are armed several times each (duplicates)
 * and cancelled by untimeout(); fault injection (failslab on twheel's
 * entry cache, set up by scripts/torture.sh) makes some timeout() calls
 * fail, which the ledger counts too.
 *
 * What the ledger checks:
 * - while running: no function runs before the earliest time its arming
 *   allowed (against ktime_get()); no arming runs twice; no handle's
 *   function runs on two CPUs at once; unsetcallout_sync() returns only
 *   once every run that had begun before the call has returned; a
 *   lock-associated function never runs for an arming that a call under
 *   its lock replaced or cancelled, and such a call never finds pending an
 *   arming that has ended, nor misses one that has not.
 * - at each pause and at the end, everything cancelled and every running
 *   function returned: every arming ended exactly once (it ran, or an
 *   arming or cancel returned 1 for it), for each handle and each key,
 *   and twheel's own counters in debugfs moved by what the ledger counted
 *   (armings, re-armings, cancels, runs, timeout() entries taken and
 *   refused), with nothing left pending.
 *
 * Each broken rule is a violation: it is printed (rate limited) and the
 * run ends in FAILURE.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include <twheel.h>
#include <twheel_dfs.h>
#include "../twheel_compat.h"	/* hrtimer_setup() before 6.13 */

static int duration = 60;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run before the verdict (default 60)");

static int writers_per_cpu = 1;
module_param(writers_per_cpu, int, 0444);
MODULE_PARM_DESC(writers_per_cpu, "writer kthreads per possible CPU (default 1)");

static int handles = 64;
module_param(handles, int, 0444);
MODULE_PARM_DESC(handles, "callout handles in the shared pool, a quarter of each kind (default 64)");

static int keys = 32;
module_param(keys, int, 0444);
MODULE_PARM_DESC(keys, "timeout() keys, half of them short (up to max_ticks ticks), half long (over 100) (default 32)");

static int max_ticks = 20;
module_param(max_ticks, int, 0444);
MODULE_PARM_DESC(max_ticks, "longest arming, in ticks (default 20)");

static int irq_interval_us = 300;
module_param(irq_interval_us, int, 0444);
MODULE_PARM_DESC(irq_interval_us, "period of the per-CPU hardirq and softirq arming (default 300 us; 0: none)");

static int fn_delay_us = 20;
module_param(fn_delay_us, int, 0444);
MODULE_PARM_DESC(fn_delay_us, "longest busy wait inside a callout function (default 20 us)");

static int onoff_interval;
module_param(onoff_interval, int, 0444);
MODULE_PARM_DESC(onoff_interval, "ms between CPU hotplug operations (default 0: none)");

static int stutter = 5;
module_param(stutter, int, 0444);
MODULE_PARM_DESC(stutter, "seconds of torture between pauses that balance the ledger (default 5; 0: only at the end)");

static int stat_interval = 5;
module_param(stat_interval, int, 0444);
MODULE_PARM_DESC(stat_interval, "seconds between summaries (default 5)");

/* The operation mix of the writers, as weights. */
static int mix_arm = 40, mix_cancel = 20, mix_sync = 6, mix_timeout = 22,
	   mix_untimeout = 12;
module_param(mix_arm, int, 0444);
MODULE_PARM_DESC(mix_arm, "weight of arming a handle (default 40)");
module_param(mix_cancel, int, 0444);
MODULE_PARM_DESC(mix_cancel, "weight of unsetcallout() (default 20)");
module_param(mix_sync, int, 0444);
MODULE_PARM_DESC(mix_sync, "weight of unsetcallout_sync() (default 6)");
module_param(mix_timeout, int, 0444);
MODULE_PARM_DESC(mix_timeout, "weight of timeout() (default 22)");
module_param(mix_untimeout, int, 0444);
MODULE_PARM_DESC(mix_untimeout, "weight of untimeout() (default 12)");

static bool check_debugfs = true;
module_param(check_debugfs, bool, 0444);
MODULE_PARM_DESC(check_debugfs, "compare twheel's debugfs totals with the ledger (default Y; twheel must have no other user)");

/* How each handle is set up; the kind is the handle's index modulo 4. */
enum tt_kind { TT_PLAIN, TT_PERIODIC, TT_LOCK, TT_RAW, TT_KINDS };

static const char *const tt_kind_name[TT_KINDS] = {
	"plain", "periodic", "lock", "raw lock",
};

/* A plain or periodic handle's recent armings, by sequence number. */
#define TT_RING		64

/* States of an arming, in a ring word (seq << 2 | state) or cur_state. */
enum tt_state { TTS_NONE, TTS_ARMED, TTS_RAN, TTS_ENDED };

static const char *const tt_state_name[] = {
	"none", "armed", "ran", "cancelled or replaced",
};

/*
 * struct tt_handle - one callout handle and its ledger
 * @lc: the handle (a plain one uses only @lc.c).
 * @kind: enum tt_kind.
 * @idx: its index in the pool.
 * @lock: the lock of a TT_LOCK handle, and the ledger's for it.
 * @rlock: the same for a TT_RAW handle.
 * @seq: armings made, the last one's sequence number.
 * @ring: plain and periodic: the state of arming seq at seq % TT_RING.
 * @earliest: plain and periodic: when that arming may run, in ns.
 * @cur_seq, @cur_state, @cur_earliest, @syncing: lock-associated handles,
 *	under the handle's own lock: the last arming, where it stands, when
 *	it may run; and whether a sync cancel is under way (no arming then).
 * @sync_busy, @arming: plain and periodic handles: a sync cancel is under
 *	way, and armings under way, which it waits for; none starts while it
 *	runs.  unsetcallout_sync() cancels again an arming its running
 *	function makes meanwhile, but returns 1 once: with no arming
 *	meanwhile, its answer counts every arming it ended.
 * @arms: armings that returned 0 or 1.
 * @replaced: armings that returned 1: the pending one ended there.
 * @cancelled: cancels that returned 1.
 * @runs: functions run.
 * @running: functions running now; more than one is a violation.
 * @run_start, @run_end: functions begun and returned.
 */
struct tt_handle {
	struct callout_locked lc;
	enum tt_kind kind;
	unsigned int idx;
	spinlock_t lock;	/* TT_LOCK: the callout's lock, and the ledger's */
	raw_spinlock_t rlock;	/* TT_RAW: the same */
	atomic_long_t seq;
	atomic_long_t ring[TT_RING];
	u64 earliest[TT_RING];
	unsigned long cur_seq;
	enum tt_state cur_state;
	u64 cur_earliest;
	bool syncing;
	atomic_t sync_busy, arming;
	atomic_long_t arms, replaced, cancelled, runs;
	atomic_t running;
	atomic_long_t run_start, run_end;
};

/*
 * struct tt_key - one timeout() key: its function is tt_key_fn, its
 * argument the key.  Armed with its own fixed number of ticks, so that
 * the oldest arming outstanding is also the soonest due.
 * @lock: orders the ledger with the calls; held across timeout() and
 *	untimeout(), and taken by the function.
 * @ticks: the key's delay.
 * @when: arming times of the armings outstanding, oldest first, in a ring
 *	of @size; @head is the oldest, @n how many.
 * @armed, @failed, @runs, @cancelled: timeout() calls that armed and that
 *	were refused; functions run; untimeout() calls that returned 1.
 */
struct tt_key {
	raw_spinlock_t lock;
	unsigned int ticks;
	u64 *when;
	unsigned int size, head, n;
	unsigned long armed, failed, runs, cancelled;
};

/* Most timeout() armings of one key outstanding at once. */
#define TT_KEY_MAX	32

/* xorshift64*: each context keeps its own; cheap and usable anywhere. */
struct tt_rand {
	u64 s;
};

static u32 tt_random(struct tt_rand *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (r->s * 0x2545f4914f6cdd1dULL) >> 32;
}

static u32 tt_below(struct tt_rand *r, u32 n)
{
	return n ? ((u64)tt_random(r) * n) >> 32 : 0;
}

/* The per-CPU arming from interrupts. */
struct tt_irq {
	struct hrtimer hard, soft;
	struct tt_rand rand_hard, rand_soft;
	unsigned int cpu;
};

static struct tt_handle *tt_handles;
static struct tt_key *tt_keys;
static struct tt_irq __percpu *tt_irqs;
static struct task_struct **tt_writers;
static unsigned int tt_nwriters;
static struct task_struct *tt_main_task, *tt_onoff_task;
static DEFINE_PER_CPU(struct tt_rand, tt_fn_rand);

/* Set while the others pause; writers park until it clears. */
static bool tt_paused;
static bool tt_stopping;
static atomic_t tt_parked;
static DECLARE_WAIT_QUEUE_HEAD(tt_resume_wq);

static atomic_long_t tt_violations, tt_unchecked, tt_syncs, tt_hard_ops,
	tt_soft_ops, tt_fn_ops, tt_offlines, tt_onlines, tt_enodev;
static u64 tt_tick_ns;

#define violation(fmt, ...)						\
	do {								\
		atomic_long_inc(&tt_violations);			\
		pr_err_ratelimited("VIOLATION: " fmt, ##__VA_ARGS__);	\
	} while (0)

static void tt_handle_fn(void *arg);
static void tt_key_fn(void *arg);

static bool locked_kind(const struct tt_handle *h)
{
	return h->kind == TT_LOCK || h->kind == TT_RAW;
}

static void tt_lock(struct tt_handle *h, unsigned long *flags)
{
	if (h->kind == TT_RAW)
		raw_spin_lock_irqsave(&h->rlock, *flags);
	else
		spin_lock_irqsave(&h->lock, *flags);
}

static void tt_unlock(struct tt_handle *h, unsigned long flags)
{
	if (h->kind == TT_RAW)
		raw_spin_unlock_irqrestore(&h->rlock, flags);
	else
		spin_unlock_irqrestore(&h->lock, flags);
}

/* The argument a function gets: the handle's index and the arming's. */
static void *tt_token(struct tt_handle *h, unsigned long seq)
{
	return (void *)(((unsigned long)h->idx << 40) | (seq & (BIT(40) - 1)));
}

/* The ledger's side of an arming call that returned @ret. */
static void tt_armed(struct tt_handle *h, int ret)
{
	if (ret == -ENODEV) {
		/* setcallout_on() for a CPU that went offline meanwhile. */
		atomic_long_inc(&tt_enodev);
		return;
	}
	if (ret < 0) {
		violation("handle %u: arming returned %d\n", h->idx, ret);
		return;
	}
	atomic_long_inc(&h->arms);
	if (ret)
		atomic_long_inc(&h->replaced);
}

/*
 * Arm @h for up to max_ticks ticks in one of setcallout()'s forms; @t0
 * was read before the call, so the deadline the ledger keeps is never
 * later than twheel's.  Returns what the call returned.  For a
 * lock-associated handle the caller holds its lock.
 */
static int tt_arm_call(struct tt_handle *h, unsigned long seq, u64 *earliest,
		       struct tt_rand *r)
{
	u32 ticks = tt_below(r, max_ticks + 1);
	u64 t0 = ktime_get_ns();
	u64 ns = (u64)ticks * tt_tick_ns + tt_below(r, tt_tick_ns);
	void *arg = tt_token(h, seq);
	int cpu;

	switch (tt_below(r, 4)) {
	case 0:
		/* The deadline of setcallout(): whole ticks after the call. */
		*earliest = t0 + (u64)ticks * tt_tick_ns;
		return setcallout(&h->lc.c, tt_handle_fn, arg, ticks);
	case 1:
		*earliest = t0 + ns;
		return setcallout_on(&h->lc.c, tt_handle_fn, arg, ns,
				     tt_below(r, 4) * tt_tick_ns,
				     CALLOUT_CPU_ANY, 0);
	case 2:
		*earliest = t0 + ns;
		return setcallout_on(&h->lc.c, tt_handle_fn, arg, t0 + ns, 0,
				     CALLOUT_CPU_ANY, CALLOUT_ABSOLUTE);
	default:
		/* On another CPU, which may go offline meanwhile. */
		cpu = cpumask_nth(tt_below(r, num_online_cpus()),
				  cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = CALLOUT_CPU_ANY;
		*earliest = t0 + ns;
		return setcallout_on(&h->lc.c, tt_handle_fn, arg, ns, 0, cpu,
				     0);
	}
}

/*
 * Arm a plain or periodic handle, unless a sync cancel of it is under
 * way.  The ring records the arming before the call: its function may run
 * on another CPU before the call returns.
 */
static void tt_arm_plain(struct tt_handle *h, struct tt_rand *r)
{
	unsigned long seq;
	unsigned int slot;
	u64 earliest;
	int ret;

	atomic_inc(&h->arming);
	/*
	 * Against tt_sync(), which sets sync_busy, then reads arming: one
	 * of the two sees the other's mark.
	 */
	smp_mb__after_atomic();
	if (atomic_read(&h->sync_busy)) {
		atomic_dec(&h->arming);
		return;
	}
	seq = atomic_long_inc_return(&h->seq);
	slot = seq % TT_RING;
	/* A bound that holds for each form: the smallest delay is 0. */
	WRITE_ONCE(h->earliest[slot], ktime_get_ns());
	atomic_long_set_release(&h->ring[slot], seq << 2 | TTS_ARMED);
	ret = tt_arm_call(h, seq, &earliest, r);
	/*
	 * Only now is the deadline known; raise the bound unless the
	 * arming has already run or the slot has moved on.
	 */
	if (ret >= 0 &&
	    atomic_long_read_acquire(&h->ring[slot]) == (seq << 2 | TTS_ARMED))
		WRITE_ONCE(h->earliest[slot], earliest);
	tt_armed(h, ret);
	/* The arming and its count come before the sync cancel that waits. */
	smp_mb__before_atomic();
	atomic_dec(&h->arming);
}

/*
 * Arm a lock-associated handle, under its lock, where the ledger is exact:
 * a return of 1 must find the last arming pending, a 0 must find it
 * ended.
 */
static void tt_arm_locked(struct tt_handle *h, struct tt_rand *r)
{
	unsigned long seq = atomic_long_inc_return(&h->seq);
	unsigned long flags;
	u64 earliest;
	int ret;

	tt_lock(h, &flags);
	if (h->syncing) {
		tt_unlock(h, flags);
		return;
	}
	ret = tt_arm_call(h, seq, &earliest, r);
	if (ret == 1 && h->cur_state != TTS_ARMED)
		violation("handle %u (%s): re-arm returned 1, but arming %lu had ended\n",
			  h->idx, tt_kind_name[h->kind], h->cur_seq);
	if (ret == 0 && h->cur_state == TTS_ARMED)
		violation("handle %u (%s): arming %lu lost at a re-arm under its lock\n",
			  h->idx, tt_kind_name[h->kind], h->cur_seq);
	if (ret >= 0) {
		h->cur_seq = seq;
		h->cur_state = TTS_ARMED;
		h->cur_earliest = earliest;
	}
	tt_unlock(h, flags);
	tt_armed(h, ret);
}

static void tt_arm(struct tt_handle *h, struct tt_rand *r)
{
	if (locked_kind(h))
		tt_arm_locked(h, r);
	else
		tt_arm_plain(h, r);
}

static void tt_cancel(struct tt_handle *h)
{
	unsigned long flags;
	int ret;

	if (!locked_kind(h)) {
		ret = unsetcallout(&h->lc.c);
		if (ret < 0)
			violation("handle %u: unsetcallout() returned %d\n",
				  h->idx, ret);
		else if (ret)
			atomic_long_inc(&h->cancelled);
		return;
	}
	tt_lock(h, &flags);
	/* A sync cancel under way ends the arming without the lock. */
	if (h->syncing) {
		tt_unlock(h, flags);
		return;
	}
	ret = unsetcallout(&h->lc.c);
	if (ret == 1 && h->cur_state != TTS_ARMED)
		violation("handle %u (%s): unsetcallout() returned 1, but arming %lu had ended\n",
			  h->idx, tt_kind_name[h->kind], h->cur_seq);
	if (ret == 0 && h->cur_state == TTS_ARMED)
		violation("handle %u (%s): arming %lu lost at a cancel under its lock\n",
			  h->idx, tt_kind_name[h->kind], h->cur_seq);
	if (ret < 0)
		violation("handle %u: unsetcallout() returned %d\n", h->idx,
			  ret);
	else if (ret)
		atomic_long_inc(&h->cancelled);
	if (h->cur_state == TTS_ARMED)
		h->cur_state = TTS_ENDED;
	tt_unlock(h, flags);
}

/*
 * unsetcallout_sync(), process context only.  Every run begun before the
 * call must have returned when it does.  For a lock-associated handle no
 * arming or cancel is made meanwhile (@syncing), so that its answer is
 * exact too.
 */
static void tt_sync(struct tt_handle *h)
{
	long begun = atomic_long_read(&h->run_start);
	unsigned long flags;
	int ret;

	if (locked_kind(h)) {
		tt_lock(h, &flags);
		if (h->syncing) {
			tt_unlock(h, flags);
			return;
		}
		h->syncing = true;
		tt_unlock(h, flags);
	} else {
		if (atomic_cmpxchg(&h->sync_busy, 0, 1))
			return;
		/* Pairs with tt_arm_plain()'s: see there. */
		smp_mb__after_atomic();
		while (atomic_read(&h->arming)) {
			cpu_relax();
			cond_resched();
		}
	}
	ret = unsetcallout_sync(&h->lc.c);
	if (atomic_long_read(&h->run_end) < begun)
		violation("handle %u (%s): unsetcallout_sync() returned with a run still going\n",
			  h->idx, tt_kind_name[h->kind]);
	if (ret < 0)
		violation("handle %u: unsetcallout_sync() returned %d\n",
			  h->idx, ret);
	else if (ret)
		atomic_long_inc(&h->cancelled);
	atomic_long_inc(&tt_syncs);
	if (!locked_kind(h)) {
		atomic_set_release(&h->sync_busy, 0);
		return;
	}
	tt_lock(h, &flags);
	if (ret == 1 && h->cur_state != TTS_ARMED)
		violation("handle %u (%s): sync cancel returned 1, but arming %lu had ended\n",
			  h->idx, tt_kind_name[h->kind], h->cur_seq);
	if (h->cur_state == TTS_ARMED) {
		if (ret != 1)
			violation("handle %u (%s): arming %lu lost: not pending at a sync cancel\n",
				  h->idx, tt_kind_name[h->kind], h->cur_seq);
		h->cur_state = TTS_ENDED;
	}
	h->syncing = false;
	tt_unlock(h, flags);
}

/* The ledger's check of one run, @now being the time it began. */
static void tt_check_run(struct tt_handle *h, unsigned long seq, u64 now)
{
	unsigned int slot = seq % TT_RING;
	long want = (long)(seq << 2 | TTS_ARMED);
	u64 earliest;

	if (locked_kind(h)) {
		/* Called with the handle's lock held, by twheel. */
		if (seq != (h->cur_seq & (BIT(40) - 1)) ||
		    h->cur_state != TTS_ARMED)
			/* A cancel, or a re-arm, that replaced it. */
			violation("handle %u (%s): arming %lu ran after a cancel under its lock\n",
				  h->idx, tt_kind_name[h->kind], seq);
		else if (now < h->cur_earliest)
			violation("handle %u (%s): arming %lu ran %llu ns early\n",
				  h->idx, tt_kind_name[h->kind], seq,
				  h->cur_earliest - now);
		h->cur_state = TTS_RAN;
		return;
	}
	earliest = READ_ONCE(h->earliest[slot]);
	if (atomic_long_cmpxchg(&h->ring[slot], want,
				(long)(seq << 2 | TTS_RAN)) != want) {
		if (atomic_long_read(&h->ring[slot]) ==
		    (long)(seq << 2 | TTS_RAN))
			violation("handle %u (%s): arming %lu ran twice\n",
				  h->idx, tt_kind_name[h->kind], seq);
		else
			/* The ring has moved on: too old to check. */
			atomic_long_inc(&tt_unchecked);
		return;
	}
	if (now < earliest)
		violation("handle %u (%s): arming %lu ran %llu ns early\n",
			  h->idx, tt_kind_name[h->kind], seq, earliest - now);
}

static void tt_key_arm(struct tt_key *k);
static void tt_key_cancel(struct tt_key *k);

static bool tt_can_arm_from_fn(void)
{
	return !READ_ONCE(tt_paused) && !READ_ONCE(tt_stopping);
}

/*
 * A plain or periodic handle: its index has bit 1 clear (kinds 0 and 1 of
 * each group of four).
 */
static struct tt_handle *tt_unlocked_handle(struct tt_rand *r)
{
	unsigned int groups = handles / TT_KINDS;

	return &tt_handles[tt_below(r, groups) * TT_KINDS + tt_below(r, 2)];
}

/* Every handle's function. */
static void tt_handle_fn(void *arg)
{
	unsigned long token = (unsigned long)arg;
	struct tt_handle *h = &tt_handles[token >> 40];
	struct tt_rand *r;
	u64 now = ktime_get_ns();

	atomic_long_inc(&h->run_start);
	if (atomic_inc_return(&h->running) != 1)
		violation("handle %u (%s): function running on two CPUs at once\n",
			  h->idx, tt_kind_name[h->kind]);
	atomic_long_inc(&h->runs);
	tt_check_run(h, token & (BIT(40) - 1), now);

	/* Softirq context: this CPU's generator is ours alone here. */
	r = this_cpu_ptr(&tt_fn_rand);
	if (fn_delay_us)
		udelay(tt_below(r, fn_delay_us + 1));
	if (tt_can_arm_from_fn()) {
		if (h->kind == TT_PERIODIC) {
			tt_arm_plain(h, r);
			atomic_long_inc(&tt_fn_ops);
		} else if (!locked_kind(h) && !tt_below(r, 4)) {
			/* Another plain or periodic handle, or a key. */
			if (tt_below(r, 2))
				tt_arm_plain(tt_unlocked_handle(r), r);
			else
				tt_key_arm(&tt_keys[tt_below(r, keys)]);
			atomic_long_inc(&tt_fn_ops);
		}
	}
	atomic_dec(&h->running);
	atomic_long_inc(&h->run_end);
}

/* timeout() for @k; with its lock held, so that the ledger keeps order. */
static void tt_key_arm(struct tt_key *k)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&k->lock, flags);
	if (k->n == k->size) {
		raw_spin_unlock_irqrestore(&k->lock, flags);
		return;
	}
	k->when[(k->head + k->n) % k->size] = ktime_get_ns();
	ret = twheel_timeout(tt_key_fn, k, k->ticks);
	if (ret == 0) {
		k->n++;
		k->armed++;
	} else if (ret == -ENOMEM) {
		k->failed++;
	} else {
		violation("timeout() returned %d\n", ret);
	}
	raw_spin_unlock_irqrestore(&k->lock, flags);
}

/* untimeout() for @k: it cancels the most recently armed pending one. */
static void tt_key_cancel(struct tt_key *k)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&k->lock, flags);
	ret = twheel_untimeout(tt_key_fn, k);
	if (ret == 1) {
		if (!k->n)
			violation("key %ld: untimeout() returned 1 with nothing armed\n",
				  (long)(k - tt_keys));
		else
			k->n--;
		k->cancelled++;
	} else if (ret) {
		violation("untimeout() returned %d\n", ret);
	}
	raw_spin_unlock_irqrestore(&k->lock, flags);
}

/*
 * A key's function.  All of a key's armings have the same delay, so none
 * may run before the oldest outstanding one's deadline; that one is
 * dropped from the ledger (which one ran is not known, and any other
 * that did was due no sooner).
 */
static void tt_key_fn(void *arg)
{
	struct tt_key *k = arg;
	unsigned long flags;
	u64 now, due;

	/* Hardirq context takes it too. */
	raw_spin_lock_irqsave(&k->lock, flags);
	now = ktime_get_ns();
	if (!k->n) {
		violation("key %ld: a timeout() function ran with no arming outstanding\n",
			  (long)(k - tt_keys));
	} else {
		due = k->when[k->head] + (u64)k->ticks * tt_tick_ns;
		if (now < due)
			violation("key %ld: timeout() ran %llu ns early\n",
				  (long)(k - tt_keys), due - now);
		k->head = (k->head + 1) % k->size;
		k->n--;
	}
	k->runs++;
	raw_spin_unlock_irqrestore(&k->lock, flags);
}

/* One random operation from interrupt context, on a handle or a key. */
static void tt_irq_op(struct tt_rand *r, bool soft)
{
	struct tt_handle *h;

	switch (tt_below(r, 4)) {
	case 0:
		tt_key_arm(&tt_keys[tt_below(r, keys)]);
		break;
	case 1:
		tt_key_cancel(&tt_keys[tt_below(r, keys)]);
		break;
	default:
		/*
		 * A lock-associated handle's lock may not be taken in
		 * hardirq context; softirq context takes it.
		 */
		h = soft ? &tt_handles[tt_below(r, handles)] :
			   tt_unlocked_handle(r);
		if (tt_below(r, 3))
			tt_arm(h, r);
		else
			tt_cancel(h);
	}
}

static enum hrtimer_restart tt_irq_fn(struct hrtimer *t, bool soft)
{
	struct tt_irq *irq = soft ? container_of(t, struct tt_irq, soft) :
				    container_of(t, struct tt_irq, hard);
	struct tt_rand *r = soft ? &irq->rand_soft : &irq->rand_hard;

	if (READ_ONCE(tt_paused) || READ_ONCE(tt_stopping))
		return HRTIMER_NORESTART;
	tt_irq_op(r, soft);
	atomic_long_inc(soft ? &tt_soft_ops : &tt_hard_ops);
	hrtimer_forward_now(t, ns_to_ktime(irq_interval_us * NSEC_PER_USEC /
					   2 + tt_below(r, irq_interval_us *
							 NSEC_PER_USEC)));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart tt_hard_fn(struct hrtimer *t)
{
	return tt_irq_fn(t, false);
}

static enum hrtimer_restart tt_soft_fn(struct hrtimer *t)
{
	return tt_irq_fn(t, true);
}

static void tt_irq_start_one(void *unused)
{
	struct tt_irq *irq = this_cpu_ptr(tt_irqs);
	ktime_t d = ns_to_ktime(irq_interval_us * NSEC_PER_USEC);

	hrtimer_start(&irq->hard, d, HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&irq->soft, d, HRTIMER_MODE_REL_PINNED_SOFT);
}

/* Start each online CPU's interrupt arming. */
static void tt_irq_start(void)
{
	if (!irq_interval_us)
		return;
	cpus_read_lock();
	on_each_cpu(tt_irq_start_one, NULL, 1);
	cpus_read_unlock();
}

static void tt_irq_stop(void)
{
	unsigned int cpu;

	if (!irq_interval_us)
		return;
	for_each_possible_cpu(cpu) {
		hrtimer_cancel(&per_cpu_ptr(tt_irqs, cpu)->hard);
		hrtimer_cancel(&per_cpu_ptr(tt_irqs, cpu)->soft);
	}
}

/* Park while the others pause; false once the writer is to stop. */
static bool tt_writer_park(void)
{
	if (!READ_ONCE(tt_paused))
		return !kthread_should_stop();
	atomic_inc(&tt_parked);
	wait_event_interruptible(tt_resume_wq,
				 !READ_ONCE(tt_paused) || kthread_should_stop());
	atomic_dec(&tt_parked);
	return !kthread_should_stop();
}

static int tt_writer(void *arg)
{
	struct tt_rand r = { .s = get_random_u64() | 1 };
	const int mix[] = { mix_arm, mix_cancel, mix_sync, mix_timeout,
			    mix_untimeout };
	unsigned long ops = 0;
	int pick, total = 0;
	unsigned int op;

	for (op = 0; op < ARRAY_SIZE(mix); op++)
		total += mix[op];
	while (tt_writer_park()) {
		pick = tt_below(&r, total);
		for (op = 0; pick >= mix[op]; op++)
			pick -= mix[op];
		switch (op) {
		case 0:
			tt_arm(&tt_handles[tt_below(&r, handles)], &r);
			break;
		case 1:
			tt_cancel(&tt_handles[tt_below(&r, handles)]);
			break;
		case 2:
			tt_sync(&tt_handles[tt_below(&r, handles)]);
			break;
		case 3:
			tt_key_arm(&tt_keys[tt_below(&r, keys)]);
			break;
		default:
			tt_key_cancel(&tt_keys[tt_below(&r, keys)]);
		}
		/* Leave the guest's other work some room now and then. */
		if (!(++ops % 64))
			usleep_range(100, 300);
		else
			cond_resched();
	}
	return 0;
}

/* Take a random CPU other than the boot CPU offline, or bring one back. */
static int tt_onoff(void *arg)
{
	struct tt_rand r = { .s = get_random_u64() | 1 };
	unsigned int cpu;
	int ret;

	while (!kthread_should_stop()) {
		schedule_timeout_interruptible(msecs_to_jiffies(onoff_interval));
		if (kthread_should_stop())
			break;
		if (READ_ONCE(tt_paused))
			continue;
		cpu = 1 + tt_below(&r, num_possible_cpus() - 1);
		if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
			continue;
		if (cpu_online(cpu)) {
			ret = remove_cpu(cpu);
			if (!ret)
				atomic_long_inc(&tt_offlines);
		} else {
			ret = add_cpu(cpu);
			if (!ret)
				atomic_long_inc(&tt_onlines);
		}
	}
	return 0;
}

/* Bring every possible CPU back online. */
static void tt_all_online(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu) && !add_cpu(cpu))
			atomic_long_inc(&tt_onlines);
}

/* twheel's debugfs totals: the counters the ledger is held against. */
enum {
	TT_STARTED, TT_REARMED, TT_STOPPED, TT_EXPIRED, TT_T_ALLOCS,
	TT_T_FAILED, TT_PENDING, TT_NR_TOTALS
};

static const char *const tt_total_names[TT_NR_TOTALS] = {
	"started", "rearmed", "stopped", "expired", "t_allocs", "t_failed",
	"pending",
};

struct tt_totals {
	s64 v[TT_NR_TOTALS];
	bool valid;
};

static void tt_read_totals(struct tt_totals *t)
{
	unsigned int i;
	int ret;

	t->valid = false;
	if (!check_debugfs)
		return;
	ret = dfs_read_stats_row("total", tt_total_names, t->v,
				 TT_NR_TOTALS);
	if (ret) {
		pr_warn("cannot read %s (%d): counters not compared\n",
			DFS_STATS, ret);
		return;
	}
	for (i = 0; i < TT_NR_TOTALS; i++)
		if (t->v[i] < 0) {
			pr_warn("no column %s in %s: counters not compared\n",
				tt_total_names[i], DFS_STATS);
			return;
		}
	t->valid = true;
}

/* What the ledger has counted, summed. */
struct tt_sums {
	unsigned long arms, replaced, cancelled, runs;
	unsigned long t_armed, t_failed, t_runs, t_cancelled, t_out;
	long in_flight;
};

static void tt_sum(struct tt_sums *s)
{
	unsigned long flags;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < handles; i++) {
		struct tt_handle *h = &tt_handles[i];
		long arms = atomic_long_read(&h->arms);
		long replaced = atomic_long_read(&h->replaced);
		long cancelled = atomic_long_read(&h->cancelled);
		long runs = atomic_long_read(&h->runs);

		s->arms += arms;
		s->replaced += replaced;
		s->cancelled += cancelled;
		s->runs += runs;
		s->in_flight += arms - replaced - cancelled - runs;
	}
	for (i = 0; i < keys; i++) {
		struct tt_key *k = &tt_keys[i];

		raw_spin_lock_irqsave(&k->lock, flags);
		s->t_armed += k->armed;
		s->t_failed += k->failed;
		s->t_runs += k->runs;
		s->t_cancelled += k->cancelled;
		s->t_out += k->n;
		raw_spin_unlock_irqrestore(&k->lock, flags);
	}
}

static struct tt_totals tt_base;

/* Did debugfs counter @i move, since the start, by the ledger's count? */
static bool tt_agree(const char *when, const struct tt_totals *now,
		     unsigned int i, unsigned long counted)
{
	s64 moved = now->v[i] - tt_base.v[i];

	if (moved == (s64)counted)
		return true;
	violation("%s: debugfs %s moved by %lld, the ledger counted %lu\n",
		  when, tt_total_names[i], moved, counted);
	return false;
}

/* A handle whose armings do not balance, as the ledger has it. */
static void tt_show(struct tt_handle *h, const char *when)
{
	long arms = atomic_long_read(&h->arms);
	long ended = atomic_long_read(&h->replaced) +
		     atomic_long_read(&h->cancelled) +
		     atomic_long_read(&h->runs);
	unsigned long seq = atomic_long_read(&h->seq);
	long ring = atomic_long_read(&h->ring[seq % TT_RING]);

	if (arms == ended)
		return;
	pr_err("%s: handle %u (%s): %ld armed, %ld replaced, %ld cancelled, %ld ran; pending %d; last arming %lu (ring: %ld, %s; under the lock: %lu, %s)\n",
	       when, h->idx, tt_kind_name[h->kind], arms,
	       atomic_long_read(&h->replaced), atomic_long_read(&h->cancelled),
	       atomic_long_read(&h->runs), callout_pending(&h->lc.c), seq,
	       ring >> 2, tt_state_name[ring & 3], h->cur_seq,
	       tt_state_name[h->cur_state]);
}

/*
 * Pause everything, cancel everything, wait for every function to
 * return, and hold the ledger against itself and twheel's counters.
 * Leaves everything paused; tt_resume() restarts it.
 */
static void tt_balance(const char *when)
{
	unsigned long deadline = jiffies + 20 * HZ;
	struct tt_totals now;
	struct tt_sums s;
	unsigned int i;
	long changed;
	bool agree;

	WRITE_ONCE(tt_paused, true);
	while (atomic_read(&tt_parked) < tt_nwriters &&
	       time_before(jiffies, deadline))
		schedule_timeout_uninterruptible(1);
	if (atomic_read(&tt_parked) < tt_nwriters)
		violation("%s: writers did not pause within 20 s\n", when);
	tt_irq_stop();

	/*
	 * A function that began before the pause may still arm another
	 * handle or a key: cancel until a whole pass finds nothing, and
	 * nothing is running.
	 */
	do {
		changed = 0;
		for (i = 0; i < handles; i++) {
			long before = atomic_long_read(&tt_handles[i].cancelled);

			tt_sync(&tt_handles[i]);
			changed += atomic_long_read(&tt_handles[i].cancelled) -
				   before;
		}
		for (i = 0; i < keys; i++) {
			struct tt_key *k = &tt_keys[i];
			unsigned long before;

			do {
				before = READ_ONCE(k->cancelled);
				tt_key_cancel(k);
			} while (READ_ONCE(k->cancelled) != before);
		}
		tt_sum(&s);
		if (!changed && !s.in_flight && !s.t_out)
			break;
		schedule_timeout_uninterruptible(1);
	} while (time_before(jiffies, deadline));

	tt_sum(&s);
	if (s.in_flight > 0)
		violation("%s: %ld armings neither ran nor were cancelled or replaced\n",
			  when, s.in_flight);
	if (s.in_flight < 0)
		violation("%s: %ld more endings than armings: ran and cancelled, or ended twice\n",
			  when, -s.in_flight);
	for (i = 0; s.in_flight && i < handles; i++)
		tt_show(&tt_handles[i], when);
	if (s.t_out)
		violation("%s: %lu timeout() armings neither ran nor were cancelled\n",
			  when, s.t_out);
	for (i = 0; i < handles; i++) {
		struct tt_handle *h = &tt_handles[i];

		if (callout_pending(&h->lc.c))
			violation("%s: handle %u pending after its cancel\n",
				  when, i);
		if (locked_kind(h) && h->cur_state == TTS_ARMED)
			violation("%s: handle %u (%s): arming %lu still armed in the ledger\n",
				  when, i, tt_kind_name[h->kind], h->cur_seq);
	}
	for (i = 0; i < keys; i++)
		if (tt_keys[i].armed !=
		    tt_keys[i].runs + tt_keys[i].cancelled + tt_keys[i].n)
			violation("%s: key %u: %lu armed, %lu ran, %lu cancelled\n",
				  when, i, tt_keys[i].armed, tt_keys[i].runs,
				  tt_keys[i].cancelled);

	tt_read_totals(&now);
	agree = now.valid && tt_base.valid;
	if (agree) {
		agree &= tt_agree(when, &now, TT_STARTED, s.arms + s.t_armed);
		agree &= tt_agree(when, &now, TT_REARMED, s.replaced);
		agree &= tt_agree(when, &now, TT_STOPPED,
				  s.cancelled + s.t_cancelled);
		agree &= tt_agree(when, &now, TT_EXPIRED, s.runs + s.t_runs);
		agree &= tt_agree(when, &now, TT_T_ALLOCS, s.t_armed);
		agree &= tt_agree(when, &now, TT_T_FAILED, s.t_failed);
		if (now.v[TT_PENDING]) {
			agree = false;
			violation("%s: debugfs shows %lld callouts pending\n",
				  when, now.v[TT_PENDING]);
		}
	}
	pr_info("%s: balanced: %lu armings = %lu ran + %lu replaced + %lu cancelled; timeout(): %lu = %lu ran + %lu cancelled, %lu refused; debugfs %s\n",
		when, s.arms, s.runs, s.replaced, s.cancelled, s.t_armed,
		s.t_runs, s.t_cancelled, s.t_failed,
		!now.valid || !tt_base.valid ? "not compared" :
		agree ? "agrees" : "disagrees");
}

static void tt_resume(void)
{
	WRITE_ONCE(tt_paused, false);
	wake_up_all(&tt_resume_wq);
	tt_irq_start();
}

static void tt_summary(unsigned long secs)
{
	struct tt_sums s;

	tt_sum(&s);
	pr_info("%lu s: arms %lu (replaced %lu) cancels %lu syncs %lu runs %lu; timeout() %lu (refused %lu) untimeout %lu runs %lu; from hardirq %lu softirq %lu functions %lu; cpus offline %lu online %lu; violations %ld\n",
		secs, s.arms, s.replaced, s.cancelled,
		atomic_long_read(&tt_syncs), s.runs, s.t_armed, s.t_failed,
		s.t_cancelled, s.t_runs, atomic_long_read(&tt_hard_ops),
		atomic_long_read(&tt_soft_ops), atomic_long_read(&tt_fn_ops),
		atomic_long_read(&tt_offlines), atomic_long_read(&tt_onlines),
		atomic_long_read(&tt_violations));
}

static void tt_stop_threads(void)
{
	unsigned int i;

	WRITE_ONCE(tt_stopping, true);
	if (tt_onoff_task) {
		kthread_stop(tt_onoff_task);
		tt_onoff_task = NULL;
	}
	for (i = 0; i < tt_nwriters; i++) {
		if (tt_writers[i])
			kthread_stop(tt_writers[i]);
		tt_writers[i] = NULL;
	}
	tt_nwriters = 0;
}

/* The run: start, summaries, pauses, the verdict. */
static int tt_main(void *arg)
{
	unsigned long start = jiffies, next_stat, next_stutter, secs;
	struct tt_sums s;

	next_stat = start + stat_interval * HZ;
	next_stutter = start + stutter * HZ;
	tt_resume();
	while (!kthread_should_stop() &&
	       time_before(jiffies, start + duration * HZ)) {
		schedule_timeout_interruptible(HZ / 10);
		secs = (jiffies - start) / HZ;
		if (stat_interval && time_after_eq(jiffies, next_stat)) {
			tt_summary(secs);
			next_stat += stat_interval * HZ;
		}
		if (stutter && time_after_eq(jiffies, next_stutter)) {
			tt_balance("pause");
			tt_resume();
			next_stutter = jiffies + stutter * HZ;
		}
	}
	tt_stop_threads();
	tt_balance("end");
	tt_all_online();
	tt_summary((jiffies - start) / HZ);
	tt_sum(&s);
	if (!s.runs || !s.t_runs)
		violation("nothing ran: %lu callout and %lu timeout() functions\n",
			  s.runs, s.t_runs);
	if (atomic_long_read(&tt_violations))
		pr_err("FAILURE: %ld violations\n",
		       atomic_long_read(&tt_violations));
	else
		pr_info("SUCCESS: no violations in %d s\n", duration);
	/* Wait for rmmod, which must not find this thread gone. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int __init tt_init_handles(void)
{
	unsigned int i;
	int ret;

	tt_handles = kcalloc(handles, sizeof(*tt_handles), GFP_KERNEL);
	tt_keys = kcalloc(keys, sizeof(*tt_keys), GFP_KERNEL);
	if (!tt_handles || !tt_keys)
		return -ENOMEM;
	for (i = 0; i < handles; i++) {
		struct tt_handle *h = &tt_handles[i];

		h->idx = i;
		h->kind = i % TT_KINDS;
		spin_lock_init(&h->lock);
		raw_spin_lock_init(&h->rlock);
		switch (h->kind) {
		case TT_LOCK:
			ret = callout_init_lock(&h->lc, &h->lock, 0);
			break;
		case TT_RAW:
			ret = callout_init_raw_lock(&h->lc, &h->rlock, 0);
			break;
		default:
			ret = callout_init(&h->lc.c);
		}
		if (ret)
			return ret;
	}
	for (i = 0; i < keys; i++) {
		struct tt_key *k = &tt_keys[i];

		raw_spin_lock_init(&k->lock);
		/*
		 * Half the keys short, half long: their armings pile up,
		 * past what the free lists hold, so that timeout() needs
		 * the allocator, which fault injection may fail.
		 */
		k->ticks = i & 1 ? 100 + i : i % (max_ticks + 1);
		k->size = TT_KEY_MAX;
		k->when = kcalloc(k->size, sizeof(*k->when), GFP_KERNEL);
		if (!k->when)
			return -ENOMEM;
	}
	return 0;
}

static void tt_free(void)
{
	unsigned int i;

	if (tt_keys)
		for (i = 0; i < keys; i++)
			kfree(tt_keys[i].when);
	kfree(tt_keys);
	kfree(tt_handles);
	kfree(tt_writers);
	free_percpu(tt_irqs);
}

static int __init tt_init(void)
{
	unsigned int cpu, i;
	int ret;

	if (duration <= 0 || writers_per_cpu < 0 || handles < TT_KINDS ||
	    handles % TT_KINDS || handles >= (1 << 20) || keys < 1 ||
	    max_ticks < 0 || max_ticks > 1000 || irq_interval_us < 0 ||
	    fn_delay_us < 0 || fn_delay_us > 1000 || onoff_interval < 0 ||
	    stutter < 0 || stat_interval < 0 || mix_arm < 0 ||
	    mix_cancel < 0 || mix_sync < 0 || mix_timeout < 0 ||
	    mix_untimeout < 0 ||
	    mix_arm + mix_cancel + mix_sync + mix_timeout + mix_untimeout <= 0) {
		pr_err("bad parameters\n");
		return -EINVAL;
	}
	tt_tick_ns = twheel_tick_ns();
	tt_irqs = alloc_percpu(struct tt_irq);
	tt_writers = kcalloc(num_possible_cpus() * writers_per_cpu + 1,
			     sizeof(*tt_writers), GFP_KERNEL);
	if (!tt_irqs || !tt_writers) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = tt_init_handles();
	if (ret)
		goto fail;
	for_each_possible_cpu(cpu) {
		struct tt_irq *irq = per_cpu_ptr(tt_irqs, cpu);

		irq->cpu = cpu;
		irq->rand_hard.s = get_random_u64() | 1;
		irq->rand_soft.s = get_random_u64() | 1;
		per_cpu(tt_fn_rand, cpu).s = get_random_u64() | 1;
		hrtimer_setup(&irq->hard, tt_hard_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		hrtimer_setup(&irq->soft, tt_soft_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_SOFT);
	}
	tt_read_totals(&tt_base);
	tt_paused = true;
	for (i = 0; i < num_possible_cpus() * writers_per_cpu; i++) {
		struct task_struct *t = kthread_run(tt_writer, NULL,
						    "twheel_torture_w/%u", i);

		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto stop;
		}
		tt_writers[tt_nwriters++] = t;
	}
	if (onoff_interval && num_possible_cpus() > 1) {
		tt_onoff_task = kthread_run(tt_onoff, NULL,
					    "twheel_torture_onoff");
		if (IS_ERR(tt_onoff_task)) {
			ret = PTR_ERR(tt_onoff_task);
			tt_onoff_task = NULL;
			goto stop;
		}
	}
	pr_info("start: duration %d s, %u writers, %d handles, %d keys, max_ticks %d, tick %llu ns, irq_interval_us %d, onoff_interval %d ms, stutter %d s\n",
		duration, tt_nwriters, handles, keys, max_ticks, tt_tick_ns,
		irq_interval_us, onoff_interval, stutter);
	tt_main_task = kthread_run(tt_main, NULL, "twheel_torture");
	if (IS_ERR(tt_main_task)) {
		ret = PTR_ERR(tt_main_task);
		tt_main_task = NULL;
		goto stop;
	}
	return 0;

stop:
	tt_stop_threads();
	tt_all_online();
fail:
	tt_free();
	return ret;
}

static void __exit tt_exit(void)
{
	/*
	 * An rmmod before the end stops the run early; it still balances
	 * the ledger, so that nothing is left armed, and gives a verdict.
	 */
	kthread_stop(tt_main_task);
	tt_stop_threads();
	tt_irq_stop();
	tt_all_online();
	tt_free();
}

module_init(tt_init);
module_exit(tt_exit);
MODULE_DESCRIPTION("twheel torture: arm and cancel callouts from every CPU and context, with a ledger");
MODULE_LICENSE("GPL");
