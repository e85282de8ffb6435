/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the in-tree suites that arm real callouts share: the waits and the
 * counting callout function of wait.h, which the client suites share too,
 * and what only a suite that sees twheel's internals can ask; the
 * timeout() suites' ways of counting and cancelling a key's entries.
 */
#ifndef _TWHEEL_KUNIT_TEST_UTIL_H
#define _TWHEEL_KUNIT_TEST_UTIL_H

#include <linux/preempt.h>
#include <linux/sched.h>

#include "twheel_internal.h"
#include "wait.h"

/*
 * cpu_hold(), below, for a burst long enough that, with preemption off,
 * RCU would report a stall on a slow emulator (it waits 21 s for a CPU's
 * quiescent state): the task runs as SCHED_FIFO, kept on its CPU, preemptible, on
 * every kernel, as cpu_hold() has it under PREEMPT_RT.  The CPU's
 * kworkers then wait, but for the share of each second that the kernel
 * keeps for SCHED_NORMAL tasks (RT throttling, or the fair server): a
 * burst of more than a second may see the work run within it.
 */
static inline void cpu_hold_long(void)
{
	sched_set_fifo_low(current);
	migrate_disable();
}

static inline void cpu_unhold_long(void)
{
	migrate_enable();
	sched_set_normal(current, 0);
}

/*
 * Keep the calling task on its CPU and ahead of the SCHED_NORMAL kworkers
 * there until cpu_unhold(): twheel's refill and growth work, queued on the
 * CPU that asks for it, then waits.  Preemption off does that, but under
 * PREEMPT_RT timeout() may not allocate with preemption off (nor do
 * bottom halves off hold preemption off there): there the task runs as
 * SCHED_FIFO meanwhile, kept on its CPU.  From process context.
 */
static inline void cpu_hold(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		cpu_hold_long();
	else
		preempt_disable();
}

static inline void cpu_unhold(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		cpu_unhold_long();
	else
		preempt_enable();
}

/* log2 of the timeout() hash table's bucket count. */
static inline unsigned int hash_bits(void)
{
	unsigned long longest;
	unsigned int bits;

	twheel_hash_read(&bits, &longest);
	return bits;
}

/* A key, and how many of its entries twheel_timeout_cancel_if() saw. */
struct key_count {
	callout_func_t func;
	void *arg;
	unsigned long seen;
};

/* Count @c if it has @data's key; cancel nothing. */
static inline bool key_count_match(const struct callout *c, void *data)
{
	struct key_count *k = data;

	if (c->func == k->func && c->arg == k->arg)
		k->seen++;
	return false;
}

/* The entries of (@func, @arg) hashed now, pending or running. */
static inline unsigned long key_entries(callout_func_t func, void *arg)
{
	struct key_count k = { .func = func, .arg = arg };

	twheel_timeout_cancel_if(key_count_match, &k, NULL);
	return k.seen;
}

/* untimeout() until it finds nothing; return how often it found one. */
static inline unsigned int untimeout_all(callout_func_t func, void *arg)
{
	unsigned int n = 0;

	while (untimeout(func, arg) == 1)
		n++;
	return n;
}

#endif /* _TWHEEL_KUNIT_TEST_UTIL_H */
