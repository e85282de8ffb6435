/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wait.h - how the suites wait for callouts: busy-polling against ktime
 * rather than sleeping, so that a wakeup delayed by softirq work on the
 * other CPU cannot make a test flaky; and a counting callout function.
 * No twheel call and no internal header: the client suites, built from
 * twheel's public headers, share it with the in-tree ones (test_util.h).
 */
#ifndef _TWHEEL_KUNIT_WAIT_H
#define _TWHEEL_KUNIT_WAIT_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/processor.h>
#include <linux/types.h>

/* However slow the guest, a callout this late means it was lost. */
#define LOST_NS		(20ULL * NSEC_PER_SEC)

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

/*
 * A callout function that counts its runs in the atomic_t @arg.  Static:
 * each file that includes this has its own, so a file that arms it must
 * also be the one that cancels it with untimeout().
 */
static inline void count_fn(void *arg)
{
	atomic_inc(arg);
}

#endif /* _TWHEEL_KUNIT_WAIT_H */
