#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user-fuzz.sh [SECONDS] - "make fuzz": the timing wheels of twheel_core.c
# under libFuzzer (user/fuzz.c), with AddressSanitizer and UBSan, then the
# same fuzzer against three copies of the core with a bug planted in each.
#
# The clean core is fuzzed for SECONDS (default: FUZZ_TIME, else 60), from
# the corpus kept in build/user/fuzz/corpus/, which grows from run to run
# and is merged down to the inputs that add coverage once it passes 3000.
# A crash leaves its input in build/user/fuzz/crash-*, which
# "build/user/fuzz/fuzz FILE" runs again alone.  Then each planted bug must
# crash the fuzzer, starting from an empty corpus, within FUZZ_BUG_TIME
# seconds (default 120), with a complaint of the right kind:
#
#   slot   placement (locate()) puts an entry in the slot after the right
#          one: it runs late or never (late, lost, next_work)
#   busy   slot_get() does not set the slot's busy bit: the wheel does not
#          see the slot's work (lost, late, next_work)
#   order  an entry placed in a slot goes to the head of its list, not the
#          tail: same-tick entries run newest first (order)
#
# The bugs are planted by editing a copy of twheel_core.c in build/user/
# fuzz/, never the file itself, at text the core keeps however its hot
# paths are written; if an edit finds nothing to change the script fails,
# so that a rewrite cannot leave the self-test testing nothing.  Exits
# non-zero if the clean core crashes or a planted bug goes unnoticed.

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

# build BINARY CORE - the fuzzer over the core in file CORE.
build() {
	clang-14 -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -Wall -Wextra \
		-Wno-unused-parameter -Wno-sign-compare \
		-Wno-missing-field-initializers -Werror \
		-Iuser/shim -Iinclude -o "$1" user/fuzz.c "$2" user/shim/shim.c ||
		die "building $1 failed"
}

# plant BUG - write $out/BUG/twheel_core.c, the core with BUG in it.
plant() {
	local dir=$out/$1
	mkdir -p "$dir"
	case $1 in
	slot)
		# Placement puts an entry in the slot after the right one,
		# within its level: each "*slot =" of locate() and
		# locate_any().
		sed -E '/^static.* locate(_any)?\(/,/^}/{
			/\*slot = /{
				s/\(q & mask\)/((q + 1) \& mask)/
				s/= expires & mask;/= (expires + 1) \& mask;/
				s/lvl_slot\(w, q, n\)/lvl_slot(w, q + 1, n)/
			}
		}' twheel_core.c >"$dir/twheel_core.c"
		[ "$(diff twheel_core.c "$dir/twheel_core.c" | grep -c '^>')" = 3 ] ||
			die "planting bug 'slot': not all three placements changed"
		;;
	busy)
		sed '/^static.* slot_get(/,/^}/s/__set_bit([^;]*);/do { } while (0);/' \
			twheel_core.c >"$dir/twheel_core.c"
		;;
	order)
		# Placement links at the head; the tail linker goes unused.
		sed -e 's/entry_link_tail(e, \(&w->slot\[i\]\));/list_add(\&e->node, \1);/' \
		    -e 's/^static inline void entry_link_tail(/__attribute__((unused)) &/' \
			twheel_core.c >"$dir/twheel_core.c"
		grep -q 'list_add(&e->node, &w->slot\[i\]);' "$dir/twheel_core.c" ||
			die "planting bug 'order': placement no longer links with entry_link_tail()"
		;;
	esac
	! cmp -s twheel_core.c "$dir/twheel_core.c" ||
		die "planting bug '$1': its edit no longer applies to twheel_core.c"
}

# fuzz BINARY SECONDS LOG ARGS... - run the fuzzer; its status.
fuzz() {
	local bin=$1 time=$2 log=$3
	shift 3
	nice "$bin" -max_total_time="$time" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 "$@" >"$log" 2>&1
}

build "$out/fuzz" twheel_core.c
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

status=0
for b in slot:'late|lost|next_work' busy:'lost|late|next_work' \
	 order:'order'; do
	bug=${b%%:*} want=${b#*:}
	plant "$bug"
	build "$out/$bug/fuzz" "$out/$bug/twheel_core.c"
	rm -rf "$out/$bug/corpus" "$out/$bug/crash-"*
	mkdir -p "$out/$bug/corpus"
	t0=$(date +%s.%N)
	if fuzz "$out/$bug/fuzz" "$bug_secs" "$out/$bug/log" -seed=1 \
		-artifact_prefix="$out/$bug/" "$out/$bug/corpus"; then
		note "self-test: planted bug '$bug' went unnoticed in $bug_secs s"
		status=1
		continue
	fi
	took=$(echo "$(date +%s.%N) - $t0" | bc)
	msg=$(grep -m1 'fuzz: FAIL' "$out/$bug/log") || msg=
	if ! grep -Eq "^fuzz: FAIL ($want):" <<<"$msg"; then
		grep -E -A3 'fuzz: FAIL|ERROR' "$out/$bug/log" | head -20 >&2
		note "self-test: planted bug '$bug' crashed the fuzzer, but not as '$want'"
		status=1
		continue
	fi
	note "self-test: planted bug '$bug' caught in $(printf %.1f "$took") s, \
$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$out/$bug/log" |
	grep -Eo '[0-9]+$' || echo '?') inputs: ${msg#fuzz: }"
done

note "user-fuzz took $(( $(date +%s) - start )) s"
[ $status -eq 0 ] || die "user-fuzz failed"
