#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# convert-test.sh [DIR] - the tests of the semantic patch: each NAME.c in
# DIR (default: convert/tests/) is a test.
#
# A copy of NAME.c, alone in a scratch folder, goes through
# "convert.sh --in-place NAME.c", and must come out as NAME.res says; with
# no NAME.res, unchanged.  NAME.report holds the "not converted:" lines
# convert.sh must print, in order, after which it must exit 1; with no
# NAME.report it must print none and exit 0.  A converted file must then
# stay as it is when converted again.  A NAME.c with neither NAME.res nor
# NAME.report tests nothing, and fails.
#
# The tests run side by side.  Prints one line per test, the differences
# of those that failed, and "convert-test: N passed, N failed"; exits 1
# if any failed.
# Needs spatch and python3, no kernel tree.  DIR is for a doctored copy of
# the tests, to see the harness fail: an expected output edited, say.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -le 1 ] || die "usage: $0 [DIR]"
dir=$(cd "${1:-$TWHEEL_TOP/convert/tests}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=()
for c in "$dir"/*.c; do
	[ -e "$c" ] || die "no tests in $dir"
	names+=("$(basename "$c" .c)")
done

# run NAME PASS: convert PASS/NAME.c in place; its stderr to NAME.err,
# its exit status to NAME.rc.
run() {
	local status=0
	(cd "$tmp/$2" && "$here/convert.sh" --in-place "$1.c") \
		2>"$tmp/$2/$1.err" >/dev/null || status=$?
	echo "$status" >"$tmp/$2/$1.rc"
}

# First pass: the inputs; second: the expected results, which must be
# left alone.
mkdir "$tmp/1" "$tmp/2"
for n in "${names[@]}"; do
	cp "$dir/$n.c" "$tmp/1/"
	run "$n" 1 &
	if [ -f "$dir/$n.res" ]; then
		cp "$dir/$n.res" "$tmp/2/$n.c"
		run "$n" 2 &
	fi
done
wait

# again NAME: NAME.res, converted again, stayed as it was, quietly.
again() {
	cmp -s "$dir/$1.res" "$tmp/2/$1.c" && [ "$(cat "$tmp/2/$1.rc")" = 0 ] &&
		! grep -qv '^twheel: convert: ' "$tmp/2/$1.err"
}

passed=0 failed=0
for n in "${names[@]}"; do
	why=()
	res=$dir/$n.c report=/dev/null rc=0
	[ -f "$dir/$n.res" ] && res=$dir/$n.res
	[ -f "$dir/$n.report" ] && report=$dir/$n.report rc=1
	[ -f "$dir/$n.res" ] || [ -f "$dir/$n.report" ] ||
		why+=("no $n.res or $n.report to hold it to")
	grep '^not converted: ' "$tmp/1/$n.err" >"$tmp/1/$n.got" || true
	diff -u --label "$(basename "$res")" --label "converted" "$res" \
		"$tmp/1/$n.c" >"$tmp/1/$n.diff" ||
		why+=("the file is not as $(basename "$res") has it")
	diff -u --label "$n.report" --label "reported" "$report" \
		"$tmp/1/$n.got" >>"$tmp/1/$n.diff" ||
		why+=("the report is not as $n.report has it")
	[ "$(cat "$tmp/1/$n.rc")" = "$rc" ] ||
		why+=("convert.sh exited $(cat "$tmp/1/$n.rc"), not $rc")
	if [ -f "$dir/$n.res" ] && ! again "$n"; then
		why+=("converting $n.res again changes it or complains")
		cat "$tmp/2/$n.err" >>"$tmp/1/$n.diff"
	fi
	if [ ${#why[@]} -eq 0 ]; then
		echo "convert-test $n: pass"
		passed=$((passed + 1))
	else
		echo "convert-test $n: FAILED: $(printf '%s; ' "${why[@]}" | sed 's/; $//')"
		sed 's/^/    /' "$tmp/1/$n.diff"
		failed=$((failed + 1))
	fi
done
echo "convert-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
