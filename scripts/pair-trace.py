#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Single-step cancel+set pairs in a guest, and say where they went.

Two roles, for scripts/pair-trace.sh:

Inside gdb (gdb -batch -x pair-trace.py), told by the environment where
QEMU's gdbstub listens (PT_PORT), where bench_trace_pair() and the gate
trace_ready are (PT_PAIR, PT_READY), the module's text symbols
(PT_SYMS, "ADDR:NAME ..."), and which facilities the guest will trace
(PT_LABELS, in order; PT_SCHEME): breaks on bench_trace_pair(), opens the
gate, and for each pair steps from the first instruction of the
facility's *_pairs function until it is back in bench_trace_pair(),
writing each instruction's address and text to PT_OUT.

From the shell (pair-trace.py [--listings DIR] RAW:CONSOLE ...): reads
each raw trace with the text symbols the guest printed on its console,
and prints bench/bench_line.h's lines:

  trace-pair facility=F scheme=S | instructions=N locked=L pushf=P
      popf=Q cli=C sti=T rdtsc=R calls=A rets=B indirect=I jumps=J
      memory=M other=O
  trace-call facility=F scheme=S call=K callee=FN | the same metrics
  trace-function facility=F scheme=S function=FN | instructions=N

trace-call splits the pair by the calls its *_pairs function makes, K
counting them in order, each with everything it calls (call=0 is the
pairs function's own instructions); trace-function counts the
instructions executed in each function itself.  With --listings, writes
DIR/FACILITY-SCHEME.txt: every instruction, with its function and offset.
"""

import bisect
import os
import re
import sys

LIMIT = 50000           # steps in one pair before giving up


# ---- inside gdb ---------------------------------------------------------

def in_gdb():
    import gdb  # pylint: disable=import-error,import-outside-toplevel

    env = os.environ
    mask = (1 << 64) - 1
    syms = sorted((int(a, 16), n) for a, n in
                  (s.split(':', 1) for s in env['PT_SYMS'].split()))
    pair = int(env['PT_PAIR'], 16)
    starts = [a for a, _ in syms]
    i = starts.index(pair)
    pair_end = starts[i + 1] if i + 1 < len(starts) else pair + 256
    pairs_fns = {a for a, n in syms if n.endswith('_pairs')}

    def pc():
        return int(gdb.parse_and_eval('$pc')) & mask

    gdb.execute('set pagination off')
    gdb.execute('set confirm off')
    gdb.execute('set architecture i386:x86-64')
    gdb.execute(f'target remote 127.0.0.1:{env["PT_PORT"]}')
    gdb.execute('set scheduler-locking step')
    gdb.execute(f'break *{pair:#x}')
    gdb.execute(f'set {{unsigned char}} {int(env["PT_READY"], 16):#x} = 1')
    arch = gdb.selected_frame().architecture()
    with open(env['PT_OUT'], 'w', encoding='ascii') as out:
        for label in env['PT_LABELS'].split(','):
            gdb.execute('continue')
            if pc() != pair:
                raise gdb.GdbError(f'stopped at {pc():#x}, not {pair:#x}')
            steps = 0
            while pc() not in pairs_fns:
                gdb.execute('stepi', to_string=True)
                steps += 1
                if steps > LIMIT:
                    raise gdb.GdbError('no *_pairs function reached')
            out.write(f'trace {label} scheme={env["PT_SCHEME"]}\n')
            while not pair <= pc() < pair_end:
                addr = pc()
                asm = arch.disassemble(addr)[0]['asm']
                out.write(f'{addr:x} {" ".join(asm.split())}\n')
                gdb.execute('stepi', to_string=True)
                steps += 1
                if steps > LIMIT:
                    raise gdb.GdbError(f'{label}: no return after {LIMIT}')
            out.flush()
    gdb.execute('delete')
    gdb.execute('detach')


# ---- from the shell -----------------------------------------------------

SYM = re.compile(r'^([0-9a-f]{16}) [tTwW] (\S+)(?:\s+\[(\S+)\])?\s*$')

# Each instruction is of one kind, the first that fits: a lock prefix,
# the interrupt flag, the cycle counter, a call or return, a jump through
# a register or memory, a direct or conditional jump, another instruction
# that reads or writes memory (push and pop included), or none of these.
KINDS = ('locked', 'pushf', 'popf', 'cli', 'sti', 'rdtsc', 'calls', 'rets',
         'indirect', 'jumps', 'memory', 'other')
NO_ACCESS = ('lea', 'nop', 'prefetch', 'xchg %ax,%ax')


def kind(asm):
    """The kind in KINDS of instruction @asm, in gdb's AT&T syntax."""
    op = asm.split()
    name = op[0].rstrip('qlwb') if op else ''
    if op[0] == 'lock':
        return 'locked'
    if name in ('pushf', 'popf', 'cli', 'sti'):
        return name
    if op[0] in ('rdtsc', 'rdtscp'):
        return 'rdtsc'
    if op[0] in ('call', 'callq'):
        return 'calls'
    if op[0] in ('ret', 'retq'):
        return 'rets'
    if op[0].startswith('j'):
        return 'indirect' if op[1:2] and op[1].startswith('*') else 'jumps'
    if asm.startswith(NO_ACCESS):
        return 'other'
    if '(' in asm or op[0] in ('push', 'pop'):
        return 'memory'
    return 'other'


class Symbols:
    """The guest's text symbols, from the lines its console printed."""

    def __init__(self, console):
        pairs = []
        inside = False
        with open(console, encoding='ascii', errors='replace') as f:
            for line in f:
                line = line.rstrip('\r\n')
                if line.endswith('twheel-trace-kallsyms-begin'):
                    inside = True
                elif line.endswith('twheel-trace-kallsyms-end'):
                    inside = False
                elif inside:
                    m = SYM.match(line)
                    if m:
                        pairs.append((int(m.group(1), 16), m.group(2)))
        if not pairs:
            sys.exit(f'pair-trace.py: no symbols on {console}')
        pairs.sort()
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]

    def find(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return f'{addr:x}', 0
        return self.names[i], addr - self.addrs[i]


def traces(raw):
    """[(label, scheme, [(addr, asm)])] from a raw trace file."""
    out = []
    with open(raw, encoding='ascii') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('trace '):
                _, label, scheme = line.split()
                out.append((label, scheme.split('=')[1], []))
            elif line:
                addr, asm = line.split(' ', 1)
                out[-1][2].append((int(addr, 16), asm))
    return out


def metrics(insns):
    counts = dict.fromkeys(KINDS, 0)
    for _, _, asm in insns:
        counts[kind(asm)] += 1
    return f'instructions={len(insns)} ' + \
        ' '.join(f'{k}={v}' for k, v in counts.items())


def report(raw, console, listings):
    syms = Symbols(console)
    for label, scheme, steps in traces(raw):
        keys = f'facility={label} scheme={scheme}'
        insns = [syms.find(addr) + (asm,) for addr, asm in steps]
        print(f'twheel-bench: trace-pair {keys} | {metrics(insns)}')
        top = insns[0][0]
        calls, callee = [[]], None
        for fn, _, asm in insns:
            if fn == top:
                if callee is not None:
                    calls.append([])
                callee = None
                calls[0].append((fn, 0, asm))
            else:
                if callee is None:
                    callee = fn
                    calls.append([(callee, None, None)])
                calls[-1].append((fn, 0, asm))
        k = 0
        for c in calls[1:]:
            if not c:
                continue
            k += 1
            name, body = c[0][0], c[1:]
            print(f'twheel-bench: trace-call {keys} call={k} callee={name} | '
                  f'{metrics(body)}')
        print(f'twheel-bench: trace-call {keys} call=0 callee={top} | '
              f'{metrics(calls[0])}')
        own = {}
        for fn, _, _ in insns:
            own[fn] = own.get(fn, 0) + 1
        for fn, n in sorted(own.items(), key=lambda kv: -kv[1]):
            print(f'twheel-bench: trace-function {keys} function={fn} | '
                  f'instructions={n}')
        if listings:
            os.makedirs(listings, exist_ok=True)
            path = os.path.join(listings, f'{label}-{scheme}.txt')
            with open(path, 'w', encoding='ascii') as f:
                f.write(f'# {label}, scheme {scheme}: {len(insns)} '
                        'instructions, scripts/pair-trace.sh\n')
                for fn, off, asm in insns:
                    f.write(f'{fn}+{off:#x}\t{asm}\n')


def main():
    args = sys.argv[1:]
    listings = None
    if args[:1] == ['--listings']:
        listings, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    for arg in args:
        raw, console = arg.split(':', 1)
        report(raw, console, listings)


if __name__ == '__main__':
    try:
        import gdb  # noqa: F401 pylint: disable=import-error,unused-import
    except ImportError:
        main()
    else:
        in_gdb()
