// SPDX-License-Identifier: GPL-2.0
/*
 * The cascade part of the benchmark: what crossing the boundaries of a
 * hierarchical wheel costs the CPU it happens on.  A twheel client: it uses
 * <twheel.h> and reads twheel's debugfs files, nothing else of twheel's, so
 * it builds against any twheel whose public API it knows, and
 * scripts/bench.sh loads it on the tree's twheel.ko and on an older one
 * (BASELINE=) in the same boot, twheel reloaded with each scheme between.
 *
 * For each count N of @counts, all of it on one CPU (@cpu), from a kthread
 * bound there:
 *
 *   long callouts  N callouts armed once, due around the next level-2
 *                  boundary B of the default Scheme 7 geometry (a multiple
 *                  of 256 * 256 ticks; for Scheme 7 the geometry twheel
 *                  reports), so that in the window they cross level-1
 *                  boundaries and B:
 *                  - @keepalive_pct of them due within one level-1 slot,
 *                    half a level-2 slot past B, as keepalives armed
 *                    within one level-1 slot for the same interval are:
 *                    they all share B's level-2 slot and a level-1 slot;
 *                  - the rest due uniformly from a quarter of a level-2
 *                    slot before B to three quarters after: those before
 *                    B cross level-1 boundaries and expire in the window.
 *                  None is re-armed.
 *   short stream   @stream callouts, each re-armed from its own function
 *                  for a random interval of @stream_min to @stream_max
 *                  ticks; for each expiry, its lateness in ns: when its
 *                  function ran minus the start of its due tick, the
 *                  earliest moment the contract allows.  One still
 *                  pending past its due time when the window ends counts
 *                  too, as late as it is then: a wheel that has fallen
 *                  behind does not hide its lateness by never running
 *                  the stream.
 *   probe          a hard-irq hrtimer pinned to the CPU, every @probe_us
 *                  microseconds; how late it fires is how long interrupts
 *                  were off on the CPU (or a higher-priority interrupt
 *                  ran).  A period missed while interrupts were off counts
 *                  as a sample too, with the lateness it would have had, so
 *                  that the percentiles weigh a stall by its length.
 *
 * The window runs from the end of the arming to @after_ms past B.  twheel's
 * counters are reset at its start ("stats" takes a 0) and read at its end:
 * the CPU's row of "stats" by column name and the per-interrupt histograms
 * of "latency" (summed over the CPUs, of which only this one has work).
 * Columns and histograms that this twheel does not have print as "-".
 *
 * One set of lines per N, in the format of bench_line.h, "-" for what
 * twheel does not report (BUILD is @label):
 *
 *   cascade build=BUILD scheme=S geometry=G tick_ns=NS n=N |
 *       keepalive=K stream=K arm_ms=MS ms=MS boundary_ms=MS interrupts=I
 *       expired=E migrated=M moved_max=M work_max=W probe_samples=K
 *       stream_samples=K stream_early=K stream_overdue=K
 *   cascade-lateness build=BUILD scheme=S n=N what=WHAT p=P |
 *       late_us=X share=X
 *   cascade-work_ns build=BUILD scheme=S n=N at_least_us=X | share=X
 *   cascade-work_entries build=BUILD scheme=S n=N at_least=X | share=X
 *
 * arm_ms is how long arming the long callouts took, ms the window's length
 * and boundary_ms when in the window B came (negative: before it began);
 * stream_overdue: of the stream's samples, short callouts still pending
 * past their time at the end.  cascade-lateness: WHAT is "probe" or
 * "stream", P a nearest-rank percentile (within 1/16: see &struct
 * lat_hist) or "max", exact; share is the share of samples at least that
 * late.  cascade-work_*: twheel's per-interrupt histograms, as the share
 * of interrupts that took at least that long or handled at least that
 * many entries (the lower bound of a log2 bucket).
 *
 * It reports; nothing it measures fails it.
 */

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "bench_line.h"
#include "twheel_dfs.h"
#include "../twheel_compat.h"	/* hrtimer_setup() before 6.13 */

/* The lines this module prints, as bench_line.h says. */
#define CASCADE_LATENESS_LINE \
	"cascade-lateness build=%s scheme=%u n=%u what=%s p=%s | late_us=%s share=%s"
#define CASCADE_LINE \
	"cascade build=%s scheme=%u geometry=%s tick_ns=%llu n=%u | keepalive=%u stream=%u " \
	"arm_ms=%llu ms=%llu boundary_ms=%lld interrupts=%s expired=%s migrated=%s moved_max=%s " \
	"work_max=%s probe_samples=%llu stream_samples=%llu stream_early=%llu " \
	"stream_overdue=%llu"

static char *label = "tree";
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "which twheel.ko this is, for the report (default tree)");

static unsigned int counts[4] = { 100000, 1000000 };
static unsigned int nr_counts = 2;
module_param_array_named(counts, counts, uint, &nr_counts, 0444);
MODULE_PARM_DESC(counts, "long callouts, one run each (default 100000,1000000)");

static int bench_cpu = -1;
module_param_named(cpu, bench_cpu, int, 0444);
MODULE_PARM_DESC(cpu, "the CPU everything runs on (default: the last online)");

static unsigned int keepalive_pct = 50;
module_param(keepalive_pct, uint, 0444);
MODULE_PARM_DESC(keepalive_pct, "share of the long callouts due in one level-1 slot (default 50)");

static unsigned int stream = 16;
module_param(stream, uint, 0444);
MODULE_PARM_DESC(stream, "short callouts re-arming alongside (default 16, ~10^4 expiries a second at 0.1 ms)");

static unsigned int stream_min = 2;
module_param(stream_min, uint, 0444);
MODULE_PARM_DESC(stream_min, "short stream: shortest interval in ticks (default 2)");

static unsigned int stream_max = 20;
module_param(stream_max, uint, 0444);
MODULE_PARM_DESC(stream_max, "short stream: longest interval in ticks (default 20)");

static unsigned int probe_us = 100;
module_param(probe_us, uint, 0444);
MODULE_PARM_DESC(probe_us, "period of the hard-irq probe (default 100)");

static unsigned int lead_ms;
module_param(lead_ms, uint, 0444);
MODULE_PARM_DESC(lead_ms, "time allowed for arming before the first long callout is due (default 500 + N/500)");

static unsigned int after_ms = 400;
module_param(after_ms, uint, 0444);
MODULE_PARM_DESC(after_ms, "how long the window goes on past the level-2 boundary (default 400)");

#define FILE_MAX	(4 * PAGE_SIZE)

/* As twheel's histograms: bucket b counts values v with fls64(v) == b. */
#define HIST_BUCKETS	64

/* The boundaries when twheel does not run Scheme 7: its default geometry. */
#define DEFAULT_SLOTS	256

/* What twheel says it runs, from debugfs "config". */
static struct dfs_config cfg;

/*
 * Lateness in ns, kept as a log-linear histogram: values below 16 exactly,
 * above that 16 buckets per power of two, so a percentile read from it is
 * within 1/16 of the value, whatever the number of samples.  Filled on the
 * measured CPU only.
 */
#define LAT_SUB_BITS	4
#define LAT_SUB		BIT(LAT_SUB_BITS)
#define LAT_BUCKETS	((64 - LAT_SUB_BITS + 1) * LAT_SUB)

struct lat_hist {
	u64 count[LAT_BUCKETS];
	u64 n;
	u64 max;
	u64 early;		/* negative, counted as 0 */
	u64 overdue;		/* not run by the end, counted as late as then */
};

static unsigned int lat_bucket(u64 v)
{
	unsigned int b = fls64(v);

	if (v < LAT_SUB)
		return v;
	return ((b - LAT_SUB_BITS) << LAT_SUB_BITS) +
	       ((v >> (b - LAT_SUB_BITS - 1)) & (LAT_SUB - 1));
}

/* The largest value bucket @i holds. */
static u64 lat_bucket_max(unsigned int i)
{
	unsigned int shift = (i >> LAT_SUB_BITS) + LAT_SUB_BITS - 1 -
			     LAT_SUB_BITS;

	if (i < LAT_SUB)
		return i;
	return (((u64)(LAT_SUB + (i & (LAT_SUB - 1))) + 1) << shift) - 1;
}

static void lat_add(struct lat_hist *h, s64 ns)
{
	if (ns < 0) {
		h->early++;
		ns = 0;
	}
	h->count[lat_bucket(ns)]++;
	h->n++;
	h->max = max_t(u64, h->max, ns);
}

/* The nearest-rank percentile, @ppm parts per million: a bucket's bound. */
static u64 lat_pct(const struct lat_hist *h, unsigned int ppm)
{
	u64 rank = max_t(u64, DIV_ROUND_UP_ULL(h->n * ppm, 1000000), 1);
	u64 seen = 0;
	unsigned int i;

	for (i = 0; i < LAT_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank)
			return min(lat_bucket_max(i), h->max);
	}
	return h->max;
}

/* One callout of the short stream and its due time. */
struct short_callout {
	struct callout c;
	u64 due_ns;
};

/*
 * The run in progress.  Its callouts and the probe touch it on the measured
 * CPU only, in softirq and hardirq context; the kthread reads it once they
 * are stopped.
 */
static struct {
	struct callout *longs;
	unsigned int n;
	struct short_callout *shorts;
	bool stopping;		/* the stream no longer re-arms */
	bool recording;		/* the stream and the probe record */
	struct lat_hist stream_late;
	struct lat_hist probe_late;
	struct hrtimer probe;
	ktime_t period;
	atomic_long_t long_expired;
	struct rnd_state rnd;	/* the stream's, in softirq context */
} run;

/* The kthread's, for the long callouts. */
static struct rnd_state arm_rnd;

/* Zero twheel's counters and histograms, on every CPU. */
static int reset_stats(void)
{
	return dfs_write(DFS_STATS, "0");
}

/* Ticks per slot of level 1 and level 2 of the hierarchy the run aims at. */
static void boundaries(u64 *l1, u64 *l2)
{
	u64 s0 = DEFAULT_SLOTS, s1 = DEFAULT_SLOTS;

	if (cfg.scheme == 7 && cfg.levels >= 3) {
		s0 = cfg.slots[0];
		s1 = cfg.slots[1];
	}
	*l1 = s0;
	*l2 = s0 * s1;
}

/*
 * What this twheel reports at the end of a window: "stats" columns of the
 * measured CPU, by name; -1 for a column it does not have.
 */
enum { C_INTERRUPTS, C_EXPIRED, C_MIGRATED, C_MOVED_MAX, C_WORK_MAX, C_NR };

static const char *const column_names[C_NR] = {
	[C_INTERRUPTS] = "interrupts",
	[C_EXPIRED] = "expired",
	[C_MIGRATED] = "migrated",
	[C_MOVED_MAX] = "moved_max",
	[C_WORK_MAX] = "work_max",
};

struct report {
	s64 col[C_NR];
	u64 work_ns[HIST_BUCKETS];
	u64 work_entries[HIST_BUCKETS];
	bool have_ns, have_entries;
};

/* The columns of @r in "stats", from CPU @on's row. */
static int read_columns(struct report *r, unsigned int on)
{
	return dfs_read_cpu_stats(on, column_names, r->col, C_NR);
}

/*
 * The per-interrupt histograms of "latency": under each heading line, one
 * line per bucket, "  LO..HI UNIT: COUNT" ("  0 UNIT: COUNT" for zero,
 * "  LO.. UNIT: COUNT" for the last).  The sections whose heading speaks
 * of interrupts are per interrupt: in ns, or else in entries.
 */
static int read_histograms(struct report *r)
{
	char *buf, *p, *line, *colon, *unit;
	unsigned long long lo, count;
	bool per_irq = false;
	u64 *hist;
	int ret;

	memset(r->work_ns, 0, sizeof(r->work_ns));
	memset(r->work_entries, 0, sizeof(r->work_entries));
	r->have_ns = false;
	r->have_entries = false;
	buf = kmalloc(FILE_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = dfs_read(DFS_LATENCY, buf, FILE_MAX);
	for (p = buf; !ret && (line = strsep(&p, "\n"));) {
		if (*line && *line != ' ') {
			per_irq = !!strstr(line, "interrupt");
			continue;
		}
		colon = strrchr(line, ':');
		if (!per_irq || !colon || kstrtoull(skip_spaces(colon + 1), 10,
						    &count))
			continue;
		*colon = '\0';
		unit = strrchr(line, ' ');
		if (!unit || sscanf(line, " %llu", &lo) != 1)
			continue;
		if (!strcmp(unit + 1, "ns")) {
			hist = r->work_ns;
			r->have_ns = true;
		} else {
			hist = r->work_entries;
			r->have_entries = true;
		}
		hist[min_t(unsigned int, fls64(lo), HIST_BUCKETS - 1)] += count;
	}
	kfree(buf);
	return ret;
}

static void long_fire(void *arg)
{
	atomic_long_inc(&run.long_expired);
}

static void short_fire(void *arg);

/* Arm one callout of the stream: softirq context, or bottom halves off. */
static void short_arm(struct short_callout *sc)
{
	u32 ticks = stream_min +
		    prandom_u32_state(&run.rnd) % (stream_max - stream_min + 1);
	u64 now = ktime_get_ns();

	/*
	 * setcallout() makes it due on the tick after now + ticks, reading
	 * the clock after this: the due time is never later than this one.
	 */
	sc->due_ns = (div64_u64(now, cfg.tick_ns) + ticks + 1) * cfg.tick_ns;
	setcallout(&sc->c, short_fire, sc, ticks);
}

static void short_fire(void *arg)
{
	struct short_callout *sc = arg;
	s64 late = ktime_get_ns() - sc->due_ns;

	if (READ_ONCE(run.recording))
		lat_add(&run.stream_late, late);
	if (!READ_ONCE(run.stopping))
		short_arm(sc);
}

/*
 * The probe: each expiry and each period missed before it is one sample,
 * how long after its time it came.
 */
static enum hrtimer_restart probe_fire(struct hrtimer *t)
{
	ktime_t now = ktime_get();
	s64 late = ktime_to_ns(ktime_sub(now, hrtimer_get_expires(t)));
	s64 period = ktime_to_ns(run.period);
	u64 i, missed = hrtimer_forward(t, now, run.period);

	if (READ_ONCE(run.recording)) {
		for (i = 0; i < missed; i++)
			lat_add(&run.probe_late, late - (s64)i * period);
	}
	return HRTIMER_RESTART;
}

/*
 * Arm the long callouts around @b, the level-2 boundary of the run: see
 * the top of the file.
 */
static void arm_longs(u64 b, u64 l1, u64 l2)
{
	unsigned int keep = div_u64((u64)run.n * keepalive_pct, 100), i;
	u64 due, now;

	for (i = 0; i < run.n; i++) {
		u32 r = prandom_u32_state(&arm_rnd);

		/* Interleaved, so both groups see the same arming delay. */
		if (div_u64((u64)i * keep, run.n) !=
		    div_u64((u64)(i + 1) * keep, run.n))
			due = b + l2 / 2 + r % l1;
		else
			due = b - l2 / 4 + r % l2;
		now = div64_u64(ktime_get_ns(), cfg.tick_ns);
		setcallout(&run.longs[i], long_fire, NULL,
			   due > now + 1 ? due - now - 1 : 0);
		if (!(i % 1024))
			cond_resched();
	}
}

/* Sleep until ktime_get_ns() reaches @ns. */
static void sleep_until(u64 ns)
{
	u64 now;

	while ((now = ktime_get_ns()) < ns)
		msleep(min_t(u64, div_u64(ns - now, NSEC_PER_MSEC) + 1, 100));
}

/* @h's percentiles and maximum, each with the share at least as late. */
static void print_lateness(unsigned int n, const char *what,
			   const struct lat_hist *h)
{
	static const struct {
		const char *p;
		unsigned int ppm;
	} pct[] = {
		{ "50", 500000 }, { "90", 900000 }, { "99", 990000 },
		{ "99.9", 999000 }, { "99.99", 999900 },
	};
	char us[24], share[32];	/* gcc -Wformat-truncation bounds it at 30 */
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pct); i++)
		bench_line(CASCADE_LATENESS_LINE,
			   label, cfg.scheme, n, what, pct[i].p,
			   bench_frac(us, sizeof(us), lat_pct(h, pct[i].ppm),
				      1000, 1),
			   bench_frac(share, sizeof(share),
				      1000000 - pct[i].ppm, 1000000, 9));
	bench_line(CASCADE_LATENESS_LINE,
		   label, cfg.scheme, n, what, "max",
		   bench_frac(us, sizeof(us), h->max, 1000, 1),
		   bench_frac(share, sizeof(share), 1, h->n, 9));
}

/*
 * twheel's per-interrupt histogram @hist of @what, bucket b counting
 * values v with fls64(v) == b, as the share of interrupts at least at each
 * bucket's lower bound, divided by @scale (1000: ns as us).
 */
static void print_hist(unsigned int n, const char *what, const char *unit,
		       const u64 *hist, unsigned int scale)
{
	char lo[24], share[24];
	u64 total = 0, above = 0;
	int b;

	for (b = 0; b < HIST_BUCKETS; b++)
		total += hist[b];
	for (b = HIST_BUCKETS - 1; b >= 0; b--) {
		if (!hist[b])
			continue;
		above += hist[b];
		bench_line("cascade-%s build=%s scheme=%u n=%u at_least%s=%s | share=%s",
			   what, label, cfg.scheme, n, unit,
			   bench_frac(lo, sizeof(lo), b ? 1ULL << (b - 1) : 0,
				      scale, scale > 1 ? 3 : 0),
			   bench_frac(share, sizeof(share), above, total, 9));
	}
}

static const char *col(char *buf, size_t size, s64 v)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, "%lld", v);
	return buf;
}

/*
 * End the window: no more samples, and those of the stream still pending
 * past their time count as late as they are now.  With bottom halves off
 * no callout function runs on this CPU, which all of them are on.
 * Returns the time it ended.
 */
static u64 stop_recording(void)
{
	u64 now;
	unsigned int i;

	local_bh_disable();
	now = ktime_get_ns();
	WRITE_ONCE(run.recording, false);
	for (i = 0; i < stream; i++) {
		struct short_callout *sc = &run.shorts[i];

		if (callout_pending(&sc->c) && now > sc->due_ns) {
			lat_add(&run.stream_late, now - sc->due_ns);
			run.stream_late.overdue++;
		}
	}
	local_bh_enable();
	return now;
}

/* One run with @n long callouts, on the CPU this kthread is bound to. */
static int cascade_run(unsigned int n, unsigned int on)
{
	unsigned int lead = lead_ms ? lead_ms : 500 + n / 500, i;
	u64 l1, l2, b, t0, end, window, arm_ns;
	struct report *r;
	char v[C_NR][24];
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	run.longs = vmalloc(array_size(n, sizeof(*run.longs)));
	run.shorts = kcalloc(stream, sizeof(*run.shorts), GFP_KERNEL);
	if (!r || !run.longs || !run.shorts) {
		ret = -ENOMEM;
		goto out;
	}
	run.n = n;
	for (i = 0; i < n; i++)
		callout_init(&run.longs[i]);
	for (i = 0; i < stream; i++)
		callout_init(&run.shorts[i].c);
	atomic_long_set(&run.long_expired, 0);

	/*
	 * B: the first level-2 boundary far enough ahead that the earliest
	 * long callout, due a quarter of a level-2 slot before it, is still
	 * ahead once all are armed.
	 */
	boundaries(&l1, &l2);
	b = div64_u64(ktime_get_ns(), cfg.tick_ns) +
	    div_u64((u64)lead * NSEC_PER_MSEC, cfg.tick_ns) + l2 / 4;
	b = roundup(b, l2);
	arm_ns = ktime_get_ns();
	arm_longs(b, l1, l2);

	/* The window: from now to @after_ms past B. */
	t0 = ktime_get_ns();
	arm_ns = t0 - arm_ns;
	end = max(b * cfg.tick_ns, t0) + (u64)after_ms * NSEC_PER_MSEC;
	memset(&run.probe_late, 0, sizeof(run.probe_late));
	memset(&run.stream_late, 0, sizeof(run.stream_late));
	ret = reset_stats();
	if (ret)
		goto out_longs;

	WRITE_ONCE(run.stopping, false);
	WRITE_ONCE(run.recording, true);
	local_bh_disable();
	for (i = 0; i < stream; i++)
		short_arm(&run.shorts[i]);
	local_bh_enable();
	run.period = ns_to_ktime((u64)probe_us * NSEC_PER_USEC);
	hrtimer_start(&run.probe, ktime_add(ktime_get(), run.period),
		      HRTIMER_MODE_ABS_PINNED_HARD);
	t0 = ktime_get_ns();
	sleep_until(end);
	window = stop_recording() - t0;
	hrtimer_cancel(&run.probe);
	WRITE_ONCE(run.stopping, true);
	for (i = 0; i < stream; i++)
		unsetcallout_sync(&run.shorts[i].c);

	ret = read_columns(r, on);
	if (!ret)
		ret = read_histograms(r);
	if (ret)
		goto out_longs;

	bench_line(CASCADE_LINE,
		   label, cfg.scheme, cfg.geometry, cfg.tick_ns, n,
		   (unsigned int)div_u64((u64)n * keepalive_pct, 100), stream,
		   div_u64(arm_ns, NSEC_PER_MSEC),
		   div_u64(window, NSEC_PER_MSEC),
		   div_s64((s64)(b * cfg.tick_ns - t0), NSEC_PER_MSEC),
		   col(v[0], sizeof(v[0]), r->col[C_INTERRUPTS]),
		   col(v[1], sizeof(v[1]), r->col[C_EXPIRED]),
		   col(v[2], sizeof(v[2]), r->col[C_MIGRATED]),
		   col(v[3], sizeof(v[3]), r->col[C_MOVED_MAX]),
		   col(v[4], sizeof(v[4]), r->col[C_WORK_MAX]),
		   run.probe_late.n, run.stream_late.n, run.stream_late.early,
		   run.stream_late.overdue);
	print_lateness(n, "probe", &run.probe_late);
	print_lateness(n, "stream", &run.stream_late);
	if (r->have_ns)
		print_hist(n, "work_ns", "_us", r->work_ns, 1000);
	if (r->have_entries)
		print_hist(n, "work_entries", "", r->work_entries, 1);

out_longs:
	for (i = 0; i < n; i++) {
		unsetcallout_sync(&run.longs[i]);
		if (!(i % 1024))
			cond_resched();
	}
out:
	vfree(run.longs);
	kfree(run.shorts);
	kfree(r);
	run.longs = NULL;
	run.shorts = NULL;
	run.n = 0;
	return ret;
}

static struct completion done;
static int result;

static int cascade_thread(void *arg)
{
	unsigned int on = (uintptr_t)arg, i;
	int ret = 0;

	for (i = 0; i < nr_counts && !ret; i++)
		ret = cascade_run(counts[i], on);
	result = ret;
	kthread_complete_and_exit(&done, 0);
}

static int __init cascade_init(void)
{
	struct task_struct *t;
	unsigned int on;
	int ret;

	ret = dfs_read_config(&cfg);
	if (ret) {
		pr_err("twheel_cascade: cannot read %s: %d\n", DFS_CONFIG,
		       ret);
		return ret;
	}
	if (!stream || !stream_min || stream_max < stream_min || !probe_us)
		return -EINVAL;
	on = bench_cpu >= 0 ? bench_cpu : cpumask_last(cpu_online_mask);
	if (on >= nr_cpu_ids || !cpu_online(on))
		return -EINVAL;
	prandom_seed_state(&arm_rnd, 1987);
	prandom_seed_state(&run.rnd, 1997);
	hrtimer_setup(&run.probe, probe_fire, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED_HARD);
	init_completion(&done);

	t = kthread_create_on_cpu(cascade_thread, (void *)(uintptr_t)on, on,
				  "twheel_cascade/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	wait_for_completion(&done);
	if (result)
		pr_err("twheel_cascade: failed: %d\n", result);
	return result;
}
module_init(cascade_init);

static void __exit cascade_exit(void)
{
}
module_exit(cascade_exit);

MODULE_DESCRIPTION("twheel benchmark: cost of crossing wheel boundaries on one CPU");
MODULE_LICENSE("GPL");
