/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock_kinds.h - the kinds of lock a lock-associated callout is set up
 * with (callout_init_lock(), callout_init_raw_lock()), as a KUnit
 * parameter table: suites twheel_lock and twheel_client_lock run cases
 * over each, with the helpers of kind_lock.h.  Public API only, for the
 * client suite's sake.
 */
#ifndef _TWHEEL_KUNIT_LOCK_KINDS_H
#define _TWHEEL_KUNIT_LOCK_KINDS_H

#include <kunit/test.h>

#include <twheel.h>
#include "../twheel_compat.h"	/* KUNIT_ARRAY_PARAM_DESC() on 6.1 */

#include "kind_lock.h"

static const struct lock_kind lock_kinds[] = {
	{ false, 0, "spinlock_t" },
	{ false, CALLOUT_RETURNUNLOCKED, "spinlock_t, returns unlocked" },
	{ true, 0, "raw_spinlock_t" },
	{ true, CALLOUT_RETURNUNLOCKED, "raw_spinlock_t, returns unlocked" },
};

KUNIT_ARRAY_PARAM_DESC(lock_kind, lock_kinds, desc);

#endif /* _TWHEEL_KUNIT_LOCK_KINDS_H */
