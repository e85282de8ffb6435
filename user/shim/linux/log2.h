/* SPDX-License-Identifier: GPL-2.0 */
/* linux/log2.h for twheel's user-space builds: powers of two. */
#ifndef _SHIM_LINUX_LOG2_H
#define _SHIM_LINUX_LOG2_H

#include <linux/bitops.h>
#include <linux/types.h>

/* Index of the highest set bit of @n, which is not 0; any width to 64. */
#define ilog2(n)	((int)(63 - __builtin_clzll((u64)(n))))

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* The least power of two not below @n. */
static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << fls_long(n - 1);
}

/* The greatest power of two not above @n, which is not 0. */
static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << (fls_long(n) - 1);
}

#define order_base_2(n)	((n) > 1 ? ilog2((n) - 1) + 1 : 0)

#endif /* _SHIM_LINUX_LOG2_H */
