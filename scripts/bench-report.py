#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a bench guest's console into bench/results/.

Usage: bench-report.py CONSOLE_LOG RESULTS_DIR KERNEL_NAME

The modules print "twheel_bench: KIND,FIELD,..." lines; each kind has a
section here, one function each, that writes its CSV (with a header row),
any plot, and its part of results.md, and adds its targets to the targets
table at the end.  A section whose lines are absent is left out, and its
old files are removed, so that every figure in RESULTS_DIR is from this
one guest boot.  A line "twheel_bench: icount,SHIFT" (bench.sh ICOUNT=1)
says that the guest's clock counted instructions: the texts and tables
then give instructions where they would give ns.

  fig9        fig9.csv, fig9-*.dat, fig9.png       bench/twheel_bench.c
              (and the pair against a baseline: the
              tracepoints and lock-associated callouts)
  lone        lone.csv, loneidle.csv               bench/twheel_bench.c
  memory      memory.csv                           bench/twheel_bench.c
  interrupts  interrupts.csv, interrupts-*.dat,    bench/twheel_live.c
              interrupts.png
  lateness    lateness.csv (with the load lines)   bench/twheel_live.c
  idle        idle.csv                             bench/twheel_live.c
  step        (results.md only)                    bench/twheel_bench.c
  clock       (results.md only)                    bench/twheel_bench.c
  ops         ops.csv, ops-*.dat, ops-*.png        bench/schemes_bench.c
  bookkeeping bookkeeping.csv, bookkeeping-*.dat,  bench/schemes_bench.c
              bookkeeping.png
  cascade     cascade.csv, cascade-*.dat,          bench/twheel_cascade.c
              cascade-probe.png, cascade-work.png

To add a section: write a function taking the Bench and returning its
Markdown (None without data), and list it in SECTIONS.
"""

import collections
import glob
import os
import random
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PRINTK = re.compile(r'^\[\s*\d+\.\d+\]\s*')
BENCH_LINE = re.compile(r'^twheel_bench: (\w+),(.*)$')
TCG = 'under QEMU TCG (software emulation, 2 vCPUs: compare within a table)'
# bench.sh ICOUNT=1: the guest's first line is "twheel_bench: icount,SHIFT".
ICOUNT = ('under QEMU TCG with -icount shift=0 (1 vCPU; the guest\'s clock '
          'advances 1 ns per instruction executed, so its "ns" are '
          'instructions, interrupts included, whatever the host\'s load)')


class Bench:
    """One guest boot's console, and what is written from it."""

    def __init__(self, log, out, kernel):
        self.out = out
        self.kernel = kernel
        self.raw = []                               # lines, no printk time
        self.lines = collections.defaultdict(list)  # kind: [[field, ...]]
        self.targets = []                           # table rows
        for line in open(log, errors='replace'):
            line = PRINTK.sub('', line.strip())
            self.raw.append(line)
            m = BENCH_LINE.match(line)
            if m:
                self.lines[m.group(1)].append(m.group(2).split(','))
        self.icount = 'icount' in self.lines
        self.where = ICOUNT if self.icount else TCG
        self.unit = 'instructions' if self.icount else 'ns'

    def rows(self, kind, nfields):
        """The fields of every well-formed KIND line."""
        return [f for f in self.lines.get(kind, []) if len(f) == nfields]

    def path(self, name):
        return os.path.join(self.out, name)

    def remove(self, *patterns):
        for p in patterns:
            for f in glob.glob(self.path(p)):
                os.remove(f)

    def csv(self, name, header, rows):
        with open(self.path(name), 'w') as f:
            f.write(','.join(header) + '\n')
            for r in rows:
                f.write(','.join(str(v) for v in r) + '\n')

    def plot(self, script, **params):
        sets = ''.join(f"; {k}='{v}'" for k, v in params.items())
        subprocess.run(['gnuplot', '-e', f"dir='{self.out}'{sets}",
                        os.path.join(HERE, script)], check=True)

    def target(self, what, value, ok, goal, fmt='.2f'):
        shown = 'n/a' if value is None else format(value, fmt)
        verdict = 'not measured' if value is None else (
            'met' if ok else 'MISSED')
        self.targets.append([what, shown, verdict, goal])


def table(heads, rows, align=None):
    """A Markdown table; columns right-aligned unless align says '---'."""
    align = align or ['---:'] * len(heads)
    out = ['| ' + ' | '.join(heads) + ' |', '| ' + ' | '.join(align) + ' |']
    out += ['| ' + ' | '.join(str(c) for c in r) + ' |' for r in rows]
    return '\n'.join(out) + '\n'


def ratio(a, b):
    return None if not a or not b else a / b


# ---- Fig. 9 and memory (bench/twheel_bench.c) ------------------------------

def fig9_runs(b):
    """{(facility, scheme, n): [ns, ...]}: every run of each point."""
    runs = collections.defaultdict(list)
    for fac, sch, n, ns in b.rows('fig9', 4):
        runs[(fac, sch, int(n))].append(int(ns))
    return runs


def fig9_points(b):
    """{(facility, scheme, n): ns}: the median of each point's runs."""
    return {k: round(statistics.median(v)) for k, v in fig9_runs(b).items()}


def fig9_section(b):
    runs = fig9_runs(b)
    fig9 = fig9_points(b)
    b.remove('fig9-*.dat')
    if not fig9:
        b.remove('fig9.csv', 'fig9.png')
        return None

    series = sorted({(f, s) for f, s, _ in fig9})
    ns = sorted({n for _, _, n in fig9})
    b.csv('fig9.csv', ['facility', 'scheme', 'n', 'ns_per_pair', 'runs'],
          [(f, s, n, v, ' '.join(map(str, runs[(f, s, n)])))
           for (f, s, n), v in sorted(fig9.items())])
    for fac, sch in series:
        name = f'{fac}-{sch}' if sch != '-' else fac
        name = name.replace(':', '-')   # LABEL:facility, a portable name
        with open(b.path(f'fig9-{name}.dat'), 'w') as f:
            for n in ns:
                if (fac, sch, n) in fig9:
                    f.write(f'{n} {fig9[(fac, sch, n)]}\n')
    b.plot('fig9.gnuplot')

    def get(fac, sch, n):
        return fig9.get((fac, sch, n))

    for sch in ('6', '7'):
        rs = [ratio(get('twheel_setcallout', sch, n),
                    get('timer_list', '-', n)) for n in ns]
        worst = max((r for r in rs if r is not None), default=None)
        b.target(f'setcallout pair / timer_list pair, worst n (scheme {sch})',
                 worst, worst is not None and worst <= 1.0, 'at most 1.0')
        b.target(f'setcallout pair / timer_list pair, worst n (scheme {sch}), '
                 'required', worst, worst is not None and worst <= 1.2,
                 'at most 1.2')
        rs = [ratio(get('hrtimer', '-', n), get('twheel_setcallout', sch, n))
              for n in ns if n >= 100000]
        best = min((r for r in rs if r is not None), default=None)
        b.target(f'hrtimer pair / setcallout pair, worst n >= 10^5 '
                 f'(scheme {sch})', best, best is not None and best >= 1.5,
                 'at least 1.5')
        r = ratio(get('twheel_setcallout', sch, max(ns)),
                  get('twheel_setcallout', sch, min(ns)))
        b.target(f'setcallout pair at n = {max(ns)} / at n = {min(ns)} '
                 f'(scheme {sch})', r, r is not None and r <= 1.5,
                 'at most 1.5')
        rs = [ratio(get('twheel_timeout', sch, n),
                    get('twheel_setcallout', sch, n)) for n in ns]
        worst = max((r for r in rs if r is not None), default=None)
        b.target(f'timeout pair / setcallout pair, worst n (scheme {sch})',
                 worst, worst is not None and worst <= 1.3, 'at most 1.3')
        r = ratio(get('bsd_list', '-', 10000),
                  get('twheel_setcallout', sch, 10000))
        b.target(f'bsd_list pair / setcallout pair at n = 10^4 '
                 f'(scheme {sch})', r, r is not None and r >= 100,
                 'at least 100')

    # BASELINE=: the same facilities on an older twheel.ko, "LABEL:name".
    for label in baseline_labels(fig9):
        for sch in ('6', '7'):
            rs = sorted(r for r in (ratio(get('twheel_setcallout', sch, n),
                                          get(f'{label}:twheel_setcallout',
                                              sch, n)) for n in ns)
                        if r is not None)
            med = rs[len(rs) // 2] if rs else None
            b.target(f'setcallout pair, this tree / {label}, median over n '
                     f'(scheme {sch})', med,
                     med is not None and med <= 1.1, 'at most 1.1')

    heads = [f'{fac} ({sch})' if sch != '-' else fac for fac, sch in series]
    rows = [[n] + [get(fac, sch, n) or '' for fac, sch in series] for n in ns]
    most = max(len(v) for v in runs.values())
    text = (f'Fig. 9, {b.unit} per cancel+set pair, on {b.kernel} '
            f'{b.where}' +
            (f'; a point measured more than once (twheel\'s pairs, up to '
             f'{most} runs) shows the median of its runs' if most > 1
             else '') + ':\n\n' + table(['n'] + heads, rows))

    def f2(v):
        return '' if v is None else f'{v:.2f}'

    rows = []
    for sch in ('6', '7'):
        for n in ns:
            cells = [ratio(get('twheel_setcallout', sch, n),
                           get('timer_list', '-', n)),
                     ratio(get('twheel_setcallout', sch, n),
                           get('hrtimer', '-', n)),
                     ratio(get('twheel_timeout', sch, n),
                           get('twheel_setcallout', sch, n))]
            if any(c is not None for c in cells):
                rows.append([sch, n] + [f2(c) for c in cells])
    if rows:
        text += ('\nThe same pairs as ratios, each from this run '
                 '(issue #11: setcallout / timer_list at most 1.0 at every '
                 'n, 1.2 required; timeout / setcallout at most 1.3):\n\n' +
                 table(['scheme', 'n', 'setcallout / timer_list',
                        'setcallout / hrtimer', 'timeout / setcallout'],
                       rows))
    return text


def baseline_labels(fig9):
    """The LABELs of "LABEL:facility" that name another twheel.ko."""
    return sorted({f.split(':')[0] for f, _, _ in fig9
                   if f.startswith('baseline-')})


def pair_cost_section(b):
    """Issue #13: the setcallout pair with the tree's tracepoints compiled
    in but off, and on lock-associated handles, against the plain pair of
    a baseline twheel.ko from before them, in the same boot."""
    runs = fig9_runs(b)
    labels = baseline_labels(runs)
    if not labels or not any(f == 'twheel_setcallout_lock'
                             for f, _, _ in runs):
        return None
    base = f'{labels[-1]}:twheel_setcallout'
    ns = sorted({n for _, _, n in runs})
    cols = [('twheel_setcallout', 'tree plain, events off'),
            ('twheel_setcallout_lock', 'tree lock-associated'),
            ('twheel_setcallout_lock_bh', 'tree lock-associated, caller '
             'holds the lock (spin_lock_bh)'),
            ('events-on:twheel_setcallout', 'tree plain, events on')]
    # Another load on the host only ever slows a run down: the fastest
    # run is the estimate, and the median says how much the rest moved.
    best = {k: min(v) for k, v in runs.items()}
    med = {k: statistics.median(v) for k, v in runs.items()}

    def f2(v):
        return '' if v is None else f'{v:.2f}'

    def ratios(point, fac, sch):
        return [ratio(point.get((fac, sch, n)), point.get((base, sch, n)))
                for n in ns]

    def median_over_n(rs):
        rs = [r for r in rs if r is not None]
        return statistics.median(rs) if rs else None

    rows, mrows, spread = [], [], {}
    for sch in ('6', '7'):
        for n in ns:
            b0 = best.get((base, sch, n))
            if b0 is None:
                continue
            row, mrow = [sch, n, b0], [sch, n]
            for fac, _ in cols:
                v = best.get((fac, sch, n))
                row += [v or '', f2(ratio(v, b0))]
                mrow.append(f2(ratio(med.get((fac, sch, n)),
                                     med.get((base, sch, n)))))
            rows.append(row)
            mrows.append(mrow)
            for fac in [base] + [c for c, _ in cols]:
                vals = runs.get((fac, sch, n), [])
                if len(vals) > 1:
                    s = (max(vals) - min(vals)) / min(vals)
                    spread[fac] = max(spread.get(fac, 0), s)
        for fac, what in cols[:2]:
            r = median_over_n(ratios(best, fac, sch))
            b.target(f'setcallout pair, {what} / {labels[-1]} plain, '
                     f'fastest runs, median over n (scheme {sch})', r,
                     r is not None and r <= 1.05, 'at most 1.05')
        # What the lock association alone costs, the tree against itself.
        r = median_over_n([ratio(best.get((cols[1][0], sch, n)),
                                 best.get((cols[0][0], sch, n)))
                           for n in ns])
        b.target(f'setcallout pair, {cols[1][1]} / {cols[0][1]}, fastest '
                 f'runs, median over n (scheme {sch})', r,
                 r is not None and r <= 1.05, 'at most 1.05')
    if not rows:
        return None
    nruns = max(len(runs.get((base, s, n), [])) for s in ('6', '7')
                for n in ns)
    heads = ['scheme', 'n', f'{labels[-1]} plain']
    for _, what in cols:
        heads += [what, '/ base']
    text = (f'The setcallout pair against {labels[-1]} (before issue #13), '
            f'on {b.kernel} {b.where}: {b.unit} per cancel+set pair, the '
            'fastest of '
            f'up to {nruns} runs (each run the fastest of its batches), '
            'the two modules taking turns in the same boot; "/ base" is '
            'each against the baseline\'s plain pair at that n (issue '
            '#13: at most 1.05 for the tree\'s plain and lock-associated '
            'pairs).  *lock-associated*: handles from callout_init_lock(), '
            'the pair alone, the lock not held: twheel takes the lock only '
            'around the function, so this is twheel\'s own cost.  *caller '
            'holds the lock*: each pair inside spin_lock_bh() and '
            'spin_unlock_bh() of that lock, as a client relying on the '
            'promise does: the lock\'s cost (step spin_lock_bh+unlock) '
            'comes on top.  *events on*: every twheel:* event enabled '
            'through tracefs, one run, for scale.\n\n' + table(heads, rows))
    text += ('\nThe same ratios from the median of the runs instead of the '
             'fastest:\n\n' +
             table(['scheme', 'n'] + [what for _, what in cols], mrows))
    if spread:
        text += ('\nHow far the runs of one point lie apart, (slowest - '
                 'fastest) / fastest, the most over n and schemes: ' +
                 ', '.join(f'{fac} {v * 100:.{b.icount:d}f}%'
                           for fac, v in sorted(spread.items())) +
                 ('.  Under -icount the host\'s load changes none of '
                  'them: what differs is the guest\'s own (interrupts '
                  'falling into a batch, the state of the wheel).\n'
                  if b.icount else
                  '.  Another load on the host only slows a run down, so '
                  'the fastest run is the estimate.\n'))
    return text


# ---- the lone timer (bench/twheel_bench.c) ---------------------------------

def lone_section(b):
    fig9 = fig9_points(b)
    lone = collections.OrderedDict()
    for fac, sch, cpu, pending, ns in b.rows('lone', 5):
        lone[(fac, sch)] = [fac, sch, int(cpu), pending, int(ns)]
    idle = [[fac, sch, int(cpu)] + [int(v) for v in rest]
            for fac, sch, cpu, *rest in b.rows('loneidle', 8)]
    if not lone:
        b.remove('lone.csv', 'loneidle.csv')
        return None
    b.csv('lone.csv', ['facility', 'scheme', 'cpu', 'pending_before',
                       'ns_per_pair'], lone.values())
    ns = sorted({n for _, _, n in fig9})

    def f2(v):
        return 'n/a' if v is None else f'{v:.2f}'

    rows = []
    timer_lone = lone.get(('timer_list', '-'), [None] * 5)[4]
    for (fac, sch), r in lone.items():
        pairs = [fig9.get((fac, sch, n)) for n in ns]
        cheapest = min((p for p in pairs if p), default=None)
        x = ratio(r[4], cheapest)
        rows.append([fac, sch, r[3], r[4]] + [p or '' for p in pairs] +
                    [f2(x), f2(ratio(r[4], timer_lone))])
        if fac == 'twheel_setcallout':
            b.target(f'lone setcallout pair / cheapest Fig. 9 setcallout '
                     f'pair (scheme {sch})', x, x is not None and x <= 1.5,
                     'at most 1.5')
    text = (f'The lone timer, on {b.kernel} {b.where}: the same cancel+set '
            'pair as Fig. 9 on the only timer of one CPU (a worker bound '
            'to it, interrupts on), so that twheel\'s cancel empties the '
            'wheel and its set wakes it, each time.  *pending before*: '
            'twheel callouts '
            'pending on that CPU before (should be 0); *lone / Fig. 9*: '
            'against the cheapest Fig. 9 pair of the same facility and '
            'scheme in this run; *lone / timer_list lone*: against the '
            f'kernel\'s timer wheel doing the same.  {b.unit} per '
            'pair:\n\n' +
            table(['facility', 'scheme', 'pending before', 'lone'] +
                  [f'Fig. 9 n = {n}' for n in ns] +
                  ['lone / Fig. 9', 'lone / timer_list lone'], rows,
                  ['---', '---:', '---:', '---:'] + ['---:'] * len(ns) +
                  ['---:', '---:']))
    if idle:
        b.csv('loneidle.csv', ['facility', 'scheme', 'cpu', 'loop_irqs',
                               'settle_ms', 'settle_irqs', 'idle_ms',
                               'idle_irqs'], idle)
        rows = []
        for fac, sch, cpu, loop, sms, sirq, ims, iirq in idle:
            per_s = None if iirq < 0 or not ims else iirq * 1000 / ims
            rows.append([fac, sch, cpu, loop, f'{sirq} in {sms} ms',
                         f'{iirq} in {ims} ms', f2(per_s)])
            if ':' not in fac:
                b.target(f'twheel interrupts/s on the lone CPU once idle '
                         f'(scheme {sch})', per_s,
                         per_s is not None and per_s == 0, '0')
        text += ('\nAfter the lone setcallout loop: the callout set once '
                 'more, 10 ticks ahead, and cancelled; that CPU\'s twheel '
                 'interrupts (debugfs "stats") over the loop, the settling '
                 'time after (an hrtimer left armed fires once into the '
                 'empty wheel there) and the idle second after that, which '
                 'should see none (-1: this twheel does not count them).\n\n' +
                 table(['facility', 'scheme', 'cpu', 'during the loop',
                        'settling', 'idle', 'idle interrupts/s'], rows,
                       ['---', '---:', '---:', '---:', '---:', '---:',
                        '---:']))
    return text


def memory_section(b):
    memory = collections.OrderedDict()
    for line in b.raw:
        m = re.match(r'twheel_bench: memory,(\w+),(\d+)$', line)
        if m:
            memory[m.group(1)] = int(m.group(2))
        m = re.match(r'bytes: callout (\d+), timeout entry (\d+)$', line)
        if m:
            memory['twheel_setcallout'] = int(m.group(1))
            memory['twheel_timeout'] = int(m.group(2))
    if not memory:
        b.remove('memory.csv')
        return None
    b.csv('memory.csv', ['facility', 'bytes'], memory.items())
    cb, te = memory.get('twheel_setcallout'), memory.get('twheel_timeout')
    b.target('bytes per struct callout', cb, cb is not None and cb <= 48,
             'at most 48')
    b.target('bytes per timeout() entry', te, te is not None and te <= 64,
             'at most 64')
    return ('Bytes per outstanding timer:\n\n' +
            table(['facility', 'bytes'], memory.items(), ['---', '---:']))


# ---- interrupts per expiry (bench/twheel_live.c) ---------------------------

def visits_model(slots, t, n, rounds=1000, seed=1997):
    """Interrupts per expiry that twheel's rules give, every tick on time.

    n callouts on one wheel of `slots` (finest level first; one level is
    Scheme 6), each re-armed from its own function on its due tick for a
    random interval uniform in [t/2, 3t/2] ticks, as twheel_live does.  An
    entry due on E armed at tick `now` is looked at on
    twheel_visit_tick(now, E), and from there again until that tick is E;
    a tick on which any entry is looked at is one interrupt.  Counted over
    about `rounds` mean intervals per callout.
    """
    m = len(slots)
    gran = [1]
    for s in slots:
        gran.append(gran[-1] * s)

    # twheel_level(): the lowest level whose window (its parent's current
    # and next slot) holds e; levels below the top have twice the slots.
    def level(now, e):
        return next((k for k in range(m - 1)
                     if e // gran[k + 1] - now // gran[k + 1] <= 1), m - 1)

    def size(k):
        return slots[k] * (2 if k < m - 1 else 1)

    # twheel_visit_tick(): level 0 when the slot comes round, above it the
    # start of the span before the slot's, when the slot is drained (a
    # few callouts drain on that one tick).
    def visit(now, e):
        k = level(now, e)
        p, q = now // gran[k], e // gran[k]
        if k == 0:
            return p + 1 + (q - p - 1) % size(0)
        return (p + 1 + (q - p - 2) % size(k)) * gran[k]

    rnd = random.Random(seed)
    lo, hi = t // 2, t + t // 2
    start = rnd.randrange(4 * gran[m])
    begin, end = start + hi, start + hi + rounds * t
    ticks, expired = set(), 0
    for _ in range(n):
        now = start
        while now < end:
            e = now + rnd.randint(lo, hi) + 1   # setcallout(.., ticks)
            v = now
            while v != e:
                v = visit(v, e)
                if begin < v <= end:
                    ticks.add(v)
            expired += begin < e <= end
            now = e
    return len(ticks) / expired


def interrupts_section(b):
    rows = []
    for sch, geo, tick, t, n, exp, irq in b.rows('interrupts', 7):
        slots = [int(s) for s in geo.split('/')]
        t, n, exp, irq = int(t), int(n), int(exp), int(irq)
        paper = t / slots[0] if sch == '6' else float(len(slots))
        rows.append([sch, geo, int(tick), t, n, exp, irq,
                     irq / exp if exp else None, paper,
                     visits_model(slots, t, n)])
    b.remove('interrupts-*.dat')
    if not rows:
        b.remove('interrupts.csv', 'interrupts.png')
        return None

    def f2(v):
        return '' if v is None else f'{v:.2f}'

    b.csv('interrupts.csv', ['scheme', 'geometry', 'tick_ns', 'T', 'n',
                             'expired', 'interrupts', 'per_expiry', 'paper',
                             'model'],
          [r[:7] + [f2(v) for v in r[7:]] for r in rows])
    for sch, geo in sorted({(r[0], r[1]) for r in rows}):
        name = f'interrupts-{sch}-{geo.replace("/", "x")}.dat'
        paper = 'T/M' if sch == '6' else 'm'
        with open(b.path(name), 'w') as f:
            f.write(f'T "scheme {sch}, {geo}: measured" '
                    f'"scheme {sch}: paper, {paper}" '
                    f'"scheme {sch}: model"\n')
            for r in rows:
                if (r[0], r[1]) == (sch, geo) and r[7] is not None:
                    f.write(f'{r[3]} {r[7]:.4f} {r[8]:.4f} {r[9]:.4f}\n')
    b.plot('interrupts.gnuplot')

    text = (f'Interrupts per expired callout, against the paper\'s Appendix '
            f'A, on {b.kernel} {b.where}.  {rows[0][4]} callouts on one CPU, '
            'each re-armed from its own function for a random interval '
            'uniform in [T/2, 3T/2] ticks (mean T), for 1 to 3 s per T; '
            'expired and interrupts are the deltas of twheel\'s debugfs '
            'counters over that window.  *paper*: T/M for Scheme 6 with M '
            'slots, at most m for Scheme 7 with m levels.  *model*: what '
            'twheel\'s visiting rules give for the same callouts if every '
            'interrupt came on its tick, a tick shared by several callouts '
            'counting once (simulated in scripts/bench-report.py).\n\n')
    text += table(['scheme', 'geometry', 'tick ns', 'T (ticks)', 'callouts',
                   'expired', 'interrupts', 'per expiry', 'paper', 'model'],
                  [r[:7] + [f2(r[7]),
                            f2(r[8]) if r[0] == '6' else f'at most {r[8]:g}',
                            f2(r[9])] for r in rows])
    text += ('\nA Scheme 6 entry armed for t ticks is looked at each time '
             'its slot comes round, floor(t/M) + 1 times counting its '
             'expiry: about T/M + 1/2 on average for T >= M, and 1 for '
             'T < M, where the paper\'s T/M counts rotations.\n')
    for sch, geo in sorted({(r[0], r[1]) for r in rows if r[0] == '7'}):
        span = 1
        for s in geo.split('/'):
            span *= int(s)
        over = [r[3] for r in rows
                if (r[0], r[1]) == (sch, geo) and r[3] + r[3] // 2 > span]
        if over:
            text += (f'Scheme 7\'s {geo} spans {span} ticks; at T = '
                     f'{", ".join(map(str, over))} some intervals are '
                     'longer, wait at the top level and are looked at once '
                     'more per rotation, which the bound m does not '
                     'cover.\n')
    return text + '\n![interrupts per expiry](interrupts.png)\n'


# ---- lateness under load and idle ticks (bench/twheel_live.c) --------------

def lateness_section(b):
    # Each (scheme, n) may be run several times; the k-th "load" line of a
    # (scheme, n) goes with its k-th "lateness" line.
    loads = collections.defaultdict(list)
    for r in b.rows('load', 9):
        loads[(r[0], r[1])].append(r[2:])
    runs = collections.OrderedDict()
    for sch, n, samples, early, *pct in b.rows('lateness', 9):
        k = runs.setdefault((sch, int(n)), [])
        load = loads[(sch, n)][len(k)] if len(loads[(sch, n)]) > len(k) \
            else [''] * 7
        k.append([sch, int(n)] + load + [int(samples), int(early)] + pct)
    if not runs:
        b.remove('lateness.csv')
        return None
    b.csv('lateness.csv', ['scheme', 'n', 'run', 'tick_ns', 'min_ticks',
                           'max_ticks', 'ms', 'expired', 'interrupts',
                           'work_ns', 'samples', 'early', 'p50_us', 'p90_us',
                           'p99_us', 'p999_us', 'max_us'],
          [r[:2] + [i + 1] + r[2:] for k in runs.values()
           for i, r in enumerate(k)])
    early = sum(r[10] for k in runs.values() for r in k)
    b.target('callouts run before their time under load (lateness < 0)',
             early, early == 0, '0', 'd')

    # The run with the median p99 stands for its (scheme, n).
    rows, p99s = [], {}
    for key, k in sorted(runs.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        k = sorted(k, key=lambda r: float(r[13]))
        rows.append(k[len(k) // 2])
        p99s[key] = ' / '.join(r[13] for r in k)
    p99 = {(r[0], r[1]): float(r[13]) for r in rows}
    nmax = max(r[1] for r in rows)
    if ('6', nmax) in p99 and ('7', nmax) in p99:
        x = p99[('7', nmax)] / max(p99[('6', nmax)], 1e-9)
        b.target(f'p99 lateness at n = {nmax}, scheme 7 / scheme 6, '
                 'median runs', x, x <= 1, 'at most 1')

    out = []
    for r in rows:
        sch, n, tick, lo, hi, ms, exp, irq, work = r[:9]
        if ms:
            s, period = int(ms) / 1000, (int(lo) + int(hi)) / 2 + 1
            per_s = [f'{n / (period * int(tick) / 1e9):.0f}',
                     f'{int(exp) / s:.0f}', f'{int(irq) / s:.0f}',
                     f'{int(work) / (s * 1e7):.1f}']
            what = f'{lo}..{hi} x {int(tick) / 1e6:g} ms'
        else:
            per_s, what = [''] * 4, ''
        out.append([sch, n, what] + per_s + r[9:] + [p99s[(sch, n)]])
    return (f'Lateness under load, on {b.kernel} {b.where}.  n callouts '
            'spread over the CPUs, each re-armed from its own function for '
            'a random interval uniform in the ticks shown, at the default '
            'geometry; '
            'for each expiry in a window of a few seconds, lateness = when '
            'the function ran - (when setcallout() was called + ticks x '
            'tick), in microseconds.  A callout is due on the tick boundary '
            'after that moment, so a callout re-armed from its function at '
            'the start of a tick is a whole tick "late" on a perfect '
            'machine.  Early: negative lateness, which the contract '
            'forbids.  On time/s: the expiries per second if every '
            'callout ran one tick after its interval, as on a perfect '
            'machine; expiries/s and interrupts/s: as counted by twheel; '
            'tick work: twheel\'s own work_ns (per-interrupt bookkeeping, '
            'callout functions excluded) as a share of one CPU.  Each '
            'row is run several times, the schemes taking turns; the row '
            'shown is the run with the median p99, and the last column '
            'gives the p99 of every run.\n\n' +
            table(['scheme', 'callouts', 'interval', 'on time/s',
                   'expiries/s',
                   'interrupts/s', 'tick work, % of a CPU', 'samples',
                   'early', 'p50 us', 'p90 us', 'p99 us', 'p99.9 us',
                   'max us', 'p99 us, each run'], out))


def idle_section(b):
    rows = [(sch, float(s), int(n)) for sch, s, n in b.rows('idle', 3)]
    if not rows:
        b.remove('idle.csv')
        b.target('No twheel interrupt per second with nothing pending', None,
                 False, '0')
        return None
    b.csv('idle.csv', ['scheme', 'seconds', 'interrupts'], rows)
    worst = max(n / s for _, s, n in rows)
    b.target('No twheel interrupt per second with nothing pending', worst,
             worst == 0, '0')
    return (f'With nothing pending, on {b.kernel} {b.where}: twheel\'s '
            'interrupts over a window right after the lateness runs were '
            'cancelled.\n\n' +
            table(['scheme', 'seconds', 'interrupts', 'per second'],
                  [(sch, f'{s:g}', n, f'{n / s:.2f}') for sch, s, n in rows]))


# ---- every scheme behind one interface (bench/schemes_bench.c) ------------

PAPER_COST = {
    'scheme1': ('O(1)', 'O(1)', 'O(n)'),
    'scheme2': ('O(n)', 'O(1)', 'O(1)'),
    'scheme3': ('O(log n)', 'O(log n)', 'O(1)'),
    'scheme4': ('O(1)', 'O(1)', 'O(1)'),
    'scheme5': ('O(n/M)', 'O(1)', 'O(1)'),
    'scheme6': ('O(1)', 'O(1)', 'O(1) (O(n/M) if entries wait rounds)'),
    'scheme7': ('O(m)', 'O(1)', 'O(1)'),
    'lawn_few': ('O(1)', 'O(1)', 'O(t), t = 8 TTLs'),
    'lawn_many': ('O(1)', 'O(1)', 'O(t), t up to 1000 TTLs'),
}


def ops_section(b):
    ops = {}
    for sch, n, start, stop, tick, exp in b.rows('ops', 6):
        ops[(sch, int(n))] = (int(start), int(stop), int(tick),
                              int(exp) / 1000)
    b.remove('ops-*.dat', 'ops-*.png')
    if not ops:
        b.remove('ops.csv')
        return None
    schemes = [s for s in PAPER_COST if any(k[0] == s for k in ops)]
    ns = sorted({n for _, n in ops})
    b.csv('ops.csv', ['scheme', 'n', 'start_ns', 'stop_ns', 'tick_ns',
                      'expired_per_tick'],
          [(s, n) + ops[(s, n)] for s in schemes for n in ns
           if (s, n) in ops])
    for s in schemes:
        with open(b.path(f'ops-{s}.dat'), 'w') as f:
            for n in ns:
                if (s, n) in ops:
                    f.write(f'{n} {ops[(s, n)][0]} {ops[(s, n)][1]} '
                            f'{ops[(s, n)][2]}\n')
    b.plot('ops.gnuplot')
    text = ('Every scheme of the papers behind one interface '
            '(`bench/tsched.c`), each driven by hand by '
            '`bench/schemes_bench.c` on ' + b.kernel + ' ' + b.where + ': '
            'n entries armed for intervals uniform in [1000, 2000) ticks '
            '(the Lawn\'s favourable case: 8 distinct values in that range; '
            'its unfavourable one: up to 1000). start arms one more entry, '
            'stop stops it, tick advances the clock one tick on which '
            'nothing is due: the bookkeeping alone. ns per operation; a '
            'blank cell was not run (the scheme went over its time budget '
            'at the n before).\n')
    for col, what in ((0, 'start'), (1, 'stop'), (2, 'tick')):
        text += f'\n{what}, ns:\n\n' + table(
            ['n'] + schemes,
            [[n] + [ops[(s, n)][col] if (s, n) in ops else ''
                    for s in schemes] for n in ns])
    rows = []
    for s in schemes:
        have = [n for n in ns if (s, n) in ops]
        lo, hi = ops[(s, have[0])], ops[(s, have[-1])]
        rows.append([s, f'{have[0]}..{have[-1]}'] +
                    [f'{hi[i] / lo[i]:.1f}' if lo[i] else ''
                     for i in range(3)] +
                    [f'{max(ops[(s, n)][3] for n in have):g}',
                     ', '.join(PAPER_COST[s])])
    text += ('\nThe papers\' complexity, measured: how much dearer each '
             'operation is at the largest n than at the smallest (x), '
             'against the papers\' costs for start, stop and tick. '
             '"expiries" is the most entries any measured tick expired '
             '(0: the ticks measured bookkeeping only).\n\n' +
             table(['scheme', 'n', 'start x', 'stop x', 'tick x',
                    'expiries', 'paper: start, stop, tick'], rows,
                   ['---', '---', '---:', '---:', '---:', '---:', '---']))
    return text + ('\n![start](ops-start.png) ![stop](ops-stop.png) '
                   '![tick](ops-tick.png)\n')


def bookkeeping_section(b):
    book = []
    for f in b.rows('bookkeeping', 10):
        book.append(f[:2] + [int(x) for x in f[2:8]] +
                    [int(f[8]) / 1000, int(f[9]) / 1000])
    b.remove('bookkeeping-*.dat', 'bookkeeping.png')
    if not book:
        b.remove('bookkeeping.csv')
        return None
    b.csv('bookkeeping.csv', ['scheme', 'geometry', 'n', 'T', 'ticks',
                              'expired', 'ns_per_tick', 'ns_per_expiry',
                              'visits_per_expiry', 'migrations_per_expiry'],
          book)
    nmax = max(r[2] for r in book)
    for sch in ('6', '7'):
        with open(b.path(f'bookkeeping-{sch}.dat'), 'w') as f:
            for r in book:
                if r[0] == sch and r[2] == nmax:
                    f.write(f'{r[3]} {r[7]} {r[8]} {r[9]}\n')
    b.plot('bookkeeping.gnuplot')
    rows = []
    for r in book:
        levels = r[1].split('/')
        paper = (f'{r[3] / int(levels[0]):.2f}' if r[0] == '6'
                 else f'at most {len(levels)}')
        rows.append([r[0], r[1], r[2], r[3], r[6], r[7], f'{r[8]:.2f}',
                     f'{r[9]:.2f}', paper])
    return ('Per-tick bookkeeping of Scheme 6 against Scheme 7 '
            '(`bench/schemes_bench.c`, on ' + b.kernel + ' ' + b.where + '): '
            'n entries, each re-armed as it expires for an interval '
            'uniform in [T/2, 3T/2], driven one tick at a time. The paper '
            'puts the bookkeeping per entry at c(6)·T/M for Scheme 6 (an '
            'entry is looked at each time its slot comes round: "visits" '
            'before it is due) and c(7)·m for Scheme 7 (it moves down at '
            'most once per level: "migrations"). ns per expiry is all the '
            'time over the expiries, re-arming included.\n\n' +
            table(['scheme', 'geometry', 'n', 'T', 'ns per tick',
                   'ns per expiry', 'visits per expiry',
                   'migrations per expiry', 'paper: T/M or m'], rows) +
            '\n![bookkeeping](bookkeeping.png)\n')


def steps_section(b):
    steps = [(name, int(ns)) for name, ns in b.rows('step', 2)]
    if not steps:
        return None
    last = dict(steps)
    return (f'Single steps in the same guest, {b.unit} '
            '(`bench/twheel_bench.c`): '
            'setcallout() reads the clock once to know the tick '
            '(timer_list reads jiffies, hrtimer_start() in absolute mode '
            'reads nothing), and every call of every facility takes one '
            'interrupt-disabling lock.\n\n' +
            table(['step', b.unit], last.items(), ['---', '---:']))


def clock_section(b):
    runs = collections.OrderedDict()
    for name, ns in b.rows('clock', 2):
        runs.setdefault(name, []).append(float(ns))
    if not runs:
        return None
    ktime = min(runs.get('ktime_get_ns', [0]))
    what = {'ktime_get_ns': 'the exact time, as setcallout() reads it',
            'ktime_get_coarse_ns': 'the time at the last tick of '
                                   'timekeeping',
            'jiffies': 'READ_ONCE(jiffies), as timer_list takes the time'}
    rows = [[name, what.get(name, ''), ' / '.join(f'{v:g}' for v in vals),
             '' if not ktime else f'{min(vals) / ktime:.2f}']
            for name, vals in runs.items()]
    return (f'Reading the clock, on {b.kernel} {b.where}: {b.unit} per '
            'call in a '
            'loop of 100,000, best of three, each time twheel_bench is '
            'loaded with the tree\'s twheel (" / " between loads), and the '
            'best of the loads against ktime_get_ns()\'s.\n\n' +
            table(['clock', 'what', f'{b.unit} per call',
                   '/ ktime_get_ns'], rows,
                  ['---', '---', '---:', '---:']))


# ---- crossing wheel boundaries (bench/twheel_cascade.c) --------------------

def hist_parse(text):
    """{bucket: count} from "B:COUNT B:COUNT ..."; None for "-"."""
    if text == '-':
        return None
    return {int(b): int(c) for b, c in
            (pair.split(':') for pair in text.split())}


def hist_pct(hist, frac):
    """The upper bound of the bucket holding the nearest-rank percentile
    `frac` of a twheel histogram (bucket b holds v with fls64(v) == b)."""
    if not hist:
        return None
    total = sum(hist.values())
    rank, seen = max(1, -(-int(total * frac * 1000000) // 1000000)), 0
    for b in sorted(hist):
        seen += hist[b]
        if seen >= rank:
            return 0 if b == 0 else (1 << b) - 1
    return None


def cascade_section(b):
    runs = collections.OrderedDict()
    for f in b.rows('cascade', 15):
        runs[(f[0], f[1], int(f[4]))] = f
    quant = {(f[0], f[1], int(f[2]), f[3]): f[4:] for f in
             b.rows('cascadeq', 13)}
    hists = {(f[0], f[1], int(f[2]), f[3]): hist_parse(f[4]) for f in
             b.rows('cascadeh', 5)}
    b.remove('cascade-*.dat', 'cascade-*.png')
    if not runs:
        b.remove('cascade.csv')
        return None

    def num(v):
        return None if v in ('-', '') else int(v)

    recs = []
    for key, f in runs.items():
        probe = quant.get(key + ('probe',), ['0'] * 9)
        strm = quant.get(key + ('stream',), ['0'] * 9)
        work = hists.get(key + ('work_entries',))
        work_ns = hists.get(key + ('work_ns',))
        recs.append({
            'module': f[0], 'scheme': f[1], 'geometry': f[2],
            'tick_ns': int(f[3]), 'n': int(f[4]), 'keepalive': int(f[5]),
            'stream': int(f[6]), 'arm_ms': int(f[7]), 'ms': int(f[8]),
            'boundary_ms': int(f[9]), 'interrupts': num(f[10]),
            'expired': num(f[11]), 'migrated': num(f[12]),
            'moved_max': num(f[13]), 'work_max': num(f[14]),
            'work_p50_le': hist_pct(work, 0.5),
            'work_p999_le': hist_pct(work, 0.999),
            'work_ns_p50_le': hist_pct(work_ns, 0.5),
            'work_ns_p999_le': hist_pct(work_ns, 0.999),
            'work_ns_max_le': hist_pct(work_ns, 1.0),
            'probe_samples': int(probe[0]), 'probe_p50_ns': int(probe[3]),
            'probe_p99_ns': int(probe[5]), 'probe_p999_ns': int(probe[6]),
            'probe_max_ns': int(probe[8]),
            'stream_samples': int(strm[0]), 'stream_early': int(strm[1]),
            'stream_overdue': int(strm[2]),
            'stream_p50_ns': int(strm[3]), 'stream_p99_ns': int(strm[5]),
            'stream_p999_ns': int(strm[6]), 'stream_max_ns': int(strm[8]),
            'probe_q': [int(v) for v in probe[3:]],
            'work_ns': work_ns, 'work': work,
        })
    cols = [k for k in recs[0] if k not in ('probe_q', 'work_ns', 'work')]
    b.csv('cascade.csv', cols,
          [['n/a' if r[k] is None else r[k] for k in cols] for r in recs])

    # The plots: every module and scheme at the largest n.
    nmax = max(r['n'] for r in recs)
    big = [r for r in recs if r['n'] == nmax]
    for r in big:
        name = f'{r["module"]}-{r["scheme"]}'
        title = f'{r["module"]}, scheme {r["scheme"]}'
        with open(b.path(f'cascade-probe-{name}.dat'), 'w') as f:
            f.write(f'us "{title}"\n')
            for v, q in zip(r['probe_q'],
                            (0.5, 0.1, 0.01, 0.001, 0.0001)):
                f.write(f'{v / 1000:.1f} {q:g}\n')
            f.write(f'{r["probe_q"][-1] / 1000:.1f} '
                    f'{1 / max(r["probe_samples"], 1):g}\n')
        for what, unit, scale in (('work_ns', 'us', 1000),
                                  ('work', 'entries', 1)):
            hist = r[what]
            if not hist:
                continue
            total, above = sum(hist.values()), 0
            with open(b.path(f'cascade-{what}-{name}.dat'), 'w') as f:
                f.write(f'{unit} "{title}"\n')
                for bk in sorted(hist, reverse=True):
                    above += hist[bk]
                    lo = 0 if bk == 0 else 1 << (bk - 1)
                    f.write(f'{max(lo, 1) / scale:g} {above / total:g}\n')
    b.plot('cascade.gnuplot', what='probe',
           xlabel=f'hard-irq probe lateness, us (interrupts held off), '
                  f'{nmax} long callouts',
           ylabel='share of probe periods at least this late')
    b.plot('cascade.gnuplot', what='work_ns',
           xlabel=f'twheel work in one interrupt, us, {nmax} long callouts',
           ylabel='share of interrupts taking at least this')
    pngs = '![interrupts off](cascade-probe.png)\n' \
           '![work per interrupt](cascade-work_ns.png)\n'
    if any(r['work'] for r in big):
        b.plot('cascade.gnuplot', what='work',
               xlabel=f'wheel entries handled in one interrupt, {nmax} '
                      'long callouts',
               ylabel='share of interrupts handling at least this')
        pngs += '![entries per interrupt](cascade-work.png)\n'

    def na(v, div=1, fmt='.0f', le=False):
        if v is None:
            return 'n/a'
        return ('<= ' if le else '') + format(v / div, fmt)

    rows = []
    for r in recs:
        crossed = 0 <= r['boundary_ms'] <= r['ms']
        rows.append([
            r['module'], r['scheme'], r['n'],
            f'{r["boundary_ms"]} of {r["ms"]}' + ('' if crossed else ' (!)'),
            na(r['moved_max']), na(r['work_max']),
            na(r['work_p999_le'], le=True),
            na(r['work_ns_p999_le'], 1000, '.0f', True),
            na(r['work_ns_max_le'], 1000, '.0f', True),
            na(r['probe_max_ns'], 1000),
            na(r['probe_p999_ns'], 1000),
            na(r['stream_p99_ns'], 1000),
            na(r['stream_p99_ns'], r['tick_ns'], '.2f'),
            f'{r["stream_samples"]} ({r["stream_overdue"]})',
            r['stream_early']])

    for r in recs:
        if r['module'] != 'tree' or r['scheme'] != '7' or r['n'] != nmax:
            continue
        x = ratio(r['work_ns_max_le'], r['work_ns_p50_le'])
        b.target(f'per-interrupt wheel work in ns, max / p50, {nmax} long '
                 'callouts crossing a level-2 boundary (scheme 7)', x,
                 x is not None and x <= 10, 'at most 10')
        x = ratio(r['work_max'], r['work_p50_le'])
        b.target(f'per-interrupt wheel work in entries, max / p50, {nmax} '
                 'long callouts crossing a level-2 boundary (scheme 7)', x,
                 x is not None and x <= 10, 'at most 10')
        x = (r['stream_p99_ns'] / r['tick_ns'] if r['stream_samples']
             else None)
        b.target(f'p99 lateness of the short stream past its due tick, '
                 f'ticks, while {nmax} long callouts cross a boundary '
                 '(scheme 7)', x, x is not None and x <= 1, 'at most 1')
        if r['stream_early']:
            b.target('short callouts run before their due tick',
                     r['stream_early'], False, '0', 'd')

    r0 = recs[0]
    return (f'Crossing wheel boundaries, on {b.kernel} {b.where}.  Everything '
            'on one CPU, twheel at a '
            f'{r0["tick_ns"] / 1000:g} us tick with its default geometry '
            'for each scheme: n long callouts armed once around the next '
            'level-2 boundary B of Scheme 7\'s default 256/256/256 (every '
            f'{256 * 256 * r0["tick_ns"] / 1e9:.2f} s), half of them due '
            'within one level-1 slot half a level-2 slot past B (keepalives '
            'armed within one level-1 slot for the same interval), the '
            'rest spread from a quarter of a level-2 slot before B to three '
            'quarters after; the window runs from the end of the arming to '
            '0.4 s past B (*B at*: ms into the window).  Alongside, '
            f'{r0["stream"]} short callouts re-armed from their functions '
            'at 2..20 ticks (*stream p99*: when the function ran after the '
            'start of its due tick; *overdue*: samples of callouts still '
            'pending past their due tick when the window ended, counted as '
            'late as they were then), and a hard-irq hrtimer pinned to the '
            'CPU every 100 us (*irqs off*: how late it fired, a missed '
            'period counting as a sample with the lateness it would have '
            'had, so p99.9 is the share of time).  *moved max*: most '
            'entries moved in one tick; *work*: entries handled in one '
            'interrupt (max exact, p99.9 a bucket bound); *work us*: '
            'twheel\'s per-interrupt time, callout functions excluded '
            '(bucket bounds of its log2 histogram).  n/a: that twheel '
            'does not count it; (!): B was not crossed within the window.'
            '\n\n' +
            table(['module', 'scheme', 'n', 'B at ms', 'moved max',
                   'work max', 'work p99.9', 'work us p99.9', 'work us max',
                   'irqs off max us', 'irqs off p99.9 us', 'stream p99 us',
                   'stream p99 ticks', 'stream samples (overdue)', 'early'],
                  rows,
                  ['---', '---:', '---:', '---:', '---:', '---:', '---:',
                   '---:', '---:', '---:', '---:', '---:', '---:', '---:',
                   '---:']) + '\n' + pngs)


SECTIONS = [fig9_section, pair_cost_section, lone_section, memory_section, steps_section,
            clock_section, ops_section,
            bookkeeping_section, interrupts_section, lateness_section,
            idle_section, cascade_section]


def main():
    log, out, kernel = sys.argv[1:4]
    b = Bench(log, out, kernel)
    if not b.lines:
        sys.exit('bench-report.py: no twheel_bench lines in ' + log)
    parts = [text for text in (s(b) for s in SECTIONS) if text]
    parts.append('Targets:\n\n' +
                 table(['target', 'measured', 'verdict', 'goal'], b.targets,
                       ['---', '---:', '---', '---']))
    with open(b.path('results.md'), 'w') as f:
        f.write('\n'.join(parts))
    print(open(b.path('results.md')).read())


if __name__ == '__main__':
    main()
