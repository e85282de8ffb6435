#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh [VERSION] - prove that a test run can fail.
#
# Runs run-tests.sh, the step "make check" uses for each kernel, on modules
# from scripts/selftest/ that break a run in one way each, and checks that
# it exits non-zero with the right message; and that a clean run passes.
# VERSION is the test kernel to use (default: the newest supported).
#
# Two checks use twheel itself: a client that calls unsetcallout_sync()
# holding a lock its callout takes must draw a lockdep report, and an
# invalid module parameter must make twheel's insmod fail, saying why.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

version=${1:-${TWHEEL_KERNELS##* }}
kdir=$("$here/build-kernel.sh" "$version")
out=$TWHEEL_TOP/build/selftest-$version
mods=$("$here/build-module.sh" "$kdir" "$TWHEEL_TOP/build/$version")
twheel=$(head -n1 <<<"$mods")
mkdir -p "$out"
cp "$here"/selftest/Kbuild "$here"/selftest/*.c "$out/"
make -C "$kdir" M="$out" W=1 KBUILD_EXTRA_SYMBOLS="$(dirname "$twheel")/Module.symvers" \
	ccflags-y="-I$TWHEEL_TOP/include" modules >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2; die "building the self-test modules failed"; }

failures=0

# expect NAME WANT-STATUS PATTERN TIMEOUT MODULE...
# WANT-STATUS is "pass" or "fail"; PATTERN must appear in the report.
expect() {
	local name=$1 want=$2 pattern=$3 timeout=$4 status=0 mods=()
	shift 4
	for m in "$@"; do
		case "$m" in /*) mods+=("$m") ;; *) mods+=("$out/$m.ko") ;; esac
	done
	"$here/run-tests.sh" --kernel "$kdir/arch/x86/boot/bzImage" \
		--label "selftest-$name" --timeout "$timeout" \
		--log "$out/$name.console.log" "${mods[@]}" \
		>"$out/$name.report" 2>&1 || status=$?

	local got=pass
	[ $status -eq 0 ] || got=fail
	if [ $got = "$want" ] && grep -qE "$pattern" "$out/$name.report"; then
		note "harness self-test $name: $got as it should, saying: $(grep -m1 -E "$pattern" "$out/$name.report")"
	else
		note "harness self-test $name: FAILED: wanted $want with /$pattern/, got $got (exit $status); report:"
		sed 's/^/    /' "$out/$name.report" >&2
		failures=$((failures + 1))
	fi
}

expect clean pass '^1 passed, 0 failed$' 600 harness_pass
expect failing-case fail 'failed case: harness_fail_fails' 600 harness_fail
expect warning fail 'problem: kernel warning' 600 harness_warn harness_pass
expect no-load fail 'insmod harness_noload failed' 600 harness_noload harness_pass
expect hang fail 'did not reach the end|killed after' 60 harness_hang harness_pass
expect lockdep fail 'problem: lockdep report' 600 "$twheel" harness_lockdep harness_pass
expect bad-params fail 'insmod twheel failed' 600 "$twheel:scheme=5" harness_pass
# ... and twheel said why.
if ! grep -q 'twheel: scheme=5 .* is not valid' "$out/bad-params.console.log"; then
	note "harness self-test bad-params: FAILED: twheel did not say why it refused scheme=5"
	failures=$((failures + 1))
fi

[ $failures -eq 0 ] || die "the harness self-test failed $failures of 7 checks"
note "harness self-test: all 7 checks behaved"
