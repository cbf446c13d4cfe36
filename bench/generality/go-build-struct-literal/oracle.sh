#!/bin/bash
# Interesting while `go build` rejects the file with "cannot use ... as type string in struct
# literal" (a time.Duration given where a struct literal's string field stands). The build cache
# is kept in one temporary directory so that the standard library is compiled once.
export GOCACHE=${TMPDIR:-/tmp}/whittle-bench-gocache GO111MODULE=off GOTOOLCHAIN=local
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$1" "$d/main.go"
# The program goes into the scratch directory: as root, `go build -o /dev/null` of a file that
# compiles would replace /dev/null itself.
cd "$d" && timeout 20 go build -o prog main.go 2>&1 | grep -q "as type string in struct literal"
