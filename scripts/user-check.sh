#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user-check.sh [SECONDS] - "make user-check", "make fuzz": the timing
# wheels of twheel_core.c in user space, under AddressSanitizer and UBSan,
# against the KUnit suites' reference model (user/fuzz.c over
# kunit/model.c and the stand-in kernel headers of user/shim/).
#
# One binary, build/user/fuzz/fuzz, runs three ways:
#   - deterministic: the model's directed scenarios on every geometry of
#     its table ("fuzz scenarios"), a few seeds of random runs on each,
#     then random geometries of each scheme ("fuzz seeded ...");
#   - libFuzzer, for SECONDS (default: FUZZ_TIME, else 60), from the corpus
#     kept in build/user/fuzz/corpus/, which grows from run to run and is
#     merged down to the inputs that add coverage once it passes 3000.  A
#     crash leaves its input in build/user/fuzz/crash-*, which
#     "build/user/fuzz/fuzz FILE" runs again alone;
#   - over copies of the core with a bug planted in each, each of which
#     must fail the scenarios, fail seeds 1..20, and crash the fuzzer
#     from an empty corpus within FUZZ_BUG_TIME seconds (default 120),
#     each with a complaint of the right kind:
#
#   slot   placement (place()) puts an entry in the slot after the right
#          one: it runs late or never
#   busy   slot_get() does not set the slot's busy bit: the wheel does not
#          see the slot's work
#   order  an entry placed in a slot goes to the head of its list, not the
#          tail: same-tick entries run newest first
#   early  Scheme 6 runs the entries it finds in a slot, those due on a
#          later rotation too
#   warn   twheel_destroy() warns of an empty wheel, not of a full one
#
# The bugs are planted by editing copies of twheel_core.c and
# twheel_core.h in build/user/fuzz/, never the files, at
# text the core keeps however its hot paths are written; if an edit finds
# nothing to change the script fails, so that a rewrite cannot leave the
# self-test testing nothing.  Exits
# non-zero if the clean core fails, or a planted bug goes unnoticed.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

start=$(date +%s)
secs=${1:-${FUZZ_TIME:-60}}
bug_secs=${FUZZ_BUG_TIME:-120}
"$here/install-deps.sh" clang-14 libclang-rt-14-dev
out=$TWHEEL_TOP/build/user/fuzz
mkdir -p "$out/corpus"
cd "$TWHEEL_TOP"

# build BINARY CORE [INCLUDE] - the checker over the core in file CORE,
# with the headers of directory INCLUDE before the tree's.
build() {
	clang-14 -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -Wall -Wextra \
		-Wno-unused-parameter -Wno-sign-compare \
		-Wno-missing-field-initializers -Werror \
		-Iuser/shim ${3:+-I"$3"} -I. -Iinclude -Ikunit -o "$1" \
		user/fuzz.c kunit/model.c \
		kunit/model_scenarios.c "$2" user/shim/shim.c ||
		die "building $1 failed"
}

# plant BUG - write $out/BUG/twheel_core.c and $out/BUG/twheel_core.h, the
# core and its header with the inline hot paths, with BUG in one.
plant() {
	local dir=$out/$1 inl=twheel_core.h
	mkdir -p "$dir"
	cp twheel_core.c "$dir/twheel_core.c"
	cp "$inl" "$dir/$inl"
	case $1 in
	slot)
		# Placement puts an entry in the slot after the right one,
		# within its level: each "pl.slot =" of place() and
		# place_any().
		sed -E '/^(place|place_any)\(/,/^}/{
			/pl\.slot = /{
				s/\(q & mask\)/((q + 1) \& mask)/
				s/= expires & mask;/= (expires + 1) \& mask;/
				s/lvl_slot\(w, q, n\)/lvl_slot(w, q + 1, n)/
			}
		}' "$inl" >"$dir/$inl"
		[ "$(diff "$inl" "$dir/$inl" | grep -c '^>')" = 3 ] ||
			die "planting bug 'slot': not all three placements changed"
		;;
	busy)
		sed '/^static.* slot_get(/,/^}/s/|= BIT_MASK(i);/\&= ~0UL;/' \
			"$inl" >"$dir/$inl"
		;;
	order)
		# Placement links at the head; the tail linker goes unused.
		sed -e 's/entry_link_tail(e, \(&w->slot\[pl\.slot\]\));/list_add(\&e->node, \1);/' \
		    -e 's/^static inline void entry_link_tail(/__attribute__((unused)) &/' \
			"$inl" >"$dir/$inl"
		grep -q 'list_add(&e->node, &w->slot\[pl\.slot\]);' "$dir/$inl" ||
			die "planting bug 'order': placement no longer links with entry_link_tail()"
		;;
	early)
		sed 's/if (e->expires != w->now) {/if (e->expires < w->now) {/' \
			twheel_core.c >"$dir/twheel_core.c"
		;;
	warn)
		sed '/^void twheel_destroy(/,/^}/s/WARN_ON_ONCE(w->count)/WARN_ON_ONCE(!w->count)/' \
			twheel_core.c >"$dir/twheel_core.c"
		;;
	esac
	! { cmp -s twheel_core.c "$dir/twheel_core.c" &&
	    cmp -s "$inl" "$dir/$inl"; } ||
		die "planting bug '$1': its edit no longer applies to the core"
}

# fuzz BINARY SECONDS LOG ARGS... - run the fuzzer; its status.
fuzz() {
	local bin=$1 time=$2 log=$3
	shift 3
	nice "$bin" -max_total_time="$time" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 "$@" >"$log" 2>&1
}

build "$out/fuzz" twheel_core.c

status=0
note "fuzz scenarios"
"$out/fuzz" scenarios || status=1
seeded() {
	note "fuzz seeded $*"
	"$out/fuzz" seeded "$@" || status=1
}
# Each geometry of the table, small and odd ones first, then random ones.
for g in 6:2 6:4 6:16 6:256 6:4096 7:2,2 7:2,3,2 7:2,1000,3 7:3,5,7,2 \
	 7:16,16 7:60,60,24 7:60,60,24,100 7:64,64,64,64 7:256,256,256 \
	 7:4,2,3,2,2,2,2,5; do
	seeded -g "$g" -s 1 -n 2 -o 10000
done
seeded -S 6 -s 100 -n 4
seeded -S 7 -s 100 -n 4
[ $status -eq 0 ] || die "the deterministic runs failed on the clean core"

# Every run adds to the corpus; keep it to the inputs that cover something.
if [ "$(find "$out/corpus" -type f | wc -l)" -gt 3000 ]; then
	note "merging the corpus"
	rm -rf "$out/corpus.new"
	mkdir "$out/corpus.new"
	fuzz "$out/fuzz" 600 "$out/merge.log" -merge=1 "$out/corpus.new" \
		"$out/corpus" || die "merging the corpus failed: see $out/merge.log"
	rm -rf "$out/corpus"
	mv "$out/corpus.new" "$out/corpus"
fi
note "fuzzing the core for $secs s (corpus: ${out#"$TWHEEL_TOP"/}/corpus)"
if ! fuzz "$out/fuzz" "$secs" "$out/clean.log" \
	-artifact_prefix="$out/" "$out/corpus"; then
	grep -E -A3 'fuzz: FAIL|ERROR|WARNING' "$out/clean.log" | head -20 >&2
	die "the fuzzer crashed on the clean core: see $out/clean.log; \
$out/fuzz CRASH-FILE runs the input again"
fi
note "clean: $(grep -Eo 'stat::number_of_executed_units: *[0-9]+' \
	"$out/clean.log" | grep -Eo '[0-9]+$') inputs, \
$(find "$out/corpus" -type f | wc -l) in the corpus, no failure"

# Each planted bug must fail each way, with a complaint of its kind.
for b in slot:'expired late|seed .* did not expire|next work' \
	 busy:'expired late|seed .* did not expire|next work' \
	 order:'expired ahead|expired out of order' early:'expired early' \
	 warn:'WARN_ON fired'; do
	bug=${b%%:*} want=${b#*:} dir=$out/${b%%:*}
	plant "$bug"
	build "$dir/fuzz" "$dir/twheel_core.c" "$dir"
	rm -rf "$dir/corpus" "$dir/crash-"*
	mkdir -p "$dir/corpus"
	for how in scenarios seeds fuzzer; do
		case $how in
		scenarios) args=(scenarios) ;;
		seeds) args=(seeded -s 1 -n 20 -o 2000) ;;
		fuzzer) args=(-max_total_time="$bug_secs" -timeout=20
			      -rss_limit_mb=2048 -seed=1
			      -artifact_prefix="$dir/" "$dir/corpus") ;;
		esac
		t0=$(date +%s.%N)
		if nice "$dir/fuzz" "${args[@]}" >"$dir/$how.log" 2>&1; then
			note "self-test: planted bug '$bug' went unnoticed by the $how"
			status=1
			break
		fi
		took=$(echo "$(date +%s.%N) - $t0" | bc)
		msg=$(grep -m1 'fuzz: FAIL' "$dir/$how.log") || msg=
		if ! grep -Eq "^fuzz: FAIL: ($want)" <<<"$msg"; then
			grep -E -A3 'fuzz: FAIL|ERROR' "$dir/$how.log" | head -20 >&2
			note "self-test: planted bug '$bug' failed the $how, but not as '$want'"
			status=1
			break
		fi
		note "self-test: planted bug '$bug' caught by the $how in \
$(printf %.1f "$took") s: ${msg#fuzz: FAIL: }"
	done
done

note "user-check took $(( $(date +%s) - start )) s"
[ $status -eq 0 ] || die "user-check failed"
