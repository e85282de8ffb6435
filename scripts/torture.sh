#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# torture.sh [KERNEL] - "make torture": twheel_torture (torture/) in QEMU.
#
# Boots KERNEL (6.12 by default; 6.1, "debian" for the stock Debian 12
# kernel, "debian-rt" for its PREEMPT_RT flavour) on 4 vCPUs with twheel
# and the torture module, which runs for DURATION seconds with a CPU going
# off or on line every ONOFF ms, then unloads both.  On a kernel with
# failslab (the test kernels), FAILSLAB percent of the allocations of
# timeout()'s entry cache fail meanwhile.  Prints the torture's summaries.
#
# Environment, all optional:
#   DURATION=60        seconds of torture
#   ONOFF=3000         ms between CPU hotplug operations (0: none)
#   FAILSLAB=50        percent of timeout() entry allocations failed
#   CPUS=4             vCPUs
#   TORTURE_PARAMS=    more twheel_torture parameters ("stutter=10 ...")
#   TWHEEL_PARAMS=     twheel's parameters ("scheme=6 ...")
#   TORTURE_NAME=      name of the run's build directory and console log
#                      (default: the kernel's label)
#   TWHEEL_BUILD=DIR   use twheel.ko as build-module.sh left it in DIR for
#                      this kernel (make check's), instead of building it
#   RESULTS=DIR        also write the summaries and the verdict to
#                      DIR/LABEL-DURATIONs.txt (torture/results/ keeps the
#                      README's)
#   COUNTS=FILE        append "1 0 0" or "0 1 0" (passed, failed) to FILE
#
# With hotplug on a kernel that has the fair server (6.8 and later: a
# SCHED_DEADLINE entity per CPU that keeps normal tasks from starving),
# the guest turns that server off first.  In 6.12.117 it is what trips,
# under CPUs going off and on line, the scheduler's own warning
# "dl_rq->running_bw > old" (kernel/sched/deadline.c, in
# inactive_task_timer(), on a CPU that had just taken another's timers):
# a 30-minute run here met it once, 140 hotplug operations in, twheel's
# ledger balanced throughout.  The guest has no real-time task for normal
# ones to starve behind but the kernel's own threads.
#
# Exits non-zero unless the torture printed SUCCESS, the guest finished,
# and its console shows no warning, lockdep, KASAN or debug-objects report
# and no oops.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
duration=${DURATION:-60}
onoff=${ONOFF:-3000}
failslab=${FAILSLAB:-50}
cpus=${CPUS:-4}

kernel=${1:-6.12}
guest_kernel "$kernel"

log=$TWHEEL_TOP/build/torture-${TORTURE_NAME:-$label}.console.log
if [ -n "${TWHEEL_BUILD:-}" ]; then
	out=$(realpath "$TWHEEL_BUILD")
	[ -f "$out/twheel.ko" ] || die "no twheel.ko in $out"
else
	out=$TWHEEL_TOP/build/torture-${TORTURE_NAME:-$label}
	"$here/build-module.sh" "$kdir" "$out" >/dev/null
fi
twheel=$out/twheel.ko
if ! make -C "$out/torture" KDIR="$kdir" TWHEEL="$out" W=1 \
	>"$out/torture.log" 2>&1 || grep -q 'warning:' "$out/torture.log"; then
	cat "$out/torture.log" >&2
	die "building twheel_torture against $kdir failed or warned"
fi

# The guest waits for the verdict, then unloads the torture (the harness
# unloads twheel after it) and shows what twheel still holds.
fs=/sys/kernel/debug/failslab
run="if [ $onoff -gt 0 ] && [ -d /sys/kernel/debug/sched/fair_server ]; then
	for f in /sys/kernel/debug/sched/fair_server/cpu*/runtime; do
		echo 0 >\$f
	done
	echo 'twheel-torture: the fair server is off, for hotplug (see torture.sh)'
fi
if [ $failslab -gt 0 ] && [ -d $fs ]; then
	echo Y >$fs/cache-filter; echo N >$fs/ignore-gfp-wait
	echo 0 >$fs/verbose; echo 1 >$fs/interval; echo -1 >$fs/times
	echo $failslab >$fs/probability
	echo \"twheel-torture: failslab: $failslab% of twheel_timeout allocations fail\"
fi
insmod /lib/twheel/twheel_torture.ko duration=$duration onoff_interval=$onoff ${TORTURE_PARAMS:-}
i=0
until dmesg | grep -q 'twheel_torture: \\(SUCCESS\\|FAILURE\\)'; do
	i=\$((i + 1))
	[ \$i -lt $((duration + 600)) ] || break
	sleep 1
done
[ -d $fs ] && echo 0 >$fs/probability
rmmod twheel_torture
head -n 1 /sys/kernel/debug/twheel/stats
grep '^total ' /sys/kernel/debug/twheel/stats"

note "[torture $label] $duration s on $cpus vCPUs, hotplug every $onoff ms, failslab $failslab%; console in $log"
status=0
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --cpus "$cpus" \
	--timeout $((duration + 900)) \
	--append "slub_debug=A,twheel_timeout" \
	--file "$out/torture/twheel_torture.ko:/lib/twheel/twheel_torture.ko" \
	--run "$run" "$twheel${TWHEEL_PARAMS:+:$TWHEEL_PARAMS}" || status=$?
note "[torture $label] guest ran $(( $(date +%s) - start )) s"

summary=$(grep -E 'twheel_torture: |twheel-torture: |^total ' "$log" |
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' || true)
echo "$summary"
verdict=ok
grep -q 'twheel_torture: SUCCESS' "$log" || verdict=FAILURE
python3 "$here/ktap.py" "$log" --label "torture $label" --health-only ||
	verdict=FAILURE
[ $status -eq 0 ] || verdict=FAILURE
echo "[torture $label] $verdict"
if [ -n "${RESULTS:-}" ]; then
	mkdir -p "$RESULTS"
	{
		echo "# DURATION=$duration ONOFF=$onoff FAILSLAB=$failslab CPUS=$cpus TORTURE_PARAMS=${TORTURE_PARAMS:-} TWHEEL_PARAMS=${TWHEEL_PARAMS:-} scripts/torture.sh $kernel"
		echo "$summary"
		echo "console: $(python3 "$here/ktap.py" "$log" --label torture --health-only 2>&1 | tail -n 1)"
		echo "verdict: $verdict"
	} >"$RESULTS/$label-${duration}s.txt"
fi
if [ -n "${COUNTS:-}" ]; then
	if [ $verdict = ok ]; then echo "1 0 0"; else echo "0 1 0"; fi >>"$COUNTS"
fi
[ $verdict = ok ]
