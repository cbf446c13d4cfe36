#!/bin/bash
# Interesting while tsc rejects the file with TS2345 "Argument of type 'string' is not
# assignable to parameter of type 'number'".
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$1" "$d/t.ts"
cd "$d" && timeout 30 /opt/tsc/node_modules/.bin/tsc --noEmit --strict --target es2022 --lib es2022,dom t.ts 2>&1 |
    grep -q "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'"
