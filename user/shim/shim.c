// SPDX-License-Identifier: GPL-2.0
/*
 * What the user-space stand-ins for kernel headers (user/shim/) need at run
 * time: the count of warnings, and KUnit's failure.  Linked into every
 * program built on them.
 */
#include <stdarg.h>
#include <stdio.h>

#include <kunit/test.h>
#include <linux/bug.h>

unsigned long shim_warnings;

/* A WARN_ON() or WARN_ON_ONCE() fired at @file:@line; print it if @print. */
void shim_warn(const char *file, int line, const char *cond, bool print)
{
	shim_warnings++;
	if (print)
		fprintf(stderr, "WARNING: %s:%d: %s\n", file, line, cond);
}

/* A KUnit check failed at @file:@line: say what, then end the run. */
void shim_kunit_fail(struct kunit *test, const char *file, int line,
		     const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FAIL: ", test->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  at %s:%d\n", file, line);
	if (test->report)
		test->report(test);
	abort();
}
