// SPDX-License-Identifier: GPL-2.0
/*
 * twheel's wheels, Schemes 6 and 7, built into the schemes benchmark so
 * that it drives them by hand like the baselines of tsched.c: the same
 * source as twheel.ko's, compiled again, with nothing exported (twheel.ko
 * exports these names to its KUnit suites on kernels with KUnit).
 */
#include <kunit/visibility.h>

/* Export nothing: only take the address, in a section the link drops. */
#undef EXPORT_SYMBOL_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)	__ADDRESSABLE(symbol)

#include "../twheel_core.c"
