/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/slab.h for twheel's user-space builds: every allocator is the C
 * library's, and the array forms fail on a size that would overflow, as
 * the kernel's do.
 */
#ifndef _SHIM_LINUX_SLAB_H
#define _SHIM_LINUX_SLAB_H

#include <stdlib.h>
#include <linux/gfp.h>
#include <linux/overflow.h>
#include <linux/string.h>

static inline void *kmalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return malloc(size ? size : 1);
}

static inline void *kzalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(1, size ? size : 1);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (check_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc(bytes, flags);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (check_mul_overflow(n, size, &bytes))
		return NULL;
	return kzalloc(bytes, flags);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#define kvmalloc(size, flags)		kmalloc(size, flags)
#define kvzalloc(size, flags)		kzalloc(size, flags)
#define kvmalloc_array(n, size, flags)	kmalloc_array(n, size, flags)
#define kvcalloc(n, size, flags)	kcalloc(n, size, flags)
#define kvfree(p)			kfree(p)

#endif /* _SHIM_LINUX_SLAB_H */
