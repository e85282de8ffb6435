// SPDX-License-Identifier: GPL-2.0
/*
 * client_args.c - suite twheel_client_args: what each call returns and
 * what it refuses.  0/1 for "was it pending"; -EINVAL for bad arguments
 * and never-initialised handles, with nothing changed; callout_pending()
 * through a handle's life; callout_init() of a pending handle; the tick
 * and the conversion of ns to ticks.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "client.h"

/* twheel_tick_ns(): within the range the tick_ns parameter allows. */
static void twheel_tick_ns_in_documented_range(struct kunit *test)
{
	u64 tick = twheel_tick_ns();

	KUNIT_EXPECT_GE_MSG(test, tick, 10 * NSEC_PER_USEC,
			    "tick of %llu ns, below 10 us", tick);
	KUNIT_EXPECT_LE_MSG(test, tick, NSEC_PER_SEC,
			    "tick of %llu ns, above 1 s", tick);
	KUNIT_EXPECT_EQ(test, twheel_tick_ns(), tick);
}

/* ns = ticks * twheel_tick_ns() + delta; or U64_MAX when @max. */
struct ns_case {
	u64 ticks;
	s64 delta;
	bool max;
	const char *desc;
};

static const struct ns_case ns_cases[] = {
	{ .ticks = 0, .delta = 0, .desc = "0 ns" },
	{ .ticks = 0, .delta = 1, .desc = "1 ns" },
	{ .ticks = 1, .delta = -1, .desc = "1 tick less 1 ns" },
	{ .ticks = 1, .delta = 0, .desc = "1 tick" },
	{ .ticks = 1, .delta = 1, .desc = "1 tick and 1 ns" },
	{ .ticks = 2, .delta = -1, .desc = "2 ticks less 1 ns" },
	{ .ticks = 2, .delta = 0, .desc = "2 ticks" },
	{ .ticks = 2, .delta = 1, .desc = "2 ticks and 1 ns" },
	{ .ticks = 1000, .delta = -1, .desc = "1000 ticks less 1 ns" },
	{ .ticks = 1000, .delta = 1, .desc = "1000 ticks and 1 ns" },
	{ .ticks = 1ULL << 32, .delta = 0, .desc = "2^32 ticks" },
	{ .ticks = 1ULL << 32, .delta = 1, .desc = "2^32 ticks and 1 ns" },
	{ .max = true, .desc = "U64_MAX ns" },
};

KUNIT_ARRAY_PARAM_DESC(ns, ns_cases, desc);

/* twheel_ns_to_ticks(): whole ticks, rounded up. */
static void twheel_ns_to_ticks_rounds_up(struct kunit *test)
{
	const struct ns_case *c = test->param_value;
	u64 tick = twheel_tick_ns();
	u64 ns, want;

	if (c->max) {
		ns = U64_MAX;
		want = U64_MAX / tick + (U64_MAX % tick ? 1 : 0);
	} else {
		ns = c->ticks * tick + (u64)c->delta;
		want = c->ticks + (c->delta > 0 ? 1 : 0);
	}
	KUNIT_EXPECT_EQ_MSG(test, (u64)twheel_ns_to_ticks(ns), want,
			    "twheel_ns_to_ticks(%llu) with a tick of %llu ns",
			    ns, tick);
}

/*
 * setcallout() returns 0 on an idle handle and 1 on a pending one, which it
 * re-arms: the new func and arg run, once, the old ones not.
 */
static void setcallout_returns_whether_pending(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p0 = &ctx->probe[0], *p1 = &ctx->probe[1];
	unsigned long flags;
	int first, second;
	bool pending;

	KUNIT_EXPECT_FALSE(test, callout_pending(&p0->c));
	/* Interrupts off: nothing can run on this CPU between the calls. */
	local_irq_save(flags);
	first = arm(&p0->c, probe_fn, p0, 0);		/* idle -> pending */
	second = arm(&p0->c, alt_fn, p1, 0);		/* pending -> pending */
	pending = callout_pending(&p0->c);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ_MSG(test, first, 0, "setcallout() of an idle handle");
	KUNIT_EXPECT_EQ_MSG(test, second, 1, "setcallout() of a pending handle");
	KUNIT_EXPECT_TRUE(test, pending);

	check_ran(test, p1, 1, "re-armed with a new func and arg");
	KUNIT_EXPECT_EQ_MSG(test, p1->fn, RAN_ALT, "the old func ran");
	check_quiet(test, p0, 0, 0, "the old arg");
	KUNIT_EXPECT_FALSE(test, callout_pending(&p0->c));
}

/* A setcallout() that must fail with -EINVAL. */
struct bad_set {
	bool null_c;
	bool null_fn;
	unsigned long ticks;
	const char *desc;
};

static const struct bad_set bad_sets[] = {
	{ .null_c = true, .desc = "NULL handle" },
	{ .null_fn = true, .desc = "NULL func" },
	{ .ticks = CALLOUT_MAX_TICKS + 1, .desc = "CALLOUT_MAX_TICKS + 1" },
	{ .ticks = ULONG_MAX, .desc = "ULONG_MAX ticks" },
};

KUNIT_ARRAY_PARAM_DESC(bad_set, bad_sets, desc);

/*
 * setcallout() with invalid arguments: -EINVAL, nothing changed.  A pending
 * handle stays pending and runs its old func(arg) at its old time; an idle
 * one stays idle.
 */
static void setcallout_rejects_invalid(struct kunit *test)
{
	const struct bad_set *b = test->param_value;
	struct client *ctx = test->priv;
	struct probe *pa = &ctx->probe[0];	/* pending */
	struct probe *pb = &ctx->probe[1];	/* idle */
	struct probe *bad = &ctx->probe[2];	/* the bad calls' arg */
	callout_func_t fn = b->null_fn ? NULL : alt_fn;
	unsigned long n = twheel_ns_to_ticks(50 * NSEC_PER_MSEC);
	unsigned long flags;
	int ret_a, ret_b;
	bool pend_a, pend_b;

	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, arm(&pa->c, probe_fn, pa, n), 0);
	ret_a = setcallout(b->null_c ? NULL : &pa->c, fn, bad, b->ticks);
	pend_a = callout_pending(&pa->c);
	ret_b = setcallout(b->null_c ? NULL : &pb->c, fn, bad, b->ticks);
	pend_b = callout_pending(&pb->c);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ_MSG(test, ret_a, -EINVAL, "%s, pending handle", b->desc);
	KUNIT_EXPECT_TRUE_MSG(test, pend_a, "%s: pending handle changed", b->desc);
	KUNIT_EXPECT_EQ_MSG(test, ret_b, -EINVAL, "%s, idle handle", b->desc);
	KUNIT_EXPECT_FALSE_MSG(test, pend_b, "%s: idle handle armed", b->desc);

	/* The pending one runs as first armed, strictly after its n ticks. */
	check_ran(test, pa, 1, "pending handle after a rejected setcallout()");
	KUNIT_EXPECT_EQ(test, pa->fn, RAN_PROBE);
	check_quiet(test, bad, 0, n, "the rejected call's arg");
	KUNIT_EXPECT_FALSE(test, callout_pending(&pb->c));
}

/*
 * setcallout() of a never-initialised handle (all zeroes, as static or
 * kzalloc()ed memory is): -EINVAL, and the handle's bytes left untouched.
 */
static void setcallout_uninitialised_handle_rejected(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	struct callout *c, *copy;
	int ret;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	copy = kunit_kzalloc(test, sizeof(*copy), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);

	ret = setcallout(c, probe_fn, p, 0);
	if (ret >= 0)			/* do not leave it armed */
		unsetcallout_sync(c);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(c, copy, sizeof(*c)), 0,
			    "the rejected handle was written to");
	check_quiet(test, p, 0, 0, "a never-initialised handle");
}

/* A timeout() that must fail with -EINVAL. */
static const struct bad_set bad_timeouts[] = {
	{ .null_fn = true, .desc = "NULL func" },
	{ .ticks = CALLOUT_MAX_TICKS + 1, .desc = "CALLOUT_MAX_TICKS + 1" },
	{ .ticks = ULONG_MAX, .desc = "ULONG_MAX ticks" },
};

KUNIT_ARRAY_PARAM_DESC(bad_timeout, bad_timeouts, desc);

/* timeout() with invalid arguments: -EINVAL, nothing armed. */
static void timeout_rejects_invalid(struct kunit *test)
{
	const struct bad_set *b = test->param_value;
	struct probe *p = &((struct client *)test->priv)->probe[0];

	KUNIT_EXPECT_EQ_MSG(test, timeout(b->null_fn ? NULL : probe_fn, p, b->ticks),
			    -EINVAL, "%s", b->desc);
	if (!b->null_fn)
		KUNIT_EXPECT_EQ_MSG(test, untimeout(probe_fn, p), 0,
				    "%s: armed anyway", b->desc);
	check_quiet(test, p, 0, 0, b->desc);
}

/* unsetcallout() returns 1 for a pending handle, which then never runs. */
static void unsetcallout_returns_whether_pending(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];
	unsigned long flags;
	int idle, armed, cancel, again;
	bool pending;

	local_irq_save(flags);
	idle = unsetcallout(&p->c);		/* idle -> idle */
	armed = arm(&p->c, probe_fn, p, 0);	/* idle -> pending */
	cancel = unsetcallout(&p->c);		/* pending -> idle */
	pending = callout_pending(&p->c);
	again = unsetcallout(&p->c);		/* idle -> idle */
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ_MSG(test, idle, 0, "unsetcallout() of a fresh handle");
	KUNIT_EXPECT_EQ(test, armed, 0);
	KUNIT_EXPECT_EQ_MSG(test, cancel, 1, "unsetcallout() of a pending handle");
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ_MSG(test, again, 0, "unsetcallout() of a cancelled handle");
	check_quiet(test, p, 0, 0, "cancelled by unsetcallout()");

	/* A cancelled handle arms again as an idle one. */
	KUNIT_EXPECT_EQ(test, arm(&p->c, probe_fn, p, 1), 0);
	check_ran(test, p, 1, "armed again after unsetcallout()");
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
}

/*
 * unsetcallout() and unsetcallout_sync() of a NULL or never-initialised
 * (zero-filled) handle: -EINVAL, and the handle's bytes left untouched.
 */
static void unsetcallout_rejects_invalid_handle(struct kunit *test)
{
	struct callout *c, *copy;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	copy = kunit_kzalloc(test, sizeof(*copy), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);

	KUNIT_EXPECT_EQ(test, unsetcallout(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout(c), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(c), -EINVAL);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(c, copy, sizeof(*c)), 0,
			    "the rejected handle was written to");
}

/* callout_pending(): true from arming until the run or the cancel. */
static void callout_pending_follows_state(struct kunit *test)
{
	struct probe *p = &((struct client *)test->priv)->probe[0];

	unsigned long far = far_ticks(), flags;
	bool fresh, armed, rearmed;
	int ret0, ret1;

	/* Interrupts off: the 1-tick callout cannot run between the calls. */
	local_irq_save(flags);
	fresh = callout_pending(&p->c);
	ret0 = arm(&p->c, probe_fn, p, far);		/* idle -> pending */
	armed = callout_pending(&p->c);
	ret1 = arm(&p->c, probe_fn, p, 1);		/* pending -> pending */
	rearmed = callout_pending(&p->c);
	local_irq_restore(flags);

	KUNIT_EXPECT_FALSE_MSG(test, fresh, "after callout_init()");
	KUNIT_EXPECT_EQ(test, ret0, 0);
	KUNIT_EXPECT_TRUE_MSG(test, armed, "armed");
	KUNIT_EXPECT_EQ(test, ret1, 1);
	KUNIT_EXPECT_TRUE_MSG(test, rearmed, "re-armed");
	check_ran(test, p, 1, "re-armed");
	KUNIT_EXPECT_FALSE_MSG(test, p->pending, "in its own function");
	KUNIT_EXPECT_FALSE_MSG(test, callout_pending(&p->c), "after its run");
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, far), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);
	KUNIT_EXPECT_FALSE_MSG(test, callout_pending(&p->c), "cancelled");
}

/*
 * callout_init() returns 0 for a handle that is not pending, -EINVAL for
 * NULL, and -EBUSY for a pending handle, which stays as it was.
 */
static void callout_init_returns_what_it_did(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p = &ctx->probe[0];

	KUNIT_EXPECT_EQ(test, callout_init(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, callout_init(&p->c), 0);
	KUNIT_ASSERT_EQ(test, arm(&p->c, probe_fn, p, far_ticks()), 0);
	KUNIT_EXPECT_EQ(test, callout_init(&p->c), -EBUSY);
	KUNIT_EXPECT_TRUE(test, callout_pending(&p->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 1);
	KUNIT_EXPECT_EQ(test, callout_init(&p->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->c), 0);
}

static struct kunit_case args_cases[] = {
	KUNIT_CASE(twheel_tick_ns_in_documented_range),
	KUNIT_CASE_PARAM(twheel_ns_to_ticks_rounds_up, ns_gen_params),
	KUNIT_CASE(setcallout_returns_whether_pending),
	KUNIT_CASE_PARAM(setcallout_rejects_invalid, bad_set_gen_params),
	KUNIT_CASE(setcallout_uninitialised_handle_rejected),
	KUNIT_CASE(unsetcallout_returns_whether_pending),
	KUNIT_CASE(unsetcallout_rejects_invalid_handle),
	KUNIT_CASE(callout_pending_follows_state),
	KUNIT_CASE(callout_init_returns_what_it_did),
	KUNIT_CASE_PARAM(timeout_rejects_invalid, bad_timeout_gen_params),
	{}
};

CLIENT_SUITE(args, args_cases, client_init, client_exit);
