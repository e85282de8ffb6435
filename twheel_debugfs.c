// SPDX-License-Identifier: GPL-2.0
/*
 * The module's files under /sys/kernel/debug/twheel/:
 *
 *   stats     counters per CPU and in total; write 0 to reset them
 *   config    version, scheme, geometry, tick length and range
 *   latency   histograms of callout lateness and of per-interrupt cost
 *   wheel     occupancy of each level of each CPU's wheel
 *   callouts  the pending callouts, at most TWHEEL_LIST_MAX of them
 *
 * Each read copies what it shows under the locks it needs, then prints
 * after unlocking.  The files are plain seq_files behind debugfs's full
 * proxy; the tests and benchmarks read them as a user does, from a
 * process.
 */

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "twheel_internal.h"

/* The most callouts "callouts" lists, over all CPUs. */
#define TWHEEL_LIST_MAX		1000

static struct dentry *twheel_dir;

/*
 * The columns of "stats", in order: each names a u64 counter of &struct
 * twheel_cpu_stats, which the total row sums over the CPUs; a STAT_MAX
 * column is a maximum, and the total row shows the largest.
 */
#define STAT(name, field, width)					\
	{ name, offsetof(struct twheel_cpu_stats, field), width, false }
#define STAT_MAX(name, field, width)					\
	{ name, offsetof(struct twheel_cpu_stats, field), width, true }

static const struct stats_column {
	const char *name;
	size_t offset;
	int width;
	bool is_max;
} stats_columns[] = {
	STAT("started", started, 10),
	STAT("rearmed", rearmed, 10),
	STAT("stopped", stopped, 10),
	STAT("expired", expired, 10),
	STAT("interrupts", interrupts, 10),
	STAT("work_ns", work_ns, 12),
	STAT("ticks", wheel.ticks, 10),
	STAT("skipped", wheel.skipped, 12),
	STAT("migrated", wheel.migrated, 10),
	STAT("early", wheel.early_visits, 10),
	STAT("t_allocs", timeout_allocs, 10),
	STAT("t_failed", timeout_failures, 10),
	STAT("pending", outstanding, 10),
	STAT("peak", peak, 10),
	STAT_MAX("moved_max", wheel.moved_max, 10),
	STAT_MAX("work_max", work_max, 10),
};

/* The counter of column @i in @st. */
static u64 *stat(struct twheel_cpu_stats *st, unsigned int i)
{
	return (void *)st + stats_columns[i].offset;
}

static u64 stat_value(const struct twheel_cpu_stats *st, unsigned int i)
{
	return *(const u64 *)((const void *)st + stats_columns[i].offset);
}

/* Add one CPU's counters and histograms to a total. */
static void stats_add(struct twheel_cpu_stats *sum,
		      const struct twheel_cpu_stats *st)
{
	unsigned int i, b;

	for (i = 0; i < ARRAY_SIZE(stats_columns); i++) {
		u64 v = stat_value(st, i);

		if (stats_columns[i].is_max)
			*stat(sum, i) = max(*stat(sum, i), v);
		else
			*stat(sum, i) += v;
	}
	for (b = 0; b < TWHEEL_HIST_BUCKETS; b++) {
		sum->late_ticks[b] += st->late_ticks[b];
		sum->late_ns[b] += st->late_ns[b];
		sum->book_ns[b] += st->book_ns[b];
		sum->work_entries[b] += st->work_entries[b];
	}
}

/* One row of "stats": the column names when @st is NULL. */
static void stats_row(struct seq_file *m, const char *name,
		      const struct twheel_cpu_stats *st)
{
	unsigned int i;

	seq_printf(m, "%-6s", name);
	for (i = 0; i < ARRAY_SIZE(stats_columns); i++) {
		int width = stats_columns[i].width;

		if (st)
			seq_printf(m, " %*llu", width, stat_value(st, i));
		else
			seq_printf(m, " %*s", width, stats_columns[i].name);
	}
	seq_putc(m, '\n');
}

/*
 * Every CPU's counters, indexed by CPU, then their total at [nr_cpu_ids];
 * kfree() it.  NULL if out of memory.
 */
static struct twheel_cpu_stats *stats_read_all(void)
{
	struct twheel_cpu_stats *st;
	unsigned int cpu;

	st = kcalloc(nr_cpu_ids + 1, sizeof(*st), GFP_KERNEL);
	if (!st)
		return NULL;
	for_each_possible_cpu(cpu) {
		twheel_stats_read(cpu, &st[cpu]);
		stats_add(&st[nr_cpu_ids], &st[cpu]);
	}
	return st;
}

static int stats_show(struct seq_file *m, void *v)
{
	struct twheel_cpu_stats *st = stats_read_all();
	unsigned long longest;
	unsigned int cpu, bits;
	char name[16];

	if (!st)
		return -ENOMEM;
	stats_row(m, "cpu", NULL);
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "%u", cpu);
		stats_row(m, name, &st[cpu]);
	}
	stats_row(m, "total", &st[nr_cpu_ids]);
	kfree(st);
	twheel_hash_read(&bits, &longest);
	seq_printf(m, "timeout hash: %lu buckets, longest chain %lu\n",
		   1UL << bits, longest);
	seq_puts(m, "(total peak is the sum of the CPUs' peaks)\n");
	return 0;
}

/* The longest write to "stats" taken: a number, a newline. */
#define STATS_WRITE_MAX		15

/* Writing 0 resets the counters; nothing else is taken. */
static ssize_t stats_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	unsigned int v;
	int ret;

	/* kstrtouint_from_user() would parse a longer write cut short. */
	if (len > STATS_WRITE_MAX)
		return -EINVAL;
	ret = kstrtouint_from_user(ubuf, len, 0, &v);
	if (ret)
		return ret;
	if (v)
		return -EINVAL;
	twheel_stats_reset();
	return len;
}

static int stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, stats_show, inode->i_private);
}

static const struct file_operations stats_fops = {
	.owner = THIS_MODULE,
	.open = stats_open,
	.read = seq_read,
	.write = stats_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * @span ticks of @tick ns in units of @unit ns, rounded down, in *@v;
 * false if that does not fit a u64.  mul_u64_u64_div_u64() may not be
 * asked for a quotient past 64 bits: x86-64's divq traps on it, a divide
 * error.  The quotient fits while the product's high 64 bits are below
 * @unit.
 */
static bool span_in(u64 span, u64 tick, u64 unit, u64 *v)
{
	if (mul_u64_u64_shr(span, tick, 64) >= unit)
		return false;
	*v = mul_u64_u64_div_u64(span, tick, unit);
	return true;
}

/**
 * twheel_span_format() - a hierarchy's span, in ticks and in time
 * @buf: where to, NUL-terminated.
 * @size: the size of @buf, %TWHEEL_SPAN_TEXT for the whole text.
 * @span: the span in ticks (twheel_span()).
 * @tick: the tick length in ns.
 *
 * The time is in ms, or in s where the ms would not fit a u64 (2^56
 * ticks of 1 s, a span twheel takes, are 7.2 * 10^19 ms), rounded down.
 * No span twheel takes, at most %TWHEEL_MAX_SPAN ticks of at most
 * %TWHEEL_MAX_TICK_NS, passes %U64_MAX s; one that does is said to be
 * more than that.
 *
 * Context: any.
 * Return: the length of the text, as scnprintf().
 */
int twheel_span_format(char *buf, size_t size, u64 span, u64 tick)
{
	u64 v;

	if (span_in(span, tick, NSEC_PER_MSEC, &v))
		return scnprintf(buf, size, "%llu ticks (%llu ms)", span, v);
	if (span_in(span, tick, NSEC_PER_SEC, &v))
		return scnprintf(buf, size, "%llu ticks (%llu s)", span, v);
	return scnprintf(buf, size, "%llu ticks (more than %llu s)", span,
			 U64_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_span_format);

static int config_show(struct seq_file *m, void *v)
{
	const struct twheel_geometry *geo = twheel_geometry();
	u64 tick = twheel_tick_ns();
	char span[TWHEEL_SPAN_TEXT];
	unsigned int n;

	seq_puts(m, "version: " TWHEEL_VERSION "\n");
	seq_printf(m, "scheme: %d\n", geo->scheme);
	seq_puts(m, "geometry:");
	for (n = 0; n < geo->levels; n++)
		seq_printf(m, " %u", geo->slots[n]);
	seq_printf(m, "\ntick_ns: %llu\n", tick);
	twheel_span_format(span, sizeof(span), twheel_span(geo), tick);
	seq_printf(m, "span: %s; longer intervals wait at the top level\n",
		   span);
	seq_printf(m, "max_ticks: %lu\n", CALLOUT_MAX_TICKS);
	seq_printf(m, "bytes: callout %zu, timeout entry %zu\n",
		   sizeof(struct callout), twheel_timeout_entry_size());
	seq_printf(m, "now: tick %llu\n", twheel_now());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(config);

static void hist_show(struct seq_file *m, const char *unit, const u64 *hist)
{
	unsigned int b;

	for (b = 0; b < TWHEEL_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		if (b == 0)
			seq_printf(m, "  %20s %s: %llu\n", "0", unit, hist[b]);
		else if (b == TWHEEL_HIST_BUCKETS - 1)
			seq_printf(m, "  %9llu..          %s: %llu\n",
				   1ULL << (b - 1), unit, hist[b]);
		else
			seq_printf(m, "  %9llu..%-9llu %s: %llu\n",
				   1ULL << (b - 1), (1ULL << b) - 1, unit,
				   hist[b]);
	}
}

static int latency_show(struct seq_file *m, void *v)
{
	struct twheel_cpu_stats *st = stats_read_all(), *sum;

	if (!st)
		return -ENOMEM;
	sum = &st[nr_cpu_ids];
	seq_puts(m, "lateness: due tick to the tick its processing began in\n");
	hist_show(m, "ticks", sum->late_ticks);
	seq_puts(m, "lateness: due time to the start of its tick's processing\n");
	hist_show(m, "ns", sum->late_ns);
	seq_puts(m, "per-interrupt wheel work, callout functions excluded\n");
	hist_show(m, "ns", sum->book_ns);
	seq_puts(m, "per-interrupt wheel work: entries run, moved or looked at\n");
	hist_show(m, "entries", sum->work_entries);
	kfree(st);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

static int wheel_show(struct seq_file *m, void *v)
{
	const struct twheel_geometry *geo = twheel_geometry();
	struct twheel_level_info li;
	unsigned int cpu, n;

	seq_printf(m, "%-4s %-6s %8s %10s %10s %10s\n", "cpu", "level",
		   "slots", "busy", "entries", "longest");
	for_each_possible_cpu(cpu) {
		for (n = 0; n < geo->levels; n++) {
			twheel_level_read(cpu, n, &li);
			seq_printf(m, "%-4u %-6u %8u %10u %10lu %10lu\n", cpu,
				   n, li.slots, li.busy, li.entries,
				   li.longest);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wheel);

static int callouts_show(struct seq_file *m, void *v)
{
	struct twheel_callout_info *info;
	unsigned long shown = 0, total = 0;
	unsigned int cpu;
	u64 now = twheel_now();

	info = kvmalloc_array(TWHEEL_LIST_MAX, sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	seq_printf(m, "%-4s %-16s %-40s %s\n", "cpu", "ticks_left", "function",
		   "arg");
	for_each_possible_cpu(cpu) {
		unsigned long room = TWHEEL_LIST_MAX - shown, copied, i;

		total += twheel_callouts_read(cpu, info, room, &copied);
		for (i = 0; i < copied; i++)
			seq_printf(m, "%-4u %-16lld %-40ps %p\n", cpu,
				   (s64)(info[i].expires - now), info[i].func,
				   info[i].arg);
		shown += copied;
	}
	if (total > shown)
		seq_printf(m, "... and %lu more (past the 1000 shown, or due and about to run)\n",
			   total - shown);
	kvfree(info);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(callouts);

void twheel_debugfs_init(void)
{
	twheel_dir = debugfs_create_dir("twheel", NULL);
	debugfs_create_file("stats", 0600, twheel_dir, NULL, &stats_fops);
	debugfs_create_file("config", 0400, twheel_dir, NULL, &config_fops);
	debugfs_create_file("latency", 0400, twheel_dir, NULL, &latency_fops);
	debugfs_create_file("wheel", 0400, twheel_dir, NULL, &wheel_fops);
	debugfs_create_file("callouts", 0400, twheel_dir, NULL,
			    &callouts_fops);
}

void twheel_debugfs_exit(void)
{
	debugfs_remove_recursive(twheel_dir);
	twheel_dir = NULL;
}
