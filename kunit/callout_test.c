// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what the callout facility does behind its API, seen through
 * internals exported with EXPORT_SYMBOL_IF_KUNIT(): the growth of the
 * timeout() hash table (twheel_hash_read()) and the count of twheel's
 * hrtimer interrupts (twheel_interrupts()).  The documented contract is
 * checked, as a client sees it, by suite twheel_client (kunit/client/).
 *
 * Waiters busy-poll against ktime rather than sleep, so that a wakeup
 * delayed by softirq work on the other CPU cannot make a test flaky.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"

/* However slow the guest, a callout this late means it was lost. */
#define LOST_NS		(20 * NSEC_PER_SEC)

/* Busy-poll until @cond holds or LOST_NS passes; true if it held. */
#define poll_until(cond)						\
({									\
	ktime_t __end = ktime_add_ns(ktime_get(), LOST_NS);		\
	bool __ok;							\
									\
	while (!(__ok = (cond)) && ktime_before(ktime_get(), __end))	\
		cpu_relax();						\
	__ok;								\
})

/* Wait @ns of wall time without sleeping. */
static void spin_ns(u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (ktime_before(ktime_get(), end))
		cpu_relax();
}

static void count_fn(void *arg)
{
	atomic_inc(arg);
}

static unsigned int hash_bits(void)
{
	unsigned long longest;
	unsigned int bits;

	twheel_hash_read(&bits, &longest);
	return bits;
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

static u64 all_interrupts(void)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		sum += twheel_interrupts(cpu);
	return sum;
}

/* With nothing pending, no twheel hrtimer fires; with work, it does. */
static void idle_takes_no_interrupts(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	/* Arm and cancel one, to leave a programmed hrtimer if any. */
	callout_init(c);
	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, 20), 0);
	KUNIT_ASSERT_EQ(test, unsetcallout(c), 1);

	before = all_interrupts();
	spin_ns(500 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, all_interrupts(), before);

	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, 5), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(fired)));
	KUNIT_EXPECT_GT(test, all_interrupts(), before);
	unsetcallout_sync(c);
}

static struct kunit_case twheel_internals_cases[] = {
	KUNIT_CASE_SLOW(untimeout_most_recent_after_growth),
	KUNIT_CASE(idle_takes_no_interrupts),
	{}
};

static struct kunit_suite twheel_internals_suite = {
	.name = "twheel_internals",
	.test_cases = twheel_internals_cases,
};

kunit_test_suite(twheel_internals_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's callouts through its internals");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
