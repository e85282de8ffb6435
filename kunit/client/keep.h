/* SPDX-License-Identifier: GPL-2.0 */
/* What module twheel_keep (keep.c) gives suite twheel_handoff. */
#ifndef _TWHEEL_KUNIT_KEEP_H
#define _TWHEEL_KUNIT_KEEP_H

void twheel_keep_fn(void *arg);
void twheel_keep(void *p);

#endif /* _TWHEEL_KUNIT_KEEP_H */
