// SPDX-License-Identifier: GPL-2.0
/* A suite with one passing and one failing case: the run must fail. */

#include <kunit/test.h>
#include <linux/module.h>

static void harness_fail_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void harness_fail_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 3);
}

static struct kunit_case harness_fail_cases[] = {
	KUNIT_CASE(harness_fail_passes),
	KUNIT_CASE(harness_fail_fails),
	{}
};

static struct kunit_suite harness_fail_suite = {
	.name = "harness_fail",
	.test_cases = harness_fail_cases,
};

kunit_test_suite(harness_fail_suite);

MODULE_DESCRIPTION("twheel harness self-test: a failing case");
MODULE_LICENSE("GPL");
