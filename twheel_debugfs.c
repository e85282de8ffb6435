// SPDX-License-Identifier: GPL-2.0
/*
 * The module's files under /sys/kernel/debug/twheel/.
 */

#include <linux/debugfs.h>

#include "twheel_internal.h"

static struct dentry *twheel_dir;

void twheel_debugfs_init(void)
{
	twheel_dir = debugfs_create_dir("twheel", NULL);
}

void twheel_debugfs_exit(void)
{
	debugfs_remove_recursive(twheel_dir);
	twheel_dir = NULL;
}
