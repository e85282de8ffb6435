#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - the main job: "make demo".
#
# Boots QEMU with twheel and the workload client (samples/twheel_workload.c),
# runs the workload for DURATION_S seconds, prints twheel's debugfs files
# while it still runs, then removes it, which prints its own summary.  By default it runs the stock Debian 12 kernel, the one a
# user has: twheel is built against linux-headers-amd64 and booted with
# Debian's bzImage; DEMO_KERNEL=6.1 or 6.12 uses a test kernel instead.
#
# The workload's parameters (see samples/twheel_workload.c):
#   CALLOUTS=1000 DIST=exponential MEAN_MS=200 STOP_PCT=80 DURATION_S=5 BSD=0
# and twheel's: TWHEEL_PARAMS="scheme=6 tick_ns=500000", say.
#
# Exits non-zero if the guest did not finish or its console shows a
# kernel warning, BUG, oops, KASAN or lockdep report.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
kernel=${DEMO_KERNEL:-debian}
workload="callouts=${CALLOUTS:-1000} dist=${DIST:-exponential}"
workload+=" mean_ms=${MEAN_MS:-200} stop_pct=${STOP_PCT:-80}"
workload+=" bsd=${BSD:-0}"
twheel_params=${TWHEEL_PARAMS:-}

"$here/install-deps.sh"

if [ "$kernel" = debian ]; then
	debian_kernel
	label=debian-$ver
else
	kdir=$("$here/build-kernel.sh" "$kernel")
	bzimage=$kdir/arch/x86/boot/bzImage
	label=$kernel
fi

out=$TWHEEL_TOP/build/demo-$label
mods=$("$here/build-module.sh" "$kdir" "$out")
twheel=$(grep '/twheel.ko$' <<<"$mods")
wl=$(grep '/twheel_workload.ko$' <<<"$mods")
log=$out.console.log

duration=${DURATION_S:-5}
run="insmod /lib/twheel/twheel_workload.ko $workload duration_s=0
sleep $duration
for f in config stats latency wheel; do
	echo \"== /sys/kernel/debug/twheel/\$f\"
	cat /sys/kernel/debug/twheel/\$f
done
echo '== /sys/kernel/debug/twheel/callouts (first 10 lines)'
head -n 10 /sys/kernel/debug/twheel/callouts
rmmod twheel_workload"

note "demo on $label: twheel ${twheel_params:-(defaults)}; workload $workload for $duration s"
status=0
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" \
	--timeout $((duration + 300)) \
	--file "$wl:/lib/twheel/twheel_workload.ko" --run "$run" \
	"$twheel${twheel_params:+:$twheel_params}" || status=$?

# What the guest printed, and the kernel's lines from twheel and its client.
sed -n '/twheel-harness: running guest command/,/twheel-harness: done/p' \
	"$log" | grep -v 'twheel-harness:' |
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
	grep -Ev '^(ACPI|reboot):' || true
python3 "$here/ktap.py" "$log" --label "demo $label" --health-only || status=1
[ $status -eq 0 ] || note "demo failed; the whole console is in $log"
note "make demo took $(( $(date +%s) - start )) s"
exit $status
