/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watch.h - how long a CPU keeps interrupts off, as the suites measure it.
 *
 * A pinned hard hrtimer that fires every %WATCH_NS and keeps the longest
 * delay between when it should have fired and when it did: the longest
 * stretch its CPU spent with interrupts off (or away from the guest).
 * Test scaffolding only: it uses no twheel call, so the client suites,
 * which build from twheel's public headers, share it with the in-tree
 * suites.
 */
#ifndef _TWHEEL_KUNIT_WATCH_H
#define _TWHEEL_KUNIT_WATCH_H

#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>

#include "../twheel_compat.h"	/* hrtimer_setup() before 6.13 */

/*
 * The period.  Under QEMU TCG with KASAN and lockdep one fire of a hard
 * hrtimer costs some 300 us, so a shorter period would keep the CPU in
 * interrupts and slow all else tenfold; a stretch of interrupts off is
 * still seen to within a period.
 */
#define WATCH_NS	(1ULL * NSEC_PER_MSEC)

/*
 * The most entries twheel moves, expires or looks at with interrupts off
 * before it lets them in again (%TWHEEL_BATCH inside twheel, documented in
 * docs/api.md): the unit of the bounds on interrupts off.
 */
#define WATCH_BATCH	256

struct watch {
	struct hrtimer t;
	s64 worst_ns;
	ktime_t worst_at;	/* when the longest delay ended */
	u64 fires;
	bool stop;
};

static enum hrtimer_restart watch_fn(struct hrtimer *t)
{
	struct watch *wd = container_of(t, struct watch, t);
	ktime_t now = ktime_get();
	s64 late = ktime_to_ns(ktime_sub(now, hrtimer_get_expires(t)));

	if (late > wd->worst_ns) {
		wd->worst_ns = late;
		wd->worst_at = now;
	}
	wd->fires++;
	if (READ_ONCE(wd->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(WATCH_NS));
	return HRTIMER_RESTART;
}

static inline void watch_init(struct watch *wd)
{
	hrtimer_setup(&wd->t, watch_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* Start the watch on this CPU, which the caller keeps to. */
static inline void watch_start(struct watch *wd)
{
	wd->worst_ns = 0;
	wd->fires = 0;
	WRITE_ONCE(wd->stop, false);
	hrtimer_start(&wd->t, ns_to_ktime(WATCH_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* watch_start() on the CPU this IPI runs on. */
static inline void watch_start_here(void *wd)
{
	watch_start(wd);
}

/* Stop the watch: the longest delay it saw, in ns. */
static inline s64 watch_stop(struct watch *wd)
{
	WRITE_ONCE(wd->stop, true);
	hrtimer_cancel(&wd->t);		/* waits for a callback under way */
	return wd->worst_ns;
}

/*
 * The longest stretch of interrupts off to allow for work done
 * %WATCH_BATCH entries at a time, each costing about what arming one
 * callout did on this machine: @batch_ns, the time it took to arm
 * %WATCH_BATCH callouts, measured under the same emulation and debug
 * options.  16 times that allows for the work around a batch (reading the
 * clock, re-arming an hrtimer, counters) and for cold caches.  What has
 * nothing to do with twheel is allowed for by 20 ms and @quiet_ns, the
 * longest delay the same watch saw alone, or at the same time on a CPU
 * where nothing was done: a host that deschedules the guest or stops it
 * to flush emulated code, the emulated console.
 */
static inline u64 watch_bound(u64 batch_ns, s64 quiet_ns)
{
	return 16 * batch_ns + 20 * NSEC_PER_MSEC + max_t(s64, quiet_ns, 0);
}

#endif /* _TWHEEL_KUNIT_WATCH_H */
