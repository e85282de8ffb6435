/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunit/test.h for twheel's user-space builds: as much of KUnit as the
 * reference model of kunit/model.c uses.
 *
 * A failed check, expectation or assertion alike, prints what failed as
 * "NAME: FAIL: ...", lets the program tell more through @report, and
 * aborts: the first failure ends the run, for a fuzzer to catch.
 */
#ifndef _SHIM_KUNIT_TEST_H
#define _SHIM_KUNIT_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/types.h>

/**
 * struct kunit - a test run
 * @name: what its messages start with.
 * @verbose: print kunit_info() too.
 * @report: if set, called after a failure's message, before the abort.
 */
struct kunit {
	const char *name;
	bool verbose;
	void (*report)(struct kunit *test);
};

void __printf(4, 5) __noreturn shim_kunit_fail(struct kunit *test,
					       const char *file, int line,
					       const char *fmt, ...);

#define KUNIT_FAIL(test, fmt, ...)					\
	shim_kunit_fail(test, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* The message, then the condition that failed. */
#define KUNIT_ASSERT_TRUE_MSG(test, cond, fmt, ...)			\
	do {								\
		if (!(cond))						\
			KUNIT_FAIL(test, fmt " (%s)", ##__VA_ARGS__, #cond); \
	} while (0)

/* @a @op @b, else the message, then both printed as integers. */
#define SHIM_KUNIT_CMP(test, a, op, b, fmt, ...)			\
	do {								\
		typeof(a) __a = (a);					\
		typeof(b) __b = (b);					\
		if (!(__a op __b))					\
			KUNIT_FAIL(test, fmt " (%s " #op " %s: %lld, %lld)", \
				   ##__VA_ARGS__, #a, #b,		\
				   (long long)__a, (long long)__b);	\
	} while (0)

#define KUNIT_ASSERT_FALSE_MSG(test, cond, fmt, ...)			\
	KUNIT_ASSERT_TRUE_MSG(test, !(cond), fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(test, a, b, fmt, ...)			\
	SHIM_KUNIT_CMP(test, a, ==, b, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(test, a, b, fmt, ...)			\
	SHIM_KUNIT_CMP(test, a, !=, b, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(test, a, b, fmt, ...)			\
	SHIM_KUNIT_CMP(test, a, <, b, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(test, a, b, fmt, ...)			\
	SHIM_KUNIT_CMP(test, a, <=, b, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(test, a, b, fmt, ...)			\
	SHIM_KUNIT_CMP(test, a, >, b, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(test, a, b, fmt, ...)			\
	SHIM_KUNIT_CMP(test, a, >=, b, fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_TRUE(test, cond)	KUNIT_ASSERT_TRUE_MSG(test, cond, "")
#define KUNIT_ASSERT_FALSE(test, cond)	KUNIT_ASSERT_FALSE_MSG(test, cond, "")
#define KUNIT_ASSERT_NOT_NULL(test, p)	KUNIT_ASSERT_TRUE_MSG(test, p, "")
#define KUNIT_ASSERT_EQ(test, a, b)	KUNIT_ASSERT_EQ_MSG(test, a, b, "")
#define KUNIT_ASSERT_GT(test, a, b)	KUNIT_ASSERT_GT_MSG(test, a, b, "")

/* Expectations end the run too. */
#define KUNIT_EXPECT_TRUE		KUNIT_ASSERT_TRUE
#define KUNIT_EXPECT_FALSE		KUNIT_ASSERT_FALSE
#define KUNIT_EXPECT_EQ			KUNIT_ASSERT_EQ
#define KUNIT_EXPECT_GT			KUNIT_ASSERT_GT
#define KUNIT_EXPECT_EQ_MSG		KUNIT_ASSERT_EQ_MSG

static inline void __printf(2, 3) kunit_info(struct kunit *test,
					     const char *fmt, ...)
{
	va_list ap;

	if (!test->verbose)
		return;
	printf("%s: ", test->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

#define kunit_err(test, fmt, ...)					\
	fprintf(stderr, "%s: " fmt, (test)->name, ##__VA_ARGS__)

/* Freed with the program: a run makes one such allocation. */
static inline void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	(void)test;
	(void)gfp;
	return calloc(1, size);
}

#endif /* _SHIM_KUNIT_TEST_H */
