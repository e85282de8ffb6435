// SPDX-License-Identifier: GPL-2.0
/*
 * The module: its load and unload.
 *
 * This file will own the hrtimer tick that drives the wheels, the paper's
 * "hardware" clock; for now it only brings the module up and down.
 */

#include <linux/init.h>
#include <linux/module.h>

#include "twheel_internal.h"

static int __init twheel_module_init(void)
{
	twheel_debugfs_init();
	return 0;
}
module_init(twheel_module_init);

static void __exit twheel_module_exit(void)
{
	twheel_debugfs_exit();
}
module_exit(twheel_module_exit);

MODULE_DESCRIPTION("Callouts on hashed and hierarchical timing wheels");
MODULE_LICENSE("GPL");
