#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the instructions of twheel's pairs go, by what they do.

  pair-breakdown.py TWHEEL_KO DIR

DIR holds scripts/pair-trace.sh's listings (twheel_setcallout-6.txt,
twheel_setcallout-7.txt, and twheel_timeout-6.txt and -7.txt when
TWHEEL_PAIRS named it: one line per instruction executed,
"function+offset" and the instruction) of a guest that ran TWHEEL_KO;
with none, there is nothing to do.  Most of a pair runs inside
setcallout() and unsetcallout(), or timeout() and untimeout(), with the
wheel, the hash and the locking inlined into them, so the function a
listing names says little.  Each instruction of twheel.ko is looked up in
TWHEEL_KO's debug information (addr2line -i), and the innermost function
it was written in, inlined or not, puts it in a group; the kernel's own
functions are grouped by name.  Writes DIR/breakdown.md, a table of
instructions per group and scheme for each facility traced, and prints
it.  Exits 1 if an instruction falls in no group, so that a renamed
function cannot go uncounted.
"""

import re
import subprocess
import sys
from pathlib import Path

# Groups in the order of the table, each with the functions that make it.
GROUPS = [
    ('the wheel: place, link, count, busy bit (twheel_core.h)',
     {'place', 'place_any', 'add_at', '__twheel_add_at', '__twheel_del', '__fls',
      'slot_get', 'slot_put', 'entry_link_tail', 'entry_unlink', 'lvl_div',
      'lvl_slot'}),
    ('the callout: function, argument, deadline, counters, hrtimer test',
     {'arm_callout', 'cancel_locked', 'cancel_run_locked', 'wake_idle_wheel',
      'arm_tick', 'twheel_next_hint', 'callout_debug_activate',
      'callout_debug_deactivate', 'callout_tracked', 'arch_static_branch',
      'static_key_false', 'trace_callout_start_enabled',
      'trace_callout_cancel', 'trace_callout_start'}),
    ('clock read: ktime_get()',
     {'ktime_get', 'read_tsc', '__x86_indirect_thunk_rax', 'ktime_get_ns'}),
    ('clock to tick: one multiply',
     {'ns_to_tick', 'twheel_div_recip', 'current_tick'}),
    ('interrupts off and back on',
     {'arch_local_save_flags', 'arch_local_irq_save',
      'arch_local_irq_disable', 'arch_local_irq_enable', 'arch_local_irq_restore',
      'arch_irqs_disabled_flags', 'native_save_fl', 'native_irq_disable',
      'native_restore_fl'}),
    ('base lock: find the base, lock, unlock',
     {'lock_callout_base_irqoff', 'lock_callout_base', '_raw_spin_lock',
      '_raw_spin_unlock', '_raw_spin_unlock_irqrestore', 'preempt_count_add',
      'preempt_count_sub', 'queued_spin_lock', 'queued_spin_unlock',
      'owner_on'}),
    ('handle and argument checks', {'callout_valid'}),
    ('timeout(): the key hashed to its bucket and stripe',
     {'hash_key', 'hash_64_generic', 'stripe', 'htab', 'chain'}),
    ("timeout(): the key's stripe lock",
     {'stripe_lock', 'stripe_unlock', 'stripe_lock_irqsave',
      'stripe_unlock_irqrestore', 'arch_test_and_set_bit',
      'arch___clear_bit', 'test_and_set_bit_lock', '__clear_bit_unlock'}),
    ("timeout(): the key's chain: find, link, unlink, count",
     {'key_find', 'key_add', 'key_del', 'key_cancel', 'unhash',
      'hlist_empty', 'is_power_of_2'}),
    ("timeout(): an entry from the CPU's free list and back",
     {'free_pop', 'free_push', 'free_link', 'free_ask', 'timeout_get',
      'timeout_put', 'constant_test_bit'}),
    ('entry and return of the two calls',
     {'setcallout', 'unsetcallout', 'twheel_timeout', 'twheel_untimeout',
      'twheel_arm_timeout', 'twheel_cancel_timeout'}),
    ("the benchmark's loop and random delay",
     {'tw_callout_pairs', 'tw_timeout_pairs', 'prandom_u32_state',
      'far_random'}),
]

# The facilities pair-trace.sh traces in twheel.ko, and their tables' names.
FACILITIES = [('twheel_setcallout', 'The setcallout pair'),
              ('twheel_timeout', 'The timeout pair')]


def symbols(ko):
    """Offsets in .text of TWHEEL_KO's functions."""
    out = subprocess.run(['nm', '--defined-only', ko], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'tT':
            syms[re.sub(r'\.(isra|constprop|part|cold)\.\d+$', '',
                        parts[2])] = int(parts[0], 16)
    return syms


def innermost(ko, addrs):
    """The innermost function each address of TWHEEL_KO was written in."""
    if not addrs:
        return {}
    out = subprocess.run(['addr2line', '-a', '-f', '-i', '-e', ko],
                         input=''.join('%#x\n' % a for a in addrs),
                         check=True, capture_output=True, text=True).stdout
    names, addr, first = {}, None, False
    for line in out.splitlines():
        if re.match(r'^0x[0-9a-f]+$', line):
            addr, first = int(line, 16), True
        elif first and not re.search(r':(\d+|\?)( |$)', line):
            names[addr], first = line, False
    return names


def table(ko, syms, d, facility):
    """The rows of FACILITY's table, or None if DIR has no listing of it."""
    schemes = [s for s in ('6', '7')
               if (d / ('%s-%s.txt' % (facility, s))).exists()]
    if not schemes:
        return None
    counts = {s: {} for s in schemes}
    unknown = set()
    for s in schemes:
        listing = d / ('%s-%s.txt' % (facility, s))
        funcs = []
        for line in listing.read_text().splitlines():
            if line.startswith('#'):
                continue
            m = re.match(r'^([\w.]+)\+0x([0-9a-f]+)\t', line)
            if not m:
                sys.exit('pair-breakdown: cannot read %s: %r' % (listing, line))
            name = re.sub(r'\.(isra|constprop|part|cold)\.\d+$', '', m[1])
            funcs.append((name, int(m[2], 16)))
        addrs = sorted({syms[f] + o for f, o in funcs if f in syms})
        where = innermost(ko, addrs)
        for f, o in funcs:
            inner = where.get(syms[f] + o, f) if f in syms else f
            group = next((g for g, fs in GROUPS if inner in fs), None)
            if group is None:
                unknown.add(inner)
                continue
            counts[s][group] = counts[s].get(group, 0) + 1
    if unknown:
        sys.exit('pair-breakdown: in no group: ' + ', '.join(sorted(unknown)))
    rows = ['| what the instructions do | ' +
            ' | '.join('scheme ' + s for s in schemes) + ' |',
            '| --- |' + ' ---: |' * len(schemes)]
    for g, _ in GROUPS:
        if any(counts[s].get(g, 0) for s in schemes):
            rows.append('| %s | %s |' % (g, ' | '.join(
                str(counts[s].get(g, 0)) for s in schemes)))
    rows.append('| all of one traced pair | %s |' % ' | '.join(
        str(sum(counts[s].values())) for s in schemes))
    return rows


def main():
    ko, d = sys.argv[1], Path(sys.argv[2])
    syms = symbols(ko)
    parts = []
    for facility, title in FACILITIES:
        rows = table(ko, syms, d, facility)
        if rows:
            parts.append('## %s\n\n%s\n' % (title, '\n'.join(rows)))
    if not parts:
        return
    text = ("# twheel's pairs by what they do\n\n"
            'scripts/pair-breakdown.py over the listings of '
            'scripts/pair-trace.sh beside this file: each instruction of '
            'one cancel+set pair at n = 100, in the group of the innermost '
            'function it was written in (addr2line -i on twheel.ko; '
            'inlined functions count as their own); a group with no '
            'instruction in a pair is left out of its table.\n\n' +
            '\n'.join(parts))
    (d / 'breakdown.md').write_text(text)
    print(text, end='')


if __name__ == '__main__':
    main()
