#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user-bench.sh [BASELINE_REV] - "make user-bench": moves per tick on the
# loads of issue #10, before and after, in user space.
#
# Builds user/cascade.c (-O2) twice into build/user/: against the core of
# BASELINE_REV (default 56a33fd, the last core that cascades whole slots),
# its twheel_core.c and include/ taken out of git into a temporary folder,
# and against the working tree's core; runs both, one after the other, and
# writes their figures side by side to bench/results/cascade-moves.md, which
# it also prints; then counts, with valgrind's callgrind, the instructions
# each core spends on a stop+start pair and on an expiry and its re-arm
# (user/cost.c).  The figures count work, not time: they do not depend on
# the machine.  CC picks the compiler.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
rev=${1:-56a33fd}
"$here/install-deps.sh" valgrind
out=$TWHEEL_TOP/build/user
results=$TWHEEL_TOP/bench/results/cascade-moves.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out" "$tmp/base/include"

cd "$TWHEEL_TOP"
base=$(git rev-parse --short "$rev^{commit}") || die "no commit $rev"
for f in twheel_core.c $(git ls-tree --name-only "$base" include/); do
	git show "$base:$f" >"$tmp/base/$f"
done
head=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- twheel_core.c include || head="$head + changes"

# build CORE_DIR BINARY [PROGRAM]
build() {
	${CC:-cc} -std=gnu11 -O2 -Wall -Wno-unused-parameter \
		-Iuser/shim -I"$1/include" -o "$2" \
		"user/${3:-cascade}.c" "$1/twheel_core.c" user/shim/shim.c ||
		die "building $2 against $1 failed"
}
build "$tmp/base" "$out/cascade-$base"
build . "$out/cascade"
build "$tmp/base" "$out/cost-$base" cost
build . "$out/cost" cost

# instructions BINARY ARGS... - instructions per operation of one cost run:
# the run's count with its last argument as given, less that with it 0.
instructions() {
	local bin=$1 full zero ops
	shift
	full=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" "$@" 2>&1) || die "callgrind $bin $* failed"
	zero=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" "${@:1:$#-1}" 0 2>&1) || die "callgrind $bin failed"
	ops=$(sed -n 's/^\([0-9]*\) .*/\1/p' <<<"$full")
	full=$(sed -n 's/.*refs: *//p' <<<"$full" | tr -d ,)
	zero=$(sed -n 's/.*refs: *//p' <<<"$zero" | tr -d ,)
	echo $(( (full - zero) / ops ))
}

note "cascade against $base"
"$out/cascade-$base" -k >"$tmp/before" || die "cascade against $base failed"
note "cascade against the working tree ($head)"
"$out/cascade" -k >"$tmp/after" || die "cascade against the working tree failed"

{
	echo "# Moves per tick, before and after"
	echo
	echo "By \`scripts/user-bench.sh $rev\`: \`user/cascade.c\` built in user"
	echo "space against the core of $base (before) and of the working tree at"
	echo "$head (after).  A move is an entry taken from one slot to another"
	echo "without expiring: \`stats.migrated + stats.early_visits\`.  Loads (a)"
	echo "to (c) advance one tick at a time; (d) in one call.  The figures"
	echo "count work, so they are the same on any machine."
	# Join on (load, figure) in the order the baseline printed them.
	awk -F '\t' -v before="$base" -v after="$head" '
		NR == FNR { val[$1 "\t" $2] = $3; next }
		{
			key = $1 "\t" $2
			if ($1 != load) {
				load = $1
				printf "\n## %s\n\n| figure | before: %s | after: %s |\n",
				       load, before, after
				print "| --- | ---: | ---: |"
			}
			printf "| %s | %s | %s |\n", $2, $3,
			       (key in val) ? val[key] : "-"
		}' "$tmp/after" "$tmp/before"
	echo
	echo "## Instructions per operation, the wheels alone"
	echo
	echo "\`user/cost.c\` under valgrind's callgrind: instructions executed per"
	echo "operation (a run's count less that of the same run doing none of"
	echo "them), at the module's default geometries (Scheme 6: 4096 slots,"
	echo "Scheme 7: 256/256/256).  *pair*: with 10^5 entries pending 10^6 to"
	echo "2x10^6 ticks ahead, one more stopped and armed again 3x10^6 to"
	echo "4x10^6 ahead, and the tick its slot is first looked at computed, as"
	echo "setcallout() does (Fig. 9's pair, in the core).  *expiry*: 10^5"
	echo "entries each re-armed from its expiry 2..300 ticks on, advanced a"
	echo "tick at a time for 3000 ticks (the live lateness load, in the core)."
	echo
	echo "| operation | scheme | before: $base | after: $head |"
	echo "| --- | ---: | ---: | ---: |"
	for s in 6 7; do
		echo "| pair | $s | $(instructions "$out/cost-$base" pair $s 100000 200000) | $(instructions "$out/cost" pair $s 100000 200000) |"
	done
	for s in 6 7; do
		echo "| expiry + re-arm | $s | $(instructions "$out/cost-$base" rearm $s 3000) | $(instructions "$out/cost" rearm $s 3000) |"
	done
} >"$results"
cat "$results"
note "wrote $results; user-bench took $(( $(date +%s) - start )) s"
