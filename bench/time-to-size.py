#!/usr/bin/env python3
"""When a whittle run first held a result no larger than a given size.

    bench/time-to-size.py TRACE NONWS...

TRACE is a run's `whittle reduce --trace` file; for each NONWS (non-whitespace characters)
prints the seconds since the start and the oracle runs until the first interesting candidate of
at most that size, or `never`. Used to compare with a reducer that stops at a larger result
(is whittle there sooner?).
"""
import json
import sys


def nonws(text: str) -> int:
    return sum(1 for c in text if c not in " \t\n\r\v\f")


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    reached = []  # (nonws, seconds, steps) of each interesting candidate, in order
    with open(sys.argv[1], encoding="utf-8") as trace:
        for line in trace:
            step = json.loads(line)
            if step.get("outcome") == "interesting" and "content" in step:
                reached.append((nonws(step["content"]), step.get("t", 0.0), step.get("step", 0)))
    for target in map(int, sys.argv[2:]):
        first = next((r for r in reached if r[0] <= target), None)
        if first is None:
            print(f"{target}: never")
        else:
            print(f"{target}: {first[1]:.2f} s, step {first[2]} ({first[0]} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
