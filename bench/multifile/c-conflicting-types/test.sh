#!/bin/sh
# Interesting while compiling shapes.c reports conflicting types for scale_shape (declared in
# shapes.h, defined with another return type). C-Vise style: the files by name in the working
# directory; a directory given as the argument (shrinkray, whittle DIR) is entered first.
if [ -n "$1" ] && [ -d "$1" ]; then cd "$1" || exit 1; fi
[ -f shapes.c ] && [ -f shapes.h ] || exit 1
gcc -fsyntax-only -w shapes.c 2>&1 | grep -q "conflicting types for .scale_shape."
