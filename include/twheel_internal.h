/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module's files share with one another.
 */
#ifndef _TWHEEL_INTERNAL_H
#define _TWHEEL_INTERNAL_H

#include "twheel.h"
#include "twheel_core.h"

/* Histogram buckets: bucket b counts values v with fls64(v) == b. */
#define TWHEEL_HIST_BUCKETS	40

/**
 * struct twheel_cpu_stats - what one CPU's callout engine counts
 * @started: setcallout() and timeout() calls that armed a callout.
 * @rearmed: of those, calls that re-armed a pending callout.
 * @stopped: cancellations of a pending callout.
 * @expired: callout functions run.
 * @interrupts: times the CPU's hrtimer fired.
 * @wheel: the wheel's own counters: ticks processed, empty ticks skipped,
 *	migrations, early visits.
 * @timeout_allocs: timeout() allocations.
 * @timeout_failures: timeout() allocations that failed.
 * @outstanding: callouts pending now.
 * @peak: the most pending at once since load or reset.
 * @late_ticks: histogram of ticks between a callout's due tick and the
 *	tick its processing began in.
 * @late_ns: histogram of ns between a callout's due time and the start of
 *	its tick's processing.
 * @book_ns: histogram of the ns each hrtimer interrupt spent on the
 *	wheel, callout functions excluded.
 * @work_ns: the sum of those ns.
 */
struct twheel_cpu_stats {
	u64 started;
	u64 rearmed;
	u64 stopped;
	u64 expired;
	u64 interrupts;
	struct twheel_stats wheel;
	u64 timeout_allocs;
	u64 timeout_failures;
	unsigned long outstanding;
	unsigned long peak;
	u64 late_ticks[TWHEEL_HIST_BUCKETS];
	u64 late_ns[TWHEEL_HIST_BUCKETS];
	u64 book_ns[TWHEEL_HIST_BUCKETS];
	u64 work_ns;
};

/* One pending callout, as debugfs lists it. */
struct twheel_callout_info {
	callout_func_t func;
	void *arg;
	u64 expires;
};

/* One level of one CPU's wheel, as debugfs summarises it. */
struct twheel_level_info {
	unsigned int busy;
	unsigned long longest;
	unsigned long entries;
};

/* twheel_hw.c */
int twheel_arm_timeout(struct callout *c, callout_func_t func, void *arg,
		       unsigned long ticks);
u64 twheel_interrupts(unsigned int cpu);
const struct twheel_geometry *twheel_geometry(void);
u64 twheel_now(void);
void twheel_stats_read(unsigned int cpu, struct twheel_cpu_stats *st);
void twheel_stats_reset(void);
void twheel_count_timeout(bool failed);
unsigned long twheel_callouts_read(unsigned int cpu,
				   struct twheel_callout_info *info,
				   unsigned long max, unsigned long *copied);
void twheel_level_read(unsigned int cpu, unsigned int level,
		       struct twheel_level_info *li);
void twheel_call(struct callout *c, callout_func_t func, void *arg);

/* twheel_bsd.c */
int twheel_timeout_init(void);
void twheel_timeout_exit(void);
void twheel_timeout_run(struct callout *c);
void twheel_timeout_free(struct callout *c);
void twheel_timeout_quiesce(void);
void twheel_hash_read(unsigned int *bits, unsigned long *longest);
size_t twheel_timeout_entry_size(void);

/* twheel_debugfs.c */
void twheel_debugfs_init(void);
void twheel_debugfs_exit(void);

#endif /* _TWHEEL_INTERNAL_H */
