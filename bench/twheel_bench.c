// SPDX-License-Identifier: GPL-2.0
/*
 * The paper's Fig. 9 experiment, and the memory each facility takes per
 * outstanding timer.  Loaded by scripts/bench.sh, after twheel.ko; runs in
 * its init and prints one line per figure to the kernel log, in the format
 * of bench_line.h (BUILD is @label, SCHEME "-" for the kernel's own):
 *
 *   fig9 build=BUILD facility=F scheme=SCHEME n=N | pair_ns=NS
 *   lone build=BUILD facility=F scheme=SCHEME cpu=CPU |
 *        pending_before=PENDING pair_ns=NS
 *   lone-idle build=BUILD facility=F scheme=SCHEME cpu=CPU |
 *        loop_interrupts=A settle_ms=MS settle_interrupts=B idle_ms=MS
 *        idle_interrupts=C
 *   memory facility=F | bytes=BYTES
 *   steps step=STEP | ns=NS
 *   clock reader=READER | ns=NS
 *
 * Fig. 9: N timers are armed for random times far in the future, and one
 * more; then, over and over, that one is cancelled and another set in its
 * place, each time for a random time farther out than all the others, and
 * the time per cancel+set pair is reported.  The one set is the next of
 * PROBES spares taken in turn (PROBES says why).  The facilities:
 *
 *   bsd_list           4.4BSD's calltodo: one list sorted by expiry, each
 *                      c_time relative to its predecessor; timeout() walks
 *                      it to insert, untimeout() walks it to find (func, arg)
 *   twheel_timeout     twheel's timeout()/untimeout(), found by hash
 *   twheel_setcallout  twheel's setcallout()/unsetcallout(), by handle
 *   twheel_setcallout_lock
 *                      the same on handles set up by callout_init_lock():
 *                      the pair alone, the caller not holding the lock,
 *                      which twheel's own cost is (it takes the lock only
 *                      around the function, never in the pair)
 *   twheel_setcallout_lock_bh
 *                      the same, each pair inside spin_lock_bh() and
 *                      spin_unlock_bh() of that lock, as a client that
 *                      relies on the promise of callout_init_lock() does:
 *                      twheel's pair plus the client's lock (step
 *                      spin_lock_bh+unlock is the latter alone)
 *   timer_list         the kernel's timer wheel: timer_delete() + add_timer()
 *   hrtimer            the kernel's rbtree: hrtimer_try_to_cancel() +
 *                      hrtimer_start()
 *
 * The two lock-associated facilities exist when twheel.h has
 * callout_init_lock() (CALLOUT_RETURNUNLOCKED is its flag): so this file
 * still builds against an older twheel (scripts/bench.sh, BASELINE=).
 * With @fig9_only, only Fig. 9 is measured: scripts/bench.sh loads the
 * module again so to repeat twheel's pairs, and bench-report.py reads
 * each point's runs together.
 *
 * The lone timer (@lone): the same pairs on the only timer of one CPU
 * (@lone_cpu, or the last online one), from a worker bound to it, with
 * interrupts as they are, for every facility above but bsd_list and the
 * lock-associated ones.  PENDING is the number of twheel callouts pending
 * on that CPU before ("-" for the kernel's facilities), which should be
 * 0: then cancelling the lone callout empties the wheel and setting it
 * wakes it, each time.  After twheel_setcallout's, lone-idle tells whether
 * twheel then stays tickless: the callout is set once more, for
 * LONE_TICKS ticks, and cancelled; the CPU's twheel interrupts are
 * counted over the timed loop (A), the settling time after (B: an
 * hrtimer left armed may fire once into the empty wheel there) and the
 * idle time after that (C: 0 if twheel is tickless), from its debugfs
 * "stats"; "-" if that is not there.
 *
 * memory: the size of each facility's timer; twheel_timeout's entry is
 * internal to twheel, which says it in debugfs "config" (scripts/bench.sh
 * prints that line).
 *
 * The clock readers (clock): ns per call of ktime_get_ns(), which
 * setcallout() calls to know the tick, of ktime_get_coarse_ns(), the time
 * of the last tick of the kernel's timekeeping, and of a plain read of
 * jiffies, as timer_list takes the time.
 *
 * The single steps (steps): what the pairs are made of, each alone in a
 * loop (bench_steps() lists them); scripts/emulation-costs.sh sets them
 * beside their instruction counts.  The parameter "trace" makes one pair
 * of a facility for scripts/pair-trace.sh to single-step in a debugger.
 */

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "twheel.h"
#include "bench_line.h"
#include "twheel_dfs.h"
#include "../twheel_compat.h"	/* hrtimer_setup() before 6.13 */

/* The lines this module prints, as bench_line.h says. */
#define LONE_LINE \
	"lone build=%s facility=%s scheme=%s cpu=%u | pending_before=%s pair_ns=%llu"
#define LONE_IDLE_LINE \
	"lone-idle build=%s facility=%s scheme=%u cpu=%u | loop_interrupts=%s settle_ms=%llu " \
	"settle_interrupts=%s idle_ms=%llu idle_interrupts=%s"

static char *facilities;
module_param(facilities, charp, 0444);
MODULE_PARM_DESC(facilities, "comma-separated facilities to measure (default: all)");

static char *label = "tree";
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "the lines' build=, for another twheel.ko than the tree's or the tree's with its events on; not \"tree\": no steps or memory");

static bool fig9_only;
module_param(fig9_only, bool, 0444);
MODULE_PARM_DESC(fig9_only, "measure Fig. 9 only: no steps, memory or lone timer (a repeat)");

static unsigned int scheme;
module_param(scheme, uint, 0444);
MODULE_PARM_DESC(scheme, "twheel's scheme, for the lines (6 or 7)");

static unsigned int max_n = 1000000;
module_param(max_n, uint, 0444);
MODULE_PARM_DESC(max_n, "largest N; N runs over the powers of 10 from 100");

static bool lone = true;
module_param(lone, bool, 0444);
MODULE_PARM_DESC(lone, "measure the pairs on a CPU's only timer too (default Y)");

static int lone_cpu = -1;
module_param(lone_cpu, int, 0444);
MODULE_PARM_DESC(lone_cpu, "the CPU of the lone timer (default: the last online)");

static unsigned int min_ms = 200;
module_param(min_ms, uint, 0444);
MODULE_PARM_DESC(min_ms, "time each batch of a point lasts, at least");

static unsigned int batches = 3;
module_param(batches, uint, 0444);
MODULE_PARM_DESC(batches, "batches per point, the fastest reported (default 3)");

/*
 * "Far in the future": the N timers are set between FAR and 2 * FAR units
 * ahead, the spares between 3 * FAR and 4 * FAR.  In twheel ticks and
 * BSD ticks (1 ms by default) that is over 16 minutes: nothing fires
 * during a run.
 */
#define FAR		1000000ULL

static struct rnd_state bench_rnd;

static u64 far_random(unsigned int quarter)
{
	return FAR * quarter + prandom_u32_state(&bench_rnd) % FAR;
}

static void never(void *arg)
{
	WARN_ONCE(1, "twheel_bench: a far timer ran\n");
}

/* ---- 4.4BSD calltodo -------------------------------------------------- */

struct bsd_callout {
	struct bsd_callout *c_next;
	void *c_arg;
	callout_func_t c_func;
	long c_time;			/* ticks after its predecessor */
};

static struct bsd_callout bsd_calltodo;	/* list head */
static struct bsd_callout *bsd_callfree;
static DEFINE_SPINLOCK(bsd_lock);	/* splclock() */

static void bsd_timeout(callout_func_t func, void *arg, long t)
{
	struct bsd_callout *new, *p1, *p2;
	unsigned long flags;

	spin_lock_irqsave(&bsd_lock, flags);
	new = bsd_callfree;
	bsd_callfree = new->c_next;
	new->c_arg = arg;
	new->c_func = func;
	/* Walk to the insertion point, turning t into a difference. */
	for (p1 = &bsd_calltodo; (p2 = p1->c_next) && p2->c_time < t; p1 = p2)
		if (p2->c_time > 0)
			t -= p2->c_time;
	new->c_time = t;
	if (p2)
		p2->c_time -= t;
	p1->c_next = new;
	new->c_next = p2;
	spin_unlock_irqrestore(&bsd_lock, flags);
}

static void bsd_untimeout(callout_func_t func, void *arg)
{
	struct bsd_callout *p1, *p2;
	unsigned long flags;

	spin_lock_irqsave(&bsd_lock, flags);
	for (p1 = &bsd_calltodo; (p2 = p1->c_next); p1 = p2) {
		if (p2->c_func != func || p2->c_arg != arg)
			continue;
		if (p2->c_next && p2->c_time > 0)
			p2->c_next->c_time += p2->c_time;
		p1->c_next = p2->c_next;
		p2->c_next = bsd_callfree;
		bsd_callfree = p2;
		break;
	}
	spin_unlock_irqrestore(&bsd_lock, flags);
}

/* ---- the experiment --------------------------------------------------- */

/*
 * The timers of the pairs: after the n others come PROBES spares, one of
 * them armed at a time, and each pair cancels it and sets the next.  A
 * twheel_timeout pair costs 6 instructions more for each other key in the
 * hash bucket of the key it sets (timeout() walks past them to see that
 * the key is new), and which bucket one key lands in hangs on its address,
 * so on the boot: taking turns, its figure is the mean over PROBES keys,
 * as a client with many keys sees it, and not one key's luck.  Every
 * facility takes its spares in turn, so that the timed loops are alike.
 */
#define PROBES		64

static unsigned int probe;	/* the spare armed now: timer n + probe */

/* Pass the turn: *@was is the spare to cancel, the return the one to set. */
static inline unsigned int probe_turn(unsigned int n, unsigned int *was)
{
	*was = n + probe;
	probe = (probe + 1) % PROBES;
	return n + probe;
}

/*
 * One facility: @setup arms timers 0..n-1 (a sorted fast path is fine,
 * it is not measured) and the first spare, timer n, @pairs does @reps
 * cancel+set pairs on the spares, @teardown cancels everything.
 */
struct facility {
	const char *name;
	bool twheel;
	bool lone;
	size_t bytes;
	int (*setup)(unsigned int n);
	void (*pairs)(unsigned int n, unsigned int reps);
	void (*teardown)(unsigned int n);
};

static void *items;		/* n + PROBES of the facility's timers */
static u64 *sorted;		/* setup times, sorted, for bsd_list */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int bsd_setup(unsigned int n)
{
	struct bsd_callout *c;
	u64 prev = 0;
	unsigned int i;

	items = vcalloc(n + PROBES, sizeof(*c));
	sorted = vmalloc(array_size(n, sizeof(*sorted)));
	if (!items || !sorted)
		return -ENOMEM;
	c = items;
	/*
	 * The free list holds the two callouts after the n, and the list is
	 * built sorted.  Spare j's key is &c[n + j], an address only.
	 */
	c[n].c_next = &c[n + 1];
	bsd_callfree = &c[n];
	for (i = 0; i < n; i++)
		sorted[i] = far_random(1);
	sort(sorted, n, sizeof(*sorted), cmp_u64, NULL);
	bsd_calltodo.c_next = n ? &c[0] : NULL;
	for (i = 0; i < n; i++) {
		c[i].c_func = never;
		c[i].c_arg = &c[i];
		c[i].c_time = sorted[i] - prev;
		c[i].c_next = i + 1 < n ? &c[i + 1] : NULL;
		prev = sorted[i];
	}
	bsd_timeout(never, &c[n], far_random(3));
	return 0;
}

static void bsd_pairs(unsigned int n, unsigned int reps)
{
	struct bsd_callout *c = items;

	while (reps--) {
		unsigned int was, next = probe_turn(n, &was);

		bsd_untimeout(never, &c[was]);
		bsd_timeout(never, &c[next], far_random(3));
	}
}

static void bsd_teardown(unsigned int n)
{
	bsd_calltodo.c_next = NULL;
	bsd_callfree = NULL;
	vfree(sorted);
	sorted = NULL;
}

static int tw_timeout_setup(unsigned int n)
{
	unsigned long *arg;
	unsigned int i;

	items = vcalloc(n + PROBES, sizeof(*arg));
	if (!items)
		return -ENOMEM;
	arg = items;
	for (i = 0; i <= n; i++)
		if (timeout(never, &arg[i], far_random(i < n ? 1 : 3)))
			return -ENOMEM;
	return 0;
}

static void tw_timeout_pairs(unsigned int n, unsigned int reps)
{
	unsigned long *arg = items;

	while (reps--) {
		unsigned int was, next = probe_turn(n, &was);

		untimeout(never, &arg[was]);
		timeout(never, &arg[next], far_random(3));
	}
}

static void tw_timeout_teardown(unsigned int n)
{
	unsigned long *arg = items;
	unsigned int i;

	for (i = 0; i < n + PROBES; i++)
		untimeout(never, &arg[i]);
}

static int tw_callout_setup(unsigned int n)
{
	struct callout *c;
	unsigned int i;

	items = vcalloc(n + PROBES, sizeof(*c));
	if (!items)
		return -ENOMEM;
	c = items;
	for (i = 0; i < n + PROBES; i++)
		callout_init(&c[i]);
	for (i = 0; i <= n; i++)
		setcallout(&c[i], never, &c[i], far_random(i < n ? 1 : 3));
	return 0;
}

static void tw_callout_pairs(unsigned int n, unsigned int reps)
{
	struct callout *c = items;

	while (reps--) {
		unsigned int was, next = probe_turn(n, &was);

		unsetcallout(&c[was]);
		setcallout(&c[next], never, &c[next], far_random(3));
	}
}

static void tw_callout_teardown(unsigned int n)
{
	struct callout *c = items;
	unsigned int i;

	for (i = 0; i < n + PROBES; i++)
		unsetcallout_sync(&c[i]);
}

/*
 * Lock-associated callouts: every handle shares one lock, which no
 * function ever takes, since none runs.
 */
#ifdef CALLOUT_RETURNUNLOCKED
static DEFINE_SPINLOCK(bench_callout_lock);

static int tw_locked_setup(unsigned int n)
{
	struct callout_locked *lc;
	unsigned int i;

	items = vcalloc(n + PROBES, sizeof(*lc));
	if (!items)
		return -ENOMEM;
	lc = items;
	for (i = 0; i < n + PROBES; i++)
		if (callout_init_lock(&lc[i], &bench_callout_lock, 0))
			return -EINVAL;
	for (i = 0; i <= n; i++)
		setcallout(&lc[i].c, never, &lc[i], far_random(i < n ? 1 : 3));
	return 0;
}

static void tw_locked_pairs(unsigned int n, unsigned int reps)
{
	struct callout_locked *lc = items;

	while (reps--) {
		unsigned int was, next = probe_turn(n, &was);

		unsetcallout(&lc[was].c);
		setcallout(&lc[next].c, never, &lc[next], far_random(3));
	}
}

static void tw_locked_bh_pairs(unsigned int n, unsigned int reps)
{
	struct callout_locked *lc = items;

	while (reps--) {
		unsigned int was, next = probe_turn(n, &was);

		spin_lock_bh(&bench_callout_lock);
		unsetcallout(&lc[was].c);
		setcallout(&lc[next].c, never, &lc[next], far_random(3));
		spin_unlock_bh(&bench_callout_lock);
	}
}

static void tw_locked_teardown(unsigned int n)
{
	struct callout_locked *lc = items;
	unsigned int i;

	for (i = 0; i < n + PROBES; i++)
		unsetcallout_sync(&lc[i].c);
}
#endif

static void timer_never(struct timer_list *t)
{
	never(t);
}

/* timer_list and hrtimer times: FAR units of 1 ms, as twheel's ticks. */
static unsigned long far_jiffies(unsigned int quarter)
{
	return jiffies + msecs_to_jiffies(far_random(quarter));
}

static int timer_setup_n(unsigned int n)
{
	struct timer_list *t;
	unsigned int i;

	items = vcalloc(n + PROBES, sizeof(*t));
	if (!items)
		return -ENOMEM;
	t = items;
	for (i = 0; i < n + PROBES; i++)
		timer_setup(&t[i], timer_never, 0);
	for (i = 0; i <= n; i++)
		mod_timer(&t[i], far_jiffies(i < n ? 1 : 3));
	return 0;
}

static void timer_pairs(unsigned int n, unsigned int reps)
{
	struct timer_list *t = items;

	while (reps--) {
		unsigned int was, next = probe_turn(n, &was);

		timer_delete(&t[was]);
		t[next].expires = far_jiffies(3);
		add_timer(&t[next]);
	}
}

static void timer_teardown(unsigned int n)
{
	struct timer_list *t = items;
	unsigned int i;

	for (i = 0; i < n + PROBES; i++)
		timer_delete_sync(&t[i]);
}

static enum hrtimer_restart hrtimer_never(struct hrtimer *h)
{
	never(h);
	return HRTIMER_NORESTART;
}

static ktime_t far_ktime(unsigned int quarter)
{
	return ktime_add_ms(ktime_get(), far_random(quarter));
}

static int hrtimer_setup_n(unsigned int n)
{
	struct hrtimer *h;
	unsigned int i;

	items = vcalloc(n + PROBES, sizeof(*h));
	if (!items)
		return -ENOMEM;
	h = items;
	for (i = 0; i < n + PROBES; i++) {
		hrtimer_setup(&h[i], hrtimer_never, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS);
	}
	for (i = 0; i <= n; i++)
		hrtimer_start(&h[i], far_ktime(i < n ? 1 : 3), HRTIMER_MODE_ABS);
	return 0;
}

static void hrtimer_pairs(unsigned int n, unsigned int reps)
{
	struct hrtimer *h = items;

	while (reps--) {
		unsigned int was, next = probe_turn(n, &was);

		hrtimer_try_to_cancel(&h[was]);
		hrtimer_start(&h[next], far_ktime(3), HRTIMER_MODE_ABS);
	}
}

static void hrtimer_teardown(unsigned int n)
{
	struct hrtimer *h = items;
	unsigned int i;

	for (i = 0; i < n + PROBES; i++)
		hrtimer_cancel(&h[i]);
}

static const struct facility facility_table[] = {
	{ "bsd_list", false, false, sizeof(struct bsd_callout), bsd_setup,
	  bsd_pairs, bsd_teardown },
	{ "twheel_timeout", true, true, 0, tw_timeout_setup,
	  tw_timeout_pairs, tw_timeout_teardown },
	{ "twheel_setcallout", true, true, sizeof(struct callout),
	  tw_callout_setup, tw_callout_pairs, tw_callout_teardown },
#ifdef CALLOUT_RETURNUNLOCKED
	{ "twheel_setcallout_lock", true, false, sizeof(struct callout_locked),
	  tw_locked_setup, tw_locked_pairs, tw_locked_teardown },
	{ "twheel_setcallout_lock_bh", true, false, 0, tw_locked_setup,
	  tw_locked_bh_pairs, tw_locked_teardown },
#endif
	{ "timer_list", false, true, sizeof(struct timer_list), timer_setup_n,
	  timer_pairs, timer_teardown },
	{ "hrtimer", false, true, sizeof(struct hrtimer), hrtimer_setup_n,
	  hrtimer_pairs, hrtimer_teardown },
};

/* Is @name one of the comma-separated @facilities, or are they all? */
static bool wanted(const char *name)
{
	size_t len = strlen(name);
	const char *p = facilities;

	if (!p)
		return true;
	for (;;) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
}

/*
 * ns per pair for @f with @n timers outstanding, or 0 on failure: the
 * fastest of @batches batches, each of enough pairs to last min_ms.  On a
 * shared host, more and shorter batches give the fastest a better chance
 * to fall between the other loads' time slices.
 */
static u64 measure(const struct facility *f, unsigned int n)
{
	unsigned int reps = 16, batch;
	u64 t0, ns, best = U64_MAX;

	probe = 0;
	if (f->setup(n)) {
		f->teardown(n);
		vfree(items);
		items = NULL;
		return 0;
	}
	/* Double the repetitions until one batch lasts min_ms. */
	for (;;) {
		t0 = ktime_get_ns();
		f->pairs(n, reps);
		ns = ktime_get_ns() - t0;
		if (ns >= (u64)min_ms * NSEC_PER_MSEC || reps >= (1U << 30))
			break;
		reps *= 2;
		cond_resched();
	}
	for (batch = 0; batch < max(batches, 1U); batch++) {
		t0 = ktime_get_ns();
		f->pairs(n, reps);
		best = min(best, div_u64(ktime_get_ns() - t0, reps));
		cond_resched();
	}
	f->teardown(n);
	vfree(items);
	items = NULL;
	return best;
}

/* ---- the lone timer -------------------------------------------------- */

/*
 * The last callout of loneidle is set this many ticks ahead and cancelled
 * at once: a twheel that leaves its hrtimer armed then takes that one
 * interrupt within the settling time.
 */
#define LONE_TICKS	10
#define LONE_SETTLE_MS	500
#define LONE_IDLE_MS	1000

/* What the worker on the lone CPU runs, and what it found. */
struct lone_work {
	const struct facility *f;
	u64 ns;
};

static long lone_fn(void *arg)
{
	struct lone_work *w = arg;
	struct callout c;

	w->ns = measure(w->f, 0);
	if (!strcmp(w->f->name, "twheel_setcallout")) {
		callout_init(&c);
		setcallout(&c, never, &c, LONE_TICKS);
		unsetcallout_sync(&c);
	}
	return 0;
}

/* @cpu's twheel "interrupts" and "pending", -1 for what cannot be read. */
static void lone_stats(unsigned int cpu, s64 *irqs, s64 *pending)
{
	static const char *const names[] = { "interrupts", "pending" };
	s64 v[ARRAY_SIZE(names)];

	dfs_read_cpu_stats(cpu, names, v, ARRAY_SIZE(names));
	*irqs = v[0];
	*pending = v[1];
}

/* @b - @a as a metric in @buf, "-" if either could not be read. */
static const char *delta(char buf[24], s64 a, s64 b)
{
	if (a < 0 || b < 0)
		return "-";
	snprintf(buf, 24, "%lld", b - a);
	return buf;
}

static void bench_lone(const struct facility *f, unsigned int cpu)
{
	struct lone_work w = { .f = f };
	s64 irq0, irq1, irq2, irq3, pending;
	char col[8] = "-", was[24] = "-", d[3][24];
	u64 t1, t2, t3;

	if (f->twheel)
		snprintf(col, sizeof(col), "%u", scheme);
	lone_stats(cpu, &irq0, &pending);
	if (f->twheel)
		snprintf(was, sizeof(was), "%lld", pending);
	work_on_cpu(cpu, lone_fn, &w);
	if (!w.ns) {
		pr_err("twheel_bench: %s lone: out of memory\n", f->name);
		return;
	}
	bench_line(LONE_LINE, label, f->name, col, cpu, was, w.ns);
	if (strcmp(f->name, "twheel_setcallout"))
		return;

	t1 = ktime_get_ns();
	lone_stats(cpu, &irq1, &pending);
	msleep(LONE_SETTLE_MS);
	t2 = ktime_get_ns();
	lone_stats(cpu, &irq2, &pending);
	msleep(LONE_IDLE_MS);
	t3 = ktime_get_ns();
	lone_stats(cpu, &irq3, &pending);
	bench_line(LONE_IDLE_LINE,
		   label, f->name, scheme, cpu, delta(d[0], irq0, irq1),
		   div_u64(t2 - t1, NSEC_PER_MSEC), delta(d[1], irq1, irq2),
		   div_u64(t3 - t2, NSEC_PER_MSEC), delta(d[2], irq2, irq3));
}

enum { CLOCK_KTIME, CLOCK_COARSE, CLOCK_JIFFIES, CLOCK_NR };

static const char *const clock_names[CLOCK_NR] = {
	[CLOCK_KTIME] = "ktime_get_ns",
	[CLOCK_COARSE] = "ktime_get_coarse_ns",
	[CLOCK_JIFFIES] = "jiffies",
};

/*
 * ns for @reps reads of clock @which.  Always inlined into a function per
 * clock, @which a constant there, so that each loop holds one reader as
 * its callers have it, with no branch or indirect call around it.
 */
static __always_inline u64 clock_loop(unsigned int which, unsigned int reps)
{
	u64 t0 = ktime_get_ns(), sum = 0;
	unsigned int i;

	for (i = 0; i < reps; i++) {
		if (which == CLOCK_KTIME)
			sum += ktime_get_ns();
		else if (which == CLOCK_COARSE)
			sum += ktime_get_coarse_ns();
		else
			sum += READ_ONCE(jiffies);
	}
	WARN_ON_ONCE(!sum);
	return ktime_get_ns() - t0;
}

static noinline u64 clock_loop_ktime(unsigned int reps)
{
	return clock_loop(CLOCK_KTIME, reps);
}

static noinline u64 clock_loop_coarse(unsigned int reps)
{
	return clock_loop(CLOCK_COARSE, reps);
}

static noinline u64 clock_loop_jiffies(unsigned int reps)
{
	return clock_loop(CLOCK_JIFFIES, reps);
}

/*
 * The single steps a pair is made of, each timed alone in a loop of its
 * own, ns per step with the loop's own instructions (best of three
 * batches): so that a pair's time can be read against what its steps cost
 * alone, and, run once under plain TCG and once under bench.sh ICOUNT=1
 * (where a ns is an instruction), what the emulator charges for each
 * (scripts/emulation-costs.sh).  Two steps calibrate: the empty loop,
 * and eight ALU instructions, what an ordinary instruction costs.  The
 * rest are what TCG may charge more for: a call and return, direct and
 * through a pointer; a locked increment and a locked cmpxchg, the atomic
 * that spin_lock() is; reading the interrupt flag (pushf), clearing and
 * setting it (cli, sti), and both as local_irq_save() and
 * local_irq_restore() do; the cycle counter alone, and the clock read that
 * setcallout() makes to know the tick and far_ktime() to set an hrtimer
 * (ktime_get() is ktime_get_ns() without the conversion, which is none);
 * jiffies, as timer_list takes the time; and the locks every facility
 * takes, interrupt- and bottom-half-disabling.
 */
enum {
	STEP_EMPTY, STEP_ALU, STEP_CALL, STEP_ICALL, STEP_LOCK_INC,
	STEP_CMPXCHG, STEP_SAVE_FLAGS, STEP_IRQ_OFF_ON, STEP_IRQ, STEP_CYCLES,
	STEP_KTIME, STEP_JIFFIES, STEP_RAW_LOCK, STEP_BH_LOCK, STEP_NR
};

static const char *const step_names[STEP_NR] = {
	[STEP_EMPTY] = "empty_loop",
	[STEP_ALU] = "alu_x8",
	[STEP_CALL] = "call+ret",
	[STEP_ICALL] = "indirect_call+ret",
	[STEP_LOCK_INC] = "lock_inc",
	[STEP_CMPXCHG] = "lock_cmpxchg",
	[STEP_SAVE_FLAGS] = "local_save_flags",
	[STEP_IRQ_OFF_ON] = "local_irq_disable+enable",
	[STEP_IRQ] = "local_irq_save+restore",
	[STEP_CYCLES] = "get_cycles",
	[STEP_KTIME] = "ktime_get_ns",
	[STEP_JIFFIES] = "jiffies",
	[STEP_RAW_LOCK] = "raw_spin_lock_irqsave+unlock",
	[STEP_BH_LOCK] = "spin_lock_bh+unlock",
};

static noinline void step_callee(void)
{
	barrier();
}

static void (*step_pointer)(void) = step_callee;
static atomic_t step_atomic;
static DEFINE_RAW_SPINLOCK(step_raw_spinlock);
static DEFINE_SPINLOCK(step_bh_spinlock);

/*
 * ns for @reps of step @which.  Always inlined, @which a constant, so
 * that each loop holds its step and nothing else.  OPTIMIZER_HIDE_VAR()
 * keeps each ALU operation apart, costing no instruction itself.
 */
static __always_inline u64 step_loop(unsigned int which, unsigned int reps)
{
	u64 t0 = ktime_get_ns(), sum = 0;
	unsigned long flags, x = 1;
	unsigned int i;

	for (i = 0; i < reps; i++) {
		switch (which) {
		case STEP_ALU:
			x += i;
			OPTIMIZER_HIDE_VAR(x);
			x ^= i;
			OPTIMIZER_HIDE_VAR(x);
			x -= i;
			OPTIMIZER_HIDE_VAR(x);
			x |= i;
			OPTIMIZER_HIDE_VAR(x);
			x += i;
			OPTIMIZER_HIDE_VAR(x);
			x ^= i;
			OPTIMIZER_HIDE_VAR(x);
			x -= i;
			OPTIMIZER_HIDE_VAR(x);
			x &= i;
			OPTIMIZER_HIDE_VAR(x);
			break;
		case STEP_CALL:
			step_callee();
			break;
		case STEP_ICALL:
			READ_ONCE(step_pointer)();
			break;
		case STEP_LOCK_INC:
			atomic_inc(&step_atomic);
			break;
		case STEP_CMPXCHG:
			atomic_cmpxchg(&step_atomic, i, i + 1);
			break;
		case STEP_SAVE_FLAGS:
			local_save_flags(flags);
			x += flags;
			break;
		case STEP_IRQ_OFF_ON:
			local_irq_disable();
			local_irq_enable();
			break;
		case STEP_IRQ:
			local_irq_save(flags);
			local_irq_restore(flags);
			break;
		case STEP_CYCLES:
			sum += get_cycles();
			break;
		case STEP_KTIME:
			sum += ktime_get_ns();
			break;
		case STEP_JIFFIES:
			sum += READ_ONCE(jiffies);
			break;
		case STEP_RAW_LOCK:
			raw_spin_lock_irqsave(&step_raw_spinlock, flags);
			raw_spin_unlock_irqrestore(&step_raw_spinlock, flags);
			break;
		case STEP_BH_LOCK:
			spin_lock_bh(&step_bh_spinlock);
			spin_unlock_bh(&step_bh_spinlock);
			break;
		}
		/* Every loop counts alike, an increment, compare and jump. */
		OPTIMIZER_HIDE_VAR(i);
		barrier();
	}
	WARN_ON_ONCE(!sum && !x);
	return ktime_get_ns() - t0;
}

/* One loop per step, each with its step a constant: see step_loop(). */
static noinline u64 step_run(unsigned int which, unsigned int reps)
{
	switch (which) {
	case STEP_EMPTY:
		return step_loop(STEP_EMPTY, reps);
	case STEP_ALU:
		return step_loop(STEP_ALU, reps);
	case STEP_CALL:
		return step_loop(STEP_CALL, reps);
	case STEP_ICALL:
		return step_loop(STEP_ICALL, reps);
	case STEP_LOCK_INC:
		return step_loop(STEP_LOCK_INC, reps);
	case STEP_CMPXCHG:
		return step_loop(STEP_CMPXCHG, reps);
	case STEP_SAVE_FLAGS:
		return step_loop(STEP_SAVE_FLAGS, reps);
	case STEP_IRQ_OFF_ON:
		return step_loop(STEP_IRQ_OFF_ON, reps);
	case STEP_IRQ:
		return step_loop(STEP_IRQ, reps);
	case STEP_CYCLES:
		return step_loop(STEP_CYCLES, reps);
	case STEP_KTIME:
		return step_loop(STEP_KTIME, reps);
	case STEP_JIFFIES:
		return step_loop(STEP_JIFFIES, reps);
	case STEP_RAW_LOCK:
		return step_loop(STEP_RAW_LOCK, reps);
	case STEP_BH_LOCK:
		return step_loop(STEP_BH_LOCK, reps);
	}
	return 0;
}

/*
 * The steps, then the clock readers side by side in tenths of a ns: what
 * a coarser clock than ktime_get_ns() would save setcallout().
 */
static void bench_steps(void)
{
	const unsigned int reps = 100000;
	u64 clock[CLOCK_NR], step[STEP_NR];
	unsigned int b, i;
	char ns[24];

	for (i = 0; i < ARRAY_SIZE(clock); i++)
		clock[i] = U64_MAX;
	for (i = 0; i < ARRAY_SIZE(step); i++)
		step[i] = U64_MAX;
	for (b = 0; b < 3; b++) {
		clock[CLOCK_KTIME] = min(clock[CLOCK_KTIME],
					 clock_loop_ktime(reps));
		clock[CLOCK_COARSE] = min(clock[CLOCK_COARSE],
					  clock_loop_coarse(reps));
		clock[CLOCK_JIFFIES] = min(clock[CLOCK_JIFFIES],
					   clock_loop_jiffies(reps));
		for (i = 0; i < STEP_NR; i++)
			step[i] = min(step[i], step_run(i, reps));
		cond_resched();
	}
	for (i = 0; i < STEP_NR; i++)
		bench_line("steps step=%s | ns=%s", step_names[i],
			   bench_frac(ns, sizeof(ns), step[i], reps, 1));
	for (i = 0; i < CLOCK_NR; i++)
		bench_line("clock reader=%s | ns=%s", clock_names[i],
			   bench_frac(ns, sizeof(ns), clock[i], reps, 1));
}

/*
 * One pair for scripts/pair-trace.sh to single-step in a debugger:
 * writing a facility's name to the parameter "trace" sets it up with
 * TRACE_N timers, runs TRACE_WARM pairs so that the traced one finds
 * everything as a timed one does, then makes one more pair, alone, in
 * bench_trace_pair(), where the debugger steps in.  The guest waits for
 * the debugger to set @trace_ready before it writes.
 */
#define TRACE_N		100
#define TRACE_WARM	1000

static DEFINE_MUTEX(bench_mutex);	/* one experiment at a time */

static bool trace_ready;
module_param(trace_ready, bool, 0644);
MODULE_PARM_DESC(trace_ready, "set by the debugger of scripts/pair-trace.sh once it waits in bench_trace_pair()");

static noinline void bench_trace_pair(const struct facility *f)
{
	f->pairs(TRACE_N, 1);
	barrier();
}

static int trace_set(const char *val, const struct kernel_param *kp)
{
	const struct facility *f = NULL;
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(facility_table); i++)
		if (sysfs_streq(val, facility_table[i].name))
			f = &facility_table[i];
	if (!f)
		return -EINVAL;
	mutex_lock(&bench_mutex);
	prandom_seed_state(&bench_rnd, 1997);
	probe = 0;
	if (f->setup(TRACE_N)) {
		err = -ENOMEM;
	} else {
		f->pairs(TRACE_N, TRACE_WARM);
		bench_trace_pair(f);
	}
	f->teardown(TRACE_N);
	vfree(items);
	items = NULL;
	mutex_unlock(&bench_mutex);
	return err;
}

static const struct kernel_param_ops trace_ops = {
	.set = trace_set,
};
module_param_cb(trace, &trace_ops, NULL, 0200);
MODULE_PARM_DESC(trace, "write a facility's name: one pair of it with 100 timers, in bench_trace_pair(), for scripts/pair-trace.sh");

static void bench_run(void)
{
	unsigned int i, n, cpu;

	prandom_seed_state(&bench_rnd, 1997);
	if (wanted("twheel_setcallout") && !strcmp(label, "tree") && !fig9_only)
		bench_steps();
	for (i = 0; i < ARRAY_SIZE(facility_table); i++) {
		const struct facility *f = &facility_table[i];
		char col[8] = "-";

		if (!wanted(f->name))
			continue;
		if (f->twheel)
			snprintf(col, sizeof(col), "%u", scheme);
		if (f->bytes && !strcmp(label, "tree") && !fig9_only)
			bench_line("memory facility=%s | bytes=%zu", f->name,
				   f->bytes);
		for (n = 100; n <= max_n; n *= 10) {
			u64 ns = measure(f, n);

			if (!ns) {
				pr_err("twheel_bench: %s with %u timers: out of memory\n",
				       f->name, n);
				break;
			}
			bench_line("fig9 build=%s facility=%s scheme=%s n=%u | pair_ns=%llu",
				   label, f->name, col, n, ns);
			cond_resched();
		}
	}
	if (!lone || fig9_only)
		return;
	if (lone_cpu >= 0 && lone_cpu < nr_cpu_ids && cpu_online(lone_cpu))
		cpu = lone_cpu;
	else
		cpu = cpumask_last(cpu_online_mask);
	for (i = 0; i < ARRAY_SIZE(facility_table); i++)
		if (facility_table[i].lone && wanted(facility_table[i].name))
			bench_lone(&facility_table[i], cpu);
}

static int __init bench_init(void)
{
	mutex_lock(&bench_mutex);
	bench_run();
	mutex_unlock(&bench_mutex);
	return 0;
}
module_init(bench_init);

static void __exit bench_exit(void)
{
}
module_exit(bench_exit);

MODULE_DESCRIPTION("twheel benchmark: the paper's Fig. 9, and memory");
MODULE_LICENSE("GPL");
