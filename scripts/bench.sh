#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh - "make bench": the paper's Fig. 9 and memory per timer, every
# scheme of the papers side by side, and measurements of live callouts, in
# one guest boot, into bench/results/bench/.
#
# Boots the stock Debian 12 kernel (no KASAN, lockdep or debug objects)
# in QEMU and, with twheel reloaded with other parameters between runs:
#
#   bench/twheel_bench.c  Fig. 9 over every facility with twheel's
#                         scheme=6, then twheel's facilities again with
#                         scheme=7; MAX_N (default 1000000) bounds n; then
#                         the same pairs on the only timer of one CPU, and
#                         whether twheel stays tickless after (the lone
#                         timer), and the cost of reading the clock; then
#                         twheel's pairs alone, Fig. 9 only, REPEATS - 1
#                         more times (default 3 in all; the report shows
#                         the median), and once with twheel's trace
#                         events on (EVENTS=0 skips it); each point is the
#                         fastest of FIG9_BATCHES (default 3) batches of at
#                         least FIG9_MS (default 200) ms each
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
#   bench/twheel_replay.c the kernel's own timer traffic, recorded by
#                         scripts/record-timers.sh (REPLAY_TRACE, default
#                         bench/traces/loopback-http.trace.xz), replayed on
#                         timer_list, hrtimer with and without a range and
#                         twheel exact and with timer_list's precision, with
#                         twheel's default scheme; then on twheel alone with
#                         each scheme of REPLAY_SCHEMES (default 6); about
#                         20 s of guest time a facility; REPLAY=0 skips it
#
# Every module prints its figures as bench/bench_line.h says, and
# scripts/bench-report.py turns them into report.md, a CSV file per table
# and the plots, in RESULTS/bench (RESULTS defaults to bench/results, or
# with BASELINE=REV to ~/.cache/twheel/results/baseline-REV, outside the
# repository); then scripts/user-ops.sh counts the wheels' instructions per
# operation in user space, into RESULTS/user-ops (with BASELINE, that
# revision's core beside them).  It reports; it never fails because the
# machine is slow.
#
# ICOUNT=1 runs the guest under QEMU's -icount shift=0: its clock then
# advances one ns per instruction executed, so every "ns" figure becomes a
# count of the guest's instructions (interrupts included), whatever else
# the host runs; what hangs on addresses or random numbers, as timeout()'s
# hash does, still moves between boots.  Single-threaded, so on one
# vCPU (with two, the boot CPU's wait for the other starves it, and the
# guest hangs); FIG9_MS defaults to 50 and FIG9_BATCHES to 1, enough for
# a count.  Every part runs; the live and cascade parts then time a
# one-CPU machine that executes one instruction per ns, not this one.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
max_n=${MAX_N:-1000000}
qemu=() fig9_ms=200 fig9_batches=3
if [ "${ICOUNT:-0}" != 0 ]; then
	qemu=(--qemu -smp --qemu 1
		--qemu -icount --qemu "shift=0,sleep=off,align=off")
	fig9_ms=50 fig9_batches=1
fi
fig9_args="min_ms=${FIG9_MS:-$fig9_ms} batches=${FIG9_BATCHES:-$fig9_batches}"

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
# Its setcallout pair is measured REPEATS times, as the tree's (below).
cascade_dirs=/lib/twheel:tree
rev= base_fig9=
units=()
repeats=${REPEATS:-3}
if [ -n "${BASELINE:-}" ]; then
	rev=$(git -C "$TWHEEL_TOP" rev-parse --short "$BASELINE^{commit}") ||
		die "BASELINE=$BASELINE is not a git revision here"
	base=$TWHEEL_TOP/build/baseline-$rev
	rm -rf "$base/tree" "$base/clients" && mkdir -p "$base/tree"
	git -C "$TWHEEL_TOP" archive "$rev" | tar -x -C "$base/tree" ||
		die "extracting $rev failed"
	note "building the baseline twheel.ko from $rev"
	bmods=$("$base/tree/scripts/build-module.sh" "$kdir" "$base/$ver")
	# This tree's bench/, the client.mk its Makefile includes and the
	# ../twheel_compat.h its files include, laid out as here, whatever
	# the baseline's are.
	mkdir -p "$base/clients/bench" "$base/clients/scripts"
	cp "$TWHEEL_TOP"/bench/{Kbuild,Makefile,twheel_bench.c,twheel_cascade.c,twheel_dfs.h,bench_line.h} \
		"$base/clients/bench/"
	cp "$TWHEEL_TOP/scripts/client.mk" "$base/clients/scripts/"
	cp "$TWHEEL_TOP/twheel_compat.h" "$base/clients/"
	make -C "$base/clients/bench" KDIR="$kdir" TWHEEL="$base/$ver" \
		CLIENTS_ONLY=1 W=1 >"$base/clients.log" 2>&1 ||
		{ cat "$base/clients.log" >&2; die "building the clients against $rev failed"; }
	files+=(--file "$(grep '/twheel.ko$' <<<"$bmods"):/lib/twheel/baseline/twheel.ko"
		--file "$base/clients/bench/twheel_bench.ko:/lib/twheel/baseline/twheel_bench.ko"
		--file "$base/clients/bench/twheel_cascade.ko:/lib/twheel/baseline/twheel_cascade.ko")
	[ "${CASCADE:-1}" = 0 ] ||
		cascade_dirs="/lib/twheel/baseline:baseline-$rev /lib/twheel:tree"
	base_fig9="
for s in 6 7; do
	insmod /lib/twheel/baseline/twheel.ko scheme=\$s
	insmod /lib/twheel/baseline/twheel_bench.ko scheme=\$s max_n=$max_n $fig9_args facilities=twheel_timeout,twheel_setcallout label=baseline-$rev
	rmmod twheel_bench
	rmmod twheel
done"
	units+=("/lib/twheel/baseline twheel_setcallout label=baseline-$rev")
fi

# The guest's script, one part per module; the guest runs it with sh -e.
# twheel's setcallout pairs, on a plain handle and on lock-associated ones
# (bench/twheel_bench.c says what each measures), are the ones repeated:
# each in a load of its own, in an order that turns with every repeat, so
# that none is always measured first or last after a module load.
tw=/lib/twheel/twheel.ko
pairs=twheel_setcallout,twheel_setcallout_lock,twheel_setcallout_lock_bh
for f in ${pairs//,/ }; do
	units+=("/lib/twheel $f")
done
# twheel_timeout's entry is internal to twheel: its size from "config".
run="b=/lib/twheel/twheel_bench.ko
insmod $tw scheme=6
cat /sys/kernel/debug/twheel/config
sed -n 's/^bytes: .*timeout entry \([0-9]*\)$/twheel-bench: memory facility=twheel_timeout | bytes=\1/p' \
	/sys/kernel/debug/twheel/config
insmod \$b scheme=6 max_n=$max_n $fig9_args && rmmod twheel_bench
rmmod twheel
insmod $tw scheme=7
insmod \$b scheme=7 max_n=$max_n $fig9_args facilities=twheel_timeout,$pairs
rmmod twheel_bench
rmmod twheel$base_fig9"
for ((r = 2; r <= repeats; r++)); do
	for ((i = 0; i < ${#units[@]}; i++)); do
		read -r dir f extra <<<"${units[(i + r) % ${#units[@]}]}"
		run+="
for s in 6 7; do
	insmod $dir/twheel.ko scheme=\$s
	insmod $dir/twheel_bench.ko scheme=\$s max_n=$max_n $fig9_args facilities=$f $extra fig9_only=1
	rmmod twheel_bench
	rmmod twheel
done"
	done
done
# The plain pair with every twheel event on, tracing into the ring buffer
# (qemu-run.sh's init has mounted tracefs).
if [ "${EVENTS:-1}" != 0 ]; then
	run+="
t=/sys/kernel/tracing
for s in 6 7; do
	insmod $tw scheme=\$s
	echo 1 > \$t/events/twheel/enable
	insmod \$b scheme=\$s max_n=$max_n $fig9_args facilities=twheel_setcallout label=events-on fig9_only=1
	echo 0 > \$t/events/twheel/enable
	rmmod twheel_bench
	rmmod twheel
done
echo > \$t/trace"
fi

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

# The kernel's own timer traffic, from a trace kept in bench/traces/.
if [ "${REPLAY:-1}" = 0 ]; then
	note "REPLAY=0: skipping the replay of the kernel's timer traffic"
else
	trace=${REPLAY_TRACE:-$TWHEEL_TOP/bench/traces/loopback-http.trace.xz}
	name=$(basename "$trace")
	xz -dc "$trace" >"$out/replay.trace" ||
		die "cannot read the trace $trace (scripts/record-timers.sh records one)"
	files+=(--file "$out/replay.trace:/lib/twheel/replay.trace")
	run+="
r=/lib/twheel/twheel_replay.ko
insmod $tw scheme=7
cat /sys/kernel/debug/twheel/config
insmod \$r name=${name%%.*}
rmmod twheel_replay
rmmod twheel"
	for s in ${REPLAY_SCHEMES-6}; do
		run+="
insmod $tw scheme=$s
insmod \$r name=${name%%.*} facilities=twheel,twheel_precision summary=0
rmmod twheel_replay
rmmod twheel"
	done
fi

note "bench on debian-$ver, n up to $max_n${ICOUNT:+, ICOUNT=$ICOUNT};" \
	"console in $log"
# Under TCG the guest marks the TSC unstable and reads time from the HPET,
# an emulated device read costing microseconds; every facility that reads
# the clock would be measured by it.  Trust the TSC, as hardware would.
# No silence limit: a point of Fig. 9 at large n, or of a scheme's sweep,
# prints nothing until it is measured, and a slow host must not end the
# run; the cap of 5400 s stops a guest that will not finish.
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 5400 \
	--silence 0 --append "tsc=reliable clocksource=tsc" "${files[@]}" \
	${qemu[@]+"${qemu[@]}"} \
	--run "$run" || die "the guest failed; see $log"
python3 "$here/ktap.py" "$log" --label bench --health-only ||
	die "the guest's console shows a problem; see $log"

where="On debian-$ver under QEMU TCG (software emulation, 2 vCPUs: compare
	within a table)."
[ "${ICOUNT:-0}" = 0 ] || where="On debian-$ver under QEMU TCG with -icount
	shift=0 (1 vCPU): the guest's clock advances 1 ns per instruction
	executed, so its ns are instructions, interrupts included, whatever
	the host's load."
# The tree measured: its commit, and whether it had changes besides.
tree=$(git -C "$TWHEEL_TOP" describe --always --dirty=+changes 2>/dev/null ||
	echo "not a git checkout")
results=${RESULTS:-$TWHEEL_TOP/bench/results}
[ -z "$rev" ] || results=${RESULTS:-$TWHEEL_CACHE/results/baseline-$rev}
results=$(realpath -m "$results")
rm -rf "$results/bench"
python3 "$here/bench-report.py" --title "make bench" --note "$where Tree
	$tree; n up to $max_n, $repeats runs of twheel's pairs${rev:+,
	BASELINE=$rev}." \
	"$results/bench" "$log"
# The wheels alone in user space: instructions and host ns per operation,
# before and after with BASELINE.
RESULTS=$results "$here/user-ops.sh" ${BASELINE:+"$BASELINE"}
note "bench results in $results; make bench took $(( $(date +%s) - start )) s"
