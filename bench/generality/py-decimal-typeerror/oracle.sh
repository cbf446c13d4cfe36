#!/bin/bash
# Interesting iff running the module (CPython 3.11) dies with
#   TypeError: unsupported operand type(s) for +: 'int' and 'str'
# raised in `__add__` (the innermost frame of the traceback): `_normalize` hands a coefficient
# back as a string when the exponents differ by more than one, and the sum of the demo at the end
# adds it to an int.
f=$(readlink -f "$1"); d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3   # Debian CPython 3.11; the pyenv shim costs ~0.2 s per call
out=$(cd "$d" && timeout 10 $PY -I -B "$f" 2>&1 </dev/null) && exit 1
last=$(tail -1 <<<"$out")
[ "$last" = "TypeError: unsupported operand type(s) for +: 'int' and 'str'" ] || exit 1
grep -E '^  File ' <<<"$out" | tail -1 | grep -q ', in __add__$'
