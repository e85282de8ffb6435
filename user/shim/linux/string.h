/* SPDX-License-Identifier: GPL-2.0 */
/* linux/string.h for twheel's user-space builds: the C library's. */
#ifndef _SHIM_LINUX_STRING_H
#define _SHIM_LINUX_STRING_H

#include <string.h>

#endif /* _SHIM_LINUX_STRING_H */
