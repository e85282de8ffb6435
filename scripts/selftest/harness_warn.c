// SPDX-License-Identifier: GPL-2.0
/* A module whose init warns: the run must fail though no case fails. */

#include <linux/bug.h>
#include <linux/module.h>

static int __init harness_warn_init(void)
{
	WARN_ON(1);
	return 0;
}
module_init(harness_warn_init);

static void __exit harness_warn_exit(void)
{
}
module_exit(harness_warn_exit);

MODULE_DESCRIPTION("twheel harness self-test: a kernel warning");
MODULE_LICENSE("GPL");
