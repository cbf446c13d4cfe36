#!/usr/bin/env python3
"""Prints the CSV of bench/matrix.sh as Markdown: one table per task (tests, guard skips,
output non-whitespace characters, wall seconds per pipeline), then one table of non-whitespace
characters with pipelines as rows and tasks as columns.
   bench/matrix-report.py [bench/results/matrix.csv]"""
import csv
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/matrix.csv"
rows = list(csv.DictReader(open(path)))
tasks = list(dict.fromkeys(r["task"] for r in rows))
# Table 7.1's order, then ddmin and the default, then any other pipeline in the order first run.
table_order = ["hdd", "hoist+hdd", "hddh", "hoist+hddh", "hddr", "hoistr+hddr", "hddhr",
               "hoistr+hddhr", "coarse-hdd", "coarse-hoist+coarse-hdd", "coarse-hddh",
               "coarse-hoist+coarse-hddh", "coarse-hddr", "coarse-hoistr+coarse-hddr",
               "coarse-hddhr", "coarse-hoistr+coarse-hddhr", "ddmin", "default"]
seen = list(dict.fromkeys(r["pipeline"] for r in rows))
pipelines = [p for p in table_order if p in seen] + [p for p in seen if p not in table_order]
by = {(r["task"], r["pipeline"]): r for r in rows}

print("| pipeline | " + " | ".join(tasks) + " |")
print("| --- |" + " ---: |" * len(tasks))
for p in pipelines:
    cells = []
    for t in tasks:
        r = by.get((t, p))
        if r is None:
            cells.append("")
        elif r["tests"] == "n/a":
            cells.append("n/a")
        else:
            cells.append(f"{r['output_nonws']} / {r['tests']}")
    print(f"| `{p}` | " + " | ".join(cells) + " |")
print()
for t in tasks:
    print(f"#### {t}\n")
    print("| pipeline | tests | guard skips | output non-ws chars | output bytes | wall s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for p in pipelines:
        r = by.get((t, p))
        if r is None or r["tests"] == "n/a":
            continue
        print(f"| `{p}` | {r['tests']} | {r['guard_skips']} | {r['output_nonws']} | "
              f"{r['output_bytes']} | {r['wall_s']} |")
    print()
