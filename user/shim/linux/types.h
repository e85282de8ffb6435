/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/types.h for twheel's user-space builds: the kernel's short integer
 * names, gfp_t and struct list_head, over the C library's types.
 *
 * The C library's own headers include the kernel's UAPI <linux/types.h>
 * (__u64 and friends); it is taken in first so that both can coexist.
 */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;		/* unsigned long long, as in the kernel */
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

typedef unsigned int gfp_t;

struct list_head {
	struct list_head *next, *prev;
};

#endif /* _SHIM_LINUX_TYPES_H */
