// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_keep: a module that keeps a callout handle another module armed,
 * and frees it when it unloads itself, after twheel has.  The other half of
 * suite twheel_handoff (handoff_test.c).  It calls no twheel function, so
 * nothing stops twheel from unloading first; the harness loads it before
 * twheel so that it unloads after it.
 */

#include <linux/export.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include "keep.h"

static void *twheel_kept;

/* The callout function: it lies in this module, not in the one that arms. */
void twheel_keep_fn(void *arg)
{
}
EXPORT_SYMBOL_GPL(twheel_keep_fn);

/* Take @p, a kmalloc()ed handle, to free at unload. */
void twheel_keep(void *p)
{
	kfree(twheel_kept);
	twheel_kept = p;
}
EXPORT_SYMBOL_GPL(twheel_keep);

static void __exit twheel_keep_exit(void)
{
	kfree(twheel_kept);
	pr_info("twheel_keep: freed the handle it kept\n");
}
module_exit(twheel_keep_exit);

MODULE_DESCRIPTION("Keeps a twheel handle past twheel's unload, for suite twheel_handoff");
MODULE_LICENSE("GPL");
