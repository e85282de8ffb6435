// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_coalesce: the tick a callout armed with a precision
 * is due on.  First twheel_coalesce(), the pure function that picks it,
 * against its contract: the result lies in [first, max(first, last)], is
 * the busy tick when that lies in the window, and is otherwise the tick of
 * the window with the most trailing zero bits; over a table of windows
 * with a reason each, every window of up to 130 ticks starting in 130
 * ticks at several places of the u64 range, and random wide windows.
 *
 * Then the engine: setcallout_on() with a precision arms the callout for
 * the tick twheel_coalesce() gives, read back from the pending callout's
 * entry (its expires tick), with the first and last tick of the window
 * its deadline gives: the tick the CPU's interrupt is set for, or else
 * one with work, when the window holds one; and callouts on one CPU whose windows overlap land
 * on a few ticks and take a few interrupts (twheel_stats_read()), where
 * the same callouts exact take a tick each.  The ticks are compared, not
 * times, and the functions still never run before their deadlines.
 * (Suite twheel_client_deadline checks the timing a client sees.)
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "twheel.h"
#include "twheel_compat.h"
#include "twheel_internal.h"
#include "test_util.h"

#define NONE		U64_MAX	/* no tick busy */
#define NCO		48	/* callouts of the overlapping-windows case */
#define CO_WINDOW	64	/* their precision, in ticks */
#define CO_AHEAD	60	/* ticks from now to the first deadline */

/* Trailing zero bits of @t: 0 is a multiple of every power of two. */
static unsigned int tz(u64 t)
{
	return t ? __ffs64(t) : 64;
}

/* The contract, by brute force over the window. */
static u64 ref_coalesce(u64 first, u64 last, u64 busy)
{
	u64 t, best = first;

	if (last <= first)
		return first;
	if (busy >= first && busy <= last)
		return busy;
	for (t = first + 1; ; t++) {
		if (tz(t) > tz(best))
			best = t;
		if (t == last)
			return best;
	}
}

struct co_case {
	u64 first;
	u64 last;
	u64 busy;
	u64 want;
	const char *desc;
};

static const struct co_case co_cases[] = {
	{ 5, 5, NONE, 5, "one tick: first" },
	{ 5, 4, NONE, 5, "last before first: first" },
	{ 5, 0, NONE, 5, "last 0: first" },
	{ 5, 5, 7, 5, "one tick, busy later: first" },
	{ 5, 6, NONE, 6, "5..6: the even one" },
	{ 6, 7, NONE, 6, "6..7: the even one, first" },
	{ 5, 8, NONE, 8, "5..8: 8, on last" },
	{ 9, 15, NONE, 12, "9..15: 12, a multiple of 4" },
	{ 9, 15, 11, 11, "busy inside: busy" },
	{ 9, 15, 9, 9, "busy on first" },
	{ 9, 15, 15, 15, "busy on last" },
	{ 9, 15, 8, 12, "busy just before: not taken" },
	{ 9, 15, 16, 12, "busy just after: not taken" },
	{ 7, 9, 1ULL << 40, 8, "busy far off: not taken" },
	{ 1000, 1063, NONE, 1024, "1000..1063: 1024" },
	{ 1025, 2047, NONE, 1536, "1025..2047: 1536" },
	{ 3, 1ULL << 20, NONE, 1ULL << 20, "3..2^20: 2^20" },
	{ 0, 7, NONE, 0, "from tick 0: 0" },
	{ (1ULL << 40) + 1, (1ULL << 41) - 1, NONE,
	  (1ULL << 40) + (1ULL << 39), "2^40 + 1..2^41 - 1: 2^40 + 2^39" },
	{ 1, U64_MAX - 1, NONE, 1ULL << 63, "1..2^64 - 2: 2^63" },
	{ U64_MAX - 8, U64_MAX - 1, NONE, U64_MAX - 7,
	  "2^64 - 8..2^64 - 2: 2^64 - 8" },
};

KUNIT_ARRAY_PARAM_DESC(co, co_cases, desc);

/* twheel_coalesce() of each row of the table gives the row's tick. */
static void twheel_coalesce_table(struct kunit *test)
{
	const struct co_case *cc = test->param_value;
	u64 got = twheel_coalesce(cc->first, cc->last, cc->busy);

	KUNIT_EXPECT_EQ_MSG(test, got, cc->want, "%s: [%llu, %llu], busy %llu",
			    cc->desc, cc->first, cc->last, cc->busy);
	/* The row itself, where the brute force is quick. */
	if (cc->last < cc->first + 4096)
		KUNIT_EXPECT_EQ(test, cc->want,
				ref_coalesce(cc->first, cc->last, cc->busy));
}

/* Where the sweep of small windows starts. */
static const u64 sweep_bases[] = {
	0, (1ULL << 32) - 70, (1ULL << 40) - 70, (1ULL << 63) - 70,
	U64_MAX - 300,
};

/*
 * Every window of -2 to 130 ticks' width starting at one of 131 ticks
 * from each base, with no busy tick and with one just before, on, inside,
 * at the end of and just after the window: twheel_coalesce() gives what
 * the brute force gives, and a tick in the window.
 */
static void twheel_coalesce_small_windows_exhaustive(struct kunit *test)
{
	unsigned int b, i, k, wrong = 0, outside = 0, n = 0;
	u64 first, last, want, got, end, pick, busy[6];
	int w;

	for (b = 0; b < ARRAY_SIZE(sweep_bases); b++) {
		for (i = 0; i <= 130; i++) {
			first = sweep_bases[b] + i;
			for (w = -2; w <= 130; w++) {
				last = w < 0 && first < -w ? 0 : first + w;
				end = max(first, last);
				busy[0] = NONE;
				busy[1] = first - 1;
				busy[2] = first;
				busy[3] = first + (end - first) / 2;
				busy[4] = end;
				busy[5] = end + 1;
				pick = ref_coalesce(first, last, NONE);
				for (k = 0; k < ARRAY_SIZE(busy); k++, n++) {
					want = busy[k] >= first && busy[k] <= end ?
					       ref_coalesce(first, last, busy[k]) :
					       pick;
					got = twheel_coalesce(first, last, busy[k]);
					outside += got < first || got > end;
					if (got != want && !wrong++)
						KUNIT_EXPECT_EQ_MSG(test, got, want,
								    "[%llu, %llu], busy %llu",
								    first, last,
								    busy[k]);
				}
			}
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0U, "%u of %u windows", wrong, n);
	KUNIT_EXPECT_EQ_MSG(test, outside, 0U, "%u of %u outside the window",
			    outside, n);
}

static u64 rnd64(struct rnd_state *rnd)
{
	return (u64)prandom_u32_state(rnd) << 32 | prandom_u32_state(rnd);
}

/*
 * Random windows up to 2^62 ticks wide: the result lies in the window,
 * no multiple of a higher power of two than it is does, and a busy tick
 * in the window is taken.
 */
static void twheel_coalesce_random_wide_windows(struct kunit *test)
{
	unsigned int i, wrong = 0;
	u64 first, last, got, busy, m;
	struct rnd_state rnd;
	unsigned int z;

	prandom_seed_state(&rnd, 2026);
	for (i = 0; i < 100000; i++) {
		first = rnd64(&rnd) >> (prandom_u32_state(&rnd) % 64);
		first = max(first, 1ULL);
		last = first + (rnd64(&rnd) >> (2 + prandom_u32_state(&rnd) % 62));
		if (last < first)	/* wrapped */
			last = U64_MAX - 1;
		got = twheel_coalesce(first, last, NONE);
		z = tz(got);
		/* The largest multiple of 2^(z + 1) not after last. */
		m = z < 63 ? last & ~(BIT_ULL(z + 1) - 1) : 0;
		if (got < first || got > last || (z < 63 && m >= first)) {
			if (!wrong++)
				KUNIT_EXPECT_EQ_MSG(test, got,
						    ref_coalesce(first, last, NONE),
						    "[%llu, %llu]", first, last);
			continue;
		}
		busy = first + (last - first) / (1 + prandom_u32_state(&rnd) % 7);
		if (twheel_coalesce(first, last, busy) != busy && !wrong++)
			KUNIT_EXPECT_EQ_MSG(test, twheel_coalesce(first, last, busy),
					    busy, "[%llu, %llu]", first, last);
	}
	KUNIT_EXPECT_EQ(test, wrong, 0U);
}

/* A callout of the engine cases, and when its function ran. */
struct co_probe {
	struct callout c;
	ktime_t deadline;
	u64 tick;		/* the tick it was armed for */
	u64 first, last;	/* of its window; first_lo if unsure */
	bool sure;		/* @first is known exactly */
	ktime_t at;
	atomic_t runs;
};

/* What a case arms, for .exit to cancel; the CPU it runs on. */
struct co_ctx {
	struct callout flush;
	atomic_t flushed;
	struct co_probe p[NCO];
	int cpu;
};

static void co_fn(void *arg)
{
	struct co_probe *p = arg;

	p->at = ktime_get();
	atomic_inc_return_release(&p->runs);
}

static u64 cpu_pending(int cpu)
{
	struct twheel_cpu_stats st;

	twheel_stats_read(cpu, &st);
	return st.outstanding;
}

static u64 cpu_interrupts(int cpu)
{
	struct twheel_cpu_stats st;

	twheel_stats_read(cpu, &st);
	return st.interrupts;
}

/*
 * Leave the case's CPU with its tick unset, so that no tick is busy for a
 * window: run a callout there on the next tick, whose interrupt then sets
 * the tick for what else is pending, if anything.  The case thread runs
 * on that CPU, so the tick has returned once it sees the function ran.
 * True if nothing else is pending there.
 */
static bool co_quiesce(struct kunit *test, struct co_ctx *cc)
{
	int n = atomic_read(&cc->flushed);

	KUNIT_ASSERT_EQ(test, setcallout_on(&cc->flush, count_fn, &cc->flushed,
					    0, 0, cc->cpu, 0), 0);
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read(&cc->flushed) > n));
	return cpu_pending(cc->cpu) == 0;
}

/*
 * Arm @p on the case's CPU for the absolute @deadline with @precision, and
 * note the tick it was armed for and its window: [first, last] as the
 * contract gives them, first being max(ceil(deadline / tick), the tick of
 * the call + 1), which the clock read before and after the call pins down
 * unless a tick began in between and the deadline is that close.
 */
static int co_arm(struct co_ctx *cc, struct co_probe *p, ktime_t deadline,
		  u64 precision)
{
	u64 tk = twheel_tick_ns(), ceil_d = div64_u64(deadline + tk - 1, tk);
	ktime_t before = ktime_get(), after;
	u64 first_hi;
	int ret;

	p->deadline = deadline;
	ret = setcallout_on(&p->c, co_fn, p, deadline, precision, cc->cpu,
			    CALLOUT_ABSOLUTE);
	after = ktime_get();
	p->tick = READ_ONCE(p->c.entry.expires);
	p->first = max(ceil_d, div64_u64(before, tk) + 1);
	first_hi = max(ceil_d, div64_u64(after, tk) + 1);
	p->sure = p->first == first_hi;
	p->last = div64_u64(deadline + precision, tk);
	if (!p->sure)
		p->last = max(p->last, first_hi);
	return ret;
}

/* @p's tick lies in its window, and its run came after its deadline. */
static void co_check(struct kunit *test, struct co_probe *p, const char *what)
{
	u64 tk = twheel_tick_ns();

	KUNIT_EXPECT_GE_MSG(test, p->tick, p->first,
			    "%s: armed for tick %llu, its window [%llu, %llu]",
			    what, p->tick, p->first, p->last);
	KUNIT_EXPECT_LE_MSG(test, p->tick, max(p->first, p->last),
			    "%s: armed for tick %llu, its window [%llu, %llu]",
			    what, p->tick, p->first, p->last);
	KUNIT_ASSERT_TRUE_MSG(test, poll_until(atomic_read_acquire(&p->runs)),
			      "%s: did not run", what);
	KUNIT_EXPECT_GE_MSG(test, p->at, p->deadline,
			    "%s: ran %lld ns before its deadline", what,
			    ktime_to_ns(ktime_sub(p->deadline, p->at)));
	KUNIT_EXPECT_GE_MSG(test, (u64)p->at, p->tick * tk,
			    "%s: ran before its tick", what);
}

/* A precision: @ticks ticks, and half a tick if @half, and @delta ns. */
struct prec_case {
	unsigned int ticks;
	bool half;
	s64 delta;
	const char *desc;
};

static const struct prec_case prec_cases[] = {
	{ 0, false, 0, "exact" },
	{ 0, false, 1, "1 ns" },
	{ 1, false, -1, "a tick less 1 ns" },
	{ 1, false, 0, "a tick" },
	{ 1, false, 1, "a tick and 1 ns" },
	{ 2, true, 0, "2.5 ticks" },
	{ 7, false, 0, "7 ticks" },
	{ 64, false, 0, "64 ticks" },
	{ 100, false, 0, "100 ticks" },
};

KUNIT_ARRAY_PARAM_DESC(prec, prec_cases, desc);

static int co_init(struct kunit *test)
{
	struct co_ctx *cc = kunit_kzalloc(test, sizeof(*cc), GFP_KERNEL);
	int i;

	if (!cc)
		return -ENOMEM;
	callout_init(&cc->flush);
	for (i = 0; i < NCO; i++)
		callout_init(&cc->p[i].c);
	cc->cpu = cpumask_first(cpu_online_mask);
	test->priv = cc;
	return set_cpus_allowed_ptr(current, cpumask_of(cc->cpu));
}

static void co_exit(struct kunit *test)
{
	struct co_ctx *cc = test->priv;
	int i;

	if (!cc)
		return;
	unsetcallout_sync(&cc->flush);
	for (i = 0; i < NCO; i++)
		unsetcallout_sync(&cc->p[i].c);
}

/*
 * setcallout_on() with a precision, on a CPU with nothing else pending:
 * the callout is armed for twheel_coalesce(first, last, none) of its
 * window, and runs then, not before its deadline.
 */
static void setcallout_on_precision_picks_tick(struct kunit *test)
{
	const struct prec_case *pc = test->param_value;
	struct co_ctx *cc = test->priv;
	struct co_probe *p = &cc->p[0];
	u64 tk = twheel_tick_ns();
	u64 precision = pc->ticks * tk + (pc->half ? tk / 2 : 0) + pc->delta;
	bool quiet = co_quiesce(test, cc);

	KUNIT_ASSERT_EQ(test, co_arm(cc, p, ktime_add_ns(ktime_get(),
							 100 * tk + tk / 3),
				     precision), 0);
	KUNIT_EXPECT_EQ(test, callout_when(&p->c), p->deadline);
	if (quiet && p->sure)
		KUNIT_EXPECT_EQ_MSG(test, p->tick,
				    twheel_coalesce(p->first, p->last, NONE),
				    "%s: window [%llu, %llu]", pc->desc,
				    p->first, p->last);
	else
		kunit_info(test, "%s: CPU %d busy or the arming slow: the window alone checked\n",
			   pc->desc, cc->cpu);
	co_check(test, p, pc->desc);
}

/*
 * The tick a window takes, on a CPU with nothing pending but what the case
 * armed: the tick the CPU's interrupt is set for if the window holds it,
 * else the first tick of the window with work, though a rounder one lies
 * in the window too; else its roundest tick.  Two exact callouts give the
 * interrupt's tick and a tick with work, both odd.
 */
static void setcallout_on_joins_tick_with_work(struct kunit *test)
{
	struct co_ctx *cc = test->priv;
	struct co_probe *set = &cc->p[0], *work = &cc->p[1], *in = &cc->p[2];
	struct co_probe *mid = &cc->p[3], *out = &cc->p[4];
	u64 tk = twheel_tick_ns();
	bool quiet = co_quiesce(test, cc);
	ktime_t d;
	int i;

	/* A third of a tick into tick 2k, due on odd tick 2k + 1. */
	d = ktime_get() + 100 * tk;
	d = (div64_u64(d, 2 * tk) * 2) * tk + tk / 3;
	KUNIT_ASSERT_EQ(test, co_arm(cc, set, d, 0), 0);
	KUNIT_ASSERT_EQ(test, co_arm(cc, work, d + 20 * tk, 0), 0);
	/* [2k - 9, 2k + 20]: 2k + 1, the interrupt's tick */
	KUNIT_ASSERT_EQ(test, co_arm(cc, in, d - 10 * tk, 30 * tk), 0);
	/* [2k + 6, 2k + 35]: 2k + 21, a tick with work */
	KUNIT_ASSERT_EQ(test, co_arm(cc, mid, d + 5 * tk, 30 * tk), 0);
	/* [2k + 23, 2k + 52]: neither */
	KUNIT_ASSERT_EQ(test, co_arm(cc, out, d + 22 * tk, 30 * tk), 0);
	if (!quiet || !ktime_before(ktime_get(), d - 10 * tk)) {
		kunit_info(test, "CPU %d busy or the arming slow: the windows alone checked\n",
			   cc->cpu);
	} else {
		KUNIT_EXPECT_EQ_MSG(test, set->tick % 2, 1ULL,
				    "exact, on tick %llu", set->tick);
		KUNIT_EXPECT_EQ(test, work->tick, set->tick + 20);
		KUNIT_EXPECT_EQ_MSG(test, in->tick, set->tick,
				    "window [%llu, %llu] holds the interrupt's tick, %llu",
				    in->first, in->last, set->tick);
		KUNIT_EXPECT_EQ_MSG(test, mid->tick, work->tick,
				    "window [%llu, %llu] holds a tick with work, %llu",
				    mid->first, mid->last, work->tick);
		KUNIT_EXPECT_EQ_MSG(test, out->tick,
				    twheel_coalesce(out->first, out->last, NONE),
				    "window [%llu, %llu]", out->first, out->last);
	}
	for (i = 0; i < 5; i++)
		co_check(test, &cc->p[i], "a callout of the set");
}

/* The first tick with work in [@first, @last]: of @p[0] to @p[n - 1]. */
static u64 co_busy_tick(const struct co_probe *p, int n, u64 first, u64 last)
{
	u64 busy = NONE;
	int j;

	for (j = 0; j < n; j++)
		if (p[j].tick >= first && p[j].tick <= last)
			busy = min(busy, p[j].tick);
	return busy;
}

/*
 * NCO callouts on one CPU, due a tick apart, each with a window of
 * CO_WINDOW ticks: armed for the ticks twheel_coalesce() gives, each
 * taking the tick the CPU's interrupt is set for (the earliest armed), or
 * else the first with work, when its window holds one, so on far fewer
 * ticks than NCO, with an interrupt a tick; the same callouts exact are
 * armed for NCO ticks.
 */
static void setcallout_on_overlapping_windows_share_ticks(struct kunit *test)
{
	struct co_ctx *cc = test->priv;
	u64 tk = twheel_tick_ns(), prog, busy, want, distinct[2], irqs[2], prev;
	ktime_t base, armed_by;
	struct co_probe *p;
	bool quiet, in_time[2];
	int pass, i;
	char what[48];

	for (pass = 0; pass < 2; pass++) {
		quiet = co_quiesce(test, cc);
		irqs[pass] = cpu_interrupts(cc->cpu);
		base = ktime_add_ns(ktime_get(), CO_AHEAD * tk + tk / 3);
		for (i = 0; i < NCO; i++) {
			p = &cc->p[i];
			atomic_set(&p->runs, 0);
			KUNIT_ASSERT_EQ(test, co_arm(cc, p,
						     ktime_add_ns(base, i * tk),
						     pass ? 0 : CO_WINDOW * tk),
					0);
		}
		armed_by = ktime_get();
		/* No tick of any window began while they were armed. */
		in_time[pass] = quiet && ktime_before(armed_by, base);

		prog = NONE;
		prev = 0;
		distinct[pass] = 0;
		for (i = 0; i < NCO; i++) {
			p = &cc->p[i];
			snprintf(what, sizeof(what), "%s, callout %d",
				 pass ? "exact" : "coalesced", i);
			co_check(test, p, what);
			/* The interrupt's tick, else the first with work. */
			busy = prog >= p->first && prog <= p->last ? prog :
			       co_busy_tick(cc->p, i, p->first, p->last);
			want = twheel_coalesce(p->first, p->last, busy);
			prog = min(prog, want);
			if (in_time[pass])
				KUNIT_EXPECT_EQ_MSG(test, p->tick, want,
						    "%s: window [%llu, %llu]",
						    what, p->first, p->last);
			/* The ticks rise with the deadlines, so count steps. */
			distinct[pass] += !i || p->tick != prev;
			prev = p->tick;
		}
		KUNIT_ASSERT_TRUE(test, poll_until(cpu_pending(cc->cpu) == 0));
		irqs[pass] = cpu_interrupts(cc->cpu) - irqs[pass];
	}
	kunit_info(test, "%d callouts: coalesced on %llu ticks, %llu interrupts; exact on %llu ticks, %llu interrupts\n",
		   NCO, distinct[0], irqs[0], distinct[1], irqs[1]);
	if (!in_time[0] || !in_time[1]) {
		kunit_info(test, "CPU %d busy or the arming slow: windows alone checked\n",
			   cc->cpu);
		return;
	}
	KUNIT_EXPECT_EQ(test, distinct[1], (u64)NCO);
	KUNIT_EXPECT_LE_MSG(test, distinct[0] * 8, (u64)NCO,
			    "coalesced on %llu ticks", distinct[0]);
	KUNIT_EXPECT_LE_MSG(test, irqs[0], distinct[0],
			    "an interrupt for a tick with nothing to run");
	KUNIT_EXPECT_LE(test, irqs[1], distinct[1]);
	/* A slow machine runs several ticks in one interrupt. */
	if (irqs[1] > distinct[0])
		KUNIT_EXPECT_LT(test, irqs[0], irqs[1]);
	else
		kunit_info(test, "the exact ones took %llu interrupts: too slow to compare\n",
			   irqs[1]);
}

/* A %CALLOUT_IF_SOONER arming of @p, and the window it asked for. */
struct sooner_case {
	unsigned int at;	/* its deadline: ticks after the first's */
	unsigned int prec;	/* its precision, in ticks */
	const char *desc;
};

static const struct sooner_case sooner_cases[] = {
	{ 10, 0, "exact, before the tick chosen: moves it" },
	{ 20, 5, "a window ending before the tick chosen: moves it" },
	{ 40, 0, "exact, after the tick chosen: keeps it" },
	{ 20, 20, "a window holding the tick chosen: keeps it" },
};

KUNIT_ARRAY_PARAM_DESC(sooner, sooner_cases, desc);

/*
 * setcallout_on() with %CALLOUT_IF_SOONER keeps a pending arming only if
 * the tick chosen for it lies no later than the new window's last: an
 * arming with a deadline before the new one but a precision that put it
 * after the new window moves.  The first arming, due a third of a tick
 * into tick 64m with 49 ticks of precision, is put on 64m + 32, the
 * window's roundest tick on a quiet CPU.  Either way it returns 1 (it
 * was pending), and the callout sits no later than the new window allows.
 */
static void setcallout_on_if_sooner_checks_tick_chosen(struct kunit *test)
{
	const struct sooner_case *sc = test->param_value;
	struct co_ctx *cc = test->priv;
	struct co_probe *p = &cc->p[0];
	u64 tk = twheel_tick_ns(), m, last, was;
	bool quiet = co_quiesce(test, cc);
	ktime_t d, d2;
	int ret;

	m = div64_u64(ktime_get() + 200 * tk, 64 * tk) + 1;
	d = 64 * m * tk + tk / 3;
	KUNIT_ASSERT_EQ(test, co_arm(cc, p, d, 49 * tk), 0);
	was = p->tick;
	if (!quiet || !p->sure || was != 64 * m + 32) {
		unsetcallout(&p->c);
		kunit_skip(test, "CPU %d busy or the arming slow: armed for tick %llu, not %llu",
			   cc->cpu, was, 64 * m + 32);
	}

	d2 = d + sc->at * tk;
	/* The window's last tick; an exact one's is its first. */
	last = max(div64_u64(d2 + tk - 1, tk),
		   div64_u64(d2 + sc->prec * tk, tk));
	ret = setcallout_on(&p->c, co_fn, p, d2, sc->prec * tk, cc->cpu,
			    CALLOUT_ABSOLUTE | CALLOUT_IF_SOONER);
	KUNIT_EXPECT_EQ(test, ret, 1);
	p->tick = READ_ONCE(p->c.entry.expires);
	KUNIT_EXPECT_LE_MSG(test, p->tick, last,
			    "%s: on tick %llu, the window asked for ends at %llu",
			    sc->desc, p->tick, last);
	if (was <= last) {
		KUNIT_EXPECT_EQ_MSG(test, p->tick, was, "%s: moved",
				    sc->desc);
		KUNIT_EXPECT_EQ(test, callout_when(&p->c), d);
	} else {
		p->deadline = d2;
		KUNIT_EXPECT_EQ(test, callout_when(&p->c), d2);
	}
	KUNIT_ASSERT_TRUE(test, poll_until(atomic_read_acquire(&p->runs)));
	KUNIT_EXPECT_GE(test, p->at, p->deadline);
	KUNIT_EXPECT_GE(test, (u64)p->at, p->tick * tk);
}

static struct kunit_case twheel_coalesce_cases[] = {
	KUNIT_CASE_PARAM(twheel_coalesce_table, co_gen_params),
	KUNIT_CASE_SLOW(twheel_coalesce_small_windows_exhaustive),
	KUNIT_CASE(twheel_coalesce_random_wide_windows),
	KUNIT_CASE_PARAM(setcallout_on_precision_picks_tick, prec_gen_params),
	KUNIT_CASE(setcallout_on_joins_tick_with_work),
	KUNIT_CASE(setcallout_on_overlapping_windows_share_ticks),
	KUNIT_CASE_PARAM(setcallout_on_if_sooner_checks_tick_chosen,
			 sooner_gen_params),
	{}
};

static struct kunit_suite twheel_coalesce_suite = {
	.name = "twheel_coalesce",
	.init = co_init,
	.exit = co_exit,
	.test_cases = twheel_coalesce_cases,
};

kunit_test_suite(twheel_coalesce_suite);

MODULE_DESCRIPTION("KUnit tests of the tick twheel picks within a callout's precision");
MODULE_LICENSE("GPL");
TWHEEL_IMPORT_KUNIT_NS();
