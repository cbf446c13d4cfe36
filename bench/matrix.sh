#!/usr/bin/env bash
# Runs whittle with each pipeline on each benchmark task (WHITTLE_BENCH_DIR, default
# ../shared/bench) and each of the repository's examples/ and appends one CSV line per run to OUT
# (default bench/results/matrix.csv): task, pipeline, tests (every run of the test: oracle_runs),
# guard skips, cache hits, output bytes, non-whitespace characters, wall seconds. Runs already
# in OUT are skipped, so an interrupted matrix can be resumed. Tree pipelines are skipped on
# tasks whose language whittle cannot tell.
#   bench/matrix.sh [WHITTLE-OPTIONS...]
# Environment: PIPELINES (space-separated; default: the 16 of Table 7.1, ddmin and the default),
# TASKS (a regex selecting tasks), OUT, WHITTLE (the binary), WHITTLE_BENCH_DIR (see tasks.sh),
# KEEP (any value: each result is kept as bench/results/outputs/TASK.PIPELINE.out, with `:` and
# `,` of the pipeline turned into `-`; the folder is ignored by git).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
whittle=$(whittle_binary)
out_csv=${OUT:-$ROOT/bench/results/matrix.csv}
mapfile -t task_list < <(bench_tasks; task_dirs "$examples_dir")
mkdir -p "$(dirname "$out_csv")"
[ -s "$out_csv" ] || echo "task,pipeline,tests,guard_skips,cache_hits,output_bytes,output_nonws,wall_s" >"$out_csv"
default_pipelines="hdd hoist+hdd hddh hoist+hddh hddr hoistr+hddr hddhr hoistr+hddhr \
coarse-hdd coarse-hoist+coarse-hdd coarse-hddh coarse-hoist+coarse-hddh \
coarse-hddr coarse-hoistr+coarse-hddr coarse-hddhr coarse-hoistr+coarse-hddhr ddmin default"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for pipeline in ${PIPELINES:-$default_pipelines}; do
    for dir in "${task_list[@]}"; do
        task=$(basename "$dir")
        # A pipeline whose name has a comma (ddmin:line,char) is quoted in the CSV.
        grep -qF -e "$task,$pipeline," -e "$task,\"$pipeline\"," "$out_csv" && continue
        input=$(task_input "$dir")
        algorithm=()
        [ "$pipeline" = default ] || algorithm=(-a "$pipeline")
        rm -f "$tmp/$task.out" # whittle refuses to start over an earlier result
        if ! "$whittle" reduce "$dir/$input" --no-tui -o "$tmp/$task.out" \
            --stats-json "$tmp/$task.json" "${algorithm[@]}" "$@" -- "$dir/oracle.sh" \
            >"$tmp/$task.log" 2>&1; then
            if grep -q "language is unknown" "$tmp/$task.log"; then
                echo "$task,\"$pipeline\",n/a,,,,," >>"$out_csv"
            else
                echo "$task $pipeline: whittle failed" >&2
                tail -3 "$tmp/$task.log" >&2
            fi
            continue
        fi
        python3 - "$tmp/$task.json" "$task" "$pipeline" >>"$out_csv" <<'PY'
import csv, json, sys
s = json.load(open(sys.argv[1]))
csv.writer(sys.stdout, lineterminator="\n").writerow(
    [sys.argv[2], sys.argv[3], s["oracle_runs"], s["guard_skips"], s["cache_hits"],
     s["output_bytes"], s["output_nonws_chars"], f"{s['wall_seconds']:.1f}"])
PY
        keep_output "$tmp/$task.out" "$task.${pipeline//[:,]/-}"
        tail -1 "$out_csv"
    done
done
