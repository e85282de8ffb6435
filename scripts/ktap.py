#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one guest's console log: KUnit results and kernel health.

Usage: ktap.py LOG [--label NAME] [--counts FILE] [--expect-suites N]

Reads the serial console of a guest booted by scripts/qemu-run.sh, prints
one line per KUnit suite and every problem found, then a final line
"N passed, N failed" (", N skipped" when some were) counting KUnit cases.
A parameterised case counts once, however many parameters it runs.

Exit status is 1 when any case failed, a suite stopped before its plan was
complete, no case ran, the harness reported a module that did not load or
unload, the guest did not reach its end, the console holds a kernel
warning, BUG, oops, KASAN, KCSAN, lockdep or debug-objects report, or
twheel unloaded with callouts still pending; otherwise 0.

A test that provokes a report on purpose announces it on the console:
"twheel-expect: begin REGEX" before and "twheel-expect: end" after.  In
between, kernel warnings, backtraces and debug-objects reports are
excused, but only if a line matches REGEX; if none does, that is a
problem.  "twheel-expect: later REGEX" asks for a line matching REGEX
anywhere after it.  "twheel-expect: line REGEX" asks for one too, and
excuses that one line, whatever it reports, and nothing else.

The KTAP grammar followed is the kernel's Documentation/dev-tools/ktap.rst;
tools/testing/kunit/kunit.py parse is the reference implementation.
"""

import argparse
import re
import sys

PRINTK_PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(not ok|ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(\S+)(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)$')
SUBTEST = re.compile(r'^# Subtest: (.+)$')

# What the kernel prints when something went wrong, whatever the tests said.
# The most specific come first: a line is named after the first that matches.
SPLATS = [
    (re.compile(r'DEBUG_LOCKS_WARN_ON|possible (recursive|circular) locking'
                r'|inconsistent lock state|register non-static key'
                r'|turning off the locking correctness validator'),
     'lockdep report'),
    (re.compile(r'KASAN'), 'KASAN report'),
    # "BUG: KCSAN: data-race in f / g", or "assert: race" for an
    # ASSERT_EXCLUSIVE_*() that failed; the kernel BUG pattern would take
    # it otherwise.
    (re.compile(r'BUG: KCSAN:'), 'KCSAN report'),
    (re.compile(r'UBSAN'), 'UBSAN report'),
    (re.compile(r'ODEBUG'), 'debug-objects report'),
    (re.compile(r'list_(add|del) corruption'), 'list corruption'),
    (re.compile(r'twheel: unloading with .* pending'),
     'callouts leaked at unload'),
    (re.compile(r'rcu.*(stall|INFO)|INFO: task .* blocked'), 'stall'),
    (re.compile(r'-+\[ cut here \]-+'), 'kernel warning'),
    (re.compile(r'\bWARNING:'), 'kernel warning'),
    (re.compile(r'\bBUG[: ]'), 'kernel BUG'),
    (re.compile(r'\bOops\b'), 'kernel oops'),
    (re.compile(r'general protection fault'), 'kernel oops'),
    (re.compile(r'Kernel panic'), 'kernel panic'),
    (re.compile(r'Call Trace:'), 'kernel backtrace'),
]

HARNESS = 'twheel-harness:'
DONE = HARNESS + ' done'
EXPECT = 'twheel-expect: '
# What an announced window may excuse; anything else is still a problem.
EXCUSABLE = {'kernel warning', 'kernel backtrace', 'debug-objects report'}


class Suite:
    def __init__(self, name, indent):
        self.name = name
        self.indent = indent
        self.plan = None
        self.cases = {'ok': 0, 'not ok': 0, 'skip': 0}
        self.failed_cases = []     # (name, the case's first diagnostics)
        self.diag = []             # diagnostics since the last case ended
        self.result = None


def first_failure(diag):
    """The lines of a failed case's first failed expectation, at most 8."""
    starts = [i for i, d in enumerate(diag) if 'FAILED at' in d] + [None]
    return diag[starts[0]:starts[1]][:8] if starts[0] is not None else \
        diag[-8:]


def strip(line):
    return PRINTK_PREFIX.sub('', line.rstrip('\r\n'))


def parse(lines):
    """Return (suites, problems, done)."""
    suites = []
    problems = []
    current = None
    done = False
    window = None       # [regex, matched] while a report is announced
    later = []          # regexes still to be matched by a later line
    excuse = []         # the same, each excusing the line it matches

    for raw in lines:
        line = strip(raw)
        body = line.lstrip(' ')
        indent = len(line) - len(body)

        if body.startswith(EXPECT):
            kind, _, arg = body[len(EXPECT):].partition(' ')
            if kind == 'begin':
                window = [re.compile(arg), False]
            elif kind == 'end' and window:
                if not window[1]:
                    problems.append('expected report not seen: '
                                    + window[0].pattern)
                window = None
            elif kind == 'later':
                later.append(re.compile(arg))
            elif kind == 'line':
                excuse.append(re.compile(arg))
            continue
        later = [r for r in later if not r.search(body)]
        hit = next((r for r in excuse if r.search(body)), None)
        if hit:
            excuse.remove(hit)
            continue
        if window and window[0].search(body):
            window[1] = True

        for pattern, what in SPLATS:
            if pattern.search(body):
                if not (window and what in EXCUSABLE):
                    problems.append(f'{what}: {body}')
                break

        if body.startswith(HARNESS):
            if body == DONE:
                done = True
            elif 'failed' in body or 'killed' in body:
                problems.append(body)
            continue

        m = SUBTEST.match(body)
        if m and (current is None or indent <= current.indent):
            # A suite header; deeper ones belong to parameterised cases.
            current = Suite(m.group(1).strip(), indent)
            suites.append(current)
            continue
        if current is None:
            continue

        if not RESULT.match(body) and not PLAN.match(body) and \
                not SUBTEST.match(body) and not body.startswith('KTAP'):
            # A failed expectation's lines ("# case: EXPECTATION FAILED
            # at ...", then "Expected ...").
            current.diag.append(body.lstrip('# '))

        m = PLAN.match(body)
        if m and indent == current.indent and current.plan is None:
            current.plan = int(m.group(1))
            continue

        m = RESULT.match(body)
        if not m:
            continue
        status, name, directive = m.group(1), m.group(3), m.group(4)
        skipped = directive is not None and directive.upper() == 'SKIP'
        if indent == current.indent:
            # A case of the current suite.
            if skipped:
                current.cases['skip'] += 1
            else:
                current.cases[status] += 1
                if status == 'not ok':
                    current.failed_cases.append((name, first_failure(
                        current.diag)))
            current.diag = []
        elif indent < current.indent and name == current.name:
            current.result = 'skip' if skipped else status
            current = None

    if window:
        problems.append('announced report not closed: ' + window[0].pattern)
    problems.extend('expected line not seen: ' + r.pattern
                    for r in later + excuse)
    return suites, problems, done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('log')
    ap.add_argument('--label', default='')
    ap.add_argument('--counts', help='append "passed failed skipped" here')
    ap.add_argument('--expect-suites', type=int,
                    help='fail unless exactly this many suites reported')
    ap.add_argument('--health-only', action='store_true',
                    help='judge only kernel health and the guest reaching '
                         'its end; no KUnit case is needed or counted')
    args = ap.parse_args()

    with open(args.log, errors='replace') as f:
        suites, problems, done = parse(f)

    tag = f'[{args.label}] ' if args.label else ''
    passed = failed = skipped = 0
    for s in suites:
        c = s.cases
        ran = c['ok'] + c['not ok'] + c['skip']
        passed += c['ok']
        failed += c['not ok']
        skipped += c['skip']
        verdict = 'ok' if s.result == 'ok' and not c['not ok'] else \
            'skipped' if s.result == 'skip' else 'FAILED'
        print(f'{tag}{s.name}: {c["ok"]} passed, {c["not ok"]} failed, '
              f'{c["skip"]} skipped: {verdict}')
        for name, _ in s.failed_cases:
            print(f'{tag}  failed case: {name}')
        if s.result is None:
            problems.append(f'suite {s.name} did not finish')
        elif s.result == 'not ok' and not c['not ok']:
            problems.append(f'suite {s.name} reported failure')
        if s.plan is not None and ran != s.plan:
            problems.append(f'suite {s.name} planned {s.plan} cases, '
                            f'reported {ran}')

    if args.expect_suites is not None and len(suites) != args.expect_suites:
        problems.append(f'expected {args.expect_suites} suites, '
                        f'saw {len(suites)}')
    if passed + failed == 0 and not args.health_only:
        problems.append('no KUnit case ran')
    if not done:
        problems.append('the guest did not reach the end of its script')

    # Splats come in bursts; show the first few lines of each kind.
    shown = {}
    for p in problems:
        kind = p.split(':')[0]
        shown[kind] = shown.get(kind, 0) + 1
        if shown[kind] <= 3:
            print(f'{tag}problem: {p}')
        elif shown[kind] == 4:
            print(f'{tag}problem: {kind}: (more lines in {args.log})')

    if args.counts:
        # make check repeats the failures beside its totals, so that the
        # last lines of a long run say what failed and why.
        with open(args.counts, 'a') as f:
            f.write(f'{passed} {failed} {skipped}\n')
            for s in suites:
                for name, diag in s.failed_cases:
                    f.write(f'failed: {tag}{s.name}.{name}\n')
                    f.writelines(f'failed:     {d}\n' for d in diag)
            for p in problems[:3]:
                f.write(f'failed: {tag}problem: {p[:200]}\n')

    if args.health_only:
        print(f'{tag}console: ' + ('clean' if not problems else
                                   f'{len(problems)} problems'))
        return 1 if problems else 0
    tail = f', {skipped} skipped' if skipped else ''
    print(f'{passed} passed, {failed} failed{tail}')
    return 1 if failed or problems else 0


if __name__ == '__main__':
    sys.exit(main())
