// SPDX-License-Identifier: GPL-2.0
/*
 * client_timer_misuse.c - suite twheel_client_timer_misuse: what
 * <twheel_timer.h> reports, once per file (a WARN_ON_ONCE() in the
 * header, one for each file that includes it), and does instead: a setup
 * with %TIMER_IRQSAFE, which it ignores; arming a timer never set up,
 * which arms nothing; twheel_add_timer() and twheel_add_timer_on() of a
 * pending timer, which leave it as it is.  Reports provoked on purpose
 * are announced to scripts/ktap.py ("twheel-expect:" lines), each around
 * the first call of its call site only: the second call of the same site
 * must not report again.  The timers are those of ttimer.h, which
 * includes <twheel_timer.h> alone, as a converted module does.
 */

#include <kunit/test.h>
#include <linux/compiler.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include "ttimer.h"

/*
 * The report of a misuse, a WARN_ON_ONCE() in twheel_timer.h: "WARNING:
 * CPU: 0 PID: 1 at .../twheel_timer.h:189 ..." up to 6.12, "WARNING:
 * .../twheel_timer.h:189 at ..." on 7.2.
 */
#define WARN_RE		"WARNING: .*twheel_timer\\.h:[0-9]+"

/* The timer never set up of the case that arms one, for .exit. */
static struct ttimer *stray;

static struct tt_ctx *own(struct kunit *test)
{
	return test->priv;
}

/*
 * The misuses, each behind a call site of its own, called twice: the
 * report of the first call is announced, a second report is not.
 */
static noinline void setup_irqsafe(struct twheel_timer *t)
{
	twheel_timer_setup(t, tt_fn, TIMER_IRQSAFE | TIMER_DEFERRABLE);
}

static noinline int arm_never_set_up(struct twheel_timer *t)
{
	return twheel_mod_timer(t, jiffies + 1);
}

static noinline void add_pending(struct twheel_timer *t)
{
	twheel_add_timer(t);
}

/*
 * twheel_timer_setup() with %TIMER_IRQSAFE reports it, once, and ignores
 * it: the function runs in softirq context with interrupts enabled; the
 * other flags are kept.
 */
static void twheel_timer_setup_irqsafe_warns(struct kunit *test)
{
	struct ttimer *tt = &own(test)->tt[0];
	struct twheel_timer *t = &tt->timer;

	pr_info("twheel-expect: begin " WARN_RE "\n");
	setup_irqsafe(t);
	pr_info("twheel-expect: end\n");
	KUNIT_EXPECT_EQ(test, t->flags, (u32)TIMER_DEFERRABLE);
	setup_irqsafe(t);	/* not reported again */
	KUNIT_EXPECT_EQ(test, t->flags, (u32)TIMER_DEFERRABLE);

	KUNIT_EXPECT_EQ(test, tt_arm(tt, BY_MOD, jiffies + SHORT_J, 0), 0);
	tt_control_start(tt, own(test)->cpu_a);
	tt_check(test, tt, 1, own(test)->cpu_a, "TIMER_IRQSAFE asked for");
}

/*
 * A timer never set up (zero-filled, its function assigned): arming it
 * is reported, once a call site, and arms nothing: the arming calls
 * return 0 and nothing runs.  The cancels return 0.
 */
static void twheel_mod_timer_never_set_up_warns(struct kunit *test)
{
	struct ttimer *tt;
	struct twheel_timer *t;
	int ret[2], tries[NTRY], i;

	tt = kunit_kzalloc(test, sizeof(*tt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tt);
	stray = tt;
	t = &tt->timer;
	t->function = tt_fn;

	pr_info("twheel-expect: begin " WARN_RE "\n");
	ret[0] = arm_never_set_up(t);
	tt_try_all(tt, tries);
	pr_info("twheel-expect: end\n");
	ret[1] = arm_never_set_up(t);	/* not reported again */

	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, ret[1], 0);
	for (i = 0; i < NTRY; i++)
		KUNIT_EXPECT_EQ_MSG(test, tries[i], 0, "%s, never set up",
				    tt_try_name[i]);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	tt_quiet(test, tt, 0, 1, "never set up");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_delete_sync(t), 0);
}

/*
 * twheel_add_timer() and twheel_add_timer_on() of a pending timer report
 * it, once a call site, and leave the timer as it is.
 */
static void twheel_add_timer_pending_warns(struct kunit *test)
{
	struct tt_ctx *tc = own(test);
	struct twheel_timer *t = &tc->tt[0].timer;
	unsigned long e = jiffies + FAR_J;
	ktime_t when;

	KUNIT_ASSERT_EQ(test, twheel_mod_timer(t, e), 0);
	when = callout_when(&t->c);
	t->expires = jiffies + 1;
	pr_info("twheel-expect: begin " WARN_RE "\n");
	add_pending(t);
	twheel_add_timer_on(t, tc->cpu_b >= 0 ? tc->cpu_b : tc->cpu_a);
	pr_info("twheel-expect: end\n");
	add_pending(t);		/* not reported again */
	KUNIT_EXPECT_TRUE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ_MSG(test, callout_when(&t->c), when,
			    "the pending timer was moved");
	tt_quiet(test, &tc->tt[0], 0, 1, "left as it was");
	KUNIT_EXPECT_EQ(test, twheel_timer_delete(t), 1);
}

/* Cancel the timer never set up, should it be armed after all; the rest. */
static void misuse_exit(struct kunit *test)
{
	if (stray)
		twheel_timer_delete_sync(&stray->timer);
	stray = NULL;
	tt_exit(test);
}

static struct kunit_case timer_misuse_cases[] = {
	KUNIT_CASE(twheel_timer_setup_irqsafe_warns),
	KUNIT_CASE(twheel_mod_timer_never_set_up_warns),
	KUNIT_CASE(twheel_add_timer_pending_warns),
	{}
};

static struct kunit_suite timer_misuse_suite = {
	.name = "twheel_client_timer_misuse",
	.init = tt_init,
	.exit = misuse_exit,
	.test_cases = timer_misuse_cases,
};

kunit_test_suite(timer_misuse_suite);
