#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh --kernel BZIMAGE --label NAME [--timeout SECS] [--counts FILE]
#              [--log FILE] [--append ARGS] [--cpus N] MODULE.ko ...
#
# Boot the kernel with the modules (qemu-run.sh), then judge the console
# (ktap.py).  Prints ktap.py's report; exits non-zero when the run failed.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kernel= label= timeout=900 counts= log= append= cpus=2
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--label) label=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
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
# task makes them, when suite twheel_timeout asks it to.
"$here/qemu-run.sh" --kernel "$kernel" --log "$log" --timeout "$timeout" \
	--append "slub_debug=A,twheel_timeout${append:+ $append}" \
	--cpus "$cpus" "$@" ||
	qemu=$?
note "[$label] guest ran $(( $(date +%s) - start )) s"

args=("$log" --label "$label")
[ -z "$counts" ] || args+=(--counts "$counts")
verdict=0
python3 "$here/ktap.py" "${args[@]}" || verdict=$?
if [ $qemu -ne 0 ]; then
	echo "[$label] problem: QEMU exited with status $qemu" \
		"$([ $qemu -eq 124 ] && echo "(killed after $timeout s)")"
	verdict=1
fi
exit $verdict
