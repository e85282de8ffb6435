/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/compiler.h for twheel's user-space builds: annotations and the
 * single-access helpers.  One thread runs the wheel here, so READ_ONCE()
 * and WRITE_ONCE() only need to keep the compiler from tearing or fusing
 * the access.
 */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#ifndef __always_inline		/* the C library may have its own */
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __must_check		__attribute__((__warn_unused_result__))
#define __maybe_unused		__attribute__((__unused__))
#define __pure			__attribute__((__pure__))
#define fallthrough		__attribute__((__fallthrough__))
#define __noreturn		__attribute__((__noreturn__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))

#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, val)						\
	do {								\
		*(volatile typeof(x) *)&(x) = (val);			\
	} while (0)

#endif /* _SHIM_LINUX_COMPILER_H */
