#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - every test, from a fresh Debian 12 machine: "make check".
#
# Installs what is missing, runs the kernel's style checks (style.sh),
# checks the wheels compiled in user space against a reference model under
# ASan and UBSan (user-check.sh) and the semantic patch against its
# expected outputs (convert-test.sh), builds twheel against the stock
# Debian headers (W=1, warning-free), installs it with make install and
# with DKMS (install-check.sh), then builds each test kernel of KVERS
# (default: TWHEEL_KERNELS, lib.sh: 6.1, 6.12 and 7.2 built PREEMPT_RT)
# and on each runs the KUnit suites in QEMU, builds the benchmark's
# modules (bench/, W=1, warning-free), runs three in-tree LED triggers
# converted by the semantic patch beside the unconverted ones
# (convert-check.sh), and the torture module for 30 s on 4 vCPUs, with
# CPUs going off and on line and timeout()'s allocations failing
# (torture.sh); last, it proves the harness and the style checks can
# fail (selftest.sh).  The suites run with twheel's default scheme on the
# kernels without PREEMPT_RT, and with Scheme 6 on the one with it, where
# every callout runs in a preemptible thread; its torture arms
# timeout()'s callouts with a window too.  With a PREEMPT_RT kernel in
# KVERS, Debian 12's prebuilt RT kernel runs too (rt-check.sh: the build,
# the demo and the sample client; then the torture).  What differs
# between kernels is the compat layer, which no scheme touches: one scheme
# per kernel keeps make check short.  For the same reason the suites of
# the wheels alone, and the departing-module sweep's bound, run on one
# kernel only, the last without PREEMPT_RT: run_suites --lean on the
# others.
#
# Two lanes share the machine.  The test kernels build one after another
# in the background, niced, from the start; the checks above run beside
# them, and each kernel's guests as soon as it is built.  A guest under
# TCG keeps about one host core busy (the 6.12 suites and the build of
# their modules: 549 s of CPU in 470 s), a build every core it is given,
# so the build takes what the guests leave.  Once the last kernel is
# built, the self-test runs beside its guests, its report printed after
# theirs.  Ends with "N passed, N failed" over all kernels (a torture run
# counts as one), and exits non-zero when anything failed.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kvers=${KVERS:-$TWHEEL_KERNELS}
build=$TWHEEL_TOP/build
start=$(date +%s)
status=0

"$here/install-deps.sh"
mkdir -p "$build"
counts=$build/counts
: >"$counts"

# The kernels without "-rt" run every suite with twheel's default scheme;
# the last of them, "full", the suites that run the same on every kernel
# too (run_suites --lean on the others).  rt: whether one is PREEMPT_RT.
full=
rt=
for v in $kvers; do
	if [[ $v == *-rt ]]; then
		rt=1
	else
		full=$v
	fi
done
# The order the kernels build and run in: "full" first, whose guests run
# longest, then the others from the newest back, so that what runs after
# the last build, alone but for the self-test, is the shortest.
order=$full
rest=
for v in $kvers; do
	[ "$v" = "$full" ] || rest="$v $rest"
done
order=$(echo $order $rest)
last=${order##* }

# The build lane: each test kernel in turn, its outcome in $lanes/VERSION
# ("built" or "failed") once its build has ended.
lanes=$build/lanes
rm -rf "$lanes"
mkdir -p "$lanes"
(
	renice -n 10 -p "$BASHPID" >/dev/null
	for v in $order; do
		bzimage=
		guest_kernel "$v" >/dev/null || true
		if [ -f "$bzimage" ]; then
			echo built >"$lanes/$v"
		else
			echo failed >"$lanes/$v"
		fi
	done
) &
lane=$!
trap 'kill $lane 2>/dev/null || true' EXIT

# wait_kernel VERSION: wait for the build lane to end VERSION's build;
# true if it built.
wait_kernel() {
	while [ ! -f "$lanes/$1" ]; do
		kill -0 $lane 2>/dev/null || [ -f "$lanes/$1" ] || return 1
		sleep 5
	done
	[ "$(cat "$lanes/$1")" = built ]
}

python3 "$here/check-readme.py" || status=1
"$here/style.sh" || status=1
# make check fuzzes for 20 s; the planted bugs fall within seconds.
FUZZ_TIME=${FUZZ_TIME:-20} "$here/user-check.sh" || status=1
# The semantic patch against its expected outputs.
"$here/convert-test.sh" || status=1

# The stock Debian kernel: build only (it has no KUnit).
for kdir in /usr/src/linux-headers-*-amd64; do
	"$here/build-module.sh" "$kdir" "$build/debian-$(basename "$kdir")" \
		>/dev/null
	note "built against $(basename "$kdir"): no warnings"
done

# Installed as a real machine installs it: make install, DKMS, modprobe.
"$here/install-check.sh" || status=1

# With a PREEMPT_RT kernel in KVERS, Debian 12's own RT kernel too: the
# build, the demo and the sample client, then the torture.  It needs no
# build of its own, so it runs while the first test kernel builds.
if [ -n "$rt" ]; then
	"$here/rt-check.sh" --counts "$counts" || status=1
	COUNTS=$counts DURATION=${TORTURE_DURATION:-30} \
		"$here/torture.sh" debian-rt || status=1
fi

selftest=
for v in $order; do
	if ! wait_kernel "$v"; then
		note "the build of linux $v failed: nothing runs on it"
		status=1
		continue
	fi
	guest_kernel "$v"
	# Every kernel is built: the self-test, which boots each, runs
	# beside this last one's guests.
	if [ "$v" = "$last" ] && [ -z "${SKIP_SELFTEST:-}" ]; then
		"$here/selftest.sh" "${full:-$last}" \
			>"$build/selftest.out" 2>&1 &
		selftest=$!
	fi
	case $v in
	*-rt)
		# PREEMPT_RT: the suites under Scheme 6 (the default scheme
		# runs on the others), where every callout runs in a
		# preemptible thread.
		run_suites --only6 --lean "$v" "$kdir" "$counts" "" ||
			status=1
		;;
	*)
		lean=--lean
		[ "$v" != "$full" ] || lean=
		run_suites $lean "$v" "$kdir" "$counts" - || status=1
		;;
	esac
	# The benchmark's modules run on Debian's kernel (make bench); they
	# build on every test kernel too, W=1, warning-free.  Under the lock
	# of build-module.sh, which the self-test may take for this tree.
	if flock "$build/$v/.lock" make -C "$build/$v/bench" KDIR="$kdir" \
		TWHEEL="$build/$v" W=1 >"$build/$v/bench.log" 2>&1 &&
		! grep -q 'warning:' "$build/$v/bench.log"; then
		note "[$v] the benchmark's modules built: no warnings"
	else
		note "[$v] building the benchmark's modules failed: see $build/$v/bench.log"
		status=1
	fi
	# Real modules converted by the semantic patch, beside the originals.
	"$here/convert-check.sh" --counts "$counts" --twheel "$build/$v" "$v" ||
		status=1
	# A bounded torture on 4 vCPUs, with hotplug and fault injection; on
	# PREEMPT_RT with timeout()'s callouts armed with a range too, which
	# no suite loads twheel with: its arming is inlined apart.
	params=
	[[ $v != *-rt ]] || params="scheme=6 timeout_precision_ns=2000000"
	COUNTS=$counts DURATION=${TORTURE_DURATION:-30} TWHEEL_BUILD=$build/$v \
		TWHEEL_PARAMS=$params "$here/torture.sh" "$v" || status=1
done
wait $lane || status=1

if [ -n "$selftest" ]; then
	wait $selftest || status=1
	cat "$build/selftest.out" >&2
fi

note "make check took $(( $(date +%s) - start )) s"
print_counts "$counts"
exit $status
