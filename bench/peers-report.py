#!/usr/bin/env python3
"""The Markdown tables of docs/benchmarks.md section 8 from bench/peers.sh's CSV and the
statistics it kept (KEEP directory).

    bench/peers-report.py [CSV [KEEP-DIR]]

Defaults: bench/results/peers.csv and bench/results/outputs/peers (run bench/peers.sh with
KEEP=bench/results/outputs/peers to make it; git ignores it).
Table 1: per task, shrinkray, whittle's default and --fast (and treereduce where it ran):
non-whitespace characters / oracle runs / wall seconds. Table 2: per task and stage of the default, the bytes it removed, their
share of all the bytes removed, and its tests.
"""
import csv
import json
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
csv_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "bench/results/peers.csv")
keep = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "bench/results/outputs/peers")

rows = list(csv.DictReader(open(csv_path)))
tasks = []
for row in rows:
    if row["task"] not in tasks:
        tasks.append(row["task"])


def find(task, reducer, pipeline):
    found = [r for r in rows if r["task"] == task and r["reducer"] == reducer and r["pipeline"] == pipeline]
    return found[-1] if found else None


def cell(row):
    if row is None:
        return ""
    capped = " (cap)" if row.get("capped") == "yes" else ""
    return f"{row['output_nonws']} / {row['oracle_runs']} / {row['wall_s']}{capped}"


def treereduce(task):
    return find(task, "treereduce", "treereduce-c") or find(task, "treereduce", "treereduce-java")


with_treereduce = any(treereduce(task) for task in tasks)
print("| task | shrinkray | whittle default | whittle --fast |"
      + (" treereduce |" if with_treereduce else ""))
print("| --- | ---: | ---: | ---: |" + (" ---: |" if with_treereduce else ""))
for task in tasks:
    print(f"| {task} | {cell(find(task, 'shrinkray', 'shrinkray'))} | "
          f"{cell(find(task, 'whittle', 'default'))} | {cell(find(task, 'whittle', '--fast'))} |"
          + (f" {cell(treereduce(task))} |" if with_treereduce else ""))

stats = {}
for task in tasks:
    path = os.path.join(keep, f"{task}.whittle.default.json")
    if os.path.exists(path):
        stats[task] = json.load(open(path))
names = []
for s in stats.values():
    for stage in s.get("stages", []):
        if stage["name"] not in names:
            names.append(stage["name"])
if not names:
    sys.exit(0)
print()
print("| task | " + " | ".join(f"`{n}`" for n in names) + " |")
print("| --- |" + " ---: |" * len(names))
for task in tasks:
    s = stats.get(task)
    if s is None:
        continue
    by_name = {stage["name"]: stage for stage in s["stages"]}
    removed = sum(stage["bytes_removed"] for stage in s["stages"]) or 1
    cells = []
    for n in names:
        stage = by_name.get(n)
        if stage is None:
            cells.append("")
        else:
            share = 100.0 * stage["bytes_removed"] / removed
            cells.append(f"{stage['bytes_removed']} ({share:.2f} %) / {stage['tests']}")
    print(f"| {task} | " + " | ".join(cells) + " |")
