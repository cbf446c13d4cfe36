#!/usr/bin/env bash
# The list minimizer inside the default pipeline and --fast: ddmin, chunk sweeps, ProbDD and CDD
# in the places where the pipelines prune a list (the tree stages' children, the lines), one
# run at a time (`-a PIPELINE`: --fast's own pipeline with the other settings of the default, as
# --fast cannot be given with -a; its tighter timeout and kept loop control are left out), appended to a CSV (resumable: rows already there are skipped). Prints nothing
# but progress; bench/minimizers-report.py turns the CSV into the tables of docs/benchmarks.md.
#   bench/minimizers.sh [TASK-FOLDER...]   (default: the tasks of WHITTLE_BENCH_DIR)
# Environment: WHITTLE_BENCH_DIR, WHITTLE (the binary), TASKS (a regex selecting tasks), OUT (the
# CSV, default bench/results/minimizers.csv), JOBS (default 1: test counts are deterministic),
# SHAPES (default "default fast"), MINIMIZERS (default "ddmin sweep probdd cdd"), LIMIT (seconds:
# each run stops there, `--limit-time`, and its row says so); see tasks.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
whittle=$(whittle_binary)
out_csv=${OUT:-$ROOT/bench/results/minimizers.csv}
jobs=${JOBS:-1}
if [ $# -gt 0 ]; then
    mapfile -t task_list < <(task_dirs "$@")
else
    require_bench_dir
    mapfile -t task_list < <(bench_tasks)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -f "$out_csv" ] || echo "task,shape,minimizer,pipeline,oracle_runs,bytes,nonws,wall_s,stopped" >"$out_csv"
limit=()
[ -n "${LIMIT:-}" ] && limit=("--limit-time=$LIMIT")

# pipeline SHAPE MINIMIZER TREE: the pipeline of SHAPE (default, fast) with MINIMIZER where it
# prunes a list, for a task with a grammar (TREE=1) or without; empty when there is no such
# variant (the text pipelines have no chunk sweep of lines).
pipeline() {
    local shape=$1 minimizer=$2 tree=$3 tree_suffix line
    case $minimizer in
        ddmin) tree_suffix="" line="ddmin:line" ;;
        sweep) tree_suffix="-sweep" line="ddmin:line" ;;
        *) tree_suffix="-$minimizer" line="$minimizer:line" ;;
    esac
    if [ "$tree" = 1 ] && [ "$shape" = default ]; then
        echo "(coarse-hddhr$tree_suffix+hddhr$tree_suffix+unbind+typedefs+declarations+conditions+replace+inline+$line+brackets+tokens+spans+rename+indent)*"
    elif [ "$tree" = 1 ]; then
        echo "(hddhr$tree_suffix+$line)*"
    elif [ "$minimizer" = sweep ]; then
        echo ""
    elif [ "$shape" = default ]; then
        echo "($line+brackets+tokens+rename+indent)*+polish"
    else
        case $minimizer in
            ddmin) echo "ddmin" ;;
            *) echo "$minimizer" ;;
        esac
    fi
}

for dir in "${task_list[@]}"; do
    task=$(basename "$dir")
    input=$(task_input "$dir")
    # A task has a grammar when whittle names a language for it.
    if "$whittle" tree "$dir/$input" >/dev/null 2>&1; then tree=1; else tree=0; fi
    for shape in ${SHAPES:-default fast}; do
        for minimizer in ${MINIMIZERS:-ddmin sweep probdd cdd}; do
            grep -q "^$task,$shape,$minimizer," "$out_csv" && continue
            pipe=$(pipeline "$shape" "$minimizer" "$tree")
            [ -n "$pipe" ] || continue
            echo "$task $shape $minimizer: $pipe" >&2
            rm -f "$work/$task.out" "$work/$task.json"
            if ! "$whittle" reduce "$dir/$input" --no-tui -o "$work/$task.out" -j "$jobs" \
                "${limit[@]}" -a "$pipe" --stats-json "$work/$task.json" -- "$dir/oracle.sh" \
                >"$work/$task.log" 2>&1; then
                echo "$task $shape $minimizer: whittle failed" >&2
                tail -5 "$work/$task.log" >&2
                continue
            fi
            python3 - "$work/$task.json" "$task,$shape,$minimizer,\"$pipe\"" >>"$out_csv" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
stopped = (s.get("stopped") or "").replace(",", ";")
print(f"{sys.argv[2]},{s['oracle_runs']},{s['output_bytes']},{s['output_nonws_chars']},"
      f"{s['wall_seconds']:.1f},{stopped}")
PY
            keep_output "$work/$task.out" "$task.$shape.$minimizer"
        done
    done
done
