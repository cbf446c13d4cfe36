#!/bin/bash
# Interesting iff g++ (12, C++17, no headers) rejects the file with the const-correctness error of
# a member template calling a non-const member through a const reference:
#   "passing 'const scribe::Registry<16>' as 'this' argument discards qualifiers [-fpermissive]"
# reported in an instantiation of a class template member ("In instantiation of ...").
f=$(readlink -f "$1")
out=$(LC_ALL=C timeout 10 g++ -std=c++17 -fsyntax-only -x c++ "$f" 2>&1) && exit 1
grep -q "error: passing 'const scribe::Registry<16>' as 'this' argument discards qualifiers \[-fpermissive\]" <<<"$out" &&
    grep -q "In instantiation of" <<<"$out"
