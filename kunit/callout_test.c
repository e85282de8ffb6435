// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what the callout facility does behind its API, seen through
 * readers exported with EXPORT_SYMBOL_IF_KUNIT(): the growth of the
 * timeout() hash table (twheel_hash_read()), timeout()'s per-CPU free lists
 * (twheel_timeout_free_read()) and each CPU's counters, twheel's hrtimer
 * interrupts among them (twheel_stats_read(), which debugfs shows).  The
 * documented contract is checked, as a client sees it, by the client
 * suites (kunit/client/).
 *
 * Suite twheel_safety checks what twheel does when a client breaks the
 * rules: bad handles, a handle freed while pending (debug objects), a
 * module that goes with callouts pending (twheel_forget_module(), on this
 * very module; kunit/sweep_test.c times the sweep), and that
 * unsetcallout_sync() sleeps rather than spins.
 *
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"
#include "watch.h"

/*
 * Of two pending duplicates, untimeout() cancels the most recently armed,
 * also after the hash table has grown under them.
 */
static void untimeout_most_recent_after_growth(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	unsigned int bits = hash_bits(), n = (2U << bits) + 100, i;
	atomic_t *other = vcalloc(n, sizeof(*other));

	KUNIT_ASSERT_NOT_NULL(test, dup);
	KUNIT_ASSERT_NOT_NULL(test, other);
	/* The older one will run in 5 s; the newer one would in an hour. */
	KUNIT_ASSERT_EQ(test, timeout(count_fn, dup,
				      twheel_ns_to_ticks(5 * NSEC_PER_SEC)), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, dup,
				      twheel_ns_to_ticks(3600 * NSEC_PER_SEC)),
			0);
	/* Enough others to make the table outgrow its size. */
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, &other[i], 1000000), 0);
	KUNIT_EXPECT_TRUE(test, poll_until(hash_bits() > bits));

	KUNIT_EXPECT_EQ(test, untimeout(count_fn, dup), 1);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(dup) == 1));
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, dup), 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, untimeout(count_fn, &other[i]), 1);
	vfree(other);
}

/*
 * An entry untimeout() frees goes on the CPU's free list, and the next
 * timeout() there takes that same entry off it.  The CPU is held
 * (cpu_hold()) with softirqs off, so that neither the refill work nor an
 * expiry on this CPU touches the list in between.
 */
static void timeout_free_list_reuses_untimeout_entry(struct kunit *test)
{
	atomic_t *a = kunit_kzalloc(test, 2 * sizeof(*a), GFP_KERNEL);
	const struct callout *armed, *first, *reused;
	unsigned int cpu, n[3];
	int ret[3];

	KUNIT_ASSERT_NOT_NULL(test, a);
	cpu_hold();
	local_bh_disable();
	cpu = smp_processor_id();
	ret[0] = timeout(count_fn, &a[0], FAR_TICKS);
	armed = twheel_timeout_lookup(count_fn, &a[0]);
	n[0] = twheel_timeout_free_read(cpu, NULL);
	/* list: n[0] entries -> the armed one on top, n[0] + 1 */
	ret[1] = untimeout(count_fn, &a[0]);
	n[1] = twheel_timeout_free_read(cpu, &first);
	/* list: n[0] + 1 -> the top one armed again, n[0] */
	ret[2] = timeout(count_fn, &a[1], FAR_TICKS);
	reused = twheel_timeout_lookup(count_fn, &a[1]);
	n[2] = twheel_timeout_free_read(cpu, NULL);
	local_bh_enable();
	cpu_unhold();

	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 1);
	KUNIT_EXPECT_EQ(test, ret[2], 0);
	KUNIT_EXPECT_NOT_NULL(test, armed);
	KUNIT_EXPECT_EQ_MSG(test, n[1], n[0] + 1,
			    "untimeout() did not put the entry on the list");
	KUNIT_EXPECT_PTR_EQ_MSG(test, first, armed,
				"the list's top is not the entry just freed");
	KUNIT_EXPECT_PTR_EQ_MSG(test, reused, armed,
				"timeout() did not take the entry just freed");
	KUNIT_EXPECT_EQ(test, n[2], n[0]);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, &a[1]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a[0]) + atomic_read(&a[1]), 0);
}

/* @cpu's free list length, after letting other work run on it. */
static unsigned int free_count_after_sleep(unsigned int cpu)
{
	msleep(20);
	return twheel_timeout_free_read(cpu, NULL);
}

/*
 * A burst of timeout()s four times the list's cap succeeds from process
 * context; the list it emptied is refilled behind it, at least to the mark
 * below which a refill is asked for (a refill may end mid-burst, and the
 * rest of the burst leave the list above that mark); the untimeout()s fill
 * it to its cap and free the rest.
 */
static void timeout_burst_refills_free_list(struct kunit *test)
{
	unsigned int n = 4 * TWHEEL_FREE_MAX, i, cpu, failed = 0;
	atomic_t *a = kunit_kcalloc(test, n, sizeof(*a), GFP_KERNEL);
	bool refilled;

	KUNIT_ASSERT_NOT_NULL(test, a);
	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0; i < n; i++)
		failed += timeout(count_fn, &a[i], FAR_TICKS) != 0;
	/* The refill work runs on this CPU while this thread sleeps. */
	refilled = poll_until(free_count_after_sleep(cpu) >= TWHEEL_FREE_LOW);
	for (i = 0; i < n; i++)
		failed += untimeout(count_fn, &a[i]) != 1;
	KUNIT_EXPECT_EQ_MSG(test, twheel_timeout_free_read(cpu, NULL),
			    TWHEEL_FREE_MAX,
			    "the list after %u untimeout()s is not at its cap", n);
	migrate_enable();

	KUNIT_EXPECT_EQ_MSG(test, failed, 0, "of %u timeout()/untimeout()", n);
	KUNIT_EXPECT_TRUE_MSG(test, refilled,
			      "CPU %u's list below %u after the burst",
			      cpu, TWHEEL_FREE_LOW);
}

/* @cpu's twheel interrupts since load. */
static u64 cpu_interrupts(unsigned int cpu)
{
	struct twheel_cpu_stats st;

	twheel_stats_read(cpu, &st);
	return st.interrupts;
}

static u64 all_interrupts(void)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		sum += cpu_interrupts(cpu);
	return sum;
}

/* True if @cpu took no twheel interrupt for 50 ticks. */
static bool cpu_settled(unsigned int cpu)
{
	u64 n = cpu_interrupts(cpu);

	spin_ns(50 * twheel_tick_ns());
	return cpu_interrupts(cpu) == n;
}

/* The callouts pending on every CPU. */
static u64 all_pending(void)
{
	struct twheel_cpu_stats st;
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu) {
		twheel_stats_read(cpu, &st);
		sum += st.outstanding;
	}
	return sum;
}

/*
 * Cancelling a CPU's only callout costs it at most one interrupt, for
 * nothing (cancelling may leave the tick set); after that the CPU takes no
 * twheel interrupt.  With work, it does.
 */
static void idle_takes_no_interrupts(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	int armed, cancelled;
	unsigned int cpu;
	u64 before, after;
	bool settled;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	callout_init(c);
	/* On one CPU, after any tick an earlier case left set has fired. */
	migrate_disable();
	cpu = smp_processor_id();
	settled = poll_until(cpu_settled(cpu));
	before = cpu_interrupts(cpu);
	armed = setcallout(c, count_fn, fired, 20);
	cancelled = unsetcallout(c);
	migrate_enable();
	KUNIT_ASSERT_TRUE_MSG(test, settled, "CPU %u never went quiet", cpu);
	KUNIT_EXPECT_EQ(test, armed, 0);
	KUNIT_EXPECT_EQ(test, cancelled, 1);

	/* Past the 20 ticks the tick was set for, and its one interrupt. */
	KUNIT_ASSERT_TRUE(test, poll_until(cpu_settled(cpu)));
	after = cpu_interrupts(cpu);
	KUNIT_EXPECT_LE_MSG(test, after - before, 1ULL,
			    "interrupts for a cancelled callout");
	spin_ns(500 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, cpu_interrupts(cpu), after);
	KUNIT_EXPECT_EQ(test, atomic_read(fired), 0);

	before = all_interrupts();
	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, 5), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(fired)));
	KUNIT_EXPECT_GT(test, all_interrupts(), before);
	unsetcallout_sync(c);
}

/*
 * twheel_div_recip() divides exactly: against div64_u64() for the extreme
 * tick lengths and some between, at dividends around multiples of each
 * and at the ends of the u64 range.
 */
static void div_recip_is_exact(struct kunit *test)
{
	static const u64 divisors[] = {
		TWHEEL_MIN_TICK_NS, TWHEEL_MIN_TICK_NS + 1, 65536, 99991,
		TWHEEL_DEFAULT_TICK_NS, TWHEEL_DEFAULT_TICK_NS + 3,
		(1ULL << 29) + 1, TWHEEL_MAX_TICK_NS - 1, TWHEEL_MAX_TICK_NS,
	};
	unsigned int i, k, wrong = 0;

	for (i = 0; i < ARRAY_SIZE(divisors); i++) {
		u64 d = divisors[i], m = twheel_recip(d);
		u64 n[] = {
			0, 1, d - 1, d, d + 1, 2 * d - 1, U64_MAX, U64_MAX - 1,
			U64_MAX - d, div64_u64(U64_MAX, d) * d,
			div64_u64(U64_MAX, d) * d - 1, 1ULL << 63,
			(1ULL << 63) - 1, ktime_get_ns(),
		};
		u64 x = 0x9e3779b97f4a7c15ULL * (i + 1);

		for (k = 0; k < ARRAY_SIZE(n); k++)
			KUNIT_EXPECT_EQ_MSG(test, twheel_div_recip(n[k], d, m),
					    div64_u64(n[k], d), "%llu / %llu",
					    n[k], d);
		for (k = 0; k < 100000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* A random value, and the multiple of d below it. */
			if (twheel_div_recip(x, d, m) != div64_u64(x, d) ||
			    twheel_div_recip(div64_u64(x, d) * d, d, m) !=
			    div64_u64(x, d))
				wrong++;
		}
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
}

static struct kunit_case twheel_internals_cases[] = {
	KUNIT_CASE_SLOW(untimeout_most_recent_after_growth),
	KUNIT_CASE(timeout_free_list_reuses_untimeout_entry),
	KUNIT_CASE(timeout_burst_refills_free_list),
	KUNIT_CASE(idle_takes_no_interrupts),
	KUNIT_CASE(div_recip_is_exact),
	{}
};

static struct kunit_suite twheel_internals_suite = {
	.name = "twheel_internals",
	.test_cases = twheel_internals_cases,
};

/*
 * A NULL or never-initialised handle is not pending, and the calls that
 * take a handle refuse it with nothing changed.
 */
static void callout_pending_rejects_stray_handles(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_FALSE(test, callout_pending(NULL));
	/* Zero-filled: the slot is 0, a real slot number. */
	KUNIT_EXPECT_FALSE(test, callout_pending(c));
	KUNIT_EXPECT_EQ(test, setcallout(c, count_fn, NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout(c), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(c), -EINVAL);
	KUNIT_EXPECT_FALSE(test, callout_pending(c));
}

/*
 * callout_init() of a pending handle leaves it pending and still
 * cancellable; of stray memory that merely looks like a pending handle,
 * it initialises it, whether the stray links point nowhere (poisoned) or
 * at memory that does not point back.
 */
static void callout_init_pending_changes_nothing(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct callout *stray = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, stray);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	callout_init(c);
	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, FAR_TICKS), 0);
	callout_init(c);
	KUNIT_EXPECT_TRUE(test, callout_pending(c));
	KUNIT_EXPECT_EQ(test, unsetcallout(c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(c));

	/* A copy of an initialised handle, then poisoned links and slot. */
	callout_init(stray);
	stray->entry.node.next = (void *)0xdead000000000100UL;
	stray->entry.node.prev = (void *)0xdead000000000122UL;
	stray->entry.slot = 3;
	KUNIT_EXPECT_TRUE(test, callout_pending(stray));
	callout_init(stray);
	KUNIT_EXPECT_FALSE(test, callout_pending(stray));
	KUNIT_EXPECT_EQ(test, setcallout(stray, count_fn, fired, 1), 0);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(fired) == 1));
	KUNIT_EXPECT_FALSE(test, callout_pending(stray));

	/* Links to live memory that does not link back: c, now idle. */
	stray->entry.node.next = &c->entry.node;
	stray->entry.node.prev = &c->entry.node;
	stray->entry.slot = 3;
	callout_init(stray);
	KUNIT_EXPECT_FALSE(test, callout_pending(stray));
	KUNIT_EXPECT_EQ(test, setcallout(stray, count_fn, fired, 1), 0);
	KUNIT_EXPECT_TRUE(test, poll_until(atomic_read(fired) == 2));
}

/*
 * Freeing the memory of a pending handle is reported by debug objects,
 * naming the handle's function, and the handle is cancelled before the
 * memory goes: it never runs (KASAN would see its expiry touch freed
 * memory).
 */
static void kfree_pending_callout_is_caught(struct kunit *test)
{
	/* Far enough that it cannot run while the report is printed. */
	unsigned long ticks = twheel_ns_to_ticks(NSEC_PER_SEC);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	struct callout *c;
	u64 pending;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) ||
	    !IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE))
		kunit_skip(test, "needs CONFIG_DEBUG_OBJECTS_TIMERS and _FREE");
	KUNIT_ASSERT_NOT_NULL(test, fired);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	callout_init(c);
	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, ticks), 0);
	pending = all_pending();
	/* scripts/ktap.py accepts the report this window announces. */
	pr_info("twheel-expect: begin ODEBUG: free active .*object type: callout hint: count_fn\n");
	kfree(c);
	pr_info("twheel-expect: end\n");
	KUNIT_EXPECT_EQ_MSG(test, all_pending(), pending - 1,
			    "the freed handle is still pending");
	spin_ns((ticks + 10) * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(fired), 0);
}

static struct callout module_data_callout;
static struct callout module_periodic;
static atomic_t periodic_runs;

static void periodic_fn(void *arg)
{
	atomic_inc(&periodic_runs);
	setcallout(&module_periodic, periodic_fn, arg, 0);
}

struct remote_arm {
	struct callout *c;
	callout_func_t func;
	void *arg;
	unsigned long ticks;
	int ret;
};

static void remote_arm_fn(void *info)
{
	struct remote_arm *r = info;

	r->ret = setcallout(r->c, r->func, r->arg, r->ticks);
}

/*
 * Arm @c on @cpu from an IPI there: the caller stays where it is, and is
 * not held up on @cpu should the function start at once.
 */
static int setcallout_from(unsigned int cpu, struct callout *c,
			   callout_func_t func, void *arg, unsigned long ticks)
{
	struct remote_arm r = { .c = c, .func = func, .arg = arg,
				.ticks = ticks };
	int err = smp_call_function_single(cpu, remote_arm_fn, &r, 1);

	return err ?: r.ret;
}

/*
 * twheel_forget_module() of this module cancels every pending callout
 * whose function or handle lies in it, timeout()'s included, waits for a
 * running one, and leaves other callouts alone.
 */
static void forget_module_cancels_its_callouts(struct kunit *test)
{
	struct callout *heap = kunit_kcalloc(test, 3, sizeof(*heap),
					     GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	unsigned long soon = twheel_ns_to_ticks(300 * NSEC_PER_MSEC);
	unsigned int other = cpumask_any_but(cpu_online_mask,
					     raw_smp_processor_id());
	int runs;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, heap);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	/* Running again and again, on the other CPU if there is one. */
	callout_init(&module_periodic);
	atomic_set(&periodic_runs, 0);
	KUNIT_ASSERT_EQ(test, setcallout_from(other < nr_cpu_ids ? other :
					    raw_smp_processor_id(),
					    &module_periodic, periodic_fn,
					    NULL, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&periodic_runs) > 3));
	/* Handle here, function elsewhere: kfree_link(NULL) does nothing. */
	callout_init(&module_data_callout);
	KUNIT_ASSERT_EQ(test, setcallout(&module_data_callout, kfree_link,
					 NULL, soon), 0);
	/* Handle elsewhere, function here: soon and far. */
	callout_init(&heap[0]);
	callout_init(&heap[1]);
	KUNIT_ASSERT_EQ(test, setcallout(&heap[0], count_fn, fired, soon), 0);
	KUNIT_ASSERT_EQ(test, setcallout(&heap[1], count_fn, fired,
					 FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, fired, soon), 0);
	/* Neither here: must stay. */
	callout_init(&heap[2]);
	KUNIT_ASSERT_EQ(test, setcallout(&heap[2], kfree_link, NULL,
					 FAR_TICKS), 0);

	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, twheel_forget_module(THIS_MODULE), 5);
	runs = atomic_read(&periodic_runs);
	kunit_info(test, "twheel_forget_module() took %llu us\n",
		   (ktime_get_ns() - t0) / NSEC_PER_USEC);
	KUNIT_EXPECT_FALSE(test, callout_pending(&module_data_callout));
	KUNIT_EXPECT_FALSE(test, callout_pending(&heap[0]));
	KUNIT_EXPECT_FALSE(test, callout_pending(&heap[1]));
	KUNIT_EXPECT_FALSE(test, callout_pending(&module_periodic));
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, fired), 0);
	KUNIT_EXPECT_TRUE(test, callout_pending(&heap[2]));
	spin_ns(2 * soon * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(fired), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&periodic_runs), runs);
	KUNIT_EXPECT_EQ(test, unsetcallout(&heap[2]), 1);
	/* Nothing of this module is left. */
	KUNIT_EXPECT_EQ(test, twheel_forget_module(THIS_MODULE), 0);
}

struct sync_waiter {
	struct callout c;
	struct task_struct *waiter;
	bool started;
	bool in_sync;
	bool release;
	bool saw_sleep;
	u64 cap_ns;
};

/* Runs until released, or for cap_ns if never released. */
static void hold_fn(void *arg)
{
	struct sync_waiter *w = arg;
	u64 end = ktime_get_ns() + w->cap_ns;

	WRITE_ONCE(w->started, true);
	while (!READ_ONCE(w->release) && ktime_get_ns() < end)
		cpu_relax();
}

/* Release hold_fn() once the waiter is seen asleep inside the sync call. */
static int releaser_fn(void *arg)
{
	struct sync_waiter *w = arg;

	while (!kthread_should_stop()) {
		if (READ_ONCE(w->in_sync) && !READ_ONCE(w->release) &&
		    !task_is_running(w->waiter)) {
			WRITE_ONCE(w->saw_sleep, true);
			WRITE_ONCE(w->release, true);
		}
		cond_resched();
	}
	return 0;
}

/*
 * unsetcallout_sync() sleeps while the function runs on another CPU: a
 * task sharing the waiter's CPU sees it asleep, and only then lets the
 * function return.  A waiter that spun would never be seen asleep, and
 * the function would end at its cap instead.
 */
static void unsetcallout_sync_sleeps_while_function_runs(struct kunit *test)
{
	struct sync_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned int here, other;
	struct task_struct *rel;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, w);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	here = cpumask_first(cpu_online_mask);
	other = cpumask_next(here, cpu_online_mask);
	w->waiter = current;
	w->cap_ns = 2 * NSEC_PER_SEC;
	callout_init(&w->c);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current,
						   cpumask_of(here)), 0);
	/* Before hold_fn() holds the other CPU, where kthreadd may be. */
	rel = kthread_run_on_cpu(releaser_fn, w, here, "twheel-rel/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(rel));
	if (setcallout_from(other, &w->c, hold_fn, w, 0) ||
	    !poll_until(READ_ONCE(w->started))) {
		WRITE_ONCE(w->release, true);
		unsetcallout_sync(&w->c);
		kthread_stop(rel);
		KUNIT_FAIL(test, "no waiter on CPU %u beside hold_fn() on %u",
			   here, other);
		return;
	}
	WRITE_ONCE(w->in_sync, true);
	ret = unsetcallout_sync(&w->c);
	WRITE_ONCE(w->in_sync, false);
	kthread_stop(rel);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(w->saw_sleep),
			      "the waiter spun until the function's cap");
	KUNIT_EXPECT_FALSE(test, callout_pending(&w->c));
}

static struct kunit_case twheel_safety_cases[] = {
	KUNIT_CASE(callout_pending_rejects_stray_handles),
	KUNIT_CASE(callout_init_pending_changes_nothing),
	KUNIT_CASE(kfree_pending_callout_is_caught),
	KUNIT_CASE(forget_module_cancels_its_callouts),
	KUNIT_CASE(unsetcallout_sync_sleeps_while_function_runs),
	{}
};

static struct kunit_suite twheel_safety_suite = {
	.name = "twheel_safety",
	.test_cases = twheel_safety_cases,
};

kunit_test_suites(&twheel_internals_suite, &twheel_safety_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's callouts through its internals");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
