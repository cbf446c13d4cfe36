#!/usr/bin/env python3
"""Lists the functions longer than a limit (lines) in the Rust files under the given folders:
`python3 scripts/long-functions.py 80 whittle-core/src`. A function ends at the first line that
is its indentation followed by `}` (rustfmt's layout)."""
import re, sys, pathlib
limit = int(sys.argv[1]); roots = sys.argv[2:]
fn = re.compile(r'^(\s*)(pub(\([a-z:]+\))? )?(const )?(async )?(unsafe )?fn (\w+)')
rows = []

def is_declaration(lines, start):
    """Whether the signature starting at `start` ends in `;` (a trait's method without a body),
    over however many lines rustfmt spread it."""
    for line in lines[start:]:
        end = line.rstrip()
        if '{' in end:
            return False
        if end.endswith(';'):
            return True
    return False

for root in roots:
    for path in sorted(pathlib.Path(root).rglob('*.rs')):
        lines = path.read_text().split('\n')
        for i, line in enumerate(lines):
            m = fn.match(line)
            if not m or is_declaration(lines, i):
                continue
            indent = m.group(1)
            for j in range(i + 1, len(lines)):
                if lines[j] == indent + '}':
                    n = j - i + 1
                    if n > limit:
                        rows.append((n, f'{path}:{i+1}', m.group(7)))
                    break
for n, where, name in sorted(rows, reverse=True):
    print(f'{n:5} {where} {name}')
print(f'{len(rows)} functions over {limit} lines')
