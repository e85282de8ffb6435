#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-check.sh - twheel installed as a real Debian 12 machine installs it.
#
# 1. "make install" into a staging root for the stock Debian kernel, a
#    client (samples/) built against what was installed, "make uninstall":
#    the root's file list is printed before and after, and must end empty.
# 2. The DKMS round trip: "dkms add" of a copy of this tree, "dkms build"
#    and "dkms install" for the stock Debian kernel; Debian's kernel booted
#    in QEMU with the module DKMS built, in its place under
#    /lib/modules, loaded by "modprobe twheel" with an option from
#    /etc/modprobe.d/, and the sample client, built against the installed
#    kit in /usr/src/twheel/KERNELRELEASE, loaded and removed; then
#    "dkms remove" and everything the check added goes away.
#
# Needs root and the dkms package (install-deps.sh).  Any step that fails
# stops the check, naming the step.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# It changes the machine's own DKMS tree: one check at a time.
exec 9>/run/lock/twheel-install-check
flock 9

debian_kernel
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$kdir/include/generated/utsrelease.h")
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TWHEEL_TOP/dkms.conf")
work=$TWHEEL_TOP/build/install-check
step=

trap '[ -z "$step" ] || note "install check FAILED at step: $step"' EXIT
begin() {
	step=$1
	note "install check: $step"
}

rm -rf "$work"
mkdir -p "$work"
# A copy of the tree, as a user's checkout would be.
tree=$work/tree
copy_tree "$tree"

# 1. make install / uninstall, staged.
stage=$work/stage
mkdir -p "$stage"
begin "make install DESTDIR=$stage"
before=$(cd "$stage" && find . | sort)
make -C "$tree" KDIR="$kdir" DESTDIR="$stage" install >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log" >&2; exit 1; }
note "installed files:"
(cd "$stage" && find . -type f | sort | sed 's/^/    /') >&2
[ -f "$stage/lib/modules/$kver/updates/twheel/twheel.ko" ]
[ -f "$stage/usr/src/twheel/$kver/Module.symvers" ]
[ -f "$stage/usr/src/twheel/$kver/include/twheel.h" ]

begin "build the sample client against the staged kit"
make -C "$tree/samples" KDIR="$kdir" TWHEEL="$stage/usr/src/twheel/$kver" \
	W=1 >"$work/client.log" 2>&1 || { cat "$work/client.log" >&2; exit 1; }
! grep -q 'warning:' "$work/client.log" ||
	{ grep 'warning:' "$work/client.log" >&2; exit 1; }

begin "make uninstall DESTDIR=$stage"
make -C "$tree" KDIR="$kdir" DESTDIR="$stage" uninstall \
	>>"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 1; }
after=$(cd "$stage" && find . | sort)
note "staging root before install: $(echo $before); after uninstall: $(echo $after)"
[ "$before" = "$after" ] || { note "left behind: $after"; exit 1; }

# 2. DKMS, on this machine's own DKMS tree.
begin "dkms: nothing of twheel $version there before"
if dkms status "twheel/$version" | grep -q . || [ -e "/usr/src/twheel-$version" ] ||
   [ -e "/usr/src/twheel/$kver" ]; then
	note "twheel $version is installed here already (dkms status, /usr/src): the check will not touch it; remove it first (dkms remove twheel/$version --all; rm -rf /usr/src/twheel-$version)"
	exit 1
fi
had_mok=
[ ! -e /var/lib/dkms/mok.key ] || had_mok=1

cleanup_dkms() {
	dkms remove "twheel/$version" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/twheel-$version"
	# DKMS runs POST_REMOVE only for an installed module; the kit of one
	# that was built and not installed goes here (it was not there before).
	"$tree/scripts/kit.sh" remove "$kver"
	[ -n "$had_mok" ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
}
trap 'cleanup_dkms; [ -z "$step" ] || note "install check FAILED at step: $step"' EXIT

begin "dkms add $tree, cleaned"
make -C "$tree" KDIR="$kdir" clean >/dev/null
make -C "$tree/samples" KDIR="$kdir" clean >/dev/null
dkms add "$tree" >"$work/dkms.log" 2>&1 || { cat "$work/dkms.log" >&2; exit 1; }
begin "dkms build twheel/$version -k $kver"
dkms build "twheel/$version" -k "$kver" >>"$work/dkms.log" 2>&1 ||
	{ cat "$work/dkms.log" >&2; exit 1; }
begin "dkms install twheel/$version -k $kver"
dkms install "twheel/$version" -k "$kver" >>"$work/dkms.log" 2>&1 ||
	{ cat "$work/dkms.log" >&2; exit 1; }
ko=/lib/modules/$kver/updates/dkms/twheel.ko
[ -f "$ko" ]
modinfo -k "$kver" twheel | grep -E '^(filename|version|description|parm):' >&2
[ "$(modinfo -k "$kver" -F version twheel)" = "$version" ]

begin "build the sample client against /usr/src/twheel/$kver"
make -C "$tree/samples" KDIR="$kdir" TWHEEL="/usr/src/twheel/$kver" W=1 \
	>"$work/client.log" 2>&1 || { cat "$work/client.log" >&2; exit 1; }

begin "boot Debian's kernel, modprobe twheel, run the sample client"
# The guest's module tree: the DKMS-built module where DKMS put it, and
# its own modules.dep made by depmod.
modroot=$work/modroot
mkdir -p "$modroot/lib/modules/$kver/updates/dkms"
cp "$ko" "$modroot/lib/modules/$kver/updates/dkms/"
# (depmod wants these lists of the kernel's own modules; the guest has none)
touch "$modroot/lib/modules/$kver/"modules.{order,builtin,builtin.modinfo}
depmod -b "$modroot" "$kver"
files=()
while read -r f; do
	files+=(--file "$modroot/$f:/$f")
done < <(cd "$modroot" && find lib -type f)
echo "options twheel scheme=6" >"$work/twheel.conf"
files+=(--file "$work/twheel.conf:/etc/modprobe.d/twheel.conf")
files+=(--file "$tree/samples/twheel_sample.ko:/lib/twheel/twheel_sample.ko")
run="modprobe twheel
grep -x 'version: $version' /sys/kernel/debug/twheel/config
grep -x 'scheme: 6' /sys/kernel/debug/twheel/config
insmod /lib/twheel/twheel_sample.ko
sleep 1
rmmod twheel_sample
modprobe -r twheel
if grep -q '^twheel ' /proc/modules; then exit 1; fi
echo install-check: guest done"
log=$work/dkms-guest.console.log
"$here/qemu-run.sh" --kernel "$bzimage" --log "$log" --timeout 300 \
	"${files[@]}" --run "$run"
python3 "$here/ktap.py" "$log" --label "install-check" --health-only
grep -q 'install-check: guest done' "$log"
grep -q "twheel $version: scheme 6" "$log"
grep -q 'twheel_sample: the periodic callout ran' "$log"

begin "dkms remove, and nothing left"
cleanup_dkms
trap - EXIT
left=$(ls -d "/usr/src/twheel-$version" "/usr/src/twheel/$kver" "$ko" \
	"/var/lib/dkms/twheel" 2>/dev/null || true)
[ -z "$left" ] || { note "left behind: $left"; exit 1; }
note "install check: make install/uninstall and the DKMS round trip behaved"
