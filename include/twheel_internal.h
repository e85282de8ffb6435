/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_internal.h - what the module's files share with one another.
 */
#ifndef _TWHEEL_INTERNAL_H
#define _TWHEEL_INTERNAL_H

void twheel_debugfs_init(void);
void twheel_debugfs_exit(void);

#endif /* _TWHEEL_INTERNAL_H */
