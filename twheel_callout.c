// SPDX-License-Identifier: GPL-2.0
/*
 * The engine (twheel_hw.c) and the BSD interface (twheel_bsd.c), compiled
 * as one unit, as kernel/sched/build_policy.c compiles the scheduler's
 * classes: timeout() and untimeout() then inline the engine's arming and
 * cancelling, which they call under their hash chain's lock, instead of
 * calling across files.  twheel_bsd.c uses what twheel_hw.c defines
 * static, so it comes second, and neither is compiled on its own.
 */

#include "twheel_hw.c"
#include "twheel_bsd.c"
