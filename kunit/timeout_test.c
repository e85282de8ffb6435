// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the BSD interface behind its API: how the timeout() hash
 * table holds duplicates of one (func, arg) (twheel_hash_read(),
 * twheel_timeout_lookup()), timeout() when its allocations fail, made to
 * by fault injection aimed at the test's own task (current->fail_nth), and
 * twheel_timeout_cancel_if().
 *
 * Waiters busy-poll against ktime rather than sleep (test_util.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/umh.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"

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
 * Duplicates of one key, more than twice the table's buckets, do not make
 * the table grow: it counts keys, and there is one.
 */
static void timeout_duplicates_do_not_grow_table(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	unsigned int bits = hash_bits(), n = (2U << bits) + 100, i;
	unsigned int failed = 0, after;

	KUNIT_ASSERT_NOT_NULL(test, dup);
	for (i = 0; i < n; i++)
		failed += timeout(count_fn, dup, FAR_TICKS) != 0;
	/* A growth asked for meanwhile has finished, or found no need. */
	twheel_hash_flush();
	after = hash_bits();

	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ_MSG(test, after, bits,
			    "%u duplicates of one key grew the table", n);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, dup), n);
	KUNIT_EXPECT_EQ(test, atomic_read(dup), 0);
}

/*
 * Distinct keys armed in one burst: enough that the table must grow some
 * steps at once, few enough to arm in seconds with preemption off.
 */
#define NKEYS	BIT(16)

/*
 * 2^16 distinct keys armed from one CPU with preemption off, so that the
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

	KUNIT_ASSERT_NOT_NULL(test, a);
	preempt_disable();
	for (i = 0; i < NKEYS; i++)
		failed += timeout(count_fn, &a[i], FAR_TICKS) != 0;
	preempt_enable();
	/* The growth asked for meanwhile has finished. */
	twheel_hash_flush();
	twheel_hash_read(&bits, &longest);
	for (i = 0; i < NKEYS; i++)
		left += untimeout(count_fn, &a[i]) != 1;
	vfree(a);

	kunit_info(test, "%lu keys: %lu buckets, longest chain %lu\n",
		   NKEYS, BIT(bits), longest);
	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, left, 0);
	KUNIT_EXPECT_GE_MSG(test, BIT(bits), NKEYS / 2,
			    "%lu buckets for %lu keys", BIT(bits), NKEYS);
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
 * With the CPU's free list empty, failslab fails timeout()'s GFP_ATOMIC
 * allocation: -ENOMEM, counted, nothing armed, and untimeout() finds each
 * earlier duplicate exactly once.  The allocation is __GFP_NOWARN, so the
 * injected failure prints no stack (the run's console judges that).
 * Softirqs stay off throughout, so that the list is refilled only after.
 */
static void timeout_alloc_failure_returns_enomem(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	const struct callout *newest, *seen;
	unsigned int cpu, list, left;
	u64 failures;
	int ret[4];

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "needs CONFIG_FAILSLAB");
	KUNIT_ASSERT_NOT_NULL(test, dup);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, dup, FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, dup, FAR_TICKS), 0);
	newest = twheel_timeout_lookup(count_fn, dup);

	local_bh_disable();
	cpu = smp_processor_id();
	failures = timeout_failures(cpu);
	/* Only to empty the list: the flag is off again before timeout(). */
	twheel_timeout_starve(true);
	twheel_timeout_starve(false);
	list = twheel_timeout_free_read(cpu, NULL);
	fail_nth_set(1);
	ret[0] = timeout(count_fn, dup, 0);
	left = fail_nth_left();
	fail_nth_set(0);
	seen = twheel_timeout_lookup(count_fn, dup);
	failures = timeout_failures(cpu) - failures;
	ret[1] = untimeout(count_fn, dup);
	ret[2] = untimeout(count_fn, dup);
	ret[3] = untimeout(count_fn, dup);
	local_bh_enable();

	KUNIT_EXPECT_EQ(test, list, 0);
	KUNIT_EXPECT_EQ_MSG(test, left, 0, "the allocation was not reached");
	KUNIT_EXPECT_EQ(test, ret[0], -ENOMEM);
	KUNIT_EXPECT_EQ(test, failures, 1ULL);
	KUNIT_EXPECT_PTR_EQ_MSG(test, seen, newest, "the failed one is hashed");
	KUNIT_EXPECT_EQ_MSG(test, ret[1], 1, "untimeout() of the 2nd duplicate");
	KUNIT_EXPECT_EQ_MSG(test, ret[2], 1, "untimeout() of the 1st duplicate");
	KUNIT_EXPECT_EQ_MSG(test, ret[3], 0, "untimeout() with none armed");
	/* After the time the failed one asked for (0 ticks), plenty. */
	spin_ns(20 * twheel_tick_ns());
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(dup), 0, "a callout ran");
}

#define FAILSLAB_KNOB	"/sys/kernel/debug/failslab/ignore-gfp-wait"

/*
 * Set failslab's ignore-gfp-wait through its debugfs file, which only a
 * write from user memory reaches: a shell started as a usermode helper.
 * With failslab's probability left at 0, clearing it fails nothing but
 * what fail_nth picks.  Return: 0 if the file now holds @val.
 */
static int failslab_ignore_gfp_wait(bool val)
{
	char *argv[4], *envp[2];

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = val ? "echo Y >" FAILSLAB_KNOB " && grep -qx Y " FAILSLAB_KNOB :
			"echo N >" FAILSLAB_KNOB " && grep -qx N " FAILSLAB_KNOB;
	argv[3] = NULL;
	envp[0] = "PATH=/bin:/sbin";
	envp[1] = NULL;
	return call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

/*
 * A refill of the CPU's free list whose fourth GFP_KERNEL allocation fails
 * stops with three entries; timeout() then takes those, goes on through
 * its GFP_ATOMIC fallback, and, when that fails too, returns -ENOMEM with
 * nothing armed.  Every entry is accounted for: untimeout() finds each
 * armed one exactly once, and unloading twheel destroys its cache with no
 * object left (the slab would print "Objects remaining").
 */
static void timeout_refill_failure_falls_back(struct kunit *test)
{
	atomic_t *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	unsigned int cpu, filled, left[2], list, i, armed = 1, failed = 0;
	int ret;

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "needs CONFIG_FAILSLAB");
	KUNIT_ASSERT_NOT_NULL(test, dup);
	if (failslab_ignore_gfp_wait(false))
		kunit_skip(test, "cannot clear " FAILSLAB_KNOB);
	KUNIT_EXPECT_EQ(test, timeout(count_fn, dup, FAR_TICKS), 0);

	migrate_disable();
	cpu = smp_processor_id();
	fail_nth_set(4);
	filled = twheel_timeout_refill();
	left[0] = fail_nth_left();
	fail_nth_set(0);

	local_bh_disable();
	/* The three on the list, then two from the allocator. */
	for (i = 0; i < filled + 2; i++)
		failed += timeout(count_fn, dup, FAR_TICKS) != 0;
	armed += filled + 2;
	list = twheel_timeout_free_read(cpu, NULL);
	fail_nth_set(1);
	ret = timeout(count_fn, dup, FAR_TICKS);
	left[1] = fail_nth_left();
	fail_nth_set(0);
	local_bh_enable();
	migrate_enable();

	KUNIT_EXPECT_EQ(test, failslab_ignore_gfp_wait(true), 0);
	KUNIT_EXPECT_EQ_MSG(test, filled, 3U, "entries left by the refill");
	KUNIT_EXPECT_EQ(test, left[0], 0U);
	KUNIT_EXPECT_EQ_MSG(test, failed, 0U, "of %u timeout()s", filled + 2);
	KUNIT_EXPECT_EQ(test, list, 0U);
	KUNIT_EXPECT_EQ(test, left[1], 0U);
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

static struct kunit_case twheel_timeout_cases[] = {
	KUNIT_CASE(timeout_duplicates_keep_chains_short),
	KUNIT_CASE_SLOW(timeout_duplicates_do_not_grow_table),
	KUNIT_CASE(untimeout_duplicates_newest_first),
	KUNIT_CASE_PARAM(timeout_duplicates_expire_in_any_order,
			 expiry_gen_params),
	KUNIT_CASE(timeout_alloc_failure_returns_enomem),
	KUNIT_CASE(timeout_refill_failure_falls_back),
	KUNIT_CASE(timeout_cancel_if_matches_func),
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
