#!/bin/bash
# Wrong-answer task: interesting iff the naive awk report (fields split at every comma) and a real
# CSV parser (Python's csv module; every row as wide as the header) disagree on the money spent in
# the "shopping" category: a quoted description with a comma shifts awk's columns.
f=$(readlink -f "$1")
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3   # Debian CPython 3.11; the pyenv shim costs ~0.2 s per call
naive=$(LC_ALL=C timeout 10 awk -F, 'NR > 1 && $3 == "shopping" { s += $5 } END { printf "%.2f\n", s }' "$f") || exit 1
exact=$(timeout 10 $PY -I -c '
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8") as fh:
    rows = list(csv.reader(fh))
header = rows[0]
cat, amount = header.index("category"), header.index("amount")
total = 0.0
for row in rows[1:]:
    if len(row) != len(header):
        sys.exit(1)
    if row[cat] == "shopping":
        total += float(row[amount])
print(f"{total:.2f}")
' "$f" 2>/dev/null) || exit 1
[ "$naive" != "$exact" ]
