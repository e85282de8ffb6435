/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/minmax.h for twheel's user-space builds.  min() and max() evaluate
 * each argument once and, like the kernel's, warn when the two have
 * different types (comparing pointers to them does).
 */
#ifndef _SHIM_LINUX_MINMAX_H
#define _SHIM_LINUX_MINMAX_H

#define shim_cmp(x, y, op) ({						\
	typeof(x) __cmp_x = (x);					\
	typeof(y) __cmp_y = (y);					\
	(void)(&__cmp_x == &__cmp_y);					\
	__cmp_x op __cmp_y ? __cmp_x : __cmp_y;				\
})

#define min(x, y)		shim_cmp(x, y, <)
#define max(x, y)		shim_cmp(x, y, >)
#define min_t(type, x, y)	min((type)(x), (type)(y))
#define max_t(type, x, y)	max((type)(x), (type)(y))
#define clamp(val, lo, hi)	min(max(val, lo), hi)
#define clamp_t(type, val, lo, hi)					\
	min_t(type, max_t(type, val, lo), hi)
#define clamp_val(val, lo, hi)	clamp_t(typeof(val), val, lo, hi)

#define swap(a, b)							\
	do {								\
		typeof(a) __swap_tmp = (a);				\
		(a) = (b);						\
		(b) = __swap_tmp;					\
	} while (0)

#endif /* _SHIM_LINUX_MINMAX_H */
