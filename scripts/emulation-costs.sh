#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# emulation-costs.sh - what QEMU's two ways of running make bench charge
# for each step of a cancel+set pair, into RESULTS/emulation/ (RESULTS
# defaults to bench/results).
#
# Boots the stock Debian 12 kernel twice, as make bench does: once under
# plain TCG (2 vCPUs, the guest's clock following the host's), then under
# -icount shift=0 (1 vCPU, the clock advancing 1 ns per instruction, as
# bench.sh ICOUNT=1).  In each boot, REPEATS times (default 3), twheel is
# loaded with each scheme and bench/twheel_bench.ko measures its single
# steps (bench_steps(): an empty loop and eight ALU instructions to
# calibrate, a call, a locked instruction, the interrupt flag, the clock,
# the locks) and the setcallout, timer_list and hrtimer pairs of Fig. 9
# at n = 100, with the batches make bench uses in that mode.
#
# The two boots' lines are kept in RESULTS/emulation/tcg.txt and
# icount.txt.  scripts/emulation-costs.py then puts them side by side: for
# each step and pair, its instructions (the -icount boot), its ns (the
# plain boot) and the ns TCG takes per instruction; and with TRACE=FILE,
# the output of scripts/pair-trace.sh, what each pair's expensive
# instructions would cost at the steps' prices, against what the pair
# took.  TRACE=1 runs scripts/pair-trace.sh first, into
# RESULTS/emulation/pair-trace.txt.
#
# The plain boot's figures move with the host's load: compare rows
# within one run, and run it again to see the spread.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
repeats=${REPEATS:-3}
results=$(realpath -m "${RESULTS:-$TWHEEL_TOP/bench/results}")
dest=$results/emulation

debian_kernel
out=$TWHEEL_TOP/build/emulation-$ver
rm -rf "$out"
mods=$("$here/build-module.sh" "$kdir" "$out")
twheel=$(grep '/twheel.ko$' <<<"$mods")
make -C "$out/bench" KDIR="$kdir" TWHEEL="$out" W=1 >"$out/bench.log" 2>&1 ||
	{ cat "$out/bench.log" >&2; die "building the benchmark failed"; }

trace=
case "${TRACE:-}" in
'') ;;
1)
	mkdir -p "$dest"
	trace=$dest/pair-trace.txt
	RESULTS=$results "$here/pair-trace.sh" >"$trace"
	;;
*) trace=$(realpath "$TRACE") ;;
esac

# boot MODE MIN_MS BATCHES QEMU-ARG...: one guest, its console in
# $out/MODE.console.log.  The kernel's timers are measured in the scheme 7
# load only: twheel's scheme does not touch them.
boot() {
	local mode=$1 args="min_ms=$2 batches=$3" run='' r
	shift 3
	for ((r = 1; r <= repeats; r++)); do
		run+="
for s in 7 6; do
	f=twheel_setcallout
	[ \$s = 6 ] || f=\$f,timer_list,hrtimer
	insmod /lib/twheel/twheel.ko scheme=\$s
	insmod /lib/twheel/twheel_bench.ko scheme=\$s facilities=\$f max_n=100 lone=0 $args
	rmmod twheel_bench
	rmmod twheel
done"
	done
	note "emulation costs: the $mode boot; console in $out/$mode.console.log"
	# As make bench: no silence limit, as a measurement prints only when
	# done, and -icount runs one vCPU slowly; the cap stops the guest.
	"$here/qemu-run.sh" --kernel "$bzimage" --log "$out/$mode.console.log" \
		--timeout 1800 --silence 0 \
		--append "tsc=reliable clocksource=tsc" \
		--file "$twheel:/lib/twheel/twheel.ko" \
		--file "$out/bench/twheel_bench.ko:/lib/twheel/twheel_bench.ko" \
		"$@" --run "$run" || die "the $mode guest failed; see $out/$mode.console.log"
	python3 "$here/ktap.py" "$out/$mode.console.log" --label "$mode" \
		--health-only || die "the $mode guest's console shows a problem"
}

# The same batches as make bench in each mode (bench.sh).
boot tcg 200 3
boot icount 50 1 --qemu -smp --qemu 1 \
	--qemu -icount --qemu "shift=0,sleep=off,align=off"

tree=$(git -C "$TWHEEL_TOP" describe --always --dirty=+changes 2>/dev/null ||
	echo "not a git checkout")
mkdir -p "$dest"
for mode in tcg icount; do
	grep -ao 'twheel-bench: .*' "$out/$mode.console.log" | tr -d '\r' \
		>"$dest/$mode.txt"
done
python3 "$here/emulation-costs.py" ${trace:+--trace "$trace"} \
	--note "On debian-$ver under QEMU $(qemu-system-x86_64 --version |
		sed -n '1s/.*version \([^ ]*\).*/\1/p'), tree $tree, $repeats
		loads of the module per scheme in each boot." \
	"$dest" "$dest/tcg.txt" "$dest/icount.txt"
note "emulation costs in $dest; took $(( $(date +%s) - start )) s"
