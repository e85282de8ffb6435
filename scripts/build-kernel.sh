#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh VERSION [FRAGMENT]
#
# Build an x86_64 kernel from Debian's linux-source-VERSION package with
# "make allnoconfig" plus the config FRAGMENT (scripts/test-kernel.config by
# default), and print the build directory on stdout.  The build directory
# serves both as the bzImage's home and as KDIR for out-of-tree modules.
#
# Builds are cached under $TWHEEL_CACHE (default ~/.cache/twheel), keyed by
# the source package's version and a hash of the fragment and this script,
# so a second call with the same inputs returns at once and a change to
# either rebuilds.  The source is unpacked once (kernel_src in lib.sh).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 1 ] || die "usage: $0 VERSION [FRAGMENT]"
version=$1
fragment=$(realpath "${2:-$here/test-kernel.config}")
[ -r "$fragment" ] || die "config fragment $fragment not readable"

src=$(kernel_src "$version")
pkgver=${src##*/linux-source-}

# The key covers everything that decides the result: the source, the
# fragment, and this script's recipe.
key=$(cat "$fragment" "$0" | sha256sum | cut -c1-12)
out=$TWHEEL_CACHE/kernels/$version-$pkgver-$key
log=$out.log

if [ -f "$out/.twheel-built" ]; then
	echo "$out"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out"
note "building linux $version ($pkgver, config $key) in $out; log in $log"
start=$(date +%s)
{
	make -C "$src" O="$out" ARCH=x86_64 allnoconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" "$fragment"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
} >"$log" 2>&1 || die "configuring linux $version failed: see $log"

# Kconfig drops a request whose dependencies are not met without a word, so
# check every line of the fragment against the final .config.
missing=0
while read -r line; do
	case "$line" in
	CONFIG_*=*) ;;
	*) continue ;;
	esac
	if ! grep -qxF "$line" "$out/.config"; then
		echo "  not set: $line" >&2
		missing=1
	fi
done <"$fragment"
[ $missing -eq 0 ] || die "linux $version ignored part of $fragment"

make -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" bzImage modules \
	>>"$log" 2>&1 || die "building linux $version failed: see $log"
touch "$out/.twheel-built"
note "linux $version built in $(( $(date +%s) - start )) s"
echo "$out"
