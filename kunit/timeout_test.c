// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the BSD interface behind its API: how the timeout() hash
 * table holds duplicates of one (func, arg) and grows (twheel_hash_read(),
 * twheel_timeout_lookup()), timeout()'s per-CPU free lists and what it
 * does when its allocations fail, made to by fault injection (failslab,
 * and current->fail_nth aimed at the test's own task), and
 * twheel_timeout_cancel_if().  The module has no hook for these tests:
 * they drive it through timeout(), untimeout() and fault injection, and
 * look through readers exported with EXPORT_SYMBOL_IF_KUNIT().
 *
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/bsearch.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"
#include "../bench/twheel_dfs.h"

static void other_fn(void *arg)
{
	atomic_inc(arg);
}

static unsigned long longest_chain(void)
{
	unsigned long longest;
	unsigned int bits;

	twheel_hash_read(&bits, &longest);
	return longest;
}

/* A key, and how many of its entries twheel_timeout_cancel_if() saw. */
struct key_count {
	callout_func_t func;
	void *arg;
	unsigned long seen;
};

/* Count @c if it has @data's key; cancel nothing. */
static bool key_count_match(const struct callout *c, void *data)
{
	struct key_count *k = data;

	if (c->func == k->func && c->arg == k->arg)
		k->seen++;
	return false;
}

/* The entries of (@func, @arg) hashed now, pending or running. */
static unsigned long key_entries(callout_func_t func, void *arg)
{
	struct key_count k = { .func = func, .arg = arg };

	twheel_timeout_cancel_if(key_count_match, &k, NULL);
	return k.seen;
}

/* untimeout() until it finds nothing; return how often it found one. */
static unsigned int untimeout_all(callout_func_t func, void *arg)
{
	unsigned int n = 0;

	while (untimeout(func, arg) == 1)
		n++;
	return n;
}

/*
 * A thousand duplicates of one key and a few other keys: every chain is
 * still a few keys long, so that the other keys' lookups, and untimeout()s
 * of them, walk no duplicate.
 */
static void timeout_duplicates_keep_chains_short(struct kunit *test)
{
	atomic_t *a = kunit_kcalloc(test, 4, sizeof(*a), GFP_KERNEL);
	unsigned int n = 1000, i, failed = 0;
	unsigned long longest;

	KUNIT_ASSERT_NOT_NULL(test, a);
	for (i = 0; i < n; i++)
		failed += timeout(count_fn, &a[0], FAR_TICKS) != 0;
	for (i = 1; i < 4; i++)
		failed += timeout(count_fn, &a[i], FAR_TICKS) != 0;
	longest = longest_chain();
	/* Each other key still finds its own entry, once. */
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, &a[i]), 1);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, &a[0]), n);

	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_LE_MSG(test, longest, 4UL,
			    "a chain of %lu with %u duplicates of one key",
			    longest, n);
}

/*
 * Duplicates of one key do not make the table grow: it counts keys, and
 * there is one.  With the table at 2^b buckets, 8 * 2^b duplicates and
 * 4 * 2^b other keys are armed with the CPU held (cpu_hold()), so that the
 * growth work, queued on this CPU, runs once after the burst: it sizes the table
 * to a bucket per key, 2^(b + 3) for the 4 * 2^b + 1 keys, where counting
 * the duplicates would make it 2^(b + 4).
 */
static void timeout_duplicates_do_not_grow_table(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	unsigned int bits = hash_bits(), n, k, i, failed = 0, left = 0;
	atomic_t *other;
	bool grew;

	KUNIT_ASSERT_NOT_NULL(test, dup);
	if (bits > 14)
		kunit_skip(test, "the table has 2^%u buckets already", bits);
	n = 8U << bits;
	k = 4U << bits;
	other = vcalloc(k, sizeof(*other));
	KUNIT_ASSERT_NOT_NULL(test, other);
	cpu_hold();
	for (i = 0; i < n; i++)
		failed += timeout(count_fn, dup, FAR_TICKS) != 0;
	for (i = 0; i < k; i++)
		failed += timeout(count_fn, &other[i], FAR_TICKS) != 0;
	cpu_unhold();
	grew = poll_until(hash_bits() != bits);
	for (i = 0; i < k; i++)
		left += untimeout(count_fn, &other[i]) != 1;
	vfree(other);

	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, left, 0);
	KUNIT_EXPECT_TRUE_MSG(test, grew, "%u keys did not grow the table", k);
	/*
	 * Under PREEMPT_RT the fair server gives the growth work its share
	 * of a CPU that a SCHED_FIFO task keeps busy for seconds, so it may
	 * run mid-burst, before all the other keys are hashed: then the
	 * table may stop short of a bucket per key, but duplicates counted
	 * would still take it past that.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		KUNIT_EXPECT_LE_MSG(test, hash_bits(), bits + 3,
				    "%u duplicates and %u other keys, from 2^%u buckets",
				    n, k, bits);
	else
		KUNIT_EXPECT_EQ_MSG(test, hash_bits(), bits + 3,
				    "%u duplicates and %u other keys, from 2^%u buckets",
				    n, k, bits);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, dup), n);
	KUNIT_EXPECT_EQ(test, atomic_read(dup), 0);
}

/*
 * Distinct keys armed in one burst: enough that the table must grow some
 * steps at once, few enough to arm in seconds with preemption off.
 */
#define NKEYS	BIT(16)

/*
 * 2^16 distinct keys armed from one CPU held (cpu_hold()), so that the
 * growth work, queued there, cannot run before the burst is over, and
 * every request for growth but the first is made while it is queued: once
 * it has run, the table has a bucket for every two keys at least, and no
 * chain is longer than a small constant.  A work that grew the table one
 * step per run would leave chains of some 8 to 32 keys (from the 2^10 or
 * more buckets the cases before left), walked with interrupts off by every
 * timeout() and untimeout() of those keys.
 */
static void timeout_burst_of_keys_sizes_table(struct kunit *test)
{
	atomic_t *a = vcalloc(NKEYS, sizeof(*a));
	unsigned int i, failed = 0, left = 0, bits;
	unsigned long longest;
	bool grown;

	KUNIT_ASSERT_NOT_NULL(test, a);
	cpu_hold();
	for (i = 0; i < NKEYS; i++)
		failed += timeout(count_fn, &a[i], FAR_TICKS) != 0;
	cpu_unhold();
	/* The growth asked for meanwhile stops at two keys a bucket. */
	grown = poll_until(BIT(hash_bits()) >= NKEYS / 2);
	twheel_hash_read(&bits, &longest);
	for (i = 0; i < NKEYS; i++)
		left += untimeout(count_fn, &a[i]) != 1;
	vfree(a);

	kunit_info(test, "%lu keys: %lu buckets, longest chain %lu\n",
		   NKEYS, BIT(bits), longest);
	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, left, 0);
	KUNIT_EXPECT_TRUE_MSG(test, grown, "%lu buckets for %lu keys",
			      BIT(bits), NKEYS);
	KUNIT_EXPECT_LE_MSG(test, longest, 16UL,
			    "a chain of %lu keys in %lu buckets", longest,
			    BIT(bits));
}

#define DUPS	5

/*
 * untimeout() cancels duplicates newest first, each exactly once; two keys
 * armed in turn do not disturb one another.  twheel_timeout_lookup() names
 * the entry untimeout() tries first; the entries it names are not reused
 * while the test looks, since it arms nothing meanwhile.
 */
static void untimeout_duplicates_newest_first(struct kunit *test)
{
	atomic_t *a = kunit_kcalloc(test, 2, sizeof(*a), GFP_KERNEL);
	const struct callout *armed[2][DUPS], *seen;
	int i, k, ret;

	KUNIT_ASSERT_NOT_NULL(test, a);
	for (i = 0; i < DUPS; i++) {
		for (k = 0; k < 2; k++) {
			KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[k],
						      FAR_TICKS), 0);
			armed[k][i] = twheel_timeout_lookup(count_fn, &a[k]);
			KUNIT_EXPECT_NOT_NULL(test, armed[k][i]);
		}
	}
	for (k = 0; k < 2; k++) {
		for (i = DUPS - 1; i >= 0; i--) {
			seen = twheel_timeout_lookup(count_fn, &a[k]);
			ret = untimeout(count_fn, &a[k]);
			KUNIT_EXPECT_PTR_EQ_MSG(test, seen, armed[k][i],
						"key %d, duplicate %d", k, i);
			KUNIT_EXPECT_EQ_MSG(test, ret, 1,
					    "key %d, duplicate %d", k, i);
		}
		KUNIT_EXPECT_EQ(test, untimeout(count_fn, &a[k]), 0);
		KUNIT_EXPECT_NULL(test, twheel_timeout_lookup(count_fn, &a[k]));
		/* The other key's newest is untouched. */
		if (!k)
			KUNIT_EXPECT_PTR_EQ(test,
					    twheel_timeout_lookup(count_fn,
								  &a[1]),
					    armed[1][DUPS - 1]);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&a[0]) + atomic_read(&a[1]), 0);
}

/* Which of DUPS duplicates expire, and when; 0 for never in the test. */
struct expiry_case {
	const char *desc;
	unsigned long ticks[DUPS];	/* [0] armed first, [DUPS - 1] last */
};

static const struct expiry_case expiry_cases[] = {
	{ "the newest expires", { 0, 0, 0, 0, 10 } },
	{ "the oldest expires", { 10, 0, 0, 0, 0 } },
	{ "a middle one expires", { 0, 0, 10, 0, 0 } },
	{ "newest, oldest, then a middle one", { 20, 0, 30, 0, 10 } },
	{ "all but one, oldest first", { 10, 20, 30, 0, 40 } },
	{ "all, oldest first", { 10, 20, 30, 40, 50 } },
	{ "all, newest first", { 50, 40, 30, 20, 10 } },
	{ "all on one tick", { 10, 10, 10, 10, 10 } },
};

KUNIT_ARRAY_PARAM_DESC(expiry, expiry_cases, desc);

/*
 * Duplicates expire in any order, the key's newest among them, and
 * untimeout() still finds each of the others exactly once, newest first;
 * each expired one ran once.
 */
static void timeout_duplicates_expire_in_any_order(struct kunit *test)
{
	const struct expiry_case *p = test->param_value;
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	const struct callout *armed[DUPS];
	unsigned int expiring = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, dup);
	for (i = 0; i < DUPS; i++) {
		expiring += p->ticks[i] != 0;
		KUNIT_ASSERT_EQ(test, timeout(count_fn, dup,
					      p->ticks[i] ?: FAR_TICKS), 0);
		armed[i] = twheel_timeout_lookup(count_fn, dup);
	}
	/* Run, and released: no longer hashed. */
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(dup) == expiring));
	KUNIT_ASSERT_TRUE(test, poll_until(key_entries(count_fn, dup) ==
					   DUPS - expiring));

	for (i = DUPS - 1; i >= 0; i--) {
		if (p->ticks[i])
			continue;
		KUNIT_EXPECT_PTR_EQ_MSG(test,
					twheel_timeout_lookup(count_fn, dup),
					armed[i], "duplicate %d", i);
		KUNIT_EXPECT_EQ_MSG(test, untimeout(count_fn, dup), 1,
				    "duplicate %d", i);
	}
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, dup), 0);
	KUNIT_EXPECT_NULL(test, twheel_timeout_lookup(count_fn, dup));
	KUNIT_EXPECT_EQ(test, atomic_read(dup), expiring);
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

	hrtimer_init(&h->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	h->timer.function = hardirq_arm_fn;
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

/* The callouts whose function is @data. */
static bool func_match(const struct callout *c, void *data)
{
	return (void *)c->func == data;
}

/* A callout that runs until told to return. */
struct blocker {
	atomic_t started;
	atomic_t go;
};

static void block_fn(void *arg)
{
	struct blocker *b = arg;

	atomic_set(&b->started, 1);
	while (!atomic_read(&b->go))
		cpu_relax();
}

/* Arm block_fn on the CPU this runs on: an IPI. */
static void arm_blocker(void *arg)
{
	WARN_ON_ONCE(timeout(block_fn, arg, 1));
}

/*
 * twheel_timeout_cancel_if() with a match on the function cancels every
 * pending callout of that function, whatever its argument and however
 * many duplicates, says which function came first, and leaves the others
 * and a running one alone; with no match it cancels nothing and leaves
 * *first as it was.
 */
static void timeout_cancel_if_matches_func(struct kunit *test)
{
	atomic_t *a = kunit_kcalloc(test, 2, sizeof(*a), GFP_KERNEL);
	struct blocker *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	callout_func_t first = other_fn;
	unsigned long n, none;
	unsigned int cpu, other;
	bool ran;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	/* count_fn: three of one key, one of another; other_fn: two. */
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[0], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(other_fn, &a[0], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[0], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[1], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(other_fn, &a[1], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[0], FAR_TICKS), 0);
	/*
	 * block_fn: one running, on the other CPU, one pending.  This thread
	 * keeps to its CPU, which the running one does not hold.
	 */
	migrate_disable();
	cpu = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, cpu);
	KUNIT_ASSERT_EQ(test, smp_call_function_single(other, arm_blocker, b,
						       true), 0);
	ran = poll_until(atomic_read(&b->started));
	KUNIT_EXPECT_EQ(test, timeout(block_fn, b, FAR_TICKS), 0);

	none = twheel_timeout_cancel_if(func_match, (void *)spin_ns, &first);
	KUNIT_EXPECT_EQ(test, none, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, (void *)first, (void *)other_fn);

	n = twheel_timeout_cancel_if(func_match, (void *)count_fn, &first);
	KUNIT_EXPECT_EQ(test, n, 4UL);
	KUNIT_EXPECT_PTR_EQ(test, (void *)first, (void *)count_fn);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, &a[0]), 0);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, &a[1]), 0);

	n = twheel_timeout_cancel_if(func_match, (void *)block_fn, &first);
	KUNIT_EXPECT_TRUE(test, ran);
	KUNIT_EXPECT_EQ_MSG(test, n, 1UL, "the running one was cancelled");
	KUNIT_EXPECT_PTR_EQ(test, (void *)first, (void *)block_fn);
	KUNIT_EXPECT_EQ(test, key_entries(block_fn, b), ran ? 1UL : 0UL);
	atomic_set(&b->go, 1);
	/* Its release, after it returns, frees it. */
	KUNIT_EXPECT_TRUE(test, poll_until(!key_entries(block_fn, b)));
	migrate_enable();

	KUNIT_EXPECT_EQ(test, untimeout_all(other_fn, &a[0]), 1);
	KUNIT_EXPECT_EQ(test, untimeout_all(other_fn, &a[1]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a[0]) + atomic_read(&a[1]), 0);
}

/*
 * One walk of twheel_timeout_cancel_if(), watched hold by hold of its
 * stripe locks.  Its test runs with the lock held and interrupts off; its
 * first call in a hold queues @end, an irq_work, whose self-interrupt
 * comes as soon as the lock is let go and interrupts are on again, and
 * closes the hold's count.  Of the key (@func, @arg) the test records
 * each callout offered, and accepts every @every-th (none if 0).
 */
struct hold_watch {
	struct irq_work end;
	callout_func_t func;
	void *arg;
	unsigned int every;
	unsigned int in_hold;
	unsigned int key_in_hold;
	unsigned int most;
	unsigned int holds;
	unsigned long accepted;
	/* The key's callouts offered, up to @room of them, and how many. */
	const struct callout **offered;
	unsigned long room;
	unsigned long seen;
	/* In the pause after the first hold with the key: untimeout()s. */
	unsigned int pause_untimeouts;
	unsigned int untimed;
	bool paused;
};

static void hold_end(struct irq_work *work)
{
	struct hold_watch *h = container_of(work, struct hold_watch, end);
	unsigned int i;

	h->most = max(h->most, h->in_hold);
	h->holds++;
	if (h->key_in_hold && !h->paused) {
		/* The walk waits, its place held, while the key changes. */
		h->paused = true;
		for (i = 0; i < h->pause_untimeouts; i++)
			h->untimed += untimeout(h->func, h->arg);
	}
	h->in_hold = 0;
	h->key_in_hold = 0;
}

static bool hold_match(const struct callout *c, void *data)
{
	struct hold_watch *h = data;

	if (!h->in_hold++)
		irq_work_queue(&h->end);
	if (c->func != h->func || c->arg != h->arg)
		return false;
	h->key_in_hold++;
	if (h->seen < h->room)
		h->offered[h->seen] = c;
	h->seen++;
	if (!h->every || h->seen % h->every)
		return false;
	h->accepted++;
	return true;
}

/*
 * Watch twheel_timeout_cancel_if() through @h, which has its key and
 * room for @room callouts; return what it cancelled.
 */
static unsigned long watch_cancel_if(struct kunit *test, struct hold_watch *h,
				     unsigned long room)
{
	unsigned long n;

	h->end = IRQ_WORK_INIT_HARD(hold_end);
	h->offered = kunit_kcalloc(test, room, sizeof(*h->offered),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->offered);
	h->room = room;
	n = twheel_timeout_cancel_if(hold_match, h, NULL);
	irq_work_sync(&h->end);
	return n;
}

/*
 * twheel_timeout_cancel_if() holds a stripe lock for %TWHEEL_BATCH
 * entries at most, cancelled or not, as the tick holds a base lock: 2000
 * duplicates of one key, all in one bucket, of which its test accepts one
 * in seven, are looked at a batch per hold of the lock, each once, and
 * the ones accepted, and only those, are cancelled.  A walk that counted
 * only cancellations held the lock for seven batches' worth and more.
 */
static void timeout_cancel_if_holds_lock_per_batch(struct kunit *test)
{
	struct hold_watch *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	atomic_t *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	const unsigned int n = 2000;
	unsigned long cancelled;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, a);
	if (!arch_irq_work_has_interrupt())
		kunit_skip(test, "needs irq_work's self-interrupt");
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, a, FAR_TICKS), 0);
	h->func = count_fn;
	h->arg = a;
	h->every = 7;

	cancelled = watch_cancel_if(test, h, n);
	kunit_info(test, "%u holds, the longest offering %u callouts\n",
		   h->holds, h->most);
	KUNIT_EXPECT_EQ(test, h->seen, (unsigned long)n);
	KUNIT_EXPECT_EQ(test, h->accepted, (unsigned long)n / 7);
	KUNIT_EXPECT_EQ(test, cancelled, h->accepted);
	KUNIT_EXPECT_LE_MSG(test, h->most, (unsigned int)TWHEEL_BATCH,
			    "one hold of a stripe lock offered %u callouts",
			    h->most);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, a), n - n / 7);
	KUNIT_EXPECT_EQ(test, atomic_read(a), 0);
}

/* untimeout()s made while the walk pauses after its first batch. */
struct pause_case {
	unsigned int untimeouts;
	const char *desc;
};

static const struct pause_case pause_cases[] = {
	{ 100, "100: some of those walked" },
	{ 300, "300: those walked, then the first not walked" },
	{ 1000, "1000: every one, and the key with them" },
};

KUNIT_ARRAY_PARAM_DESC(pause, pause_cases, desc);

static int ptr_cmp(const void *a, const void *b)
{
	const void *x = *(const void * const *)a, *y = *(const void * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * While twheel_timeout_cancel_if() pauses in a key of 1000 duplicates
 * after its first batch, untimeout() takes away the most recent ones: the
 * walk's place holds (its mark among the key's older entries, or in the
 * chain before the key once its newest goes from before the mark, or
 * where the key was once it is gone), so that the walk offers no callout
 * twice, and every one still hashed when it ends was offered.
 */
static void timeout_cancel_if_untimeout_while_paused(struct kunit *test)
{
	const struct pause_case *p = test->param_value;
	struct hold_watch *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct hold_watch *after = kunit_kzalloc(test, sizeof(*after),
						 GFP_KERNEL);
	atomic_t *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	const unsigned int n = 1000;
	unsigned long i, left;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, after);
	KUNIT_ASSERT_NOT_NULL(test, a);
	if (!arch_irq_work_has_interrupt())
		kunit_skip(test, "needs irq_work's self-interrupt");
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, a, FAR_TICKS), 0);
	h->func = count_fn;
	h->arg = a;
	h->pause_untimeouts = p->untimeouts;

	KUNIT_EXPECT_EQ(test, watch_cancel_if(test, h, n), 0UL);
	KUNIT_ASSERT_TRUE(test, h->paused);
	KUNIT_EXPECT_EQ(test, h->untimed, p->untimeouts);
	KUNIT_EXPECT_LE(test, h->seen, (unsigned long)n);
	KUNIT_EXPECT_LE(test, h->most, (unsigned int)TWHEEL_BATCH);
	sort(h->offered, h->seen, sizeof(*h->offered), ptr_cmp, NULL);
	for (i = 1; i < h->seen; i++)
		KUNIT_EXPECT_PTR_NE_MSG(test, h->offered[i], h->offered[i - 1],
					"offered twice");

	/* What is left was there throughout, and was offered. */
	after->func = count_fn;
	after->arg = a;
	watch_cancel_if(test, after, n);
	left = after->seen;
	KUNIT_EXPECT_EQ(test, left, (unsigned long)(n - p->untimeouts));
	for (i = 0; i < left; i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test,
					  bsearch(&after->offered[i],
						  h->offered, h->seen,
						  sizeof(*h->offered),
						  ptr_cmp),
					  "callout %lu of those left not offered",
					  i);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, a), left);
	KUNIT_EXPECT_EQ(test, atomic_read(a), 0);
}

/* Keys every CPU arms and cancels at once in the next case, and rounds. */
#define SHARED_KEYS	4
#define SHARED_ROUNDS	20000

/* One CPU's share of the next case: its work, and what its calls did. */
struct shared_worker {
	struct work_struct work;
	atomic_t *keys;
	unsigned int cpu;
	unsigned long armed;
	unsigned long cancelled;
	unsigned long failed;
};

/*
 * On one CPU: arm one of the shared keys each round, either far ahead or
 * a few ticks ahead, so that expiries release entries of the same chains
 * from the tick meanwhile, and every other round cancel one, its pick
 * turning at another pace than the arming's.
 */
static void shared_keys_work(struct work_struct *work)
{
	struct shared_worker *w = container_of(work, struct shared_worker,
					       work);
	unsigned int i, k;

	for (i = 0; i < SHARED_ROUNDS; i++) {
		k = (i + w->cpu) % SHARED_KEYS;
		if (timeout(count_fn, &w->keys[k], i % 3 ? FAR_TICKS : i % 5))
			w->failed++;
		else
			w->armed++;
		if (i & 1) {
			k = (i / 2 + 3 * w->cpu) % SHARED_KEYS;
			w->cancelled += untimeout(count_fn, &w->keys[k]);
		}
		if (!(i % 256))
			cond_resched();
	}
}

/*
 * Every online CPU arms and cancels duplicates of the same four keys at
 * once, while some of them expire: their calls meet on the same chains
 * under the same stripe locks, from tasks on each CPU and from each CPU's
 * tick.  Each entry armed is then counted once, as cancelled by
 * untimeout(), as run, or as still pending at the end, and nothing stays
 * hashed once those are cancelled.  A stripe lock that let two CPUs into a
 * chain at once loses or doubles entries here.
 */
static void timeout_shared_keys_from_every_cpu(struct kunit *test)
{
	atomic_t *keys = kunit_kcalloc(test, SHARED_KEYS, sizeof(*keys),
				       GFP_KERNEL);
	struct shared_worker *w;
	unsigned long armed = 0, cancelled = 0, failed = 0, ran = 0;
	unsigned int cpu, k, workers = 0;
	bool released;

	KUNIT_ASSERT_NOT_NULL(test, keys);
	w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK(&w[cpu].work, shared_keys_work);
		w[cpu].keys = keys;
		w[cpu].cpu = cpu;
		queue_work_on(cpu, system_highpri_wq, &w[cpu].work);
		workers++;
	}
	for_each_online_cpu(cpu) {
		flush_work(&w[cpu].work);
		armed += w[cpu].armed;
		cancelled += w[cpu].cancelled;
		failed += w[cpu].failed;
	}
	cpus_read_unlock();
	for (k = 0; k < SHARED_KEYS; k++)
		cancelled += untimeout_all(count_fn, &keys[k]);
	/* What was running at the end is released once it returns. */
	released = poll_until(!key_entries(count_fn, &keys[0]) &&
			      !key_entries(count_fn, &keys[1]) &&
			      !key_entries(count_fn, &keys[2]) &&
			      !key_entries(count_fn, &keys[3]));
	for (k = 0; k < SHARED_KEYS; k++)
		ran += atomic_read(&keys[k]);

	kunit_info(test, "%u CPUs: %lu armed, %lu cancelled, %lu ran\n",
		   workers, armed, cancelled, ran);
	KUNIT_EXPECT_EQ(test, failed, 0UL);
	KUNIT_EXPECT_EQ(test, armed, (unsigned long)workers * SHARED_ROUNDS);
	KUNIT_EXPECT_TRUE_MSG(test, released, "entries still hashed");
	KUNIT_EXPECT_EQ_MSG(test, cancelled + ran, armed,
			    "%lu cancelled and %lu ran of %lu armed",
			    cancelled, ran, armed);
	KUNIT_EXPECT_GT_MSG(test, ran, 0UL, "no short timeout() ran");
}

static struct kunit_case twheel_timeout_cases[] = {
	KUNIT_CASE(timeout_duplicates_keep_chains_short),
	KUNIT_CASE_SLOW(timeout_duplicates_do_not_grow_table),
	KUNIT_CASE(untimeout_duplicates_newest_first),
	KUNIT_CASE_PARAM(timeout_duplicates_expire_in_any_order,
			 expiry_gen_params),
	KUNIT_CASE(timeout_empty_list_falls_back_and_refills),
	KUNIT_CASE(timeout_empty_list_in_hardirq_allocates),
	KUNIT_CASE(untimeout_full_list_in_hardirq_gives_entry_back),
	KUNIT_CASE(timeout_alloc_failure_returns_enomem),
	KUNIT_CASE(timeout_refill_failure_falls_back),
	KUNIT_CASE(timeout_cancel_if_matches_func),
	KUNIT_CASE(timeout_cancel_if_holds_lock_per_batch),
	KUNIT_CASE_PARAM(timeout_cancel_if_untimeout_while_paused,
			 pause_gen_params),
	KUNIT_CASE_SLOW(timeout_shared_keys_from_every_cpu),
	/* Last: the table it leaves makes the growth cases above slow. */
	KUNIT_CASE_SLOW(timeout_burst_of_keys_sizes_table),
	{}
};

static struct kunit_suite twheel_timeout_suite = {
	.name = "twheel_timeout",
	.test_cases = twheel_timeout_cases,
};

kunit_test_suite(twheel_timeout_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's timeout() hash table and allocations");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
