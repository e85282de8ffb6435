#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh --kernel BZIMAGE --label NAME [--timeout SECS] [--silence SECS]
#              [--counts FILE] [--log FILE] [--append ARGS] [--cpus N]
#              MODULE.ko ...
#
# Boot the kernel with the modules (qemu-run.sh), then judge the console
# (ktap.py).  Prints ktap.py's report; exits non-zero when the run failed.
#
# A guest is stopped when its console has been silent for --silence
# seconds (default 600), or at the overall cap of --timeout seconds
# (default 2400); the report says which.  Silence is what marks a hung
# guest, while the total time follows the host, and hosts of one kind
# differ by 2x and more.  The suites print a line per case, but some cases
# run long without one: on this project's 2-core machine, with other
# guests and a kernel build beside it (load average 4 to 6),
# twheel_client_burst's one case was silent for 254 s and untimeout_many_pairs for 102 s; 600 s is
# over twice the first.  The cap is for a guest that never stops
# printing: 2400 s is five times the 429 s the longest make check guest
# (the 6.12 suites) took on that machine alone, and over twice the 900 s
# after which a slower host's still had cases left; and should one guest
# run into it, make check still ends and reports inside CI's 90 minutes.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kernel= label= timeout=2400 silence=600 counts= log= append= cpus=2
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--label) label=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--silence) silence=$2; shift 2 ;;
	--counts) counts=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	-*) die "run-tests.sh: unknown option $1" ;;
	*) break ;;
	esac
done
[ -n "$kernel" ] && [ -n "$label" ] || die "run-tests.sh: --kernel and --label are required"
log=${log:-$TWHEEL_TOP/build/${label// /-}.console.log}
mkdir -p "$(dirname "$log")"

note "[$label] booting $(basename "$kernel") with $# modules; console in $log"
start=$(date +%s)
qemu=0
# Failslab may fail allocations from twheel's timeout() cache, whichever
# task makes them, when suite twheel_timeout_alloc asks it to.
"$here/qemu-run.sh" --kernel "$kernel" --log "$log" --timeout "$timeout" \
	--silence "$silence" --cpus "$cpus" \
	--append "slub_debug=A,twheel_timeout${append:+ $append}" "$@" ||
	qemu=$?
note "[$label] guest ran $(( $(date +%s) - start )) s"

args=("$log" --label "$label")
[ -z "$counts" ] || args+=(--counts "$counts")
verdict=0
python3 "$here/ktap.py" "${args[@]}" || verdict=$?
case $qemu in
0) ;;
124) echo "[$label] problem: guest killed after $timeout s (the overall cap)" ;;
125) echo "[$label] problem: guest silent for $silence s, killed" ;;
*) echo "[$label] problem: QEMU exited with status $qemu" ;;
esac
[ $qemu -eq 0 ] || verdict=1
exit $verdict
