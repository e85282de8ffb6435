#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn benchmark lines into a report: Markdown tables, CSV files, plots.

Usage: bench-report.py [--title TITLE] [--note TEXT] OUT FILE...

Reads the lines of bench/bench_line.h's format from each FILE (a guest's
console log, or a program's output), "twheel-bench: TABLE KEYS | METRICS",
wherever they are on a line, and writes into the folder OUT:

  report.md    TITLE, the note, then one section per table
  TABLE.csv    every line of the table, one row each, repeats included
  TABLE.png    a plot of each metric bench/tables.ini says to plot
               (TABLE-METRIC.png when it names more than one)

Lines with the same table and keys are one measurement taken again: the
tables and plots show the median of each metric.  A line that carries the
prefix but not the format fails the run, once the report is written.  What this script knows
of a table is what bench/tables.ini says, all of it optional:

  title    the section's heading (default: the table's name)
  text     a paragraph saying what the table measures
  x        the key along the plot's x axis
  series   the keys that tell the plot's lines apart (default: every key
           but x and rows)
  plot     the metrics to plot against x
  log      which axes are logarithmic: x, y or xy
  pivot    a metric: show it as a grid, rows by `rows` (default x), one
           column per series, rather than one row per measurement
  rows     the key of the grid's rows
  markdown "no": leave the table out of report.md (its CSV holds it)
"""

import collections
import configparser
import os
import re
import statistics
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r'twheel-bench: ([a-z0-9_-]+) ((?:\S+=\S+ )*)\|((?: \S+=\S+)*)\s*$')


class Table:
    """The lines of one table, and how bench/tables.ini says to show it."""

    def __init__(self, name, spec):
        self.name = name
        self.spec = spec
        self.keys, self.metrics = [], []    # column names, first seen first
        self.lines = []                     # (keys, metrics) dicts

    def add(self, keys, metrics):
        for k in keys:
            if k not in self.keys:
                self.keys.append(k)
        for m in metrics:
            if m not in self.metrics:
                self.metrics.append(m)
        self.lines.append((keys, metrics))

    def get(self, field, default=''):
        return self.spec.get(field, default).strip()

    def words(self, field, default=''):
        return self.get(field, default).split()

    def measurements(self):
        """[(keys, {metric: median})], one per distinct set of keys."""
        runs = collections.OrderedDict()
        for keys, metrics in self.lines:
            runs.setdefault(tuple(keys.get(k, '') for k in self.keys),
                            []).append(metrics)
        out = []
        for key, ms in runs.items():
            med = {m: median([r.get(m, '-') for r in ms])
                   for m in self.metrics}
            med['runs'] = str(len(ms))
            out.append((dict(zip(self.keys, key)), med))
        return out


def number(v):
    try:
        return float(v)
    except ValueError:
        return None


def median(values):
    """The median of the numbers among @values, printed as they are."""
    nums = [v for v in values if number(v) is not None]
    if not nums:
        return '-'
    m = statistics.median(number(v) for v in nums)
    places = max(len(v.partition('.')[2]) for v in nums)
    return f'{m:.{places}f}'


def ordered(values):
    """@values in numeric order if they are all numbers, else as given."""
    if all(number(v) is not None for v in values):
        return sorted(values, key=number)
    return list(values)


def markdown(heads, rows):
    out = ['| ' + ' | '.join(heads) + ' |',
           '|' + '|'.join(' ---: ' if i else ' --- '
                          for i in range(len(heads))) + '|']
    out += ['| ' + ' | '.join(r) + ' |' for r in rows]
    return '\n'.join(out) + '\n'


def series_of(t):
    """The keys that tell lines apart, less those the same on every line."""
    rows = t.get('rows', t.get('x'))
    keys = t.words('series', ' '.join(k for k in t.keys
                                      if k not in (t.get('x'), rows)))
    return [k for k in keys if len({ks.get(k) for ks, _ in t.lines}) > 1]


def name(keys, series):
    return ' '.join(f'{k}={keys.get(k, "")}' for k in series) or 'all'


def grid(t, meas, metric):
    """@metric as a grid: a row per value of `rows`, a column per series."""
    rows, series = t.get('rows', t.get('x')), series_of(t)
    cols = list(dict.fromkeys(name(k, series) for k, _ in meas))
    cells = collections.defaultdict(dict)
    for k, m in meas:
        cells[k[rows]][name(k, series)] = m[metric]
    return (f'{metric} by {rows}' +
            (f' (rows) and {" ".join(series)}' if series else '') + ':\n\n' +
            markdown([rows] + cols, [[r] + [cells[r].get(c, '') for c in cols]
                                     for r in ordered(cells)]))


def section(t, meas, out):
    """The Markdown of table @t, its plots drawn into @out."""
    text = f'## {t.get("title", t.name)}\n\n'
    if t.get('text'):
        text += ' '.join(t.get('text').split()) + '\n\n'
    most = max(int(m['runs']) for _, m in meas)
    runs = ['runs'] if most > 1 else []
    if t.get('markdown') == 'no':
        text += f'The figures are in `{t.name}.csv`.\n'
    elif t.get('pivot'):
        text += '\n'.join(grid(t, meas, m) for m in t.words('pivot'))
    else:
        text += markdown(t.keys + t.metrics + runs,
                         [[k[c] for c in t.keys] +
                          [m[c] for c in t.metrics + runs]
                          for k, m in meas])
    if runs and t.get('markdown') != 'no':
        text += (f'\nA measurement taken more than once (up to {most} '
                 'times) shows the median of its runs.\n')
    for png in plot(t, meas, out):
        text += f'\n![{t.name}]({png})\n'
    return text


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def plot(t, meas, out):
    """Plot each of @t's plot metrics against its x; the PNGs' names."""
    x, log, metrics = t.get('x'), t.get('log'), t.words('plot')
    series = series_of(t)
    pngs = []
    for metric in metrics:
        png = f'{t.name}.png' if len(metrics) == 1 else \
            f'{t.name}-{metric}.png'
        lines = collections.OrderedDict()
        for k, m in meas:
            v = k[x] if x in k else m.get(x)
            if number(v) is None or number(m[metric]) is None:
                continue
            if ('x' in log and number(v) <= 0) or \
               ('y' in log and number(m[metric]) <= 0):
                continue
            lines.setdefault(name(k, series), []).append(
                (number(v), m[metric]))
        if not lines:
            continue
        script = ['set terminal pngcairo size 1000,700 noenhanced',
                  'set output ' + quote(os.path.join(out, png)),
                  'set title ' + quote(t.get('title', t.name)),
                  'set xlabel ' + quote(x), 'set ylabel ' + quote(metric),
                  'set grid', 'set key below']
        if log:
            script.append(f'set logscale {log}')
        plots = []
        for i, (label, points) in enumerate(lines.items()):
            script.append(f'$d{i} << EOD')
            script += [f'{a:g} {b}' for a, b in sorted(points)]
            script.append('EOD')
            plots.append(f'$d{i} using 1:2 with linespoints title ' +
                         quote(label))
        script.append('plot ' + ', '.join(plots))
        subprocess.run(['gnuplot'], input='\n'.join(script) + '\n',
                       text=True, check=True)
        pngs.append(png)
    return pngs


def main(argv):
    opts = {'--title': 'Benchmarks', '--note': ''}
    while argv and argv[0] in opts:
        opts[argv[0]], argv = argv[1], argv[2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    out, files = argv[0], argv[1:]
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(os.path.join(TOP, 'bench', 'tables.ini'))
    tables = collections.OrderedDict(
        (s, Table(s, ini[s])) for s in ini.sections())
    bad = []
    for path in files:
        for line in open(path, errors='replace'):
            m = LINE.search(line)
            if not m:
                if 'twheel-bench: ' in line:
                    bad.append(line.strip())
                continue
            keys = dict(f.split('=', 1) for f in m.group(2).split())
            metrics = dict(f.split('=', 1) for f in m.group(3).split())
            t = tables.setdefault(m.group(1), Table(m.group(1), {}))
            t.add(keys, metrics)
    tables = [t for t in tables.values() if t.lines]
    if not tables:
        sys.exit(f'bench-report.py: no twheel-bench lines in {files}')
    os.makedirs(out, exist_ok=True)
    parts = [f'# {opts["--title"]}\n']
    if opts['--note']:
        parts.append(' '.join(opts['--note'].split()) + '\n')
    for t in tables:
        with open(os.path.join(out, f'{t.name}.csv'), 'w') as f:
            f.write(','.join(t.keys + t.metrics) + '\n')
            for keys, metrics in t.lines:
                f.write(','.join([keys.get(k, '') for k in t.keys] +
                                 [metrics.get(m, '') for m in t.metrics])
                        + '\n')
        parts.append(section(t, t.measurements(), out))
    with open(os.path.join(out, 'report.md'), 'w') as f:
        f.write('\n'.join(parts))
    print('\n'.join(parts))
    if bad:
        sys.exit('bench-report.py: lines not in the format of '
                 'bench/bench_line.h:\n  ' + '\n  '.join(bad))


if __name__ == '__main__':
    main(sys.argv[1:])
