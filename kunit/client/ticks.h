/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ticks.h - twheel's tick arithmetic, for the client suites that bound
 * deadlines by it (tprobe.c, ttimer.c and their suites).  Through
 * <twheel_timer.h>, so that a file that leaves the BSD names out can use
 * it too.
 */
#ifndef _TWHEEL_KUNIT_TICKS_H
#define _TWHEEL_KUNIT_TICKS_H

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include <twheel_timer.h>

static inline u64 tick_ns(void)
{
	return twheel_tick_ns();
}

/* The start of the tick @t falls in, and of the first at or after @t. */
static inline ktime_t tick_floor(ktime_t t)
{
	return div64_u64(max_t(ktime_t, t, 0), tick_ns()) * tick_ns();
}

static inline ktime_t tick_ceil(ktime_t t)
{
	return tick_floor(ktime_add_ns(t, tick_ns() - 1));
}

/* The start of the tick after the one @t falls in. */
static inline ktime_t next_tick_start(ktime_t t)
{
	return ktime_add_ns(tick_floor(t), tick_ns());
}

#endif /* _TWHEEL_KUNIT_TICKS_H */
