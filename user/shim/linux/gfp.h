/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/gfp.h for twheel's user-space builds.  The flags only have to
 * exist: user-space allocations neither sleep nor come from a zone.
 */
#ifndef _SHIM_LINUX_GFP_H
#define _SHIM_LINUX_GFP_H

#include <linux/types.h>

#define GFP_KERNEL		((gfp_t)0x1)
#define GFP_ATOMIC		((gfp_t)0x2)
#define GFP_NOWAIT		((gfp_t)0x4)
#define __GFP_NOWARN		((gfp_t)0x8)

#endif /* _SHIM_LINUX_GFP_H */
