/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ttimer.h - the timer of the client suites of the timer_list layer that
 * include <twheel_timer.h> alone: twheel_client_timer,
 * twheel_client_timer_timing and twheel_client_timer_misuse
 * (client_timer.c, client_timer_timing.c, client_timer_misuse.c);
 * ttimer.c.
 *
 * A timer in a structure of its own, as a converted module has it, whose
 * function notes each run and, as a case asks, holds its CPU, re-arms or
 * tries every arming call once shut down.  tt_arm() arms it by one of the
 * calls and notes the window its run must begin in; tt_check() waits for
 * the run and holds it to that window.  Lateness is bounded as in
 * tprobe.h: by LOST_NS, and by the order of the run and a control, a soft
 * hrtimer pinned to the CPU of the run, which runs once the window has
 * ended and jiffies has reached ->expires (control_fn() in ttimer.c).
 *
 * Of twheel's headers it includes <twheel_timer.h> alone, as a converted
 * module does (and "../../twheel_compat.h" for the kernels' differences):
 * not client.h, whose <twheel.h> brings in the BSD names.
 */
#ifndef _TWHEEL_KUNIT_CLIENT_TTIMER_H
#define _TWHEEL_KUNIT_CLIENT_TTIMER_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>

#include <twheel_timer.h>
#include "../../twheel_compat.h"	/* kernels' differences only */

#include "../wait.h"		/* test scaffolding, no twheel call */

#define HOLD_NS		(300ULL * NSEC_PER_MSEC) /* a held function's run */
#define FAR_J		(10 * HZ)	/* jiffies: never reached in a case */
#define SHORT_J		5		/* jiffies: the short cases' delay */
#define NTT		4		/* timers a case has at hand */
#define NTRY		5		/* the arming calls, see tt_try_all() */

/* What a timer's function does besides noting its run. */
enum tt_mode {
	TT_RECORD,		/* nothing */
	TT_HOLD,		/* spin until released, or for HOLD_NS */
	TT_REARM_HOLD,		/* re-arm far, then as TT_HOLD */
	TT_SHUT,		/* re-arm, wait for the cancel, try every arming */
};

/* Where a timer's control is: see control_fn() in ttimer.c. */
enum tt_control {
	CONTROL_EARLY,		/* due a tick before the window's end */
	CONTROL_WAIT,		/* waiting for jiffies to reach ->expires */
	CONTROL_LAST,		/* due once twheel has run the timer */
};

/*
 * A timer in a structure of its own, as a converted module has it.  The
 * case writes the fields up to @entered before it arms; the function
 * writes those after, published by the release increment of @runs.
 */
struct ttimer {
	int id;
	enum tt_mode mode;	/* the function's first run; then TT_RECORD */
	struct twheel_timer timer;
	/* The last arming that tt_arm() made, and where its run must begin. */
	ktime_t before;		/* ktime_get() just before the call */
	long ahead;		/* expires - jiffies, jiffies read after it */
	ktime_t dlo;		/* the deadline is not before this ... */
	ktime_t dhi;		/* ... nor after this */
	ktime_t lo;		/* no run may begin before this */
	ktime_t end;		/* the start of the latest tick it may run on */
	bool armed;		/* twheel_timer_pending() right after the call */
	ktime_t when;		/* callout_when() right after the call */
	struct hrtimer control;	/* see control_fn(), on the CPU of the run */
	enum tt_control control_stage;
	ktime_t control_at;	/* when @control ran, last */
	int control_saw;	/* @runs as @control ran */
	atomic_t control_runs;
	atomic_t release;	/* ends a held run */
	atomic_t entered;	/* a held run has begun, and re-armed */

	atomic_t runs;		/* runs that have returned */
	ktime_t at;		/* start of the last run */
	ktime_t left;		/* its end */
	int cpu;		/* smp_processor_id() in the last run */
	bool softirq;		/* it was in softirq context */
	bool irqs_off;		/* with interrupts disabled */
	bool pending;		/* twheel_timer_pending() as it began */
	int rearm;		/* what re-arming in TT_*REARM* returned */
	bool saw_cancel;	/* TT_SHUT: the re-arm was cancelled */
	int ret[NTRY];		/* TT_SHUT: tt_try_all() after that */
};

/* The case's state, test->priv: what tt_init() sets up, tt_exit() ends. */
struct tt_ctx {
	int cpu_a;		/* the CPU the case thread is pinned to */
	int cpu_b;		/* another online CPU, or -1 */
	struct ttimer tt[NTT];
};

/* The ways of arming a timer for a jiffies value. */
enum tt_way {
	BY_MOD, BY_MOD_PENDING, BY_REDUCE, BY_ADD, BY_ADD_ON,
	BY_ADD_LOCAL, BY_ADD_GLOBAL,
};

/* The arming calls of tt_try_all(), in order, for messages. */
extern const char * const tt_try_name[NTRY];

static inline bool wait_runs(atomic_t *v, int n)
{
	return poll_until(atomic_read_acquire(v) >= n);
}

void tt_fn(struct twheel_timer *t);
void tt_try_all(struct ttimer *tt, int *ret);
void tt_control_start(struct ttimer *tt, int cpu);
int tt_arm(struct ttimer *tt, enum tt_way way, unsigned long expires,
	   int cpu);
void tt_check_when(struct kunit *test, struct ttimer *tt, const char *what);
void tt_check(struct kunit *test, struct ttimer *tt, int runs, int cpu,
	      const char *what);
void tt_quiet(struct kunit *test, struct ttimer *tt, int runs,
	      unsigned long n, const char *what);
int tt_init(struct kunit *test);
void tt_exit(struct kunit *test);

#endif /* _TWHEEL_KUNIT_CLIENT_TTIMER_H */
