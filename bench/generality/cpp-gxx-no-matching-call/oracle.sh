#!/bin/bash
# Interesting while g++ rejects the file with "no matching function for call to" (a member
# function called with one argument too many).
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$1" "$d/t.cpp"
cd "$d" && timeout 20 g++ -std=c++17 -fsyntax-only t.cpp 2>&1 | grep -q "no matching function for call to"
