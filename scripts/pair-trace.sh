#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pair-trace.sh - every instruction of one cancel+set pair of Fig. 9, for
# twheel's setcallout pair under each scheme and for timer_list's and
# hrtimer's, attributed to the kernel's and the modules' functions.
#
# Boots the stock Debian 12 kernel under plain TCG with 2 vCPUs, as make
# bench does (so the kernel keeps its lock prefixes; on one CPU it would
# patch them out), with nokaslr and QEMU's gdbstub, once per scheme of
# SCHEMES (default "7 6"); TWHEEL_PAIRS names twheel's facilities to trace
# (default twheel_setcallout; twheel_timeout is another).  In each boot
# twheel.ko and twheel_bench.ko are
# loaded, the guest prints where bench_trace_pair() and its gate are, and
# gdb (scripts/pair-trace.py, run inside it) connects, breaks on
# bench_trace_pair(), opens the gate, and then single-steps, with
# interrupts held off (QEMU's default for stepping), each pair the guest
# asks for by writing a facility to twheel_bench's "trace" parameter:
# from the first instruction of the facility's pairs function to its
# return.  The guest then prints its text symbols from /proc/kallsyms,
# and the instructions are attributed to them.
#
# Prints the summary of bench/bench_line.h's lines on stdout (trace-pair:
# instructions and the kinds TCG charges extra for; trace-call: the same
# per call the pairs function makes; trace-function: instructions per
# function), and, with RESULTS set, writes RESULTS/pair-trace/: report.md
# and a CSV file per table (scripts/bench-report.py), and
# FACILITY-SCHEME.txt, the instructions of each pair in order, and
# breakdown.md, twheel's pairs by what each instruction does
# (scripts/pair-breakdown.py).  The traced pair runs reps=1, so it counts
# the pairs function's entry and return, a few instructions a pair in the
# timed loop does not have.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

"$here/install-deps.sh" gdb
debian_kernel
out=$TWHEEL_TOP/build/pair-trace-$ver
rm -rf "$out"
mkdir -p "$out"
mods=$("$here/build-module.sh" "$kdir" "$out/build")
twheel=$(grep '/twheel.ko$' <<<"$mods")
make -C "$out/build/bench" KDIR="$kdir" TWHEEL="$out/build" W=1 \
	>"$out/bench.log" 2>&1 ||
	{ cat "$out/bench.log" >&2; die "building the benchmark failed"; }

traces=()
first=1
for s in ${SCHEMES:-7 6}; do
	facilities=${TWHEEL_PAIRS:-twheel_setcallout}
	[ -z "$first" ] || facilities+=" timer_list hrtimer"
	first=
	p=/sys/module/twheel_bench/parameters
	run="insmod /lib/twheel/twheel.ko scheme=$s
insmod /lib/twheel/twheel_bench.ko scheme=$s facilities=none lone=0
grep '\[twheel_bench\]' /proc/kallsyms | sed 's/^/twheel-trace-sym: /'
until grep -q Y $p/trace_ready; do sleep 1; done"
	for f in $facilities; do
		run+="
echo $f > $p/trace"
	done
	run+="
echo twheel-trace-kallsyms-begin
grep ' [tTwW] ' /proc/kallsyms
echo twheel-trace-kallsyms-end
rmmod twheel_bench
rmmod twheel"

	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	log=$out/console-$s.log
	: >"$log"
	note "pair trace: scheme $s, gdb on port $port; console in $log"
	# No silence limit: the guest prints nothing while gdb steps it.
	"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 900 \
		--silence 0 --append "nokaslr tsc=reliable clocksource=tsc" \
		--file "$twheel:/lib/twheel/twheel.ko" \
		--file "$out/build/bench/twheel_bench.ko:/lib/twheel/twheel_bench.ko" \
		--qemu -gdb --qemu "tcp:127.0.0.1:$port" --run "$run" &
	guest=$!
	# qemu-run.sh stops QEMU when it gets a TERM; QEMU gets one too.
	stop_guest() {
		kill $(pgrep -P $guest) $guest 2>/dev/null || true
	}
	# The gate and the breakpoint, once the guest has printed them.
	for ((i = 0; i < 600; i++)); do
		grep -aq 'twheel-trace-sym: [0-9a-f]* b trace_ready' "$log" && break
		kill -0 $guest 2>/dev/null || break
		sleep 1
	done
	# The compiler may rename a static function: name.isra.0.
	sym() {
		grep -aE "twheel-trace-sym: [0-9a-f]+ [a-zA-Z] $1(\.[a-z]+\.[0-9]+)?\s" \
			"$log" | awk '{print $2}' | tail -n1
	}
	pair=$(sym bench_trace_pair) ready=$(sym trace_ready)
	if [ -z "$pair" ] || [ -z "$ready" ]; then
		stop_guest
		die "the guest printed no bench_trace_pair or trace_ready; see $log"
	fi
	raw=$out/raw-$s.txt
	PT_PORT=$port PT_PAIR=$pair PT_READY=$ready PT_OUT=$raw \
		PT_LABELS="${facilities// /,}" PT_SCHEME=$s \
		PT_SYMS="$(grep -a 'twheel-trace-sym: ' "$log" |
			awk '$3 ~ /^[tT]$/ {print $2 ":" $4}' | tr '\n' ' ')" \
		gdb -q -nx -batch -x "$here/pair-trace.py" >"$out/gdb-$s.log" 2>&1 ||
		{ cat "$out/gdb-$s.log" >&2; stop_guest
		  die "gdb failed; see $out/gdb-$s.log"; }
	wait $guest || die "the guest failed; see $log"
	traces+=("$raw:$log")
done

[ -z "${RESULTS:-}" ] || rm -rf "$(realpath -m "$RESULTS")/pair-trace"
python3 "$here/pair-trace.py" ${RESULTS:+--listings "$(realpath -m "$RESULTS")/pair-trace"} \
	"${traces[@]}" >"$out/lines.txt"
cat "$out/lines.txt"
if [ -n "${RESULTS:-}" ]; then
	tree=$(git -C "$TWHEEL_TOP" describe --always --dirty=+changes 2>/dev/null ||
		echo "not a git checkout")
	python3 "$here/bench-report.py" --title "scripts/pair-trace.sh" \
		--note "On debian-$ver under QEMU TCG, 2 vCPUs, single-stepped
		by gdb; tree $tree." \
		"$(realpath -m "$RESULTS")/pair-trace" "$out/lines.txt"
	# twheel's pairs by what their instructions do, from twheel.ko's
	# debug information: breakdown.md.
	python3 "$here/pair-breakdown.py" "$twheel" \
		"$(realpath -m "$RESULTS")/pair-trace" >/dev/null
fi
