# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts in this folder; sourced, not run.

TWHEEL_CACHE=${TWHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twheel}
TWHEEL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Kernel versions "make check" runs on, oldest first.
TWHEEL_KERNELS="6.1 6.12"

note() { echo "twheel: $*" >&2; }
die() { echo "twheel: error: $*" >&2; exit 1; }

# Set $bzimage, $kdir and $ver to the newest stock Debian kernel whose
# headers are installed too; die if there is none.
debian_kernel() {
	local img
	bzimage= kdir= ver=
	for img in $(ls -v /boot/vmlinuz-*-amd64 2>/dev/null); do
		if [ -f "/usr/src/linux-headers-${img#/boot/vmlinuz-}/Makefile" ]; then
			ver=${img#/boot/vmlinuz-}
			bzimage=$img
			kdir=/usr/src/linux-headers-$ver
		fi
	done
	[ -n "$bzimage" ] ||
		die "no /boot/vmlinuz-*-amd64 with matching linux-headers: apt-get install linux-image-amd64 linux-headers-amd64"
}

# Print the directory of linux-source-$1 unpacked under $TWHEEL_CACHE,
# unpacking it first if need be; die if the package is missing.
kernel_src() {
	local version=$1 tarball pkgver src
	tarball=/usr/src/linux-source-$version.tar.xz
	[ -r "$tarball" ] || die "$tarball missing: install linux-source-$version"
	pkgver=$(dpkg-query -W -f='${Version}' "linux-source-$version")
	src=$TWHEEL_CACHE/src/linux-source-$pkgver
	if [ ! -f "$src/.twheel-unpacked" ]; then
		# Callers run this in $(...), where set -e does not hold: every
		# step checks for itself, so a half-unpacked tree is never marked.
		note "unpacking linux-source-$version $pkgver into $src"
		rm -rf "$src" && mkdir -p "$src" &&
			tar -xJf "$tarball" -C "$src" --strip-components=1 &&
			touch "$src/.twheel-unpacked" ||
			die "unpacking $tarball into $src failed"
	fi
	echo "$src"
}

# Copy the tree as a checkout has it, without builds or git's files, to $1.
copy_tree() {
	mkdir -p "$1" &&
	(cd "$TWHEEL_TOP" && tar -c --exclude=./build --exclude=./.git \
		--exclude='*.ko' --exclude='*.o' --exclude='*.cmd' \
		--exclude=Module.symvers .) | tar -x -C "$1"
}
