/* SPDX-License-Identifier: GPL-2.0 */
/*
 * client.h - what the twheel_client_* suites share.
 *
 * These suites are twheel's documented contract, checked by a client:
 * written from docs/api.md and include/twheel.h alone, as any module
 * that uses twheel would be, they link against twheel's Module.symvers and
 * call nothing but the exported API.  Of twheel's headers they include
 * <twheel.h>, and "../../twheel_compat.h" for the kernels' differences
 * (KUnit's calls on 6.1, hrtimer_setup() before 6.13): test scaffolding, not
 * twheel API.  The suites of the timer_list layer over ttimer.h
 * (client_timer*.c but _cancel and _arm) include <twheel_timer.h>
 * instead, and not this header, whose <twheel.h> would bring in the BSD
 * names client_timer.c must find free (client_timer_cancel.c and
 * client_timer_arm.c include both).  What needs twheel's internals is in
 * kunit/ (internals_test.c, safety_test.c, ...).
 * One module, twheel_client_test; a suite a topic, a file a suite:
 *
 *   client_args.c      return values; -EINVAL with nothing changed
 *   client_timing.c    never early, on the arming CPU, up to
 *                      CALLOUT_MAX_TICKS; 10,000 random callouts
 *   client_context.c   calls from hardirq, atomic context and the
 *                      callout's own function; periodic re-arming
 *   client_sync.c      a function running on the other CPU:
 *                      unsetcallout() does not wait, unsetcallout_sync() does
 *   client_race.c      both CPUs at once on one handle, thousands of times
 *   client_timeout.c   timeout() and untimeout(): matching, duplicates,
 *                      100,000 pairs, racing expiry
 *   client_hotplug.c   a CPU taken offline, and down and up under load
 *   client_burst.c     400,000 due on one tick, interrupts-off measured
 *   client_lock.c      lock-associated callouts
 *   client_deadline.c  deadlines in ns, ktime and jiffies, never early;
 *                      a precision; callout_when()
 *   client_cpu.c       setcallout_on() on the CPU named; CALLOUT_PINNED
 *   client_forward.c   callout_forward(): exact periods, missed ones
 *   client_shutdown.c  unsetcallout_shutdown() against re-arming
 *   client_timer.c     the timer_list layer, <twheel_timer.h>: return
 *                      values and state, shutdown, DEFINE_TWHEEL_TIMER()
 *   client_timer_timing.c  its timers never early, deferrable ones
 *                      within an eighth of their delay
 *   client_timer_misuse.c  its misuse, reported once a file
 *   client_timer_cancel.c  its sync cancels from every context: cancelled
 *                      and freed at once, waited for where they can be
 *   client_timer_arm.c ->expires under racing armings, add_timer_on()
 *                      from the function, jiffies reached before it runs
 *   client_names.c     TWHEEL_NO_BSD_NAMES: twheel_timeout() in a file
 *                      with a timeout of its own
 *   client_util.c      the probes, waits and checks below; .init, .exit
 *   tprobe.c, tprobe.h the timed probe of the deadline, cpu, forward and
 *                      shutdown suites
 *   ttimer.c, ttimer.h the timer of client_timer.c, client_timer_timing.c
 *                      and client_timer_misuse.c
 *   ticks.h            tick arithmetic of the suites that time runs
 *
 * The guest is a software-emulated QEMU, so lateness is bounded only by
 * LOST_NS; earliness is never allowed.  Waiters busy-poll ktime_get()
 * (../wait.h), since a sleeping waiter can be woken late.  The case thread
 * is pinned to one CPU (.init), so that it knows where it arms; arming on
 * the other CPU goes through smp_call_function_single() or a kthread bound
 * there.  What a case arms it cancels before it ends, and .exit cancels
 * whatever an aborted case left behind, brings back a CPU it took offline,
 * and frees.
 */
#ifndef _TWHEEL_KUNIT_CLIENT_H
#define _TWHEEL_KUNIT_CLIENT_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/types.h>

#include <twheel.h>
#include "../../twheel_compat.h"	/* kernels' differences only */

#include "../wait.h"		/* test scaffolding, no twheel call */

#define HOLD_NS		(300ULL * NSEC_PER_MSEC) /* a held function's run */
#define SAFETY_NS	(5ULL * NSEC_PER_SEC)	/* most a held run waits */
#define FAR_NS		(10ULL * NSEC_PER_SEC)	/* never reached in a case */
#define NPROBES		16
#define NRUNS		6	/* runs a probe keeps the times of */
#define NPERIODIC	20	/* runs of a re-arming callout, checked */

/* Which function ran: probe_fn(), alt_fn() or one of the own functions. */
enum probe_fn_id { RAN_NONE, RAN_PROBE, RAN_ALT, RAN_OWN };

/*
 * A probe: a handle and the record of the runs of a function that was given
 * the probe as its argument.  Fields before @runs are written by the arming
 * side before it arms; the rest by the function, published by the release
 * increment of @runs at its end.
 */
struct probe {
	struct callout c;
	ktime_t armed;		/* just before the last arming call */
	int arm_cpu;		/* the CPU of the last arming call */
	unsigned long ticks;	/* of the last arming call */
	int rearm;		/* re-arms left, for chain_fn() */
	struct probe *peer;	/* another probe, for own_cancel_fn() */

	atomic_t runs;		/* runs that have returned */
	ktime_t at;		/* start of the last run */
	ktime_t ats[NRUNS];	/* start of the first NRUNS runs */
	int cpu;		/* CPU of the last run */
	int seq;		/* place of the last run in run_order */
	bool softirq;		/* the last run was in softirq context */
	bool pending;		/* callout_pending(&c) as the last run began */
	enum probe_fn_id fn;	/* the function of the last run */
	int res[8];		/* what own functions saw */
};

/*
 * A callout whose first run holds its CPU until released, or for @hold_ns,
 * so that the case can act on it while it runs on the other CPU.
 */
struct hold {
	struct callout c;
	u64 hold_ns;		/* the first run spins this long at most */
	unsigned long rearm_ticks; /* the first run re-arms for these, if set */
	atomic_t release;	/* ends the first run's spin */
	atomic_t entered;	/* the first run has re-armed and spins */
	atomic_t active;	/* runs under way */
	atomic_t runs;		/* runs that have returned */
	bool overlapped;	/* two runs were under way at once */
	int rearm_ret;		/* setcallout() re-arming in the first run */
	int cpu[2];
	ktime_t start[2];
	ktime_t end[2];
};

/* A callout that re-arms itself from its own function. */
struct periodic {
	struct callout c;
	unsigned long period;	/* ticks */
	int limit;		/* runs in all, or 0: until @stop */
	bool stop;
	u64 busy_ns;		/* each run spins this long after re-arming */
	ktime_t armed;
	atomic_t in_fn;
	atomic_t runs;
	ktime_t at[NPERIODIC];
	int cpu[NPERIODIC];
	bool pending[NPERIODIC]; /* callout_pending() as the run began */
	int ret[NPERIODIC];	/* setcallout() re-arming */
	bool rearmed[NPERIODIC]; /* callout_pending() after it */
};

/* Arming on a given CPU, from its IPI (hardirq) context. */
struct remote_arm {
	struct callout *c;	/* NULL: timeout() */
	callout_func_t fn;
	void *arg;
	struct probe *p;	/* if set, noted as arm() notes it */
	unsigned long ticks;
	ktime_t armed;
	int cpu;
	int ret;
};

/* Running a function in hardirq context: a pinned hard hrtimer. */
struct hardirq_call {
	struct hrtimer t;
	void (*fn)(void *data);
	void *data;
	atomic_t done;
	bool hardirq;
	int cpu;
};

/* The atomic contexts in which no call may wait for a callout's function. */
enum atomic_where {
	AT_PREEMPT_OFF,
	AT_IRQS_OFF,
	AT_SPINLOCK,
	AT_BH_OFF,
	AT_HARDIRQ,
};

#define NR_ATOMIC_WHERE	(AT_HARDIRQ + 1)

/* One of them, named for the case's parameter row: atomic_cases[]. */
struct atomic_case {
	enum atomic_where where;
	const char *desc;
};

extern const struct atomic_case atomic_cases[NR_ATOMIC_WHERE];

/* Delays in ticks, named for the case's parameter row. */
struct ticks_case {
	unsigned long ticks;
	const char *desc;
};

/*
 * A case's state, test->priv: what client_init() sets up and client_exit()
 * cancels.  A suite that keeps more hangs it on @own, and its own .exit
 * ends that before it calls client_exit().
 */
struct client {
	int cpu_a;		/* the CPU the case thread is pinned to */
	int cpu_b;		/* another online CPU, or -1 */
	struct probe probe[NPROBES];
	struct probe *many;	/* kvcalloc()ed, see alloc_many() */
	int nmany;
	struct hold hold;
	struct periodic per;
	struct hardirq_call hc;
	void *own;		/* the suite's own state, if it keeps any */
};

static inline u64 ticks_ns(unsigned long ticks)
{
	return (u64)ticks * twheel_tick_ns();
}

static inline unsigned long far_ticks(void)
{
	return twheel_ns_to_ticks(FAR_NS);
}

/*
 * How long to watch a cancelled callout armed for @ticks, to see that it
 * does not run: its ticks, the tick it may be late by, and a margin.
 */
static inline u64 quiet_ns(unsigned long ticks)
{
	return ticks_ns(ticks + 3) + 100 * NSEC_PER_MSEC;
}

static inline int pin(int cpu)
{
	return set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

/* client_util.c */
void record(struct probe *p, enum probe_fn_id fn);
void done(struct probe *p);
void probe_fn(void *arg);
void alt_fn(void *arg);
int arm(struct callout *c, callout_func_t fn, struct probe *p,
	unsigned long ticks);
int arm_timeout(callout_func_t fn, struct probe *p, unsigned long ticks);
bool wait_count(atomic_t *v, int n, u64 ns);
void check_record(struct kunit *test, struct probe *p, const char *what);
void check_ran(struct kunit *test, struct probe *p, int runs,
	       const char *what);
void check_quiet(struct kunit *test, struct probe *p, int runs,
		 unsigned long ticks, const char *what);
void hold_fn(void *arg);
void hold_reset(struct hold *h, u64 hold_ns, unsigned long rearm_ticks);
void periodic_fn(void *arg);
int arm_on(int cpu, struct remote_arm *r);
int call_on(int cpu, int (*fn)(void *data), void *data);
struct probe *alloc_many(struct kunit *test, int n);
void run_hardirq(struct kunit *test, void (*fn)(void *), void *data);
void run_in(struct kunit *test, enum atomic_where where,
	    void (*fn)(void *), void *data);
void need_two_cpus(struct kunit *test);
int client_init(struct kunit *test);
int client_init_own(struct kunit *test, size_t size, void (*setup)(void *own));
void client_exit(struct kunit *test);

/*
 * Suite twheel_client_<topic> of @cases, with .init @init_fn and .exit
 * @exit_fn: client_init() and client_exit(), or a suite's own that call
 * them.
 */
#define CLIENT_SUITE(topic, cases, init_fn, exit_fn)			\
	static struct kunit_suite topic##_suite = {			\
		.name = "twheel_client_" #topic,			\
		.init = init_fn,					\
		.exit = exit_fn,					\
		.test_cases = cases,					\
	};								\
	kunit_test_suite(topic##_suite)

#endif /* _TWHEEL_KUNIT_CLIENT_H */
