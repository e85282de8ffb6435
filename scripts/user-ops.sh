#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user-ops.sh - "make user-ops": instructions and ns per operation of the
# wheels, in user space, beside the paper's VAX counts.
#
# Builds user/ops.c (-O2, no vectorising) into build/user/ and runs it for
# both default geometries (Scheme 6: 4096 slots; Scheme 7: 256/256/256) with
# N = 10^2 to 10^6 entries pending far ahead.  ops.c runs each operation in a region
# of its own, a function that does nothing but call the core.
#
# Instructions: one run under valgrind's callgrind for each N and scheme.
# In callgrind's output, the cost callgrind books to a function's calls
# (the lines after its "calls=" lines) is everything its callees executed;
# so a region's calls hold exactly the core's instructions for the region,
# without the region's own loop, and dividing by its operation count gives
# the figure.  For expiries, early visits and migrations, each region is run
# twice, with K and with 2K entries, and the difference divided by the
# difference in what the wheel's stats counted: what remains is the cost
# of the entries alone, not of the tick that handles them.  The expiry
# function's own instructions (a counter) are taken off each expiry.  The
# counts depend on the compiler, not on the machine or its load.
#
# ns: ops.c -t, the same regions timed with clock_gettime(), loop included,
# the median of RUNS runs (default 5) on this machine.
#
# With a git revision REV as argument, ops.c is also built against REV's
# core (its twheel_core.c and include/ taken out of git), and counted at
# N = 10^6 beside the tree's: instructions only.
#
# Prints one line per figure as bench/bench_line.h says, and
# scripts/bench-report.py writes them into RESULTS/user-ops (RESULTS
# defaults to bench/results, or with REV to
# ~/.cache/twheel/results/baseline-REV).
# CC picks the compiler.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
runs=${RUNS:-5}
"$here/install-deps.sh" valgrind
out=$TWHEEL_TOP/build/user
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

cd "$TWHEEL_TOP"
# build CORE_DIR BINARY.  No vectorising: the kernel is built without SSE,
# so the module never stores two list pointers with one vector move.
build() {
	${CC:-cc} -std=gnu11 -O2 -fno-tree-vectorize -g -Wall \
		-Wno-unused-parameter -Iuser/shim \
		-I"$1" -I"$1/include" -o "$2" user/ops.c "$1/twheel_core.c" \
		user/shim/shim.c || die "building $2 against $1 failed"
}
build . "$out/ops"
base=
if [ -n "${1:-}" ]; then
	base=$("$here/core-at.sh" "$1" "$tmp/base")
	build "$tmp/base" "$out/ops-$base"
fi
results=${RESULTS:-$TWHEEL_TOP/bench/results}
[ -z "$base" ] || results=${RESULTS:-$TWHEEL_CACHE/results/baseline-$base}
results=$(realpath -m "$results")/user-ops
# The core's own revision: the last commit that changed it.
head=$(git log -1 --format=%h -- twheel_core.c include)
git diff --quiet HEAD -- twheel_core.c include || head="$head + changes"
cc_version=$(${CC:-cc} --version | head -1)

sizes="100 1000 10000 100000 1000000"

# figures FILE... - from ops' output (and callgrind's, as lines
# "cost REGION IR" and "self expire IR"), the figure of each operation:
# "OP VALUE" lines, VALUE per operation.
figures() {
	awk '
		$1 == "cost" { cost[$2] = $3; next }
		$1 == "self" { cb = $3; next }
		{
			reg = "reg_" $1
			ops[reg] = $3; ex[reg] = $5; early[reg] = $7
			mig[reg] = $9; exps += $5
			if ($10 == "ns")
				cost[reg] = $11
		}
		function per(a, b, n) { return (cost[b] - cost[a]) / n }
		END {
			c = exps ? cb / exps : 0
			printf "add %.1f\n", cost["reg_add"] / ops["reg_add"]
			printf "del %.1f\n", cost["reg_del"] / ops["reg_del"]
			printf "pair %.1f\n", cost["reg_pair"] / ops["reg_pair"]
			printf "tick %.1f\n", cost["reg_tick"] / ops["reg_tick"]
			printf "expiry %.1f\n", per("reg_expire1", "reg_expire2",
				ex["reg_expire2"] - ex["reg_expire1"]) - c
			printf "early %.1f\n", per("reg_early1", "reg_early2",
				early["reg_early2"] - early["reg_early1"])
			if ("reg_migrate1" in ops)
				printf "migration %.1f\n",
					per("reg_migrate1", "reg_migrate2",
					    mig["reg_migrate2"] - mig["reg_migrate1"])
			else
				print "migration -"
		}' "$@"
}

# From a callgrind output file with names and positions uncompressed: the
# instructions in the calls each region makes, and the expiry function's
# own instructions.
callee_costs() {
	awk '
		/^fn=/ { fn = substr($0, 4); call = 0; next }
		/^calls=/ { call = 1; next }
		/^[0-9]/ {
			if (call)
				callee[fn] += $2
			else
				self[fn] += $2
			call = 0
		}
		END {
			for (f in callee)
				if (f ~ /^reg_/)
					print "cost", f, callee[f]
			print "self expire", self["expire"] + 0
		}' "$1"
}

# instructions BINARY SCHEME N OUT - the instruction figures of one run.
instructions() {
	valgrind --tool=callgrind --compress-strings=no --compress-pos=no \
		--callgrind-out-file="$tmp/cg" "$1" "$2" "$3" \
		>"$tmp/ops" 2>"$tmp/vg" ||
		{ cat "$tmp/vg" >&2; die "callgrind $1 $2 $3 failed"; }
	callee_costs "$tmp/cg" >"$tmp/cost"
	figures "$tmp/ops" "$tmp/cost" >"$4"
}

for s in 6 7; do
	if [ -n "$base" ]; then
		note "scheme $s, 10^6 entries: callgrind on $base's core"
		instructions "$out/ops-$base" "$s" 1000000 "$tmp/base-$s"
	fi
	for n in $sizes; do
		note "scheme $s, $n entries: callgrind, then $runs timed runs"
		instructions "$out/ops" "$s" "$n" "$tmp/ir-$s-$n"
		for r in $(seq "$runs"); do
			"$out/ops" -t "$s" "$n" >"$tmp/t" ||
				die "ops -t $s $n failed"
			figures "$tmp/t" >"$tmp/ns-$s-$n-$r"
		done
		# The median of the runs, figure by figure.
		cat "$tmp/ns-$s-$n-"* | sort -k1,1 -k2,2g | awk '
			{ v[$1, ++k[$1]] = $2; if (!($1 in k0)) { k0[$1]; o[++m] = $1 } }
			END {
				for (i = 1; i <= m; i++) {
					op = o[i]
					printf "%s %s\n", op, v[op, int((k[op] + 1) / 2)]
				}
			}' >"$tmp/ns-$s-$n"
	done
done

# line CORE SCHEME N OP IR_FILE [NS_FILE] - one figure as bench_line.h says.
line() {
	echo "twheel-bench: user-ops core=${1// /} scheme=$2 n=$3 op=$4 |" \
		"instructions=$(awk -v op="$4" '$1 == op { print $2 }' "$5")" \
		"${6:+ns=$(awk -v op="$4" '$1 == op { print $2 }' "$6")}"
}

ops="add del pair tick expiry early migration"
for s in 6 7; do
	for n in $sizes; do
		for op in $ops; do
			line "$head" "$s" "$n" "$op" "$tmp/ir-$s-$n" "$tmp/ns-$s-$n"
		done
	done
	if [ -n "$base" ]; then
		for op in $ops; do
			line "$base" "$s" 1000000 "$op" "$tmp/base-$s"
		done
	fi
done >"$tmp/lines"
rm -rf "$results"
python3 "$here/bench-report.py" --title "make user-ops" --note "user/ops.c
	built with $cc_version -O2 -fno-tree-vectorize against the core at
	$head${base:+ and at $base}; ns are the median of $runs runs on this host ($(grep -m1 \
	'model name' /proc/cpuinfo | sed 's/.*: //'))." "$results" "$tmp/lines"
note "wrote $results; user-ops took $(( $(date +%s) - start )) s"
