#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# style.sh [TREE] - the kernel's own style checks over twheel's C.
#
# Runs checkpatch.pl --strict over every C file and header of the module,
# kunit/, bench/, samples/ and convert/modules/, and the programs of user/
# (not the stand-in kernel headers of user/shim/, which define what
# checkpatch polices) in TREE (default: this tree), and
# kernel-doc -Wall over the module's files and include/, both from the
# newest supported kernel's source (KSRC_VERSION to pick another).  Prints
# every finding and exits non-zero if there is any.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

tree=$(realpath "${1:-$TWHEEL_TOP}")
latest=${TWHEEL_KERNELS##* }
src=$(kernel_src "${KSRC_VERSION:-${latest%-rt}}")
cd "$tree"

# Sources only: not what Kbuild generates (*.mod.c).
sources() {
	find "$@" -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' 2>/dev/null |
		sort
}
mapfile -t all < <(sources . include kunit kunit/client bench samples \
	convert/modules torture user user/shim)
mapfile -t documented < <(sources . include)
[ ${#all[@]} -gt 0 ] || die "style.sh: no C files under $tree"

findings=0
for f in "${all[@]}"; do
	# The compat header is where kernel versions are compared, and the
	# only place (checkpatch flags LINUX_VERSION_CODE everywhere else).
	# kmalloc_obj() and its kin, which 7.2's checkpatch asks for in
	# place of kmalloc(sizeof(...)), are not in 6.1 or 6.12.
	ignore=(--ignore ALLOC_WITH_SIZEOF)
	[ "$f" != ./twheel_compat.h ] ||
		ignore=(--ignore ALLOC_WITH_SIZEOF,LINUX_VERSION_CODE
			--ignore CONSTANT_COMPARISON)
	out=$(perl "$src/scripts/checkpatch.pl" --no-tree --strict --quiet \
		--show-types "${ignore[@]}" -f "$f" 2>&1) || true
	if [ -n "$out" ]; then
		echo "$out"
		findings=$((findings + 1))
	fi
done
out=$(perl "$src/scripts/kernel-doc" -none -Wall "${documented[@]}" 2>&1) ||
	true
if [ -n "$out" ]; then
	echo "$out"
	findings=$((findings + 1))
fi

if [ $findings -ne 0 ]; then
	echo "style: $findings findings (checkpatch --strict, kernel-doc -Wall)"
	exit 1
fi
note "style: ${#all[@]} files checkpatch --strict clean, ${#documented[@]} kernel-doc -Wall clean"
