// SPDX-License-Identifier: GPL-2.0
/*
 * client_names.c - suite twheel_client_names: a file with a timeout of
 * its own defines TWHEEL_NO_BSD_NAMES, includes <twheel.h>, and calls
 * the BSD calls by their prefixed names, twheel_timeout() and
 * twheel_untimeout().  That it compiles is the check: were timeout()
 * declared in spite of the opt-out, this file's timeout would clash with
 * it.  (client_timer.c checks that <twheel_timer.h> declares neither.)
 */

#define TWHEEL_NO_BSD_NAMES

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/rcupdate.h>

#include <twheel.h>

#include "../wait.h"		/* test scaffolding, no twheel call */

/* A client's own timeout, in ticks: the name BSD code would take. */
static int timeout = 3;

static atomic_t runs;

/*
 * twheel_timeout() runs its function once, after the file's own timeout;
 * twheel_untimeout() cancels a pending one (1), and finds nothing then
 * (0).
 */
static void twheel_timeout_without_bsd_names(struct kunit *test)
{
	atomic_set(&runs, 0);
	KUNIT_ASSERT_EQ(test, twheel_timeout(count_fn, &runs, timeout), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&runs) == 1));
	KUNIT_EXPECT_EQ_MSG(test, twheel_untimeout(count_fn, &runs), 0,
			    "after its run");

	KUNIT_ASSERT_EQ(test, twheel_timeout(count_fn, &runs, FAR_TICKS), 0);
	KUNIT_EXPECT_EQ_MSG(test, twheel_untimeout(count_fn, &runs), 1,
			    "pending");
	KUNIT_EXPECT_EQ_MSG(test, twheel_untimeout(count_fn, &runs), 0,
			    "cancelled");
	spin_ns((timeout + 3) * twheel_tick_ns());
	KUNIT_EXPECT_EQ(test, atomic_read(&runs), 1);
}

/* Cancel what an aborted case left; a run under way has returned after. */
static void names_exit(struct kunit *test)
{
	while (twheel_untimeout(count_fn, &runs) > 0)
		;
	synchronize_rcu();
}

static struct kunit_case names_cases[] = {
	KUNIT_CASE(twheel_timeout_without_bsd_names),
	{}
};

static struct kunit_suite names_suite = {
	.name = "twheel_client_names",
	.exit = names_exit,
	.test_cases = names_cases,
};

kunit_test_suite(names_suite);
