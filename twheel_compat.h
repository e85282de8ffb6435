/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels twheel supports (6.1, 6.12 and 7.2),
 * kept in one place so that the rest of the code is written against one
 * API, the newest kernel's.  Each difference says since which version the
 * new spelling exists, and gives it to the older kernels: dropping a
 * kernel is deleting its blocks.  No other file tests LINUX_VERSION_CODE
 * (scripts/style.sh lets checkpatch flag it anywhere else).
 *
 * Not public: no header of include/ needs it, and the client kit does not
 * ship it.  The module includes it, and so do the tests: kunit/ finds it
 * on the include path Kbuild gives it; the test modules built out of tree
 * from this tree (kunit/client/, bench/, torture/) by its path from there.
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/version.h>

/*
 * hrtimer_setup() arrived in 6.13: an hrtimer's function is given with
 * its clock and mode.  Since 6.15 it is the only way (hrtimer_init() is
 * gone), and on 7.2 the function is a __private field.  Before 6.13,
 * what it replaces.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * timer_container_of() is from_timer()'s name since 6.16, for code that
 * still uses timer_list (the benchmarks' comparisons).  A macro on every
 * kernel, so the test is for the macro itself.
 */
#ifndef timer_container_of
#define timer_container_of(var, callback_timer, timer_fieldname)	\
	from_timer(var, callback_timer, timer_fieldname)
#endif

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
 * reach twheel's internals: a string since 6.13, a bare word before.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define TWHEEL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#else
#define TWHEEL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#endif

#endif /* _TWHEEL_COMPAT_H */
