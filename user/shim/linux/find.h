/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/find.h for twheel's user-space builds: searches of a bitmap of
 * @size bits.  Each returns @size when it finds nothing; bits at @size and
 * beyond, in the bitmap's last word or in words after it, are never seen.
 */
#ifndef _SHIM_LINUX_FIND_H
#define _SHIM_LINUX_FIND_H

#include <linux/bitops.h>

/* Lowest bit at or after @offset, below @size, set in @addr (or, @invert,
 * clear in it).
 */
static inline unsigned long shim_find_next(const unsigned long *addr,
					   unsigned long size,
					   unsigned long offset, bool invert)
{
	unsigned long word, i;

	if (offset >= size)
		return size;
	i = BIT_WORD(offset);
	word = (invert ? ~addr[i] : addr[i]) & (~0UL << (offset % BITS_PER_LONG));
	while (!word) {
		if (++i * BITS_PER_LONG >= size)
			return size;
		word = invert ? ~addr[i] : addr[i];
	}
	offset = i * BITS_PER_LONG + __ffs(word);
	return offset < size ? offset : size;
}

static inline unsigned long find_next_bit(const unsigned long *addr,
					  unsigned long size,
					  unsigned long offset)
{
	return shim_find_next(addr, size, offset, false);
}

static inline unsigned long find_next_zero_bit(const unsigned long *addr,
					       unsigned long size,
					       unsigned long offset)
{
	return shim_find_next(addr, size, offset, true);
}

static inline unsigned long find_first_bit(const unsigned long *addr,
					   unsigned long size)
{
	return find_next_bit(addr, size, 0);
}

static inline unsigned long find_first_zero_bit(const unsigned long *addr,
						unsigned long size)
{
	return find_next_zero_bit(addr, size, 0);
}

/* Highest set bit below @size, or @size if none. */
static inline unsigned long find_last_bit(const unsigned long *addr,
					  unsigned long size)
{
	unsigned long i = size;

	while (i--)
		if (test_bit(i, addr))
			return i;
	return size;
}

#define for_each_set_bit(bit, addr, size)				\
	for ((bit) = find_first_bit(addr, size); (bit) < (size);	\
	     (bit) = find_next_bit(addr, size, (bit) + 1))

#endif /* _SHIM_LINUX_FIND_H */
