#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record-timers.sh [OUT] - record the stock kernel's own timer traffic, for
# the replay benchmark (bench/twheel_replay.c, make bench).
#
# Boots the stock Debian 12 kernel in QEMU, as make bench does, and traces
# through tracefs the events of both of the kernel's timer facilities:
# timer:timer_start, timer_cancel and timer_expire_entry (timer_list) and
# timer:hrtimer_start, hrtimer_cancel and hrtimer_expire_entry, while the
# guest first idles, then serves HTTP over loopback (busybox httpd, one
# loop of wget per CPU, and a loop of nc sending to a listener), then
# idles again.  The guest prints the trace, gzipped and in base64, on its
# console; scripts/timer-trace.py turns it into the replay's compact form
# (one line per event, its header says which), compressed with xz, into
# OUT (default bench/traces/loopback-http.trace.xz).
#
# IDLE_S (default 5) is each idle phase, WORK_S (default 10) the traffic;
# the guest's clock is the one make bench trusts (tsc=reliable).  The raw
# trace stays in build/record-KVER/ for a closer look.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

out=$(realpath -m "${1:-$TWHEEL_TOP/bench/traces/loopback-http.trace.xz}")
idle_s=${IDLE_S:-5}
work_s=${WORK_S:-10}

debian_kernel
hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$ver")
[ -n "$hz" ] || die "no CONFIG_HZ in /boot/config-$ver"
dir=$TWHEEL_TOP/build/record-$ver
mkdir -p "$dir"
log=$dir/console.log

# The guest's script (sh -e).  The trace stays in the ring buffer, 64 MB a
# CPU, until the end: nothing reads it while the workload runs.  Its
# clock is CLOCK_MONOTONIC ("mono"), the clock of hrtimer expiries.
# Every line the host needs starts with "twheel-record:".
run="
t=/sys/kernel/tracing
mount -t devtmpfs devtmpfs /dev 2>/dev/null || true
dmesg -n 1
ip link set lo up
mkdir -p /tmp/www
head -c 16384 /dev/urandom >/tmp/www/page
httpd -p 127.0.0.1:8080 -h /tmp/www
echo mono >\$t/trace_clock
echo 65536 >\$t/buffer_size_kb
for e in timer_start timer_cancel timer_expire_entry \
	hrtimer_start hrtimer_cancel hrtimer_expire_entry; do
	echo 1 >\$t/events/timer/\$e/enable
done
sed -n 's/^ *.get_time: *\(ktime_get[a-z_]*\)\$/\1/p; s/^ *.offset: *\([0-9]*\) nsecs\$/\1/p' \
	/proc/timer_list | head -8 | paste - - | sed 's/^/twheel-record: clock /'
echo 1 >\$t/tracing_on
echo twheel-record: idle
sleep $idle_s
echo twheel-record: work
end=\$(( \$(cut -d. -f1 /proc/uptime) + $work_s ))
for c in 0 1; do
	taskset -c \$c sh -c \"while [ \\\$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
		wget -q -O /dev/null http://127.0.0.1:8080/page || true
	done\" &
done
sh -c \"while [ \\\$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
	nc -l -p 9000 >/dev/null || true
done\" &
sleep 1
while [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
	head -c 4096 /tmp/www/page | nc 127.0.0.1 9000 || true
	sleep 0.1
done
# A listener started just before the end waits for one more connection.
sleep 1
echo | nc 127.0.0.1 9000 2>/dev/null || true
wait
echo twheel-record: idle
sleep $idle_s
echo 0 >\$t/tracing_on
grep -H overrun \$t/per_cpu/cpu*/stats | sed 's/^/twheel-record: /'
echo twheel-record: begin
gzip -c \$t/trace | base64
echo twheel-record: end
"

note "recording timer traffic on debian-$ver: ${idle_s} s idle, ${work_s} s of" \
	"HTTP over loopback, ${idle_s} s idle; console in $log"
# The guest is quiet while it idles and serves (IDLE_S, WORK_S): no silence
# limit, the cap stops it.
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 600 \
	--silence 0 --memory 1024 --append "tsc=reliable clocksource=tsc" --run "$run" ||
	die "the guest failed; see $log"
tr -d '\r' <"$log" | sed -n '/^twheel-record: begin$/,/^twheel-record: end$/p' |
	sed '1d;$d' | base64 -d | gunzip >"$dir/trace.txt" ||
	die "no trace in $log"
tr -d '\r' <"$log" | grep '^twheel-record: ' |
	grep -v '^twheel-record: \(begin\|end\)$' >"$dir/notes.txt"
if grep -q 'overrun: [1-9]' "$dir/notes.txt"; then
	die "the ring buffer overran: events were lost (see $dir/notes.txt)"
fi
mkdir -p "$(dirname "$out")"
python3 "$here/timer-trace.py" --hz "$hz" --kernel "debian-$ver" \
	--notes "$dir/notes.txt" \
	--workload "${idle_s} s idle, ${work_s} s of HTTP and nc over loopback, ${idle_s} s idle" \
	"$dir/trace.txt" | xz -9e >"$out.tmp"
mv "$out.tmp" "$out"
note "$(xz -dc "$out" | grep -c '^[scx] ') events in $out ($(stat -c %s "$out") bytes)"
