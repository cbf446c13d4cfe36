#!/usr/bin/env python3
"""How far off the schedule's estimate of the time left was.

    bench/eta.py STATS.json...

STATS is a run's `whittle reduce --stats-json` file. Its "schedule" lists every run of a stage of
the `(a+b+c)*` schedule with the running time it began at and the time the schedule then
estimated it still needed ("eta_seconds", the ETA the screen shows; "eta_guessed_stages" of its
stages had not yet run to their end and were guessed at a test a line). The schedule ends where
its last stage run ends (a final `polish` after it is not part of the estimate). For 25 % and
50 % of the schedule's running time prints the estimate made last before that moment, the time
that was really left then, the error (estimate / real - 1) and the stages guessed.
"""
import json
import sys


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    print(f"{'run':<34} {'at':>4} {'moment s':>9} {'eta s':>8} {'left s':>8} {'error':>7} "
          f"{'guessed':>7}")
    for path in sys.argv[1:]:
        stats = json.load(open(path))
        runs = stats.get("schedule", [])
        if not runs:
            print(f"{path:<34} no schedule")
            continue
        end = runs[-1]["started_seconds"] + runs[-1]["seconds"]
        for fraction in (0.25, 0.50):
            moment = end * fraction
            before = [run for run in runs if run["started_seconds"] <= moment]
            if not before:
                print(f"{path:<34} {fraction:>4.0%} {moment:>9.1f}  no stage began yet")
                continue
            run = before[-1]
            left = end - run["started_seconds"]
            error = run["eta_seconds"] / left - 1 if left > 0 else float("nan")
            print(f"{path:<34} {fraction:>4.0%} {moment:>9.1f} {run['eta_seconds']:>8.1f} "
                  f"{left:>8.1f} {error:>+7.0%} {run['eta_guessed_stages']:>7}")
        # Every estimate that guessed nothing (from the second round on): the median error.
        known = [abs(run["eta_seconds"] / (end - run["started_seconds"]) - 1)
                 for run in runs if run["eta_guessed_stages"] == 0
                 and end - run["started_seconds"] > 0]
        if known:
            known.sort()
            print(f"{path:<34} median |error| of {len(known)} estimates that guessed nothing: "
                  f"{known[len(known) // 2]:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
