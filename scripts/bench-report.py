#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a bench guest's console into bench/results/.

Usage: bench-report.py CONSOLE_LOG RESULTS_DIR KERNEL_NAME

Writes fig9.csv (facility,scheme,n,ns_per_pair), memory.csv
(facility,bytes), one fig9-FACILITY-SCHEME.dat per line of the plot, and
results.md: the Fig. 9 table and each target of the benchmark issue with
the measured ratio and whether it was met.  Every figure is from this one
guest boot.
"""

import collections
import re
import sys

log, out, kernel = sys.argv[1:4]
prefix = re.compile(r'^\[\s*\d+\.\d+\]\s*')
fig9 = {}
memory = collections.OrderedDict()
for raw in open(log, errors='replace'):
    line = prefix.sub('', raw.strip())
    m = re.match(r'twheel_bench: fig9,(\w+),([67-]),(\d+),(\d+)$', line)
    if m:
        fig9[(m.group(1), m.group(2), int(m.group(3)))] = int(m.group(4))
    m = re.match(r'twheel_bench: memory,(\w+),(\d+)$', line)
    if m:
        memory[m.group(1)] = int(m.group(2))
    m = re.match(r'bytes: callout (\d+), timeout entry (\d+)$', line)
    if m:
        memory['twheel_setcallout'] = int(m.group(1))
        memory['twheel_timeout'] = int(m.group(2))
if not fig9:
    sys.exit('bench-report.py: no fig9 lines in ' + log)

series = sorted({(f, s) for f, s, _ in fig9}, key=lambda x: (x[0], x[1]))
ns = sorted({n for _, _, n in fig9})

with open(f'{out}/fig9.csv', 'w') as f:
    f.write('facility,scheme,n,ns_per_pair\n')
    for (fac, sch, n), v in sorted(fig9.items()):
        f.write(f'{fac},{sch},{n},{v}\n')
with open(f'{out}/memory.csv', 'w') as f:
    f.write('facility,bytes\n')
    for fac, b in memory.items():
        f.write(f'{fac},{b}\n')
for fac, sch in series:
    name = f'{fac}-{sch}' if sch != '-' else fac
    with open(f'{out}/fig9-{name}.dat', 'w') as f:
        for n in ns:
            if (fac, sch, n) in fig9:
                f.write(f'{n} {fig9[(fac, sch, n)]}\n')


def get(fac, sch, n):
    return fig9.get((fac, sch, n))


def ratio(a, b):
    return None if not a or not b else a / b


rows = []


def target(what, value, ok, note=''):
    shown = 'n/a' if value is None else f'{value:.2f}'
    verdict = 'not measured' if value is None else ('met' if ok else 'MISSED')
    rows.append(f'| {what} | {shown} | {verdict} | {note} |')


for sch in ('6', '7'):
    worst = None
    for n in ns:
        r = ratio(get('twheel_setcallout', sch, n), get('timer_list', '-', n))
        if r is not None:
            worst = r if worst is None else max(worst, r)
    target(f'setcallout pair / timer_list pair, worst n (scheme {sch})',
           worst, worst is not None and worst <= 1.0, 'at most 1.0')
    best = None
    for n in ns:
        if n < 100000:
            continue
        r = ratio(get('hrtimer', '-', n), get('twheel_setcallout', sch, n))
        if r is not None:
            best = r if best is None else min(best, r)
    target(f'hrtimer pair / setcallout pair, worst n >= 10^5 (scheme {sch})',
           best, best is not None and best >= 1.5, 'at least 1.5')
    r = ratio(get('twheel_setcallout', sch, max(ns)),
              get('twheel_setcallout', sch, min(ns)))
    target(f'setcallout pair at n = {max(ns)} / at n = {min(ns)} '
           f'(scheme {sch})', r, r is not None and r <= 1.5, 'at most 1.5')
    worst = None
    for n in ns:
        r = ratio(get('twheel_timeout', sch, n),
                  get('twheel_setcallout', sch, n))
        if r is not None:
            worst = r if worst is None else max(worst, r)
    target(f'timeout pair / setcallout pair, worst n (scheme {sch})', worst,
           worst is not None and worst <= 1.3, 'at most 1.3')
    r = ratio(get('bsd_list', '-', 10000), get('twheel_setcallout', sch, 10000))
    target(f'bsd_list pair / setcallout pair at n = 10^4 (scheme {sch})', r,
           r is not None and r >= 100, 'at least 100')

with open(f'{out}/results.md', 'w') as f:
    f.write(f'Fig. 9, ns per cancel+set pair, on {kernel} under QEMU TCG '
            '(software emulation: compare within the table):\n\n')
    heads = [f'{fac} ({sch})' if sch != '-' else fac for fac, sch in series]
    f.write('| n | ' + ' | '.join(heads) + ' |\n')
    f.write('| ---: | ' + ' | '.join('---:' for _ in heads) + ' |\n')
    for n in ns:
        cells = [str(get(fac, sch, n) or '') for fac, sch in series]
        f.write(f'| {n} | ' + ' | '.join(cells) + ' |\n')
    f.write('\nBytes per outstanding timer:\n\n| facility | bytes |\n'
            '| --- | ---: |\n')
    for fac, b in memory.items():
        f.write(f'| {fac} | {b} |\n')
    cb, te = memory.get('twheel_setcallout'), memory.get('twheel_timeout')
    target('bytes per struct callout', cb, cb is not None and cb <= 48,
           'at most 48')
    target('bytes per timeout() entry', te, te is not None and te <= 64,
           'at most 64')
    f.write('\nTargets:\n\n| target | measured | verdict | goal |\n'
            '| --- | ---: | --- | --- |\n')
    f.write('\n'.join(rows) + '\n')
print(open(f'{out}/results.md').read())
