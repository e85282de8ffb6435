// SPDX-License-Identifier: GPL-2.0
/*
 * The module: its parameters, their checks, and load and unload of the
 * engine (the bases of twheel_hw.c, on which twheel_callout.c's handle
 * API arms), the BSD interface (twheel_bsd.c) and debugfs, each of which
 * owns its own set-up and teardown.
 */

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/printk.h>
#include <linux/stringify.h>
#include <kunit/visibility.h>

#include "twheel_internal.h"

/*
 * The default geometries.  A 1 ms tick and Scheme 7 with three levels of
 * 256 slots come from scripts/defaults.sh: Scheme 6 did less work for
 * short timers, but with long ones pending it took 47 times the
 * interrupts.  docs/api.md has the table.
 */
#define DEFAULT_SLOTS6		4096
#define DEFAULT_LEVELS7		3
#define DEFAULT_SLOTS7		256

static const struct twheel_geometry default_geometry6 =
	TWHEEL_GEOMETRY6(DEFAULT_SLOTS6);
static const struct twheel_geometry default_geometry7 =
	TWHEEL_GEOMETRY7(DEFAULT_LEVELS7, DEFAULT_SLOTS7, DEFAULT_SLOTS7,
			 DEFAULT_SLOTS7);

/* Module parameters; see the table in docs/api.md. */
static unsigned long tick_ns = TWHEEL_DEFAULT_TICK_NS;
module_param(tick_ns, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "tick length in ns, "
		 __stringify(TWHEEL_MIN_TICK_NS) " to "
		 __stringify(TWHEEL_MAX_TICK_NS) " (default "
		 __stringify(TWHEEL_DEFAULT_TICK_NS) ")");

static unsigned int scheme = TWHEEL_SCHEME7;
module_param(scheme, uint, 0444);
MODULE_PARM_DESC(scheme, "6: hashed wheel; 7: hierarchical wheels (default)");

static unsigned long timeout_precision_ns;
module_param(timeout_precision_ns, ulong, 0444);
MODULE_PARM_DESC(timeout_precision_ns, "how late timeout() callouts may run after their deadline, in ns, so that they share interrupts (default 0: exact)");

static unsigned int geometry[TWHEEL_MAX_LEVELS];
static unsigned int geometry_levels;
module_param_array(geometry, uint, &geometry_levels, 0444);
MODULE_PARM_DESC(geometry, "slots per level, finest first (default "
		 __stringify(DEFAULT_SLOTS6) " for scheme 6, "
		 __stringify(DEFAULT_LEVELS7) " levels of "
		 __stringify(DEFAULT_SLOTS7) " for scheme 7)");

/*
 * Check every parameter before anything reads one, saying what is allowed,
 * and build the geometry into @geo.
 */
static int __init twheel_params_check(struct twheel_geometry *geo)
{
	unsigned int n;

	if (tick_ns < TWHEEL_MIN_TICK_NS || tick_ns > TWHEEL_MAX_TICK_NS) {
		pr_err("twheel: tick_ns=%lu is outside "
		       __stringify(TWHEEL_MIN_TICK_NS) ".."
		       __stringify(TWHEEL_MAX_TICK_NS) "\n", tick_ns);
		return -EINVAL;
	}
	if (scheme != TWHEEL_SCHEME6 && scheme != TWHEEL_SCHEME7) {
		pr_err("twheel: scheme=%u is not valid: 6 (hashed wheel) or 7 (hierarchical wheels)\n",
		       scheme);
		return -EINVAL;
	}
	if (!geometry_levels) {
		*geo = scheme == TWHEEL_SCHEME6 ? default_geometry6 :
						   default_geometry7;
		return 0;
	}
	geo->scheme = scheme;
	geo->levels = geometry_levels;
	for (n = 0; n < geometry_levels; n++)
		geo->slots[n] = geometry[n];
	if (twheel_geometry_check(geo)) {
		pr_err("twheel: scheme=%u with geometry of %u levels is not valid: scheme 6 takes one power-of-two level, scheme 7 takes 2 to %u levels of %u to %u slots spanning at most %llu ticks\n",
		       scheme, geometry_levels, TWHEEL_MAX_LEVELS,
		       TWHEEL_MIN_SLOTS, TWHEEL_MAX_SLOTS, TWHEEL_MAX_SPAN);
		return -EINVAL;
	}
	return 0;
}

/* A callout belongs to a module if its function or its handle lies in it. */
static bool in_module(const struct callout *c, void *data)
{
	struct module *mod = data;

	return within_module((unsigned long)c->func, mod) ||
	       within_module((unsigned long)c, mod);
}

/* One module at a time: a freeze is for the whole engine. */
static DEFINE_MUTEX(twheel_forget_lock);

/**
 * twheel_forget_module() - cancel every callout of a departing module
 * @mod: the module, whose exit function has run.
 *
 * With the wheels held still, so that no function of @mod runs from here
 * on and none is still running, every pending callout whose function or
 * handle lies in @mod is cancelled, and a timeout() one freed.  A module
 * that left any is named once in the kernel log, with the count and the
 * first function.  Callouts of other modules are untouched, but every
 * callout due meanwhile runs a little late.
 *
 * Context: process context; may sleep.
 * Return: how many callouts were cancelled.
 */
unsigned long twheel_forget_module(struct module *mod)
{
	callout_func_t first = NULL;
	unsigned long n;

	mutex_lock(&twheel_forget_lock);
	twheel_engine_freeze();
	n = twheel_engine_cancel_if(in_module, mod, &first);
	twheel_engine_thaw();
	mutex_unlock(&twheel_forget_lock);
	if (n)
		pr_warn("twheel: module %s went with %lu callouts pending, the first %ps: cancelled\n",
			mod->name, n, first);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_forget_module);

static int twheel_module_notify(struct notifier_block *nb,
				unsigned long state, void *data)
{
	if (state == MODULE_STATE_GOING)
		twheel_forget_module(data);
	return NOTIFY_DONE;
}

static struct notifier_block twheel_module_nb = {
	.notifier_call = twheel_module_notify,
};

static int __init twheel_module_init(void)
{
	struct twheel_geometry geo = {};
	int ret;

	ret = twheel_params_check(&geo);
	if (ret)
		return ret;
	ret = twheel_engine_init(&geo, tick_ns, twheel_timeout_release);
	if (ret)
		return ret;
	ret = twheel_timeout_init(timeout_precision_ns);
	if (ret)
		goto err_engine;
	ret = twheel_engine_start();
	if (ret)
		goto err_timeout;
	ret = register_module_notifier(&twheel_module_nb);
	if (ret)
		goto err_start;
	twheel_debugfs_init();
	pr_info("twheel " TWHEEL_VERSION ": scheme %u, %u levels, tick %lu ns\n",
		geo.scheme, geo.levels, tick_ns);
	return 0;

err_start:
	twheel_engine_stop();
err_timeout:
	twheel_timeout_exit();
err_engine:
	twheel_engine_exit();
	return ret;
}
module_init(twheel_module_init);

static void __exit twheel_module_exit(void)
{
	twheel_debugfs_exit();
	unregister_module_notifier(&twheel_module_nb);
	/* No callout runs after this, so each layer may free what it owns. */
	twheel_engine_stop();
	twheel_timeout_exit();
	twheel_engine_exit();
}
module_exit(twheel_module_exit);

MODULE_DESCRIPTION("Callouts on hashed and hierarchical timing wheels");
MODULE_AUTHOR("The twheel developers");
MODULE_VERSION(TWHEEL_VERSION);
MODULE_LICENSE("GPL");
