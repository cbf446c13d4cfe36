#!/bin/sh
# Interesting while `go build` of the package (a copy of Go 1.19's text/template/parse) reports
# that a NodeType constant is used as an int. The package is the directory given as the argument
# (shrinkray, whittle), else the working directory (C-Vise: the files by name). Public code: Go
# 1.19's src/text/template/parse (BSD licence, its LICENSE is Go's), a module file and one
# planted declaration added.
if [ -n "$1" ] && [ -d "$1" ]; then pkg=$1; else pkg=.; fi
cd "$pkg" || exit 1
[ -f go.mod ] || exit 1
export GOCACHE=${TMPDIR:-/tmp}/whittle-bench-gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local
timeout 20 go build ./... 2>&1 | grep -q "NodeText + maxPipeDepth (constant .* of type NodeType) as type int"
