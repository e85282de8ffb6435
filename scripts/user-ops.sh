#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user-ops.sh - "make user-ops": instructions and ns per operation of the
# wheels, in user space, beside the paper's VAX counts.
#
# Builds user/ops.c (-O2) into build/user/ and runs it for both default
# geometries (Scheme 6: 4096 slots; Scheme 7: 256/256/256) with N = 10^2
# to 10^6 entries pending far ahead.  ops.c runs each operation in a region
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
# core (its twheel_core.c and include/ taken out of git), and a last table
# sets the two side by side at N = 10^6 with issue #11's targets:
# instructions only, before and after.
#
# Writes bench/results/ops.md (RESULTS=DIR: DIR/ops.md), which it also
# prints.  CC picks the compiler.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
runs=${RUNS:-5}
"$here/install-deps.sh" valgrind
out=$TWHEEL_TOP/build/user
results=$(realpath -m "${RESULTS:-$TWHEEL_TOP/bench/results}")/ops.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

cd "$TWHEEL_TOP"
# build CORE_DIR BINARY
build() {
	${CC:-cc} -std=gnu11 -O2 -g -Wall -Wno-unused-parameter -Iuser/shim \
		-I"$1/include" -o "$2" user/ops.c "$1/twheel_core.c" \
		user/shim/shim.c || die "building $2 against $1 failed"
}
build . "$out/ops"
base=
if [ -n "${1:-}" ]; then
	base=$(git rev-parse --short "$1^{commit}") || die "no commit $1"
	mkdir -p "$tmp/base/include"
	for f in twheel_core.c $(git ls-tree --name-only "$base" include/); do
		git show "$base:$f" >"$tmp/base/$f"
	done
	build "$tmp/base" "$out/ops-$base"
fi
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

# cell SCHEME N OP - "instructions / ns" for one table cell.
cell() {
	local ir ns
	ir=$(awk -v op="$3" '$1 == op { print $2 }' "$tmp/ir-$1-$2")
	ns=$(awk -v op="$3" '$1 == op { print $2 }' "$tmp/ns-$1-$2")
	if [ "$ir" = - ]; then
		echo "-"
	else
		echo "$ir / $ns"
	fi
}

{
	echo "# Instructions and ns per operation"
	echo
	echo "By \`scripts/user-ops.sh\`: \`user/ops.c\` built with $cc_version"
	echo "-O2 against the core at $head, with N entries pending 10^6 to"
	echo "2x10^6 ticks ahead, at the module's default geometries.  Each cell"
	echo "is *instructions / ns* per operation: the instructions the core"
	echo "executed, counted by valgrind's callgrind (the same on any x86-64"
	echo "machine for this compiler), and the median time of $runs runs on"
	echo "this host ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))."
	echo "The script's header says how each figure is taken."
	echo
	echo "The *VAX* column holds the VAX instruction counts Varghese and Lauck"
	echo "give (SOSP '87, section VI): insert 13, delete 7, an empty slot 4,"
	echo "each entry whose count is decremented 6, an expiry 9.  Their slot"
	echo "visit decrements every entry of the slot; here an entry of a later"
	echo "rotation is looked at and left (an *early visit*)."
	echo
	echo "Operations: *add*, arm an idle entry; *del*, stop a pending one;"
	echo "*del + add*, stop and re-arm a pending one; *empty tick*,"
	echo "twheel_advance() by one tick on which nothing is due (a core with"
	echo "the next-work hint, twheel.next, only moves its clock; one without"
	echo "searches the busy-slot bitmap, here up to 1024 slots ahead);"
	echo "*expiry*, *early visit* and *migration*, each entry handled so, the"
	echo "tick's own work taken off.  Scheme 7 spreads a drain over the"
	echo "ticks before the slot's span, a few entries a tick (8 here), so"
	echo "there an early visit or a migration carries its share of the ticks"
	echo "the drain takes."
	for s in 6 7; do
		echo
		if [ "$s" = 6 ]; then
			echo "## Scheme 6, 4096 slots"
		else
			echo "## Scheme 7, 256/256/256 slots"
		fi
		echo
		echo "| operation | VAX | N = 10^2 | 10^3 | 10^4 | 10^5 | 10^6 |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
		for row in add:add:13 del:del:7 "pair:del + add:" \
			   "tick:empty tick:4" expiry:expiry:9 \
			   "early:early visit:6" migration:migration:; do
			op=${row%%:*} rest=${row#*:}
			name=${rest%%:*} vax=${rest#*:}
			line="| $name | ${vax:--} |"
			for n in $sizes; do
				line="$line $(cell "$s" "$n" "$op") |"
			done
			echo "$line"
		done
	done
	if [ -n "$base" ]; then
		echo
		echo "## Before and after, instructions at N = 10^6"
		echo
		echo "The core of $base against that of $head, by the same ops.c;"
		echo "the targets are issue #11's."
		echo
		echo "| operation | scheme | $base | $head | target |"
		echo "| --- | --- | ---: | ---: | ---: |"
		for row in add:6:30 del:6:15 pair:6: tick:6:60 add:7:45 del:7:15 \
			   pair:7: tick:7:60 expiry:6: expiry:7: early:6: early:7: \
			   migration:7:; do
			IFS=: read -r op s target <<<"$row"
			echo "| $op | $s | $(awk -v op="$op" '$1 == op { print $2 }' \
				"$tmp/base-$s") | $(awk -v op="$op" '$1 == op { print $2 }' \
				"$tmp/ir-$s-1000000") | ${target:--} |"
		done
	fi
} >"$results"
cat "$results"
note "wrote $results; user-ops took $(( $(date +%s) - start )) s"
