# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts in this folder; sourced, not run.

TWHEEL_CACHE=${TWHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twheel}
TWHEEL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The test kernels "make check" runs on, oldest first, as guest_kernel
# names them: 6.1 and 6.12, the LTS kernels of Debian 12 and 13, and 7.2,
# the current one, built PREEMPT_RT ("-rt"): mainline's real-time model,
# on the kernel a user of it would run.  Each is built with every debug
# option of scripts/test-kernel.config.
TWHEEL_KERNELS="6.1 6.12 7.2-rt"

# The kernels whose source Debian 12 does not carry, each as
# VERSION=PACKAGE-VERSION: the version of linux-source-VERSION, from
# Debian's unstable suite (sid), that twheel is tested on.  kernel_src
# fetches it (fetch_sid_source), so "build-kernel.sh 7.2" builds it as it
# builds Debian 12's linux-source-6.12.  Pinned, so that every machine
# tests the same source: sid keeps only the newest upload of a package.
# To move the pin, change the version here to one that
#   apt-cache -o Dir::Etc::SourceList=$TWHEEL_CACHE/apt-sid/sid.list \
#     -o Dir::Etc::SourceParts=/dev/null \
#     -o Dir::State::Lists=$TWHEEL_CACHE/apt-sid/lists \
#     -o Dir::Cache=$TWHEEL_CACHE/apt-sid/cache madison linux-source-7.2
# lists (fetch_sid_source prints that list when the pin has left sid).
# The kernel's build, keyed by the package version, is then made anew;
# the old source and builds stay in the cache until removed by hand.
TWHEEL_SID_SOURCES="7.2=7.2.13-1"

note() { echo "twheel: $*" >&2; }
die() { echo "twheel: error: $*" >&2; exit 1; }

# Set $bzimage, $kdir and $ver to the newest stock Debian kernel whose
# headers are installed too; die if there is none.  Never an -rt-amd64
# one, should it be installed: that is debian_rt_kernel's.
debian_kernel() {
	local img
	bzimage= kdir= ver=
	for img in $(ls -v /boot/vmlinuz-*-amd64 2>/dev/null); do
		case "$img" in *-rt-amd64) continue ;; esac
		if [ -f "/usr/src/linux-headers-${img#/boot/vmlinuz-}/Makefile" ]; then
			ver=${img#/boot/vmlinuz-}
			bzimage=$img
			kdir=/usr/src/linux-headers-$ver
		fi
	done
	[ -n "$bzimage" ] ||
		die "no /boot/vmlinuz-*-amd64 with matching linux-headers: apt-get install linux-image-amd64 linux-headers-amd64"
}

# Debian's prebuilt PREEMPT_RT kernel, the -rt-amd64 flavour of 6.12 in
# bookworm-security (guest_kernel debian-rt in lib.sh boots it): its
# vmlinuz and its headers, unpacked under $TWHEEL_CACHE/debian-rt/RELEASE/,
# not installed.  Installed, it would become the machine's kernel: its
# headers package depends on its image package, whose vmlinuz in /boot
# GRUB would boot next, as the newest version there, after building an
# initramfs for it.  Unpacked, it changes nothing outside the cache and
# needs no root: apt-get download fetches the image (only its vmlinuz is
# kept), the flavour's headers, the common headers they include and the
# linux-kbuild tools they link to, by relative links that hold in the
# unpacked tree; the one absolute path, the flavour Makefile's include of
# the common one, is pointed into it.  The release is the one the
# metapackage linux-image-6.12-rt-amd64 depends on now, so that a
# security update brings a new one.
fetch_debian_rt() {
	local meta=linux-image-6.12-rt-amd64 image release abi root tmp deb
	image=$(apt-cache show --no-all-versions "$meta" 2>/dev/null |
		sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p')
	if [ -z "$image" ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -q >/dev/null
		image=$(apt-cache show --no-all-versions "$meta" 2>/dev/null |
			sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p')
	fi
	[ -n "$image" ] ||
		die "apt knows no $meta: bookworm-security must be in /etc/apt/sources.list, then apt-get update as root"
	release=${image#linux-image-}
	abi=${release%-rt-amd64}
	root=$TWHEEL_CACHE/debian-rt/$release
	[ ! -f "$root/.twheel-unpacked" ] || return 0

	note "fetching Debian's PREEMPT_RT kernel $release into $root"
	tmp=$(mktemp -d)
	# apt-get download as root drops to user _apt, which must write here.
	[ "$(id -u)" -ne 0 ] || chown _apt "$tmp"
	rm -rf "$root" && mkdir -p "$root" &&
		(cd "$tmp" && apt-get download -q "$image" \
			"linux-headers-$release" "linux-headers-$abi-common-rt" \
			"linux-kbuild-$abi" >/dev/null) ||
		{ rm -rf "$tmp"; die "apt-get download of $image and its headers failed"; }
	for deb in "$tmp"/*.deb; do
		case "${deb##*/}" in
		linux-image-*)
			dpkg-deb --fsys-tarfile "$deb" |
				tar -x -C "$root" "./boot/vmlinuz-$release" ;;
		*) dpkg-deb -x "$deb" "$root" ;;
		esac || { rm -rf "$tmp"; die "unpacking $deb into $root failed"; }
	done
	rm -rf "$tmp"
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root/usr/src/linux-headers-$release/Makefile"
	[ -f "$root/boot/vmlinuz-$release" ] &&
		[ -f "$root/usr/src/linux-headers-$abi-common-rt/Makefile" ] &&
		[ -x "$root/usr/src/linux-headers-$release/scripts/basic/fixdep" ] ||
		die "$root is not a kernel and its headers"
	touch "$root/.twheel-unpacked"
}

# Set $bzimage, $kdir and $ver to Debian's prebuilt PREEMPT_RT kernel, the
# newest release unpacked under $TWHEEL_CACHE/debian-rt/, fetching the
# current one first if there is none; die if that fails.
debian_rt_kernel() {
	local root
	bzimage= kdir= ver=
	ls "$TWHEEL_CACHE"/debian-rt/*/.twheel-unpacked >/dev/null 2>&1 ||
		fetch_debian_rt
	for root in $(ls -dv "$TWHEEL_CACHE"/debian-rt/*/ 2>/dev/null); do
		root=${root%/}
		[ -f "$root/.twheel-unpacked" ] || continue
		ver=${root##*/}
		bzimage=$root/boot/vmlinuz-$ver
		kdir=$root/usr/src/linux-headers-$ver
	done
	[ -n "$bzimage" ] ||
		die "Debian's RT kernel is not in $TWHEEL_CACHE/debian-rt/"
}

# Set kdir, bzimage and label for a guest of kernel $1: "debian", the
# stock Debian kernel (debian_kernel); "debian-rt", Debian's PREEMPT_RT
# one (debian_rt_kernel); or a test kernel version, built if need be
# (build-kernel.sh), with "-rt" for its PREEMPT_RT build (rt-kernel.config).
guest_kernel() {
	case "$1" in
	debian) debian_kernel ;;
	debian-rt) debian_rt_kernel ;;
	*-rt)
		kdir=$("$TWHEEL_TOP/scripts/build-kernel.sh" "${1%-rt}" \
			"$TWHEEL_TOP/scripts/test-kernel.config" \
			"$TWHEEL_TOP/scripts/rt-kernel.config")
		bzimage=$kdir/arch/x86/boot/bzImage
		label=$1
		return
		;;
	*)
		kdir=$("$TWHEEL_TOP/scripts/build-kernel.sh" "$1")
		bzimage=$kdir/arch/x86/boot/bzImage
		label=$1
		return
		;;
	esac
	label=debian-$ver
}

# sid_pin VERSION: print the package version TWHEEL_SID_SOURCES pins for
# linux-source-VERSION, or nothing if Debian 12 carries that source.
sid_pin() {
	local w
	for w in $TWHEEL_SID_SOURCES; do
		[ "${w%%=*}" != "$1" ] || { echo "${w#*=}"; return 0; }
	done
}

# The mirror the machine's apt takes bookworm from (a one-line
# sources.list entry or a deb822 .sources stanza naming that suite), else
# Debian's own.
sid_mirror() {
	local uri= f
	local -a lists=() stanzas=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*; do
		[ -r "$f" ] || continue
		case "$f" in
		*.list) lists+=("$f") ;;
		*.sources) stanzas+=("$f") ;;
		esac
	done
	[ ${#lists[@]} -eq 0 ] || uri=$(awk '
		$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++
			      if ($2 ~ /^\[/) i++
			      if ($(i + 1) == "bookworm") { print $i; exit } }' \
		"${lists[@]}")
	[ -n "$uri" ] || [ ${#stanzas[@]} -eq 0 ] || uri=$(awk '
		FNR == 1 || /^[ \t]*$/ { if (s && u) exit; s = u = "" }
		/^URIs:/ { u = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") s = 1 }
		END { if (s && u) print u }' "${stanzas[@]}")
	echo "${uri:-http://deb.debian.org/debian}"
}

# sid_apt apt-get|apt-cache ARG...: run it on twheel's own view of Debian
# unstable, kept in $TWHEEL_CACHE/apt-sid/: its sources list (sid.list,
# naming suite sid of the machine's bookworm mirror), its package lists
# and its cache.  The machine's sources lists are not used, and nothing
# of the machine's apt changes: its lists, its cache and what is
# installed stay as they were (its apt.conf.d, a proxy say, still
# applies), and no root is needed.  Root's downloads run as root: apt's
# sandbox user _apt may not enter root's home, and apt would fall back
# to root with a warning anyway.
sid_apt() {
	local tool=$1 dir=$TWHEEL_CACHE/apt-sid
	local -a opts
	shift
	opts=(-o Dir::Etc::SourceList="$dir/sid.list"
	      -o Dir::Etc::SourceParts=/dev/null
	      -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache"
	      -o Acquire::Languages=none)
	[ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
	"$tool" "${opts[@]}" "$@"
}

# fetch_sid_source VERSION PACKAGE-VERSION: print the path of the .deb of
# linux-source-VERSION at PACKAGE-VERSION, kept in
# $TWHEEL_CACHE/apt-sid/debs/, downloading it from sid first if need be
# (apt-get checks it against sid's signed index); die if sid does not
# have that version, naming the ones it has.
fetch_sid_source() {
	local version=$1 pkgver=$2 dir=$TWHEEL_CACHE/apt-sid pkg deb have
	pkg=linux-source-$version
	deb=$dir/debs/${pkg}_${pkgver}_all.deb
	if [ ! -f "$deb" ]; then
		note "fetching $pkg $pkgver from Debian unstable into $dir"
		mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" \
			"$dir/debs" &&
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(sid_mirror) sid main" \
				>"$dir/sid.list" ||
			die "cannot set up $dir"
		sid_apt apt-get -q update >/dev/null ||
			die "apt-get update of Debian unstable (sources list $dir/sid.list) failed"
		have=$(sid_apt apt-cache madison "$pkg" | awk '{ print $3 }')
		case " $(echo $have) " in
		*" $pkgver "*) ;;
		*) die "Debian unstable has $pkg ${have:-in no version}, not $pkgver: move TWHEEL_SID_SOURCES in scripts/lib.sh" ;;
		esac
		(cd "$dir/debs" && sid_apt apt-get -q download "$pkg=$pkgver" \
			>/dev/null) && [ -f "$deb" ] ||
			die "apt-get download of $pkg $pkgver failed"
	fi
	echo "$deb"
}

# Print the directory of linux-source-$1 unpacked under $TWHEEL_CACHE,
# unpacking it first if need be: Debian 12's package, installed, or the
# one TWHEEL_SID_SOURCES pins, fetched from sid (fetch_sid_source); die
# if the package is missing.  make check's two lanes may ask for the same
# source at once (style.sh and a build): a lock per version makes the
# second wait for the first to fetch and unpack it.
kernel_src() {
	local version=$1 tarball pkgver src deb= lock
	tarball=/usr/src/linux-source-$version.tar.xz
	mkdir -p "$TWHEEL_CACHE/src" &&
		exec {lock}>"$TWHEEL_CACHE/src/.lock-$version" &&
		flock "$lock" || die "cannot lock $TWHEEL_CACHE/src for $version"
	pkgver=$(sid_pin "$version")
	if [ -n "$pkgver" ]; then
		deb=$(fetch_sid_source "$version" "$pkgver") || exit 1
	else
		[ -r "$tarball" ] ||
			die "$tarball missing: install linux-source-$version"
		pkgver=$(dpkg-query -W -f='${Version}' "linux-source-$version")
	fi
	src=$TWHEEL_CACHE/src/linux-source-$pkgver
	if [ ! -f "$src/.twheel-unpacked" ]; then
		# Callers run this in $(...), where set -e does not hold: every
		# step checks for itself, so a half-unpacked tree is never marked.
		# A fetched .deb's tarball is unpacked straight from it, as
		# dpkg-deb -x would put it in /usr/src.
		note "unpacking linux-source-$version $pkgver into $src"
		rm -rf "$src" && mkdir -p "$src" &&
			if [ -n "$deb" ]; then
				(set -o pipefail
				 dpkg-deb --fsys-tarfile "$deb" |
					tar -xO ".$tarball" |
					tar -xJ -C "$src" --strip-components=1)
			else
				tar -xJf "$tarball" -C "$src" --strip-components=1
			fi &&
			touch "$src/.twheel-unpacked" ||
			die "unpacking ${deb:-$tarball} into $src failed"
	fi
	exec {lock}>&-
	echo "$src"
}

# Copy the tree as a checkout has it, without builds or git's files, to $1.
copy_tree() {
	mkdir -p "$1" &&
	(cd "$TWHEEL_TOP" && tar -c --exclude=./build --exclude=./.git \
		--exclude='*.ko' --exclude='*.o' --exclude='*.cmd' \
		--exclude=Module.symvers .) | tar -x -C "$1"
}

# The test modules that run the same on every kernel: those of the wheels
# alone, which call nothing of the kernel's but its allocator, and the
# departing-module sweep's bound, the same code on each and some 40 s of
# guest time.
TWHEEL_ONCE_TESTS="twheel_arith_test twheel_model_test twheel_wheel_ops_test
	twheel_cascade_test twheel_sweep_test"

# is_once_test NAME: whether NAME (a module, without .ko) is one of them.
is_once_test() {
	local t
	for t in $TWHEEL_ONCE_TESTS; do
		[ "$t" != "$1" ] || return 0
	done
	return 1
}

# run_suites [--only6] [--lean] LABEL KDIR COUNTS APPEND6
#            [RUN-TESTS-OPTION...]
# Build twheel and its test modules against the test kernel in KDIR, into
# build/LABEL, and run every KUnit suite on that kernel in QEMU with
# twheel's default scheme, then again with scheme=6, booted with the extra
# kernel command line APPEND6 (may be empty; "-" skips that second run);
# with --only6, the scheme=6 run alone.  --lean leaves out what another
# kernel of the same make check runs the same way: TWHEEL_ONCE_TESTS.
# The guests have four CPUs, the most the test kernels allow: suite
# twheel_hotplug needs three, and the two-CPU suites meet more
# interleavings on more (on two host cores under TCG, a full run was no
# slower on four than on three).
# Each run appends its counts to COUNTS; the options go to run-tests.sh.
# Returns non-zero when the build or a run failed.
run_suites() {
	local only6= lean= label kdir counts append6 list params append m
	local status=0
	local -a mods before rest
	[ "$1" != --only6 ] || { only6=1; shift; }
	[ "$1" != --lean ] || { lean=1; shift; }
	label=$1 kdir=$2 counts=$3 append6=$4
	shift 4
	list=$("$TWHEEL_TOP/scripts/build-module.sh" "$kdir" \
		"$TWHEEL_TOP/build/$label") || return 1
	mapfile -t mods <<<"$list"
	# Suite twheel_handoff: twheel_keep loads before twheel, so that it
	# unloads after it.
	before=() rest=()
	for m in "${mods[@]:1}"; do
		[ -z "$lean" ] || ! is_once_test "$(basename "$m" .ko)" ||
			continue
		case "${m##*/}" in
		twheel_keep.ko) before+=("$m") ;;
		*) rest+=("$m") ;;
		esac
	done
	for params in "" "scheme=6"; do
		[ -z "$params" ] || [ "$append6" != - ] || continue
		[ -n "$params" ] || [ -z "$only6" ] || continue
		append=
		[ -z "$params" ] || append=$append6
		"$TWHEEL_TOP/scripts/run-tests.sh" "$@" \
			--kernel "$kdir/arch/x86/boot/bzImage" \
			--label "$label${params:+ $params}${append:+ $append}" \
			--counts "$counts" --append "$append" --cpus 4 \
			"${before[@]}" "${mods[0]}${params:+:$params}" \
			"${rest[@]}" || status=1
	done
	return $status
}

# Print "N passed, N failed" (", N skipped" when some were) summed over the
# runs counted in file $1.
print_counts() {
	awk '/^failed: / { print; next }
	     { p += $1; f += $2; s += $3 }
	     END { printf "%d passed, %d failed%s\n", p, f,
		   s ? sprintf(", %d skipped", s) : "" }' "$1"
}
