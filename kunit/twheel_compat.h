/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels twheel supports (6.1 and 6.12), kept in
 * one place so that the rest of the code is written against one API.  All
 * of them are KUnit's so far, so this is a test header: the suites of
 * kunit/ and kunit/client/ include it, the module does not.
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
#include <linux/stddef.h>
#include <linux/string.h>

/* The element after @prev (the first if NULL) of @n of @size bytes. */
static inline const void *twheel_param_next(const void *prev, char *desc,
					    const void *first, size_t n,
					    size_t size, size_t desc_offset)
{
	const void *next = prev ? prev + size : first;

	if (next >= first + n * size)
		return NULL;
	strscpy(desc, *(const char *const *)(next + desc_offset),
		KUNIT_PARAM_DESC_SIZE);
	return next;
}

#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)		\
static const void *name##_gen_params(const void *prev, char *desc)	\
{									\
	__auto_type list = &(array);					\
									\
	return twheel_param_next(prev, desc, *list, ARRAY_SIZE(*list),	\
				 sizeof((*list)[0]),			\
				 offsetof(typeof((*list)[0]), desc_member)); \
}
#endif

/*
 * The namespace of EXPORT_SYMBOL_IF_KUNIT(), which a test module imports to
 * reach twheel's internals.  (6.13 turned namespaces into strings; neither
 * supported kernel has that change.)
 */
#define TWHEEL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)

#endif /* _TWHEEL_COMPAT_H */
