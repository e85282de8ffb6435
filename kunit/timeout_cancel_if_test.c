// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_timeout_cancel_if: twheel_timeout_cancel_if(), the
 * walk over timeout()'s hash table that cancels every pending callout its
 * test accepts.  Matching on the function, it cancels that function's
 * callouts whatever their argument and however many duplicates, and
 * leaves a running one alone; it holds a stripe lock for %TWHEEL_BATCH
 * entries at most, seen through an irq_work that runs as each hold ends;
 * and it keeps its place while untimeout() takes entries from under it.
 *
 * Waiters busy-poll against ktime rather than sleep (wait.h).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bsearch.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/sort.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"

static void other_fn(void *arg)
{
	atomic_inc(arg);
}

/* The callouts whose function is @data. */
static bool func_match(const struct callout *c, void *data)
{
	return (void *)c->func == data;
}

/* A callout that runs until told to return. */
struct blocker {
	atomic_t started;
	atomic_t go;
};

static void block_fn(void *arg)
{
	struct blocker *b = arg;

	atomic_set(&b->started, 1);
	while (!atomic_read(&b->go))
		cpu_relax();
}

/* Arm block_fn on the CPU this runs on: an IPI. */
static void arm_blocker(void *arg)
{
	WARN_ON_ONCE(timeout(block_fn, arg, 1));
}

/*
 * twheel_timeout_cancel_if() with a match on the function cancels every
 * pending callout of that function, whatever its argument and however
 * many duplicates, says which function came first, and leaves the others
 * and a running one alone; with no match it cancels nothing and leaves
 * *first as it was.
 */
static void timeout_cancel_if_matches_func(struct kunit *test)
{
	atomic_t *a = kunit_kcalloc(test, 2, sizeof(*a), GFP_KERNEL);
	struct blocker *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	callout_func_t first = other_fn;
	unsigned long n, none;
	unsigned int cpu, other;
	bool ran;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	/* count_fn: three of one key, one of another; other_fn: two. */
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[0], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(other_fn, &a[0], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[0], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[1], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(other_fn, &a[1], FAR_TICKS), 0);
	KUNIT_ASSERT_EQ(test, timeout(count_fn, &a[0], FAR_TICKS), 0);
	/*
	 * block_fn: one running, on the other CPU, one pending.  This thread
	 * keeps to its CPU, which the running one does not hold.
	 */
	migrate_disable();
	cpu = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, cpu);
	KUNIT_ASSERT_EQ(test, smp_call_function_single(other, arm_blocker, b,
						       true), 0);
	ran = poll_until(atomic_read(&b->started));
	KUNIT_EXPECT_EQ(test, timeout(block_fn, b, FAR_TICKS), 0);

	none = twheel_timeout_cancel_if(func_match, (void *)spin_ns, &first);
	KUNIT_EXPECT_EQ(test, none, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, (void *)first, (void *)other_fn);

	n = twheel_timeout_cancel_if(func_match, (void *)count_fn, &first);
	KUNIT_EXPECT_EQ(test, n, 4UL);
	KUNIT_EXPECT_PTR_EQ(test, (void *)first, (void *)count_fn);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, &a[0]), 0);
	KUNIT_EXPECT_EQ(test, untimeout(count_fn, &a[1]), 0);

	n = twheel_timeout_cancel_if(func_match, (void *)block_fn, &first);
	KUNIT_EXPECT_TRUE(test, ran);
	KUNIT_EXPECT_EQ_MSG(test, n, 1UL, "the running one was cancelled");
	KUNIT_EXPECT_PTR_EQ(test, (void *)first, (void *)block_fn);
	KUNIT_EXPECT_EQ(test, key_entries(block_fn, b), ran ? 1UL : 0UL);
	atomic_set(&b->go, 1);
	/* Its release, after it returns, frees it. */
	KUNIT_EXPECT_TRUE(test, poll_until(!key_entries(block_fn, b)));
	migrate_enable();

	KUNIT_EXPECT_EQ(test, untimeout_all(other_fn, &a[0]), 1);
	KUNIT_EXPECT_EQ(test, untimeout_all(other_fn, &a[1]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&a[0]) + atomic_read(&a[1]), 0);
}

/*
 * One walk of twheel_timeout_cancel_if(), watched hold by hold of its
 * stripe locks.  Its test runs with the lock held and interrupts off; its
 * first call in a hold queues @end, an irq_work, whose self-interrupt
 * comes as soon as the lock is let go and interrupts are on again, and
 * closes the hold's count.  Of the key (@func, @arg) the test records
 * each callout offered, and accepts every @every-th (none if 0).
 */
struct hold_watch {
	struct irq_work end;
	callout_func_t func;
	void *arg;
	unsigned int every;
	unsigned int in_hold;
	unsigned int key_in_hold;
	unsigned int most;
	unsigned int holds;
	unsigned long accepted;
	/* The key's callouts offered, up to @room of them, and how many. */
	const struct callout **offered;
	unsigned long room;
	unsigned long seen;
	/* In the pause after the first hold with the key: untimeout()s. */
	unsigned int pause_untimeouts;
	unsigned int untimed;
	bool paused;
};

static void hold_end(struct irq_work *work)
{
	struct hold_watch *h = container_of(work, struct hold_watch, end);
	unsigned int i;

	h->most = max(h->most, h->in_hold);
	h->holds++;
	if (h->key_in_hold && !h->paused) {
		/* The walk waits, its place held, while the key changes. */
		h->paused = true;
		for (i = 0; i < h->pause_untimeouts; i++)
			h->untimed += untimeout(h->func, h->arg);
	}
	h->in_hold = 0;
	h->key_in_hold = 0;
}

static bool hold_match(const struct callout *c, void *data)
{
	struct hold_watch *h = data;

	if (!h->in_hold++)
		irq_work_queue(&h->end);
	if (c->func != h->func || c->arg != h->arg)
		return false;
	h->key_in_hold++;
	if (h->seen < h->room)
		h->offered[h->seen] = c;
	h->seen++;
	if (!h->every || h->seen % h->every)
		return false;
	h->accepted++;
	return true;
}

/*
 * Arm @n duplicates of the key (count_fn, @a) for @h to watch.  The walk's
 * end needs irq_work's self-interrupt: without it the case is skipped.
 */
static void arm_watched(struct kunit *test, struct hold_watch *h,
			atomic_t *a, unsigned int n)
{
	unsigned int i;

	if (!arch_irq_work_has_interrupt())
		kunit_skip(test, "needs irq_work's self-interrupt");
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, timeout(count_fn, a, FAR_TICKS), 0);
	h->func = count_fn;
	h->arg = a;
}

/*
 * Watch twheel_timeout_cancel_if() through @h, which has its key and
 * room for @room callouts; return what it cancelled.
 */
static unsigned long watch_cancel_if(struct kunit *test, struct hold_watch *h,
				     unsigned long room)
{
	unsigned long n;

	h->end = IRQ_WORK_INIT_HARD(hold_end);
	h->offered = kunit_kcalloc(test, room, sizeof(*h->offered),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->offered);
	h->room = room;
	n = twheel_timeout_cancel_if(hold_match, h, NULL);
	irq_work_sync(&h->end);
	return n;
}

/*
 * twheel_timeout_cancel_if() holds a stripe lock for %TWHEEL_BATCH
 * entries at most, cancelled or not, as the tick holds a base lock: 2000
 * duplicates of one key, all in one bucket, of which its test accepts one
 * in seven, are looked at a batch per hold of the lock, each once, and
 * the ones accepted, and only those, are cancelled.  A walk that counted
 * only cancellations held the lock for seven batches' worth and more.
 */
static void timeout_cancel_if_holds_lock_per_batch(struct kunit *test)
{
	struct hold_watch *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	atomic_t *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	const unsigned int n = 2000;
	unsigned long cancelled;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, a);
	arm_watched(test, h, a, n);
	h->every = 7;

	cancelled = watch_cancel_if(test, h, n);
	kunit_info(test, "%u holds, the longest offering %u callouts\n",
		   h->holds, h->most);
	KUNIT_EXPECT_EQ(test, h->seen, (unsigned long)n);
	KUNIT_EXPECT_EQ(test, h->accepted, (unsigned long)n / 7);
	KUNIT_EXPECT_EQ(test, cancelled, h->accepted);
	KUNIT_EXPECT_LE_MSG(test, h->most, (unsigned int)TWHEEL_BATCH,
			    "one hold of a stripe lock offered %u callouts",
			    h->most);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, a), n - n / 7);
	KUNIT_EXPECT_EQ(test, atomic_read(a), 0);
}

/* untimeout()s made while the walk pauses after its first batch. */
struct pause_case {
	unsigned int untimeouts;
	const char *desc;
};

static const struct pause_case pause_cases[] = {
	{ 100, "100: some of those walked" },
	{ 300, "300: those walked, then the first not walked" },
	{ 1000, "1000: every one, and the key with them" },
};

KUNIT_ARRAY_PARAM_DESC(pause, pause_cases, desc);

static int ptr_cmp(const void *a, const void *b)
{
	const void *x = *(const void * const *)a, *y = *(const void * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * While twheel_timeout_cancel_if() pauses in a key of 1000 duplicates
 * after its first batch, untimeout() takes away the most recent ones: the
 * walk's place holds (its mark among the key's older entries, or in the
 * chain before the key once its newest goes from before the mark, or
 * where the key was once it is gone), so that the walk offers no callout
 * twice, and every one still hashed when it ends was offered.
 */
static void timeout_cancel_if_untimeout_while_paused(struct kunit *test)
{
	const struct pause_case *p = test->param_value;
	struct hold_watch *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct hold_watch *after = kunit_kzalloc(test, sizeof(*after),
						 GFP_KERNEL);
	atomic_t *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	const unsigned int n = 1000;
	unsigned long i, left;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, after);
	KUNIT_ASSERT_NOT_NULL(test, a);
	arm_watched(test, h, a, n);
	h->pause_untimeouts = p->untimeouts;

	KUNIT_EXPECT_EQ(test, watch_cancel_if(test, h, n), 0UL);
	KUNIT_ASSERT_TRUE(test, h->paused);
	KUNIT_EXPECT_EQ(test, h->untimed, p->untimeouts);
	KUNIT_EXPECT_LE(test, h->seen, (unsigned long)n);
	KUNIT_EXPECT_LE(test, h->most, (unsigned int)TWHEEL_BATCH);
	sort(h->offered, h->seen, sizeof(*h->offered), ptr_cmp, NULL);
	for (i = 1; i < h->seen; i++)
		KUNIT_EXPECT_PTR_NE_MSG(test, h->offered[i], h->offered[i - 1],
					"offered twice");

	/* What is left was there throughout, and was offered. */
	after->func = count_fn;
	after->arg = a;
	watch_cancel_if(test, after, n);
	left = after->seen;
	KUNIT_EXPECT_EQ(test, left, (unsigned long)(n - p->untimeouts));
	for (i = 0; i < left; i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test,
					  bsearch(&after->offered[i],
						  h->offered, h->seen,
						  sizeof(*h->offered),
						  ptr_cmp),
					  "callout %lu of those left not offered",
					  i);
	KUNIT_EXPECT_EQ(test, untimeout_all(count_fn, a), left);
	KUNIT_EXPECT_EQ(test, atomic_read(a), 0);
}

static struct kunit_case twheel_timeout_cancel_if_cases[] = {
	KUNIT_CASE(timeout_cancel_if_matches_func),
	KUNIT_CASE(timeout_cancel_if_holds_lock_per_batch),
	KUNIT_CASE_PARAM(timeout_cancel_if_untimeout_while_paused,
			 pause_gen_params),
	{}
};

static struct kunit_suite twheel_timeout_cancel_if_suite = {
	.name = "twheel_timeout_cancel_if",
	.test_cases = twheel_timeout_cancel_if_cases,
};

kunit_test_suite(twheel_timeout_cancel_if_suite);

MODULE_DESCRIPTION("KUnit tests of twheel_timeout_cancel_if()");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
