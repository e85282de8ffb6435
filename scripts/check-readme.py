#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that every code block README.md says is a file's copy still is.

A block introduced by a line ending in "`PATH`:" must equal the file PATH.
"""

import re
import sys
from pathlib import Path

top = Path(__file__).resolve().parent.parent
text = (top / 'README.md').read_text()
stale = 0
for m in re.finditer(r'`([\w./-]+)`:\n\n```\w*\n(.*?)```\n', text, re.S):
    path, block = m.group(1), m.group(2)
    if not (top / path).is_file():
        continue
    if (top / path).read_text() != block:
        print(f'README.md: the copy of {path} is stale', file=sys.stderr)
        stale += 1
sys.exit(1 if stale else 0)
