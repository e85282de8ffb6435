#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh [PACKAGE...] - install the Debian 12 packages the build
# and tests need, and any named; then fetch Debian's prebuilt PREEMPT_RT
# kernel into $TWHEEL_CACHE (fetch_debian_rt, below).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

packages=(
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	python3 busybox-static qemu-system-x86 linux-headers-amd64
	linux-image-amd64 dkms openssl trace-cmd linux-perf coccinelle
	dwarves
)
for v in $TWHEEL_KERNELS; do
	packages+=("linux-source-$v")
done
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		die "missing Debian packages: ${missing[*]}
  install them as root:  sudo apt-get install ${missing[*]}
  (then run this again as yourself)"
	fi
	note "installing ${missing[*]}"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's prebuilt PREEMPT_RT kernel, the -rt-amd64 flavour of 6.12 in
# bookworm-security (guest_kernel debian-rt in lib.sh boots it): its
# vmlinuz and its headers, unpacked under $TWHEEL_CACHE/debian-rt/RELEASE/,
# not installed.  Installed, it would become the machine's kernel: its
# headers package depends on its image package, whose vmlinuz in /boot
# GRUB would boot next, as the newest version there, after building an
# initramfs for it.  Unpacked, it changes nothing outside the cache and
# needs no root: apt-get download fetches the image (only its vmlinuz is
# kept), the flavour's headers, the common headers they include and the
# linux-kbuild tools they link to, by relative links that hold in the
# unpacked tree; the one absolute path, the flavour Makefile's include of
# the common one, is pointed into it.  The release is the one the
# metapackage linux-image-6.12-rt-amd64 depends on now, so that a
# security update brings a new one.
fetch_debian_rt() {
	local meta=linux-image-6.12-rt-amd64 image release abi root tmp deb
	image=$(apt-cache show --no-all-versions "$meta" 2>/dev/null |
		sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p')
	if [ -z "$image" ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -q >/dev/null
		image=$(apt-cache show --no-all-versions "$meta" 2>/dev/null |
			sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p')
	fi
	[ -n "$image" ] ||
		die "apt knows no $meta: bookworm-security must be in /etc/apt/sources.list, then apt-get update as root"
	release=${image#linux-image-}
	abi=${release%-rt-amd64}
	root=$TWHEEL_CACHE/debian-rt/$release
	[ ! -f "$root/.twheel-unpacked" ] || return 0

	note "fetching Debian's PREEMPT_RT kernel $release into $root"
	tmp=$(mktemp -d)
	# apt-get download as root drops to user _apt, which must write here.
	[ "$(id -u)" -ne 0 ] || chown _apt "$tmp"
	rm -rf "$root" && mkdir -p "$root" &&
		(cd "$tmp" && apt-get download -q "$image" \
			"linux-headers-$release" "linux-headers-$abi-common-rt" \
			"linux-kbuild-$abi" >/dev/null) ||
		{ rm -rf "$tmp"; die "apt-get download of $image and its headers failed"; }
	for deb in "$tmp"/*.deb; do
		case "${deb##*/}" in
		linux-image-*)
			dpkg-deb --fsys-tarfile "$deb" |
				tar -x -C "$root" "./boot/vmlinuz-$release" ;;
		*) dpkg-deb -x "$deb" "$root" ;;
		esac || { rm -rf "$tmp"; die "unpacking $deb into $root failed"; }
	done
	rm -rf "$tmp"
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root/usr/src/linux-headers-$release/Makefile"
	[ -f "$root/boot/vmlinuz-$release" ] &&
		[ -f "$root/usr/src/linux-headers-$abi-common-rt/Makefile" ] &&
		[ -x "$root/usr/src/linux-headers-$release/scripts/basic/fixdep" ] ||
		die "$root is not a kernel and its headers"
	touch "$root/.twheel-unpacked"
}
fetch_debian_rt
