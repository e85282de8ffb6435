# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts in this folder; sourced, not run.

TWHEEL_CACHE=${TWHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twheel}
TWHEEL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Kernel versions "make check" runs on, oldest first.
TWHEEL_KERNELS="6.1 6.12"

note() { echo "twheel: $*" >&2; }
die() { echo "twheel: error: $*" >&2; exit 1; }
