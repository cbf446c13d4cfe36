#!/bin/bash
# Interesting iff node (v20) running the file dies with
#   TypeError: Cannot read properties of undefined (reading 'replace')
# thrown in `normaliseLocale` (the first frame of the stack): a user without a locale and a request
# without an Accept-Language header reach a string method through two helpers and a route handler.
f=$(readlink -f "$1"); d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
out=$(cd "$d" && timeout 10 node "$f" 2>&1 </dev/null) && exit 1
grep -q "^TypeError: Cannot read properties of undefined (reading 'replace')$" <<<"$out" || exit 1
grep -E '^    at ' <<<"$out" | head -1 | grep -q '^    at normaliseLocale '
