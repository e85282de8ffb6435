/* SPDX-License-Identifier: GPL-2.0 */
/* linux/mm.h for twheel's user-space builds: kvfree() and friends. */
#ifndef _SHIM_LINUX_MM_H
#define _SHIM_LINUX_MM_H

#include <linux/slab.h>

#endif /* _SHIM_LINUX_MM_H */
