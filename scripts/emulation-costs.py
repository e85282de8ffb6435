#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Put a plain TCG boot and an -icount boot of the same steps side by side.

Usage: emulation-costs.py [--trace LINES] [--note TEXT] OUT TCG.log ICOUNT.log

Reads the "steps" and "fig9" lines (bench/bench_line.h) that
bench/twheel_bench.ko printed in each boot (scripts/emulation-costs.sh),
the median of each over the boot's loads, and writes into OUT the lines of
three tables, then report.md and the CSV files (scripts/bench-report.py):

  emulation-steps step=S | instructions=I tcg_ns=T ns_per_instruction=R
      step_instructions=I' step_ns=T' step_ns_per_instruction=R'
  emulation-pairs facility=F scheme=S | instructions=I tcg_ns=T
      tcg_ns_min=T0 tcg_ns_max=T1 ns_per_instruction=R
      instructions_vs_timer_list=A
      ns_vs_timer_list=B instructions_vs_hrtimer=C ns_vs_hrtimer=D
  emulation-model facility=F scheme=S | traced=N special_ns=E
      ordinary_ns=O model_ns=M tcg_ns=T model_vs_tcg=Q
  emulation-prices kind=K | ns=P

I is the -icount boot's ns (one per instruction), T the plain boot's
(T0 and T1 the fastest and slowest of its loads); a
step's figures include its loop, the primed ones are net of the empty
loop.  With --trace, the output of scripts/pair-trace.sh: each pair's
traced instructions by kind, priced at what the steps cost in the plain
boot (net of the loop, less the ordinary instructions each step has
besides the one it measures): a locked instruction at lock_inc, pushf at
local_save_flags, each cli+sti at local_irq_disable+enable, rdtsc at
get_cycles, each call with its return at call+ret (special_ns); a jump
at what the empty loop costs beyond its two ALU instructions, another
memory access at jiffies and any other instruction at alu_x8's eighth
(ordinary_ns).  model_ns is their sum, against the pair's plain-boot time.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r'twheel-bench: ([a-z0-9_-]+) ((?:\S+=\S+ )*)\|((?: \S+=\S+)*)')


def lines(path):
    """[(table, {key: value}, {metric: value})] of the file at @path."""
    out = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = LINE.search(line)
            if m:
                out.append((m.group(1),
                            dict(kv.split('=', 1) for kv in m.group(2).split()),
                            dict(kv.split('=', 1) for kv in m.group(3).split())))
    return out


def medians(path):
    """{step: ns} and {(facility, scheme): ns}, medians over the loads."""
    steps, pairs = {}, {}
    for table, keys, metrics in lines(path):
        if table == 'steps':
            steps.setdefault(keys['step'], []).append(float(metrics['ns']))
        elif table == 'fig9' and keys.get('n') == '100' and \
                keys.get('build') == 'tree':
            pairs.setdefault((keys['facility'], keys['scheme']),
                             []).append(float(metrics['pair_ns']))
    med = statistics.median
    return ({k: med(v) for k, v in steps.items()},
            {k: med(v) for k, v in pairs.items()},
            {k: (min(v), max(v)) for k, v in pairs.items()})


def fmt(x, places=1):
    return '-' if x is None else f'{x:.{places}f}'


def prices(icount, tcg):
    """TCG ns per instruction of each kind pair-trace.py counts."""
    def net(step):
        return (icount[step] - icount['empty_loop'],
                tcg[step] - tcg['empty_loop'])

    n, t = net('alu_x8')
    alu = t / n

    def one(step, count=1):
        n, t = net(step)
        return t - (n - count) * alu

    return {
        'other': alu,
        'jumps': tcg['empty_loop'] - (icount['empty_loop'] - 1) * alu,
        'memory': one('jiffies'),
        'calls': one('call+ret', 2),
        'locked': one('lock_inc'),
        'pushf': one('local_save_flags'),
        'sti': one('local_irq_disable+enable', 2),
        'rdtsc': one('get_cycles'),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--trace')
    ap.add_argument('--note', default='')
    ap.add_argument('out')
    ap.add_argument('tcg')
    ap.add_argument('icount')
    args = ap.parse_args()
    tcg_steps, tcg_pairs, tcg_range = medians(args.tcg)
    ic_steps, ic_pairs, _ = medians(args.icount)
    out = []
    e_i, e_t = ic_steps['empty_loop'], tcg_steps['empty_loop']
    for step, i in ic_steps.items():
        t = tcg_steps.get(step)
        if t is None:
            continue
        si, st = (i - e_i, t - e_t) if step != 'empty_loop' else (None, None)
        out.append(f'twheel-bench: emulation-steps step={step} | '
                   f'instructions={fmt(i)} tcg_ns={fmt(t)} '
                   f'ns_per_instruction={fmt(t / i, 2)} '
                   f'step_instructions={fmt(si)} step_ns={fmt(st)} '
                   f'step_ns_per_instruction='
                   f'{fmt(st / si if si else None, 2)}')
    base = {f: (ic_pairs.get((f, '-')), tcg_pairs.get((f, '-')))
            for f in ('timer_list', 'hrtimer')}
    for key, i in ic_pairs.items():
        t = tcg_pairs.get(key)
        if t is None:
            continue
        ratios = ' '.join(
            f'instructions_vs_{f}={fmt(i / bi, 2)} ns_vs_{f}={fmt(t / bt, 2)}'
            for f, (bi, bt) in base.items() if bi and bt)
        out.append(f'twheel-bench: emulation-pairs facility={key[0]} '
                   f'scheme={key[1]} | instructions={fmt(i, 0)} '
                   f'tcg_ns={fmt(t, 0)} tcg_ns_min={fmt(tcg_range[key][0], 0)} '
                   f'tcg_ns_max={fmt(tcg_range[key][1], 0)} '
                   f'ns_per_instruction={fmt(t / i, 2)} {ratios}')
    if args.trace:
        price = prices(ic_steps, tcg_steps)
        special = ('calls', 'locked', 'pushf', 'sti', 'rdtsc')
        for table, keys, m in lines(args.trace):
            if table != 'trace-pair':
                continue
            f, s = keys['facility'], keys['scheme']
            t = tcg_pairs.get((f, s if f.startswith('twheel') else '-'))
            if t is None:
                continue
            sp = sum(price[k] * int(m[k]) for k in special)
            # cli goes with its sti, a return with its call.
            ordinary = sum(price[k] * int(m[k])
                           for k in ('jumps', 'memory', 'other'))
            out.append(f'twheel-bench: emulation-model facility={f} '
                       f'scheme={s} | traced={m["instructions"]} '
                       f'special_ns={fmt(sp, 0)} '
                       f'ordinary_ns={fmt(ordinary, 0)} '
                       f'model_ns={fmt(sp + ordinary, 0)} '
                       f'tcg_ns={fmt(t, 0)} '
                       f'model_vs_tcg={fmt((sp + ordinary) / t, 2)}')
        out += [f'twheel-bench: emulation-prices kind={k} | ns={fmt(v, 2)}'
                for k, v in price.items()]
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, 'lines.txt')
    with open(path, 'w', encoding='ascii') as f:
        f.write('\n'.join(out) + '\n')
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, 'bench-report.py'),
                    '--title', 'scripts/emulation-costs.sh',
                    '--note', args.note, args.out, path], check=True)


if __name__ == '__main__':
    main()
