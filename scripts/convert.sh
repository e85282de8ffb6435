#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# convert.sh [--in-place] FILE|DIR...
#
# Convert kernel C files from struct timer_list to twheel's timer_list-
# shaped layer (include/twheel_timer.h) with the semantic patch
# scripts/twheel.cocci: every FILE, and every *.c under each DIR (headers
# are not converted: a struct in a header is the business of every file
# that includes it).  Prints the changes as a unified diff, or with
# --in-place writes them into the files.
#
# A file is converted whole or not at all.  Whatever of the timer_list API
# is left in a file after the semantic patch - what it refused (its
# reasons), calls in macros, code Coccinelle could not parse - is listed on
# stderr, one "not converted: FILE:LINE: ..." line each, and the file is
# left as it was.  Continuation lines aligned with the parenthesis of a
# renamed call are realigned.  Exits 0 when every file converted (or had
# no timers), 1 when something was left.  Needs spatch (Debian package
# coccinelle) and python3; no kernel tree.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage="usage: $0 [--in-place] FILE|DIR..."
inplace=
case "${1:-}" in
--in-place) inplace=1; shift ;;
-*) die "$usage" ;;
esac
[ $# -ge 1 ] || die "$usage"
command -v spatch >/dev/null || die "no spatch: apt-get install coccinelle"

files=()
for arg in "$@"; do
	if [ -d "$arg" ]; then
		mapfile -t -O "${#files[@]}" files < \
			<(find "$arg" -name '*.c' -type f | LC_ALL=C sort)
	elif [ -f "$arg" ]; then
		files+=("$arg")
	else
		die "no such file or directory: $arg"
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Hints for spatch's C parser: the kernel's block macros of <linux/
# cleanup.h>, which Coccinelle 1.1 does not know, parse as loops.
cat >"$tmp/macros.h" <<'EOF'
#define scoped_guard(_name, args...) YACFE_ITERATOR
#define scoped_cond_guard(_name, _fail, args...) YACFE_ITERATOR
EOF

# check FILE NEW: realign the continuation lines of NEW, what spatch made
# of FILE; then print what NEW has left of the timer_list API, at its line
# in FILE, as "not converted: FILE:LINE: CODE".
check() {
	python3 - "$@" <<'PY'
import difflib
import re
import sys

name, new_path = sys.argv[1:]

# The timer_list API: what the semantic patch converts, and what it does
# not.  twheel_* names do not match (\b does not split at "_").
LEFT = re.compile(r'\b(?:timer_list|TIMER_IRQSAFE|DEFINE_TIMER'
                  r'|(?:__)?TIMER(?:_PINNED)?(?:_DEFERRED)?_INITIALIZER'
                  r'|timer_setup(?:_on_stack)?'
                  r'|(?:destroy_timer|timer_destroy)_on_stack'
                  r'|timer_init_key(?:_on_stack)?|__timer_init(?:_on_stack)?'
                  r'|from_timer|timer_container_of'
                  r'|mod_timer(?:_pending)?|timer_reduce'
                  r'|add_timer(?:_on|_local|_global)?'
                  r'|del_timer(?:_sync)?|del_singleshot_timer_sync'
                  r'|try_to_del_timer_sync|timer_delete(?:_sync(?:_try)?)?'
                  r'|timer_shutdown(?:_sync)?|timer_pending'
                  r'|(?:__)?init_timer(?:_key|_on_stack(?:_key)?'
                  r'|_deferrable|_pinned(?:_deferrable)?)?'
                  r'|(?:__)?setup_(?:pinned_)?(?:deferrable_)?timer'
                  r'(?:_on_stack)?)\b')
LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
                     r'|/\*.*?\*/|//[^\n]*', re.S)


def blank(m):
    """A literal or comment as blanks of the same width, quotes kept."""
    s = m.group(0)
    inner = re.sub(r'[^\n\t]', ' ', s)
    return s[0] + inner[1:-1] + s[-1] if s[0] in '"\'' else inner


def code(text):
    """text without comments and literals, lines and columns kept."""
    return LITERAL.sub(blank, text).splitlines()


def parens(line, stack):
    """Push the column of each '(' line leaves open on stack, pop closed."""
    col = 0
    for ch in line:
        if ch == '(':
            stack.append(col)
        elif ch == ')' and stack:
            stack.pop()
        col = (col // 8 + 1) * 8 if ch == '\t' else col + 1


def indent(line):
    return len(line) - len(line.lstrip(' \t'))


old_text, new_text = open(name).read(), open(new_path).read()
old, new = old_text.splitlines(True), new_text.splitlines(True)
old_code, new_code = code(old_text), code(new_text)

# A renamed call moves its '(': the lines aligned one column after it
# follow, as long as it is open.  Only lines the semantic patch kept one
# for one are looked at.  was[j] is the line of FILE that line j of NEW
# stands for: a line left in NEW is reported there, as FILE stays.
match = difflib.SequenceMatcher(None, old, new, autojunk=False)
was = {}
open_old, open_new = [], []
for tag, i1, i2, j1, j2 in match.get_opcodes():
    for j in range(j1, j2):
        was[j] = min(i1 + j - j1, max(i2 - 1, i1))
    if tag not in ('equal', 'replace') or i2 - i1 != j2 - j1:
        open_old, open_new = [], []
        continue
    for i, j in zip(range(i1, i2), range(j1, j2)):
        if (open_old and len(open_old) == len(open_new) and
                open_old[-1] != open_new[-1] and old[i].strip() and
                len(old[i][:indent(old[i])].expandtabs(8)) == open_old[-1] + 1):
            col = open_new[-1] + 1
            lead = '\t' * (col // 8) + ' ' * (col % 8)
            new[j] = lead + new[j][indent(new[j]):]
            new_code[j] = lead + new_code[j][indent(new_code[j]):]
        parens(old_code[i], open_old)
        parens(new_code[j], open_new)
open(new_path, 'w').write(''.join(new))

left = [was[j] for j, line in enumerate(new_code) if LEFT.search(line)]
for i in left:
    print(f"not converted: {name}:{i + 1}: {old[i].strip()}")
if new_text != old_text:
    if left:
        print(f"not converted: {name}: the semantic patch converted the "
              "rest, which alone would not compile")
    elif not re.search(r'^#include <twheel_timer\.h>$', new_text, re.M):
        print(f"not converted: {name}: no #include <linux/...> to put "
              "#include <twheel_timer.h> after")
PY
}

status=0 converted=0 left=0
for f in "${files[@]}"; do
	new=$tmp/new.c
	# --max-width: let a renamed call run to checkpatch's 100 columns
	# rather than have Coccinelle break the line.
	if ! spatch --sp-file "$here/twheel.cocci" --very-quiet --no-show-diff \
		--macro-file "$tmp/macros.h" --max-width 100 -o "$new" "$f" \
		>"$tmp/out" 2>"$tmp/err"; then
		cat "$tmp/out" "$tmp/err" >&2
		echo "not converted: $f: spatch failed" >&2
		status=1 left=$((left + 1))
		continue
	fi
	# The semantic patch's refusals, by line; then anything else spatch
	# said, which it should not have.
	{
		grep -F ': refused: ' "$tmp/err" | LC_ALL=C sort -t: -k2,2n -k3 |
			uniq | sed 's/^/not converted: /'
		cat "$tmp/err" "$tmp/out" | grep -v -F ': refused: ' |
			sed "s|^|not converted: $f: spatch: |"
	} >"$tmp/report" || true
	check "$f" "$new" >>"$tmp/report"
	if [ -s "$tmp/report" ]; then
		cat "$tmp/report" >&2
		status=1 left=$((left + 1))
	elif ! cmp -s "$f" "$new"; then
		converted=$((converted + 1))
		if [ -n "$inplace" ]; then
			cat "$new" >"$f"
		else
			diff -u --label "a/${f#./}" --label "b/${f#./}" "$f" "$new" || true
		fi
	fi
done
note "convert: ${#files[@]} files: $converted converted," \
	"$left left as they were"
exit $status
