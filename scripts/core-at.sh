#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# core-at.sh REV DIR - the wheel core of git revision REV (twheel_core.c and
# include/) into DIR, for user-bench.sh and user-ops.sh to build against;
# prints REV's short hash.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

cd "$TWHEEL_TOP"
rev=$(git rev-parse --short "$1^{commit}") || die "no commit $1"
mkdir -p "$2/include"
for f in twheel_core.c $(git ls-tree --name-only "$rev" include/); do
	git show "$rev:$f" >"$2/$f"
done
echo "$rev"
