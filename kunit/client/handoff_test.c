// SPDX-License-Identifier: GPL-2.0
/*
 * Suite twheel_handoff: a handle that outlives twheel.  Its case hands a
 * kmalloc()ed handle to module twheel_keep (keep.c); when this module
 * unloads, its exit arms the handle far ahead with a function of
 * twheel_keep.  Neither the handle nor the function lies in this module,
 * so twheel leaves the callout pending; when twheel unloads, it drops the
 * callout and names it in the kernel log; then twheel_keep unloads and
 * frees the handle.  That free must find nothing of twheel's: debug
 * objects would otherwise report a pending handle freed, and call twheel's
 * fix-up, in unloaded text.  (Armed at unload, not in the case, so that
 * the other suites see no callout of this one.)
 *
 * The harness loads twheel_keep before twheel, so that it unloads after
 * it.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include <twheel.h>

#include "keep.h"

static struct callout *handoff_c;

static void handoff_handle_outlives_twheel(struct kunit *test)
{
	struct callout *c = kzalloc(sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, callout_init(c), 0);
	twheel_keep(c);
	handoff_c = c;
	pr_info("twheel-expect: later twheel_keep: freed the handle it kept\n");
}

static void __exit handoff_exit(void)
{
	if (!handoff_c)
		return;
	if (setcallout(handoff_c, twheel_keep_fn, NULL,
		       twheel_ns_to_ticks(3600 * NSEC_PER_SEC)))
		pr_err("twheel_handoff: setcallout() did not return 0\n");
	/* twheel, when it unloads, reports the callout it drops. */
	pr_info("twheel-expect: line ^twheel: unloading with 1 callouts still pending on CPU [0-9]+: dropped without running them$\n");
}
module_exit(handoff_exit);

static struct kunit_case handoff_cases[] = {
	KUNIT_CASE(handoff_handle_outlives_twheel),
	{}
};

static struct kunit_suite handoff_suite = {
	.name = "twheel_handoff",
	.test_cases = handoff_cases,
};

kunit_test_suite(handoff_suite);

MODULE_DESCRIPTION("KUnit: a twheel handle that outlives twheel");
MODULE_LICENSE("GPL");
