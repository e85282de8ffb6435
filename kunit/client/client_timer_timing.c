// SPDX-License-Identifier: GPL-2.0
/*
 * client_timer_timing.c - suite twheel_client_timer_timing: when a timer
 * of <twheel_timer.h> runs.  Armed for jiffies + n, it never runs before
 * n jiffies after the arming call, and runs within a tick after that, on
 * the arming CPU; a %TIMER_DEFERRABLE one within an eighth of its delay
 * after that.  Runs are timed by the timers of ttimer.h, which includes
 * <twheel_timer.h> alone, as a converted module does.
 */

#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include "ttimer.h"

static struct tt_ctx *own(struct kunit *test)
{
	return test->priv;
}

/* A delay in jiffies, named for the case's parameter row. */
struct jcase {
	long ahead;
	const char *desc;
};

static const struct jcase exact_cases[] = {
	{ -5, "5 jiffies past" },
	{ 0, "jiffies (the next tick)" },
	{ 1, "1 jiffy" },
	{ 2, "2 jiffies" },
	{ 10, "10 jiffies" },
	{ 63, "63 jiffies" },
	{ 64, "64 jiffies" },
	{ 100, "100 jiffies" },
};

KUNIT_ARRAY_PARAM_DESC(exact, exact_cases, desc);

/*
 * twheel_mod_timer(t, jiffies + n) runs the function once, on this CPU,
 * no sooner than n jiffies of TICK_NSEC after the call (as ktime_get()
 * read before it tells it: jiffies read by the call itself, so fewer if
 * a jiffy passed meanwhile) and not after the tick that follows.
 */
static void twheel_mod_timer_never_early(struct kunit *test)
{
	const struct jcase *jc = test->param_value;
	struct ttimer *tt = &own(test)->tt[0];

	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + jc->ahead, 0), 0);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, jc->desc);
	tt_quiet(test, tt, 1, 0, "after its run");
}

static const struct jcase deferrable_cases[] = {
	{ 1, "1 jiffy" },
	{ 8, "8 jiffies" },
	{ 64, "64 jiffies" },
	{ 200, "200 jiffies" },
};

KUNIT_ARRAY_PARAM_DESC(deferrable, deferrable_cases, desc);

/*
 * A %TIMER_DEFERRABLE timer runs no sooner than its deadline, and within
 * an eighth of its delay after it (and a tick).
 */
static void twheel_timer_deferrable_runs_in_window(struct kunit *test)
{
	const struct jcase *jc = test->param_value;
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	twheel_timer_setup(t, tt_fn, TIMER_DEFERRABLE);
	KUNIT_EXPECT_EQ(test, t->flags, (u32)TIMER_DEFERRABLE);
	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + jc->ahead, 0), 0);
	tt_check_when(test, tt, jc->desc);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, jc->desc);
}

static struct kunit_case timer_timing_cases[] = {
	KUNIT_CASE_PARAM(twheel_mod_timer_never_early, exact_gen_params),
	KUNIT_CASE_PARAM(twheel_timer_deferrable_runs_in_window,
			 deferrable_gen_params),
	{}
};

static struct kunit_suite timer_timing_suite = {
	.name = "twheel_client_timer_timing",
	.init = tt_init,
	.exit = tt_exit,
	.test_cases = timer_timing_cases,
};

kunit_test_suite(timer_timing_suite);
