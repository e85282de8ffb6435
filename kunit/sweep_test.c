// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_sweep: how long twheel_forget_module(), the sweep of
 * a departing module's callouts, keeps interrupts off, with 1.25 x 10^5 far
 * callouts pending on one CPU.  It is kept apart from suite
 * twheel_safety (kunit/safety_test.c), which checks what the sweep
 * cancels, because it takes some 40 s in a TCG guest and is the same code
 * on every kernel: make check runs it on one (scripts/lib.sh, run_suites
 * --lean).
 *
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"
#include "watch.h"

/*
 * What is pending, in numbers, when a module twheel_forget_module()s; and
 * the callouts whose arming, timed, gives the bound's unit.
 */
#define NFORGET		125000
#define NCALIBRATE	4000
#define FORGET_TRIES	3

struct forget_load {
	bool timeouts;
	const char *desc;
};

static const struct forget_load forget_loads[] = {
	{ false, "1.25 x 10^5 handles" },
	{ true, "1.25 x 10^5 timeout() duplicates of one key" },
};

KUNIT_ARRAY_PARAM_DESC(forget_load, forget_loads, desc);

/* The bound, with what the watch on another CPU has seen so far. */
static u64 forget_bound(u64 batch_ns, s64 quiet, const struct watch *control)
{
	return watch_bound(batch_ns, max(quiet, READ_ONCE(control->worst_ns)));
}

/* Arm NFORGET far callouts of this module; how many were armed. */
static int forget_arm(struct kunit *test, const struct forget_load *load,
		      struct callout *c, atomic_t *fired)
{
	int i;

	for (i = 0; i < NFORGET; i++) {
		int ret = load->timeouts ?
			  timeout(count_fn, fired, FAR_TICKS) :
			  setcallout(&c[i], count_fn, fired, FAR_TICKS);

		if (ret) {
			KUNIT_FAIL(test, "arming %d returned %d", i, ret);
			break;
		}
	}
	return i;
}

/* The longest delay @wd sees over twheel_forget_module(@mod); sets *@n. */
static s64 forget_watched(struct watch *wd, struct module *mod,
			  unsigned long *n)
{
	watch_start(wd);
	*n = twheel_forget_module(mod);
	return watch_stop(wd);
}

/*
 * twheel_forget_module() of a module that owns none of 1.25 x 10^5 far
 * callouts on this CPU, as when any unrelated module unloads or fails to
 * load (the module notifier does nothing else): with a watch on this CPU
 * measuring the longest stretch of interrupts off, the sweep stays within
 * the bound of the burst case (watch_bound(), its unit timed on
 * setcallout()), since it walks the wheel WATCH_BATCH entries at a time
 * whatever lists they are on.  The module stands in as a zeroed &struct
 * module, which holds no address.  Then the same call for this module,
 * whose function they all have, cancels every one (timeout()'s entries
 * freed), within the same bound.  A sweep that held the lock for a whole
 * list, or a whole key's duplicates, took twice the bound or more.  A host
 * that runs more vCPUs than it has cores can deschedule the guest's for
 * longer than the bound, in a sweep as anywhere: a sweep past the bound is
 * made again, up to %FORGET_TRIES times in all (the callouts armed again
 * for this module's), and the shortest worst delay counts.
 */
static void forget_module_bounds_irqs_off(struct kunit *test)
{
	const struct forget_load *load = test->param_value;
	struct module *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	atomic_t *fired = kunit_kzalloc(test, sizeof(*fired), GFP_KERNEL);
	unsigned int here = raw_smp_processor_id(), there;
	struct watch *wd = kunit_kcalloc(test, 2, sizeof(*wd), GFP_KERNEL);
	struct callout *c = NULL, *cal;
	s64 quiet, worst[2], control;
	u64 t0, armed, batch_ns, bound;
	unsigned long n, gone, armed_n;
	int i, try, tries[2];

	/*
	 * Far callouts armed within seconds share a list or two of Scheme
	 * 7's top level.  Scheme 6 spreads them over its 4096 slots, so that
	 * even the old walk, 256 lists a hold, held a sixteenth of them, well
	 * within the bound: the case would show little there that
	 * twheel_wheel's cursor cases do not, at two minutes of arming.
	 */
	if (twheel_geometry()->scheme != TWHEEL_SCHEME7)
		kunit_skip(test, "far callouts share a list only in Scheme 7");
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, fired);
	KUNIT_ASSERT_NOT_NULL(test, wd);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current,
						   cpumask_of(here)), 0);
	there = cpumask_any_but(cpu_online_mask, here);
	watch_init(&wd[0]);
	watch_init(&wd[1]);
	cal = kunit_kcalloc(test, NCALIBRATE, sizeof(*cal), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cal);
	for (i = 0; i < NCALIBRATE; i++)
		callout_init(&cal[i]);
	t0 = ktime_get_ns();
	for (i = 0; i < NCALIBRATE; i++)
		setcallout(&cal[i], count_fn, fired, FAR_TICKS);
	batch_ns = div_u64((ktime_get_ns() - t0) * WATCH_BATCH, NCALIBRATE);
	for (i = 0; i < NCALIBRATE; i++)
		KUNIT_ASSERT_EQ(test, unsetcallout(&cal[i]), 1);
	if (!load->timeouts) {
		c = vcalloc(NFORGET, sizeof(*c));
		KUNIT_ASSERT_NOT_NULL(test, c);
		for (i = 0; i < NFORGET; i++)
			callout_init(&c[i]);
	}

	/* The watch alone first: what this machine does with nothing due. */
	watch_start(&wd[0]);
	spin_ns(100 * NSEC_PER_MSEC);
	quiet = watch_stop(&wd[0]);

	t0 = ktime_get_ns();
	armed_n = forget_arm(test, load, c, fired);
	armed = ktime_get_ns() - t0;

	if (there < nr_cpu_ids)
		smp_call_function_single(there, watch_start_here, &wd[1], 1);
	t0 = ktime_get_ns();
	worst[0] = forget_watched(&wd[0], other, &n);
	t0 = ktime_get_ns() - t0;
	for (try = 1; try < FORGET_TRIES && !n &&
	     worst[0] > forget_bound(batch_ns, quiet, &wd[1]); try++)
		worst[0] = min(worst[0], forget_watched(&wd[0], other, &n));
	tries[0] = try;

	/* Now this module's: every one of them goes. */
	worst[1] = forget_watched(&wd[0], THIS_MODULE, &gone);
	KUNIT_EXPECT_EQ(test, gone, armed_n);
	for (try = 1; try < FORGET_TRIES && gone == armed_n &&
	     worst[1] > forget_bound(batch_ns, quiet, &wd[1]); try++) {
		if (forget_arm(test, load, c, fired) != armed_n) {
			/* Cancel what was armed before the memory goes. */
			twheel_forget_module(THIS_MODULE);
			break;
		}
		worst[1] = min(worst[1],
			       forget_watched(&wd[0], THIS_MODULE, &gone));
		KUNIT_EXPECT_EQ(test, gone, armed_n);
	}
	tries[1] = try;
	control = watch_stop(&wd[1]);
	vfree(c);

	bound = watch_bound(batch_ns, max(quiet, control));
	kunit_info(test, "armed %lu in %llu ms (%d handles: %llu us); the sweep for another module took %llu ms; longest delay of the watch: %lld us alone, %lld us on CPU %u, %lld us and %lld us in the two sweeps (best of %d and %d); bound %llu us\n",
		   armed_n, armed / NSEC_PER_MSEC, WATCH_BATCH,
		   batch_ns / 1000, t0 / NSEC_PER_MSEC, quiet / 1000,
		   control / 1000, there, worst[0] / 1000, worst[1] / 1000,
		   tries[0], tries[1], bound / 1000);
	KUNIT_EXPECT_EQ(test, n, 0);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, fired), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(fired), 0);
	KUNIT_EXPECT_LE_MSG(test, worst[0], (s64)bound,
			    "interrupts held off %lld ns by another module's sweep, bound %llu ns",
			    worst[0], bound);
	KUNIT_EXPECT_LE_MSG(test, worst[1], (s64)bound,
			    "interrupts held off %lld ns by this module's sweep, bound %llu ns",
			    worst[1], bound);
}

static struct kunit_case twheel_sweep_cases[] = {
	TWHEEL_CASE_PARAM_SLOW(forget_module_bounds_irqs_off,
			       forget_load_gen_params),
	{}
};

static struct kunit_suite twheel_sweep_suite = {
	.name = "twheel_sweep",
	.test_cases = twheel_sweep_cases,
};

kunit_test_suites(&twheel_sweep_suite);

MODULE_DESCRIPTION("KUnit test of how long a departing module's sweep keeps interrupts off");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
