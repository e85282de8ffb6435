#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-run.sh [options] MODULE.ko[:PARAMS] ...
#
# Boot a kernel under QEMU (TCG, 2 CPUs unless told) with a busybox initramfs that loads
# the given modules in order (KUnit suites run as their module loads), runs an
# optional guest command, unloads the modules in reverse order and reboots.
# The serial console goes to the log file; nothing is judged here (see
# ktap.py).
#
# Two limits stop a guest that will not finish.  The silence limit kills
# it when its console has gained no byte for SECS seconds: a guest that
# still prints is still working, however slow the host, while one that
# hangs falls silent.  The overall cap kills it after SECS seconds in all,
# for a guest that never stops printing (a warning in a loop); set it
# generously, as it measures the host as much as the guest.  Either kill
# appends a "twheel-harness: ... killed" line to the log, which ktap.py
# counts as a problem, and says so on stderr.
#
# Exit status:
#   0     the guest rebooted by itself (which says nothing of its tests)
#   124   killed at the overall cap (--timeout)
#   125   killed for silence (--silence)
#   other QEMU's own status (it failed to start, say), or 128+N when
#         this script was stopped by signal N; QEMU is stopped with it
#
# Options:
#   --kernel BZIMAGE   kernel to boot (required)
#   --log FILE         console log (required)
#   --timeout SECS     overall cap: kill the guest after this long
#                      (default 600)
#   --silence SECS     kill the guest when its console has been silent this
#                      long (default 300; 0: no silence limit, for a guest
#                      that is quiet by design, or held by a debugger)
#   --run CMD          shell command run in the guest after loading
#   --file SRC:DST     copy SRC into the initramfs as DST (repeatable)
#   --memory MB        guest memory (default 2048)
#   --cpus N           virtual CPUs (default 2; the test kernels allow 4)
#   --append ARGS      extra kernel command line
#   --qemu ARG         extra QEMU argument, after the others (repeatable)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kernel= log= timeout=600 silence=300 run= memory=2048 cpus=2 append=
files=() qemu_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--silence) silence=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--memory) memory=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--qemu) qemu_args+=("$2"); shift 2 ;;
	--) shift; break ;;
	-*) die "qemu-run.sh: unknown option $1" ;;
	*) break ;;
	esac
done
[ -n "$kernel" ] && [ -n "$log" ] || die "qemu-run.sh: --kernel and --log are required"
[ -r "$kernel" ] || die "no kernel at $kernel"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] ||
	die "qemu-run.sh: --timeout takes a number of seconds, not '$timeout'"
[[ "$silence" =~ ^[0-9]+$ ]] ||
	die "qemu-run.sh: --silence takes a number of seconds, not '$silence'"

busybox=/bin/busybox
[ -x $busybox ] && ! readelf -l $busybox | grep -q INTERP ||
	die "a static busybox is needed: apt-get install busybox-static"

# QEMU's pid while it runs.  However this script ends (a limit, an error,
# a signal: Ctrl-C, or a caller's kill), QEMU goes with it.
qemu=
root=$(mktemp -d)
initrd=$root.cpio.gz

# Ask QEMU to quit, as timeout(1) did, then make it.
stop_qemu() {
	local i
	kill -TERM "$qemu" 2>/dev/null || true
	for ((i = 0; i < 10; i++)); do
		kill -0 "$qemu" 2>/dev/null || break
		sleep 1
	done
	kill -KILL "$qemu" 2>/dev/null || true
	wait "$qemu" 2>/dev/null || true
	qemu=
}

cleanup() {
	[ -z "$qemu" ] || stop_qemu
	rm -rf "$root" "$initrd"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib/twheel}
cp "$busybox" "$root/bin/busybox"

: >"$root/lib/twheel/modules"
for arg in "$@"; do
	ko=${arg%%:*}
	params=
	[ "$ko" = "$arg" ] || params=${arg#*:}
	[ -r "$ko" ] || die "no module at $ko"
	cp "$ko" "$root/lib/twheel/"
	echo "$(basename "$ko" .ko) $params" >>"$root/lib/twheel/modules"
done
for spec in ${files[@]+"${files[@]}"}; do
	mkdir -p "$root/$(dirname "${spec#*:}")"
	cp "${spec%%:*}" "$root/${spec#*:}"
done
printf '%s\n' "$run" >"$root/lib/twheel/run"

# Every line the harness prints starts with "twheel-harness:"; ktap.py
# treats one containing "failed" as a failure and needs the final "done".
cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
# Trace events, on a kernel with tracefs; harmless without.
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
say() { echo "twheel-harness: $*"; }

loaded=
while read -r mod params; do
	if insmod /lib/twheel/$mod.ko $params; then
		loaded="$mod $loaded"
	else
		say "insmod $mod failed"
	fi
done </lib/twheel/modules

say "running guest command"
if ! sh -e /lib/twheel/run; then
	say "guest command failed"
fi

for mod in $loaded; do
	rmmod "$mod" || say "rmmod $mod failed"
done
say done
reboot -f
EOF
chmod +x "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"

# The watch: once a second, whether QEMU still runs, whether the log has
# grown, and how long since it last did.  The log only grows: QEMU
# truncates it once, when it opens it.
qemu-system-x86_64 -machine pc -accel tcg -cpu max -smp "$cpus" \
	-m "$memory" -nodefaults -display none -no-reboot \
	-serial "file:$log" -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic $append" \
	${qemu_args[@]+"${qemu_args[@]}"} </dev/null &
qemu=$!
start=$SECONDS heard=$SECONDS size=-1 killed=
while sleep 1; kill -0 "$qemu" 2>/dev/null; do
	now=$(stat -c %s -- "$log" 2>/dev/null) || now=0
	[ "$now" = "$size" ] || { size=$now heard=$SECONDS; }
	if [ "$silence" -gt 0 ] && [ $((SECONDS - heard)) -ge "$silence" ]; then
		killed="guest silent for $silence s, killed" status=125
	elif [ $((SECONDS - start)) -ge "$timeout" ]; then
		killed="guest killed after $timeout s" status=124
	fi
	[ -z "$killed" ] || break
done
if [ -n "$killed" ]; then
	stop_qemu
	echo "twheel-harness: $killed" >>"$log"
	note "$killed (console in $log)"
	exit $status
fi
status=0
wait "$qemu" || status=$?
qemu=
exit $status
