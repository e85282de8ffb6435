// SPDX-License-Identifier: GPL-2.0
/*
 * ops.c - the work of each of the wheel's operations, one at a time, with
 * N entries pending: for counting its instructions under valgrind's
 * callgrind, and for timing it on the host.
 *
 *   ops [-t] SCHEME N
 *
 * SCHEME is 6 (4096 slots) or 7 (256/256/256), the module's defaults.  N
 * entries are armed 10^6 to 2*10^6 ticks ahead (the far entries of Fig. 9's
 * benchmark), none of them in the Scheme 6 slots of the next %WINDOW ticks,
 * so that those ticks hold only what a region puts there.  Then each
 * region below runs once, in its own function, which calls the core and
 * nothing else:
 *
 *   add        %K idle entries armed, as far ahead as the N
 *   del        those %K deleted again, pending
 *   pair       %K pending entries each deleted and armed again
 *   tick       %TICKS advances by one tick on which nothing is due
 *   expire1/2  one tick on which %K, then 2 * %K, entries are due
 *   early1/2   one advance in which %K, then 2 * %K, entries are looked at
 *              and left for a later rotation of the hashed top level
 *   migrate1/2 (Scheme 7) one advance in which %K, then 2 * %K, entries
 *              move from level 1 down to level 0, and no further
 *
 * It prints one line per region: its name, how many operations it did,
 * what the wheel's stats counted in it (expired, early visits, migrated),
 * and with -t the ns it took.  The instructions a region spends in the core
 * are its function's inclusive cost less its own (scripts/user-ops.sh).
 * The 1/2 pairs differ only in the entries they handle, so their
 * difference is the cost of those entries alone, without the tick's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/compiler.h>

#include "twheel_core.h"

#define K		1000
#define TICKS		256
#define FAR		1000000ULL
#define WINDOW		1024
#define START		1000

/* Not inlined, cloned or otherwise changed: each region keeps its name. */
#define __region	__attribute__((__noipa__))

static const struct twheel_geometry geo6 = TWHEEL_GEOMETRY6(4096);
static const struct twheel_geometry geo7 = TWHEEL_GEOMETRY7(3, 256, 256, 256);

static unsigned long long seed = 1987;
static unsigned long expiries;
static bool timed;

static u64 rnd(u64 range)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (seed >> 24) % range;
}

/* A far tick whose Scheme 6 slot is not one of the window's. */
static u64 far_tick(void)
{
	u64 t;

	do {
		t = START + FAR + rnd(FAR);
	} while ((t - START - 1) % 4096 < WINDOW);
	return t;
}

static __region void expire(struct twheel *w, struct twheel_entry *e,
			    void *ctx)
{
	expiries++;
}

static __region void reg_add(struct twheel *w, struct twheel_entry *e,
			     const u64 *at)
{
	unsigned int i;

	for (i = 0; i < K; i++)
		twheel_add_at(w, &e[i], at[i]);
}

static __region void reg_del(struct twheel *w, struct twheel_entry *e)
{
	unsigned int i;

	for (i = 0; i < K; i++)
		twheel_del(w, &e[i]);
}

static __region void reg_pair(struct twheel *w, struct twheel_entry *e,
			      const u64 *at)
{
	unsigned int i;

	for (i = 0; i < K; i++) {
		twheel_del(w, &e[i]);
		twheel_add_at(w, &e[i], at[i]);
	}
}

static __region void reg_tick(struct twheel *w)
{
	unsigned int i;

	for (i = 0; i < TICKS; i++)
		twheel_advance(w, w->now + 1, expire, NULL);
}

/* The advances of the 1/2 pairs, each under its own name. */
#define REGION_ADVANCE(name)						\
static __region void name(struct twheel *w, u64 to)			\
{									\
	twheel_advance(w, to, expire, NULL);				\
}

REGION_ADVANCE(reg_expire1)
REGION_ADVANCE(reg_expire2)
REGION_ADVANCE(reg_early1)
REGION_ADVANCE(reg_early2)
REGION_ADVANCE(reg_migrate1)
REGION_ADVANCE(reg_migrate2)

static u64 ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* What a region did, from the wheel's stats before and after. */
static void report(const char *name, unsigned int ops,
		   const struct twheel_stats *a, const struct twheel_stats *b,
		   u64 t)
{
	printf("%s ops %u expired %llu early %llu migrated %llu", name, ops,
	       b->expired - a->expired, b->early_visits - a->early_visits,
	       b->migrated - a->migrated);
	if (timed)
		printf(" ns %llu", t);
	printf("\n");
}

/* Run region @call, which does @ops operations, and report it. */
#define REGION(name, ops, call) do {					\
	struct twheel_stats before = w.stats;				\
	u64 t0 = ns();							\
									\
	call;								\
	t0 = ns() - t0;							\
	report(name, ops, &before, &w.stats, t0);			\
} while (0)

static void del_all(struct twheel *w, struct twheel_entry *e, unsigned int k)
{
	unsigned int i;

	for (i = 0; i < k; i++)
		twheel_del(w, &e[i]);
}

int main(int argc, char **argv)
{
	struct twheel_entry *bg, *e;
	unsigned long n, i;
	struct twheel w;
	u64 at[K], to, g;
	unsigned int k;
	int scheme;

	if (argc > 1 && !strcmp(argv[1], "-t")) {
		timed = true;
		argc--;
		argv++;
	}
	if (argc != 3)
		goto usage;
	scheme = atoi(argv[1]);
	if (scheme != 6 && scheme != 7)
		goto usage;
	n = strtoul(argv[2], NULL, 0);
	if (twheel_init(&w, scheme == 6 ? &geo6 : &geo7, START))
		return 1;
	bg = calloc(n + 2 * K, sizeof(*bg));
	if (!bg)
		return 1;
	e = bg + n;
	for (i = 0; i < n + 2 * K; i++)
		twheel_entry_init(&bg[i]);
	for (i = 0; i < n; i++)
		twheel_add_at(&w, &bg[i], far_tick());

	for (k = 0; k < K; k++)
		at[k] = far_tick();
	REGION("add", K, reg_add(&w, e, at));
	REGION("del", K, reg_del(&w, e));
	for (k = 0; k < K; k++) {
		twheel_add_at(&w, &e[k], far_tick());
		at[k] = far_tick();
	}
	REGION("pair", K, reg_pair(&w, e, at));
	del_all(&w, e, K);
	REGION("tick", TICKS, reg_tick(&w));

	for (k = 0; k < K; k++)
		twheel_add(&w, &e[k], 1);
	REGION("expire1", K, reg_expire1(&w, w.now + 1));
	for (k = 0; k < 2 * K; k++)
		twheel_add(&w, &e[k], 1);
	REGION("expire2", 2 * K, reg_expire2(&w, w.now + 1));

	if (scheme == 6) {
		/* Due three rotations on: looked at, and left. */
		for (k = 0; k < K; k++)
			twheel_add(&w, &e[k], 1 + 3 * 4096);
		REGION("early1", K, reg_early1(&w, w.now + 1));
		del_all(&w, e, K);
		for (k = 0; k < 2 * K; k++)
			twheel_add(&w, &e[k], 1 + 3 * 4096);
		REGION("early2", 2 * K, reg_early2(&w, w.now + 1));
		del_all(&w, e, 2 * K);
		return 0;
	}

	/*
	 * Due in the level-1 slot after next: drained into level 0 over the
	 * span before it, and left there.
	 */
	g = 256;
	for (k = 0; k < K; k++)
		twheel_add_at(&w, &e[k], (w.now / g + 2) * g + rnd(g));
	to = (w.now / g + 2) * g - 1;
	REGION("migrate1", K, reg_migrate1(&w, to));
	del_all(&w, e, K);
	for (k = 0; k < 2 * K; k++)
		twheel_add_at(&w, &e[k], (w.now / g + 2) * g + rnd(g));
	to = (w.now / g + 2) * g - 1;
	REGION("migrate2", 2 * K, reg_migrate2(&w, to));
	del_all(&w, e, 2 * K);

	/*
	 * Due a rotation after the top-level slot that starts draining next:
	 * the drain looks at each, and puts it back.
	 */
	g = 256 * 256;
	for (k = 0; k < K; k++)
		twheel_add_at(&w, &e[k], (w.now / g + 2 + 256) * g + rnd(g));
	to = (w.now / g + 2) * g - 256 - 1;
	REGION("early1", K, reg_early1(&w, to));
	del_all(&w, e, K);
	for (k = 0; k < 2 * K; k++)
		twheel_add_at(&w, &e[k], (w.now / g + 2 + 256) * g + rnd(g));
	to = (w.now / g + 2) * g - 256 - 1;
	REGION("early2", 2 * K, reg_early2(&w, to));
	del_all(&w, e, 2 * K);
	return 0;
usage:
	fprintf(stderr, "usage: ops [-t] 6|7 N\n");
	return 2;
}
