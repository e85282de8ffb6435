// SPDX-License-Identifier: GPL-2.0
/* A module that refuses to load: the run must fail. */

#include <linux/errno.h>
#include <linux/module.h>

static int __init harness_noload_init(void)
{
	return -ENODEV;
}
module_init(harness_noload_init);

MODULE_DESCRIPTION("twheel harness self-test: a module that fails to load");
MODULE_LICENSE("GPL");
