#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - the main job: "make demo".
#
# Boots QEMU with twheel and the workload client (samples/twheel_workload.c),
# runs the workload for DURATION_S seconds, then one more with twheel's
# trace events on, prints twheel's debugfs files while it still runs and a
# few lines of the trace, then removes it, which prints its own summary.
# By default it runs the stock Debian 12 kernel, the one a user has: twheel
# is built against linux-headers-amd64 and booted with Debian's bzImage;
# DEMO_KERNEL=6.1, 6.12, 7.2 (or 7.2-rt, make check's PREEMPT_RT build) uses
# a test kernel instead, built first if need be.
#
# The workload's parameters (see samples/twheel_workload.c):
#   CALLOUTS=1000 DIST=exponential MEAN_MS=200 STOP_PCT=80 DURATION_S=5 BSD=0
#   PRECISION_PCT=0
# and twheel's: TWHEEL_PARAMS="scheme=6 tick_ns=500000", say.
#
# Exits non-zero if the guest did not finish, its console shows a kernel
# warning, BUG, oops, KASAN or lockdep report, or the trace has no
# twheel:callout_expire_entry event.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
kernel=${DEMO_KERNEL:-debian}
workload="callouts=${CALLOUTS:-1000} dist=${DIST:-exponential}"
workload+=" mean_ms=${MEAN_MS:-200} stop_pct=${STOP_PCT:-80}"
workload+=" bsd=${BSD:-0} precision_pct=${PRECISION_PCT:-0}"
twheel_params=${TWHEEL_PARAMS:-}

"$here/install-deps.sh"

guest_kernel "$kernel"

out=$TWHEEL_TOP/build/demo-$label
mods=$("$here/build-module.sh" "$kdir" "$out")
twheel=$(grep '/twheel.ko$' <<<"$mods")
wl=$(grep '/twheel_workload.ko$' <<<"$mods")
log=$out.console.log

duration=${DURATION_S:-5}
# The guest's script: the workload, then one more second of it with
# twheel's events on (tracing them all would slow the workload down), then
# what it shows.  Tracing stops before the trace is read, which is read
# only up to the first expiry: reading all of it is slow under TCG.
tr=/sys/kernel/tracing
run="insmod /lib/twheel/twheel_workload.ko $workload duration_s=0
sleep $duration
echo 1 >$tr/events/twheel/enable
sleep 1
echo 0 >$tr/tracing_on
for f in config stats latency wheel; do
	echo \"== /sys/kernel/debug/twheel/\$f\"
	cat /sys/kernel/debug/twheel/\$f
done
echo '== /sys/kernel/debug/twheel/callouts (first 10 lines)'
head -n 10 /sys/kernel/debug/twheel/callouts
echo '== $tr/trace, 1 s: the twheel events around its first expiry'
grep -v '^#' $tr/trace | grep -m 1 -B 4 -A 5 ' callout_expire_entry:' || true
rmmod twheel_workload"

note "demo on $label: twheel ${twheel_params:-(defaults)}; workload $workload for $duration s"
status=0
# The guest says nothing while the workload runs, for as long as asked:
# no silence limit, the cap stops it.
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" \
	--timeout $((duration + 300)) --silence 0 \
	--file "$wl:/lib/twheel/twheel_workload.ko" --run "$run" \
	"$twheel${twheel_params:+:$twheel_params}" || status=$?

# What the guest printed, and the kernel's lines from twheel and its client.
sed -n '/twheel-harness: running guest command/,/twheel-harness: done/p' \
	"$log" | grep -v 'twheel-harness:' |
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
	grep -Ev '^(ACPI|reboot):' || true
python3 "$here/ktap.py" "$log" --label "demo $label" --health-only || status=1
if ! grep -q ' callout_expire_entry: timer=' "$log"; then
	note "demo: no twheel:callout_expire_entry event in the trace"
	status=1
fi
[ $status -eq 0 ] || note "demo failed; the whole console is in $log"
note "make demo took $(( $(date +%s) - start )) s"
exit $status
