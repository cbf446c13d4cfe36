#!/usr/bin/env bash
# Runs a pipeline with rewrite stages once per task (WHITTLE_BENCH_DIR and the examples)
# (sequentially, -j 1, with --trace) and splits what it did into three parts by the trace: the
# stages before the first rewrite candidate, the rewrite stages (each kind of edit apart: replace,
# lift, reshape), and the stages after the last one. Prints per task and part: tests and the
# bytes it removed (every interesting candidate of a sequential run is accepted).
#   bench/stages.sh [PIPELINE]        (default hddhr+rewrite+ddmin:line)
# Environment: TASKS (a regex selecting tasks), WHITTLE (the binary), WHITTLE_BENCH_DIR (see tasks.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
whittle=$(whittle_binary)
pipeline=${1:-hddhr+rewrite+ddmin:line}
mapfile -t task_list < <(task_dirs "$bench_dir" "$examples_dir")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "task,pipeline,tests,output_nonws,before_tests,before_bytes,rewrite_tests,replace_bytes,lift_bytes,reshape_bytes,after_tests,after_bytes"
for dir in "${task_list[@]}"; do
    task=$(basename "$dir")
    input=$(task_input "$dir")
    rm -f "$tmp/out" "$tmp/stats.json" "$tmp/trace.jsonl"
    if ! "$whittle" reduce "$dir/$input" --no-tui -a "$pipeline" -j 1 -o "$tmp/out" \
        --stats-json "$tmp/stats.json" --trace "$tmp/trace.jsonl" \
        -- "$dir/oracle.sh" >"$tmp/run.log" 2>&1; then
        grep -q "language is unknown" "$tmp/run.log" && continue
        echo "$task: whittle failed" >&2
        tail -3 "$tmp/run.log" >&2
        continue
    fi
    python3 - "$tmp/stats.json" "$tmp/trace.jsonl" "$task" "$pipeline" <<'PY'
import csv, json, sys
stats = json.load(open(sys.argv[1]))
records = [json.loads(line) for line in open(sys.argv[2])]
kinds = ("replace", "lift", "reshape")
kind_of = lambda r: r["candidate"].split(" node")[0]
rewrite_at = [i for i, r in enumerate(records) if kind_of(r) in kinds]
first, last = (rewrite_at[0], rewrite_at[-1]) if rewrite_at else (len(records), len(records) - 1)
tests = {"before": 0, "rewrite": 0, "after": 0}
removed = {"before": 0, "replace": 0, "lift": 0, "reshape": 0, "after": 0}
best = stats["input_bytes"]
for i, r in enumerate(records):
    part = "before" if i < first else "after" if i > last else "rewrite"
    if r["step"] == 0:
        continue
    if r["action"] == "test":
        tests[part] += 1
    if r["outcome"] == "interesting":
        removed[kind_of(r) if part == "rewrite" else part] += best - r["size"]
        best = r["size"]
csv.writer(sys.stdout, lineterminator="\n").writerow(
    [sys.argv[3], sys.argv[4], stats["tests"], stats["output_nonws_chars"],
     tests["before"], removed["before"], tests["rewrite"], removed["replace"],
     removed["lift"], removed["reshape"], tests["after"], removed["after"]])
PY
done
