#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trace-example.sh - "make trace": twheel's trace events seen by the usual
# tools, trace-cmd and perf, in QEMU.
#
# Boots the stock Debian 12 kernel (DEMO_KERNEL=6.1 or 6.12: a test
# kernel) with twheel and the host's trace-cmd and perf, their shared
# libraries beside them.  In the guest, trace-cmd records the twheel
# events while the sample client (samples/twheel_sample.c) loads and its
# periodic callout runs for a second, and prints its report; then perf
# counts each event over two seconds of the workload client
# (samples/twheel_workload.c).  Not part of make check.
#
# Exits non-zero if the guest did not finish, its console shows a kernel
# warning, BUG, oops, KASAN or lockdep report, or the report has no
# twheel:callout_expire_entry event.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
kernel=${DEMO_KERNEL:-debian}

"$here/install-deps.sh"

guest_kernel "$kernel"

out=$TWHEEL_TOP/build/trace-$label
mods=$("$here/build-module.sh" "$kdir" "$out")
twheel=$(grep '/twheel.ko$' <<<"$mods")
sample=$(grep '/twheel_sample.ko$' <<<"$mods")
wl=$(grep '/twheel_workload.ko$' <<<"$mods")
log=$out.console.log

# A program, and every shared library ldd finds for it, at the same paths
# in the guest.
files=()
add_program() {
	local lib

	files+=(--file "$1:$1")
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		files+=(--file "$lib:$lib")
	done
}
add_program /usr/bin/trace-cmd
add_program /usr/bin/perf

run="cd /tmp
echo '== trace-cmd record -e twheel, while twheel_sample loads and runs 1 s'
trace-cmd record -q -e twheel -o /tmp/trace.dat \
	sh -c 'insmod /lib/twheel/twheel_sample.ko period_ms=250; sleep 1'
rmmod twheel_sample
echo '== trace-cmd report'
trace-cmd report -i /tmp/trace.dat
insmod /lib/twheel/twheel_workload.ko duration_s=0
echo '== perf stat -e twheel:* -a, 2 s of twheel_workload'
perf stat -e 'twheel:*' -a -- sleep 2 2>&1
rmmod twheel_workload"

note "trace example on $label"
status=0
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 300 \
	--file "$sample:/lib/twheel/twheel_sample.ko" \
	--file "$wl:/lib/twheel/twheel_workload.ko" \
	"${files[@]}" --run "$run" "$twheel" || status=$?

sed -n '/twheel-harness: running guest command/,/twheel-harness: done/p' \
	"$log" | grep -v 'twheel-harness:' |
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
	grep -Ev '^(ACPI|reboot):' || true
python3 "$here/ktap.py" "$log" --label "trace $label" --health-only ||
	status=1
if ! grep -q ' callout_expire_entry: ' "$log"; then
	note "trace: no twheel:callout_expire_entry event in the report"
	status=1
fi
[ $status -eq 0 ] || note "trace example failed; the whole console is in $log"
note "make trace took $(( $(date +%s) - start )) s"
exit $status
