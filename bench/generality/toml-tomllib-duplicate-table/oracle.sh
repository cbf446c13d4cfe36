#!/bin/bash
# Interesting iff Python 3.11's tomllib rejects the file with
#   tomllib.TOMLDecodeError: Cannot declare ('tool', 'ruff', 'lint') twice
# (a pyproject.toml where a later edit re-opened an existing table instead of amending it).
f=$(readlink -f "$1")
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3   # Debian CPython 3.11; the pyenv shim costs ~0.2 s per call
out=$(timeout 10 $PY -I -c '
import sys, tomllib
with open(sys.argv[1], "rb") as fh:
    tomllib.load(fh)
' "$f" 2>&1) && exit 1
grep -q "^tomllib.TOMLDecodeError: Cannot declare ('tool', 'ruff', 'lint') twice" <<<"$out"
