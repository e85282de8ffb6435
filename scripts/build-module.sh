#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR OUTDIR
#
# Build twheel.ko and, when KDIR's kernel has KUnit, the test modules, with
# W=1, in a copy of the tree at OUTDIR (so that builds for several kernels
# do not overwrite each other); then, out of tree against twheel's
# Module.symvers as a client would, the client suite kunit/client/ (with
# KUnit) and samples/.  Any compiler warning fails the build.  On success
# prints the built modules, twheel.ko first and the sample last, one path a
# line.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 2 ] || die "usage: $0 KDIR OUTDIR"
kdir=$1 out=$2
[ -f "$kdir/Makefile" ] || die "no kernel build directory at $kdir"

# One build at a time in OUTDIR: make check's self-test builds for every
# kernel while that kernel's suites may be building there too.  The
# second then finds everything built.
mkdir -p "$out" && exec {lock}>"$out/.lock" && flock "$lock" ||
	die "cannot lock $out"
# The sources of an earlier copy go first: a header the tree has since
# moved or removed would otherwise still be found there.
[ ! -d "$out" ] || find "$out" -name '*.[ch]' ! -name '*.mod.c' -delete
copy_tree "$out"

out=$(realpath "$out")
log=$out/build.log
clients=()
grep -qE '^CONFIG_KUNIT=(y|m)' "$kdir/include/config/auto.conf" &&
	clients+=(kunit/client)
clients+=(samples)

build() {
	make -C "$kdir" M="$out" W=1 modules || return
	for c in "${clients[@]}"; do
		make -C "$out/$c" KDIR="$kdir" TWHEEL="$out" W=1 || return
	done
}
if ! build >"$log" 2>&1; then
	cat "$log" >&2
	die "building twheel against $kdir failed"
fi
if grep -q 'warning:' "$log"; then
	grep -B2 -A4 'warning:' "$log" >&2
	die "building twheel against $kdir gave warnings (W=1)"
fi

# modules.order names the modules in Kbuild order, absolute or relative,
# as .ko (6.1) or .o (later kernels).
while read -r m; do
	m=${m%.o}
	m=${m%.ko}.ko
	case "$m" in /*) ;; *) m=$out/$m ;; esac
	[ -f "$m" ] || die "modules.order names $m, which was not built"
	echo "$m"
done <"$out/modules.order"
for c in "${clients[@]}"; do
	ls "$out/$c"/*.ko
done
