#!/usr/bin/env bash
# Runs a pipeline one stage at a time on each task of ../shared/bench and ../shared/examples (each
# stage on the previous stage's result, sequentially: -j 1, the same results as the pipeline) and
# prints per task and stage: tests, bytes and non-whitespace characters before and after; for the
# rewrite stages also the bytes each kind of edit removed (replace, lift, reshape), from --trace.
#   bench/stages.sh [PIPELINE]        (default hddhr+rewrite+ddmin:line)
# Environment: TASKS (a regex selecting tasks), WHITTLE (the binary), SHARED_DIR (see tasks.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
whittle=$(whittle_binary)
pipeline=${1:-hddhr+rewrite+ddmin:line}
mapfile -t task_list < <(task_dirs "$shared/bench" "$shared/examples")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
IFS=+ read -r -a stages <<<"$pipeline"

echo "task,stage,tests,bytes_before,bytes_after,nonws_before,nonws_after,removed_by_kind"
for dir in "${task_list[@]}"; do
    task=$(basename "$dir")
    input=$(task_input "$dir")
    ext=${input##*.}
    current="$tmp/$task.0.$ext"
    cp "$dir/$input" "$current"
    for index in "${!stages[@]}"; do
        stage=${stages[$index]}
        next="$tmp/$task.$((index + 1)).$ext"
        rm -f "$tmp/stats.json"
        if ! "$whittle" reduce "$current" --no-tui -a "$stage" -j 1 -o "$next" \
            --stats-json "$tmp/stats.json" --trace "$tmp/trace.jsonl" \
            -- "$dir/oracle.sh" >"$tmp/run.log" 2>&1; then
            grep -q "language is unknown" "$tmp/run.log" && break
            echo "$task $stage: whittle failed" >&2
            tail -3 "$tmp/run.log" >&2
            break
        fi
        python3 - "$tmp/stats.json" "$tmp/trace.jsonl" "$task" "$stage" <<'PY'
import collections, csv, json, sys
try:
    s = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
removed = collections.Counter()
best = s["input_bytes"]
for line in open(sys.argv[2]):
    record = json.loads(line)
    if record["step"] == 0 or record["outcome"] != "interesting":
        continue
    kind = record["candidate"].split(" node")[0] if " node" in record["candidate"] else "other"
    removed[kind] += best - record["size"]
    best = record["size"]
kinds = " ".join(f"{k}:{v}" for k, v in sorted(removed.items())) if any(
    k in removed for k in ("replace", "lift", "reshape")) else ""
csv.writer(sys.stdout, lineterminator="\n").writerow(
    [sys.argv[3], sys.argv[4], s["tests"], s["input_bytes"], s["output_bytes"],
     s["input_nonws_chars"], s["output_nonws_chars"], kinds])
PY
        current=$next
    done
done
