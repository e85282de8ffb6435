#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user-check.sh - "make user-check": the timing wheels of twheel_core.c in
# user space, under AddressSanitizer and UBSan, against the reference model
# of user/wheel_check.c.
#
# Builds wheel_check into build/user/ (twheel_core.c unchanged, over the
# stand-in kernel headers of user/shim/), runs it for a few seeds on every
# geometry of its table and on random geometries of each scheme, then
# plants each fault wheel_check knows and checks that the run fails saying
# so.  Exits non-zero if a run fails, a planted fault goes unnoticed, or a
# sanitizer or a WARN_ON() reports anything.  CC picks the compiler.
# Then runs scripts/user-fuzz.sh: the same core under libFuzzer for
# FUZZ_TIME seconds (default 60), and its three planted bugs.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
"$here/install-deps.sh" clang-14 libclang-rt-14-dev
out=$TWHEEL_TOP/build/user
bin=$out/wheel_check
mkdir -p "$out"

cd "$TWHEEL_TOP"
${CC:-cc} -std=gnu11 -O1 -g -fsanitize=address,undefined \
	-fno-sanitize-recover=all -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers -Werror \
	-Iuser/shim -Iinclude -o "$bin" \
	user/wheel_check.c twheel_core.c user/shim/shim.c ||
	die "building wheel_check failed"

status=0
run() {
	note "wheel_check $*"
	"$bin" "$@" || status=1
}

# Each geometry of the table, small and odd ones first, then random ones.
for g in 6:2 6:4 6:16 6:256 6:4096 7:2,2 7:2,3,2 7:3,5,7,2 7:16,16 \
	 7:60,60,24 7:60,60,24,100 7:64,64,64,64 7:256,256,256; do
	run -g "$g" -s 1 -n 2 -o 10000
done
run -S 6 -s 100 -n 4
run -S 7 -s 100 -n 4

# Each planted fault must fail the run, with its own complaint.
for f in late:': late$|: lost' early:': early$|: lost' order:'order:' \
	 warn:'WARN_ON fired'; do
	fault=${f%%:*} want=${f#*:}
	if log=$("$bin" -s 1 -n 10 -o 2000 -f "$fault" 2>&1); then
		echo "$log"
		note "self-test: planted fault '$fault' went unnoticed"
		status=1
	elif ! grep -q 'wheel_check: FAIL' <<<"$log" ||
	     ! grep -Eq "$want" <<<"$log"; then
		echo "$log"
		note "self-test: planted fault '$fault' failed the run, but not as '$want'"
		status=1
	else
		note "self-test: planted fault '$fault' caught: $(grep -Em1 "$want" <<<"$log" | sed 's/^ *//')"
	fi
done

"$here/user-fuzz.sh" || status=1

note "user-check took $(( $(date +%s) - start )) s"
[ $status -eq 0 ] || die "user-check failed"
