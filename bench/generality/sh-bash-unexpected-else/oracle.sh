#!/bin/bash
# Interesting iff `bash -n` (parse only, nothing is run) rejects the script with
#   syntax error near unexpected token `else'
# (a `for` loop missing its `done` inside an if/else branch of a release script).
f=$(readlink -f "$1")
out=$(LC_ALL=C timeout 10 bash -n "$f" 2>&1) && exit 1
grep -q "syntax error near unexpected token \`else'" <<<"$out"
