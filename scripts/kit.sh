#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kit.sh install|remove KERNELRELEASE [ROOT]
#
# What a client module builds against, for one kernel: twheel's public
# headers and the Module.symvers of the twheel.ko built for that kernel,
# in ROOT/usr/src/twheel/KERNELRELEASE/ (ROOT defaults to /).  "install"
# copies them from the tree this script is in, where twheel has just been
# built; "remove" takes them away again.  "make install" and DKMS (its
# POST_BUILD and POST_REMOVE, see dkms.conf) both use it.  A client builds
# with TWHEEL=/usr/src/twheel/KERNELRELEASE (README.md).

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 install|remove KERNELRELEASE [ROOT]" >&2; exit 1; }
action=$1 kver=$2 root=${3:-}
[ -n "$kver" ] || { echo "kit.sh: no kernel release given" >&2; exit 1; }
rel=usr/src/twheel/$kver
kit=$root/$rel

case "$action" in
install)
	[ -f "$top/Module.symvers" ] ||
		{ echo "kit.sh: build twheel first: no $top/Module.symvers" >&2; exit 1; }
	install -d "$kit/include"
	install -m 0644 "$top"/include/*.h "$kit/include/"
	install -m 0644 "$top/Module.symvers" "$kit/Module.symvers"
	echo "twheel: client kit for $kver in $kit"
	;;
remove)
	rm -rf "$kit"
	# The folders the kit made, if nothing else is in them.
	(cd "${root:-/}" && rmdir -p --ignore-fail-on-non-empty \
		"$(dirname "$rel")" 2>/dev/null) || true
	;;
*)
	echo "usage: $0 install|remove KERNELRELEASE [ROOT]" >&2
	exit 1
	;;
esac
