/* SPDX-License-Identifier: GPL-2.0 */
/* linux/sched.h for twheel's user-space builds: one thread, no preemption. */
#ifndef _SHIM_LINUX_SCHED_H
#define _SHIM_LINUX_SCHED_H

#define cond_resched()		do { } while (0)

#endif /* _SHIM_LINUX_SCHED_H */
