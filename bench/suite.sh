#!/usr/bin/env bash
# Runs whittle on every benchmark task (WHITTLE_BENCH_DIR, default ../shared/bench; headless; by
# default lines then characters and all other defaults) and prints a table: task, tests (every
# run of the test: oracle_runs), cache hits, guard skips, output bytes,
# non-whitespace characters, wall seconds, peak cache entries and bytes. Extra arguments go to
# `whittle reduce` (e.g. `-j 1`, `-a hdd`, `--cache config`).
#   bench/suite.sh [WHITTLE-OPTIONS...]
# Environment: WHITTLE_BENCH_DIR, WHITTLE (the binary), TASKS (a regex selecting tasks), KEEP
# (any value: each result is kept as bench/results/outputs/TASK.suite.out); see tasks.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
require_bench_dir
whittle=$(whittle_binary)
mapfile -t task_list < <(bench_tasks)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-26s %7s %7s %7s %8s %7s %8s %8s %10s\n' task tests hits skips bytes nonws wall_s \
    entries cache_bytes
for dir in "${task_list[@]}"; do
    task=$(basename "$dir")
    input=$(task_input "$dir")
    if ! "$whittle" reduce "$dir/$input" --no-tui -o "$out/$task.out" \
        --stats-json "$out/$task.json" "$@" -- "$dir/oracle.sh" >"$out/$task.log" 2>&1; then
        echo "$task: whittle failed"
        tail -5 "$out/$task.log"
        continue
    fi
    python3 - "$out/$task.json" "$task" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]:<26} {s['oracle_runs']:>7} {s['cache_hits']:>7} {s['guard_skips']:>7} "
      f"{s['output_bytes']:>8} {s['output_nonws_chars']:>7} {s['wall_seconds']:>8.1f} "
      f"{s['cache_peak_entries']:>8} {s['cache_peak_bytes']:>10}")
PY
    keep_output "$out/$task.out" "$task.suite"
done
