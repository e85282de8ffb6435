// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_timeout_alloc: where timeout() takes its entries
 * from and where untimeout() puts them back: each CPU's free list
 * (twheel_timeout_free_read()), which hands out the entry just freed and
 * is refilled behind a burst; the GFP_ATOMIC fallback of an empty list,
 * from hardirq context too, and the refill it asks for; an entry given
 * back in hardirq context to a full list; and what timeout() does when
 * its allocations fail, made to by fault injection (current->fail_nth
 * aimed at the test's own task, and failslab at the refill's kworker: the
 * guests boot with "slub_debug=A,twheel_timeout", which marks the cache
 * for failslab).  The module has no hook for these tests: they drive it
 * through timeout(), untimeout() and fault injection, and look through
 * readers exported with EXPORT_SYMBOL_IF_KUNIT().
 *
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"
#include "../bench/twheel_dfs.h"

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

/* Fail the @n-th fault-injection point the calling task passes; 0: none. */
static void fail_nth_set(unsigned int n)
{
#ifdef CONFIG_FAULT_INJECTION
	current->fail_nth = n;
#endif
}

/* What is left of the count fail_nth_set() set: 0 once it has failed. */
static unsigned int fail_nth_left(void)
{
#ifdef CONFIG_FAULT_INJECTION
	return current->fail_nth;
#else
	return 0;
#endif
}

static u64 timeout_failures(unsigned int cpu)
{
	struct twheel_cpu_stats st;

	twheel_stats_read(cpu, &st);
	return st.timeout_failures;
}

/*
 * Arm far timeout()s of (count_fn, @arg) on @cpu, the calling CPU, until
 * its free list is empty, and return how many: each takes an entry off the
 * list, and none allocates.  The caller holds the CPU (cpu_hold(), which
 * keeps the refill work queued on @cpu waiting) and softirqs off (no
 * expiry there frees an entry) until it has used the empty list, and
 * cancels the callouts with untimeout_all().
 */
static unsigned int empty_free_list(atomic_t *arg, unsigned int cpu)
{
	unsigned int n = 0;

	while (twheel_timeout_free_read(cpu, NULL) && n <= TWHEEL_FREE_MAX &&
	       !timeout(count_fn, arg, FAR_TICKS))
		n++;
	return n;
}

/*
 * True once @cpu's free list is at its fill mark again: the refill a case
 * queued there has run, and cannot allocate from the cache behind a later
 * case (timeout_refill_failure_falls_back() counts the allocations).
 */
static bool free_list_settled(unsigned int cpu)
{
	return poll_until(twheel_timeout_free_read(cpu, NULL) >=
			  TWHEEL_FREE_FILL);
}

/*
 * With the CPU's free list empty, timeout() falls back on a GFP_ATOMIC
 * allocation, which succeeds here, and asks for a refill; once softirqs
 * are on again, the refill work brings the list back to its fill mark.
 */
static void timeout_empty_list_falls_back_and_refills(struct kunit *test)
{
	atomic_t *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	unsigned int cpu, drained, list[2];
	u64 failures;
	int ret;
	bool refilled;

	KUNIT_ASSERT_NOT_NULL(test, a);
	migrate_disable();
	cpu_hold();
	local_bh_disable();
	cpu = smp_processor_id();
	failures = timeout_failures(cpu);
	drained = empty_free_list(a, cpu);
	list[0] = twheel_timeout_free_read(cpu, NULL);
	ret = timeout(count_fn, a, FAR_TICKS);
	list[1] = twheel_timeout_free_read(cpu, NULL);
	failures = timeout_failures(cpu) - failures;
	local_bh_enable();
	cpu_unhold();
	/* The refill work runs on this CPU when this thread lets it. */
	refilled = free_list_settled(cpu);
	migrate_enable();

	KUNIT_EXPECT_GT(test, drained, 0U);
	KUNIT_EXPECT_EQ(test, list[0], 0U);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "timeout() with the list empty");
	KUNIT_EXPECT_EQ_MSG(test, list[1], 0U, "the entry came off a list");
	KUNIT_EXPECT_EQ(test, failures, 0ULL);
	KUNIT_EXPECT_TRUE_MSG(test, refilled, "CPU %u's list below %u", cpu,
			      TWHEEL_FREE_FILL);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, a), drained + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(a), 0);
}

/* A timeout(), or with @cancel an untimeout(), of @arg in hardirq context. */
struct hardirq_arm {
	struct hrtimer timer;
	atomic_t *arg;
	bool cancel;
	int ret;
	atomic_t done;
};

static enum hrtimer_restart hardirq_arm_fn(struct hrtimer *timer)
{
	struct hardirq_arm *h = container_of(timer, struct hardirq_arm, timer);

	h->ret = h->cancel ? untimeout(count_fn, h->arg) :
			     timeout(count_fn, h->arg, FAR_TICKS);
	atomic_set_release(&h->done, 1);
	return HRTIMER_NORESTART;
}

/*
 * Make @h's call from a hard hrtimer pinned to this CPU, which the caller
 * holds with its softirqs off; true if it was made.  Softirqs are off:
 * wait seconds, not poll_until()'s LOST_NS.
 */
static bool hardirq_call(struct hardirq_arm *h)
{
	ktime_t end = ktime_add_ms(ktime_get(), 5 * MSEC_PER_SEC);
	bool fired;

	hrtimer_setup(&h->timer, hardirq_arm_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
	hrtimer_start(&h->timer, ns_to_ktime(NSEC_PER_MSEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!(fired = atomic_read_acquire(&h->done)) &&
	       ktime_before(ktime_get(), end))
		cpu_relax();
	return fired;
}

/*
 * timeout() from hardirq context, with the CPU's free list empty, takes
 * its entry from the allocator (GFP_ATOMIC) and arms it; lockdep would
 * report an allocation that may not be made there.  Under PREEMPT_RT the
 * allocator may not be called there at all (its locks sleep): timeout()
 * returns -ENOMEM, counted, with nothing armed.  The hrtimer is pinned to
 * this CPU, held with its softirqs off, so that the list stays empty.
 */
static void timeout_empty_list_in_hardirq_allocates(struct kunit *test)
{
	struct hardirq_arm *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	atomic_t *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);
	unsigned int cpu, drained, list;
	u64 failures;
	bool fired;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, a);
	h->arg = a;
	cpu_hold();
	local_bh_disable();
	cpu = smp_processor_id();
	drained = empty_free_list(a, cpu);
	failures = timeout_failures(cpu);
	fired = hardirq_call(h);
	list = twheel_timeout_free_read(cpu, NULL);
	failures = timeout_failures(cpu) - failures;
	local_bh_enable();
	cpu_unhold();
	hrtimer_cancel(&h->timer);

	KUNIT_EXPECT_TRUE_MSG(test, fired, "the hrtimer did not fire");
	KUNIT_EXPECT_EQ_MSG(test, h->ret, rt ? -ENOMEM : 0,
			    "timeout() in hardirq context, the list empty");
	KUNIT_EXPECT_EQ(test, failures, rt ? 1ULL : 0ULL);
	KUNIT_EXPECT_EQ_MSG(test, list, 0U, "the entry came off a list");
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, a), drained + !rt);
	KUNIT_EXPECT_EQ(test, atomic_read(a), 0);
	KUNIT_EXPECT_TRUE(test, free_list_settled(cpu));
}

/*
 * untimeout() from hardirq context with the CPU's free list full gives
 * its entry back to the cache, whose kmem_cache_free() under PREEMPT_RT
 * may not be called there (its locks sleep): there the entry goes on the
 * list over its cap, and the refill work frees it once it may run.
 * Either way the console stays clean and the list ends at its cap.
 */
static void untimeout_full_list_in_hardirq_gives_entry_back(struct kunit *test)
{
	unsigned int n = TWHEEL_FREE_MAX + 1, i, cpu, failed = 0, list[2];
	struct hardirq_arm *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	atomic_t *a = kunit_kcalloc(test, n, sizeof(*a), GFP_KERNEL);
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);
	bool fired, trimmed;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, a);
	h->arg = &a[n - 1];
	h->cancel = true;
	migrate_disable();
	cpu_hold();
	local_bh_disable();
	cpu = smp_processor_id();
	/* More than the list holds: it ends empty, the rest allocated. */
	for (i = 0; i < n; i++)
		failed += timeout(count_fn, &a[i], FAR_TICKS) != 0;
	/* All but one back: the list fills to its cap. */
	for (i = 0; i + 1 < n; i++)
		failed += untimeout(count_fn, &a[i]) != 1;
	list[0] = twheel_timeout_free_read(cpu, NULL);
	fired = hardirq_call(h);
	list[1] = twheel_timeout_free_read(cpu, NULL);
	local_bh_enable();
	cpu_unhold();
	hrtimer_cancel(&h->timer);
	trimmed = poll_until(twheel_timeout_free_read(cpu, NULL) ==
			     TWHEEL_FREE_MAX);
	migrate_enable();

	KUNIT_EXPECT_EQ_MSG(test, failed, 0U, "of %u timeout()s and %u untimeout()s",
			    n, n - 1);
	KUNIT_EXPECT_TRUE_MSG(test, fired, "the hrtimer did not fire");
	KUNIT_EXPECT_EQ_MSG(test, h->ret, 1, "untimeout() in hardirq context");
	KUNIT_EXPECT_EQ(test, list[0], TWHEEL_FREE_MAX);
	KUNIT_EXPECT_EQ_MSG(test, list[1], TWHEEL_FREE_MAX + rt,
			    "the list after untimeout() in hardirq context");
	KUNIT_EXPECT_TRUE_MSG(test, trimmed, "CPU %u's list is not at its cap",
			      cpu);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&a[i]), 0);
}

/*
 * With the CPU's free list empty, failslab fails timeout()'s GFP_ATOMIC
 * allocation, twice: -ENOMEM each time, counted, nothing armed, and
 * untimeout() finds each earlier duplicate exactly once, the newest first.
 * The allocation is __GFP_NOWARN, so the injected failures print no stack
 * (the run's console judges that).  Softirqs stay off throughout, so that
 * the list is refilled only after.
 */
static void timeout_alloc_failure_returns_enomem(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	const struct callout *newest, *seen;
	unsigned int cpu, drained, list, left[2], cancelled;
	u64 failures;
	int ret[2];

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "needs CONFIG_FAILSLAB");
	KUNIT_ASSERT_NOT_NULL(test, dup);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, dup, FAR_TICKS), 0);

	cpu_hold();
	local_bh_disable();
	cpu = smp_processor_id();
	failures = timeout_failures(cpu);
	drained = empty_free_list(dup, cpu);
	newest = twheel_timeout_lookup(count_fn, dup);
	list = twheel_timeout_free_read(cpu, NULL);
	fail_nth_set(1);
	ret[0] = timeout(count_fn, dup, 0);
	left[0] = fail_nth_left();
	fail_nth_set(1);
	ret[1] = timeout(count_fn, dup, 0);
	left[1] = fail_nth_left();
	fail_nth_set(0);
	seen = twheel_timeout_lookup(count_fn, dup);
	failures = timeout_failures(cpu) - failures;
	cancelled = untimeout_all(count_fn, dup);
	local_bh_enable();
	cpu_unhold();

	KUNIT_EXPECT_EQ(test, list, 0U);
	KUNIT_EXPECT_EQ_MSG(test, left[0], 0U, "the allocation was not reached");
	KUNIT_EXPECT_EQ_MSG(test, left[1], 0U, "the allocation was not reached");
	KUNIT_EXPECT_EQ(test, ret[0], -ENOMEM);
	KUNIT_EXPECT_EQ(test, ret[1], -ENOMEM);
	KUNIT_EXPECT_EQ(test, failures, 2ULL);
	KUNIT_EXPECT_PTR_EQ_MSG(test, seen, newest, "a failed one is hashed");
	KUNIT_EXPECT_EQ_MSG(test, cancelled, drained + 1,
			    "untimeout()s of the armed duplicates");
	/* After the time the failed ones asked for (0 ticks), plenty. */
	spin_ns(20 * twheel_tick_ns());
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(dup), 0, "a callout ran");
	KUNIT_EXPECT_TRUE(test, free_list_settled(cpu));
}

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define CACHE		"/sys/kernel/slab/twheel_timeout/"

/* A failslab knob and its value: on, then back to the default. */
struct knob {
	const char *path;
	const char *on;
	const char *off;
};

/*
 * Make failslab fail the one allocation from twheel's timeout() cache that
 * follows three more, of any kind (GFP_KERNEL too), and nothing else: only
 * marked caches failing (the test guests boot with
 * "slub_debug=A,twheel_timeout", which marks that one), the first three
 * allocations' sizes let through ("space"), then one failure ("times") at
 * a probability of 100%.  Or set every knob back to its default.  The
 * knobs are files that only a write from user memory reaches
 * (twheel_dfs.h).  Return: 0 if done.
 */
static int fail_fourth_timeout_alloc(bool on)
{
	static const struct knob knobs[] = {
		{ FAILSLAB "ignore-gfp-wait", "N", "Y" },
		{ FAILSLAB "cache-filter", "Y", "N" },
		{ FAILSLAB "verbose", "0", "2" },
		{ FAILSLAB "times", "1", "1" },
		{ FAILSLAB "space", NULL, "0" },
		{ FAILSLAB "probability", "100", "0" },
	};
	unsigned int size, i;
	char space[16], buf[32];
	int ret = 0;

	if (on) {
		if (dfs_sh("grep -qx 1 " CACHE "failslab"))
			return -ENODEV;
		ret = dfs_read(CACHE "object_size", buf, sizeof(buf));
		if (ret || kstrtouint(strim(buf), 10, &size))
			return ret ?: -EPROTO;
		snprintf(space, sizeof(space), "%u", 3 * size + 1);
	}
	/* Probability last when on, first (from the end) when off. */
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		const struct knob *k = &knobs[on ? i : ARRAY_SIZE(knobs) - 1 - i];

		ret = dfs_write(k->path, on ? k->on ?: space : k->off) ?: ret;
		if (on && ret)
			return ret;
	}
	return ret;
}

/*
 * A refill of the CPU's free list whose fourth GFP_KERNEL allocation fails
 * stops with three entries; timeout() then takes those, goes on through
 * its GFP_ATOMIC fallback, and, when that fails too, returns -ENOMEM with
 * nothing armed.  Every entry is accounted for: untimeout() finds each
 * armed one exactly once, and unloading twheel destroys its cache with no
 * object left (the slab would print "Objects remaining").  The refill is
 * the real one, queued by timeout() and run by a kworker; failslab (not
 * fail_nth, which follows one task) fails its allocation.
 */
static void timeout_refill_failure_falls_back(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	unsigned int cpu, drained, filled, list, i, armed, failed = 0;
	bool stopped;
	int ret;

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "needs CONFIG_FAILSLAB");
	KUNIT_ASSERT_NOT_NULL(test, dup);
	if (fail_fourth_timeout_alloc(true)) {
		fail_fourth_timeout_alloc(false);
		kunit_skip(test, "cannot make failslab fail twheel's cache alone");
	}

	migrate_disable();
	cpu = smp_processor_id();
	cpu_hold();
	local_bh_disable();
	drained = empty_free_list(dup, cpu);
	local_bh_enable();
	cpu_unhold();
	/* The refill: three entries, then the failure stops it. */
	stopped = poll_until(twheel_timeout_free_read(cpu, NULL) >= 3 &&
			     !dfs_sh("grep -qx 0 " FAILSLAB "times"));
	filled = twheel_timeout_free_read(cpu, NULL);

	cpu_hold();
	local_bh_disable();
	/* The three on the list, then two from the allocator. */
	for (i = 0; i < filled + 2; i++)
		failed += timeout(count_fn, dup, FAR_TICKS) != 0;
	armed = drained + filled + 2;
	list = twheel_timeout_free_read(cpu, NULL);
	fail_nth_set(1);
	ret = timeout(count_fn, dup, FAR_TICKS);
	fail_nth_set(0);
	local_bh_enable();
	cpu_unhold();
	migrate_enable();

	KUNIT_EXPECT_EQ(test, fail_fourth_timeout_alloc(false), 0);
	KUNIT_EXPECT_TRUE_MSG(test, stopped, "no failed refill");
	KUNIT_EXPECT_EQ_MSG(test, filled, 3U, "entries left by the refill");
	KUNIT_EXPECT_EQ_MSG(test, failed, 0U, "of %u timeout()s", filled + 2);
	KUNIT_EXPECT_EQ(test, list, 0U);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, dup), armed);
	KUNIT_EXPECT_EQ(test, atomic_read(dup), 0);
}

static struct kunit_case twheel_timeout_alloc_cases[] = {
	KUNIT_CASE(timeout_free_list_reuses_untimeout_entry),
	KUNIT_CASE(timeout_burst_refills_free_list),
	KUNIT_CASE(timeout_empty_list_falls_back_and_refills),
	KUNIT_CASE(timeout_empty_list_in_hardirq_allocates),
	KUNIT_CASE(untimeout_full_list_in_hardirq_gives_entry_back),
	KUNIT_CASE(timeout_alloc_failure_returns_enomem),
	KUNIT_CASE(timeout_refill_failure_falls_back),
	{}
};

static struct kunit_suite twheel_timeout_alloc_suite = {
	.name = "twheel_timeout_alloc",
	.test_cases = twheel_timeout_alloc_cases,
};

kunit_test_suite(twheel_timeout_alloc_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's timeout() free lists and allocations");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
