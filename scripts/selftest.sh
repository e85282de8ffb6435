#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh [VERSION] - prove that a test run can fail.
#
# Runs run-tests.sh, the step "make check" uses for each kernel, on modules
# from scripts/selftest/ that break a run in one way each, and checks that
# it exits non-zero with the right message; and that a clean run passes.
# Of a guest that will not finish, what is limited is silence, not time: a
# guest that hangs, or one that only falls silent for longer than the
# silence limit, is killed for it, while a slow one that keeps printing
# passes though it runs three times that limit, and is stopped only at
# the overall cap, which must hold too.
# VERSION is the test kernel to use, as guest_kernel (lib.sh) names it
# (default: the newest supported).
#
# Some checks use twheel itself: a client that calls unsetcallout_sync()
# holding a lock its callout takes must draw a lockdep report, and each
# invalid module parameter must make twheel's insmod fail, saying why, and
# do nothing else.  Then ktap.py judges made-up consoles with announced
# reports ("twheel-expect:" lines), and twheel's unload finding callouts
# left.  Last, the style checks (style.sh) must fail on a copy of a file
# with one checkpatch finding, and on one with one kernel-doc finding.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

version=${1:-${TWHEEL_KERNELS##* }}
guest_kernel "$version"
out=$TWHEEL_TOP/build/selftest-$version
mods=$("$here/build-module.sh" "$kdir" "$TWHEEL_TOP/build/$version")
twheel=$(head -n1 <<<"$mods")
mkdir -p "$out"
cp "$here"/selftest/Kbuild "$here"/selftest/*.c "$out/"
make -C "$kdir" M="$out" W=1 KBUILD_EXTRA_SYMBOLS="$(dirname "$twheel")/Module.symvers" \
	ccflags-y="-I$TWHEEL_TOP/include" modules >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2; die "building the self-test modules failed"; }

failures=0

# expect NAME WANT-STATUS PATTERN LIMITS MODULE...
# WANT-STATUS is "pass" or "fail"; PATTERN must appear in the report.
# LIMITS is the guest's overall cap in seconds, or CAP/SILENCE to set its
# silence limit too (run-tests.sh's default otherwise).
expect() {
	local name=$1 want=$2 pattern=$3 timeout=${4%/*} status=0 mods=()
	local silence=()
	[ "$timeout" = "$4" ] || silence=(--silence "${4#*/}")
	shift 4
	for m in "$@"; do
		case "$m" in /*) mods+=("$m") ;; *) mods+=("$out/$m.ko") ;; esac
	done
	"$here/run-tests.sh" --kernel "$kdir/arch/x86/boot/bzImage" \
		--label "selftest-$name" --timeout "$timeout" \
		${silence[@]+"${silence[@]}"} \
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
# Each kill must be for its own reason: silence for the first two, the cap
# for the last; harness_slow's case lasts 60 s, its lines 5 s apart.
expect hang fail 'problem: guest silent for 20 s, killed' 60/20 harness_hang harness_pass
expect silent fail 'problem: guest silent for 20 s, killed' 120/20 harness_silent harness_pass
expect slow pass '^2 passed, 0 failed$' 120/20 harness_slow harness_pass
expect cap fail 'problem: guest killed after 30 s' 30/20 harness_slow harness_pass
expect lockdep fail 'problem: lockdep report' 600 "$twheel" harness_lockdep harness_pass
# Each bad parameter is refused, saying why, and nothing else happens (the
# run's judge fails on any oops or warning besides the refused insmod).
bad_param() {
	local name=$1 param=$2 why=$3 extra
	expect "$name" fail 'insmod twheel failed' 600 "$twheel:$param"
	# Every problem the judge saw but the refused insmod (and so no case).
	extra=$(python3 "$here/ktap.py" "$out/$name.console.log" |
		grep '^problem:' |
		grep -v -e 'insmod twheel failed' -e 'no KUnit case ran' || true)
	if ! grep -q "$why" "$out/$name.console.log"; then
		note "harness self-test $name: FAILED: twheel did not say why it refused $param"
		failures=$((failures + 1))
	elif [ -n "$extra" ]; then
		note "harness self-test $name: FAILED: refusing $param did more than fail the insmod: $extra"
		failures=$((failures + 1))
	fi
}
# One check refuses all three before twheel sets anything up, the same C
# on every kernel.  tick_ns=0 once oopsed on 6.1 alone, before that check
# was there: it is refused on every supported kernel, the other two on
# this one.
bad_param bad-scheme scheme=5 'twheel: scheme=5 is not valid'
bad_param bad-geometry 'scheme=6 geometry=100' \
	'twheel: scheme=6 with geometry of 1 levels is not valid'
newest_kdir=$kdir newest_twheel=$twheel
for v in $TWHEEL_KERNELS; do
	kdir=$newest_kdir twheel=$newest_twheel
	if [ "$v" != "$version" ]; then
		guest_kernel "$v"
		twheel=$("$here/build-module.sh" "$kdir" "$TWHEEL_TOP/build/$v")
		twheel=$(head -n1 <<<"$twheel")
	fi
	bad_param "bad-tick-$v" tick_ns=0 'twheel: tick_ns=0 is outside'
done

# Announced reports (ktap.py's "twheel-expect:" lines), judged on made-up
# consoles: a passing suite around LINES, a printf format of one per line.
judge() {
	local name=$1 want=$2 pattern=$3 lines=$4 status=0 got=pass
	{
		printf '%s\n' 'KTAP version 1' '1..1' '    # Subtest: s' '    1..1'
		# shellcheck disable=SC2059
		printf -- "$lines"
		printf '%s\n' '    ok 1 c' 'ok 1 s' 'twheel-harness: done'
	} >"$out/judge-$name.log"
	python3 "$here/ktap.py" "$out/judge-$name.log" >"$out/judge-$name.report" ||
		status=$?
	[ $status -eq 0 ] || got=fail
	if [ $got = "$want" ] && grep -qE "$pattern" "$out/judge-$name.report"; then
		note "harness self-test judge-$name: $got as it should, saying: $(grep -m1 -E "$pattern" "$out/judge-$name.report")"
	else
		note "harness self-test judge-$name: FAILED: wanted $want with /$pattern/, got $got; report:"
		sed 's/^/    /' "$out/judge-$name.report" >&2
		failures=$((failures + 1))
	fi
}
odebug='ODEBUG: free active (active state 0) object: 00000000a1b2c3d4 object type: callout hint: f+0x0/0x10\n'
splat='------------[ cut here ]------------\nWARNING: CPU: 0 PID: 1 at lib/debugobjects.c:505\nCall Trace:\n'
judge announced pass '^1 passed, 0 failed$' \
	"twheel-expect: begin ODEBUG: free active .*type: callout\n$splat$odebug""twheel-expect: end\n"
judge unannounced fail 'problem: kernel warning' "$splat$odebug"
judge announced-missing fail 'problem: expected report not seen' \
	"twheel-expect: begin ODEBUG: free active\n${splat}twheel-expect: end\n"
judge later-missing fail 'problem: expected line not seen: module m went' \
	"twheel-expect: later module m went\n"
judge leak-at-unload fail 'problem: callouts leaked at unload' \
	"twheel: unloading with 2 callouts still pending on CPU 1: dropped without running them\n"
leak='twheel: unloading with 1 callouts still pending on CPU 1: dropped without running them\n'
judge line-announced pass '^1 passed, 0 failed$' \
	"twheel-expect: line ^twheel: unloading with 1 callouts\n$leak"
judge line-only-its-line fail 'problem: kernel warning' \
	"twheel-expect: line ^twheel: unloading with 1 callouts\n$leak$splat"
judge line-missing fail 'problem: expected line not seen: \^twheel: unloading' \
	"twheel-expect: line ^twheel: unloading with 1 callouts\n"
checks=$((21 + $(wc -w <<<"$TWHEEL_KERNELS")))

# twheel loaded with the widest span at the longest tick it takes (7
# levels of 256 slots, 1 s: 7.2 * 10^19 ms, past a u64) reads config
# whole, naming the span in s; its ms were once a divide error.
wide_span() {
	local log=$out/wide-span.console.log status=0
	local want='^span: 72057594037927936 ticks (72057594037927936 s);'
	"$here/qemu-run.sh" --kernel "$newest_kdir/arch/x86/boot/bzImage" \
		--log "$log" --run 'cat /sys/kernel/debug/twheel/config' \
		"$newest_twheel:scheme=7 geometry=256,256,256,256,256,256,256 tick_ns=1000000000" \
		>/dev/null 2>&1 || status=$?
	python3 "$here/ktap.py" "$log" --label selftest-wide-span \
		--health-only >"$out/wide-span.report" 2>&1 || status=1
	if [ $status -eq 0 ] && grep -q "$want" "$log"; then
		note "harness self-test wide-span: pass as it should, saying: $(grep -m1 '^span: ' "$log")"
	else
		note "harness self-test wide-span: FAILED: wanted a clean guest whose config says /$want/; report:"
		sed 's/^/    /' "$out/wide-span.report" >&2
		grep -m1 -A3 -E 'divide error|^span: ' "$log" | sed 's/^/    /' >&2 || true
		failures=$((failures + 1))
	fi
}
wide_span
checks=$((checks + 1))

# The style checks fail on one finding of each kind, each in a copy of a file.
style_fault() {
	local name=$1 file=$2 sed=$3 finding=$4 tree=$out/style-$1
	# The file alone: checkpatch and kernel-doc read one file at a time,
	# and style.sh checks what the tree holds.
	rm -rf "$tree"
	mkdir -p "$tree"
	(cd "$TWHEEL_TOP" && cp --parents -t "$tree" "$file")
	sed -i "$sed" "$tree/$file"
	if "$here/style.sh" "$tree" >"$out/style-$name.report" 2>&1; then
		note "harness self-test style-$name: FAILED: style.sh passed with $file changed by '$sed'"
		failures=$((failures + 1))
	elif ! grep -q "$finding" "$out/style-$name.report"; then
		note "harness self-test style-$name: FAILED: style.sh failed, but not with /$finding/:"
		sed 's/^/    /' "$out/style-$name.report" >&2
		failures=$((failures + 1))
	else
		note "harness self-test style-$name: fail as it should, saying: $(grep -m1 -iE 'warning|error|check' "$out/style-$name.report")"
	fi
}
style_fault checkpatch twheel_main.c 's/^\tint ret;$/\tint ret; /' \
	'TRAILING_WHITESPACE'
style_fault kernel-doc twheel_core.h '/^ \* @pow2:/d' \
	"member 'pow2' not described"

[ $failures -eq 0 ] || die "the harness self-test failed $failures of $checks checks"
note "harness self-test: all $checks checks behaved"
