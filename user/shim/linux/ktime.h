/* SPDX-License-Identifier: GPL-2.0 */
/* linux/ktime.h for twheel's user-space builds: the monotonic clock in ns. */
#ifndef _SHIM_LINUX_KTIME_H
#define _SHIM_LINUX_KTIME_H

#include <time.h>
#include <linux/types.h>

#define NSEC_PER_MSEC		1000000ULL
#define NSEC_PER_SEC		1000000000ULL

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

#endif /* _SHIM_LINUX_KTIME_H */
