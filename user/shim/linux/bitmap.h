/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/bitmap.h for twheel's user-space builds: whole bitmaps of @nbits
 * bits, stored in whole unsigned longs.
 */
#ifndef _SHIM_LINUX_BITMAP_H
#define _SHIM_LINUX_BITMAP_H

#include <linux/bitops.h>
#include <linux/find.h>
#include <linux/slab.h>

static inline unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags)
{
	return kcalloc(BITS_TO_LONGS(nbits), sizeof(unsigned long), flags);
}

static inline unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags)
{
	return kmalloc_array(BITS_TO_LONGS(nbits), sizeof(unsigned long),
			     flags);
}

static inline void bitmap_free(const unsigned long *bitmap)
{
	kfree(bitmap);
}

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	return find_first_bit(src, nbits) >= nbits;
}

static inline unsigned int bitmap_weight(const unsigned long *src,
					 unsigned int nbits)
{
	unsigned int i, n = 0;

	for (i = 0; i < nbits; i++)
		n += test_bit(i, src);
	return n;
}

#endif /* _SHIM_LINUX_BITMAP_H */
