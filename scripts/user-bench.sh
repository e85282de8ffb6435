#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user-bench.sh [BASELINE_REV] - "make user-bench": moves per tick on the
# loads of user/cascade.c, and instructions per operation, in user space.
#
# Builds user/cascade.c and user/cost.c (-O2) into build/user/ against the
# working tree's core and, with BASELINE_REV (56a33fd is the last core that
# cascades whole slots), against that revision's too, its twheel_core.c and
# include/ taken out of git into a temporary folder.  Runs cascade, which
# prints its figures as bench/bench_line.h says; then counts, with
# valgrind's callgrind, the instructions each core spends on a stop+start
# pair and on an expiry and its re-arm (user/cost.c).  The figures count
# work, not time: they do not depend on the machine.
#
# scripts/bench-report.py writes the report into RESULTS/user-bench
# (RESULTS defaults to bench/results, or with BASELINE=REV to
# ~/.cache/twheel/results/baseline-REV).  CC picks the compiler.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
"$here/install-deps.sh" valgrind
out=$TWHEEL_TOP/build/user
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

cd "$TWHEEL_TOP"
head=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- twheel_core.c include || head="$head+changes"
cores=". $head"
results=${RESULTS:-$TWHEEL_TOP/bench/results}
if [ -n "${1:-}" ]; then
	base=$("$here/core-at.sh" "$1" "$tmp/base")
	cores="$tmp/base $base $cores"
	results=${RESULTS:-$TWHEEL_CACHE/results/baseline-$base}
fi
results=$(realpath -m "$results")/user-bench

# build CORE_DIR BINARY PROGRAM
build() {
	${CC:-cc} -std=gnu11 -O2 -Wall -Wno-unused-parameter \
		-Iuser/shim -I"$1" -I"$1/include" -o "$2" \
		"user/$3.c" "$1/twheel_core.c" user/shim/shim.c ||
		die "building $2 against $1 failed"
}

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

set -- $cores
while [ $# -gt 0 ]; do
	dir=$1 core=$2
	shift 2
	build "$dir" "$out/cascade-$core" cascade
	build "$dir" "$out/cost-$core" cost
	note "cascade and cost against $core"
	"$out/cascade-$core" | sed "s/^twheel-bench: [^ ]*/& core=$core/" ||
		die "cascade against $core failed"
	for s in 6 7; do
		echo "twheel-bench: user-cost core=$core op=pair scheme=$s |" \
			"instructions=$(instructions "$out/cost-$core" pair $s 100000 200000)"
		echo "twheel-bench: user-cost core=$core op=rearm scheme=$s |" \
			"instructions=$(instructions "$out/cost-$core" rearm $s 3000)"
	done
done >"$tmp/lines"
rm -rf "$results"
python3 "$here/bench-report.py" --title "make user-bench" --note "user/cascade.c
	and user/cost.c built with $(${CC:-cc} --version | head -1) -O2 against
	the core at $head${base:+ and at $base}." "$results" "$tmp/lines"
note "wrote $results; user-bench took $(( $(date +%s) - start )) s"
