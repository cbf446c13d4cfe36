#!/bin/sh
# Interesting while importing the package `inventory` and calling report.total_value on an
# empty stock raises ZeroDivisionError. The package's files are in the directory given as the
# argument (shrinkray, whittle), else in the working directory (C-Vise: the files by name).
if [ -n "$1" ] && [ -d "$1" ]; then pkg=$1; else pkg=.; fi
[ -f "$pkg/__init__.py" ] || exit 1
export PYTHONDONTWRITEBYTECODE=1
tmp=$(mktemp -d) || exit 1
ln -s "$(cd "$pkg" && pwd)" "$tmp/inventory"
cd "$tmp" && timeout 10 python3 -c '
import inventory.report as r
r.total_value(type("S", (), {"levels": {}})(), [])
' 2>&1 | grep -q ZeroDivisionError
rc=$?
rm -rf "$tmp"
exit $rc
