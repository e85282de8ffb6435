/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/build_bug.h for twheel's user-space builds: compile-time checks.
 * static_assert() takes an optional message, as the kernel's does.
 */
#ifndef _SHIM_LINUX_BUILD_BUG_H
#define _SHIM_LINUX_BUILD_BUG_H

#define static_assert(expr, ...)					\
	shim_static_assert(expr, ##__VA_ARGS__, #expr)
#define shim_static_assert(expr, msg, ...) _Static_assert(expr, msg)

#define BUILD_BUG_ON(cond)	static_assert(!(cond), #cond)

#endif /* _SHIM_LINUX_BUILD_BUG_H */
