#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh [PACKAGE...] - install the Debian 12 packages the build
# and tests need, and any named; then fetch Debian's prebuilt PREEMPT_RT
# kernel into $TWHEEL_CACHE (fetch_debian_rt in lib.sh).  Kernel sources
# Debian 12 does not carry (TWHEEL_SID_SOURCES) are fetched when first
# needed.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

packages=(
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	python3 busybox-static qemu-system-x86 linux-headers-amd64
	linux-image-amd64 dkms openssl trace-cmd linux-perf coccinelle
	dwarves
)
# The sources Debian 12 lacks come from sid, into the cache, when a
# kernel is first built (kernel_src in lib.sh): not installed.
for v in $TWHEEL_KERNELS; do
	v=${v%-rt}
	[ -n "$(sid_pin "$v")" ] || packages+=("linux-source-$v")
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

# Debian's prebuilt PREEMPT_RT kernel, into the cache (fetch_debian_rt in
# lib.sh).  Not fatal here: only its own checks need it, and they fetch it
# themselves if it is missing.
( fetch_debian_rt ) ||
	note "Debian's PREEMPT_RT kernel was not fetched: DEMO_KERNEL=debian-rt and make check's RT checks need it"
