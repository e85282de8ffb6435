#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# core-at.sh REV DIR - the wheel core of git revision REV (twheel_core.c,
# its headers beside it, and include/, where older revisions kept them
# all) into DIR, for user-bench.sh and user-ops.sh to build against with
# -IDIR -IDIR/include; prints REV's short hash.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

cd "$TWHEEL_TOP"
rev=$(git rev-parse --short "$1^{commit}") || die "no commit $1"
mkdir -p "$2/include"
for f in twheel_core.c $(git ls-tree --name-only "$rev" include/ \
			 twheel_core.h); do
	git show "$rev:$f" >"$2/$f"
done
echo "$rev"
