/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels twheel supports (6.1 and 6.12), kept in
 * one place so that the rest of the code is written against one API.
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

/*
 * KUnit's speed attributes arrived in 6.6; before, a slow case is a case.
 * Only test files, which include <kunit/test.h> first, use these.
 */
#if defined(KUNIT_CASE) && !defined(KUNIT_CASE_SLOW)
#define KUNIT_CASE_SLOW(test_name)	KUNIT_CASE(test_name)
#endif
#if defined(KUNIT_CASE) && !defined(KUNIT_CASE_PARAM_ATTR)
#define TWHEEL_CASE_PARAM_SLOW(name, gen)	KUNIT_CASE_PARAM(name, gen)
#elif defined(KUNIT_CASE)
#define TWHEEL_CASE_PARAM_SLOW(name, gen)				\
	KUNIT_CASE_PARAM_ATTR(name, gen, { .speed = KUNIT_SPEED_SLOW })
#endif

/*
 * KUNIT_ARRAY_PARAM_DESC() arrived in 6.3: a parameter generator over an
 * array whose elements name themselves in a string member.
 */
#if defined(KUNIT_CASE) && !defined(KUNIT_ARRAY_PARAM_DESC)
#include <linux/string.h>
#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)		\
static const void *name##_gen_params(const void *prev, char *desc)	\
{									\
	typeof((array)[0]) *next;					\
									\
	next = prev ? (typeof(next))prev + 1 : (array);			\
	if (next >= (array) + ARRAY_SIZE(array))			\
		return NULL;						\
	strscpy(desc, next->desc_member, KUNIT_PARAM_DESC_SIZE);	\
	return next;							\
}
#endif

/*
 * The namespace of EXPORT_SYMBOL_IF_KUNIT(), which a test module imports to
 * reach twheel's internals.  (6.13 turned namespaces into strings; neither
 * supported kernel has that change.)
 */
#define TWHEEL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)

#endif /* _TWHEEL_COMPAT_H */
