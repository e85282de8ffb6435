/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/overflow.h for twheel's user-space builds: arithmetic that says
 * whether it wrapped.  Each stores the wrapped result in *@d and returns
 * true if it did not fit @d's type.
 */
#ifndef _SHIM_LINUX_OVERFLOW_H
#define _SHIM_LINUX_OVERFLOW_H

#include <stddef.h>
#include <stdint.h>

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

/* @a * @b, or SIZE_MAX if that does not fit a size_t. */
static inline size_t array_size(size_t a, size_t b)
{
	size_t bytes;

	return check_mul_overflow(a, b, &bytes) ? SIZE_MAX : bytes;
}

#endif /* _SHIM_LINUX_OVERFLOW_H */
