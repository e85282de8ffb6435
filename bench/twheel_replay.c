// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own timer traffic, replayed on each facility.  A twheel
 * client: it uses <twheel.h> and reads twheel's debugfs "stats" and
 * "config", nothing else of twheel's.  Loaded by scripts/bench.sh after
 * twheel.ko; runs in its init and prints its figures to the kernel log, in
 * the format of bench_line.h:
 *
 *   replay-trace trace=NAME origin=O function=F | timers=N starts=N
 *       cancels=N expiries=N seconds=X
 *   replay trace=NAME facility=F scheme=S | seconds=X starts=N cancels=N
 *       expired=N early=N p50_us=X p99_us=X max_us=X beyond_prec_p99_us=X
 *       irq_per_s=X cpuC_irq_per_s=X ... twheel_irq_per_s=X start_ns=N
 *       start_p50_ns=N cancel_ns=N cancel_p50_ns=N lag_p99_us=X
 *       jiffies_lag_max_us=X
 *   replay-cpu trace=NAME facility=F scheme=S cpu=C | expired=N
 *       expiry_irqs=N twheel_irqs=N twheel_moved=N all_irqs=N irq_per_s=X
 *       twheel_irq_per_s=X all_irq_per_s=X
 *   replay-lateness trace=NAME facility=F scheme=S p=P | late_us=X share=X
 *
 * The trace (@trace, recorded by scripts/record-timers.sh; its format is
 * in scripts/timer-trace.py) holds every start and cancel of the kernel's
 * timer_list timers and hrtimers, but its tick, over some seconds of a
 * guest's life: for each, its time and CPU, and for a start the delay to
 * the timer's deadline, its jiffies as mod_timer() takes them, and
 * PREC_NS, what timer_list allows it: the granularity of the wheel level
 * timer_list puts it in.  replay-trace says what it holds, per origin
 * (the facility that recorded it) and function; function=all sums them.
 *
 * Each facility of @facilities, in turn, gets every timer of the trace,
 * whatever its origin.  A thread bound to each CPU makes that CPU's calls
 * at their recorded times from a common start, asleep in between (or
 * polling the clock for the last @spin_us).  A start is timed around the
 * one call, and its deadline D is the time read just before it plus the
 * recorded delay:
 *
 *   timer_list        mod_timer(t, jiffies + JIFFIES); timer_delete()
 *   hrtimer           hrtimer_start(h, D, HRTIMER_MODE_ABS_SOFT);
 *                     hrtimer_try_to_cancel()
 *   hrtimer_range     hrtimer_start_range_ns(h, D, PREC_NS, ABS_SOFT)
 *   twheel            setcallout_on(c, f, a, D, 0, CALLOUT_CPU_ANY,
 *                     CALLOUT_ABSOLUTE); unsetcallout()
 *   twheel_precision  the same with precision PREC_NS
 *
 * so that hrtimer_range and twheel_precision may be as late as timer_list
 * may.  Every function runs in softirq context and reads ktime_get()
 * first: its lateness is that minus D (early: below 0), and
 * beyond_prec_p99_us is the 99th percentile of lateness - PREC_NS.  The
 * window is the trace's length (or @seconds); what is pending at its end
 * is cancelled and not counted.  A timer re-armed before its function
 * ran (the trace's next start came first) does not run for that arming:
 * the facilities that run timers later run fewer of them.
 *
 * Interrupts, over the window, per CPU:
 *
 *   expiry_irqs  the distinct hrtimer interrupts after which replayed
 *                functions ran on the CPU: each function reads the count
 *                of the CPU's hrtimer interrupts (nr_events of its struct
 *                hrtimer_cpu_base, which hrtimer_interrupt() increments),
 *                and one that finds it changed since the last counts one
 *                more.  The same rule for every facility: for timer_list,
 *                the ticks that expired a replayed timer.
 *   twheel_irqs  twheel's own count ("interrupts" of "stats"), which
 *                also counts those that ran nothing; twheel_moved, the
 *                entries its ticks moved without running them
 *                ("migrated" + "early")
 *   all_irqs     every hrtimer interrupt of the CPU: ticks, the threads'
 *                wake-ups, the facility's
 *
 * irq_per_s is expiry_irqs per second, in replay summed and per CPU, and
 * twheel_irq_per_s twheel_irqs per second, summed.
 * start_ns and cancel_ns are the mean time of one call (_p50_ns, the
 * median), the cost of the two clock reads around it taken off.
 * lag_p99_us says how late the threads made their calls; and
 * jiffies_lag_max_us how far jiffies fell behind the clock at a start,
 * beyond its own jiffy, at most (under emulation a late tick lets a
 * timer_list timer run before its deadline on the clock).
 */

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel_read_file.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "bench_line.h"
#include "twheel_dfs.h"
#include "../twheel_compat.h"	/* hrtimer_setup() before 6.13 */

/* The lines this module prints, as bench_line.h says. */
#define TRACE_LINE \
	"replay-trace trace=%s origin=%s function=%s | timers=%u starts=%u cancels=%u " \
	"expiries=%u seconds=%s"
#define REPLAY_LINE \
	"replay trace=%s facility=%s scheme=%s | seconds=%s starts=%lu cancels=%lu " \
	"expired=%lu early=%lu p50_us=%s p99_us=%s max_us=%s beyond_prec_p99_us=%s " \
	"irq_per_s=%s%s twheel_irq_per_s=%s start_ns=%llu start_p50_ns=%llu " \
	"cancel_ns=%llu cancel_p50_ns=%llu lag_p99_us=%s jiffies_lag_max_us=%s"
#define CPU_LINE \
	"replay-cpu trace=%s facility=%s scheme=%s cpu=%u | expired=%lu expiry_irqs=%lu " \
	"twheel_irqs=%s twheel_moved=%s all_irqs=%s irq_per_s=%s twheel_irq_per_s=%s " \
	"all_irq_per_s=%s"
#define LATENESS_LINE \
	"replay-lateness trace=%s facility=%s scheme=%s p=%s | late_us=%s share=%s"

static char *trace = "/lib/twheel/replay.trace";
module_param(trace, charp, 0444);
MODULE_PARM_DESC(trace, "the trace to replay, a file of scripts/timer-trace.py's format");

static char *name = "trace";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the trace's name, for the lines");

static char *facilities = "timer_list,hrtimer,hrtimer_range,twheel,twheel_precision";
module_param(facilities, charp, 0444);
MODULE_PARM_DESC(facilities, "comma-separated facilities to replay on (in the default's order whatever the list's)");

static unsigned int seconds;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "replay the first so many seconds only (default 0: all)");

static unsigned int spin_us;
module_param(spin_us, uint, 0444);
MODULE_PARM_DESC(spin_us, "poll the clock for the last so many us before each call (default 0: sleep till then)");

static bool summary = true;
module_param(summary, bool, 0444);
MODULE_PARM_DESC(summary, "print what the trace holds, replay-trace (default Y)");

/* How long after loading the threads all start, to be on their CPUs. */
#define LEAD_NS		(20 * NSEC_PER_MSEC)

/* Longest trace line, and most distinct functions, that are taken. */
#define LINE_MAX	256
#define MAX_FUNCS	64

/* One start or cancel of the trace, as its CPU's thread issues it. */
struct replay_event {
	u64 t;			/* ns from the start of the replay */
	u64 delay;		/* start: ns from the call to the deadline */
	u64 prec;		/* start: what timer_list allows, ns */
	unsigned long jiffies;	/* start: what mod_timer() adds to jiffies */
	u32 id;			/* the timer */
	u16 cpu;		/* the CPU recorded */
	char op;		/* 's' start, 'c' cancel */
};

/*
 * One timer of the trace, in the facility being replayed on.  @lock
 * makes an arming and what its function reads of it one: the thread
 * holds it over setting @deadline and @prec and the start call, the
 * function while it reads them and whether the timer is pending again
 * (a re-arm that came while it was on its way: its sample is dropped).
 */
struct replay_timer {
	union {
		struct timer_list tl;
		struct hrtimer hr;
		struct callout co;
	};
	spinlock_t lock;	/* see above */
	u64 deadline;		/* Locked by @lock. */
	u64 prec;		/* Locked by @lock. */
};

/* What the trace says of one timer. */
struct trace_timer {
	bool hrtimer;		/* its origin: hrtimer, else timer_list */
	u8 func;		/* index into trace.funcs */
};

/* The trace, parsed. */
static struct {
	struct trace_timer *timers;
	unsigned int nr_timers;
	struct replay_event *events;	/* in time order */
	unsigned int nr_events, nr_starts;
	unsigned int cpus;		/* CPUs recorded */
	u64 duration;			/* ns */
	char *funcs[MAX_FUNCS];
	unsigned int nr_funcs;
	/* Per function: starts, cancels, recorded expiries. */
	unsigned int counts[MAX_FUNCS][3];
} tr;

/* A facility: how to set up, start, cancel and tear down one timer. */
struct facility {
	const char *name;
	bool twheel;
	void (*init)(struct replay_timer *t);
	/* Called with t->lock held, t->deadline and t->prec set. */
	void (*start)(struct replay_timer *t, const struct replay_event *e);
	void (*cancel)(struct replay_timer *t);
	void (*stop)(struct replay_timer *t);
};

/*
 * One CPU's part of a run.  The thread's fields are written by it alone;
 * the functions', by functions running on that CPU, in softirq context.
 */
struct replay_cpu {
	/* The thread. */
	struct task_struct *task;
	u64 start_ns, cancel_ns;	/* summed time of the calls */
	unsigned long starts, cancels;
	s64 phase[2];			/* least, most ns past jiffies's */
	/* The functions. */
	s64 last_irq;			/* nr_events when the last one ran */
	bool ran;
	unsigned long expired, irqs;
	/* Counters before and after the window, -1: not counted. */
	s64 twheel_irqs[2];		/* twheel's "interrupts" */
	s64 twheel_moved[2];		/* its "migrated" + "early" */
	s64 all_irqs[2];		/* the CPU's hrtimer interrupts */
};

/* The run in progress; one at a time, from this module's init. */
static struct {
	const struct facility *fac;
	struct replay_timer *timers;
	u64 t0;				/* ktime_get_ns() of the replay's 0 */
	unsigned int nr_events;		/* replayed, from the first */
	bool recording;			/* functions record */
	s64 *late;			/* lateness, ns, one per expiry */
	atomic_t nr_late;
	s64 *beyond;			/* lateness - PREC_NS, per expiry */
	s64 *lag;			/* per event: ns past its time */
	s64 *cost;			/* per event: ns of the call, timed */
	struct completion done;
	atomic_t running;		/* threads not yet done */
} run;

static DEFINE_PER_CPU(struct replay_cpu, replay_cpus);

/* Each CPU's hrtimer base, for nr_events; NULL without high resolution. */
static DEFINE_PER_CPU(struct hrtimer_cpu_base *, hrtimer_base);

/* The count of @cpu's hrtimer interrupts, or -1 if not kept. */
static s64 hrtimer_irqs(unsigned int cpu)
{
#ifdef CONFIG_HIGH_RES_TIMERS
	struct hrtimer_cpu_base *base = per_cpu(hrtimer_base, cpu);

	if (base)
		return READ_ONCE(base->nr_events);
#endif
	return -1;
}

/* Median cost of the two clock reads around a timed call. */
static u64 clock_pair_ns;

/* What twheel says it runs. */
static struct dfs_config cfg;

/* ---- the functions ---------------------------------------------------- */

/*
 * Account one expiry of @t on this CPU, @now the time its function began;
 * @again: the timer is pending again (re-armed on its way here).
 */
static void fired(struct replay_timer *t, u64 now, bool again)
{
	struct replay_cpu *rc = this_cpu_ptr(&replay_cpus);
	s64 irq = hrtimer_irqs(smp_processor_id());
	s64 late;
	int i;

	if (!READ_ONCE(run.recording))
		return;
	if (irq < 0)
		irq = jiffies;
	if (!rc->ran || irq != rc->last_irq)
		rc->irqs++;
	rc->ran = true;
	rc->last_irq = irq;
	rc->expired++;
	if (again)
		return;
	late = now - t->deadline;
	i = atomic_inc_return(&run.nr_late) - 1;
	if (i < tr.nr_starts) {
		run.late[i] = late;
		run.beyond[i] = late - t->prec;
	}
}

static void tl_fire(struct timer_list *tl)
{
	struct replay_timer *t = timer_container_of(t, tl, tl);
	u64 now = ktime_get_ns();

	spin_lock(&t->lock);
	fired(t, now, timer_pending(tl));
	spin_unlock(&t->lock);
}

static enum hrtimer_restart hr_fire(struct hrtimer *hr)
{
	struct replay_timer *t = container_of(hr, struct replay_timer, hr);
	u64 now = ktime_get_ns();

	spin_lock(&t->lock);
	fired(t, now, hrtimer_is_queued(hr));
	spin_unlock(&t->lock);
	return HRTIMER_NORESTART;
}

static void tw_fire(void *arg)
{
	struct replay_timer *t = arg;
	u64 now = ktime_get_ns();

	spin_lock(&t->lock);
	fired(t, now, callout_pending(&t->co));
	spin_unlock(&t->lock);
}

/* ---- the facilities --------------------------------------------------- */

static void tl_init(struct replay_timer *t)
{
	timer_setup(&t->tl, tl_fire, 0);
}

static void tl_start(struct replay_timer *t, const struct replay_event *e)
{
	mod_timer(&t->tl, jiffies + e->jiffies);
}

static void tl_cancel(struct replay_timer *t)
{
	timer_delete(&t->tl);
}

static void tl_stop(struct replay_timer *t)
{
	timer_delete_sync(&t->tl);
}

static void hr_init(struct replay_timer *t)
{
	hrtimer_setup(&t->hr, hr_fire, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
}

static void hr_start(struct replay_timer *t, const struct replay_event *e)
{
	hrtimer_start(&t->hr, ns_to_ktime(t->deadline), HRTIMER_MODE_ABS_SOFT);
}

static void hr_range_start(struct replay_timer *t,
			   const struct replay_event *e)
{
	hrtimer_start_range_ns(&t->hr, ns_to_ktime(t->deadline), t->prec,
			       HRTIMER_MODE_ABS_SOFT);
}

static void hr_cancel(struct replay_timer *t)
{
	hrtimer_try_to_cancel(&t->hr);
}

static void hr_stop(struct replay_timer *t)
{
	hrtimer_cancel(&t->hr);
}

static void tw_init(struct replay_timer *t)
{
	callout_init(&t->co);
}

static void tw_start(struct replay_timer *t, const struct replay_event *e)
{
	setcallout_on(&t->co, tw_fire, t, ns_to_ktime(t->deadline), 0,
		      CALLOUT_CPU_ANY, CALLOUT_ABSOLUTE);
}

static void tw_prec_start(struct replay_timer *t,
			  const struct replay_event *e)
{
	setcallout_on(&t->co, tw_fire, t, ns_to_ktime(t->deadline), t->prec,
		      CALLOUT_CPU_ANY, CALLOUT_ABSOLUTE);
}

static void tw_cancel(struct replay_timer *t)
{
	unsetcallout(&t->co);
}

static void tw_stop(struct replay_timer *t)
{
	unsetcallout_sync(&t->co);
}

static const struct facility all_facilities[] = {
	{ "timer_list", false, tl_init, tl_start, tl_cancel, tl_stop },
	{ "hrtimer", false, hr_init, hr_start, hr_cancel, hr_stop },
	{ "hrtimer_range", false, hr_init, hr_range_start, hr_cancel, hr_stop },
	{ "twheel", true, tw_init, tw_start, tw_cancel, tw_stop },
	{ "twheel_precision", true, tw_init, tw_prec_start, tw_cancel, tw_stop },
};

/* ---- the trace -------------------------------------------------------- */

/* The index of function @fn in tr.funcs, added if new; -ENOSPC if full. */
static int func_index(const char *fn)
{
	unsigned int i;

	for (i = 0; i < tr.nr_funcs; i++)
		if (!strcmp(tr.funcs[i], fn))
			return i;
	if (tr.nr_funcs == MAX_FUNCS)
		return -ENOSPC;
	tr.funcs[i] = kstrdup(fn, GFP_KERNEL);
	if (!tr.funcs[i])
		return -ENOMEM;
	tr.nr_funcs++;
	return i;
}

/*
 * Take one line of the trace, events into tr.events[*@nr_events++].
 * Return: 0, -EPROTO for a line it does not understand, -EDOM for a
 * trace recorded at another HZ (its jiffies would mean other times).
 */
static int parse_line(char *line, unsigned int *nr_events)
{
	unsigned long long t, delay = 0, prec = 0;
	unsigned int cpu, id, hz, n;
	char fac[16], fn[LINE_MAX];
	struct replay_event *e;
	unsigned long j = 0;
	int f;

	if (!*line || *line == '#' || str_has_prefix(line, "kernel "))
		return 0;
	if (sscanf(line, "hz %u", &hz) == 1)
		return hz == HZ ? 0 : -EDOM;
	if (sscanf(line, "cpus %u", &tr.cpus) == 1 ||
	    sscanf(line, "duration_ns %llu", &tr.duration) == 1)
		return 0;
	if (line[0] && line[1] != ' ')
		return -EPROTO;
	if (line[0] == 'T') {
		if (sscanf(line + 2, "%u %15s %255s", &id, fac, fn) != 3 ||
		    id >= tr.nr_timers)
			return -EPROTO;
		f = func_index(fn);
		if (f < 0)
			return f;
		tr.timers[id].hrtimer = !strcmp(fac, "hrtimer");
		tr.timers[id].func = f;
		return 0;
	}
	n = sscanf(line + 2, "%llu %u %u %llu %lu %llu", &t, &cpu, &id, &delay,
		   &j, &prec);
	if (n < 3 || id >= tr.nr_timers || cpu > U16_MAX)
		return -EPROTO;
	f = tr.timers[id].func;
	if (line[0] == 'x') {
		tr.counts[f][2]++;
		return 0;
	}
	if ((line[0] != 's' || n != 6) && (line[0] != 'c' || n != 3))
		return -EPROTO;
	tr.counts[f][line[0] == 'c']++;
	tr.nr_starts += line[0] == 's';
	e = &tr.events[(*nr_events)++];
	e->t = t;
	e->delay = delay;
	e->prec = prec;
	e->jiffies = j;
	e->id = id;
	e->cpu = cpu;
	e->op = line[0];
	return 0;
}

/* Read and parse @trace into tr. */
static int load_trace(void)
{
	unsigned int timers = 0, events = 0, nr = 0, lineno = 0;
	void *raw = NULL;
	char *text, *p, *line;
	ssize_t len;
	int ret = 0;

	len = kernel_read_file_from_path(trace, 0, &raw, INT_MAX, NULL,
					 READING_UNKNOWN);
	if (len < 0) {
		pr_err("twheel_replay: cannot read %s: %zd\n", trace, len);
		return len;
	}
	text = vmalloc(len + 1);
	if (!text) {
		vfree(raw);
		return -ENOMEM;
	}
	memcpy(text, raw, len);
	text[len] = '\0';
	vfree(raw);

	/* Size the arrays: a line per timer ("T"), per start and cancel. */
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		timers += p[0] == 'T';
		events += p[0] == 's' || p[0] == 'c';
	}
	tr.nr_timers = timers;
	tr.timers = vcalloc(max(timers, 1U), sizeof(*tr.timers));
	tr.events = vcalloc(max(events, 1U), sizeof(*tr.events));
	if (!tr.timers || !tr.events)
		ret = -ENOMEM;
	for (p = text; !ret && (line = strsep(&p, "\n"));) {
		lineno++;
		if (strlen(line) >= LINE_MAX)
			ret = -EPROTO;
		else
			ret = parse_line(line, &nr);
	}
	vfree(text);
	if (ret == -EDOM)
		pr_err("twheel_replay: %s was recorded at another HZ than %u\n",
		       trace, HZ);
	else if (ret)
		pr_err("twheel_replay: %s, line %u: cannot take it (%d)\n",
		       trace, lineno, ret);
	if (!ret && (!nr || !tr.cpus || !tr.duration)) {
		pr_err("twheel_replay: %s has no events, cpus or duration_ns\n",
		       trace);
		ret = -EPROTO;
	}
	tr.nr_events = nr;
	return ret;
}

static void free_trace(void)
{
	unsigned int i;

	for (i = 0; i < tr.nr_funcs; i++)
		kfree(tr.funcs[i]);
	vfree(tr.timers);
	vfree(tr.events);
	memset(&tr, 0, sizeof(tr));
}

/* What the trace holds: per origin and function, and per origin in all. */
static void print_trace(void)
{
	unsigned int o, f, id, timers[MAX_FUNCS] = { 0 };
	static const char *const origin[] = { "timer_list", "hrtimer" };
	char secs[24];

	bench_frac(secs, sizeof(secs), tr.duration, NSEC_PER_SEC, 3);
	for (id = 0; id < tr.nr_timers; id++)
		timers[tr.timers[id].func]++;
	for (o = 0; o < ARRAY_SIZE(origin); o++) {
		unsigned int all[4] = { 0 };

		for (f = 0; f < tr.nr_funcs; f++) {
			bool mine = false;

			for (id = 0; id < tr.nr_timers && !mine; id++)
				mine = tr.timers[id].func == f &&
				       tr.timers[id].hrtimer == o;
			if (!mine)
				continue;
			bench_line(TRACE_LINE, name, origin[o], tr.funcs[f],
				   timers[f], tr.counts[f][0], tr.counts[f][1],
				   tr.counts[f][2], secs);
			all[0] += timers[f];
			all[1] += tr.counts[f][0];
			all[2] += tr.counts[f][1];
			all[3] += tr.counts[f][2];
		}
		bench_line(TRACE_LINE, name, origin[o], "all", all[0], all[1],
			   all[2], all[3], secs);
	}
}

/* ---- the replay ------------------------------------------------------- */

/*
 * Wait for ktime_get_ns() @t: asleep, then polling the clock for the last
 * @spin_us.
 */
static void wait_until(u64 t)
{
	u64 spin = (u64)spin_us * NSEC_PER_USEC;
	ktime_t wake = ns_to_ktime(t - spin);

	while (ktime_get_ns() + spin < t) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout_range(&wake, 0, HRTIMER_MODE_ABS);
	}
	while (ktime_get_ns() < t) {
		cpu_relax();
		cond_resched();
	}
}

/* The threads' CPUs: the first min(recorded, online, 64) online ones. */
#define MAX_THREADS	64
static unsigned int nr_threads;
static unsigned int thread_cpu[MAX_THREADS];

/* One CPU's thread: the calls recorded on CPU n, n mod nr_threads. */
static int replay_thread(void *arg)
{
	unsigned int me = (unsigned long)arg, i;
	struct replay_cpu *rc = per_cpu_ptr(&replay_cpus, thread_cpu[me]);

	for (i = 0; i < run.nr_events; i++) {
		const struct replay_event *e = &tr.events[i];
		struct replay_timer *t = &run.timers[e->id];
		u64 t1, t2;

		if (e->cpu % nr_threads != me)
			continue;
		wait_until(run.t0 + e->t);
		if (e->op == 's') {
			s64 phase;
			u64 j;

			spin_lock_bh(&t->lock);
			j = get_jiffies_64();
			t1 = ktime_get_ns();
			t->deadline = t1 + e->delay;
			t->prec = e->prec;
			run.fac->start(t, e);
			t2 = ktime_get_ns();
			spin_unlock_bh(&t->lock);
			phase = t1 - j * TICK_NSEC;
			rc->start_ns += t2 - t1;
			rc->starts++;
			rc->phase[0] = min(rc->phase[0], phase);
			rc->phase[1] = max(rc->phase[1], phase);
		} else {
			t1 = ktime_get_ns();
			run.fac->cancel(t);
			t2 = ktime_get_ns();
			rc->cancel_ns += t2 - t1;
			rc->cancels++;
		}
		run.lag[i] = t1 - (run.t0 + e->t);
		run.cost[i] = t2 - t1;
	}
	if (atomic_dec_and_test(&run.running))
		complete(&run.done);
	return 0;
}

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/* Signed ns as us with one decimal place. */
static const char *us(char *buf, size_t size, s64 ns)
{
	u64 a = ns < 0 ? -ns : ns;

	snprintf(buf, size, "%s%llu.%llu", ns < 0 ? "-" : "", a / NSEC_PER_USEC,
		 a % NSEC_PER_USEC / 100);
	return buf;
}

/* The nearest-rank @per_mille percentile of @n sorted values, its index. */
static unsigned int rank(unsigned int n, unsigned int per_mille)
{
	return max(DIV_ROUND_UP(n * per_mille, 1000), 1U) - 1;
}

/*
 * Each online CPU's counters, into [@when] of twheel_irqs, twheel_moved
 * (for a twheel facility; else -1) and all_irqs.
 */
static void read_irqs(unsigned int when)
{
	static const char *const col[] = { "interrupts", "migrated", "early" };
	unsigned int cpu, i;
	s64 v[3];

	for_each_online_cpu(cpu) {
		struct replay_cpu *rc = per_cpu_ptr(&replay_cpus, cpu);

		if (!run.fac->twheel ||
		    dfs_read_cpu_stats(cpu, col, v, ARRAY_SIZE(v)))
			for (i = 0; i < ARRAY_SIZE(v); i++)
				v[i] = -1;
		rc->twheel_irqs[when] = v[0];
		rc->twheel_moved[when] = v[1] < 0 || v[2] < 0 ? -1 : v[1] + v[2];
	}
	for_each_online_cpu(cpu)
		per_cpu(replay_cpus, cpu).all_irqs[when] = hrtimer_irqs(cpu);
}

/* @ns less the cost of the clock reads around a timed call, at least 0. */
static u64 less_clock(s64 ns)
{
	return ns > (s64)clock_pair_ns ? ns - clock_pair_ns : 0;
}

/*
 * The median time of the calls of kind @op ('s' or 'c') of the run,
 * sorted in @tmp, which has room for one per event.
 */
static s64 median_cost(char op, s64 *tmp)
{
	unsigned int i, n = 0;

	for (i = 0; i < run.nr_events; i++)
		if (tr.events[i].op == op)
			tmp[n++] = run.cost[i];
	if (!n)
		return 0;
	sort(tmp, n, sizeof(*tmp), cmp_s64, NULL);
	return tmp[rank(n, 500)];
}

/* @n events over @window ns as a rate per second, one decimal place. */
static const char *per_s(char *buf, size_t size, u64 n, u64 window)
{
	return bench_frac(buf, size, n * NSEC_PER_SEC, window, 1);
}

/* The difference of a counter read before and after, or -1. */
static s64 delta(const s64 *v)
{
	return v[0] >= 0 && v[1] >= v[0] ? v[1] - v[0] : -1;
}

/* @v as a decimal, "-" if negative (not counted). */
static const char *count(char *buf, size_t size, s64 v)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, "%lld", v);
	return buf;
}

/* A rate of counter delta @v, "-" if not counted. */
static const char *rate(char *buf, size_t size, s64 v, u64 window)
{
	return v < 0 ? "-" : per_s(buf, size, v, window);
}

/* What the replay line sums over the CPUs. */
struct replay_sum {
	unsigned long starts, cancels, expired, irqs;
	u64 start_ns, cancel_ns;
	s64 phase[2];
	s64 twheel_irqs;		/* -1: not counted */
};

/*
 * Print replay-cpu for each online CPU, and gather what replay sums into
 * @sum, its per-CPU rates into @cpus.
 */
static void report_cpus(u64 window, const char *scheme, struct replay_sum *sum,
			char *cpus, size_t size)
{
	const char *fac = run.fac->name;
	unsigned int cpu, len = 0;
	char b[7][24];

	memset(sum, 0, sizeof(*sum));
	sum->phase[0] = S64_MAX;
	sum->phase[1] = S64_MIN;
	for_each_online_cpu(cpu) {
		struct replay_cpu *rc = per_cpu_ptr(&replay_cpus, cpu);
		s64 tw = delta(rc->twheel_irqs), all = delta(rc->all_irqs);

		bench_line(CPU_LINE, name, fac, scheme, cpu, rc->expired,
			   rc->irqs, count(b[0], sizeof(b[0]), tw),
			   count(b[6], sizeof(b[6]), delta(rc->twheel_moved)),
			   count(b[1], sizeof(b[1]), all),
			   per_s(b[2], sizeof(b[2]), rc->irqs, window),
			   rate(b[3], sizeof(b[3]), tw, window),
			   rate(b[4], sizeof(b[4]), all, window));
		len += scnprintf(cpus + len, size - len, " cpu%u_irq_per_s=%s",
				 cpu, per_s(b[5], sizeof(b[5]), rc->irqs, window));
		sum->starts += rc->starts;
		sum->cancels += rc->cancels;
		sum->start_ns += rc->start_ns;
		sum->cancel_ns += rc->cancel_ns;
		sum->expired += rc->expired;
		sum->irqs += rc->irqs;
		sum->phase[0] = min(sum->phase[0], rc->phase[0]);
		sum->phase[1] = max(sum->phase[1], rc->phase[1]);
		sum->twheel_irqs = tw < 0 || sum->twheel_irqs < 0 ? -1 :
				   sum->twheel_irqs + tw;
	}
}

/* Print the lines of the run just done, over a window of @window ns. */
static void report(u64 window)
{
	static const unsigned int pm[] = { 10, 50, 100, 250, 500, 750, 900,
					   950, 990, 995, 999, 1000 };
	static const char *const pname[] = { "1", "5", "10", "25", "50", "75",
					     "90", "95", "99", "99.5", "99.9",
					     "max" };
	unsigned int n = min_t(unsigned int, atomic_read(&run.nr_late),
			       tr.nr_starts);
	const char *fac = run.fac->name, *scheme = "-";
	char b[10][24], cpus[256] = "", sch[8];
	unsigned long early = 0;
	struct replay_sum sum;
	s64 p50[2], lag;
	unsigned int i;

	if (run.fac->twheel) {
		snprintf(sch, sizeof(sch), "%u", cfg.scheme);
		scheme = sch;
	}
	sort(run.late, n, sizeof(*run.late), cmp_s64, NULL);
	sort(run.beyond, n, sizeof(*run.beyond), cmp_s64, NULL);
	sort(run.lag, run.nr_events, sizeof(*run.lag), cmp_s64, NULL);
	lag = run.lag[rank(run.nr_events, 990)];
	/* run.lag is free now: room to sort the costs in. */
	p50[0] = median_cost('s', run.lag);
	p50[1] = median_cost('c', run.lag);
	for (i = 0; i < n && run.late[i] < 0; i++)
		early++;
	report_cpus(window, scheme, &sum, cpus, sizeof(cpus));

	bench_line(REPLAY_LINE, name, fac, scheme,
		   bench_frac(b[0], sizeof(b[0]), window, NSEC_PER_SEC, 3),
		   sum.starts, sum.cancels, sum.expired, early,
		   n ? us(b[1], sizeof(b[1]), run.late[rank(n, 500)]) : "-",
		   n ? us(b[2], sizeof(b[2]), run.late[rank(n, 990)]) : "-",
		   n ? us(b[3], sizeof(b[3]), run.late[n - 1]) : "-",
		   n ? us(b[4], sizeof(b[4]), run.beyond[rank(n, 990)]) : "-",
		   per_s(b[5], sizeof(b[5]), sum.irqs, window), cpus,
		   rate(b[6], sizeof(b[6]), sum.twheel_irqs, window),
		   less_clock(sum.starts ? div64_u64(sum.start_ns, sum.starts) : 0),
		   less_clock(p50[0]),
		   less_clock(sum.cancels ? div64_u64(sum.cancel_ns, sum.cancels) : 0),
		   less_clock(p50[1]), us(b[7], sizeof(b[7]), lag),
		   sum.starts ? us(b[8], sizeof(b[8]),
				   max_t(s64, sum.phase[1] - sum.phase[0] - TICK_NSEC, 0)) :
		   "-");
	for (i = 0; n && i < ARRAY_SIZE(pm); i++) {
		unsigned int r = rank(n, pm[i]);

		/* The share at least as late: from the first equal sample. */
		while (r && run.late[r - 1] == run.late[r])
			r--;
		bench_line(LATENESS_LINE, name, fac, scheme, pname[i],
			   us(b[0], sizeof(b[0]), run.late[rank(n, pm[i])]),
			   bench_frac(b[1], sizeof(b[1]), n - r, n, 6));
	}
}

/* Replay the trace's first @window ns on @fac. */
static int replay_on(const struct facility *fac, u64 window)
{
	unsigned int i, cpu;
	int ret = 0;

	run.fac = fac;
	run.timers = vcalloc(tr.nr_timers, sizeof(*run.timers));
	run.late = vcalloc(max(tr.nr_starts, 1U), sizeof(*run.late));
	run.beyond = vcalloc(max(tr.nr_starts, 1U), sizeof(*run.beyond));
	run.lag = vcalloc(tr.nr_events, sizeof(*run.lag));
	run.cost = vcalloc(tr.nr_events, sizeof(*run.cost));
	if (!run.timers || !run.late || !run.beyond || !run.lag || !run.cost) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < tr.nr_timers; i++) {
		spin_lock_init(&run.timers[i].lock);
		fac->init(&run.timers[i]);
	}
	for (i = 0; i < tr.nr_events && tr.events[i].t < window; i++)
		;
	run.nr_events = i;
	atomic_set(&run.nr_late, 0);
	atomic_set(&run.running, nr_threads);
	init_completion(&run.done);
	for_each_possible_cpu(cpu) {
		struct replay_cpu *rc = per_cpu_ptr(&replay_cpus, cpu);

		memset(rc, 0, sizeof(*rc));
		rc->phase[0] = S64_MAX;
		rc->phase[1] = S64_MIN;
	}
	for (i = 0; i < nr_threads; i++) {
		struct replay_cpu *rc = per_cpu_ptr(&replay_cpus, thread_cpu[i]);

		rc->task = kthread_create(replay_thread, (void *)(unsigned long)i,
					  "twheel_replay/%u", thread_cpu[i]);
		if (IS_ERR(rc->task)) {
			ret = PTR_ERR(rc->task);
			rc->task = NULL;
			break;
		}
		kthread_bind(rc->task, thread_cpu[i]);
		get_task_struct(rc->task);
	}
	read_irqs(0);
	run.t0 = ktime_get_ns() + LEAD_NS;
	WRITE_ONCE(run.recording, true);
	for (i = 0; !ret && i < nr_threads; i++)
		wake_up_process(per_cpu(replay_cpus, thread_cpu[i]).task);
	if (!ret) {
		/* A second at a time: a long trace is no hung task. */
		while (!wait_for_completion_timeout(&run.done, HZ))
			;
		wait_until(run.t0 + window);
	}
	WRITE_ONCE(run.recording, false);
	read_irqs(1);
	for (i = 0; i < nr_threads; i++) {
		struct task_struct *task = per_cpu(replay_cpus, thread_cpu[i]).task;

		if (!task)
			continue;
		kthread_stop(task);
		put_task_struct(task);
	}
	for (i = 0; i < tr.nr_timers; i++) {
		fac->stop(&run.timers[i]);
		if (!(i % 256))
			cond_resched();
	}
	if (!ret)
		report(window);
out:
	vfree(run.timers);
	vfree(run.late);
	vfree(run.beyond);
	vfree(run.lag);
	vfree(run.cost);
	run.timers = NULL;
	run.late = NULL;
	run.beyond = NULL;
	run.lag = NULL;
	run.cost = NULL;
	return ret;
}

/* ---- set-up ----------------------------------------------------------- */

/* Each CPU's hrtimer base, from a timer set up on it (never started). */
static DEFINE_PER_CPU(struct hrtimer, base_probe);

static enum hrtimer_restart probe_never(struct hrtimer *unused)
{
	return HRTIMER_NORESTART;
}

/*
 * As hrtimer_is_hres_active() did, which 7.2 no longer has: the field it
 * read is there on every kernel (a bitfield on 6.1 and 6.12, a bool on
 * 7.2).
 */
static void find_base(void *unused)
{
	struct hrtimer *h = this_cpu_ptr(&base_probe);
	struct hrtimer_cpu_base *base;

	hrtimer_setup(h, probe_never, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	base = h->base->cpu_base;
	if (!IS_ENABLED(CONFIG_HIGH_RES_TIMERS) || !base->hres_active)
		base = NULL;
	__this_cpu_write(hrtimer_base, base);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median time of two clock reads in a row. */
static u64 measure_clock_pair(void)
{
	u64 d[101];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		u64 t1 = ktime_get_ns();

		d[i] = ktime_get_ns() - t1;
	}
	sort(d, ARRAY_SIZE(d), sizeof(*d), cmp_u64, NULL);
	return d[ARRAY_SIZE(d) / 2];
}

/* Whether @facilities names @fac. */
static bool listed(const char *fac)
{
	const char *p = facilities;
	size_t len = strlen(fac);

	while (p && *p) {
		if (!strncmp(p, fac, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return false;
}

static int __init replay_init(void)
{
	u64 window;
	unsigned int i, cpu;
	bool hres = true;
	int ret;

	ret = dfs_read_config(&cfg);
	if (ret) {
		pr_err("twheel_replay: cannot read %s: %d\n", DFS_CONFIG, ret);
		return ret;
	}
	ret = load_trace();
	if (ret)
		goto out;
	if (summary)
		print_trace();

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (nr_threads < min(tr.cpus, MAX_THREADS))
			thread_cpu[nr_threads++] = cpu;
		smp_call_function_single(cpu, find_base, NULL, 1);
		hres &= !!per_cpu(hrtimer_base, cpu);
	}
	cpus_read_unlock();
	if (!hres)
		pr_info("twheel_replay: no high-resolution timers: expiry_irqs counts jiffies\n");
	if (nr_threads < tr.cpus)
		pr_info("twheel_replay: %u CPUs recorded, replayed on %u\n",
			tr.cpus, nr_threads);
	clock_pair_ns = measure_clock_pair();
	window = tr.duration;
	if (seconds)
		window = min_t(u64, window, seconds * NSEC_PER_SEC);

	for (i = 0; i < ARRAY_SIZE(all_facilities) && !ret; i++)
		if (listed(all_facilities[i].name))
			ret = replay_on(&all_facilities[i], window);
out:
	free_trace();
	return ret;
}
module_init(replay_init);

static void __exit replay_exit(void)
{
}
module_exit(replay_exit);

MODULE_DESCRIPTION("twheel benchmark: the kernel's own timer traffic, replayed on each facility");
MODULE_LICENSE("GPL");
