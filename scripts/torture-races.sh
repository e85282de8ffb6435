#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# torture-races.sh [KERNEL] - "make torture-races": prove that the torture
# catches races.
#
# Plants one race at a time in a copy of the tree, runs the torture on it
# (torture.sh, DURATION seconds, default 40, on KERNEL, default 6.12), and
# requires the run to end in FAILURE with the violation the race must
# cause.  Then the copy is thrown away.  The races:
#   cancel-unlocked  unsetcallout() decides that the callout is pending,
#                    drops the base lock, and only then takes it off the
#                    wheel: an expiry in between both runs it and has the
#                    cancel return 1.
#   sync-early       unsetcallout_sync() returns while the function runs.
#   lock-ignores     a lock-associated expiry runs the function once it
#                    has the lock, even if a call under that lock
#                    cancelled or re-armed the callout meanwhile.
# Exits non-zero if the torture missed any of them.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kernel=${1:-6.12}
export DURATION=${DURATION:-40}
start=$(date +%s)
missed=0

# plant NAME PATTERN FILE FROM TO: in a copy of the tree, replace the one
# occurrence of FROM in FILE by TO, run the torture, and require FAILURE
# with a violation matching PATTERN.
plant() {
	local name=$1 pattern=$2 file=$3 from=$4 to=$5 copy log
	copy=$TWHEEL_TOP/build/race-$name
	rm -rf "$copy"
	copy_tree "$copy"
	FROM=$from TO=$to python3 - "$copy/$file" <<'EOF'
import os, sys
path = sys.argv[1]
src = open(path).read()
old, new = os.environ["FROM"], os.environ["TO"]
if src.count(old) != 1:
    sys.exit("twheel: the race's code occurs %d times in %s, not once"
             % (src.count(old), os.path.basename(path)))
open(path, "w").write(src.replace(old, new))
EOF
	log=$copy.report
	if TORTURE_NAME=race-$name "$copy/scripts/torture.sh" "$kernel" >"$log" 2>&1; then
		note "race $name: MISSED: the torture passed"
		missed=$((missed + 1))
	elif grep -qE "VIOLATION: .*($pattern)" "$log"; then
		note "race $name: caught: $(grep -m1 -E "VIOLATION: .*($pattern)" "$log" |
			sed -E 's/^\[ *[0-9.]+\] //')"
	else
		note "race $name: MISSED: the run failed, but not with /$pattern/:"
		sed 's/^/    /' "$log" | tail -n 20 >&2
		missed=$((missed + 1))
	fi
	rm -rf "$copy"
}

plant cancel-unlocked 'more endings than armings|returned 1, but arming' \
twheel_hw.h \
'	base = lock_callout_base(c, &flags);
	ret = cancel_locked(base, c);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}' \
'	base = lock_callout_base(c, &flags);
	ret = READ_ONCE(c->entry.slot) != TWHEEL_SLOT_IDLE;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	base = lock_callout_base(c, &flags);
	if (ret)
		cancel_locked(base, c);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}'

plant sync-early 'returned with a run still going' twheel_callout.c \
'		if (!running)
			return 0;
		switch (how) {' \
'		return 0;
		switch (how) {'

plant lock-ignores 'ran after a cancel under its lock' twheel_hw.c \
'	run = base->run_pending;
	base->run_pending = false;' \
'	run = true;
	base->run_pending = false;'

note "torture-races took $(( $(date +%s) - start )) s"
[ $missed -eq 0 ]
