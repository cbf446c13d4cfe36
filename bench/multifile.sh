#!/usr/bin/env bash
# Several files as one test case: C-Vise (the files by name), shrinkray (the directory) and
# whittle (both ways), one after another on the same machine, on the tasks of bench/multifile/
# (a directory of files beside test.sh, which takes the directory as $1 or reads the files in its
# working directory). Appends one CSV line per run to OUT (default
# bench/results/multifile.csv): task, reducer, files left, output bytes, output non-whitespace
# characters, tests (counted by a wrapper around test.sh, the same for every reducer), wall
# seconds, whether the run hit the cap.
#   bench/multifile.sh [TASK-DIR...]
# Environment: REDUCERS (default "cvise whittle-files shrinkray whittle-dir"), JOBS (default 2),
# CAP (seconds per run, default 600), WHITTLE (default target/release/whittle), SHRINKRAY
# (default /opt/shrinkray/bin/shrinkray), OUT, KEEP (a directory that receives each result).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
cap=${CAP:-600}
whittle=${WHITTLE:-${CARGO_TARGET_DIR:-$ROOT/target}/release/whittle}
shrinkray=${SHRINKRAY:-/opt/shrinkray/bin/shrinkray}
reducers=${REDUCERS:-cvise whittle-files shrinkray whittle-dir}
out_csv=${OUT:-$ROOT/bench/results/multifile.csv}
if [ $# -gt 0 ]; then tasks=("$@"); else tasks=("$ROOT"/bench/multifile/*/); fi
mkdir -p "$(dirname "$out_csv")"
[ -s "$out_csv" ] || echo "task,reducer,files,output_bytes,output_nonws,tests,wall_s,capped" >"$out_csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for task_dir in "${tasks[@]}"; do
    task_dir=$(cd "$task_dir" && pwd)
    task=$(basename "$task_dir")
    case_name=$(find "$task_dir" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | head -1)
    for reducer in $reducers; do
        work=$tmp/$task.$reducer
        rm -rf "$work" && mkdir -p "$work"
        cp -r "$task_dir/$case_name" "$work/$case_name"
        count=$work/count
        : >"$count"
        cat >"$work/test.sh" <<W
#!/bin/sh
echo >>"$count"
exec "$task_dir/test.sh" "\$@"
W
        chmod +x "$work/test.sh"
        start=$(date +%s.%N)
        capped=no
        case $reducer in
        cvise)
            result=$work/$case_name
            (cd "$result" && timeout "$cap" cvise --n "$jobs" "$work/test.sh" * \
                </dev/null >"$work/log" 2>&1) || capped=yes ;;
        shrinkray)
            result=$work/$case_name
            # shrinkray keeps its history in .shrinkray/ of its working directory.
            (cd "$work" && timeout "$cap" "$shrinkray" --ui basic --no-llm --no-restart \
                --parallelism "$jobs" "$work/test.sh" "$result" </dev/null >"$work/log" 2>&1) \
                || capped=yes ;;
        whittle-files)
            result=$work/out
            (cd "$work/$case_name" && timeout "$cap" "$whittle" reduce * --no-tui -j "$jobs" \
                -o "$result" -- "$work/test.sh" </dev/null >"$work/log" 2>&1) || capped=yes ;;
        whittle-dir)
            result=$work/out
            timeout "$cap" "$whittle" reduce "$work/$case_name" --no-tui -j "$jobs" \
                -o "$result" -- "$work/test.sh" </dev/null >"$work/log" 2>&1 || capped=yes ;;
        esac
        end=$(date +%s.%N)
        # Leftovers of the reducers (backups, histories) are not part of the result.
        # A reducer that failed (C-Vise and whittle given the files by name refuse a case with
        # subdirectories) leaves no result: a line of no files.
        files=$( (find "$result" -type f ! -name '*.orig' ! -name '*.bak' ! -path '*/.shrinkray/*' \
            2>/dev/null || true) | sort)
        python3 - "$task" "$reducer" "$count" "$start" "$end" "$capped" $files >>"$out_csv" <<'PY'
import csv, sys
task, reducer, count, start, end, capped, *files = sys.argv[1:]
data = b"".join(open(f, "rb").read() for f in files)
nonws = sum(1 for b in data if b not in b" \t\n\r\x0b\x0c")
tests = sum(1 for _ in open(count, "rb"))
csv.writer(sys.stdout, lineterminator="\n").writerow(
    [task, reducer, len(files), len(data), nonws, tests, f"{float(end) - float(start):.1f}", capped])
PY
        tail -1 "$out_csv"
        if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP/$task.$reducer" && cp -r "$result"/. "$KEEP/$task.$reducer/"; fi
    done
done
