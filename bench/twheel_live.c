// SPDX-License-Identifier: GPL-2.0
/*
 * Measurements of the live facility: callouts that really expire, on
 * twheel's own hrtimer ticks.  A twheel client: it uses <twheel.h> and reads
 * twheel's debugfs files, nothing else of twheel's.  Loaded by
 * scripts/bench.sh after twheel.ko, perhaps several times with twheel
 * reloaded between; runs in its init and prints one line per figure to
 * the kernel log, in the format of bench_line.h:
 *
 *   interrupts scheme=S geometry=G tick_ns=NS T=T callouts=N |
 *       expired=E interrupts=I per_expiry=X paper=X
 *   idle scheme=S | seconds=X interrupts=I
 *   lateness scheme=S callouts=N tick_ns=NS min_ticks=A max_ticks=B |
 *       ms=MS expired=E interrupts=I work_ns=NS samples=K early=K
 *       p50_us=X p90_us=X p99_us=X p999_us=X max_us=X
 *
 * interrupts  A few callouts (@callouts), each re-armed from its own
 *             function for a random interval uniform in [T/2, 3T/2] ticks,
 *             for each T of @periods; the deltas of twheel's "expired" and
 *             "interrupts" counters over the window, and interrupts per
 *             expiry.  The paper's Appendix A predicts T/M interrupts per
 *             expiry for Scheme 6 with M slots, at most m for Scheme 7
 *             with m levels (paper).
 * idle        Nothing armed for @idle_ms: the delta of "interrupts", and
 *             the window as measured in seconds.
 * lateness    @counts callouts, each re-armed from its own function for a
 *             random interval uniform in [@min_ticks, @max_ticks] ticks, for
 *             @lateness_ms; for each expiry, when its function ran minus
 *             (when setcallout() was called + ticks * tick length), which
 *             the contract says is never negative; percentiles in
 *             microseconds; with the workload, the window as measured
 *             (ms) and the deltas of twheel's "expired", "interrupts" and
 *             "work_ns" (tick bookkeeping) over it.
 *
 * Callouts are armed by a worker bound to a CPU, and each re-arms on the
 * CPU it runs on: for "interrupts" all on the first online CPU, so that
 * they share one wheel, for "lateness" spread over the online CPUs.
 */

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "twheel.h"
#include "bench_line.h"
#include "twheel_dfs.h"

/* The lines this module prints, as bench_line.h says. */
#define INTERRUPTS_LINE \
	"interrupts scheme=%u geometry=%s tick_ns=%llu T=%lu callouts=%u | expired=%llu " \
	"interrupts=%llu per_expiry=%s paper=%s"
#define LATENESS_LINE \
	"lateness scheme=%u callouts=%u tick_ns=%llu min_ticks=%u max_ticks=%u | ms=%llu " \
	"expired=%llu interrupts=%llu work_ns=%llu samples=%lu early=%ld p50_us=%s p90_us=%s " \
	"p99_us=%s p999_us=%s max_us=%s"

static char *test = "interrupts";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "comma-separated: interrupts, idle, lateness");

static unsigned int periods[16] = { 128, 256, 512, 1024, 2048, 4096 };
static unsigned int nr_periods = 6;
module_param_array_named(periods, periods, uint, &nr_periods, 0444);
MODULE_PARM_DESC(periods, "interrupts: mean intervals T in ticks");

static unsigned int callouts = 8;
module_param(callouts, uint, 0444);
MODULE_PARM_DESC(callouts, "interrupts: callouts outstanding (default 8)");

static unsigned int point_ms = 1000;
module_param(point_ms, uint, 0444);
MODULE_PARM_DESC(point_ms, "interrupts: window per T, at least (default 1000); up to 3 times that for long T");

static unsigned int idle_ms = 2000;
module_param(idle_ms, uint, 0444);
MODULE_PARM_DESC(idle_ms, "idle: window (default 2000)");

static unsigned int counts[4] = { 10000, 100000 };
static unsigned int nr_counts = 2;
module_param_array_named(counts, counts, uint, &nr_counts, 0444);
MODULE_PARM_DESC(counts, "lateness: callouts outstanding, one run each");

static unsigned int min_ticks = 2;
module_param(min_ticks, uint, 0444);
MODULE_PARM_DESC(min_ticks, "lateness: shortest interval in ticks (default 2)");

static unsigned int max_ticks = 300;
module_param(max_ticks, uint, 0444);
MODULE_PARM_DESC(max_ticks, "lateness: longest interval in ticks (default 300)");

static unsigned int lateness_ms = 3000;
module_param(lateness_ms, uint, 0444);
MODULE_PARM_DESC(lateness_ms, "lateness: window per run (default 3000)");

static unsigned int max_samples = 4000000;
module_param(max_samples, uint, 0444);
MODULE_PARM_DESC(max_samples, "lateness: samples kept per run, at most");

/* What twheel says it runs, from debugfs "config". */
static struct dfs_config cfg;

/* One callout and what its function needs to know about its arming. */
struct live_callout {
	struct callout c;
	u64 armed_ns;		/* ktime_get_ns() just before setcallout() */
	unsigned long ticks;	/* the interval it was armed for */
};

/*
 * The run in progress; one at a time, from this module's init.  The
 * callout functions read it and update the counters and samples.
 */
static struct {
	struct live_callout *items;
	unsigned int n;
	unsigned long lo, hi;	/* interval range in ticks */
	bool recording;		/* functions record lateness samples */
	bool stopping;		/* functions no longer re-arm */
	u64 *samples;		/* lateness in ns, negative ones as 0 */
	unsigned long nr_alloc;
	atomic_long_t taken;	/* samples recorded, kept or not */
	atomic_long_t early;	/* of those, negative lateness */
} run;

/* Used in softirq context or with bottom halves off, on its own CPU. */
static DEFINE_PER_CPU(struct rnd_state, live_rnd);

/* The counters of twheel's "stats" that these measurements use. */
struct live_stats {
	u64 expired;
	u64 interrupts;
	u64 work_ns;
	unsigned long pending;
};

/*
 * The "total" row of twheel's "stats", over all CPUs.  Its columns:
 * started rearmed stopped expired interrupts work_ns ticks skipped
 * migrated early t_allocs t_failed pending peak.
 */
static int read_stats(struct live_stats *st)
{
	unsigned long long v[13];
	unsigned int k = 0;
	char *buf, *p;
	int ret, used;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = dfs_read(DFS_STATS, buf, PAGE_SIZE);
	p = ret ? NULL : strstr(buf, "\ntotal ");
	if (p) {
		p += strlen("\ntotal");
		while (k < ARRAY_SIZE(v) &&
		       sscanf(p, "%llu%n", &v[k], &used) == 1) {
			p += used;
			k++;
		}
	}
	if (!ret && k < ARRAY_SIZE(v))
		ret = -EPROTO;
	if (!ret) {
		st->expired = v[3];
		st->interrupts = v[4];
		st->work_ns = v[5];
		st->pending = v[12];
	}
	kfree(buf);
	return ret;
}

static void arm(struct live_callout *lc);

static void live_fire(void *arg)
{
	struct live_callout *lc = arg;
	s64 late = ktime_get_ns() - lc->armed_ns - lc->ticks * cfg.tick_ns;

	if (READ_ONCE(run.recording)) {
		unsigned long i = atomic_long_inc_return(&run.taken) - 1;

		if (late < 0)
			atomic_long_inc(&run.early);
		if (i < run.nr_alloc)
			run.samples[i] = max_t(s64, late, 0);
	}
	if (!READ_ONCE(run.stopping))
		arm(lc);
}

/* Arm @lc for a random interval; bottom halves off, for live_rnd. */
static void arm(struct live_callout *lc)
{
	u32 r = prandom_u32_state(this_cpu_ptr(&live_rnd));

	lc->ticks = run.lo + r % (run.hi - run.lo + 1);
	lc->armed_ns = ktime_get_ns();
	setcallout(&lc->c, live_fire, lc, lc->ticks);
}

/* On a worker bound to one CPU: arm every @step-th callout from @first. */
struct arm_share {
	unsigned int first, step;
};

static long arm_share(void *arg)
{
	const struct arm_share *s = arg;
	unsigned int i;

	for (i = s->first; i < run.n; i += s->step) {
		local_bh_disable();
		arm(&run.items[i]);
		local_bh_enable();
		cond_resched();
	}
	return 0;
}

/*
 * Arm @n callouts for intervals in [@lo, @hi] ticks: spread over the online
 * CPUs, or all on the first one if not @spread.
 */
static int start(unsigned int n, unsigned long lo, unsigned long hi,
		 bool spread)
{
	struct arm_share s = { 0, spread ? num_online_cpus() : 1 };
	unsigned int i, cpu;

	run.items = vcalloc(n, sizeof(*run.items));
	if (!run.items)
		return -ENOMEM;
	run.n = n;
	run.lo = lo;
	run.hi = hi;
	WRITE_ONCE(run.stopping, false);
	for (i = 0; i < n; i++)
		callout_init(&run.items[i].c);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		work_on_cpu(cpu, arm_share, &s);
		if (++s.first == s.step)
			break;
	}
	cpus_read_unlock();
	return 0;
}

/* Cancel every callout of the run, waiting for running functions. */
static void stop(void)
{
	unsigned int i;

	WRITE_ONCE(run.recording, false);
	WRITE_ONCE(run.stopping, true);
	for (i = 0; i < run.n; i++) {
		unsetcallout_sync(&run.items[i].c);
		if (!(i % 1024))
			cond_resched();
	}
	vfree(run.items);
	run.items = NULL;
	run.n = 0;
}

static unsigned int ticks_to_ms(u64 ticks)
{
	return DIV_ROUND_UP_ULL(ticks * cfg.tick_ns, NSEC_PER_MSEC);
}

static int test_interrupts(void)
{
	struct live_stats s0, s1;
	char per[24], paper[24];
	unsigned int i;
	int ret;

	for (i = 0; i < nr_periods; i++) {
		unsigned long t = max(periods[i], 2U);
		unsigned int ms;

		/* Long enough for about eight intervals, within reason. */
		ms = clamp(ticks_to_ms(8 * t), point_ms, 3 * point_ms);
		ret = start(callouts, t / 2, t + t / 2, false);
		if (ret)
			return ret;
		/* Let every callout be re-armed by its function once. */
		msleep(ticks_to_ms(t + t / 2));
		ret = read_stats(&s0);
		msleep(ms);
		if (!ret)
			ret = read_stats(&s1);
		stop();
		if (ret)
			return ret;
		bench_line(INTERRUPTS_LINE,
			   cfg.scheme, cfg.geometry, cfg.tick_ns, t, callouts,
			   s1.expired - s0.expired, s1.interrupts - s0.interrupts,
			   bench_frac(per, sizeof(per),
				      s1.interrupts - s0.interrupts,
				      s1.expired - s0.expired, 3),
			   cfg.scheme == 6 ?
			   bench_frac(paper, sizeof(paper), t, cfg.slots[0], 3) :
			   bench_frac(paper, sizeof(paper), cfg.levels, 1, 0));
	}
	return 0;
}

static int test_idle(void)
{
	struct live_stats s0, s1;
	u64 t0, ms;
	int ret;

	ret = read_stats(&s0);
	if (ret)
		return ret;
	t0 = ktime_get_ns();
	msleep(idle_ms);
	ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	ret = read_stats(&s1);
	if (ret)
		return ret;
	if (s0.pending || s1.pending)
		pr_info("twheel_live: %lu callouts of other clients pending: not idle\n",
			max(s0.pending, s1.pending));
	bench_line("idle scheme=%u | seconds=%llu.%03llu interrupts=%llu",
		   cfg.scheme, ms / 1000, ms % 1000,
		   s1.interrupts - s0.interrupts);
	return 0;
}

/*
 * Sort @n values in @a, least significant byte first, through @tmp, and
 * skipping bytes that are the same in every value.  O(n) and preemptible
 * between passes, where sort() would hold the CPU for seconds for millions
 * of samples under emulation.
 */
static void radix_sort(u64 *a, u64 *tmp, unsigned long n)
{
	static unsigned long count[256];	/* too big for the stack */
	u64 *src = a, *dst = tmp;
	unsigned int shift, d;
	unsigned long i, sum;

	for (shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		if (count[(src[0] >> shift) & 0xff] == n)
			continue;
		for (d = 0, sum = 0; d < 256; d++) {
			unsigned long c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		swap(src, dst);
		cond_resched();
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* The nearest-rank percentile, @per_mille of @n sorted samples, in us. */
static const char *pct_us(char *buf, size_t size, const u64 *sorted,
			  unsigned long n, unsigned int per_mille)
{
	unsigned long i = DIV_ROUND_UP_ULL((u64)n * per_mille, 1000);
	u64 ns = sorted[max(i, 1UL) - 1];

	snprintf(buf, size, "%llu.%llu", ns / NSEC_PER_USEC,
		 ns % NSEC_PER_USEC / 100);
	return buf;
}

static int lateness_run(unsigned int n)
{
	struct live_stats s0, s1;
	unsigned long kept, taken;
	char p[5][24];
	u64 *tmp, t0, ms;
	int ret;

	atomic_long_set(&run.taken, 0);
	atomic_long_set(&run.early, 0);
	ret = start(n, min_ticks, max_ticks, true);
	if (ret)
		return ret;
	/* Let the arming settle: every callout re-armed by its function. */
	msleep(ticks_to_ms(max_ticks));
	ret = read_stats(&s0);
	t0 = ktime_get_ns();
	WRITE_ONCE(run.recording, true);
	msleep(lateness_ms);
	WRITE_ONCE(run.recording, false);
	ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	if (!ret)
		ret = read_stats(&s1);
	stop();
	if (ret)
		return ret;

	taken = atomic_long_read(&run.taken);
	kept = min(taken, run.nr_alloc);
	if (taken > kept)
		pr_info("twheel_live: %lu samples, only the first %lu kept\n",
			taken, kept);
	if (!kept)
		return -ENODATA;
	tmp = vmalloc(array_size(kept, sizeof(*tmp)));
	if (!tmp)
		return -ENOMEM;
	radix_sort(run.samples, tmp, kept);
	vfree(tmp);

	bench_line(LATENESS_LINE,
		   cfg.scheme, n, cfg.tick_ns, min_ticks, max_ticks, ms,
		   s1.expired - s0.expired, s1.interrupts - s0.interrupts,
		   s1.work_ns - s0.work_ns, kept,
		   atomic_long_read(&run.early),
		   pct_us(p[0], sizeof(p[0]), run.samples, kept, 500),
		   pct_us(p[1], sizeof(p[1]), run.samples, kept, 900),
		   pct_us(p[2], sizeof(p[2]), run.samples, kept, 990),
		   pct_us(p[3], sizeof(p[3]), run.samples, kept, 999),
		   pct_us(p[4], sizeof(p[4]), run.samples, kept, 1000));
	return 0;
}

static int test_lateness(void)
{
	unsigned int i;
	int ret = 0;

	if (!min_ticks || max_ticks < min_ticks)
		return -EINVAL;
	run.nr_alloc = max_samples;
	run.samples = vmalloc(array_size(run.nr_alloc, sizeof(*run.samples)));
	if (!run.samples)
		return -ENOMEM;
	for (i = 0; i < nr_counts && !ret; i++)
		ret = lateness_run(counts[i]);
	vfree(run.samples);
	run.samples = NULL;
	return ret;
}

/* In this order, whatever the order of @test: idle after the others. */
static const struct {
	const char *name;
	int (*fn)(void);
} tests[] = {
	{ "interrupts", test_interrupts },
	{ "lateness", test_lateness },
	{ "idle", test_idle },
};

static int __init live_init(void)
{
	unsigned int i, cpu;
	int ret;

	ret = dfs_read_config(&cfg);
	if (ret) {
		pr_err("twheel_live: cannot read %s: %d\n", DFS_CONFIG, ret);
		return ret;
	}
	for_each_possible_cpu(cpu)
		prandom_seed_state(per_cpu_ptr(&live_rnd, cpu), 1997 + cpu);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!strstr(test, tests[i].name))
			continue;
		ret = tests[i].fn();
		if (ret) {
			pr_err("twheel_live: %s failed: %d\n", tests[i].name,
			       ret);
			return ret;
		}
	}
	return 0;
}
module_init(live_init);

static void __exit live_exit(void)
{
}
module_exit(live_exit);

MODULE_DESCRIPTION("twheel benchmark: interrupts, idle ticks and lateness of live callouts");
MODULE_LICENSE("GPL");
