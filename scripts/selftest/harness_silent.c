// SPDX-License-Identifier: GPL-2.0
/*
 * A case that prints a line, then nothing for 60 s, then passes: the guest
 * is not hung, but falls silent.  Under a silence limit of 20 s the run
 * must fail, saying the guest was silent; under one above 60 s it passes.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>

#define SILENT_S	60

static void harness_silent_sleeps_without_a_line(struct kunit *test)
{
	kunit_info(test, "silent for %d s from now\n", SILENT_S);
	msleep(SILENT_S * MSEC_PER_SEC);
}

static struct kunit_case harness_silent_cases[] = {
	KUNIT_CASE(harness_silent_sleeps_without_a_line),
	{}
};

static struct kunit_suite harness_silent_suite = {
	.name = "harness_silent",
	.test_cases = harness_silent_cases,
};

kunit_test_suite(harness_silent_suite);

MODULE_DESCRIPTION("twheel harness self-test: a guest that falls silent");
MODULE_LICENSE("GPL");
