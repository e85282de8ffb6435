#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a tracefs trace of the kernel's timer events into a replay trace.

Usage: timer-trace.py --hz HZ [--kernel NAME] [--workload TEXT]
                      [--notes FILE] TRACE >OUT

TRACE is the text of /sys/kernel/tracing/trace with trace_clock "mono",
holding the events timer:timer_start, timer_cancel, timer_expire_entry,
hrtimer_start, hrtimer_cancel and hrtimer_expire_entry
(scripts/record-timers.sh records one).  OUT is what bench/twheel_replay.c
reads: a header of "#" comments and "key value" lines, then one line per
timer and one per event, in time order:

  T ID FACILITY FUNCTION           a timer: timer_list or hrtimer, and the
                                   function it runs
  s TIME CPU ID DELAY_NS JIFFIES PREC_NS
                                   a start or re-arm, on CPU
  c TIME CPU ID                    a cancel of a pending timer, from CPU
  x TIME CPU ID                    the recorded expiry, on CPU (not replayed)

TIME is ns since the first event.  DELAY_NS is the time from the start to
the timer's deadline: for a timer_list timer, its jiffies (expires - now)
times the jiffy's length; for an hrtimer, its soft expiry - TIME.  JIFFIES
is what mod_timer() would add to jiffies for it (for an hrtimer, DELAY_NS
rounded up to whole jiffies); a deadline already past counts as now.
PREC_NS is how late timer_list may run it: the granularity of the wheel
level it goes in, 8^level jiffies (for a timer_list timer, the level the
recorded kernel chose, from idx=).

What is left out: the tick (tick_sched_timer), which drives timer_list
itself, and the cancels and expiries of timers started before the trace
began.  timer_list traces a cancel each time it takes a timer off its
wheel, also to re-arm it (mod_timer() of a pending timer) or to run it;
such a cancel, followed on its CPU by the timer's expiry or, within
REARM_NS, its start, is left out, as the start or expiry says it all.
An hrtimer's expiry in CLOCK_REALTIME or CLOCK_TAI (far beyond any
CLOCK_MONOTONIC time) is brought back by that clock's offset, from
--notes: the lines "twheel-record: clock GETTER OFFSET" the recording
guest printed.
"""

import argparse
import re
import sys

EVENT = re.compile(r'^\s*.+?-\d+\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$')
FIELD = re.compile(r'(\w+)=(\S*)')
EXCLUDED = {'tick_sched_timer'}
# A cancel this close before the start of the same timer on its CPU is
# mod_timer() taking it off to re-arm it; a del_timer() and a new
# mod_timer() are farther apart, even under emulation.
REARM_NS = 10000

# kernel/time/timer.c: 64 slots a level, each level 8 times coarser.
LVL_BITS, LVL_CLK_SHIFT = 6, 3


def level_of(delta):
    """The wheel level timer_list puts a timer @delta jiffies ahead in."""
    lvl = 0
    while lvl < 8 and delta >= ((1 << LVL_BITS) - 1) << (lvl * LVL_CLK_SHIFT):
        lvl += 1
    return lvl


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--hz', type=int, required=True)
    ap.add_argument('--kernel', default='unknown')
    ap.add_argument('--workload', default='')
    ap.add_argument('--notes')
    ap.add_argument('trace')
    args = ap.parse_args()
    tick_ns = (10**9 + args.hz // 2) // args.hz

    offsets = []
    if args.notes:
        for line in open(args.notes):
            w = line.split()
            if len(w) == 4 and w[1] == 'clock' and int(w[3]):
                offsets.append(int(w[3]))

    def monotonic(expires, ts):
        """@expires in CLOCK_MONOTONIC: the offset that brings it nearest."""
        return min([expires] + [expires - o for o in offsets],
                   key=lambda e: abs(e - ts))

    ids = {}            # trace pointer -> [id, facility, function]
    nr = 0              # timers declared
    out = []            # (time, order, line)
    held = {}           # cpu -> (time, ptr) of a cancel not yet placed
    cpus = set()
    dropped = {'unknown': 0, 'rearm': 0, 'expiry': 0}

    def emit(ts, kind, cpu, ptr, rest=''):
        out.append((ts, len(out),
                    f'{kind} {{t}} {cpu} {ids[ptr][0]}{rest}'))

    def place_held(cpu, nxt=None):
        """The held cancel on @cpu, unless event @nxt makes it part of it."""
        if cpu not in held:
            return
        ts, ptr = held.pop(cpu)
        if nxt and nxt[1] == ptr and (nxt[0] == 'timer_expire_entry' or
                                      (nxt[0] == 'timer_start' and
                                       nxt[2] - ts <= REARM_NS)):
            dropped['rearm' if nxt[0] == 'timer_start' else 'expiry'] += 1
            return
        emit(ts, 'c', cpu, ptr)

    for line in open(args.trace, errors='replace'):
        m = EVENT.match(line)
        if not m:
            continue
        cpu, ev, rest = int(m.group(1)), m.group(4), m.group(5)
        ts = int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0')[:9])
        f = dict(FIELD.findall(rest))
        ptr = f.get('timer') or f.get('hrtimer')
        if ptr is None:
            continue
        cpus.add(cpu)
        if ev.startswith('timer_'):
            place_held(cpu, (ev, ptr, ts))
        if ev in ('timer_start', 'hrtimer_start'):
            fac = 'timer_list' if ev == 'timer_start' else 'hrtimer'
            if f['function'] in EXCLUDED:
                ids[ptr] = [None, fac, f['function']]
                continue
            if ptr not in ids or ids[ptr][1] != fac or ids[ptr][0] is None:
                ids[ptr] = [nr, fac, f['function']]
                out.append((ts, len(out), f'T {nr} {fac} {f["function"]}'))
                nr += 1
            if fac == 'timer_list':
                jiffies = max(0, int(re.search(r'\[timeout=(-?\d+)\]',
                                               rest).group(1)))
                delay = jiffies * tick_ns
                level = int(f['idx']) >> LVL_BITS
            else:
                delay = max(0, monotonic(int(f['softexpires']), ts) - ts)
                jiffies = -(-delay // tick_ns)
                level = level_of(jiffies)
            prec = (1 << (level * LVL_CLK_SHIFT)) * tick_ns
            emit(ts, 's', cpu, ptr, f' {delay} {jiffies} {prec}')
            continue
        if ptr not in ids or ids[ptr][2] in EXCLUDED:
            dropped['unknown'] += 1
            continue
        if ev == 'timer_cancel':
            place_held(cpu)
            held[cpu] = (ts, ptr)
        elif ev == 'hrtimer_cancel':
            emit(ts, 'c', cpu, ptr)
        elif ev in ('timer_expire_entry', 'hrtimer_expire_entry'):
            emit(ts, 'x', cpu, ptr)
    for cpu in list(held):
        place_held(cpu)
    if not out:
        sys.exit(f'timer-trace.py: no timer events in {args.trace}')

    out.sort()
    t0 = min(ts for ts, _, line in out if not line.startswith('T '))
    t1 = max(ts for ts, _, _ in out)
    # A timer first seen before t0 (its "T" line) is declared at time 0.
    print('# twheel replay trace, from scripts/record-timers.sh and '
          'scripts/timer-trace.py')
    print('# (the latter says what each line means)')
    if args.workload:
        print(f'# workload: {args.workload}')
    print(f'# left out: {dropped["rearm"]} cancels by a re-arm, '
          f'{dropped["expiry"]} by an expiry (timer_list), '
          f'{dropped["unknown"]} events of timers started before the '
          'trace or of the tick')
    print(f'kernel {args.kernel}')
    print(f'hz {args.hz}')
    print(f'cpus {max(cpus) + 1}')
    print(f'duration_ns {t1 - t0}')
    for ts, _, line in out:
        print(line.replace('{t}', str(max(ts - t0, 0))))


if __name__ == '__main__':
    main()
