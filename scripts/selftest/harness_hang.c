// SPDX-License-Identifier: GPL-2.0
/* A module whose init never returns: the guest must be stopped. */

#include <linux/delay.h>
#include <linux/module.h>

static int __init harness_hang_init(void)
{
	for (;;)
		msleep(1000);
	return 0;
}
module_init(harness_hang_init);

MODULE_DESCRIPTION("twheel harness self-test: a guest that hangs");
MODULE_LICENSE("GPL");
