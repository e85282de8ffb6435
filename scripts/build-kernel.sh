#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh VERSION [FRAGMENT...]
#
# Build an x86_64 kernel from Debian's linux-source-VERSION package with
# "make allnoconfig" plus the config FRAGMENTs (scripts/test-kernel.config by
# default; a later fragment's line for a symbol replaces an earlier one's),
# and print the build directory on stdout.  The build directory
# serves both as the bzImage's home and as KDIR for out-of-tree modules.
#
# Builds are cached under $TWHEEL_CACHE (default ~/.cache/twheel), keyed by
# the source package's version and a hash of the fragment and this script,
# so a second call with the same inputs returns at once and a change to
# either rebuilds.  The source is unpacked once (kernel_src in lib.sh).

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 1 ] || die "usage: $0 VERSION [FRAGMENT...]"
version=$1
shift
[ $# -ge 1 ] || set -- "$here/test-kernel.config"
fragments=()
for f in "$@"; do
	[ -r "$f" ] || die "config fragment $f not readable"
	fragments+=("$(realpath "$f")")
done

src=$(kernel_src "$version")
pkgver=${src##*/linux-source-}

# The key covers everything that decides the result: the source, the
# fragments in order, and this script's recipe.
key=$(cat "${fragments[@]}" "$0" | sha256sum | cut -c1-12)
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
		"$out/.config" "${fragments[@]}"
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
} >"$log" 2>&1 || die "configuring linux $version failed: see $log"

# Kconfig drops a request whose dependencies are not met without a word, so
# check every request that the last fragment naming its symbol makes, "is
# not set" included, against the final .config.  A symbol asked not to be
# set may be missing altogether, when its own dependencies went with
# another request (KASAN_GENERIC once a later fragment turns KASAN off).
missing=0
while read -r line; do
	case "$line" in
	"# "*) sym=${line#\# } && ! grep -q "^${sym%% *}=" "$out/.config" ;;
	*) grep -qxF "$line" "$out/.config" ;;
	esac && continue
	echo "  not set: $line" >&2
	missing=1
done < <(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1 &/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 &/p' \
		"${fragments[@]}" |
	awk '{ sym = $1; sub(/^[^ ]* /, ""); want[sym] = $0; order[sym] = NR }
	     END { for (s in want) print order[s], want[s] }' |
	sort -n | cut -d' ' -f2-)
[ $missing -eq 0 ] || die "linux $version ignored part of ${fragments[*]}"

make -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" bzImage modules \
	>>"$log" 2>&1 || die "building linux $version failed: see $log"
touch "$out/.twheel-built"
note "linux $version built in $(( $(date +%s) - start )) s"
echo "$out"
