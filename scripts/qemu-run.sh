#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-run.sh [options] MODULE.ko[:PARAMS] ...
#
# Boot a kernel under QEMU (TCG, 2 CPUs unless told) with a busybox initramfs that loads
# the given modules in order (KUnit suites run as their module loads), runs an
# optional guest command, unloads the modules in reverse order and reboots.
# The serial console goes to the log file; nothing is judged here (see
# ktap.py).  Exit status: 0 when the guest rebooted by itself, 124 when it
# had to be killed after the timeout, QEMU's own status otherwise.
#
# Options:
#   --kernel BZIMAGE   kernel to boot (required)
#   --log FILE         console log (required)
#   --timeout SECS     kill the guest after this long (default 600)
#   --run CMD          shell command run in the guest after loading
#   --file SRC:DST     copy SRC into the initramfs as DST (repeatable)
#   --memory MB        guest memory (default 2048)
#   --cpus N           virtual CPUs (default 2; the test kernels allow 4)
#   --append ARGS      extra kernel command line
#   --qemu ARG         extra QEMU argument, after the others (repeatable)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

kernel= log= timeout=600 run= memory=2048 cpus=2 append=
files=() qemu_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
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

busybox=/bin/busybox
[ -x $busybox ] && ! readelf -l $busybox | grep -q INTERP ||
	die "a static busybox is needed: apt-get install busybox-static"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
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

initrd=$root.cpio.gz
trap 'rm -rf "$root" "$initrd"' EXIT
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"

status=0
timeout --kill-after=10 "$timeout" \
	qemu-system-x86_64 -machine pc -accel tcg -cpu max -smp "$cpus" \
	-m "$memory" -nodefaults -display none -no-reboot \
	-serial "file:$log" -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic $append" \
	${qemu_args[@]+"${qemu_args[@]}"} </dev/null ||
	status=$?
[ $status -ne 124 ] || echo "twheel-harness: guest killed after $timeout s" >>"$log"
exit $status
