// SPDX-License-Identifier: GPL-2.0
/*
 * cost.c - the wheels' own work per operation, for counting instructions
 * under valgrind's callgrind, the one figure emulation does not distort.
 *
 *   cost pair SCHEME N COUNT    N entries armed 10^6..2*10^6 ticks ahead,
 *                               then COUNT times one more stopped and armed
 *                               again 3*10^6..4*10^6 ahead, with the tick
 *                               its slot is looked at (what setcallout()
 *                               asks): Fig. 9's pair, in the core alone
 *   cost rearm SCHEME TICKS     10^5 entries, each re-armed from its own
 *                               expiry 2..300 ticks on, advanced TICKS
 *                               ticks one at a time: the live benchmark's
 *                               lateness load, in the core alone
 *
 * SCHEME is 6 (4096 slots) or 7 (256/256/256), the module's defaults.  It
 * prints the operations it did; scripts/user-bench.sh runs it with COUNT or
 * TICKS 0 and not, and divides the difference in instructions by them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twheel_core.h"

static const struct twheel_geometry geo6 = TWHEEL_GEOMETRY6(4096);
static const struct twheel_geometry geo7 = TWHEEL_GEOMETRY7(3, 256, 256, 256);

static unsigned long long seed = 1997;
static unsigned long ops;

static unsigned long rnd(unsigned long range)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (seed >> 33) % range;
}

static void rearm(struct twheel *w, struct twheel_entry *e, void *ctx)
{
	ops++;
	twheel_add(w, e, 2 + rnd(299));
}

int main(int argc, char **argv)
{
	struct twheel_entry *e;
	struct twheel w;
	unsigned long n, count, i;
	bool pair;

	if (argc != 5 && argc != 4)
		goto usage;
	pair = !strcmp(argv[1], "pair");
	if (!pair && strcmp(argv[1], "rearm"))
		goto usage;
	if (twheel_init(&w, atoi(argv[2]) == 6 ? &geo6 : &geo7, 1000))
		return 1;
	n = pair ? strtoul(argv[3], NULL, 0) : 100000;
	count = strtoul(argv[pair ? 4 : 3], NULL, 0);
	e = calloc(n + 1, sizeof(*e));
	if (!e)
		return 1;
	for (i = 0; i <= n; i++) {
		twheel_entry_init(&e[i]);
		twheel_add(&w, &e[i], pair ? 1000000 + rnd(1000000) :
					     2 + rnd(299));
	}
	if (pair) {
		struct twheel_place pl;
		u64 visits = 0;

		for (ops = 0; ops < count; ops++) {
			twheel_del(&w, &e[n]);
			twheel_add(&w, &e[n], 3000000 + rnd(1000000));
			twheel_place(&w, w.now, e[n].expires, &pl);
			visits += pl.visit;
		}
		printf("%lu pairs (%llu)\n", ops, (unsigned long long)visits);
	} else {
		for (i = 0; i < count; i++)
			twheel_advance(&w, w.now + 1, rearm, NULL);
		printf("%lu expiries\n", ops);
	}
	return 0;
usage:
	fprintf(stderr, "usage: cost pair SCHEME N COUNT | cost rearm SCHEME TICKS\n");
	return 2;
}
