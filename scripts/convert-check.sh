#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# convert-check.sh [--counts FILE] [--twheel DIR] VERSION
#
# Real modules moved onto twheel by the semantic patch alone, run beside
# the kernel's own copies in one guest, on test kernel VERSION (6.1,
# 6.12, 7.2; "7.2-rt" for its PREEMPT_RT build).  For each module of
# convert/modules/list: copy its source out of linux-source-VERSION
# twice, convert one copy with scripts/convert.sh --in-place and nothing
# else, and build both against the test kernel (convert/modules/Kbuild),
# the converted one as twheel's client, against the kit scripts/kit.sh
# installs.  Then boot the kernel in QEMU (three CPUs) with twheel and the
# observer, convert/modules/ledprobe.ko, an LED that records when its
# brightness changes; convert/modules/guest.sh runs each of a module's steps with the
# kernel's copy, then with the converted one, and prints the record.  On
# the host, ktap.py judges the console's health (KASAN, lockdep,
# warnings) and scripts/convert-compare.py the record, after its
# self-test has shown that it fails made-up consoles it should fail.
#
# Prints a line per module and "N passed, N failed" counting the modules,
# the console's health and the comparer's self-test; with --counts,
# appends those counts to FILE as check.sh's counts file takes them.
# With --twheel, the twheel built in DIR against the same test kernel
# (by run_suites, say: build/VERSION) serves instead of a build of its own.
# Exits non-zero on any failure.  The console is left in
# build/convert-VERSION.console.log, every timed interval in
# build/convert-VERSION/intervals.txt, each conversion's diff beside it;
# where convert/NAME-VERSION.diff (the README's) exists, the diff made
# now must equal it, one check more.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

counts= built=
while [ $# -gt 0 ]; do
	case "$1" in
	--counts) counts=$2; shift 2 ;;
	--twheel) built=$(realpath "$2"); shift 2 ;;
	-*) die "convert-check.sh: unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || die "usage: $0 [--counts FILE] [--twheel DIR] VERSION"
version=$1
start=$(date +%s)
modules=$TWHEEL_TOP/convert/modules
work=$TWHEEL_TOP/build/convert-$version
clog=$work.console.log
label="convert $version"
passed=0 failed=0
failures=()

# pass / fail WHAT: count one check.  finish: the totals, and the exit.
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("failed: [$label] $*"); }
finish() {
	note "[$label] took $(( $(date +%s) - start )) s"
	if [ -n "$counts" ]; then
		echo "$passed $failed 0" >>"$counts"
		[ ${#failures[@]} -eq 0 ] ||
			printf '%s\n' "${failures[@]}" >>"$counts"
	fi
	echo "$passed passed, $failed failed"
	[ $failed -eq 0 ]
	exit
}
# give_up WHY: what the checks need failed; count it and stop.
give_up() {
	echo "[$label] problem: $*"
	fail "$*"
	finish
}

# The comparer first: a comparer that cannot fail proves nothing.
if python3 "$here/convert-compare.py" --self-test; then
	pass
else
	fail "convert-compare.py --self-test"
fi

guest_kernel "$version" || give_up "no test kernel $version"
src=$(kernel_src "${version%-rt}")
rm -rf "$work" "$clog"
mkdir -p "$work"

# twheel, built as make check builds it, and the kit a client builds
# against, as make install puts it in /usr/src/twheel/RELEASE/.
release=$(cat "$kdir/include/config/kernel.release")
if [ -n "$built" ]; then
	magic=$(modinfo -F vermagic "$built/twheel.ko" 2>/dev/null) || true
	[ -f "$built/Module.symvers" ] && [ "${magic%% *}" = "$release" ] ||
		give_up "no twheel built against $release in $built"
else
	built=$work/module
	"$here/build-module.sh" "$kdir" "$built" >/dev/null ||
		give_up "building twheel against $kdir"
fi
twheel_ko=$built/twheel.ko
"$built/scripts/kit.sh" install "$release" "$work/root" >/dev/null ||
	give_up "scripts/kit.sh install"
kit=$work/root/usr/src/twheel/$release

# build DIR [MAKE-VARIABLE...]: every .c in DIR as a module (Kbuild), no
# warning allowed (these sources build warning-free in the kernel's tree;
# a warning in a converted one is a conversion gone wrong).
build() {
	local dir=$1 blog=$1/build.log
	shift
	cp "$modules/Kbuild" "$modules/Makefile" "$dir/"
	if ! make -C "$dir" KDIR="$kdir" "$@" >"$blog" 2>&1; then
		cat "$blog" >&2
		give_up "building $dir against $kdir"
	fi
	if grep -q 'warning:' "$blog"; then
		grep -B2 -A4 'warning:' "$blog" >&2
		give_up "building $dir against $kdir gave warnings"
	fi
}

mkdir -p "$work/probe"
cp "$modules/ledprobe.c" "$work/probe/"
build "$work/probe" W=1

# The modules of the list, for this version: a copy each side.
names=()
while read -r ver source files; do
	case "$ver" in "#"* | "") continue ;; esac
	[ "$ver" = "${version%-rt}" ] || continue
	[ -f "$src/$source" ] || give_up "no $source in $src"
	for side in orig twheel; do
		mkdir -p "$work/$side"
		cp "$src/$source" "$work/$side/"
		for f in $files; do
			mkdir -p "$(dirname "$work/$side/$f")"
			cp "$src/$(dirname "$source")/$f" "$work/$side/$f"
		done
	done
	names+=("$(basename "$source" .c)")
done <"$modules/list"
[ ${#names[@]} -gt 0 ] ||
	give_up "convert/modules/list has no module for ${version%-rt}"

# The conversion is the semantic patch's alone.
conv=()
for n in "${names[@]}"; do
	conv+=("$work/twheel/$n.c")
done
"$here/convert.sh" --in-place "${conv[@]}" ||
	give_up "scripts/convert.sh did not convert all of ${names[*]}"
for n in "${names[@]}"; do
	! cmp -s "$work/orig/$n.c" "$work/twheel/$n.c" ||
		give_up "scripts/convert.sh left $n.c as it was"
	diff -u --label "a/$n.c" --label "b/$n.c" "$work/orig/$n.c" \
		"$work/twheel/$n.c" >"$work/$n.diff" || true
	# A diff the README shows must be what the patch makes today.
	shown=$TWHEEL_TOP/convert/$n-${version%-rt}.diff
	if [ -f "$shown" ]; then
		if cmp -s "$shown" "$work/$n.diff"; then
			pass
		else
			diff -u "$shown" "$work/$n.diff" >&2 || true
			fail "${shown#"$TWHEEL_TOP"/} is not what convert.sh makes of $n.c"
		fi
	fi
done

build "$work/orig"
build "$work/twheel" TWHEEL="$kit"
files=(--file "$modules/guest.sh:/lib/convert/guest.sh")
for n in "${names[@]}"; do
	# A converted module that still used timer_list alone would prove
	# nothing: it must take its callouts from twheel.
	modinfo -F depends "$work/twheel/$n.ko" | tr , '\n' | grep -qx twheel ||
		give_up "converted $n.ko does not use twheel"
	files+=(--file "$work/orig/$n.ko:/lib/convert/orig/$n.ko"
		--file "$work/twheel/$n.ko:/lib/convert/twheel/$n.ko")
done

note "[$label] converted and built ${names[*]} in $(( $(date +%s) - start )) s; console in $clog"
boot=$(date +%s)
qemu=0
"$here/qemu-run.sh" --kernel "$kdir/arch/x86/boot/bzImage" --log "$clog" \
	--timeout 1200 --cpus 3 --append "slub_debug=A,twheel_timeout" \
	"${files[@]}" --run "sh /lib/convert/guest.sh ${names[*]}" \
	"$twheel_ko" "$work/probe/ledprobe.ko" || qemu=$?
note "[$label] guest ran $(( $(date +%s) - boot )) s"
[ $qemu -eq 0 ] || echo "[$label] problem: QEMU exited with status $qemu"

if python3 "$here/ktap.py" "$clog" --label "$label" --health-only &&
	[ $qemu -eq 0 ]; then
	pass
else
	fail "console (KASAN, lockdep, warnings, the guest's script): $clog"
fi

# One line per module, and its totals, counted here with the rest.
out=$(python3 "$here/convert-compare.py" "$clog" --label "$label" \
	--modules "$(IFS=,; echo "${names[*]}")" \
	--details "$work/intervals.txt") || true
totals='^[0-9]+ passed, [0-9]+ failed$'
grep -Ev "$totals" <<<"$out" || true
totals=$(grep -E "$totals" <<<"$out" || true)
if [ -z "$totals" ]; then
	fail "convert-compare.py gave no verdict"
else
	read -r p _ f _ <<<"$totals"
	passed=$((passed + p)) failed=$((failed + f))
	while read -r line; do
		failures+=("failed: $line")
	done < <(grep ': FAILED' <<<"$out" || true)
fi
finish
