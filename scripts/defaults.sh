#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# defaults.sh - the measurement behind twheel's default parameters.
#
# Runs the demo workload (scripts/demo.sh, stock Debian kernel unless
# DEMO_KERNEL says otherwise) once for each candidate scheme, geometry and
# tick length, and prints a Markdown table of what twheel's own counters
# say per second and per expired callout.  TCG is not hardware: compare the
# rows of one run with one another, not with other machines.
#
# The workload: CALLOUTS flows (default 2000) of exponential intervals
# around MEAN_MS (default 1000, so from a few ms to many seconds), half
# of them stopped early, for DURATION_S seconds (default 8) each.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

export CALLOUTS=${CALLOUTS:-2000} MEAN_MS=${MEAN_MS:-1000}
export STOP_PCT=${STOP_PCT:-50} DURATION_S=${DURATION_S:-8} DIST=exponential

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

out=$TWHEEL_TOP/build/defaults
mkdir -p "$out"
echo "| parameters | interrupts/s | wheel work us/s | wheel work ns per expiry | interrupts per expiry | migrations per expiry | early visits per expiry | workload's mean lateness us |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
i=0
for params in "${candidates[@]}"; do
	i=$((i + 1))
	TWHEEL_PARAMS="$params" "$here/demo.sh" >"$out/$i.txt" 2>&1 ||
		die "the demo failed with $params: see $out/$i.txt"
	python3 - "$out/$i.txt" "$params" "$DURATION_S" <<'EOF'
import re
import sys

text = open(sys.argv[1]).read()
params, secs = sys.argv[2], float(sys.argv[3])
head = re.search(r'^cpu +started .*$', text, re.M).group(0).split()
row = re.search(r'^total .*$', text, re.M).group(0).split()
t = {k: int(v) for k, v in zip(head[1:], row[1:])}
late = int(re.search(r'late avg (\d+) ns', text).group(1))
exp = max(t['expired'], 1)
print(f"| `{params}` | {t['interrupts'] / secs:.0f} | "
      f"{t['work_ns'] / secs / 1000:.0f} | {t['work_ns'] / exp:.0f} | "
      f"{t['interrupts'] / exp:.3f} | {t['migrated'] / exp:.3f} | "
      f"{t['early'] / exp:.3f} | {late / 1000:.0f} |")
EOF
done
