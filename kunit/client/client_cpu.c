// SPDX-License-Identifier: GPL-2.0
/*
 * client_cpu.c - suite twheel_client_cpu: the CPU a callout runs on.
 * setcallout_on() runs the function on the CPU it names, whichever CPU
 * calls, and moves a callout whose function runs elsewhere only once that
 * has returned; it refuses a CPU that is no CPU or an unknown flag
 * (-EINVAL) and an offline CPU (-ENODEV), with nothing changed.  A
 * CALLOUT_PINNED callout, plain or lock-associated (../kind_lock.h),
 * runs on the CPU it was first armed on, wherever it is re-armed from,
 * until setcallout_on() names another; it moves with a CPU that goes
 * offline.  Runs are timed by the probes of tprobe.h.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "client.h"
#include "ticks.h"
#include "tprobe.h"
#include "../kind_lock.h"

#define NPIN_RUNS	8	/* runs of a pinned callout, checked */

/*
 * A callout set up with CALLOUT_PINNED: plain, or lock-associated with a
 * lock of either kind (../kind_lock.h).
 */
struct pin_kind {
	const struct lock_kind *lock;	/* NULL: callout_init_flags() */
	const char *desc;
};

struct pinned {
	struct callout_locked lc;	/* lc.c alone, for a plain one */
	struct kind_lock lock;
	const struct pin_kind *kind;
	atomic_t runs;
	int cpu[NPIN_RUNS];
	bool held[NPIN_RUNS];	/* its lock was held as the run began */
};

/* The suite's own state, client.own. */
struct cpus_ctx {
	struct tprobe t[NTP];
	struct pinned pin;
};

static struct cpus_ctx *own(struct kunit *test)
{
	return ((struct client *)test->priv)->own;
}

/*
 * setcallout_on() with a CPU runs the function there, whichever CPU
 * calls, for a delay or a time; CALLOUT_CPU_ANY runs it on the calling
 * CPU.
 */
static void setcallout_on_cpu_runs_there(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct tprobe *t = own(test)->t;
	int cpu, n = 0, i, want[NTP];
	char what[64];

	for_each_online_cpu(cpu) {
		if (n + 2 > NTP - 1)
			break;
		KUNIT_EXPECT_EQ(test, tp_arm(&t[n], BY_ON,
					     2 * tick_ns() + tick_ns() / 3, 0,
					     cpu), 0);
		tp_control_start(&t[n], cpu);
		want[n++] = cpu;
		KUNIT_EXPECT_EQ(test, tp_arm(&t[n], BY_ON_ABS,
					     ktime_add_ns(ktime_get(),
							  3 * tick_ns()), 0,
					     cpu), 0);
		tp_control_start(&t[n], cpu);
		want[n++] = cpu;
	}
	KUNIT_EXPECT_EQ(test, tp_arm(&t[n], BY_ON, tick_ns(), 0,
				     CALLOUT_CPU_ANY), 0);
	tp_control_start(&t[n], ctx->cpu_a);
	want[n++] = ctx->cpu_a;
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "setcallout_on(CPU %d), #%d",
			 want[i], i);
		tp_check(test, &t[i], 1, want[i], what);
	}
}

/*
 * setcallout_on() naming one CPU for a callout whose function is running
 * on another: it stays there while the function runs, and moves to the
 * CPU named once the function has returned, so its next run is on that
 * CPU, after the first has returned, never beside it.  (Before the fix
 * it stayed on the CPU it ran on.)
 */
static void setcallout_on_running_elsewhere_moves_after(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct hold *h = &ctx->hold;
	struct remote_arm r = { .c = &h->c, .fn = hold_fn, .arg = h };
	int ret;

	need_two_cpus(test);
	hold_reset(h, SAFETY_NS, 0);
	KUNIT_ASSERT_EQ(test, arm_on(ctx->cpu_b, &r), 0);
	KUNIT_ASSERT_EQ(test, r.ret, 0);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&h->entered, 1, LOST_NS),
			      "the held function did not start");
	/* running on B -> pending on B, running on B -> pending on A */
	ret = setcallout_on(&h->c, hold_fn, h, 0, 0, ctx->cpu_a, 0);
	atomic_set_release(&h->release, 1);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "a running callout is not pending");
	KUNIT_ASSERT_TRUE(test, wait_count(&h->runs, 2, LOST_NS));
	KUNIT_EXPECT_EQ(test, h->cpu[0], ctx->cpu_b);
	KUNIT_EXPECT_EQ_MSG(test, h->cpu[1], ctx->cpu_a,
			    "armed for CPU %d while running on CPU %d: ran on CPU %d",
			    ctx->cpu_a, ctx->cpu_b, h->cpu[1]);
	KUNIT_EXPECT_FALSE_MSG(test, h->overlapped, "ran on two CPUs at once");
	KUNIT_EXPECT_GE(test, h->start[1], h->end[0]);
}

/* Bad CPUs and flags of setcallout_on(). */
struct bad_on_case {
	int cpu;
	bool nr_cpu_ids;	/* @cpu is nr_cpu_ids */
	unsigned int flags;
	const char *desc;
};

static const struct bad_on_case bad_on_cases[] = {
	{ .nr_cpu_ids = true, .desc = "cpu nr_cpu_ids" },
	{ .cpu = INT_MAX, .desc = "cpu INT_MAX" },
	{ .cpu = -2, .desc = "cpu -2" },
	{ .cpu = INT_MIN, .desc = "cpu INT_MIN" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = 0x8, .desc = "flags 0x8" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = CALLOUT_ABSOLUTE | 0x8,
	  .desc = "flags CALLOUT_ABSOLUTE | 0x8" },
	{ .cpu = 0, .flags = CALLOUT_IF_PENDING | 0x10,
	  .desc = "cpu 0, flags CALLOUT_IF_PENDING | 0x10" },
	/* callout_init_flags()'s flags are not setcallout_on()'s. */
	{ .cpu = CALLOUT_CPU_ANY, .flags = CALLOUT_PINNED,
	  .desc = "flags CALLOUT_PINNED" },
	{ .cpu = CALLOUT_CPU_ANY,
	  .flags = CALLOUT_ABSOLUTE | CALLOUT_RETURNUNLOCKED,
	  .desc = "flags CALLOUT_ABSOLUTE | CALLOUT_RETURNUNLOCKED" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = 0x80000000, .desc = "the top flag" },
	{ .cpu = CALLOUT_CPU_ANY, .flags = ~0U, .desc = "every flag" },
};

KUNIT_ARRAY_PARAM_DESC(bad_on, bad_on_cases, desc);

/*
 * setcallout_on() with a CPU that is no CPU, or an unknown flag: -EINVAL,
 * nothing changed: an idle handle stays idle and records no arming
 * (callout_forward() still finds none), a pending one keeps its deadline
 * and runs nothing.
 */
static void setcallout_on_bad_cpu_or_flags_returns_einval(struct kunit *test)
{
	const struct bad_on_case *bc = test->param_value;
	struct tprobe *idle = &own(test)->t[0], *pend = &own(test)->t[1];
	int cpu = bc->nr_cpu_ids ? nr_cpu_ids : bc->cpu;
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);

	KUNIT_ASSERT_EQ(test, setcallout_at(&pend->c, tprobe_fn, pend, d0), 0);

	KUNIT_EXPECT_EQ(test, setcallout_on(&idle->c, tprobe_fn, idle,
					    tick_ns(), 0, cpu, bc->flags),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));
	KUNIT_EXPECT_EQ(test, callout_when(&idle->c), KTIME_MAX);
	/* Far, should it arm after all: it is cancelled below. */
	KUNIT_EXPECT_EQ_MSG(test, callout_forward(&idle->c, FAR_NS, 0),
			    -EINVAL, "a refused arming was recorded");
	unsetcallout(&idle->c);

	KUNIT_EXPECT_EQ(test, setcallout_on(&pend->c, tprobe_fn, pend, 0, 0,
					    cpu, bc->flags), -EINVAL);
	KUNIT_EXPECT_TRUE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_EQ(test, callout_when(&pend->c), d0);

	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&idle->runs) +
			atomic_read(&pend->runs), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 1);
}

/* callout_init_flags() takes 0 and CALLOUT_PINNED, and no other flag. */
static void callout_init_flags_rejects_unknown(struct kunit *test)
{
	static const unsigned int bad[] = {
		CALLOUT_RETURNUNLOCKED, 0x4, CALLOUT_PINNED | 0x4,
		CALLOUT_PINNED | CALLOUT_RETURNUNLOCKED, 0x80000000, ~0U,
		/* setcallout_on()'s flags are not callout_init_flags()'s */
		CALLOUT_ABSOLUTE, CALLOUT_PINNED | CALLOUT_IF_SOONER,
	};
	struct callout *stray = kunit_kzalloc(test, sizeof(*stray), GFP_KERNEL);
	struct callout *c = &own(test)->t[0].c;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, stray);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, callout_init_flags(stray, bad[i]),
				    -EINVAL, "flags %#x", bad[i]);
	/* stray: still never initialised (far, and cancelled, if not) */
	KUNIT_EXPECT_EQ(test, setcallout(stray, tprobe_fn, own(test)->t,
					 far_ticks()), -EINVAL);
	unsetcallout_sync(stray);
	KUNIT_EXPECT_EQ(test, callout_init_flags(c, 0), 0);
	KUNIT_EXPECT_EQ(test, callout_init_flags(c, CALLOUT_PINNED), 0);
	KUNIT_EXPECT_EQ(test, callout_init_flags(NULL, CALLOUT_PINNED), -EINVAL);
}

static void pin_fn(void *arg)
{
	struct pinned *p = arg;
	int i = atomic_read(&p->runs);
	/* Held by twheel, on this CPU, if lock-associated. */
	bool held = !p->kind->lock || kind_lock_held(&p->lock);

	if (i < NPIN_RUNS) {
		p->cpu[i] = raw_smp_processor_id();
		p->held[i] = held;
	}
	if (p->kind->lock)
		kind_lock_fn_return(&p->lock);
	atomic_inc_return_release(&p->runs);
}

static int pin_setup(struct pinned *p, const struct pin_kind *kind)
{
	p->kind = kind;
	atomic_set(&p->runs, 0);
	if (!kind->lock)
		return callout_init_flags(&p->lc.c, CALLOUT_PINNED);
	kind_lock_init(&p->lock, kind->lock);
	return kind_lock_callout_init(&p->lc, &p->lock, CALLOUT_PINNED);
}

/* The ways a pinned callout is armed, each for about a tick from now. */
static int pin_ns(void *data)
{
	struct pinned *p = data;

	return setcallout_ns(&p->lc.c, pin_fn, p, tick_ns());
}

static int pin_ticks(void *data)
{
	struct pinned *p = data;

	return setcallout(&p->lc.c, pin_fn, p, 0);
}

static int pin_at(void *data)
{
	struct pinned *p = data;

	return setcallout_at(&p->lc.c, pin_fn, p,
			     ktime_add_ns(ktime_get(), tick_ns()));
}

static int pin_jiffies(void *data)
{
	struct pinned *p = data;

	return setcallout_jiffies(&p->lc.c, pin_fn, p, jiffies + 1);
}

static int pin_on_here(void *data)
{
	struct pinned *p = data;

	return setcallout_on(&p->lc.c, pin_fn, p, tick_ns(), 0,
			     raw_smp_processor_id(), 0);
}

static int pin_forward(void *data)
{
	struct pinned *p = data;

	return callout_forward(&p->lc.c, tick_ns(), 0) >= 1 ? 0 : -ERANGE;
}

static int pin_far(void *data)
{
	struct pinned *p = data;

	return setcallout_ns(&p->lc.c, pin_fn, p, FAR_NS);
}

/*
 * Arm @p from @from (the case thread's CPU: directly; another: from an
 * IPI) with @arm, and check its run @i: on @want, under its lock.
 */
static void pin_step(struct kunit *test, struct pinned *p, int i, int from,
		     int (*arm)(void *data), int want, const char *what)
{
	int ret = from == raw_smp_processor_id() ? arm(p) : call_on(from, arm, p);

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s, from CPU %d", what, from);
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, i + 1, LOST_NS),
			      "%s, from CPU %d: ran %d of %d times", what, from,
			      atomic_read(&p->runs), i + 1);
	KUNIT_EXPECT_EQ_MSG(test, p->cpu[i], want,
			    "%s, from CPU %d: ran on CPU %d", what, from,
			    p->cpu[i]);
	KUNIT_EXPECT_TRUE_MSG(test, p->held[i], "%s: not under its lock", what);
	/*
	 * The run counts itself before it returns, and twheel releases the
	 * lock and sees it returned after that: wait for it (nothing is
	 * pending), or the next arming can find the function still running
	 * on its CPU and keep the callout there, as it must.
	 */
	KUNIT_EXPECT_EQ_MSG(test, unsetcallout_sync(&p->lc.c), 0,
			    "%s: pending after its run", what);
}

static const struct lock_kind pin_spin = { false, 0, "spinlock_t" };
static const struct lock_kind pin_raw = {
	true, CALLOUT_RETURNUNLOCKED, "raw_spinlock_t, returns unlocked"
};

static const struct pin_kind pin_kinds[] = {
	{ NULL, "callout_init_flags(CALLOUT_PINNED)" },
	{ &pin_spin, "callout_init_lock(CALLOUT_PINNED)" },
	{ &pin_raw,
	  "callout_init_raw_lock(CALLOUT_PINNED | CALLOUT_RETURNUNLOCKED)" },
};

KUNIT_ARRAY_PARAM_DESC(pin_kind, pin_kinds, desc);

/*
 * A CALLOUT_PINNED callout runs on the CPU it was first armed on, however
 * and wherever it is armed again, until setcallout_on() names another
 * CPU; then it stays on that one.
 */
static void callout_pinned_stays_on_first_cpu(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct pinned *p = &own(test)->pin;
	int a = ctx->cpu_a, b = ctx->cpu_b;

	need_two_cpus(test);
	KUNIT_ASSERT_EQ(test, pin_setup(p, test->param_value), 0);
	pin_step(test, p, 0, b, pin_ns, b, "setcallout_ns(), the first arming");
	pin_step(test, p, 1, a, pin_ns, b, "setcallout_ns()");
	pin_step(test, p, 2, a, pin_ticks, b, "setcallout()");
	pin_step(test, p, 3, a, pin_at, b, "setcallout_at()");
	pin_step(test, p, 4, a, pin_jiffies, b, "setcallout_jiffies()");
	pin_step(test, p, 5, a, pin_on_here, a, "setcallout_on(its own CPU)");
	pin_step(test, p, 6, b, pin_ns, a, "setcallout_ns(), after the move");
	pin_step(test, p, 7, b, pin_forward, a, "callout_forward()");
	KUNIT_EXPECT_EQ(test, unsetcallout_sync(&p->lc.c), 0);
}

/* Take @cpu offline, for a case that .exit brings it back for. */
static void take_down(struct kunit *test, int cpu)
{
	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU))
		kunit_skip(test, "needs CONFIG_HOTPLUG_CPU");
	KUNIT_ASSERT_EQ_MSG(test, remove_cpu(cpu), 0, "remove_cpu(%d)", cpu);
}

/*
 * setcallout_on() naming an offline CPU: -ENODEV, nothing changed.  An
 * idle handle records no arming; a pending one keeps its deadline; a
 * pinned one keeps its CPU.
 */
static void setcallout_on_offline_cpu_returns_enodev(struct kunit *test)
{
	static const struct pin_kind plain = { NULL, "" };
	struct client *ctx = test->priv;
	struct cpus_ctx *tc = own(test);
	struct tprobe *idle = &tc->t[0], *pend = &tc->t[1];
	struct pinned *p = &tc->pin;
	ktime_t d0 = ktime_add_ns(ktime_get(), FAR_NS);
	int ret[3];

	need_two_cpus(test);
	KUNIT_ASSERT_EQ(test, pin_setup(p, &plain), 0);
	KUNIT_ASSERT_EQ(test, setcallout_at(&pend->c, tprobe_fn, pend, d0), 0);
	KUNIT_ASSERT_EQ(test, pin_far(p), 0);	/* pinned to cpu_a */

	take_down(test, ctx->cpu_b);
	ret[0] = setcallout_on(&idle->c, tprobe_fn, idle, tick_ns(), 0,
			       ctx->cpu_b, 0);
	ret[1] = setcallout_on(&pend->c, tprobe_fn, pend, tick_ns(), 0,
			       ctx->cpu_b, CALLOUT_ABSOLUTE);
	ret[2] = setcallout_on(&p->lc.c, pin_fn, p, 0, 0, ctx->cpu_b, 0);
	KUNIT_ASSERT_EQ(test, add_cpu(ctx->cpu_b), 0);

	KUNIT_EXPECT_EQ_MSG(test, ret[0], -ENODEV, "an idle handle");
	KUNIT_EXPECT_EQ_MSG(test, ret[1], -ENODEV, "a pending handle");
	KUNIT_EXPECT_EQ_MSG(test, ret[2], -ENODEV, "a pinned handle");
	KUNIT_EXPECT_FALSE(test, callout_pending(&idle->c));
	KUNIT_EXPECT_EQ_MSG(test, callout_forward(&idle->c, FAR_NS, 0),
			    -EINVAL, "a refused arming was recorded");
	unsetcallout(&idle->c);
	KUNIT_EXPECT_TRUE(test, callout_pending(&pend->c));
	KUNIT_EXPECT_EQ(test, callout_when(&pend->c), d0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&p->lc.c), 1);
	/* Still pinned to cpu_a: armed from cpu_b, it runs there. */
	pin_step(test, p, 0, ctx->cpu_b, pin_ns, ctx->cpu_a,
		 "setcallout_ns() of the pinned handle");
	spin_ns(quiet_ns(0));
	KUNIT_EXPECT_EQ(test, atomic_read(&idle->runs) +
			atomic_read(&pend->runs), 0);
	KUNIT_EXPECT_EQ(test, unsetcallout(&pend->c), 1);
}

/*
 * A CALLOUT_PINNED callout pending on a CPU that goes offline moves to
 * another CPU and stays there: armed again from any CPU, the old one back
 * online included, it runs on the one it moved to.
 */
static void callout_pinned_moves_with_offline_cpu(struct kunit *test)
{
	static const struct pin_kind plain = { NULL, "" };
	struct client *ctx = test->priv;
	struct pinned *p = &own(test)->pin;
	int cpu, i = 0, home;

	need_two_cpus(test);
	KUNIT_ASSERT_EQ(test, pin_setup(p, &plain), 0);
	KUNIT_ASSERT_EQ(test, call_on(ctx->cpu_b, pin_far, p), 0);
	take_down(test, ctx->cpu_b);
	KUNIT_EXPECT_TRUE_MSG(test, callout_pending(&p->lc.c),
			      "lost with its CPU");
	KUNIT_ASSERT_EQ(test, add_cpu(ctx->cpu_b), 0);

	/* pending on the CPU it moved to -> re-armed from the old one */
	KUNIT_EXPECT_EQ(test, call_on(ctx->cpu_b, pin_ns, p), 1);
	KUNIT_ASSERT_TRUE(test, wait_count(&p->runs, ++i, LOST_NS));
	home = p->cpu[0];
	KUNIT_EXPECT_NE_MSG(test, home, ctx->cpu_b,
			    "back on CPU %d, which went offline", home);
	for_each_online_cpu(cpu) {
		if (i == NPIN_RUNS)
			break;
		pin_step(test, p, i++, cpu, pin_ns, home, "setcallout_ns()");
	}
}

static void cpus_setup(void *data)
{
	struct cpus_ctx *cc = data;

	tprobes_init(cc->t, NTP);
}

static int cpus_init(struct kunit *test)
{
	return client_init_own(test, sizeof(struct cpus_ctx), cpus_setup);
}

/*
 * Bring back a CPU a case took offline, cancel the suite's callouts and
 * controls, then what all cases share.
 */
static void cpus_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct cpus_ctx *cc = ctx ? ctx->own : NULL;

	if (cc) {
		if (ctx->cpu_b >= 0 && !cpu_online(ctx->cpu_b))
			add_cpu(ctx->cpu_b);
		tprobes_end(cc->t, NTP);
		unsetcallout_sync(&cc->pin.lc.c);
	}
	client_exit(test);
}

static struct kunit_case cpus_cases[] = {
	KUNIT_CASE(setcallout_on_cpu_runs_there),
	KUNIT_CASE(setcallout_on_running_elsewhere_moves_after),
	KUNIT_CASE_PARAM(setcallout_on_bad_cpu_or_flags_returns_einval,
			 bad_on_gen_params),
	KUNIT_CASE(setcallout_on_offline_cpu_returns_enodev),
	KUNIT_CASE(callout_init_flags_rejects_unknown),
	KUNIT_CASE_PARAM(callout_pinned_stays_on_first_cpu,
			 pin_kind_gen_params),
	KUNIT_CASE(callout_pinned_moves_with_offline_cpu),
	{}
};

CLIENT_SUITE(cpu, cpus_cases, cpus_init, cpus_exit);
