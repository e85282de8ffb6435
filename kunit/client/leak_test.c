// SPDX-License-Identifier: GPL-2.0
/*
 * Suite twheel_leak: a client that breaks the rules on purpose.  Its one
 * case leaves callouts pending, a periodic one among them, and the module
 * never cancels them: when the harness unloads it, twheel must cancel them
 * all (its module notifier) and name the module once.  Were any left, the
 * periodic one would run in the module's freed text within a tick, and
 * twheel's own unload would report the rest; scripts/ktap.py fails the run
 * on either, and on a missing report (the "twheel-expect: later" line).
 *
 * Load it after every other suite: its periodic callout runs until unload.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/printk.h>

#include "twheel.h"

static struct callout leak_periodic;
static struct callout leak_far;
static atomic_t leak_runs;

static void leak_periodic_fn(void *arg)
{
	atomic_inc(&leak_runs);
	setcallout(&leak_periodic, leak_periodic_fn, arg, 0);
}

static void leak_far_fn(void *arg)
{
	atomic_inc(&leak_runs);
}

/* Three callouts left pending at unload: a periodic, a far, a timeout(). */
static void leak_callouts_until_unload(struct kunit *test)
{
	unsigned long far = twheel_ns_to_ticks(600 * NSEC_PER_SEC);

	callout_init(&leak_periodic);
	callout_init(&leak_far);
	KUNIT_ASSERT_EQ(test, setcallout(&leak_periodic, leak_periodic_fn,
					 NULL, 0), 0);
	KUNIT_ASSERT_EQ(test, setcallout(&leak_far, leak_far_fn, NULL, far),
			0);
	KUNIT_ASSERT_EQ(test, timeout(leak_far_fn, &leak_runs, far), 0);
	pr_info("twheel-expect: later twheel: module %s went with 3 callouts pending, the first leak_\n",
		THIS_MODULE->name);
	KUNIT_EXPECT_TRUE(test, callout_pending(&leak_far));
}

static struct kunit_case leak_cases[] = {
	KUNIT_CASE(leak_callouts_until_unload),
	{}
};

static struct kunit_suite leak_suite = {
	.name = "twheel_leak",
	.test_cases = leak_cases,
};

kunit_test_suite(leak_suite);

MODULE_DESCRIPTION("KUnit: a twheel client that unloads with callouts pending");
MODULE_LICENSE("GPL");
