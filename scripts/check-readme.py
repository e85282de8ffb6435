#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that README.md and docs/*.md still agree with the tree.

Every code sample and every quoted figure says where it came from, in an
HTML comment on a line of its own just before it:

  <!-- copy: PATH -->       the fenced block below is the whole of PATH
  <!-- excerpt: PATH -->    its lines are consecutive lines of PATH (lines
                            of a C comment may drop their leading " * ")
  <!-- names: PATH -->      every function and struct it names is in PATH
  <!-- calls: PATH -->      every call of twheel's API in it (callout_*,
                            setcallout*, unsetcallout*, timeout, untimeout,
                            twheel_*) and every struct callout* it names is
                            declared in PATH, each call with as many
                            arguments as its declaration
  <!-- rows: PATH -->       every line of the table below is a line of PATH
  <!-- figures: PATH -->    each row of the table below, or each line of
                            the paragraph below, has its numbers, in
                            order, on one line of PATH (columns may be
                            left out)
  <!-- output: COMMAND -->  the block, table or paragraph below is what
                            COMMAND printed; it is not run again here, but
                            COMMAND must be a make target or a script
  <!-- drawing: WHAT -->    the block below is a picture drawn by hand

A PATH with a wildcard (twheel_*.c) names the files it matches, and the
block must agree with one of them.

Besides, a fenced block other than `sh` (commands to type) must carry one
of these, and so must a table with a cell that is a measurement (numbers,
with a unit or a slash between them maybe); every
`make TARGET` in code must be a target of the Makefile; every file named
in backticks, every relative link and its #anchor must exist; and every
twheel_*, TWHEEL_*, callout_* and CALLOUT_* name in backticks must occur
in the sources.

And docs/design.md must name every header of the tree (one at the top
level by its name, any other by its path from the top, one of user/shim/
by its path from there, as it is included) and every folder at the top
of the tree (as "NAME/"); the tree is what git has, and the files not yet
added, as they are when this runs.

Prints each finding and exits 1 if there is any.
"""

import re
import subprocess
import sys
from pathlib import Path

top = Path(__file__).resolve().parent.parent
docs = [top / 'README.md'] + sorted((top / 'docs').glob('*.md'))
MARK = re.compile(r'^<!-- (copy|excerpt|names|calls|rows|figures|output|'
                  r'drawing): (.+?) -->$')
NUM = re.compile(r'\d+(?:\.\d+)?')
# A table cell that is a measurement: numbers, maybe several ("48 / 46.4",
# "1.2x"), maybe with a unit ("1945 us").
FIGURE = re.compile(r'\s*~?[\d.,]+(?:\s*(?:/|x|%|us|ns|ms|s)\s*[\d.,]*)*\s*')
OURS = re.compile(r'\b(?:twheel|TWHEEL|callout|CALLOUT)_\w+')
# The calls a <!-- calls: --> block is held to.
API = re.compile(r'(?:un)?setcallout\w*|callout_\w+|(?:un)?timeout|twheel_\w+|'
                 r'DEFINE_CALLOUT')
FILE = re.compile(r'^[\w.*/-]+\.(?:c|h|sh|py|md|csv|png|config|conf)$|'
                  r'^[\w.-]+(?:/[\w.*-]+)+/?$')
findings = []

tree = [p for p in top.rglob('*') if p.is_file() and
        not {'.git', 'build'} & set(p.relative_to(top).parts[:1])]
names = {p.name for p in tree}
sources = '\n'.join(p.read_text(errors='replace') for p in tree
                    if p.suffix in ('.c', '.h', '.sh', '.py', '.config')
                    or p.name in ('Kbuild', 'Makefile', 'dkms.conf'))
words = set(re.findall(r'\w+', sources))
makefile = (top / 'Makefile').read_text()
targets = {t for line in re.findall(r'^([\w .-]+):(?!=)', makefile, re.M)
           for t in line.split()}


def slug(heading):
    return re.sub(r'[^\w -]', '', heading.strip().lower()).replace(' ', '-')


def unit(lines, i):
    """The fenced block, table or paragraph starting at or after line i."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].startswith('```'):
        j = i + 1
        while j < len(lines) and not lines[j].startswith('```'):
            j += 1
        return lines[i][3:], lines[i + 1:j], j + 1
    j = i
    table = i < len(lines) and lines[i].startswith('|')
    while j < len(lines) and lines[j].strip() and \
            (lines[j].startswith('|') or not table):
        j += 1
    return None, lines[i:j], j


def check_mark(kind, arg, lang, body):
    """What is wrong with a marked block, or None."""
    if kind == 'drawing':
        return None
    if kind == 'output':
        cmd = re.sub(r'^(\w+=\S*\s+)*', '', arg).split()
        if cmd[:1] == ['make'] and cmd[1:2] and cmd[1] in targets:
            return None
        if cmd and cmd[0].startswith('scripts/') and (top / cmd[0]).is_file():
            return None
        return f'"{arg}" is no make target or script'
    if not any(c in arg for c in '*?['):
        path = top / arg
        if not path.is_file():
            return f'{arg} does not exist'
        return check_file(kind, arg, path.read_text(errors='replace'), body)
    paths = sorted(p for p in top.glob(arg) if p.is_file())
    if not paths:
        return f'no file matches {arg}'
    problems = [check_file(kind, arg, p.read_text(errors='replace'), body)
                for p in paths]
    return None if None in problems else problems[0]


def check_file(kind, arg, text, body):
    """What is wrong with a block marked KIND: ARG, against TEXT, or None."""
    if kind == 'calls':
        return check_calls(arg, text, body)
    if kind == 'copy':
        return None if '\n'.join(body) + '\n' == text else f'not a copy of {arg}'
    if kind == 'excerpt':
        raw = [line.rstrip() for line in text.splitlines()]
        bare = [re.sub(r'^ \*[ \t]?', '', line) for line in raw]
        want = [line.rstrip() for line in body]
        for src in (raw, bare):
            for i in range(len(src) - len(want) + 1):
                if src[i:i + len(want)] == want:
                    return None
        return f'not an excerpt of {arg}'
    if kind == 'names':
        there = set(re.findall(r'\w+', text))
        used = re.findall(r'(\w+)\s*\(', '\n'.join(body)) + \
            re.findall(r'struct (\w+)', '\n'.join(body))
        gone = sorted(set(used) - there)
        return f'not in {arg}: {", ".join(gone)}' if gone else None
    if kind == 'rows':
        there = {line.strip() for line in text.splitlines()}
        gone = [row for row in body if row.strip() not in there]
        return f'row not in {arg}: {gone[0].strip()}' if gone else None
    # A table may leave columns out, but each row's figures must appear,
    # in order, on one line of PATH; so must each line of a paragraph's.
    lines = [NUM.findall(line) for line in text.splitlines()]
    for row in body[2:] if body and body[0].startswith('|') else body:
        want = NUM.findall(row)
        if not any(subsequence(want, have) for have in lines):
            return f'figures not on one line of {arg}: {row.strip()}'
    return None


def arguments(text, i):
    """The arguments of the parenthesis opening at text[i], split."""
    depth, args, start = 0, [], i + 1
    for j in range(i, len(text)):
        if text[j] in '([{':
            depth += 1
        elif text[j] in ')]}':
            depth -= 1
            if depth == 0:
                args.append(text[start:j])
                break
        elif text[j] == ',' and depth == 1:
            args.append(text[start:j])
            start = j + 1
    args = [a.strip() for a in args]
    return [] if args in ([''], ['void']) else args


def unquoted(text):
    """TEXT without its comments and with its strings emptied."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', text)


def check_calls(arg, text, body):
    """Each API call of BODY declared in TEXT, with its number of arguments."""
    text, code = unquoted(text), unquoted('\n'.join(body))
    declared = {}
    # At the start of a line: a macro with arguments, or a declaration.
    head = r'^(?:#define\s+(\w+)\(|[A-Za-z_][\w \t*]*?\b(\w+)\s*\()'
    for m in re.finditer(head, text, re.M):
        name = m.group(1) or m.group(2)
        declared.setdefault(name, set()).add(len(arguments(text, m.end() - 1)))
    wrong = []
    for m in re.finditer(r'\b(\w+)\s*\(', code):
        name = m.group(1)
        if not API.fullmatch(name):
            continue
        n = len(arguments(code, m.end() - 1))
        if name not in declared:
            wrong.append(f'{name}() is not declared')
        elif n not in declared[name]:
            wrong.append(f'{name}() with {n} arguments, declared with '
                         f'{" or ".join(map(str, sorted(declared[name])))}')
    for name in re.findall(r'struct (callout\w*)', code):
        if not re.search(r'struct ' + name + r'\b', text):
            wrong.append(f'struct {name} is not declared')
    return f'against {arg}: {"; ".join(wrong)}' if wrong else None


def subsequence(want, have):
    rest = iter(have)
    return all(w in rest for w in want)


def check_code(doc, text):
    """Make targets, files and names in code spans and sh blocks."""
    for span in re.findall(r'`([^`]+)`', text):
        span = ' '.join(span.split())
        for m in re.finditer(r'(?:^|\s)make ((?:[A-Z_]+=\S+ )*)([a-z][\w-]*)',
                             span):
            if m.group(2) not in targets:
                findings.append(f'{doc}: make {m.group(2)}: no such target')
        if FILE.match(span):
            hits = list(top.glob(span.rstrip('/'))) if '/' in span else \
                [1 for n in names if Path(n).match(span)]
            if not hits and not span.startswith(('build/', '/')):
                findings.append(f'{doc}: `{span}` does not exist')
            continue
        for name in OURS.findall(span):
            if name not in words:
                findings.append(f'{doc}: `{name}` is not in the sources')


for doc_path in docs:
    doc = doc_path.relative_to(top)
    text = doc_path.read_text()
    lines = text.splitlines()
    check_code(doc, re.sub(r'^```.*?^```$', '', text, flags=re.S | re.M))
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        m = MARK.match(lines[i])
        if m:
            lang, body, end = unit(lines, i + 1)
            problem = check_mark(m.group(1), m.group(2), lang, body)
            if problem:
                findings.append(f'{doc}:{i + 1}: {problem}')
            i = end
            continue
        lang, body, end = unit(lines, i)
        if lang is not None and lang != 'sh':
            findings.append(f'{doc}:{i + 1}: a ```{lang} block with no source')
        elif lang == 'sh':
            check_code(doc, '\n'.join(f'`{b}`' for b in body))
        elif body and body[0].startswith('|') and any(
                FIGURE.fullmatch(cell)
                for row in body[2:] for cell in row.strip('|').split('|')):
            findings.append(f'{doc}:{i + 1}: a table of figures with no source')
        i = max(end, i + 1)
    for target, anchor in re.findall(r'\]\(([^)#\s:]*)(#[^)\s]*)?\)', text):
        path = (doc_path.parent / target).resolve() if target else doc_path
        if not path.exists():
            findings.append(f'{doc}: link to {target}: no such file')
        elif anchor and path.suffix == '.md' and anchor[1:] not in {
                slug(h) for h in re.findall(r'^#+ (.*)$', path.read_text(), re.M)}:
            findings.append(f'{doc}: link to {target}{anchor}: no such heading')


def tracked():
    """The tree's files, as git has them, and those not yet added."""
    try:
        out = subprocess.run(['git', '-C', str(top), 'ls-files', '--cached',
                              '--others', '--exclude-standard', '-z'],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return sorted(str(p.relative_to(top)) for p in tree)
    return sorted({f for f in out.decode().split('\0')
                   if f and (top / f).is_file()})


def named(text, name):
    """Whether TEXT names NAME by itself, not as part of a longer path."""
    return re.search(r'(?<![\w-])(?<!\w/)' + re.escape(name) +
                     r'(?![\w/-]|\.\w)', text) is not None


def check_design():
    """docs/design.md names every header and every top-level folder."""
    design = top / 'docs' / 'design.md'
    text = design.read_text()
    files = tracked()
    for f in files:
        if not f.endswith('.h'):
            continue
        ways = [f]
        if f.startswith('user/shim/'):
            ways.append(f[len('user/shim/'):])
        if not any(named(text, w) for w in ways):
            findings.append(f'docs/design.md: names no header {f}')
    for folder in sorted({f.split('/')[0] for f in files if '/' in f}):
        if not named(text, folder + '/'):
            findings.append(f'docs/design.md: names no folder {folder}/')


check_design()

for finding in findings:
    print(f'check-readme: {finding}', file=sys.stderr)
sys.exit(1 if findings else 0)
