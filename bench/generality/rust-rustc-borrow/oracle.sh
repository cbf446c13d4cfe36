#!/bin/bash
# Interesting iff rustc (edition 2021, metadata only: type and borrow checking, no codegen) rejects
# the file with E0502 "cannot borrow `*self` as mutable because it is also borrowed as immutable"
# (a `&self.field` lookup kept alive across a `&mut self` method call, the classic NLL report).
f=$(readlink -f "$1"); d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
out=$(cd "$d" && LC_ALL=C timeout 10 rustc --edition 2021 --crate-type bin --emit=metadata \
    -o "$d/out.rmeta" - <"$f" 2>&1) && exit 1
grep -q 'error\[E0502\]: cannot borrow `\*self` as mutable because it is also borrowed as immutable' <<<"$out"
