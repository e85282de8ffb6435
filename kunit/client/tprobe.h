/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tprobe.h - the timed probe of the client suites that arm callouts for a
 * time rather than in ticks: twheel_client_deadline, twheel_client_cpu,
 * twheel_client_forward and twheel_client_shutdown (client_deadline.c,
 * client_cpu.c, client_forward.c, client_shutdown.c); tprobe.c.
 *
 * A probe armed through tp_arm() knows where the deadline of its arming
 * lies and the window its run must begin in; tp_check() waits for the run
 * and holds it to that window.  How late a run may be: no later than
 * LOST_NS, as in every suite; and, to check the window a contract
 * promises without timing anything, no later than a control, a soft
 * hrtimer pinned to the CPU of the run and due a nanosecond after the
 * start of the window's last tick.  The kernel runs expired soft hrtimers
 * of a CPU one at a time, in order of expiry: twheel's tick timer, due by
 * that start, comes first, however late both are.  So the run must have
 * returned when the control runs; that is an order, not a time, and a
 * slow machine cannot change it.
 */
#ifndef _TWHEEL_KUNIT_CLIENT_TPROBE_H
#define _TWHEEL_KUNIT_CLIENT_TPROBE_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/types.h>

#include "client.h"

#define NTP		8	/* timed probes a case has at hand */

/* The calls that arm a callout for a deadline, and setcallout() for ticks. */
enum arm_way {
	BY_NS,			/* setcallout_ns(), a delay */
	BY_AT,			/* setcallout_at(), a time */
	BY_JIFFIES,		/* setcallout_jiffies(), a jiffies value */
	BY_ON,			/* setcallout_on(), a delay */
	BY_ON_ABS,		/* setcallout_on(CALLOUT_ABSOLUTE), a time */
	BY_TICKS,		/* setcallout(), ticks */
};

#define NWAYS		(BY_ON_ABS + 1)	/* the ways with a deadline */

/* What each way is called, for messages. */
extern const char * const tp_way_name[];

/*
 * A timed probe: a handle, where the deadline of its last arming lies and
 * the window its run must begin in, a control hrtimer due at the end of
 * that window, and what the run saw.  The arming side writes @dlo to
 * @control before the run can be checked; the function writes the fields
 * after @runs and publishes them with the release increment of @runs.
 */
struct tprobe {
	struct callout c;
	ktime_t dlo;		/* the deadline is not before this ... */
	ktime_t dhi;		/* ... nor after this */
	ktime_t lo;		/* no run may begin before this */
	ktime_t end;		/* the start of the latest tick the window allows */
	int arm_cpu;		/* the CPU of the arming call */
	struct hrtimer control;	/* due just after @end, on the CPU of the run */
	ktime_t control_at;	/* when @control ran */
	int control_saw;	/* @runs as @control ran */
	atomic_t control_runs;

	atomic_t runs;		/* runs that have returned */
	ktime_t at;		/* start of the last run */
	int cpu;		/* CPU of the last run */
	bool softirq;		/* the last run was in softirq context */
	bool pending;		/* callout_pending() in the last run */
	ktime_t when;		/* callout_when() in the last run */
};

void tprobe_fn(void *arg);
void tprobes_init(struct tprobe *t, int n);
void tprobes_end(struct tprobe *t, int n);
void tp_window(struct tprobe *t, ktime_t before, ktime_t after,
	       ktime_t dlo, ktime_t dhi, u64 precision);
int tp_arm(struct tprobe *t, enum arm_way way, s64 v, u64 precision,
	   int cpu);
void tp_control_start(struct tprobe *t, int cpu);
void tp_check(struct kunit *test, struct tprobe *t, int runs, int cpu,
	      const char *what);

#endif /* _TWHEEL_KUNIT_CLIENT_TPROBE_H */
