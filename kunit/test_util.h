/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the in-tree suites that arm real callouts share: the waits and the
 * counting callout function of wait.h, which the client suites share too,
 * and what only a suite that sees twheel's internals can ask.
 */
#ifndef _TWHEEL_KUNIT_TEST_UTIL_H
#define _TWHEEL_KUNIT_TEST_UTIL_H

#include "twheel_internal.h"
#include "wait.h"

/* log2 of the timeout() hash table's bucket count. */
static inline unsigned int hash_bits(void)
{
	unsigned long longest;
	unsigned int bits;

	twheel_hash_read(&bits, &longest);
	return bits;
}

#endif /* _TWHEEL_KUNIT_TEST_UTIL_H */
