/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_geometry.h - the shapes of wheel that suites twheel_wheel and
 * twheel_wheel_ops run their directed cases on, as a KUnit parameter
 * table.
 */
#ifndef _TWHEEL_KUNIT_WHEEL_GEOMETRY_H
#define _TWHEEL_KUNIT_WHEEL_GEOMETRY_H

#include <kunit/test.h>

#include "twheel_compat.h"
#include "twheel_core.h"

/* A wheel's shape, named for the case's parameter row. */
struct wt_geometry {
	const char *desc;
	struct twheel_geometry geo;
};

/* The shapes of wheel the directed cases run on. */
static const struct wt_geometry wheel_geometries[] = {
	{ "scheme 6: 16", TWHEEL_GEOMETRY6(16) },
	{ "scheme 7: 4 4 4", TWHEEL_GEOMETRY7(3, 4, 4, 4) },
	{ "scheme 7: 4 3 5", TWHEEL_GEOMETRY7(3, 4, 3, 5) },
	{ "scheme 7: 60 60 24 100", TWHEEL_GEOMETRY7(4, 60, 60, 24, 100) },
};

KUNIT_ARRAY_PARAM_DESC(wheel, wheel_geometries, desc);

#endif /* _TWHEEL_KUNIT_WHEEL_GEOMETRY_H */
