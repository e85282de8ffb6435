/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel.h - callouts on timing wheels, for client modules.
 *
 * Two interfaces, both from the BSD callout redesign that Varghese and Lauck
 * describe (Costello's implementation of Scheme 6):
 *
 *   callout_init()        make a caller-owned handle ready for use
 *   setcallout()          arm (or re-arm) a handle to run func(arg)
 *   unsetcallout()        cancel a handle, O(1), never waits
 *   unsetcallout_sync()   cancel it and wait for a running func to return
 *   callout_pending()     is a handle armed?
 *   timeout()             BSD: arm func(arg), no handle (twheel allocates)
 *   untimeout()           BSD: cancel one pending func(arg), found by hash
 *   twheel_tick_ns()      the length of one tick
 *   twheel_ns_to_ticks()  nanoseconds to ticks, rounded up
 *
 * The exported symbols carry no prefix: these are the names modules link
 * against.  Build a client against twheel's Module.symvers (README.md).
 */
#ifndef _TWHEEL_H
#define _TWHEEL_H

#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/types.h>

#include "twheel_entry.h"

typedef void (*callout_func_t)(void *arg);

/**
 * struct callout - a caller-owned callout handle
 *
 * Embed it in your own structure and initialise it with callout_init()
 * before any other call.  All fields belong to twheel.
 */
struct callout {
	/* private: */
	struct twheel_entry entry;
	callout_func_t func;
	void *arg;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map lockdep_map;
#endif
};

void __callout_init(struct callout *c, const char *name,
		    struct lock_class_key *key);

/**
 * callout_init() - make a callout handle ready for use
 * @c: the handle.
 *
 * Must come before any other call on @c, and must not be repeated while
 * @c may be pending or running.  With lockdep, each call site gets a class
 * of its own, so that unsetcallout_sync() can teach lockdep which locks the
 * callout's function takes.
 *
 * Context: any.
 */
#define callout_init(c)							\
	do {								\
		static struct lock_class_key __key;			\
									\
		__callout_init((c), #c, &__key);			\
	} while (0)

int setcallout(struct callout *c, callout_func_t func, void *arg,
	       unsigned long ticks);
int unsetcallout(struct callout *c);
int unsetcallout_sync(struct callout *c);
bool callout_pending(const struct callout *c);

int timeout(callout_func_t func, void *arg, unsigned long ticks);
int untimeout(callout_func_t func, void *arg);

u64 twheel_tick_ns(void);
unsigned long twheel_ns_to_ticks(u64 ns);

/*
 * The longest @ticks setcallout() and timeout() take: 2^61 - 1 on 64-bit,
 * far beyond any tick length's useful range, and far enough from U64_MAX
 * that adding the current tick cannot wrap.
 */
#define CALLOUT_MAX_TICKS	(ULONG_MAX >> 3)

#endif /* _TWHEEL_H */
