#!/bin/bash
# Interesting while javac rejects the file with "cannot assign a value to final variable".
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$1" "$d/LFUCache.java"
cd "$d" && timeout 30 javac -J-XX:TieredStopAtLevel=1 -J-Xshare:auto -d out LFUCache.java 2>&1 |
    grep -q "cannot assign a value to final variable"
