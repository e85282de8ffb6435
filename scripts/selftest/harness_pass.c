// SPDX-License-Identifier: GPL-2.0
/* A suite whose one case passes: the run must succeed. */

#include <kunit/test.h>
#include <linux/module.h>

static void harness_pass_case(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static struct kunit_case harness_pass_cases[] = {
	KUNIT_CASE(harness_pass_case),
	{}
};

static struct kunit_suite harness_pass_suite = {
	.name = "harness_pass",
	.test_cases = harness_pass_cases,
};

kunit_test_suite(harness_pass_suite);

MODULE_DESCRIPTION("twheel harness self-test: a passing case");
MODULE_LICENSE("GPL");
