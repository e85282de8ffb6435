/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference model that twheel_wheel and twheel_schemes hold a timer
 * structure to: the pending entries in a plain list sorted by due tick and,
 * within a tick, by the order they were last armed in (the order
 * twheel_core.c's DOC: block and tsched.h promise).
 *
 * The model knows neither twheel's nor tsched's types.  A suite embeds a
 * &struct model in its case state and a &struct model_entry in each of its
 * timers, and adapts its structure through &struct model_ops; the model
 * owns the entries, the checks made on every add, del and expiry, the
 * random run and the directed scenarios both suites share.
 *
 * Checks made inside an advance must not abort the case: model_check()
 * reports the first failure and sets @failed, on which model_advance() and
 * model_verify() assert once the structure is back in their hands.  Every
 * message names the random run's seed (0 in the directed cases), the index
 * of its operation and the model's clock, so that a failure can be replayed.
 *
 * The same source is built in user space, over the stand-in kernel headers
 * of user/shim/ (whose KUnit ends the program at the first failure), for
 * user/fuzz.c: there a random run draws its choices from a seed, or from a
 * fuzzer's input (@in).
 */
#ifndef _TWHEEL_KUNIT_MODEL_H
#define _TWHEEL_KUNIT_MODEL_H

#include <kunit/test.h>
#include <linux/list.h>
#include <linux/types.h>

/* What every message starts with: @seed, @op and @now of the model. */
#define MODEL_AT		"seed %#llx op %llu tick %llu"

#define MODEL_LOG		16	/* expiries whose ids are kept */
#define MODEL_GRAN		9	/* boundaries a random run aims near */
/* Entries a random jump may pass, about, with its pending ones: see below. */
#define MODEL_JUMP_WORK		4096

/* What an entry's expiry does besides being checked (see model_act()). */
enum model_act {
	MODEL_NOTHING,
	MODEL_REARM_SELF,	/* re-arm itself @arg ticks on, @times over */
	MODEL_ARM_OTHER,	/* arm or re-arm @other @arg ticks on */
	MODEL_STOP_OTHER,	/* stop @other */
	MODEL_STOP_SELF,	/* stop itself, which is idle already */
	MODEL_STOP_ALL,		/* stop every entry of the case */
};

/*
 * The structure's view of an entry, as the suite reads it: pending or not,
 * marked due on the tick being processed, its due tick and its slot.
 */
struct model_view {
	u64 expires;
	u32 slot;
	bool pending;
	bool expired;
};

/* The model's view of one timer of the suite, embedded in it. */
struct model_entry {
	struct list_head node;	/* in model.pending while pending there */
	u64 due;		/* the tick the model expects it on */
	u64 seq;		/* when it was last armed: orders one tick */
	u64 fired_at;		/* the tick it last expired on */
	u32 id;
	u32 fired;		/* expiries seen */
	bool pending;
	enum model_act act;
	struct model_entry *other;
	u64 arg;
	unsigned int times;
	int ret;		/* what the act's add or del returned */
	struct model_view other_view;	/* @other's just before the act */
};

struct model;

/**
 * struct model_ops - how the model reaches the structure under test
 * @name: what messages call the structure.
 * @entry_init: make the suite's timer of @x idle.
 * @add: arm @x @interval ticks on; return what the structure returned.
 * @add_at: optional, arm @x for @tick, one not after the clock meaning
 *	the next; return what the structure returned.  Random runs use it
 *	for one add in four.
 * @del: stop @x; return what the structure returned.
 * @advance: move the clock to @to, calling model_expired() for each
 *	entry handed over.
 * @now: the structure's clock.
 * @count: the entries the structure holds pending.
 * @view: the structure's view of @x.
 * @check_entry: optional, more checks of @x once the model's are passed;
 *	return false, after model_check(), if one failed.
 * @verify: optional, more checks of the whole structure after an
 *	operation, every entry having been checked.
 * @assert_empty: optional, more checks that nothing is left behind.
 * @next_work: optional, the tick the structure next has work on: random
 *	advances go there now and then.
 */
struct model_ops {
	const char *name;
	void (*entry_init)(struct model *m, struct model_entry *x);
	int (*add)(struct model *m, struct model_entry *x, u64 interval);
	int (*add_at)(struct model *m, struct model_entry *x, u64 tick);
	bool (*del)(struct model *m, struct model_entry *x);
	void (*advance)(struct model *m, u64 to);
	u64 (*now)(struct model *m);
	unsigned long (*count)(struct model *m);
	void (*view)(struct model *m, const struct model_entry *x,
		     struct model_view *v);
	bool (*check_entry)(struct model *m, const struct model_entry *x);
	void (*verify)(struct model *m);
	void (*assert_empty)(struct model *m);
	u64 (*next_work)(struct model *m);
};

/**
 * struct model_shape - what a random run draws its intervals and jumps around
 * @span: ticks the structure repeats over, or a scale.
 * @gran: boundaries intervals and due ticks aim near; 0 ends the list.
 * @max_interval: the longest interval the structure takes.
 * @far_spans: how many spans a random advance may jump at the most, and
 *	the farthest next work or first expiry it jumps to; 0 for 16 such,
 *	with the longest blind jump 2 spans.  A jump is halved while it
 *	would pass the pending entries' spans more than %MODEL_JUMP_WORK
 *	times over.
 * @max_now: if set, the last tick a random advance may reach.
 * @ttls: if set, the only intervals the run uses (a Lawn's few TTLs).
 * @nttls: how many.
 */
struct model_shape {
	u64 span;
	u64 gran[MODEL_GRAN];
	u64 max_interval;
	u64 far_spans;
	u64 max_now;
	const u64 *ttls;
	unsigned int nttls;
};

/* How often the rarer paths were taken: a random run must reach them. */
struct model_counts {
	u64 fired;
	u64 same_tick;		/* expiries on the previous one's tick */
	u64 rearmed;		/* adds of a pending entry */
	u64 rearmed_due;	/* ... of one due on the tick being processed */
	u64 stopped;		/* dels of a pending entry */
	u64 stopped_due;	/* ... of one due on the tick being processed */
	u64 refused;		/* adds beyond @max_interval */
	u64 far;		/* adds for longer than any one advance */
	u64 acts;		/* adds and dels made by expiry functions */
	u64 jumps;		/* advances by more than one tick */
	u64 pending;		/* entries pending, summed over operations */
};

/* One case's model and entries; the suite's case state embeds it. */
struct model {
	struct kunit *test;
	const struct model_ops *ops;
	struct model_shape shape;

	/* The suite's timers, @esize bytes each, the model's at @eoff. */
	void *ent;
	size_t esize, eoff;
	unsigned int cap;	/* entries allocated */
	unsigned int nent;	/* entries in use */
	void *was;		/* one timer, as it was before an add */

	/* The model. */
	bool ordered;		/* keep @pending, else check order only */
	struct list_head pending;	/* pending entries by (due, seq) */
	unsigned long npending;
	u64 now;
	u64 seq;
	u64 to;			/* the target of the advance under way */

	/* What the expiries have shown. */
	u64 last_tick, last_seq;	/* the latest expiry */
	bool failed;		/* a check made while advancing failed */
	u32 log[MODEL_LOG];	/* ids of the first expiries */
	unsigned int nlog;

	/* The random operations of model_random(). */
	bool rand_acts;		/* expiry functions act at random */
	u64 seed, rnd, op;
	struct model_counts n;

	/*
	 * If set, where model_below() reads its choices instead, a few bytes
	 * each: a fuzzer's input.  Once it is used up every byte reads as 0,
	 * expiry functions no longer act and model_run() ends.
	 */
	const u8 *in;
	size_t left;
};

int model_case_init(struct model *m, struct kunit *test,
		    const struct model_ops *ops, size_t esize, size_t eoff);
void model_case_exit(struct model *m);
void model_reset(struct model *m, const struct model_shape *shape, u64 now,
		 unsigned int nent);

/**
 * model_ent() - the model's view of the suite's timer @i
 * @m: the model.
 * @i: the index, below @m->nent.
 *
 * Return: the &struct model_entry embedded in the timer.
 */
static inline struct model_entry *model_ent(const struct model *m,
					    unsigned int i)
{
	return (struct model_entry *)((char *)m->ent + i * m->esize + m->eoff);
}

bool model_check(struct model *m, const struct model_entry *x, bool ok,
		 const char *what);
int model_arm(struct model *m, struct model_entry *x, u64 interval);
int model_arm_at(struct model *m, struct model_entry *x, u64 tick);
bool model_stop(struct model *m, struct model_entry *x);
struct model_entry *model_first(struct model *m);
void model_expired(struct model *m, struct model_entry *x, u64 now);
void model_paused(struct model *m);
void model_advance(struct model *m, u64 to);
void model_verify_some(struct model *m, bool all);
void model_verify(struct model *m);
void model_assert_empty(struct model *m);
bool model_bounded(const struct model *m);

u64 model_rand(struct model *m);
u64 model_below(struct model *m, u64 n);
u64 model_seed(struct model *m, u64 seed);
void model_rand_act(struct model *m, struct model_entry *x);
void model_run(struct model *m, unsigned int ops, unsigned int every);
void model_random(struct model *m, unsigned int ops, unsigned int every);

/* Entries the directed scenarios use, the first ones of the case. */
#define MODEL_LIMITS_ENTRIES	5
#define MODEL_ORDER_ENTRIES	11
#define MODEL_DEL_ENTRIES	9
#define MODEL_REARM_ENTRIES	12

void model_add_interval_limits(struct model *m);
void model_same_tick_order(struct model *m, u64 dist);
void model_del_every_state(struct model *m);
void model_rearm_from_expiry(struct model *m);

#endif /* _TWHEEL_KUNIT_MODEL_H */
