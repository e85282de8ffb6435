#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - "make bench": the paper's Fig. 9 and memory per timer, in one
# guest boot, written to bench/results/.
#
# Boots the stock Debian 12 kernel (no KASAN, lockdep or debug objects)
# in QEMU, loads twheel with scheme=6 and runs bench/twheel_bench.c over
# every facility, then reloads twheel with scheme=7 and runs its two
# facilities again.  Writes fig9.csv (facility,scheme,n,ns_per_pair),
# memory.csv, results.md and fig9.png.  MAX_N (default 1000000) bounds n.
# It reports; it never fails because the machine is slow.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
max_n=${MAX_N:-1000000}
results=$TWHEEL_TOP/bench/results

"$here/install-deps.sh" gnuplot-nox

debian_kernel

out=$TWHEEL_TOP/build/bench-$ver
mods=$("$here/build-module.sh" "$kdir" "$out")
twheel=$(grep '/twheel.ko$' <<<"$mods")
make -C "$out/bench" KDIR="$kdir" TWHEEL="$out" W=1 >"$out/bench.log" 2>&1 ||
	{ cat "$out/bench.log" >&2; die "building the benchmark failed"; }
log=$out.console.log

run="b=/lib/twheel/twheel_bench.ko
insmod /lib/twheel/twheel.ko scheme=6
cat /sys/kernel/debug/twheel/config
insmod \$b scheme=6 max_n=$max_n && rmmod twheel_bench
rmmod twheel
insmod /lib/twheel/twheel.ko scheme=7
insmod \$b scheme=7 max_n=$max_n facilities=twheel_timeout,twheel_setcallout
rmmod twheel_bench
rmmod twheel"

note "bench on debian-$ver, n up to $max_n; console in $log"
# Under TCG the guest marks the TSC unstable and reads time from the HPET,
# an emulated device read costing microseconds; every facility that reads
# the clock would be measured by it.  Trust the TSC, as hardware would.
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 5400 \
	--append "tsc=reliable clocksource=tsc" \
	--file "$twheel:/lib/twheel/twheel.ko" \
	--file "$out/bench/twheel_bench.ko:/lib/twheel/twheel_bench.ko" \
	--run "$run" || die "the guest failed; see $log"
python3 "$here/ktap.py" "$log" --label bench --health-only ||
	die "the guest's console shows a problem; see $log"

mkdir -p "$results"
python3 "$here/bench-report.py" "$log" "$results" "debian-$ver"
gnuplot -e "dir='$results'" "$here/fig9.gnuplot"
note "bench results in $results; make bench took $(( $(date +%s) - start )) s"
