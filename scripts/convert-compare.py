#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare LED triggers converted to twheel with the kernel's own copies.

Usage: convert-compare.py LOG [--label NAME] [--modules M,...]
                          [--details FILE]
       convert-compare.py --self-test

LOG is the console of a guest booted by scripts/convert-check.sh, which
ran each of a trigger's steps (convert/modules/guest.sh) with the
kernel's copy ("orig", on timer_list), then with the converted copy
("twheel"), and printed what the ledprobe LED recorded: every brightness
change with its time (ktime_get_ns()), jiffies and the 1-minute load.
--modules names the modules that must be there; --details writes every
timed interval to FILE.

For each module, every step is held to a model of the trigger, taken from
its source (see MODELS), which gives the brightness of each change and the
delay in jiffies the trigger asked for before it, msecs_to_jiffies()
rounded at the guest's HZ:

- sequence: each side changes the brightness exactly as the model says
  (ledtrig-heartbeat, which beats until it is detached, for at least the
  step's n changes), so the converted copy does what the kernel's does;
- never early: each converted interval lasts at least the D jiffies of
  TICK_NSEC asked for, as twheel_timer.h runs a timer no sooner than
  (expires - jiffies) jiffies after the arming call.  A tick that falls
  between the trigger reading jiffies ("jiffies + delay") and that call
  takes a jiffy off; so an interval short of D jiffies passes only if it
  is at least D - 1 and jiffies had moved on D from the change before
  (the deadline was reached: the tick raced the arming).  Those are
  counted in the figures as "raced a tick";
- lateness: the converted copy's median lateness (interval - D jiffies)
  is no more than the kernel copy's plus one twheel tick and one jiffy.
  Medians, as QEMU's emulation delays single events by milliseconds.

The kernel's copy is not judged on time, only reported beside: timer_list
rounds a deadline up to the next tick of its wheel's level (calc_index(),
so that a timer armed late in a jiffy does not fire early), a jiffy at
most for 63 jiffies and less, an eighth of the delay beyond; but where
jiffies fall behind and catch up, as they do under QEMU, it runs short.

Prints one line per module and "N passed, N failed" counting modules;
exits 1 on any failure.  --self-test makes up a console for every module
from the models, checks that it passes, then doctors it (an early change,
two changes out of order, one missing, a late median, a cancelled change
that fires) and checks that each doctored console fails, and why.
"""

import argparse
import random
import re
import statistics
import sys

PRINTK_PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')
PROBE = 'ledprobe: '
FSHIFT = 11


def msecs_to_jiffies(ms, hz):
    """The kernel's _msecs_to_jiffies(): rounded up."""
    if 1000 % hz == 0:
        return (ms + 1000 // hz - 1) // (1000 // hz)
    if hz % 1000 == 0:
        return ms * (hz // 1000)
    return -(-ms * hz // 1000)


# Models: f(params, records, hz) -> (changes, open_ended), where changes
# is a list of (brightness, D) and D is the delay in jiffies the trigger
# asked for between the change before and this one, or None where nothing
# times it (the first change of a step, a change made by a write).
# records are the step's probe records, marks included; open_ended says
# that the trigger keeps going until it is detached.

def model_heartbeat(params, records, hz):
    """ledtrig-heartbeat, invert=0: thump (70 ms), pause (period / 4 - 70),
    thump (70), pause (the rest of the period); the period, computed at
    each first thump, is 300 + 6720 / (5 * load + 7) ms of the 1-minute
    load.  The load is read just before the thump's change, so it is the
    one recorded with it or with the record before (it moves every 5 s);
    the larger gives the shorter period, and the lower bound."""
    sets = [i for i, r in enumerate(records) if r['kind'] == 'set']
    mj70 = msecs_to_jiffies(70, hz)
    changes, delay, period = [], None, 0
    for n, i in enumerate(sets):
        phase = n % 4
        changes.append((255 if phase in (0, 2) else 0, delay))
        if phase == 0:
            load = max(records[j]['load'] for j in (i - 1, i) if j >= 0)
            ms = 300 + (6720 << FSHIFT) // (5 * load + (7 << FSHIFT))
            period = msecs_to_jiffies(ms, hz)
        delay = [mj70, period // 4 - mj70, mj70,
                 period - period // 4 - mj70][phase]
    return changes, True


def model_transient(params, records, hz):
    """ledtrig-transient: writing activate=1 sets state at once, and
    restores the other brightness duration ms later, unless cancelled."""
    on = 255 if params['state'] == '1' else 0
    later = None if 'cancel' in params else \
        msecs_to_jiffies(int(params['duration']), hz)
    return [(on, None), (255 - on, later)], False


def model_pattern(params, records, hz):
    """ledtrig-pattern, software pattern with a finite repeat: the steps of
    pattern_trig_timer_common_function(), step changes and gradual dimming
    every UPDATE_INTERVAL (50 ms) alike."""
    nums = [int(x) for x in params['pattern'].split(',')]
    tb, dt = nums[0::2], nums[1::2]
    npat, repeat = len(tb), int(params['repeat'])
    st = {'curr': 0, 'next': 1, 'delta': 0, 'repeat': repeat}

    def update():
        st['curr'] = st['next']
        if st['curr'] == 0:
            st['repeat'] -= 1
        st['next'] = 0 if st['next'] == npat - 1 else st['next'] + 1
        st['delta'] = 0

    changes, delay = [], None      # the first timer is due at once
    while True:
        c, n = st['curr'], st['next']
        if not st['repeat']:
            break
        if tb[c] == tb[n]:
            changes.append((tb[c], delay))
            delay = msecs_to_jiffies(dt[c], hz)
            if not dt[n]:
                update()
            update()
            continue
        if st['delta'] > dt[c]:
            update()
            continue
        if st['delta'] == 0 or dt[c] < 50:
            b = tb[c]
        else:
            step = st['delta'] * abs(tb[n] - tb[c]) // dt[c]
            b = tb[c] + step if tb[n] > tb[c] else tb[c] - step
        changes.append((b, delay))
        delay = msecs_to_jiffies(50, hz)
        st['delta'] += 50
    return changes, False


MODELS = {
    'ledtrig-heartbeat': model_heartbeat,
    'ledtrig-transient': model_transient,
    'ledtrig-pattern': model_pattern,
}
# Those whose delays follow the load: their figures say what it was.
LOAD_MODELS = {'ledtrig-heartbeat'}


class Failure(Exception):
    pass


def parse(lines):
    """Return (info, records, notes): info holds hz, tick_nsec, dropped,
    twheel_tick and complete; records are the probe's."""
    info = {'complete': False, 'twheel_tick': None}
    records = []
    for raw in lines:
        line = PRINTK_PREFIX.sub('', raw.rstrip('\r\n'))
        m = re.match(r'convert-check: twheel tick_ns: (\d+)', line)
        if m:
            info['twheel_tick'] = int(m.group(1))
        if not line.startswith(PROBE):
            continue
        body = line[len(PROBE):]
        m = re.match(r'hz (\d+) tick_nsec (\d+) dropped (\d+)$', body)
        if m:
            info.update(hz=int(m.group(1)), tick_nsec=int(m.group(2)),
                        dropped=int(m.group(3)))
            records = []
            continue
        if body == 'end':
            info['complete'] = True
            continue
        m = re.match(r'(\d+) (\d+) (\d+) (set|mark) (.*)$', body)
        if m:
            records.append({'ns': int(m.group(1)),
                            'jiffies': int(m.group(2)),
                            'load': int(m.group(3)), 'kind': m.group(4),
                            'value': m.group(5)})
    return info, records


def split_runs(records):
    """{(module, side): [(step text, [records from its mark on])]}"""
    runs, run, step = {}, None, None
    for r in records:
        if r['kind'] == 'mark':
            words = r['value'].split()
            if words[0] == 'begin' and len(words) == 3:
                run = runs.setdefault((words[1], words[2]), [])
            elif words[0] == 'end':
                run = None
            step = None
            if words[0] == 'step' and run is not None:
                step = (r['value'][len('step '):], [r])
                run.append(step)
        elif step is not None:
            step[1].append(r)
    return runs


def check_side(module, side, steps, hz, tick):
    """Check one side's steps against the model; return (changes seen,
    the timed intervals, problems).  An interval is a dict: step, i (the
    change it ends), d (jiffies asked for), ns, late (ns - d jiffies) and
    raced (short of d jiffies, jiffies at the deadline)."""
    problems, timed, seen = [], [], 0
    for text, recs in steps:
        params = dict(kv.split('=', 1) for kv in text.split())
        changes, open_ended = MODELS[module](params, recs, hz)
        sets = [r for r in recs if r['kind'] == 'set']
        got = [int(r['value']) for r in sets]
        want = [b for b, _ in changes]
        n = int(params.get('n', 0))
        seen += len(got)
        if not open_ended and len(want) != n:
            problems.append(('harness', f'step "{text}": the model makes '
                             f'{len(want)} changes, the step waits for {n}'))
        if got[:len(want)] != want or len(got) < n or \
                (not open_ended and len(got) != len(want)):
            problems.append(('sequence', f'{side} step "{text}": '
                             f'changes {got}, the model says {want}'
                             f'{" and on" if open_ended else ""}'))
            continue
        for i in range(1, len(sets)):
            d = changes[i][1]
            if d is None:
                continue
            a, b = sets[i - 1], sets[i]
            ns = b['ns'] - a['ns']
            jif = b['jiffies'] - a['jiffies']
            iv = {'step': text, 'i': i, 'd': d, 'ns': ns,
                  'late': ns - d * tick, 'jiffies': jif, 'raced': False}
            timed.append(iv)
            if side != 'twheel' or ns >= d * tick:
                continue
            if ns >= (d - 1) * tick and jif >= d:
                iv['raced'] = True
                continue
            problems.append(('early', f'{side} step "{text}": change {i} '
                             f'came {ns / 1e6:.3f} ms after the one '
                             f'before, {d} jiffies ({d * tick / 1e6:.3f} '
                             f'ms) asked for, jiffies +{jif}'))
    return seen, timed, problems


def ms(ns):
    return f'{ns / 1e6:+.3f}'


def figures(timed):
    late = [iv['late'] for iv in timed]
    return (f'median {ms(statistics.median(late))} ms (min {ms(min(late))}'
            f', max {ms(max(late))}, {len(late)} timed)')


def compare(info, records, modules=None, details=None):
    """Return [(module, ok, line, problems)]; write every timed interval
    to the file details, if given."""
    results = []
    if 'hz' not in info:
        return [(m, False, '', [('console', 'no probe record')])
                for m in modules or ['console']]
    hz, tick = info['hz'], info['tick_nsec']
    twtick = info['twheel_tick'] or 0
    runs = split_runs(records)
    if modules is None:
        modules = sorted({m for m, _ in runs})
    for module in modules:
        problems = []
        if not info['complete']:
            problems.append(('console', 'the record is cut short'))
        if info['dropped']:
            problems.append(('console', f'the probe dropped '
                             f'{info["dropped"]} records'))
        if module not in MODELS:
            problems.append(('harness', 'no model for this module'))
            results.append((module, False, '', problems))
            continue
        sides = {}
        for side in ('orig', 'twheel'):
            steps = runs.get((module, side))
            if not steps:
                problems.append(('missing', f'no {side} run'))
                continue
            sides[side] = check_side(module, side, steps, hz, tick)
            problems += sides[side][2]
            if details:
                for iv in sides[side][1]:
                    details.write(f'{module} {side} "{iv["step"]}" '
                                  f'{iv["i"]} d={iv["d"]} '
                                  f'ms={iv["ns"] / 1e6:.3f} '
                                  f'late={iv["late"] / 1e6:+.3f} '
                                  f'jiffies=+{iv["jiffies"]}'
                                  f'{" raced" if iv["raced"] else ""}\n')
        if len(sides) == 2 and \
                [s for s, _ in runs[(module, 'orig')]] != \
                [s for s, _ in runs[(module, 'twheel')]]:
            problems.append(('harness', 'the two sides ran different steps'))
        line = ''
        if len(sides) == 2 and sides['orig'][1] and sides['twheel'][1]:
            tw, tl = sides['twheel'][1], sides['orig'][1]
            med_tw = statistics.median(iv['late'] for iv in tw)
            bound = statistics.median(iv['late'] for iv in tl) + \
                twtick + tick
            raced = sum(iv['raced'] for iv in tw)
            line = (f'{sides["twheel"][0]} changes ({sides["orig"][0]} '
                    f'with timer_list) as the model says; lateness: twheel '
                    f'{figures(tw)}'
                    f'{f", {raced} raced a tick" if raced else ""}; '
                    f'timer_list {figures(tl)}; '
                    f'bound on the median {ms(bound)} ms')
            if module in LOAD_MODELS:
                loads = [r['load'] / (1 << FSHIFT) for _, steps in
                         ((s, runs[(module, s)]) for s in sides)
                         for _, recs in steps for r in recs]
                line += f'; load {min(loads):.2f}-{max(loads):.2f}'
            if med_tw > bound:
                problems.append(('late', f'median lateness {ms(med_tw)} '
                                 f'ms over {ms(bound)} ms'))
        elif len(sides) == 2:
            problems.append(('missing', 'no timed interval'))
        results.append((module, not problems, line, problems))
    return results


def report(results, label):
    tag = f'[{label}] ' if label else ''
    passed = failed = 0
    for module, ok, line, problems in results:
        print(f'{tag}{module}: {"ok" if ok else "FAILED"}'
              f'{": " + line if line else ""}')
        for kind, text in problems[:6]:
            print(f'{tag}  {kind}: {text}')
        if len(problems) > 6:
            print(f'{tag}  ... {len(problems) - 6} more')
        passed += ok
        failed += not ok
    return passed, failed


# The self-test: a made-up console from the models, then doctored ones.

GUEST = 'convert/modules/guest.sh'


def guest_steps():
    """{module: [step]} as convert/modules/guest.sh lists them (a step in
    a loop once), so that the self-test checks their n= too."""
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                        GUEST)
    steps, module = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r'\s*(ledtrig-[a-z]+)\)$', line)
            if m:
                module = steps.setdefault(m.group(1), [])
            m = re.match(r'\s*echo "(n=[^"]*)"$', line)
            if m and module is not None:
                module.append(m.group(1))
    return steps


def make_console(rng, guest, hz=250, twtick=1000000):
    """Records as the guest would print them, each side behaving as its
    facility should: timer_list on the tick where jiffies reaches the
    deadline, twheel up to a tick after the full delay."""
    tick = (1000000000 + hz // 2) // hz
    now = [10 ** 9]
    load = 3 << (FSHIFT - 3)
    lines = [f'convert-check: twheel tick_ns: {twtick}']
    recs = []

    def rec(kind, value):
        recs.append(f'{now[0]} {now[0] // tick} {load} {kind} {value}')

    for module, steps in guest.items():
        for side in ('orig', 'twheel'):
            rec('mark', f'begin {module} {side}')
            for text in steps:
                now[0] += rng.randrange(10 ** 6, 5 * 10 ** 6)
                rec('mark', f'step {text}')
                params = dict(kv.split('=', 1) for kv in text.split())
                # The model needs the loads only: fake records will do.
                fake = [{'kind': 'set', 'load': load}] * 40
                changes, _ = MODELS[module](params, fake, hz)
                for b, d in changes[:int(params['n'])]:
                    if d is None:
                        now[0] += rng.randrange(10 ** 5, 10 ** 7)
                    elif side == 'orig':
                        due = (now[0] // tick + d) * tick
                        now[0] = due + rng.randrange(0, 200000)
                    else:
                        now[0] += d * tick + rng.randrange(0, twtick)
                    rec('set', b)
                now[0] += 3 * 10 ** 8
                rec('mark', 'done')
            rec('mark', f'end {module} {side}')
    lines.append(f'{PROBE}hz {hz} tick_nsec {tick} dropped 0')
    lines += [PROBE + r for r in recs]
    lines.append(PROBE + 'end')
    return lines, tick


def doctor(lines, module, step_no, change_no, how, tick):
    """Doctor one change of the twheel side of module's step step_no."""
    out, in_run, step, sets = [], False, -1, -1
    for line in lines:
        body = line[len(PROBE):] if line.startswith(PROBE) else ''
        f = body.split(' ', 4)
        if len(f) == 5 and f[3] == 'mark':
            in_run = f[4] == f'begin {module} twheel' or \
                (in_run and not f[4].startswith('end'))
            if in_run and f[4].startswith('step '):
                step, sets = step + 1, -1
            out.append(line)
            continue
        if len(f) == 5 and f[3] == 'set' and in_run:
            sets += 1
            if step == step_no and sets == change_no:
                ns, jif = int(f[0]), int(f[1])
                if how == 'early':
                    # Half a jiffy early, and jiffies short too.
                    ns -= tick + tick // 2
                    jif -= 2
                elif how == 'missing':
                    continue
                elif how == 'order':
                    prev = out.pop()
                    out.append(f'{PROBE}{ns} {jif} {f[2]} set {f[4]}')
                    pf = prev[len(PROBE):].split(' ', 4)
                    line = f'{PROBE}{ns + 1} {jif} {pf[2]} set {pf[4]}'
                    out.append(line)
                    continue
                elif how == 'extra':
                    out.append(line)
                    line = f'{PROBE}{ns + 8 * 10 ** 8} {jif + 200} ' \
                           f'{f[2]} set {f[4]}'
                    out.append(line)
                    continue
                line = f'{PROBE}{ns} {jif} {f[2]} set {f[4]}'
            if how == 'late' and step == step_no and sets >= 1:
                # Every twheel change of the step 3 jiffies late, each
                # after the first: the delays add up.
                ns = int(f[0]) + 3 * tick * sets
                line = f'{PROBE}{ns} {f[1]} {f[2]} set {f[4]}'
        out.append(line)
    return out


def self_test():
    rng = random.Random(1)
    guest = guest_steps()
    lines, tick = make_console(rng, guest)
    failures = 0
    info, records = parse(lines)
    res = compare(info, records)
    if not all(ok for _, ok, _, _ in res) or len(res) != len(guest) or \
            set(guest) != set(MODELS):
        report(res, 'self-test clean')
        print('self-test: the made-up console should pass, and did not')
        failures += 1
    cases = [
        ('ledtrig-pattern', 0, 3, 'early', 'early'),
        ('ledtrig-heartbeat', 0, 5, 'early', 'early'),
        ('ledtrig-pattern', 1, 4, 'order', 'sequence'),
        ('ledtrig-heartbeat', 0, 2, 'missing', 'sequence'),
        ('ledtrig-transient', 3, 1, 'extra', 'sequence'),
        ('ledtrig-pattern', 2, 0, 'late', 'late'),
    ]
    for module, step, change, how, kind in cases:
        info, records = parse(doctor(lines, module, step, change, how, tick))
        res = {m: (ok, p) for m, ok, _, p in compare(info, records)}
        ok, problems = res[module]
        others = [m for m, (o, _) in res.items() if m != module and not o]
        if ok or kind not in [k for k, _ in problems] or others:
            print(f'self-test: {module} with change {change} of step '
                  f'{step} {how} should fail for "{kind}" alone; got '
                  f'{"a pass" if ok else problems}, others failing: '
                  f'{others}')
            failures += 1
    # A console cut short fails every module.
    info, records = parse(lines[:-1])
    if any(ok for _, ok, _, _ in compare(info, records)):
        print('self-test: a console cut short should fail')
        failures += 1
    print(f'convert-compare self-test: {len(cases) + 2 - failures} of '
          f'{len(cases) + 2} made-up consoles judged right')
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('log', nargs='?')
    ap.add_argument('--label', default='')
    ap.add_argument('--modules', help='comma-separated: fail unless each '
                    'of these ran')
    ap.add_argument('--details', help='write every timed interval here')
    ap.add_argument('--self-test', action='store_true')
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.log:
        ap.error('a console log is needed')
    with open(args.log, errors='replace') as f:
        info, records = parse(f)
    modules = args.modules.split(',') if args.modules else None
    details = open(args.details, 'w') if args.details else None
    passed, failed = report(compare(info, records, modules, details),
                            args.label)
    print(f'{passed} passed, {failed} failed')
    return 1 if failed or not passed else 0


if __name__ == '__main__':
    sys.exit(main())
