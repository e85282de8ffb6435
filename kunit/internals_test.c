// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_internals: what twheel's tick does behind its API,
 * seen through readers exported with EXPORT_SYMBOL_IF_KUNIT(): each CPU's
 * counters, twheel's hrtimer interrupts among them (twheel_stats_read(),
 * which debugfs shows), and the division of a time by the tick's length
 * (twheel_div_recip()).  The timeout() hash table and free lists have
 * suites of their own (timeout_*_test.c); the documented contract is
 * checked, as a client sees it, by the client suites (kunit/client/).
 *
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"

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
	KUNIT_CASE(idle_takes_no_interrupts),
	KUNIT_CASE(div_recip_is_exact),
	{}
};

static struct kunit_suite twheel_internals_suite = {
	.name = "twheel_internals",
	.test_cases = twheel_internals_cases,
};

kunit_test_suite(twheel_internals_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's tick through its internals");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
