#!/usr/bin/env bash
# Compares sequential and parallel ddmin on every benchmark task (WHITTLE_BENCH_DIR, default
# ../shared/bench): for each task, one run with -j 1 and then, back to back, one run with -j JOBS
# per parallel mode (lines then characters, every other setting at its default). Appends one CSV
# line per run to OUT (default bench/results/parallel.csv): task, mode, jobs, tests (every run of
# the test: oracle_runs), cache hits, output bytes, non-whitespace characters, wall seconds, and
# the wall-time ratio parallel/sequential. Then prints the table.
#   bench/parallel.sh [WHITTLE-OPTIONS...]
# Environment: WHITTLE_BENCH_DIR, WHITTLE, TASKS (a regex; see tasks.sh), MODES (default: first
# stable combined greedy), JOBS (default 2), OUT, KEEP (any value: each result is kept as
# bench/results/outputs/TASK.MODE-jJOBS.out).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
require_bench_dir
whittle=$(whittle_binary)
jobs=${JOBS:-2}
out_csv=${OUT:-$ROOT/bench/results/parallel.csv}
mkdir -p "$(dirname "$out_csv")"
[ -s "$out_csv" ] || echo "task,mode,jobs,tests,cache_hits,output_bytes,output_nonws,wall_s,ratio" >"$out_csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run TASK-DIR MODE JOBS: prints "tests,hits,bytes,nonws,wall"
run() {
    local dir=$1 mode=$2 j=$3 task input
    task=$(basename "$dir")
    input=$(task_input "$dir")
    rm -f "$tmp/$task.out" # whittle refuses to start over an earlier result
    "$whittle" reduce "$dir/$input" --no-tui -a ddmin --atoms line,char -j "$j" --parallel "$mode" \
        -o "$tmp/$task.out" --stats-json "$tmp/$task.json" "${extra[@]}" -- "$dir/oracle.sh" \
        >"$tmp/$task.log" 2>&1 || { echo "$task $mode -j $j: whittle failed" >&2; tail -3 "$tmp/$task.log" >&2; return 1; }
    keep_output "$tmp/$task.out" "$task.$mode-j$j"
    python3 - "$tmp/$task.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{s['oracle_runs']},{s['cache_hits']},{s['output_bytes']},{s['output_nonws_chars']},{s['wall_seconds']:.2f}")
PY
}

extra=("$@")
mapfile -t task_list < <(bench_tasks)
for dir in "${task_list[@]}"; do
    task=$(basename "$dir")
    sequential=$(run "$dir" stable 1) || continue
    echo "$task,sequential,1,$sequential,1.00" | tee -a "$out_csv"
    base_wall=${sequential##*,}
    for mode in ${MODES:-first stable combined greedy}; do
        parallel=$(run "$dir" "$mode" "$jobs") || continue
        ratio=$(python3 -c "print(f'{${parallel##*,} / max($base_wall, 1e-9):.2f}')")
        echo "$task,$mode,$jobs,$parallel,$ratio" | tee -a "$out_csv"
    done
done
column -s, -t "$out_csv"
