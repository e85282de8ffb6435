/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel's trace events: the twheel:* system.
 *
 * A callout's life as the kernel's timer:* events tell a timer's, with the
 * same field names and print format where the meaning is the same, so that
 * a script written for timer:timer_start reads twheel:callout_start with
 * only the event's name changed: "timer" is the handle, "expires" and "now"
 * are twheel ticks (twheel_tick_ns() long), not jiffies.  twheel_hw.c
 * defines the events (CREATE_TRACE_POINTS) and exports them, so that a
 * module may attach probes (register_trace_callout_start() and the like).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM twheel

#if !defined(_TWHEEL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TWHEEL_TRACE_H

#include <linux/tracepoint.h>

#include "twheel.h"

DECLARE_EVENT_CLASS(twheel_callout,
		    TP_PROTO(struct callout *c),
		    TP_ARGS(c),
		    TP_STRUCT__entry(__field(void *, timer)),
		    TP_fast_assign(__entry->timer = c;),
		    TP_printk("timer=%p", __entry->timer)
);

/**
 * callout_init - a handle was initialised
 * @c: the handle.
 */
DEFINE_EVENT(twheel_callout, callout_init,
	     TP_PROTO(struct callout *c),
	     TP_ARGS(c)
);

/**
 * callout_start - a callout was armed, by any setcallout call or timeout()
 * @c: the handle, its function and deadline already set.
 * @expires: the tick it is due on.
 * @last: the last tick its precision allows; @expires when exact.
 * @cpu: the CPU whose wheel holds it.
 * @rearmed: it was pending, and this arming replaced that one.
 *
 * The deadline, in ns of CLOCK_MONOTONIC, is read from @c.  Five
 * arguments, so that the probe call (with its data pointer, six) passes
 * them all in registers on x86_64.
 */
TRACE_EVENT(callout_start,
	    TP_PROTO(struct callout *c, u64 expires, u64 last, unsigned int cpu,
		     bool rearmed),
	    TP_ARGS(c, expires, last, cpu, rearmed),
	    TP_STRUCT__entry(__field(void *, timer)
			     __field(void *, function)
			     __field(u64, deadline)
			     __field(u64, expires)
			     __field(u64, last)
			     __field(unsigned int, cpu)
			     __field(bool, rearmed)),
	    TP_fast_assign(__entry->timer = c;
			   __entry->function = c->func;
			   __entry->deadline = callout_deadline(c);
			   __entry->expires = expires;
			   __entry->last = last;
			   __entry->cpu = cpu;
			   __entry->rearmed = rearmed;),
	    TP_printk("timer=%p function=%ps deadline=%llu expires=%llu last=%llu cpu=%u rearmed=%d",
		      __entry->timer, __entry->function, __entry->deadline,
		      __entry->expires, __entry->last, __entry->cpu,
		      __entry->rearmed)
);

/**
 * callout_cancel - a pending callout was cancelled
 * @c: the handle.
 *
 * By unsetcallout(), untimeout(), a re-arming setcallout() (which then
 * reports callout_start with rearmed=1), or twheel itself when the module
 * that armed it goes.
 */
DEFINE_EVENT(twheel_callout, callout_cancel,
	     TP_PROTO(struct callout *c),
	     TP_ARGS(c)
);

/**
 * callout_expire_entry - a callout's function is about to run
 * @c: the handle.
 * @func: the function.
 * @now: the tick now running.
 * @late_ns: ns since the callout's deadline (callout_when()).
 */
TRACE_EVENT(callout_expire_entry,
	    TP_PROTO(struct callout *c, callout_func_t func, u64 now, u64 late_ns),
	    TP_ARGS(c, func, now, late_ns),
	    TP_STRUCT__entry(__field(void *, timer)
			     __field(u64, now)
			     __field(void *, function)
			     __field(u64, late_ns)),
	    TP_fast_assign(__entry->timer = c;
			   __entry->now = now;
			   __entry->function = func;
			   __entry->late_ns = late_ns;),
	    TP_printk("timer=%p function=%ps now=%llu late_ns=%llu",
		      __entry->timer, __entry->function, __entry->now,
		      __entry->late_ns)
);

/**
 * callout_expire_exit - a callout's function has returned
 * @c: the handle; the function may have freed it.
 */
DEFINE_EVENT(twheel_callout, callout_expire_exit,
	     TP_PROTO(struct callout *c),
	     TP_ARGS(c)
);

/**
 * wheel_tick - a CPU's tick has advanced its wheel
 * @now: the tick the wheel reached.
 * @ticks: the ticks it advanced by.
 * @moved: entries moved down a level (Scheme 7) or looked at and left
 *	for a later revolution (Scheme 6).
 * @ran: callout functions run.
 * @work_ns: ns spent on the wheel, the functions' time excluded.
 *
 * One event per run of the tick's hrtimer callback, which handles at most
 * %TWHEEL_BATCH entries: a tick with more work reports several.
 */
TRACE_EVENT(wheel_tick,
	    TP_PROTO(u64 now, u64 ticks, unsigned int moved, unsigned int ran,
		     u64 work_ns),
	    TP_ARGS(now, ticks, moved, ran, work_ns),
	    TP_STRUCT__entry(__field(u64, now)
			     __field(u64, ticks)
			     __field(unsigned int, moved)
			     __field(unsigned int, ran)
			     __field(u64, work_ns)),
	    TP_fast_assign(__entry->now = now;
			   __entry->ticks = ticks;
			   __entry->moved = moved;
			   __entry->ran = ran;
			   __entry->work_ns = work_ns;),
	    TP_printk("now=%llu ticks=%llu moved=%u ran=%u work_ns=%llu",
		      __entry->now, __entry->ticks, __entry->moved, __entry->ran,
		      __entry->work_ns)
);

#endif /* _TWHEEL_TRACE_H */

/* Outside the guard: define_trace.h reads this file again. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE twheel_trace
#include <trace/define_trace.h>
