/* SPDX-License-Identifier: GPL-2.0 */
/* linux/bits.h for twheel's user-space builds: single bits and masks. */
#ifndef _SHIM_LINUX_BITS_H
#define _SHIM_LINUX_BITS_H

#define BITS_PER_BYTE		8
#define BITS_PER_LONG		(BITS_PER_BYTE * (int)sizeof(long))
#define BITS_PER_LONG_LONG	64

#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)

/* Bits @l to @h, both included, set. */
#define GENMASK(h, l)							\
	((~0UL << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l)						\
	((~0ULL << (l)) & (~0ULL >> (BITS_PER_LONG_LONG - 1 - (h))))

#endif /* _SHIM_LINUX_BITS_H */
