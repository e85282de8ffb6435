// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of /sys/kernel/debug/twheel/: what the files say after a
 * known workload, that writing 0 to stats resets it, and that every file
 * can be read while callouts are armed and cancelled on the other CPU.
 *
 * The files are read and written as a user does, by a shell
 * (bench/twheel_dfs.h), so debugfs must be mounted at /sys/kernel/debug
 * and /tmp writable (the test guest's init sees to both).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "wait.h"
#include "../bench/twheel_dfs.h"

#define DIR		"/sys/kernel/debug/twheel/"
#define FILE_MAX	(256 * 1024)

static char *read_file(struct kunit *test, const char *name)
{
	char *buf = kunit_kzalloc(test, FILE_MAX + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ_MSG(test, dfs_read(name, buf, FILE_MAX + 1), 0,
			    "reading %s", name);
	return buf;
}

/* The "total" row of stats. */
struct totals {
	unsigned long long started, rearmed, stopped, expired, interrupts;
	unsigned long long work_ns, ticks, skipped, migrated, early, t_allocs;
	unsigned long long t_failed, pending, peak;
};

static void read_totals(struct kunit *test, struct totals *t)
{
	char *buf = read_file(test, DIR "stats");
	char *row = strstr(buf, "\ntotal ");
	int n;

	KUNIT_ASSERT_NOT_NULL_MSG(test, row, "no total row in:\n%s", buf);
	n = sscanf(row,
		   " total %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &t->started, &t->rearmed, &t->stopped, &t->expired,
		   &t->interrupts, &t->work_ns, &t->ticks, &t->skipped,
		   &t->migrated, &t->early, &t->t_allocs, &t->t_failed,
		   &t->pending, &t->peak);
	KUNIT_ASSERT_EQ_MSG(test, n, 14, "total row: %.200s", row);
}

struct batch {
	struct callout c[50];
	atomic_t fired;
};

static bool batch_done(void *arg)
{
	struct batch *b = arg;

	return atomic_read(&b->fired) == ARRAY_SIZE(b->c);
}

/*
 * After a reset, 50 callouts that run and 10 that are cancelled (5 of
 * them by timeout() and untimeout()) show in the total row as such, and
 * in the latency histogram as 50 expiries.
 */
static void stats_counts_known_workload(struct kunit *test)
{
	struct batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	unsigned long long sum = 0, v;
	struct totals t;
	char *lat, *p;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, dfs_write(DIR "stats", "0"), 0);
	for (i = 0; i < ARRAY_SIZE(b->c); i++) {
		callout_init(&b->c[i]);
		KUNIT_ASSERT_EQ(test, setcallout(&b->c[i], count_fn, &b->fired,
						 i % 5), 0);
	}
	KUNIT_ASSERT_TRUE(test, poll_until(batch_done(b)));
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, setcallout(&b->c[i], count_fn, &b->fired,
						 100000), 0);
		KUNIT_ASSERT_EQ(test, setcallout(&b->c[i], count_fn, &b->fired,
						 100000), 1);
		KUNIT_ASSERT_EQ(test, unsetcallout(&b->c[i]), 1);
		KUNIT_ASSERT_EQ(test, timeout(count_fn, &b->c[i], 100000), 0);
		KUNIT_ASSERT_EQ(test, untimeout(count_fn, &b->c[i]), 1);
	}

	read_totals(test, &t);
	KUNIT_EXPECT_EQ(test, t.started, 50ULL + 15);
	KUNIT_EXPECT_EQ(test, t.rearmed, 5ULL);
	KUNIT_EXPECT_EQ(test, t.stopped, 10ULL);
	KUNIT_EXPECT_EQ(test, t.expired, 50ULL);
	KUNIT_EXPECT_EQ(test, t.t_allocs, 5ULL);
	KUNIT_EXPECT_EQ(test, t.t_failed, 0ULL);
	KUNIT_EXPECT_EQ(test, t.pending, 0ULL);
	KUNIT_EXPECT_GE(test, t.peak, 1ULL);
	KUNIT_EXPECT_GE(test, t.interrupts, 1ULL);
	KUNIT_EXPECT_GE(test, t.ticks, t.interrupts);
	KUNIT_EXPECT_GT(test, t.work_ns, 0ULL);

	/* The lateness-in-ticks histogram counts each expiry once. */
	lat = read_file(test, DIR "latency");
	p = strstr(lat, "ticks");
	KUNIT_ASSERT_NOT_NULL(test, p);
	p = lat;
	while ((p = strstr(p, " ticks: "))) {
		p += strlen(" ticks: ");
		KUNIT_ASSERT_EQ(test, kstrtoull(strsep(&p, "\n"), 10, &v), 0);
		sum += v;
		if (!p)
			break;
	}
	KUNIT_EXPECT_EQ(test, sum, 50ULL);
}

/*
 * Writing 0 zeroes every counter; anything else is refused, a 0 too long
 * for the file (16 characters with echo's newline) too, and resets
 * nothing.
 */
static void stats_write_zero_resets(struct kunit *test)
{
	struct callout *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	struct totals t;
	int tries;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	callout_init(c);
	KUNIT_ASSERT_EQ(test, setcallout(c, count_fn, fired, 100000), 0);
	read_totals(test, &t);
	KUNIT_EXPECT_GE(test, t.started, 1ULL);
	KUNIT_EXPECT_EQ(test, t.pending, 1ULL);

	/* Refused, and nothing reset: not 1, nor 0 written too long. */
	KUNIT_EXPECT_EQ(test, dfs_write(DIR "stats", "1"), -EIO);
	KUNIT_EXPECT_EQ(test, dfs_write(DIR "stats", "0000000000000000"),
			-EIO);
	read_totals(test, &t);
	KUNIT_EXPECT_GE(test, t.started, 1ULL);
	/*
	 * The pending callout's wheel still takes the interrupts of its
	 * visits (a cascade in Scheme 7), and one may land between the
	 * reset and the read.  Such a window is rare; ten in a row would
	 * mean the reset did not reset.
	 */
	for (tries = 0; tries < 10; tries++) {
		KUNIT_EXPECT_EQ(test, dfs_write(DIR "stats", "0"), 0);
		read_totals(test, &t);
		if (!t.interrupts && !t.work_ns && !t.ticks)
			break;
	}
	KUNIT_EXPECT_EQ(test, t.started, 0ULL);
	KUNIT_EXPECT_EQ(test, t.stopped, 0ULL);
	KUNIT_EXPECT_EQ(test, t.expired, 0ULL);
	KUNIT_EXPECT_EQ(test, t.interrupts, 0ULL);
	KUNIT_EXPECT_EQ(test, t.work_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, t.ticks, 0ULL);
	/* Pending callouts stay; the peak starts again from them. */
	KUNIT_EXPECT_EQ(test, t.pending, 1ULL);
	KUNIT_EXPECT_EQ(test, t.peak, 1ULL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(c), 1);
}

/* config names the tick length the API reports, and twheel's version. */
static void config_matches_api(struct kunit *test)
{
	char *buf = read_file(test, DIR "config");
	char want[48];

	snprintf(want, sizeof(want), "tick_ns: %llu\n", twheel_tick_ns());
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, want), "%s", buf);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(buf, "version: "
						   TWHEEL_VERSION "\n"),
			      "%s", buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "scheme: "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "geometry: "));
}

/* A span and a tick length, and what config says of them. */
struct span_case {
	u64 span;
	u64 tick;
	const char *want;
	const char *desc;
};

static const struct span_case span_cases[] = {
	{ 1ULL << 24, 1000000, "16777216 ticks (16777216 ms)",
	  "the default: 2^24 ticks of 1 ms" },
	{ 18446744073709551ULL, 1000000000,
	  "18446744073709551 ticks (18446744073709551000 ms)",
	  "the most ticks of 1 s whose ms fit a u64" },
	{ 18446744073709552ULL, 1000000000,
	  "18446744073709552 ticks (18446744073709552 s)",
	  "one tick of 1 s more: in s" },
	{ 1ULL << 56, 1000000000,
	  "72057594037927936 ticks (72057594037927936 s)",
	  "7 levels of 256 slots, ticks of 1 s: 7.2 * 10^19 ms" },
	{ 1ULL << 62, 1000000000,
	  "4611686018427387904 ticks (4611686018427387904 s)",
	  "the widest span twheel takes, ticks of 1 s" },
	{ 1ULL << 62, 999999999,
	  "4611686018427387904 ticks (4611686013815701885 s)",
	  "the widest span, ticks just short of 1 s: rounded down" },
	{ U64_MAX, U64_MAX,
	  "18446744073709551615 ticks (more than 18446744073709551615 s)",
	  "past any unit: said so" },
};

KUNIT_ARRAY_PARAM_DESC(span, span_cases, desc);

/*
 * twheel_span_format() says how long a span is in ms, or in s where the
 * ms would not fit a u64, rounded down; past that, that it is longer
 * than the most seconds a u64 holds.  The ms of 2^56 ticks of 1 s, a
 * geometry twheel takes (7 levels of 256 slots), pass 64 bits: x86-64's
 * divq, in mul_u64_u64_div_u64(), takes that for a divide error.
 */
static void span_format_picks_unit_that_fits(struct kunit *test)
{
	const struct span_case *p = test->param_value;
	char buf[TWHEEL_SPAN_TEXT];
	int len;

	len = twheel_span_format(buf, sizeof(buf), p->span, p->tick);
	KUNIT_EXPECT_STREQ(test, buf, p->want);
	KUNIT_EXPECT_EQ(test, len, (int)strlen(p->want));
}

static void marker_fn(void *arg)
{
}

static unsigned int count_str(const char *buf, const char *s)
{
	unsigned int n = 0;

	while ((buf = strstr(buf, s))) {
		n++;
		buf += strlen(s);
	}
	return n;
}

/*
 * callouts lists pending callouts by function, at most 1000, and says how
 * many more there are; wheel counts every pending entry once.
 */
static void callouts_lists_pending_bounded(struct kunit *test)
{
	const unsigned int n = 1500;
	struct callout *c = vcalloc(n, sizeof(*c));
	unsigned long long entries = 0, v;
	char *buf, *p, *line;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < n; i++) {
		callout_init(&c[i]);
		setcallout(&c[i], marker_fn, &c[i], 100000 + i);
	}
	buf = read_file(test, DIR "callouts");
	KUNIT_EXPECT_EQ(test, count_str(buf, "marker_fn"), 1000U);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "... and 500 more"),
				  "%.300s", buf);

	/* Skip the header; each row is cpu, level, slots, busy, entries. */
	buf = read_file(test, DIR "wheel");
	p = strchr(buf, '\n');
	p = p ? p + 1 : NULL;
	while ((line = strsep(&p, "\n")) && *line) {
		unsigned int cpu, level, slots, busy;
		unsigned long long longest;

		if (sscanf(line, "%u %u %u %u %llu %llu", &cpu, &level, &slots,
			   &busy, &v, &longest) == 6)
			entries += v;
	}
	KUNIT_EXPECT_EQ(test, entries, (unsigned long long)n);

	for (i = 0; i < n; i++)
		unsetcallout_sync(&c[i]);
	vfree(c);
}

static void spread_fn(void *arg)
{
}

/*
 * The callouts listing (twheel_callouts_read()) holds a CPU's lock for
 * %TWHEEL_BATCH entries or lists at most, as the tick does, however many
 * lists the wheel has and however the callouts are spread over them:
 * with 600 callouts pending on this CPU, 167 ticks apart from 20000
 * ticks ahead on, in lists of their own at every level that holds them,
 * no hold looks at more (walk_max, reset by writing 0 to stats), and the
 * listing still names each of them once.
 */
static void callouts_read_holds_lock_per_batch(struct kunit *test)
{
	const unsigned int n = 600;
	struct callout *c = kunit_kcalloc(test, n, sizeof(*c), GFP_KERNEL);
	struct twheel_cpu_stats *st = kunit_kzalloc(test, sizeof(*st),
						    GFP_KERNEL);
	unsigned int i, cpu;
	char *buf;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, st);
	for (i = 0; i < n; i++)
		callout_init(&c[i]);
	/* All on this CPU, none due before the listing is read. */
	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, setcallout(&c[i], spread_fn, &c[i],
						 20000 + i * 167), 0);
	migrate_enable();

	KUNIT_ASSERT_EQ(test, dfs_write(DIR "stats", "0"), 0);
	buf = read_file(test, DIR "callouts");
	twheel_stats_read(cpu, st);
	KUNIT_EXPECT_EQ_MSG(test, count_str(buf, "spread_fn"), n, "%.300s",
			    buf);
	KUNIT_EXPECT_GT(test, st->walk_max, 0ULL);
	KUNIT_EXPECT_LE_MSG(test, st->walk_max, (u64)TWHEEL_BATCH,
			    "one hold of CPU %u's lock looked at %llu entries and lists",
			    cpu, st->walk_max);
	for (i = 0; i < n; i++)
		unsetcallout_sync(&c[i]);
}

/* The sweep of the next case, made again and again until told to stop. */
struct sweeper {
	struct module *mod;
	atomic_t stop;
	atomic_t done;
	unsigned long rounds;
	unsigned long cancelled;
};

static int sweeper_thread(void *arg)
{
	struct sweeper *sw = arg;

	while (!atomic_read(&sw->stop)) {
		sw->cancelled += twheel_forget_module(sw->mod);
		sw->rounds++;
		cond_resched();
	}
	atomic_set(&sw->done, 1);
	return 0;
}

static bool sweeper_done(void *arg)
{
	return atomic_read(&((struct sweeper *)arg)->done);
}

/*
 * The listing's walks of each CPU's wheel meet the departing-module sweep
 * (twheel_forget_module(), of a module that owns nothing), which another
 * CPU makes again and again, for five reads and a second at least: each
 * walk passes the other's mark, and the one holding a wheel still does
 * not let the other's hold go.  Every read names each of 600 callouts
 * pending throughout once, and the sweeps cancel none of them.
 */
static void callouts_read_beside_module_sweep(struct kunit *test)
{
	const unsigned int n = 600;
	struct callout *c = kunit_kcalloc(test, n, sizeof(*c), GFP_KERNEL);
	struct sweeper *sw = kunit_kzalloc(test, sizeof(*sw), GFP_KERNEL);
	char *buf = kunit_kzalloc(test, FILE_MAX + 1, GFP_KERNEL);
	unsigned int i, reads = 0, whole = 0, failed = 0;
	struct task_struct *k;
	ktime_t end;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, sw);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	sw->mod = kunit_kzalloc(test, sizeof(*sw->mod), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sw->mod);
	for (i = 0; i < n; i++) {
		callout_init(&c[i]);
		KUNIT_EXPECT_EQ(test, setcallout(&c[i], spread_fn, &c[i],
						 20000 + i * 167), 0);
	}
	k = kthread_run_on_cpu(sweeper_thread, sw,
			       cpumask_last(cpu_online_mask),
			       "twheel_sweeper/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	/* No assertion until the sweeper stops: it uses what the case owns. */
	end = ktime_add_ms(ktime_get(), 1000);
	while (reads < 5 || ktime_before(ktime_get(), end)) {
		if (dfs_read(DIR "callouts", buf, FILE_MAX + 1))
			failed++;
		else
			whole += count_str(buf, "spread_fn") == n;
		reads++;
	}
	atomic_set(&sw->stop, 1);
	KUNIT_ASSERT_TRUE(test, poll_until(sweeper_done(sw)));
	kunit_info(test, "%u reads beside %lu sweeps\n", reads, sw->rounds);
	KUNIT_EXPECT_EQ(test, failed, 0U);
	KUNIT_EXPECT_EQ(test, whole, reads);
	KUNIT_EXPECT_GT(test, sw->rounds, 0UL);
	KUNIT_EXPECT_EQ(test, sw->cancelled, 0UL);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, unsetcallout_sync(&c[i]), 1);
}

struct storm {
	atomic_t stop;
	atomic_t done;
	unsigned long rounds;
	struct callout c[64];
};

static int storm_thread(void *arg)
{
	struct storm *s = arg;
	unsigned int i = 0;

	while (!atomic_read(&s->stop)) {
		struct callout *c = &s->c[i++ % ARRAY_SIZE(s->c)];

		setcallout(c, marker_fn, c, i % 7);
		if (i % 3 == 0)
			unsetcallout(c);
		if (i % 5 == 0 && !timeout(marker_fn, s, i % 11))
			untimeout(marker_fn, s);
		s->rounds++;
		if (i % 256 == 0)
			cond_resched();
	}
	for (i = 0; i < ARRAY_SIZE(s->c); i++)
		unsetcallout_sync(&s->c[i]);
	while (untimeout(marker_fn, s))
		;
	atomic_set(&s->done, 1);
	return 0;
}

static bool storm_done(void *arg)
{
	return atomic_read(&((struct storm *)arg)->done);
}

/* Stop a storm left running by a case that failed half-way. */
static void debugfs_exit(struct kunit *test)
{
	struct storm *s = test->priv;

	if (s) {
		atomic_set(&s->stop, 1);
		poll_until(storm_done(s));
	}
}

/* Every file reads whole while the other CPU arms and cancels at speed. */
static void files_read_under_load(struct kunit *test)
{
	static const char * const files[] = {
		DIR "stats", DIR "config", DIR "latency", DIR "wheel",
		DIR "callouts",
	};
	struct storm *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	char *buf = kunit_kzalloc(test, FILE_MAX + 1, GFP_KERNEL);
	int cpu = cpumask_last(cpu_online_mask);
	ktime_t end = ktime_add_ms(ktime_get(), 1000);
	struct task_struct *k;
	unsigned int i, reads = 0, failed = 0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(s->c); i++)
		callout_init(&s->c[i]);
	k = kthread_run_on_cpu(storm_thread, s, cpu, "twheel_storm/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	test->priv = s;
	while (ktime_before(ktime_get(), end)) {
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			failed += dfs_read(files[i], buf, FILE_MAX + 1) || !buf[0];
			reads++;
		}
	}
	atomic_set(&s->stop, 1);
	KUNIT_ASSERT_TRUE(test, poll_until(storm_done(s)));
	test->priv = NULL;
	kunit_info(test, "%u reads against %lu storm rounds\n", reads,
		   s->rounds);
	KUNIT_EXPECT_EQ(test, failed, 0U);
	KUNIT_EXPECT_GT(test, reads, 0U);
	KUNIT_EXPECT_GT(test, s->rounds, 0UL);
}

static struct kunit_case twheel_debugfs_cases[] = {
	KUNIT_CASE(stats_counts_known_workload),
	KUNIT_CASE(stats_write_zero_resets),
	KUNIT_CASE(config_matches_api),
	KUNIT_CASE_PARAM(span_format_picks_unit_that_fits, span_gen_params),
	KUNIT_CASE(callouts_lists_pending_bounded),
	KUNIT_CASE(callouts_read_holds_lock_per_batch),
	KUNIT_CASE_SLOW(callouts_read_beside_module_sweep),
	KUNIT_CASE_SLOW(files_read_under_load),
	{}
};

static struct kunit_suite twheel_debugfs_suite = {
	.name = "twheel_debugfs",
	.exit = debugfs_exit,
	.test_cases = twheel_debugfs_cases,
};

kunit_test_suite(twheel_debugfs_suite);

MODULE_DESCRIPTION("KUnit tests of twheel's debugfs files");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
