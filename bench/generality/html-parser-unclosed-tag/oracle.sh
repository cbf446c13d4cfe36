#!/bin/bash
# Interesting iff a strict outline checker built on Python's html.parser (a stack of open elements;
# void elements are not pushed; an end tag must close the innermost open element) fails with
#   ValueError: </li> closes <p>
# (a documentation page where one list item's paragraph lost its `</p>`).
f=$(readlink -f "$1")
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3   # Debian CPython 3.11; the pyenv shim costs ~0.2 s per call
out=$(timeout 10 $PY -I -c '
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}

class Outline(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.headings = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            raise ValueError(f"</{tag}> closes nothing")
        top = self.stack.pop()
        if top != tag:
            raise ValueError(f"</{tag}> closes <{top}>")

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("h1", "h2", "h3"):
            self.headings.append(data.strip())

with open(sys.argv[1], encoding="utf-8") as fh:
    parser = Outline()
    parser.feed(fh.read())
    parser.close()
print("\n".join(parser.headings))
' "$f" 2>&1) && exit 1
grep -q "^ValueError: </li> closes <p>$" <<<"$out"
