/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/bug.h for twheel's user-space builds.
 *
 * A warning prints where it fired (WARN_ON_ONCE() only the first time at
 * each site) and always adds one to shim_warnings, which every harness
 * must find at zero before it reports success.  BUG_ON() aborts.
 */
#ifndef _SHIM_LINUX_BUG_H
#define _SHIM_LINUX_BUG_H

#include <stdbool.h>
#include <stdlib.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>

/* Warnings fired so far, over all sites; defined in user/shim/shim.c. */
extern unsigned long shim_warnings;
void shim_warn(const char *file, int line, const char *cond, bool print);

#define WARN_ON(cond) ({						\
	bool __ret_warn = !!(cond);					\
	if (unlikely(__ret_warn))					\
		shim_warn(__FILE__, __LINE__, #cond, true);		\
	__ret_warn;							\
})

#define WARN_ON_ONCE(cond) ({						\
	static bool __warned;						\
	bool __ret_warn = !!(cond);					\
	if (unlikely(__ret_warn)) {					\
		shim_warn(__FILE__, __LINE__, #cond, !__warned);	\
		__warned = true;					\
	}								\
	__ret_warn;							\
})

#define BUG_ON(cond)							\
	do {								\
		if (unlikely(cond)) {					\
			shim_warn(__FILE__, __LINE__, #cond, true);	\
			abort();					\
		}							\
	} while (0)
#define BUG()			BUG_ON(1)

#endif /* _SHIM_LINUX_BUG_H */
