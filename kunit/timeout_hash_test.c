// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_timeout_hash: how timeout()'s hash table holds
 * duplicates of one (func, arg) and grows, seen through readers exported
 * with EXPORT_SYMBOL_IF_KUNIT() (twheel_hash_read(),
 * twheel_timeout_lookup()): chains stay short under one key's duplicates,
 * which do not grow the table; untimeout() cancels the newest duplicate
 * first, also after the table has grown under them and whatever order the
 * others expire in; every CPU arming, cancelling and expiring the same
 * few keys at once loses and doubles no entry; a burst of distinct keys
 * sizes the table in one step.  The module has no hook for these tests:
 * they drive it through timeout() and untimeout().
 *
 * twheel's table grows and never shrinks: the last case leaves it large,
 * and this module loads after the other timeout() suites' (Kbuild).
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"

static unsigned long longest_chain(void)
{
	unsigned long longest;
	unsigned int bits;

	twheel_hash_read(&bits, &longest);
	return longest;
}

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
 * 4 * 2^b other keys are armed with the CPU held (cpu_hold_long()), so
 * that the growth work, queued on this CPU, runs after the burst, or
 * within it only for its share of the CPU: it sizes the table to at most
 * a bucket per key, 2^(b + 3) for the 4 * 2^b + 1 keys, where counting
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
	cpu_hold_long();
	for (i = 0; i < n; i++)
		failed += timeout(count_fn, dup, FAR_TICKS) != 0;
	for (i = 0; i < k; i++)
		failed += timeout(count_fn, &other[i], FAR_TICKS) != 0;
	cpu_unhold_long();
	grew = poll_until(hash_bits() != bits);
	for (i = 0; i < k; i++)
		left += untimeout(count_fn, &other[i]) != 1;
	vfree(other);

	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, left, 0);
	KUNIT_EXPECT_TRUE_MSG(test, grew, "%u keys did not grow the table", k);
	/*
	 * The growth work gets its share of a CPU that a SCHED_FIFO task
	 * keeps busy for seconds, so it may run mid-burst, before all the
	 * other keys are hashed: then the table may stop short of a bucket
	 * per key, but duplicates counted would still take it past that.
	 */
	KUNIT_EXPECT_LE_MSG(test, hash_bits(), bits + 3,
			    "%u duplicates and %u other keys, from 2^%u buckets",
			    n, k, bits);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, dup), n);
	KUNIT_EXPECT_EQ(test, atomic_read(dup), 0);
}

/*
 * Distinct keys armed in one burst: enough that the table must grow some
 * steps at once, few enough to arm in seconds.
 */
#define NKEYS	BIT(16)

/*
 * 2^16 distinct keys armed from one CPU held (cpu_hold_long()), so that
 * the growth work, queued there, runs within the burst only for its share
 * of the CPU, and most requests for growth are made while it is queued:
 * once it has run after the burst, the table has a bucket for every two
 * keys at least, and no chain is longer than a small constant.  A work that grew the table one
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
	cpu_hold_long();
	for (i = 0; i < NKEYS; i++)
		failed += timeout(count_fn, &a[i], FAR_TICKS) != 0;
	cpu_unhold_long();
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

static struct kunit_case twheel_timeout_hash_cases[] = {
	KUNIT_CASE_SLOW(untimeout_most_recent_after_growth),
	KUNIT_CASE(timeout_duplicates_keep_chains_short),
	KUNIT_CASE_SLOW(timeout_duplicates_do_not_grow_table),
	KUNIT_CASE(untimeout_duplicates_newest_first),
	KUNIT_CASE_PARAM(timeout_duplicates_expire_in_any_order,
			 expiry_gen_params),
	KUNIT_CASE_SLOW(timeout_shared_keys_from_every_cpu),
	/* Last: the table it leaves makes the growth cases above slow. */
	KUNIT_CASE_SLOW(timeout_burst_of_keys_sizes_table),
	{}
};

static struct kunit_suite twheel_timeout_hash_suite = {
	.name = "twheel_timeout_hash",
	.test_cases = twheel_timeout_hash_cases,
};

kunit_test_suite(twheel_timeout_hash_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's timeout() hash table");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
