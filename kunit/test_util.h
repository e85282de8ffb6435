/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the in-tree suites that arm real callouts share: waits that
 * busy-poll against ktime rather than sleep, so that a wakeup delayed by
 * softirq work on the other CPU cannot make a test flaky, and a counting
 * callout function.
 */
#ifndef _TWHEEL_KUNIT_TEST_UTIL_H
#define _TWHEEL_KUNIT_TEST_UTIL_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/processor.h>

#include "twheel_internal.h"

/* However slow the guest, a callout this late means it was lost. */
#define LOST_NS		(20 * NSEC_PER_SEC)

/* Far enough that nothing a test arms runs while it looks. */
#define FAR_TICKS	1000000

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
static inline void spin_ns(u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (ktime_before(ktime_get(), end))
		cpu_relax();
}

/* A callout function that counts its runs in the atomic_t @arg. */
static inline void count_fn(void *arg)
{
	atomic_inc(arg);
}

/* log2 of the timeout() hash table's bucket count. */
static inline unsigned int hash_bits(void)
{
	unsigned long longest;
	unsigned int bits;

	twheel_hash_read(&bits, &longest);
	return bits;
}

#endif /* _TWHEEL_KUNIT_TEST_UTIL_H */
