#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - every test, from a fresh Debian 12 machine: "make check".
#
# Installs what is missing, runs the kernel's style checks (style.sh),
# checks the wheels compiled in user space against a reference model under
# ASan and UBSan (user-check.sh) and the semantic patch against its
# expected outputs (convert-test.sh), builds twheel against the stock
# Debian headers (W=1, warning-free),
# installs it with make install and with DKMS (install-check.sh), proves
# the harness and the style checks can fail (selftest.sh), builds
# each test kernel in KVERS (default: all supported) and runs the KUnit
# suites on it in QEMU with twheel's default scheme; and on each kernel
# three in-tree LED triggers, converted by the semantic patch, run beside
# the unconverted ones (convert-check.sh), and the torture module runs
# for 30 s on 4 vCPUs, with CPUs going off and on line and timeout()'s
# allocations failing (torture.sh).  With 6.12 in KVERS, then
# PREEMPT_RT: Debian's prebuilt RT kernel (rt-check.sh: the build, the
# demo and the sample client; then the torture), and the suites again on
# the 6.12 test kernel built PREEMPT_RT (rt-kernel.config), with the
# other scheme: there every callout runs in a preemptible thread; then the
# torture there too, with timeout()'s callouts armed with a window.  (That
# run replaced one under "threadirqs" on plain 6.12.  What differs
# between kernels is the compat layer, which no scheme touches: one run
# of each scheme per kernel keeps make check under 40 minutes.  For the
# same reason the suites of the wheels alone, and the departing-module
# sweep's slow bound, run on the last kernel of KVERS only: run_suites
# --lean.)  Ends with "N passed, N failed" over all kernels (a torture
# run counts as one), and exits non-zero when anything failed.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kvers=${KVERS:-$TWHEEL_KERNELS}
build=$TWHEEL_TOP/build
start=$(date +%s)
status=0

"$here/install-deps.sh"
python3 "$here/check-readme.py" || status=1
"$here/style.sh" || status=1
# make check fuzzes for 20 s; the planted bugs fall within seconds.
FUZZ_TIME=${FUZZ_TIME:-20} "$here/user-check.sh" || status=1
# The semantic patch against its expected outputs.
"$here/convert-test.sh" || status=1
mkdir -p "$build"
counts=$build/counts
: >"$counts"

# The stock Debian kernel: build only (it has no KUnit).
for kdir in /usr/src/linux-headers-*-amd64; do
	"$here/build-module.sh" "$kdir" "$build/debian-$(basename "$kdir")" \
		>/dev/null
	note "built against $(basename "$kdir"): no warnings"
done

# Installed as a real machine installs it: make install, DKMS, modprobe.
"$here/install-check.sh" || status=1

if [ -z "${SKIP_SELFTEST:-}" ]; then
	"$here/selftest.sh" "${kvers##* }" || status=1
fi

for v in $kvers; do
	kdir=$("$here/build-kernel.sh" "$v") || { status=1; continue; }
	# Scheme 6 runs on the PREEMPT_RT kernel, below.  What runs the same
	# on every kernel runs on the last only.
	lean=--lean
	[ "$v" != "${kvers##* }" ] || lean=
	run_suites $lean "$v" "$kdir" "$counts" - || status=1
	# Real modules converted by the semantic patch, beside the originals.
	"$here/convert-check.sh" --counts "$counts" --twheel "$build/$v" "$v" ||
		status=1
	# A bounded torture on 4 vCPUs, with hotplug and fault injection.
	COUNTS=$counts DURATION=${TORTURE_DURATION:-30} TWHEEL_BUILD=$build/$v \
		"$here/torture.sh" "$v" || status=1
done

# PREEMPT_RT, on 6.12: Debian's own RT kernel, then the suites under
# Scheme 6 on the RT test kernel.
if [[ " $kvers " == *" 6.12 "* ]]; then
	"$here/rt-check.sh" --counts "$counts" || status=1
	COUNTS=$counts DURATION=${TORTURE_DURATION:-30} \
		"$here/torture.sh" debian-rt || status=1
	if kdir=$("$here/build-kernel.sh" 6.12 "$here/test-kernel.config" \
			"$here/rt-kernel.config"); then
		run_suites --only6 --lean 6.12-rt "$kdir" "$counts" "" ||
			status=1
		# And timeout() with a window, which no suite loads twheel
		# with: its arming is inlined apart.
		COUNTS=$counts DURATION=${TORTURE_DURATION:-30} \
			TWHEEL_BUILD=$build/6.12-rt \
			TWHEEL_PARAMS="scheme=6 timeout_precision_ns=2000000" \
			"$here/torture.sh" 6.12-rt || status=1
	else
		status=1
	fi
fi

note "make check took $(( $(date +%s) - start )) s"
print_counts "$counts"
exit $status
