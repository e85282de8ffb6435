/* SPDX-License-Identifier: GPL-2.0 */
/* linux/container_of.h for twheel's user-space builds. */
#ifndef _SHIM_LINUX_CONTAINER_OF_H
#define _SHIM_LINUX_CONTAINER_OF_H

#include <stddef.h>

/* The structure of type @type whose member @member @ptr points to. */
#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif /* _SHIM_LINUX_CONTAINER_OF_H */
