/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/errno.h for twheel's user-space builds.  The error numbers are the
 * UAPI ones the C library uses too, so -EINVAL means the same on both sides.
 */
#ifndef _SHIM_LINUX_ERRNO_H
#define _SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* _SHIM_LINUX_ERRNO_H */
