/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/limits.h for twheel's user-space builds: the kernel's U*_MAX and
 * S*_MAX, next to the UAPI limits that the C library includes under the
 * same name.
 */
#ifndef _SHIM_LINUX_LIMITS_H
#define _SHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <limits.h>

#define U8_MAX		0xffU
#define U16_MAX		0xffffU
#define U32_MAX		0xffffffffU
#define U64_MAX		0xffffffffffffffffULL
#define S8_MAX		0x7f
#define S16_MAX		0x7fff
#define S32_MAX		0x7fffffff
#define S64_MAX		0x7fffffffffffffffLL
#define S32_MIN		(-S32_MAX - 1)
#define S64_MIN		(-S64_MAX - 1)

#endif /* _SHIM_LINUX_LIMITS_H */
