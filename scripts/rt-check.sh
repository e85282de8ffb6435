#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rt-check.sh [--counts FILE]
#
# twheel on Debian's prebuilt PREEMPT_RT kernel, the -rt-amd64 flavour of
# 6.12 that install-deps.sh unpacks (debian_rt_kernel in lib.sh), as a
# user of that kernel would have it: twheel and its sample clients build
# against its headers with W=1, warning-free (build-module.sh); the demo
# (demo.sh) runs on it; and the sample client (samples/twheel_sample.c: a
# periodic callout under its spinlock_t, which sleeps on this kernel, and
# timeout()s, one cancelled) loads after twheel, runs a second and
# unloads.  Each guest's console must be clean (ktap.py).  That kernel
# has no KUnit: the suites run on the PREEMPT_RT test kernel
# (rt-kernel.config) instead.
#
# Prints "N passed, N failed" counting those three checks; with --counts,
# appends the counts to FILE as check.sh's counts file takes them.  Exits
# non-zero on any failure.  The consoles are left in build/.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

counts=
while [ $# -gt 0 ]; do
	case "$1" in
	--counts) counts=$2; shift 2 ;;
	*) die "usage: $0 [--counts FILE]" ;;
	esac
done
start=$(date +%s)
"$here/install-deps.sh"
guest_kernel debian-rt
passed=0 failed=0
failures=()
pass() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	failures+=("failed: [$label] $*")
	echo "[$label] problem: $*"
}

out=$TWHEEL_TOP/build/$label
if mods=$("$here/build-module.sh" "$kdir" "$out"); then
	note "built against $label: no warnings"
	pass
else
	fail "build against $kdir"
	mods=
fi

# The demo, as "DEMO_KERNEL=debian-rt make demo" runs it; its output, long,
# goes to a file.
demo=$TWHEEL_TOP/build/demo-$label.out
if DEMO_KERNEL=debian-rt "$here/demo.sh" >"$demo" 2>&1; then
	pass
else
	fail "the demo: see $demo"
fi
grep -E '^\[demo |^twheel: make demo took' "$demo" || true

# The sample client, loaded after twheel and removed before it.
twheel=$(grep '/twheel.ko$' <<<"$mods" || true)
sample=$(grep '/twheel_sample.ko$' <<<"$mods" || true)
log=$out.sample.console.log
if [ -z "$twheel" ] || [ -z "$sample" ]; then
	fail "the sample client: not built"
elif "$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 300 \
		--run "sleep 1" "$twheel" "$sample" &&
	python3 "$here/ktap.py" "$log" --label "$label sample" --health-only &&
	grep -q 'twheel_sample: the periodic callout ran [1-9][0-9]* times' "$log" &&
	grep -q 'twheel_sample: timeout "kept" ran' "$log" &&
	grep -q 'twheel_sample: untimeout() returned 1' "$log"; then
	grep -h 'twheel_sample:' "$log" | sed -E 's/^\[ *[0-9.]+\] //'
	pass
else
	fail "the sample client: see $log"
fi

note "[$label] took $(( $(date +%s) - start )) s"
if [ -n "$counts" ]; then
	echo "$passed $failed 0" >>"$counts"
	[ $failed -eq 0 ] || printf '%s\n' "${failures[@]}" >>"$counts"
fi
echo "[$label] $passed passed, $failed failed"
[ $failed -eq 0 ]
