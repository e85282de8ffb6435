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
# it also prints.  The figures count work, not time: they do not depend on
# the machine.  CC picks the compiler.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
rev=${1:-56a33fd}
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

# build CORE_DIR BINARY
build() {
	${CC:-cc} -std=gnu11 -O2 -Wall -Wno-unused-parameter \
		-Iuser/shim -I"$1/include" -o "$2" \
		user/cascade.c "$1/twheel_core.c" user/shim/shim.c ||
		die "building $2 against $1 failed"
}
build "$tmp/base" "$out/cascade-$base"
build . "$out/cascade"

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
} >"$results"
cat "$results"
note "wrote $results; user-bench took $(( $(date +%s) - start )) s"
