#!/bin/bash
# Interesting iff running the program (CPython 3.11, `--quiet`) dies with
#   TypeError: unsupported operand type(s) for +=: 'NoneType' and 'float'
# raised in the function `line_discount_cents` (the innermost frame of the traceback): a `null`
# discount from the embedded customer JSON reaches the pricing arithmetic three calls deep.
f=$(readlink -f "$1"); d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3   # Debian CPython 3.11; the pyenv shim costs ~0.2 s per call
out=$(cd "$d" && timeout 10 $PY -I -B "$f" --quiet 2>&1 </dev/null) && exit 1
last=$(tail -1 <<<"$out")
[ "$last" = "TypeError: unsupported operand type(s) for +=: 'NoneType' and 'float'" ] || exit 1
grep -E '^  File ' <<<"$out" | tail -1 | grep -q ', in line_discount_cents$'
