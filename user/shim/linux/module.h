/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/module.h for twheel's user-space builds: a program links everything
 * it uses, so exports and module information come to nothing.
 */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define MODULE_LICENSE(text)
#define MODULE_AUTHOR(text)
#define MODULE_DESCRIPTION(text)
#define MODULE_VERSION(text)

#endif /* _SHIM_LINUX_MODULE_H */
