#!/usr/bin/env python3
"""The Markdown tables of docs/benchmarks.md from bench/minimizers.sh's CSV: per shape (the
default pipeline, --fast), a row per task and a column per list minimizer, each cell oracle
runs / non-whitespace characters / wall seconds (`(limit)`: stopped by LIMIT), and a row of
totals over the tasks every minimizer finished.

    bench/minimizers-report.py [CSV]   (default bench/results/minimizers.csv)
"""

import csv
import sys
from collections import defaultdict
from pathlib import Path

MINIMIZERS = ["ddmin", "sweep", "probdd", "cdd"]
SHAPES = [("default", "the default pipeline"), ("fast", "--fast")]


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).parent / "results" / "minimizers.csv")
    rows = defaultdict(dict)
    tasks = []
    with path.open() as f:
        for row in csv.DictReader(f):
            rows[(row["task"], row["shape"])][row["minimizer"]] = row
            if row["task"] not in tasks:
                tasks.append(row["task"])
    for shape, title in SHAPES:
        print(f"\n{title} (oracle runs / non-ws characters / seconds):\n")
        print("| task | " + " | ".join(MINIMIZERS) + " |")
        print("| --- |" + " ---: |" * len(MINIMIZERS))
        totals = defaultdict(lambda: [0, 0, 0.0])
        for task in tasks:
            runs = rows.get((task, shape))
            if not runs:
                continue
            cells = []
            for minimizer in MINIMIZERS:
                run = runs.get(minimizer)
                if run is None:
                    cells.append("–")
                    continue
                cap = " (limit)" if run.get("stopped") else ""
                cells.append(
                    f"{run['oracle_runs']} / {run['nonws']} / {float(run['wall_s']):.0f}{cap}")
            print(f"| {task} | " + " | ".join(cells) + " |")
            if all(m in runs and not runs[m].get("stopped") for m in MINIMIZERS):
                for minimizer in MINIMIZERS:
                    run = runs[minimizer]
                    total = totals[minimizer]
                    total[0] += int(run["oracle_runs"])
                    total[1] += int(run["nonws"])
                    total[2] += float(run["wall_s"])
        if totals:
            cells = [f"{t[0]} / {t[1]} / {t[2]:.0f}" for t in (totals[m] for m in MINIMIZERS)]
            print("| total (tasks all four finished) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
