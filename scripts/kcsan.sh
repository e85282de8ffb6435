#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kcsan.sh - every KUnit suite under KCSAN: "make kcsan".
#
# Builds the newest test kernel with kcsan-kernel.config over
# test-kernel.config (KCSAN in KASAN's place; the two do not build
# together), builds twheel and its test modules against it and runs every
# suite in QEMU under each scheme, as make check does (run_suites in
# lib.sh).  Ends with "N passed, N failed" and exits non-zero when a case
# failed or the console holds any report, a KCSAN data race among them.
# It is not part of make check, which it would make too long: it builds a
# kernel more, and its guests run slower than under KASAN, as every
# access the module makes is watched (docs/testing.md has the times measured).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

v=${TWHEEL_KERNELS##* }
v=${v%-rt}
counts=$TWHEEL_TOP/build/kcsan.counts
start=$(date +%s)
status=0

"$here/install-deps.sh"
kdir=$("$here/build-kernel.sh" "$v" "$here/test-kernel.config" \
	"$here/kcsan-kernel.config")
mkdir -p "$TWHEEL_TOP/build"
: >"$counts"
# Twice run-tests.sh's limits: every case runs slower under KCSAN.
run_suites "$v-kcsan" "$kdir" "$counts" "" --timeout 4800 --silence 1200 ||
	status=1

note "make kcsan took $(( $(date +%s) - start )) s"
print_counts "$counts"
exit $status
