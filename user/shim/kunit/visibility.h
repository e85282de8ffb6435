/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunit/visibility.h for twheel's user-space builds: as in a kernel built
 * with KUnit, what is visible to tests is visible to every harness here.
 */
#ifndef _SHIM_KUNIT_VISIBILITY_H
#define _SHIM_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym)

#endif /* _SHIM_KUNIT_VISIBILITY_H */
