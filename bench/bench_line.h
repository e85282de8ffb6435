/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_line.h - the one line format every twheel benchmark prints.
 *
 *   twheel-bench: TABLE KEY=VALUE ... | METRIC=VALUE ...
 *
 * One line per measurement, in the kernel log for the modules of bench/
 * and on stdout for the programs of user/.
 *
 * TABLE     the table the line belongs to, [a-z0-9_-]; bench/tables.ini
 *           says how to show it (title, text, which column is x, which
 *           metrics to plot, log axes).
 * KEY=VALUE before the bar: which measurement this is (facility, scheme,
 *           n, ...).  Lines with the same table and keys are the same
 *           measurement taken again: the reporter shows their median.
 * METRIC=VALUE after the bar: what was measured, a decimal number, or
 *           "-" for what this build cannot measure.  A metric's name ends
 *           in its unit (_ns, _us, _ms, _bytes) unless it counts events;
 *           a fraction is printed as a decimal (per_expiry=1.250).
 *
 * Neither keys nor values hold spaces.  scripts/bench-report.py turns the
 * lines into Markdown tables, CSV files and gnuplot plots, knowing nothing
 * of any one benchmark but what bench/tables.ini says.
 */
#ifndef _TWHEEL_BENCH_LINE_H
#define _TWHEEL_BENCH_LINE_H

#define BENCH_PREFIX	"twheel-bench: "

/* bench_line("fig9 n=%u | pair_ns=%llu", n, ns): one line, kernel log. */
#define bench_line(fmt, ...)	pr_info(BENCH_PREFIX fmt "\n", ##__VA_ARGS__)

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>

/*
 * @num / @den as a decimal with @places (at most 9) places, in @buf; "-"
 * for @den 0.
 */
static inline const char *bench_frac(char *buf, size_t size, u64 num,
				     u64 den, unsigned int places)
{
	u64 scale = 1, q;
	unsigned int i;

	if (!den)
		return "-";
	for (i = 0; i < places; i++)
		scale *= 10;
	q = div64_u64(num * scale, den);
	if (!places)
		snprintf(buf, size, "%llu", q);
	else
		snprintf(buf, size, "%llu.%0*llu", div64_u64(q, scale), places,
			 q % scale);
	return buf;
}
#endif

#endif /* _TWHEEL_BENCH_LINE_H */
