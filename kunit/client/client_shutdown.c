// SPDX-License-Identifier: GPL-2.0
/*
 * client_shutdown.c - suite twheel_client_shutdown:
 * unsetcallout_shutdown().  It cancels a callout for good: after it, no
 * call arms the callout, from process, hardirq or atomic context, nor from
 * its own running function, until callout_init(); it returns once a
 * function running on the other CPU, which keeps re-arming itself, has
 * returned; from atomic context it cancels without waiting, and from the
 * callout's own function it shuts down but cannot wait (-EDEADLK).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/smp.h>

#include "client.h"
#include "ticks.h"
#include "tprobe.h"

/* A callout to shut down, and what its function does meanwhile. */
enum sd_mode {
	SD_ONCE,		/* count the run, nothing else */
	SD_PERIODIC,		/* re-arm for the next tick */
	SD_HOLD,		/* re-arm, wait for the cancel, try to re-arm */
	SD_SELF,		/* try to shut itself down, then re-arm far */
};

#define NSD_CALLS	6

static const char * const sd_call_name[NSD_CALLS] = {
	"setcallout()", "setcallout_ns()", "setcallout_at()",
	"setcallout_jiffies()", "setcallout_on()", "callout_forward()",
};

struct sd {
	struct callout c;
	int mode;		/* enum sd_mode */
	atomic_t release;	/* .exit: end a held run */
	atomic_t holding;	/* a held run re-armed, and waits */
	atomic_t in_fn;		/* runs under way */
	atomic_t runs;
	/* What a held or SD_SELF run saw: */
	bool saw_cancel;	/* its re-arm was cancelled */
	s64 ret[NSD_CALLS];	/* the calls after that */
	bool pending_after;
	ktime_t when_after;
};

/* The suite's own state, client.own. */
struct shutdown_ctx {
	struct tprobe t[NTP];
	struct sd sd;
};

static struct shutdown_ctx *own(struct kunit *test)
{
	return ((struct client *)test->priv)->own;
}

static void sd_fn(void *arg);

/* Every way to arm @s, each for the next tick; what each returned. */
static void sd_try_all(struct sd *s, s64 *ret)
{
	ret[0] = setcallout(&s->c, sd_fn, s, 0);
	ret[1] = setcallout_ns(&s->c, sd_fn, s, 0);
	ret[2] = setcallout_at(&s->c, sd_fn, s, ktime_get());
	ret[3] = setcallout_jiffies(&s->c, sd_fn, s, jiffies);
	ret[4] = setcallout_on(&s->c, sd_fn, s, 0, 0, raw_smp_processor_id(),
			       0);
	ret[5] = callout_forward(&s->c, tick_ns(), 0);
}

static void sd_fn(void *arg)
{
	struct sd *s = arg;
	ktime_t end;

	atomic_inc(&s->in_fn);
	switch (READ_ONCE(s->mode)) {
	case SD_PERIODIC:
		setcallout(&s->c, sd_fn, s, 0);
		break;
	case SD_HOLD:
		if (atomic_read(&s->holding))
			break;
		/* pending again; the case shuts it down meanwhile */
		setcallout(&s->c, sd_fn, s, 0);
		atomic_set_release(&s->holding, 1);
		end = ktime_add_ns(ktime_get(), LOST_NS);
		while (callout_pending(&s->c) && !atomic_read(&s->release) &&
		       ktime_before(ktime_get(), end))
			cpu_relax();
		s->saw_cancel = !callout_pending(&s->c);
		sd_try_all(s, s->ret);
		s->pending_after = callout_pending(&s->c);
		s->when_after = callout_when(&s->c);
		break;
	case SD_SELF:
		s->ret[0] = unsetcallout_shutdown(&s->c);
		s->ret[1] = setcallout_ns(&s->c, sd_fn, s, FAR_NS);
		s->pending_after = callout_pending(&s->c);
		WRITE_ONCE(s->mode, SD_ONCE);
		break;
	default:
		break;
	}
	atomic_dec(&s->in_fn);
	atomic_inc_return_release(&s->runs);
}

static int sd_start(void *data)
{
	struct sd *s = data;

	return setcallout(&s->c, sd_fn, s, 0);
}

/*
 * unsetcallout_shutdown() of a callout that re-arms itself every tick,
 * while its function runs on the other CPU having re-armed it: returns 1
 * once the function has returned; every arming the function tries after
 * the cancel returns 0 and arms nothing; afterwards nothing is pending
 * and the function runs no more.
 */
static void unsetcallout_shutdown_stops_self_rearming(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct sd *s = &own(test)->sd;
	int ret, in_fn, runs, i;
	bool pending;

	need_two_cpus(test);
	WRITE_ONCE(s->mode, SD_PERIODIC);
	KUNIT_ASSERT_EQ(test, call_on(ctx->cpu_b, sd_start, s), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 3, LOST_NS));
	WRITE_ONCE(s->mode, SD_HOLD);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&s->holding, 1, LOST_NS),
			      "it stopped re-arming itself");

	/* pending and running on B -> shut down */
	ret = unsetcallout_shutdown(&s->c);
	in_fn = atomic_read(&s->in_fn);
	pending = callout_pending(&s->c);
	runs = atomic_read_acquire(&s->runs);
	KUNIT_EXPECT_EQ_MSG(test, ret, 1, "its function had re-armed it");
	KUNIT_EXPECT_EQ_MSG(test, in_fn, 0, "its function runs on");
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_TRUE_MSG(test, s->saw_cancel,
			      "its function never saw the cancel");
	for (i = 0; i < NSD_CALLS; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->ret[i], 0LL,
				    "%s in its function, once shut down",
				    sd_call_name[i]);
	KUNIT_EXPECT_FALSE(test, s->pending_after);
	KUNIT_EXPECT_EQ(test, s->when_after, KTIME_MAX);
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->runs), runs,
			    "ran after unsetcallout_shutdown() returned");
}

static void sd_try_all_fn(void *data)
{
	struct sd *s = data;

	sd_try_all(s, s->ret);
}

/*
 * After unsetcallout_shutdown(), every way of arming returns 0 and arms
 * nothing, from process and hardirq context, and the cancels return 0;
 * callout_init() makes the handle usable again.
 */
static void unsetcallout_shutdown_later_armings_arm_nothing(struct kunit *test)
{
	struct sd *s = &own(test)->sd;
	s64 ret[NSD_CALLS];
	int i;

	WRITE_ONCE(s->mode, SD_ONCE);
	KUNIT_ASSERT_EQ(test, setcallout_ns(&s->c, sd_fn, s, FAR_NS), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout_shutdown(&s->c), 1);
	KUNIT_EXPECT_FALSE(test, callout_pending(&s->c));

	sd_try_all(s, ret);
	for (i = 0; i < NSD_CALLS; i++)
		KUNIT_EXPECT_EQ_MSG(test, ret[i], 0LL, "%s, once shut down",
				    sd_call_name[i]);
	KUNIT_EXPECT_FALSE(test, callout_pending(&s->c));
	KUNIT_EXPECT_EQ(test, callout_when(&s->c), KTIME_MAX);
	run_hardirq(test, sd_try_all_fn, s);
	for (i = 0; i < NSD_CALLS; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->ret[i], 0LL,
				    "%s in hardirq context, once shut down",
				    sd_call_name[i]);
	KUNIT_EXPECT_FALSE(test, callout_pending(&s->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&s->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&s->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout_shutdown(&s->c), 0);
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&s->runs), 0);

	/* shut down -> idle, usable */
	KUNIT_EXPECT_EQ(test, callout_init(&s->c), 0);
	KUNIT_EXPECT_EQ(test, setcallout_ns(&s->c, sd_fn, s, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 1, LOST_NS));
	KUNIT_EXPECT_GE(test, callout_forward(&s->c, tick_ns(), 0), 1LL);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 2, LOST_NS));
}

/* What unsetcallout_shutdown() returned in an atomic context. */
struct try_shutdown {
	struct callout *c[2];	/* a pending and an idle handle */
	int ret[2];
	bool pending[2];
};

static void try_shutdown_fn(void *data)
{
	struct try_shutdown *ts = data;
	int i;

	for (i = 0; i < 2; i++) {
		ts->ret[i] = unsetcallout_shutdown(ts->c[i]);
		ts->pending[i] = callout_pending(ts->c[i]);
	}
}

KUNIT_ARRAY_PARAM_DESC(atomic, atomic_cases, desc);

/*
 * unsetcallout_shutdown() from atomic context, no function running: the
 * pending handle is cancelled (1) and the idle one left idle (0), both
 * shut down; no arming takes either afterwards.  (Before the fix, both
 * calls returned -EDEADLK and changed nothing, so the pending handle
 * stayed armed.)
 */
static void unsetcallout_shutdown_atomic_context_cancels(struct kunit *test)
{
	const struct atomic_case *ac = test->param_value;
	struct tprobe *pend = &own(test)->t[0], *idle = &own(test)->t[1];
	struct try_shutdown ts = { .c = { &pend->c, &idle->c } };
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);

	KUNIT_ASSERT_EQ(test, setcallout_at(&pend->c, tprobe_fn, pend, d0), 0);
	run_in(test, ac->where, try_shutdown_fn, &ts);
	KUNIT_EXPECT_EQ_MSG(test, ts.ret[0], 1, "pending, %s", ac->desc);
	KUNIT_EXPECT_FALSE(test, ts.pending[0]);
	KUNIT_EXPECT_EQ_MSG(test, ts.ret[1], 0, "idle, %s", ac->desc);
	KUNIT_EXPECT_FALSE(test, ts.pending[1]);

	KUNIT_EXPECT_EQ(test, callout_when(&pend->c), KTIME_MAX);
	KUNIT_EXPECT_EQ_MSG(test, setcallout_ns(&pend->c, tprobe_fn, pend,
						FAR_NS), 0, "shut down");
	KUNIT_EXPECT_EQ_MSG(test, setcallout_ns(&idle->c, tprobe_fn, idle,
						FAR_NS), 0, "shut down");
	KUNIT_EXPECT_FALSE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&idle->c), 0);
}

/*
 * unsetcallout_shutdown() from the callout's own function: -EDEADLK (it
 * cannot wait for itself), but shut down: the function's re-arm after it
 * returns 0 and arms nothing.
 */
static void unsetcallout_shutdown_own_function_shuts_down(struct kunit *test)
{
	struct sd *s = &own(test)->sd;

	WRITE_ONCE(s->mode, SD_SELF);
	KUNIT_ASSERT_EQ(test, setcallout_ns(&s->c, sd_fn, s, 0), 0);
	KUNIT_ASSERT_TRUE(test, wait_count(&s->runs, 1, LOST_NS));
	KUNIT_EXPECT_EQ(test, s->ret[0], (s64)-EDEADLK);
	KUNIT_EXPECT_EQ_MSG(test, s->ret[1], 0LL, "re-arming itself after that");
	KUNIT_EXPECT_FALSE(test, s->pending_after);
	KUNIT_EXPECT_EQ(test, unsetcallout(&s->c), 0);
}

static void shutdown_setup(void *data)
{
	struct shutdown_ctx *sc = data;

	tprobes_init(sc->t, NTP);
	callout_init(&sc->sd.c);
}

static int shutdown_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct shutdown_ctx),
			       shutdown_setup);
}

/*
 * Stop the suite's function re-arming and release a held run, cancel the
 * suite's callouts and controls, then what all cases share.
 */
static void shutdown_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct shutdown_ctx *sc = ctx ? ctx->own : NULL;

	if (sc) {
		WRITE_ONCE(sc->sd.mode, SD_ONCE);
		atomic_set(&sc->sd.release, 1);
		tprobes_end(sc->t, NTP);
		unsetcallout_sync(&sc->sd.c);
	}
	client_exit(test);
}

static struct kunit_case shutdown_cases[] = {
	KUNIT_CASE(unsetcallout_shutdown_stops_self_rearming),
	KUNIT_CASE(unsetcallout_shutdown_later_armings_arm_nothing),
	KUNIT_CASE_PARAM(unsetcallout_shutdown_atomic_context_cancels,
			 atomic_gen_params),
	KUNIT_CASE(unsetcallout_shutdown_own_function_shuts_down),
	{}
};

CLIENT_SUITE(shutdown, shutdown_cases, shutdown_init, shutdown_exit);
