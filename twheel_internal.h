/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module's files offer one another.
 *
 * The layers, each calling only those listed after it:
 *
 *   twheel_main.c     parameters, load and unload: calls every init/exit
 *   twheel_debugfs.c  reads the engine and the BSD interface
 *   twheel_bsd.c      timeout()/untimeout(): arms callouts on the bases
 *   twheel_callout.c  the handle API: arms and cancels on the bases
 *   twheel_hw.c       the bases: per-CPU wheels, each on its tick timer
 *                     (an hrtimer); expiry, hotplug, statistics
 *   twheel_core.c     the wheels, without a clock
 *
 * twheel_bsd.c and twheel_callout.c arm and cancel with the inline pieces
 * of twheel_hw.h, which twheel_hw.c defines the data of.
 */
#ifndef _TWHEEL_INTERNAL_H
#define _TWHEEL_INTERNAL_H

#include <linux/math64.h>

#include "twheel.h"
#include "twheel_core.h"

/*
 * The tick lengths twheel takes.  Any of them keeps the tick clock, ns since
 * boot divided by the tick length, below the wheels' TWHEEL_CLOCK_LIMIT.
 */
#define TWHEEL_MIN_TICK_NS	10000		/* 10 us */
#define TWHEEL_MAX_TICK_NS	1000000000	/* 1 s */
#define TWHEEL_DEFAULT_TICK_NS	1000000		/* 1 ms */

/**
 * twheel_recip() - what twheel_div_recip() multiplies by to divide by @d
 * @d: the divisor, not 0.
 *
 * Context: any; one division, for a divisor fixed at load.
 * Return: floor((2^64 - 1) / @d).
 */
static inline u64 twheel_recip(u64 d)
{
	return div64_u64(U64_MAX, d);
}

/**
 * twheel_div_recip() - @n / @d, rounded down, exactly, without dividing
 * @n: the dividend.
 * @d: the divisor.
 * @recip: twheel_recip(@d).
 *
 * With m = @recip >= (2^64 - @d) / @d, the product @n * m / 2^64 lies
 * above @n / @d - 1 and not above @n / @d: its integer part is the
 * quotient or one less, which the remainder tells apart.  A multiply for
 * the 64-bit division the clock would otherwise take on every arming.
 *
 * Return: floor(@n / @d) for every u64 @n.
 */
static inline u64 twheel_div_recip(u64 n, u64 d, u64 recip)
{
	u64 q;

#ifdef CONFIG_X86_64
	/*
	 * The high half of the product, from one mulq.  The generic form
	 * multiplies in an unsigned __int128, whose 16-byte alignment makes
	 * GCC realign the stack of every function it is inlined into (the
	 * kernel's stack boundary is 8 bytes).
	 */
	u64 lo;

	asm("mulq %3" : "=a" (lo), "=d" (q) : "%0" (n), "rm" (recip));
#else
	q = mul_u64_u64_shr(n, recip, 64);
#endif

	if (n - q * d >= d)
		q++;
	return q;
}

/*
 * The most entries the tick timer handles (runs, moves or looks at) with the
 * base lock held and interrupts off; other bounded walks use it too.
 */
#define TWHEEL_BATCH		256

/*
 * Each CPU's list of free timeout() entries: the most it keeps, what a
 * refill brings it up to, and the length below which timeout() asks for
 * one.
 */
#define TWHEEL_FREE_MAX		128
#define TWHEEL_FREE_FILL	64
#define TWHEEL_FREE_LOW		16

/* Histogram buckets: bucket b counts values v with fls64(v) == b. */
#define TWHEEL_HIST_BUCKETS	40

/**
 * struct twheel_cpu_stats - what one CPU's callout engine counts
 * @started: setcallout() and timeout() calls that armed a callout.
 * @rearmed: of those, calls that re-armed a pending callout.
 * @stopped: cancellations of a pending callout.
 * @expired: callout functions run.
 * @interrupts: times the CPU's hrtimer fired.
 * @work_ns: ns the hrtimer interrupts spent on the wheel, callout
 *	functions excluded.
 * @wheel: the wheel's own counters: ticks processed, empty ticks skipped,
 *	migrations, early visits.
 * @timeout_allocs: entries timeout() took, from its CPU's free list or
 *	the allocator.
 * @timeout_failures: timeout() calls that found the free list and the
 *	allocator both out.
 * @outstanding: callouts pending now.
 * @peak: the most pending at once since load or reset.
 * @late_ticks: histogram of ticks between a callout's due tick and the
 *	tick its processing began in.
 * @late_ns: histogram of ns between a callout's due time and the start of
 *	its tick's processing.
 * @book_ns: histogram of the ns each hrtimer interrupt spent on the
 *	wheel, callout functions excluded.
 * @work_entries: histogram of the entries each hrtimer interrupt handled:
 *	run, moved down a level, or looked at and left.
 * @work_max: the most entries one hrtimer interrupt handled.
 * @walk_max: the most entries and lists the debugfs listing of the
 *	pending callouts (twheel_callouts_read()) looked at in one hold of
 *	the lock.  For KUnit, which reads it with twheel_stats_read(); not a
 *	column of "stats".
 *
 * The counters debugfs shows, and sums over the CPUs, are the u64 fields
 * that twheel_debugfs.c's column table names: a new one needs its field
 * here and its row there, nothing else.
 */
struct twheel_cpu_stats {
	u64 started;
	u64 rearmed;
	u64 stopped;
	u64 expired;
	u64 interrupts;
	u64 work_ns;
	struct twheel_stats wheel;
	u64 timeout_allocs;
	u64 timeout_failures;
	u64 outstanding;
	u64 peak;
	u64 late_ticks[TWHEEL_HIST_BUCKETS];
	u64 late_ns[TWHEEL_HIST_BUCKETS];
	u64 book_ns[TWHEEL_HIST_BUCKETS];
	u64 work_entries[TWHEEL_HIST_BUCKETS];
	u64 work_max;
	u64 walk_max;
};

/* One pending callout, as debugfs lists it. */
struct twheel_callout_info {
	callout_func_t func;
	void *arg;
	u64 expires;
};

/* One level of one CPU's wheel, as debugfs summarises it. */
struct twheel_level_info {
	unsigned int slots;
	unsigned int busy;
	unsigned long longest;
	unsigned long entries;
};

/*
 * What the engine does with a callout armed by timeout() once its function
 * has returned, or twheel_engine_cancel_if() has cancelled it: hand it
 * back to the BSD interface, which frees it.
 */
typedef void (*twheel_release_fn)(struct callout *c);

/*
 * Which callouts twheel_engine_cancel_if() and twheel_timeout_cancel_if()
 * cancel: called under a lock with interrupts off, it only compares.
 */
typedef bool (*twheel_match_fn)(const struct callout *c, void *data);

/* twheel_hw.c: the bases and their tick timers */
int twheel_engine_init(const struct twheel_geometry *geo, u64 tick,
		       twheel_release_fn release);
int twheel_engine_start(void);
void twheel_engine_stop(void);
void twheel_engine_exit(void);
void twheel_engine_freeze(void);
void twheel_engine_thaw(void);
unsigned long twheel_engine_cancel_if(twheel_match_fn match, void *data,
				      callout_func_t *first);
void twheel_count_timeout_failed(void);
const struct twheel_geometry *twheel_geometry(void);
u64 twheel_now(void);
void twheel_stats_read(unsigned int cpu, struct twheel_cpu_stats *st);
void twheel_stats_reset(void);
unsigned long twheel_callouts_read(unsigned int cpu,
				   struct twheel_callout_info *info,
				   unsigned long max, unsigned long *copied);
void twheel_level_read(unsigned int cpu, unsigned int level,
		       struct twheel_level_info *li);

/* twheel_callout.c: the handle API, beside what twheel.h declares */
void twheel_init_timeout(struct callout *c, const char *name,
			 struct lock_class_key *key);

/* twheel_bsd.c: timeout() and untimeout() */
int twheel_timeout_init(u64 precision);
void twheel_timeout_exit(void);
void twheel_timeout_release(struct callout *c);
void twheel_hash_read(unsigned int *bits, unsigned long *longest);
size_t twheel_timeout_entry_size(void);
const struct callout *twheel_timeout_lookup(callout_func_t func, void *arg);
unsigned int twheel_timeout_free_read(unsigned int cpu,
				      const struct callout **first);
unsigned long twheel_timeout_cancel_if(twheel_match_fn match, void *data,
				       callout_func_t *first);

/* twheel_main.c */
unsigned long twheel_forget_module(struct module *mod);

/* twheel_debugfs.c */

/* Room for twheel_span_format()'s text: two u64s and their words. */
#define TWHEEL_SPAN_TEXT	64

void twheel_debugfs_init(void);
void twheel_debugfs_exit(void);
int twheel_span_format(char *buf, size_t size, u64 span, u64 tick);

#endif /* _TWHEEL_INTERNAL_H */
