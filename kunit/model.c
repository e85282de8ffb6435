// SPDX-License-Identifier: GPL-2.0
/*
 * The reference model of twheel's KUnit suites (see model.h): its list of
 * pending entries, the checks of every add, del and expiry against it, and
 * a seeded random run of operations; the directed scenarios that the
 * wheel and scheme suites share are in model_scenarios.c.  Each suite's
 * file includes both, so that each of their modules has its own copy;
 * user/fuzz.c builds them in user space.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "model.h"

/* And for an entry: the model's view of it, then the structure's. */
#define MODEL_ENTRY	" entry %u: due %llu seq %llu pending %d;" \
			" %s now %llu count %lu, expires %llu pending %d slot %u"

/**
 * model_case_init() - set up a case's model, from a suite's .init
 * @m: the model, zeroed.
 * @test: the case.
 * @ops: how to reach the structure under test.
 * @esize: the size of the suite's timer.
 * @eoff: where its &struct model_entry is.
 *
 * Return: %0, or -%ENOMEM.
 */
int model_case_init(struct model *m, struct kunit *test,
		    const struct model_ops *ops, size_t esize, size_t eoff)
{
	m->was = kunit_kzalloc(test, esize, GFP_KERNEL);
	if (!m->was)
		return -ENOMEM;
	m->test = test;
	m->ops = ops;
	m->esize = esize;
	m->eoff = eoff;
	m->ordered = true;
	INIT_LIST_HEAD(&m->pending);
	return 0;
}

/* Free the entries, from a suite's .exit once its structure is gone. */
void model_case_exit(struct model *m)
{
	kvfree(m->ent);
	m->ent = NULL;
	m->cap = 0;
	m->nent = 0;
}

/**
 * model_reset() - an empty model at tick @now, with @nent idle entries
 * @m: the model.
 * @shape: what random runs draw around.
 * @now: the structure's clock, just initialised.
 * @nent: entries wanted.
 *
 * The suite has taken its old entries off its structure already.
 */
void model_reset(struct model *m, const struct model_shape *shape, u64 now,
		 unsigned int nent)
{
	struct model_entry *x;
	unsigned int i;

	if (nent > m->cap) {
		kvfree(m->ent);
		m->ent = kvcalloc(nent, m->esize, GFP_KERNEL);
		m->cap = m->ent ? nent : 0;
		KUNIT_ASSERT_NOT_NULL(m->test, m->ent);
	}
	m->nent = nent;
	memset(m->ent, 0, nent * m->esize);
	for (i = 0; i < nent; i++) {
		x = model_ent(m, i);
		INIT_LIST_HEAD(&x->node);
		x->id = i;
		m->ops->entry_init(m, x);
	}
	m->shape = *shape;
	INIT_LIST_HEAD(&m->pending);
	m->npending = 0;
	m->now = now;
	m->to = now;
	m->seq = 0;
	m->last_tick = 0;
	m->last_seq = 0;
	m->failed = false;
	m->rand_acts = false;
	m->nlog = 0;
	memset(&m->n, 0, sizeof(m->n));
}

/* Can an interval be refused, or does the structure take any u64? */
bool model_bounded(const struct model *m)
{
	return m->shape.max_interval < U64_MAX;
}

/* Intervals longer than this are far: beyond any one random advance. */
static u64 model_far(const struct model *m)
{
	return 64 * m->shape.span;
}

/**
 * model_check() - report the first failed check about @x
 * @m: the model.
 * @x: the entry the check is about.
 * @ok: the check's outcome.
 * @what: what failed, if it did.
 *
 * Context: anywhere, inside an advance above all: it does not abort the
 * case; the callers assert on @m->failed later.
 * Return: @ok.
 */
bool model_check(struct model *m, const struct model_entry *x, bool ok,
		 const char *what)
{
	struct model_view v;

	if (!ok && !m->failed) {
		m->failed = true;
		m->ops->view(m, x, &v);
		KUNIT_FAIL(m->test, "%s: " MODEL_AT MODEL_ENTRY, what,
			   m->seed, m->op, m->now, x->id, x->due, x->seq, x->pending,
			   m->ops->name, m->ops->now(m), m->ops->count(m),
			   v.expires, v.pending, v.slot);
	}
	return ok;
}

/*
 * The entry is as the model says: idle, or pending with its due tick, and
 * marked so if that is the tick being processed; then whatever the suite
 * checks besides.
 */
static bool model_check_entry(struct model *m, const struct model_entry *x)
{
	struct model_view v;

	m->ops->view(m, x, &v);
	if (!model_check(m, x, v.pending == x->pending,
			 "pending disagrees with the model"))
		return false;
	if (x->pending) {
		if (!model_check(m, x, v.expires == x->due, "wrong due tick"))
			return false;
		if (x->due == m->now &&
		    !model_check(m, x, v.expired, "due entry not marked expired"))
			return false;
	}
	return !m->ops->check_entry || m->ops->check_entry(m, x);
}

static bool model_check_count(struct model *m, const struct model_entry *x)
{
	return model_check(m, x, m->ops->count(m) == m->npending,
			   "count disagrees with the model");
}

/* The pending entry the model runs next, or NULL. */
struct model_entry *model_first(struct model *m)
{
	return list_first_entry_or_null(&m->pending, struct model_entry, node);
}

/* The model arms @x at its clock: due @interval ticks on, 0 taken as 1. */
static void model_add(struct model *m, struct model_entry *x, u64 interval)
{
	struct model_entry *p;

	x->due = m->now + max_t(u64, interval, 1);
	x->seq = ++m->seq;
	x->pending = true;
	m->npending++;
	if (!m->ordered)
		return;
	/* The newest of its tick: after every entry due then or before. */
	list_for_each_entry_reverse(p, &m->pending, node)
		if (p->due <= x->due)
			break;
	list_add(&x->node, &p->node);
}

static void model_del(struct model *m, struct model_entry *x)
{
	x->pending = false;
	m->npending--;
	if (m->ordered)
		list_del_init(&x->node);
}

/* Arm @x for tick @val if @at, else @val ticks on: see model_arm(). */
static int model_arm_how(struct model *m, struct model_entry *x, bool at,
			 u64 val)
{
	u64 interval = !at ? val : val > m->now ? val - m->now : 0;
	void *timer = (char *)x - m->eoff;
	bool was = x->pending;
	int ret;

	model_check_entry(m, x);
	memcpy(m->was, timer, m->esize);
	ret = at ? m->ops->add_at(m, x, val) : m->ops->add(m, x, val);
	if (interval > m->shape.max_interval) {
		m->n.refused++;
		model_check(m, x, ret == -EINVAL, "too long an interval taken");
		model_check(m, x, !memcmp(m->was, timer, m->esize),
			    "refused add changed the entry");
		model_check_entry(m, x);
		model_check_count(m, x);
		return ret;
	}
	model_check(m, x, ret == was, "add misreported the entry's state");
	if (interval > model_far(m))
		m->n.far++;
	if (was) {
		m->n.rearmed++;
		if (x->due == m->now)
			m->n.rearmed_due++;
		model_del(m, x);
	}
	model_add(m, x, interval);
	model_check_entry(m, x);
	model_check_count(m, x);
	return ret;
}

/**
 * model_arm() - add @x, checked against the model and applied to it
 * @m: the model.
 * @x: the entry.
 * @interval: ticks from the model's clock.
 *
 * An interval beyond the structure's longest must be refused with the
 * suite's timer left as it was, to the byte.
 *
 * Return: what the structure's add returned.
 */
int model_arm(struct model *m, struct model_entry *x, u64 interval)
{
	return model_arm_how(m, x, false, interval);
}

/**
 * model_arm_at() - model_arm() for a tick, through @m->ops->add_at
 * @m: the model.
 * @x: the entry.
 * @tick: the tick; one not after the model's clock means the next.
 *
 * Return: what the structure's add returned.
 */
int model_arm_at(struct model *m, struct model_entry *x, u64 tick)
{
	return model_arm_how(m, x, true, tick);
}

/**
 * model_stop() - del @x, checked against the model and applied to it
 * @m: the model.
 * @x: the entry.
 *
 * Return: what the structure's del returned.
 */
bool model_stop(struct model *m, struct model_entry *x)
{
	bool was = x->pending, ret;

	model_check_entry(m, x);
	ret = m->ops->del(m, x);
	model_check(m, x, ret == was, "del misreported the entry's state");
	if (was) {
		m->n.stopped++;
		if (x->due == m->now)
			m->n.stopped_due++;
		model_del(m, x);
	}
	model_check_entry(m, x);
	model_check_count(m, x);
	return ret;
}

/* xorshift64*: a few lines, and the same sequence from a seed every run. */
u64 model_rand(struct model *m)
{
	m->rnd ^= m->rnd >> 12;
	m->rnd ^= m->rnd << 25;
	m->rnd ^= m->rnd >> 27;
	return m->rnd * 0x2545f4914f6cdd1dULL;
}

/* A number below @n (0 if @n is 0): from the seed, or from @m->in. */
u64 model_below(struct model *m, u64 n)
{
	u64 v = 0, range;

	if (!m->in)
		return n ? model_rand(m) % n : 0;
	/* As few bytes of the input as tell @n numbers apart. */
	for (range = n - 1; n && range; range >>= 8) {
		v <<= 8;
		if (m->left) {
			v |= *m->in++;
			m->left--;
		}
	}
	return n ? v % n : 0;
}

/* The fuzzer's input is used up. */
static bool model_input_done(const struct model *m)
{
	return m->in && !m->left;
}

/*
 * An interval for a random add: 0, 1, a few ticks, within the span or a
 * few spans, just around a boundary (a multiple of a slot's ticks, as an
 * interval or as a due tick), around the structure's longest, and, if that
 * is huge, now and then anything up to it; or refused.  A shape with its
 * own TTLs (the Lawn's favourable case) draws from those alone, and is
 * refused now and then.
 */
static u64 model_rand_interval(struct model *m)
{
	const struct model_shape *sh = &m->shape;
	u64 max = sh->max_interval, span = sh->span, far = model_far(m);
	unsigned int ngran = 0;
	u64 r, g;

	if (sh->nttls) {
		if (model_bounded(m) && !model_below(m, 64))
			return max + 1 + model_below(m, 2);
		return sh->ttls[model_below(m, sh->nttls)];
	}
	r = model_below(m, 64);
	if (r < 3)
		return 0;
	if (r < 6)
		return 1;
	if (r < 14)
		return 2 + model_below(m, 15);
	if (r < 30)
		return 1 + model_below(m, min(span, max));
	if (r < 38)
		return 1 + model_below(m, min(4 * span, max));
	if (r < 54) {
		while (ngran < MODEL_GRAN && sh->gran[ngran])
			ngran++;
		g = ngran ? sh->gran[model_below(m, ngran)] : span;
		/* One tick before, on or after a multiple of g... */
		if (r < 46)
			return (1 + model_below(m, 3)) * g - 1 +
				model_below(m, 3);
		/* ... or due one tick before, on or after one. */
		return (div64_u64(m->now, g) + 1 + model_below(m, 3)) * g - 1 +
			model_below(m, 3) - m->now;
	}
	if (r < 58)
		return max - min(max, model_below(m, 3));
	if (r < 60 && max > far)
		return far + model_below(m, max - far);
	if (r < 62 || !model_bounded(m))
		return 1 + model_below(m, min(span, max));
	/* Refused: just too long, or the longest u64. */
	r = model_below(m, 4);
	return r == 3 ? U64_MAX : max + 1 + r;
}

/*
 * A tick for a random advance: the next one, a small jump, a jump within
 * the span or beyond it, to the structure's next work or the model's
 * earliest expiry or the tick before either (unless that is far off), or
 * to the present tick.
 */
static u64 model_rand_jump(struct model *m)
{
	struct model_entry *first = model_first(m);
	u64 span = m->shape.span, r = model_below(m, 64), next;
	u64 far = (m->shape.far_spans ?: 16) * span;

	if (r < 40)
		return m->now + 1;
	if (r < 44)
		return m->now + 2 + model_below(m, 15);
	if (r < 50)
		return m->now + 1 + model_below(m, span);
	if (r < 52)
		return m->now + span + model_below(m, 8 * span);
	if (r < 56 && m->ops->next_work) {
		next = m->ops->next_work(m);
		if (next != U64_MAX && next - m->now <= far)
			return next - (r & 1);
		return m->now + 1;
	}
	if (r < 60) {
		if (!first || first->due - m->now > far)
			return m->now + 1;
		return first->due - (r & 1);
	}
	if (r < 62)
		return m->now;
	return m->now + 1 + model_below(m, m->shape.far_spans ? far : 2 * span);
}

/*
 * ... halved while it would pass the pending entries' spans more than
 * %MODEL_JUMP_WORK times over, and never beyond the shape's last tick.
 */
static u64 model_rand_to(struct model *m)
{
	u64 d = model_rand_jump(m) - m->now, span = m->shape.span;

	while (d > span && m->npending * div64_u64(d, span) > MODEL_JUMP_WORK)
		d /= 2;
	if (m->shape.max_now)
		d = min(d, m->shape.max_now - min(m->shape.max_now, m->now));
	return m->now + d;
}

/*
 * A tick for a random add at a tick: the present or one just passed, any
 * tick passed, too far ahead, or as model_rand_interval() from the clock.
 */
static u64 model_rand_tick(struct model *m)
{
	u64 now = m->now, max = m->shape.max_interval, r = model_below(m, 8);

	if (r < 1)
		return now - model_below(m, min_t(u64, now, 3) + 1);
	if (r < 2)
		return model_below(m, now + 1);
	if (r < 3 && model_bounded(m))
		return model_below(m, 2) ? now + max + 1 + model_below(m, 3) :
					   U64_MAX - model_below(m, 2);
	r = model_rand_interval(m);
	return model_bounded(m) && r > max ? now + max + 1 : now + r;
}

/* A random add of @x: for an interval, or a tick if the structure takes one. */
static void model_rand_arm(struct model *m, struct model_entry *x)
{
	if (m->ops->add_at && !model_below(m, 4))
		model_arm_at(m, x, model_rand_tick(m));
	else
		model_arm(m, x, model_rand_interval(m));
}

static struct model_entry *model_rand_entry(struct model *m)
{
	return model_ent(m, model_below(m, m->nent));
}

static struct model_entry *model_rand_pending(struct model *m)
{
	unsigned int i, k = model_below(m, m->nent);
	struct model_entry *x;

	for (i = 0; i < m->nent; i++) {
		x = model_ent(m, (k + i) % m->nent);
		if (x->pending)
			return x;
	}
	return NULL;
}

/*
 * A burst of 2 to 16 random adds; or, one time in two (not for a shape of
 * few TTLs), of up to half the entries into one granule's worth of ticks
 * just past a multiple of it, on one tick or spread over them: a slot
 * that must run, or move down, in one piece.
 */
static void model_rand_burst(struct model *m)
{
	const struct model_shape *sh = &m->shape;
	unsigned int n, ngran = 0;
	u64 g, base, off;
	bool one_tick;

	if (sh->nttls || model_below(m, 2)) {
		for (n = 2 + model_below(m, 15); n; n--)
			model_rand_arm(m, model_rand_entry(m));
		return;
	}
	while (ngran < MODEL_GRAN && sh->gran[ngran])
		ngran++;
	g = ngran ? sh->gran[model_below(m, ngran)] : sh->span;
	base = (div64_u64(m->now, g) + 1 + model_below(m, 3)) * g;
	one_tick = model_below(m, 2);
	off = model_below(m, g);
	for (n = 1 + model_below(m, m->nent / 2 + 1); n; n--)
		model_arm(m, model_rand_entry(m),
			  base + (one_tick ? off : model_below(m, g)) - m->now);
}

/**
 * model_rand_act() - act at random, as an expiry function of model_random()
 * @m: the model.
 * @x: the entry that ran.
 *
 * Now and then re-arm @x, or arm or stop another, often the model's next,
 * which may be due on this very tick and not yet handed over.  Also what
 * others do while a structure's owner pauses between batches.
 */
void model_rand_act(struct model *m, struct model_entry *x)
{
	u64 r = model_below(m, 16);
	struct model_entry *y;

	if (r >= 8 || model_input_done(m))
		return;
	m->n.acts++;
	if (r < 3) {
		model_rand_arm(m, x);
		return;
	}
	y = model_first(m);
	if (!y || model_below(m, 2))
		y = model_rand_entry(m);
	if (r < 6)
		model_rand_arm(m, y);
	else
		model_stop(m, y);
}

/* What an expiry function of the directed cases does, as @x->act says. */
static void model_act(struct model *m, struct model_entry *x)
{
	unsigned int i;

	if (x->other)
		m->ops->view(m, x->other, &x->other_view);
	switch (x->act) {
	case MODEL_NOTHING:
		break;
	case MODEL_REARM_SELF:
		if (x->times) {
			x->times--;
			x->ret = model_arm(m, x, x->arg);
		}
		break;
	case MODEL_ARM_OTHER:
		x->ret = model_arm(m, x->other, x->arg);
		break;
	case MODEL_STOP_OTHER:
		x->ret = model_stop(m, x->other);
		break;
	case MODEL_STOP_SELF:
		x->ret = model_stop(m, x);
		break;
	case MODEL_STOP_ALL:
		for (i = 0; i < m->nent; i++)
			x->ret += model_stop(m, model_ent(m, i));
		break;
	}
}

/**
 * model_expired() - check an expiry, from the suite's expiry function
 * @m: the model.
 * @x: the entry handed over.
 * @now: the structure's clock.
 *
 * @x must be due on this tick, which lies between the model's clock and
 * the advance's target, and come after the previous expiry in (tick,
 * arming order); if the model keeps its list, it must be the model's first
 * entry.  It must be idle, and the count must say so.  Then the entry's
 * act, or a random one, runs.
 */
void model_expired(struct model *m, struct model_entry *x, u64 now)
{
	struct model_entry *first = model_first(m);
	bool reported = m->failed;
	struct model_view v;

	model_check(m, x, now >= m->now && now <= m->to,
		    "clock outside the advance");
	/* The model's clock is at the tick being processed too. */
	m->now = now;
	model_check(m, x, x->pending, "expired while not pending");
	model_check(m, x, x->due <= now, "expired early");
	model_check(m, x, x->due >= now, "expired late");
	model_check(m, x, now > m->last_tick ||
		    (now == m->last_tick && x->seq > m->last_seq),
		    "expired out of order");
	if (m->ordered &&
	    !model_check(m, x, first == x,
			 "expired ahead of the model's first entry") &&
	    first && !reported)
		kunit_err(m->test, "the model's first is entry %u: due %llu seq %llu\n",
			  first->id, first->due, first->seq);
	if (x->pending)
		model_del(m, x);
	m->ops->view(m, x, &v);
	if (model_check(m, x, !v.pending, "handed over still pending") &&
	    m->ops->check_entry)
		m->ops->check_entry(m, x);
	model_check_count(m, x);

	if (m->n.fired && now == m->last_tick)
		m->n.same_tick++;
	x->fired++;
	x->fired_at = now;
	m->last_tick = now;
	m->last_seq = x->seq;
	m->n.fired++;
	if (m->nlog < MODEL_LOG)
		m->log[m->nlog++] = x->id;

	if (m->rand_acts)
		model_rand_act(m, x);
	else
		model_act(m, x);
}

/**
 * model_paused() - an advance stopped short, perhaps half-way through a tick
 * @m: the model.
 *
 * For a structure that advances in batches: the model's clock follows the
 * structure's, which must lie within the advance, and every entry due
 * before it must have run.  Entries due on it may not have.
 */
void model_paused(struct model *m)
{
	struct kunit *test = m->test;
	struct model_entry *first = model_first(m);
	u64 now = m->ops->now(m);

	KUNIT_ASSERT_FALSE_MSG(test, m->failed, MODEL_AT, m->seed, m->op, m->now);
	KUNIT_ASSERT_TRUE_MSG(test, now >= m->now && now <= m->to,
			      MODEL_AT " clock %llu outside the advance to %llu",
			      m->seed, m->op, m->now, now, m->to);
	m->now = now;
	if (first)
		KUNIT_ASSERT_GE_MSG(test, first->due, now,
				    MODEL_AT " entry %u did not expire",
				    m->seed, m->op, m->now, first->id);
}

/**
 * model_advance() - move the clock to @to: all due by then, and only that, runs
 * @m: the model.
 * @to: the tick; one already processed moves nothing.
 */
void model_advance(struct model *m, u64 to)
{
	struct kunit *test = m->test;
	struct model_entry *first;

	if (to > m->now + 1)
		m->n.jumps++;
	m->to = to;
	m->ops->advance(m, to);
	KUNIT_ASSERT_FALSE_MSG(test, m->failed, MODEL_AT " advancing to %llu",
			       m->seed, m->op, m->now, to);
	m->now = max(m->now, to);
	KUNIT_ASSERT_EQ_MSG(test, m->ops->now(m), m->now,
			    MODEL_AT " advancing to %llu", m->seed, m->op, m->now, to);
	first = model_first(m);
	if (first)
		KUNIT_ASSERT_GT_MSG(test, first->due, m->now,
				    MODEL_AT " entry %u did not expire",
				    m->seed, m->op, m->now, first->id);
}

/**
 * model_verify_some() - the structure agrees with the model
 * @m: the model.
 * @all: check every entry, and the suite's whole structure, too.
 *
 * The clock and the count always; with @all, every entry, the model's
 * order, and the suite's checks.  The entries an operation touched have
 * been checked already: the others may change only in an advance.
 */
void model_verify_some(struct model *m, bool all)
{
	struct kunit *test = m->test;
	const struct model_entry *x;
	struct model_entry *first;
	u64 due = U64_MAX;
	unsigned int i;

	KUNIT_ASSERT_FALSE_MSG(test, m->failed, MODEL_AT, m->seed, m->op, m->now);
	KUNIT_ASSERT_EQ_MSG(test, m->ops->now(m), m->now, MODEL_AT,
			    m->seed, m->op, m->now);
	KUNIT_ASSERT_EQ_MSG(test, m->ops->count(m), m->npending,
			    MODEL_AT " count", m->seed, m->op, m->now);
	m->n.pending += m->npending;
	if (!all)
		return;
	for (i = 0; i < m->nent; i++) {
		x = model_ent(m, i);
		model_check_entry(m, x);
		if (x->pending)
			due = min(due, x->due);
	}
	KUNIT_ASSERT_FALSE_MSG(test, m->failed, MODEL_AT, m->seed, m->op, m->now);
	first = model_first(m);
	if (m->ordered)
		KUNIT_ASSERT_EQ_MSG(test, first ? first->due : U64_MAX, due,
				    MODEL_AT " model out of order",
				    m->seed, m->op, m->now);
	if (m->ops->verify)
		m->ops->verify(m);
}

void model_verify(struct model *m)
{
	model_verify_some(m, true);
}

/* Nothing left behind: no count, no entry pending, nothing the suite sees. */
void model_assert_empty(struct model *m)
{
	struct kunit *test = m->test;
	struct model_view v;
	unsigned int i;

	KUNIT_ASSERT_EQ_MSG(test, m->ops->count(m), 0UL, MODEL_AT,
			    m->seed, m->op, m->now);
	for (i = 0; i < m->nent; i++) {
		m->ops->view(m, model_ent(m, i), &v);
		KUNIT_ASSERT_FALSE_MSG(test, v.pending, MODEL_AT " entry %u",
				       m->seed, m->op, m->now, i);
	}
	if (m->ops->assert_empty)
		m->ops->assert_empty(m);
}

/**
 * model_seed() - start a random run from @seed
 * @m: the model.
 * @seed: the seed.
 *
 * Return: the tick to start the structure's clock on, drawn from @seed.
 */
u64 model_seed(struct model *m, u64 seed)
{
	m->seed = seed;
	m->rnd = seed;
	return model_rand(m) >> 28;
}

/**
 * model_run() - @ops random operations, each checked
 * @m: the model, reset after model_seed() (or with @m->in set), with its
 *	entries idle: their expiry functions act at random from now on.
 * @ops: how many, at the most: a fuzzer's input may end the run sooner.
 * @every: check every entry after each @every-th operation, and after
 *	every advance.
 *
 * Two in five are adds of any entry (a start or a re-arm), one in twenty a
 * burst (model_rand_burst()), one in ten a re-arm of a pending entry, 7 in
 * 100 dels of any entry, the rest advances: mostly by one tick, else by
 * jumps (see model_rand_to()).  An add is for a tick one time in four, if
 * the structure takes one.  The expiry functions add and del at random
 * too.  Each expiry must be the model's next one, on its tick; after each
 * operation the structure must agree with the model.
 */
void model_run(struct model *m, unsigned int ops, unsigned int every)
{
	struct model_entry *x;
	bool all;
	u64 r;

	m->rand_acts = true;
	for (m->op = 0; m->op < ops && !model_input_done(m); m->op++) {
		all = !(m->op % every);
		r = model_below(m, 100);
		if (r < 40) {
			model_rand_arm(m, model_rand_entry(m));
		} else if (r < 45) {
			model_rand_burst(m);
		} else if (r < 55) {
			x = model_rand_pending(m);
			if (x)
				model_rand_arm(m, x);
		} else if (r < 62) {
			model_stop(m, model_rand_entry(m));
		} else {
			model_advance(m, model_rand_to(m));
			all = true;
		}
		model_verify_some(m, all);
		if (!(m->op % 1024))
			cond_resched();
	}
}

/**
 * model_random() - the differential test: @ops random operations
 * @m: the model, reset after model_seed(), with its entries idle.
 * @ops: how many.
 * @every: check every entry after each @every-th operation, and after
 *	every advance.
 *
 * model_run(), then a check that the run took the rare paths; then every
 * entry is stopped.
 */
void model_random(struct model *m, unsigned int ops, unsigned int every)
{
	struct kunit *test = m->test;
	u64 start_ns = ktime_get_ns(), start = m->now;
	unsigned int n;

	kunit_info(test, "seed %#llx: %u operations, %u entries, tick %llu, max interval %llu\n",
		   m->seed, ops, m->nent, m->now, m->shape.max_interval);
	model_run(m, ops, every);

	kunit_info(test, "fired %llu, %llu on the tick of the one before\n",
		   m->n.fired, m->n.same_tick);
	kunit_info(test, "re-armed %llu (%llu due), stopped %llu (%llu due)\n",
		   m->n.rearmed, m->n.rearmed_due, m->n.stopped,
		   m->n.stopped_due);
	kunit_info(test, "refused %llu, far %llu, from expiry %llu, jumps %llu\n",
		   m->n.refused, m->n.far, m->n.acts, m->n.jumps);
	kunit_info(test, "pending %llu.%02llu on average, clock moved %llu ticks\n",
		   m->n.pending / ops, m->n.pending % ops * 100 / ops,
		   m->now - start);
	kunit_info(test, "%u operations in %llu ms\n", ops,
		   div_u64(ktime_get_ns() - start_ns, NSEC_PER_MSEC));

	KUNIT_EXPECT_GT(test, m->n.fired, 0ULL);
	KUNIT_EXPECT_GT(test, m->n.same_tick, 0ULL);
	KUNIT_EXPECT_GT(test, m->n.rearmed_due, 0ULL);
	KUNIT_EXPECT_GT(test, m->n.stopped_due, 0ULL);
	KUNIT_EXPECT_GT(test, m->n.acts, 0ULL);
	KUNIT_EXPECT_GT(test, m->n.jumps, 0ULL);
	if (model_bounded(m))
		KUNIT_EXPECT_GT(test, m->n.refused, 0ULL);
	if (m->shape.max_interval > model_far(m) && !m->shape.nttls)
		KUNIT_EXPECT_GT(test, m->n.far, 0ULL);

	for (n = 0; n < m->nent; n++)
		model_stop(m, model_ent(m, n));
	model_verify(m);
	model_assert_empty(m);
}
