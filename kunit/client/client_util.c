// SPDX-License-Identifier: GPL-2.0
/*
 * client_util.c - what the twheel_client_* suites share (client.h): probes
 * and the functions they run, the checks of a run's timing, callouts held
 * or re-armed by their functions, arming on another CPU or in hardirq
 * context, and the .init and .exit of a case.
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "client.h"

/* The order in which probes run, over the whole suite. */
static atomic_t run_order;

void record(struct probe *p, enum probe_fn_id fn)
{
	int i = atomic_read(&p->runs);

	p->at = ktime_get();
	if (i < NRUNS)
		p->ats[i] = p->at;
	p->cpu = raw_smp_processor_id();
	p->seq = atomic_inc_return(&run_order);
	p->softirq = in_serving_softirq() && !in_hardirq();
	p->pending = callout_pending(&p->c);
	p->fn = fn;
}

void done(struct probe *p)
{
	atomic_inc_return_release(&p->runs);
}

void probe_fn(void *arg)
{
	record(arg, RAN_PROBE);
	done(arg);
}

void alt_fn(void *arg)
{
	record(arg, RAN_ALT);
	done(arg);
}

/* Arm @c to run @fn(@p), noting in @p where and when. */
int arm(struct callout *c, callout_func_t fn, struct probe *p,
	unsigned long ticks)
{
	p->ticks = ticks;
	p->arm_cpu = raw_smp_processor_id();
	p->armed = ktime_get();
	return setcallout(c, fn, p, ticks);
}

int arm_timeout(callout_func_t fn, struct probe *p, unsigned long ticks)
{
	p->ticks = ticks;
	p->arm_cpu = raw_smp_processor_id();
	p->armed = ktime_get();
	return timeout(fn, p, ticks);
}

/* Busy-poll, never sleep, until @v reaches @n or @ns have passed. */
bool wait_count(atomic_t *v, int n, u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (atomic_read_acquire(v) < n) {
		if (!ktime_before(ktime_get(), end))
			return atomic_read_acquire(v) >= n;
		cpu_relax();
	}
	return true;
}

/* The documented timing of the last run of @p, already waited for. */
void check_record(struct kunit *test, struct probe *p, const char *what)
{
	s64 after = ktime_to_ns(ktime_sub(p->at, p->armed));

	KUNIT_EXPECT_GT_MSG(test, after, (s64)ticks_ns(p->ticks),
			    "%s: armed for %lu ticks (%llu ns), ran %lld ns after the arming call: early",
			    what, p->ticks, ticks_ns(p->ticks), after);
	KUNIT_EXPECT_LE_MSG(test, after, (s64)LOST_NS,
			    "%s: armed for %lu ticks, ran %lld ns after the arming call",
			    what, p->ticks, after);
	KUNIT_EXPECT_EQ_MSG(test, p->cpu, p->arm_cpu,
			    "%s: armed on CPU %d, ran on CPU %d",
			    what, p->arm_cpu, p->cpu);
	KUNIT_EXPECT_TRUE_MSG(test, p->softirq,
			      "%s: did not run in softirq context", what);
}

/* Wait for @p's function to have returned @runs times; check the last. */
void check_ran(struct kunit *test, struct probe *p, int runs,
	       const char *what)
{
	KUNIT_ASSERT_TRUE_MSG(test, wait_count(&p->runs, runs, LOST_NS),
			      "%s: armed for %lu ticks on CPU %d, ran %d of %d times within %llu ns",
			      what, p->ticks, p->arm_cpu,
			      atomic_read(&p->runs), runs, LOST_NS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->runs), runs,
			    "%s: ran more often than armed", what);
	check_record(test, p, what);
}

/* Check that @p's function does not run (again) while a cancelled one would. */
void check_quiet(struct kunit *test, struct probe *p, int runs,
		 unsigned long ticks, const char *what)
{
	spin_ns(quiet_ns(ticks));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read_acquire(&p->runs), runs,
			    "%s: ran %d times, expected %d",
			    what, atomic_read(&p->runs), runs);
}

void hold_fn(void *arg)
{
	struct hold *h = arg;
	int i = min(atomic_read(&h->runs), 1);
	ktime_t until;

	if (atomic_inc_return(&h->active) > 1)
		WRITE_ONCE(h->overlapped, true);
	h->cpu[i] = raw_smp_processor_id();
	h->start[i] = ktime_get();
	if (i == 0) {
		if (h->rearm_ticks)
			h->rearm_ret = setcallout(&h->c, hold_fn, h,
						  h->rearm_ticks);
		atomic_set_release(&h->entered, 1);
		until = ktime_add_ns(h->start[0], h->hold_ns);
		while (!atomic_read_acquire(&h->release) &&
		       ktime_before(ktime_get(), until))
			cpu_relax();
	}
	h->end[i] = ktime_get();
	atomic_dec(&h->active);
	atomic_inc_return_release(&h->runs);
}

void hold_reset(struct hold *h, u64 hold_ns, unsigned long rearm_ticks)
{
	h->hold_ns = hold_ns;
	h->rearm_ticks = rearm_ticks;
	h->rearm_ret = INT_MIN;
	h->overlapped = false;
	atomic_set(&h->release, 0);
	atomic_set(&h->entered, 0);
	atomic_set(&h->active, 0);
	atomic_set(&h->runs, 0);
}

void periodic_fn(void *arg)
{
	struct periodic *pr = arg;
	int i = atomic_read(&pr->runs);
	bool again;
	int ret;

	atomic_set_release(&pr->in_fn, 1);
	if (i < NPERIODIC) {
		pr->at[i] = ktime_get();
		pr->cpu[i] = raw_smp_processor_id();
		pr->pending[i] = callout_pending(&pr->c);
	}
	again = pr->limit ? i + 1 < pr->limit : !READ_ONCE(pr->stop);
	if (again) {
		ret = setcallout(&pr->c, periodic_fn, pr, pr->period);
		if (i < NPERIODIC) {
			pr->ret[i] = ret;
			pr->rearmed[i] = callout_pending(&pr->c);
		}
	}
	if (pr->busy_ns)
		spin_ns(pr->busy_ns);
	atomic_set_release(&pr->in_fn, 0);
	atomic_inc_return_release(&pr->runs);
}

static void remote_arm_fn(void *info)
{
	struct remote_arm *r = info;

	r->cpu = raw_smp_processor_id();
	if (r->p) {
		r->p->ticks = r->ticks;
		r->p->arm_cpu = r->cpu;
	}
	r->armed = ktime_get();
	if (r->p)
		r->p->armed = r->armed;
	r->ret = r->c ? setcallout(r->c, r->fn, r->arg, r->ticks) :
			timeout(r->fn, r->arg, r->ticks);
}

int arm_on(int cpu, struct remote_arm *r)
{
	return smp_call_function_single(cpu, remote_arm_fn, r, 1);
}

/* @fn(@data) on @cpu, from its hardirq (an IPI). */
struct on_cpu_call {
	int (*fn)(void *data);
	void *data;
	int ret;
};

static void on_cpu_call_fn(void *info)
{
	struct on_cpu_call *oc = info;

	oc->ret = oc->fn(oc->data);
}

/* @fn's return, or the IPI's error. */
int call_on(int cpu, int (*fn)(void *data), void *data)
{
	struct on_cpu_call oc = { .fn = fn, .data = data, .ret = INT_MIN };
	int err = smp_call_function_single(cpu, on_cpu_call_fn, &oc, 1);

	return err ? err : oc.ret;
}

static enum hrtimer_restart hardirq_call_fn(struct hrtimer *t)
{
	struct hardirq_call *hc = container_of(t, struct hardirq_call, t);

	hc->hardirq = in_hardirq();
	hc->cpu = raw_smp_processor_id();
	hc->fn(hc->data);
	atomic_set_release(&hc->done, 1);
	return HRTIMER_NORESTART;
}

/* @n initialised probes, which .exit cancels and frees. */
struct probe *alloc_many(struct kunit *test, int n)
{
	struct client *ctx = test->priv;
	int i;

	ctx->many = kvcalloc(n, sizeof(*ctx->many), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->many);
	for (i = 0; i < n; i++)
		callout_init(&ctx->many[i].c);
	ctx->nmany = n;
	return ctx->many;
}

void run_hardirq(struct kunit *test, void (*fn)(void *), void *data)
{
	struct hardirq_call *hc = &((struct client *)test->priv)->hc;
	bool fired;

	hc->fn = fn;
	hc->data = data;
	atomic_set(&hc->done, 0);
	hrtimer_start(&hc->t, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	fired = wait_count(&hc->done, 1, LOST_NS);
	hrtimer_cancel(&hc->t);		/* waits for the callback to return */
	KUNIT_ASSERT_TRUE_MSG(test, fired, "the hard hrtimer did not fire");
	KUNIT_ASSERT_TRUE_MSG(test, hc->hardirq,
			      "the hard hrtimer did not run in hardirq context");
}

const struct atomic_case atomic_cases[NR_ATOMIC_WHERE] = {
	{ AT_PREEMPT_OFF, "preemption disabled" },
	{ AT_IRQS_OFF, "interrupts disabled" },
	{ AT_SPINLOCK, "spinlock held" },
	{ AT_BH_OFF, "bottom halves disabled" },
	{ AT_HARDIRQ, "hardirq (hard hrtimer)" },
};

static DEFINE_SPINLOCK(client_lock);

/* Call @fn(@data) in the atomic context @where. */
void run_in(struct kunit *test, enum atomic_where where,
	    void (*fn)(void *), void *data)
{
	unsigned long flags;

	switch (where) {
	case AT_PREEMPT_OFF:
		preempt_disable();
		fn(data);
		preempt_enable();
		break;
	case AT_IRQS_OFF:
		local_irq_save(flags);
		fn(data);
		local_irq_restore(flags);
		break;
	case AT_SPINLOCK:
		spin_lock(&client_lock);
		fn(data);
		spin_unlock(&client_lock);
		break;
	case AT_BH_OFF:
		local_bh_disable();
		fn(data);
		local_bh_enable();
		break;
	case AT_HARDIRQ:
		run_hardirq(test, fn, data);
		break;
	}
}

void need_two_cpus(struct kunit *test)
{
	struct client *ctx = test->priv;

	if (ctx->cpu_b < 0)
		kunit_skip(test, "needs two online CPUs");
}

int client_init(struct kunit *test)
{
	struct client *ctx;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	for (i = 0; i < NPROBES; i++)
		callout_init(&ctx->probe[i].c);
	callout_init(&ctx->hold.c);
	callout_init(&ctx->per.c);
	hrtimer_setup(&ctx->hc.t, hardirq_call_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
	ctx->cpu_a = cpumask_first(cpu_online_mask);
	ctx->cpu_b = cpumask_next(ctx->cpu_a, cpu_online_mask);
	if (ctx->cpu_b >= nr_cpu_ids)
		ctx->cpu_b = -1;
	test->priv = ctx;
	return pin(ctx->cpu_a);
}

/*
 * client_init() for a suite that keeps more: @size bytes of its own,
 * zeroed, on client.own, which @setup then sets up.
 */
int client_init_own(struct kunit *test, size_t size, void (*setup)(void *own))
{
	struct client *ctx;
	int ret = client_init(test);

	if (ret)
		return ret;
	ctx = test->priv;
	ctx->own = kunit_kzalloc(test, size, GFP_KERNEL);
	if (!ctx->own)
		return -ENOMEM;
	setup(ctx->own);
	return 0;
}

/*
 * Cancel all a case armed, so that twheel never calls into this module
 * later; a suite's own .exit has ended what it keeps on @own before.
 */
void client_exit(struct kunit *test)
{
	struct client *ctx = test->priv;
	struct probe *p;
	int i, n;

	if (!ctx)
		return;
	hrtimer_cancel(&ctx->hc.t);
	atomic_set_release(&ctx->hold.release, 1);
	ctx->hold.rearm_ticks = 0;
	WRITE_ONCE(ctx->per.stop, true);
	ctx->per.limit = 0;
	/* A function under way (softirq: an RCU reader) sees the above. */
	synchronize_rcu();

	unsetcallout_sync(&ctx->hold.c);
	unsetcallout_sync(&ctx->per.c);
	for (i = 0; i < NPROBES; i++) {
		p = &ctx->probe[i];
		unsetcallout_sync(&p->c);
		do {
			n = untimeout(probe_fn, p) + untimeout(alt_fn, p);
		} while (n > 0);
	}
	for (i = 0; i < ctx->nmany; i++)
		unsetcallout_sync(&ctx->many[i].c);
	/* A timeout() function already started has returned after this. */
	synchronize_rcu();
	kvfree(ctx->many);
}

MODULE_DESCRIPTION("KUnit: twheel's documented contract, seen by a client");
MODULE_LICENSE("GPL");
