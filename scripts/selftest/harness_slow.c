// SPDX-License-Identifier: GPL-2.0
/*
 * A case that runs 60 s, printing a line every 5 s: slow but never silent
 * for long.  Under a silence limit of 20 s and an overall cap above 60 s
 * the run must pass, though it lasts three times its silence limit; under
 * a cap below 60 s it must be killed at the cap.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>

#define SLOW_PERIOD_S	5
#define SLOW_TOTAL_S	60

static void harness_slow_prints_every_period(struct kunit *test)
{
	int s;

	for (s = SLOW_PERIOD_S; s <= SLOW_TOTAL_S; s += SLOW_PERIOD_S) {
		msleep(SLOW_PERIOD_S * MSEC_PER_SEC);
		kunit_info(test, "%d s of %d\n", s, SLOW_TOTAL_S);
	}
}

static struct kunit_case harness_slow_cases[] = {
	KUNIT_CASE(harness_slow_prints_every_period),
	{}
};

static struct kunit_suite harness_slow_suite = {
	.name = "harness_slow",
	.test_cases = harness_slow_cases,
};

kunit_test_suite(harness_slow_suite);

MODULE_DESCRIPTION("twheel harness self-test: a slow guest that keeps printing");
MODULE_LICENSE("GPL");
