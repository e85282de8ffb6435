// SPDX-License-Identifier: GPL-2.0
/*
 * What the user-space stand-ins for kernel headers (user/shim/) need at run
 * time: the count of warnings.  Linked into every program built on them.
 */
#include <stdio.h>

#include <linux/bug.h>

unsigned long shim_warnings;

/* A WARN_ON() or WARN_ON_ONCE() fired at @file:@line; print it if @print. */
void shim_warn(const char *file, int line, const char *cond, bool print)
{
	shim_warnings++;
	if (print)
		fprintf(stderr, "WARNING: %s:%d: %s\n", file, line, cond);
}
