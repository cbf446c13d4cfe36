#!/usr/bin/env python3
"""How small each reducer's result was at the same moments of the same task.

    bench/anytime.py KEEP [OUT.csv]

KEEP is the directory `bench/peers.sh` filled (KEEP=...): for every run a TASK.REDUCER.PIPELINE.course
file with one line "SECONDS NONWS BYTES" per interesting test. OUT.csv (default
bench/results/peers.csv) gives each run's wall time. For each task the moments are 10 %, 25 %, 50 %
and 100 % of its slowest run; a reducer's size at a moment is the smallest interesting candidate it
had tested by then (non-whitespace characters; `input` where it had none yet). For a reducer that
tests candidates in parallel and adopts only some (C-Vise, shrinkray) that is a lower bound of
what it held: the comparison favours the peers. Prints a Markdown
table, then for each whittle pipeline at how many moments it was no larger than every peer.
"""
import csv
import os
import sys
from collections import defaultdict

FRACTIONS = (0.10, 0.25, 0.50, 1.00)


def read_course(path):
    points = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            fields = line.split()
            # A line of 0 bytes is a candidate that was gone when the wrapper measured it
            # (C-Vise deletes the directories of the parallel candidates it drops), not a size
            # the reducer held; courses recorded since the wrapper measures first have none.
            if len(fields) >= 3 and int(fields[2]) == 0:
                continue
            if len(fields) >= 2:
                points.append((float(fields[0]), int(fields[1])))
    return sorted(points)


def size_at(points, moment):
    sizes = [nonws for seconds, nonws in points if seconds <= moment]
    return min(sizes) if sizes else None


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    keep = sys.argv[1]
    out_csv = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "results", "peers.csv")
    walls = {}
    with open(out_csv, encoding="utf-8") as rows:
        for row in csv.DictReader(rows):
            walls[(row["task"], row["reducer"], row["pipeline"])] = float(row["wall_s"])
    runs = defaultdict(dict)  # task -> (reducer, pipeline) -> (wall, points)
    for (task, reducer, pipeline), wall in walls.items():
        name = f"{task}.{reducer}." + "".join("-" if c in ":, /()*+" else c for c in pipeline)
        path = os.path.join(keep, name + ".course")
        if os.path.exists(path):
            runs[task][(reducer, pipeline)] = (wall, read_course(path))
    header = "| task | reducer | " + " | ".join(f"{int(f * 100)} %" for f in FRACTIONS) + " |"
    print(header)
    print("|" + " --- |" * (2 + len(FRACTIONS)))
    leads = defaultdict(lambda: [0, 0])
    for task in sorted(runs):
        slowest = max(wall for wall, _ in runs[task].values())
        moments = [f * slowest for f in FRACTIONS]
        sizes = {run: [size_at(points, m) for m in moments]
                 for run, (_, points) in runs[task].items()}
        for (reducer, pipeline), row in sorted(sizes.items()):
            label = reducer if reducer == pipeline else f"{reducer} {pipeline}"
            cells = ["input" if s is None else str(s) for s in row]
            print(f"| {task} ({slowest:.0f} s) | {label} | " + " | ".join(cells) + " |")
        peers = [row for (reducer, _), row in sizes.items() if reducer != "whittle"]
        for (reducer, pipeline), row in sizes.items():
            if reducer != "whittle" or not peers:
                continue
            for i, size in enumerate(row):
                mine = float("inf") if size is None else size
                best_peer = min(float("inf") if p[i] is None else p[i] for p in peers)
                leads[pipeline][0] += mine <= best_peer
                leads[pipeline][1] += 1
    print()
    for pipeline, (won, of) in sorted(leads.items()):
        print(f"whittle {pipeline}: no larger than every peer at {won} of {of} moments")
    return 0


if __name__ == "__main__":
    sys.exit(main())
