#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# defaults.sh - the measurement behind twheel's default parameters.
#
# Runs the demo's workload client (scripts/demo.sh, stock Debian kernel
# unless DEMO_KERNEL says otherwise) for each candidate scheme, geometry
# and tick length, under two workloads, and prints a Markdown table of
# what twheel's own counters say.  TCG is not hardware: compare the rows
# of one run with one another, not with other machines.
#
#   short: 2000 flows of exponential intervals around 1 s, half stopped
#          early: mostly within a Scheme 6 rotation;
#   long:  2000 flows around 10 minutes, as keepalive timers are: nearly
#          all still pending when the run ends.
#
# Each runs DURATION_S seconds (default 8).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

export DURATION_S=${DURATION_S:-8} DIST=exponential CALLOUTS=2000 STOP_PCT=50

candidates=(
	"scheme=6 geometry=256"
	"scheme=6 geometry=4096"
	"scheme=6 geometry=65536"
	"scheme=7 geometry=16,16,16,16,16,16"
	"scheme=7 geometry=64,64,64,64"
	"scheme=7 geometry=256,256,256"
	"scheme=7 geometry=64,64,64,64 tick_ns=250000"
	"scheme=7 geometry=64,64,64,64 tick_ns=4000000"
)
workloads=("short 1000" "long 600000")

out=$TWHEEL_TOP/build/defaults
mkdir -p "$out"
echo "| parameters | short: interrupts/s | short: wheel work us/s | short: ns per expiry | short: mean lateness us | long: interrupts/s | long: wheel work us/s | long: early visits + migrations /s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
i=0
for params in "${candidates[@]}"; do
	i=$((i + 1))
	files=()
	for wl in "${workloads[@]}"; do
		set -- $wl
		MEAN_MS=$2 TWHEEL_PARAMS="$params" "$here/demo.sh" \
			>"$out/$i-$1.txt" 2>&1 ||
			die "the demo failed with $params: see $out/$i-$1.txt"
		files+=("$out/$i-$1.txt")
	done
	python3 - "$params" "$DURATION_S" "${files[@]}" <<'PY'
import re
import sys

params, secs = sys.argv[1], float(sys.argv[2])


def totals(path):
    text = open(path).read()
    head = re.search(r'^cpu +started .*$', text, re.M).group(0).split()
    row = re.search(r'^total .*$', text, re.M).group(0).split()
    t = {k: int(v) for k, v in zip(head[1:], row[1:])}
    t['late'] = int(re.search(r'late avg (\d+) ns', text).group(1))
    return t


s, l = totals(sys.argv[3]), totals(sys.argv[4])
print(f"| `{params}` | {s['interrupts'] / secs:.0f} | "
      f"{s['work_ns'] / secs / 1000:.0f} | "
      f"{s['work_ns'] / max(s['expired'], 1):.0f} | {s['late'] / 1000:.0f} | "
      f"{l['interrupts'] / secs:.0f} | {l['work_ns'] / secs / 1000:.0f} | "
      f"{(l['early'] + l['migrated']) / secs:.0f} |")
PY
done
