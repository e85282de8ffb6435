#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - "make bench": the paper's Fig. 9 and memory per timer, every
# scheme of the papers side by side, and measurements of live callouts, in
# one guest boot, into bench/results/.
#
# Boots the stock Debian 12 kernel (no KASAN, lockdep or debug objects)
# in QEMU and, with twheel reloaded with other parameters between runs:
#
#   bench/twheel_bench.c  Fig. 9 over every facility with twheel's
#                         scheme=6, then twheel's two facilities again with
#                         scheme=7; MAX_N (default 1000000) bounds n; then
#                         the same pairs on the only timer of one CPU, and
#                         whether twheel stays tickless after (the lone
#                         timer), and the cost of reading the clock
#   bench/schemes_bench.c every scheme of the papers behind one interface
#                         (bench/tsched.c): start, stop and tick against
#                         n, and Schemes 6 and 7's bookkeeping against T;
#                         SCHEMES=0 skips it
#   bench/twheel_live.c   interrupts per expiry against Appendix A, at a
#                         0.1 ms tick on small wheels (scheme=6 256 slots,
#                         scheme=7 16/16/16); then for each scheme at the
#                         defaults, lateness under load (three runs, the
#                         schemes taking turns) and interrupts with nothing
#                         pending; LIVE=0 skips these
#   bench/twheel_cascade.c long callouts crossing level-1 boundaries and a
#                         level-2 boundary of the default Scheme 7 geometry
#                         on one CPU, at a 0.1 ms tick, for each scheme: work
#                         per interrupt, interrupts-off stretches, lateness
#                         of short callouts alongside; CASCADE=0 skips it,
#                         CASCADE_COUNTS (default 100000,1000000) sets the
#                         numbers of long callouts, and BASELINE=REV runs it
#                         on twheel.ko built from git revision REV too, in
#                         the same boot, before the tree's; BASELINE=REV
#                         runs twheel_bench.c's twheel facilities, Fig. 9
#                         and the lone timer, on it as well
#
# scripts/bench-report.py writes the CSV files, the plots and results.md,
# into bench/results/ or RESULTS; then scripts/user-ops.sh counts the
# wheels' instructions per operation in user space, into
# bench/results/ops.md (with BASELINE, that revision's core beside them).
# It reports; it never fails because the machine is slow.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
max_n=${MAX_N:-1000000}
results=$(realpath -m "${RESULTS:-$TWHEEL_TOP/bench/results}")

"$here/install-deps.sh" gnuplot-nox

debian_kernel

out=$TWHEEL_TOP/build/bench-$ver
mods=$("$here/build-module.sh" "$kdir" "$out")
twheel=$(grep '/twheel.ko$' <<<"$mods")
make -C "$out/bench" KDIR="$kdir" TWHEEL="$out" W=1 >"$out/bench.log" 2>&1 ||
	{ cat "$out/bench.log" >&2; die "building the benchmark failed"; }
log=$out.console.log

files=(--file "$twheel:/lib/twheel/twheel.ko")
for ko in "$out"/bench/*.ko; do
	files+=(--file "$ko:/lib/twheel/$(basename "$ko")")
done

# BASELINE=REV: twheel.ko from that revision, built by its own scripts, and
# this tree's Fig. 9 and cascade clients built against it (module versions
# cover the layout of struct callout, so a client loads only on the twheel
# it was built against), into /lib/twheel/baseline/ in the guest: both
# parts then run on it too, in the same boot, before and after side by side.
cascade_dirs=/lib/twheel:tree
base_fig9=
if [ -n "${BASELINE:-}" ]; then
	rev=$(git -C "$TWHEEL_TOP" rev-parse --short "$BASELINE^{commit}") ||
		die "BASELINE=$BASELINE is not a git revision here"
	base=$TWHEEL_TOP/build/baseline-$rev
	rm -rf "$base" && mkdir -p "$base/tree"
	git -C "$TWHEEL_TOP" archive "$rev" | tar -x -C "$base/tree" ||
		die "extracting $rev failed"
	note "building the baseline twheel.ko from $rev"
	bmods=$("$base/tree/scripts/build-module.sh" "$kdir" "$base/$ver")
	mkdir -p "$base/clients"
	cp "$TWHEEL_TOP"/bench/{Kbuild,Makefile,twheel_bench.c,twheel_cascade.c,twheel_dfs.h} \
		"$base/clients/"
	make -C "$base/clients" KDIR="$kdir" TWHEEL="$base/$ver" \
		CLIENTS_ONLY=1 W=1 >"$base/clients.log" 2>&1 ||
		{ cat "$base/clients.log" >&2; die "building the clients against $rev failed"; }
	files+=(--file "$(grep '/twheel.ko$' <<<"$bmods"):/lib/twheel/baseline/twheel.ko"
		--file "$base/clients/twheel_bench.ko:/lib/twheel/baseline/twheel_bench.ko"
		--file "$base/clients/twheel_cascade.ko:/lib/twheel/baseline/twheel_cascade.ko")
	[ "${CASCADE:-1}" = 0 ] ||
		cascade_dirs="/lib/twheel/baseline:baseline-$rev /lib/twheel:tree"
	base_fig9="
for s in 6 7; do
	insmod /lib/twheel/baseline/twheel.ko scheme=\$s
	insmod /lib/twheel/baseline/twheel_bench.ko scheme=\$s max_n=$max_n facilities=twheel_timeout,twheel_setcallout label=baseline-$rev
	rmmod twheel_bench
	rmmod twheel
done"
fi

# The guest's script, one part per module; the guest runs it with sh -e.
tw=/lib/twheel/twheel.ko
run="b=/lib/twheel/twheel_bench.ko
insmod $tw scheme=6
cat /sys/kernel/debug/twheel/config
insmod \$b scheme=6 max_n=$max_n && rmmod twheel_bench
rmmod twheel
insmod $tw scheme=7
insmod \$b scheme=7 max_n=$max_n facilities=twheel_timeout,twheel_setcallout
rmmod twheel_bench
rmmod twheel$base_fig9"

# The data structures alone, on a clock driven by hand: no twheel.ko.
if [ "${SCHEMES:-1}" = 0 ]; then
	note "SCHEMES=0: skipping the schemes of the papers"
else
	run+="
insmod /lib/twheel/twheel_schemes.ko max_n=$max_n
rmmod twheel_schemes"
fi

if [ "${LIVE:-1}" = 0 ]; then
	note "LIVE=0: skipping the live measurements"
else
	run+="
l=/lib/twheel/twheel_live.ko
insmod $tw tick_ns=100000 scheme=6 geometry=256
cat /sys/kernel/debug/twheel/config
insmod \$l test=interrupts && rmmod twheel_live
rmmod twheel
insmod $tw tick_ns=100000 scheme=7 geometry=16,16,16
cat /sys/kernel/debug/twheel/config
insmod \$l test=interrupts && rmmod twheel_live
rmmod twheel
for s in 6 7; do
	insmod $tw scheme=\$s
	cat /sys/kernel/debug/twheel/config
	insmod \$l test=lateness,idle && rmmod twheel_live
	cat /sys/kernel/debug/twheel/latency
	rmmod twheel
done
for r in 2 3; do
	for s in 6 7; do
		insmod $tw scheme=\$s
		insmod \$l test=lateness && rmmod twheel_live
		rmmod twheel
	done
done"
fi

if [ "${CASCADE:-1}" = 0 ]; then
	note "CASCADE=0: skipping the cascade part"
else
	for d in $cascade_dirs; do
		run+="
for s in 6 7; do
	insmod ${d%%:*}/twheel.ko tick_ns=100000 scheme=\$s
	cat /sys/kernel/debug/twheel/config
	insmod ${d%%:*}/twheel_cascade.ko label=${d#*:} counts=${CASCADE_COUNTS:-100000,1000000}
	rmmod twheel_cascade
	rmmod twheel
done"
	done
fi

note "bench on debian-$ver, n up to $max_n; console in $log"
# Under TCG the guest marks the TSC unstable and reads time from the HPET,
# an emulated device read costing microseconds; every facility that reads
# the clock would be measured by it.  Trust the TSC, as hardware would.
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 5400 \
	--append "tsc=reliable clocksource=tsc" "${files[@]}" \
	--run "$run" || die "the guest failed; see $log"
python3 "$here/ktap.py" "$log" --label bench --health-only ||
	die "the guest's console shows a problem; see $log"

mkdir -p "$results"
python3 "$here/bench-report.py" "$log" "$results" "debian-$ver"
# The wheels alone in user space: instructions and host ns per operation,
# before and after with BASELINE (bench/results/ops.md).
"$here/user-ops.sh" ${BASELINE:+"$BASELINE"}
note "bench results in $results; make bench took $(( $(date +%s) - start )) s"
