#!/usr/bin/env bash
# Runs shrinkray, C-Vise, treereduce and whittle pipelines on the same tasks one after another and appends one CSV
# line per run to OUT (default bench/results/peers.csv): task, reducer, pipeline, output
# non-whitespace characters, output bytes, oracle runs (counted by a wrapper around the task's
# oracle, the same for every reducer), wall seconds, whittle's own test count and timeouts,
# whether the run hit the cap.
#   bench/peers.sh [TASK-DIR...]
# Tasks default to WHITTLE_BENCH_DIR (../shared/bench) and the repository's examples/; any task
# directory (an executable oracle.sh beside one input file) is accepted.
# Environment: REDUCERS (default "shrinkray whittle"), PIPELINES (whittle's, one a line;
# `default` is whittle's default, a line starting with `--` is options, e.g. `--fast`;
# default "default"), TREEREDUCE (a directory with treereduce-c and treereduce-java, default
# /opt/treereduce/bin; treereduce runs only on .c and .java inputs, with its defaults), CAP (seconds per run, default 300: a capped run is killed and its best
# file measured), JOBS (parallel tests, default 2), SHRINKRAY (default /opt/shrinkray/bin/shrinkray),
# OUT, KEEP (a directory that receives every output as TASK.REDUCER.PIPELINE.out, and whittle's
# statistics as .json beside it, and the run's course as .course: one line "SECONDS NONWS BYTES"
# per interesting test, seconds since the reducer started; bench/anytime.py reads them), TASKS,
# WHITTLE, WHITTLE_BENCH_DIR (see tasks.sh), CVISE (default cvise; C-Vise runs the test with no
# argument in a directory that holds the candidate under the input's name). Runs already in OUT
# are skipped (delete lines to run them again).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
cap=${CAP:-300}
jobs=${JOBS:-2}
shrinkray=${SHRINKRAY:-/opt/shrinkray/bin/shrinkray}
treereduce_dir=${TREEREDUCE:-/opt/treereduce/bin}
out_csv=${OUT:-$ROOT/bench/results/peers.csv}
reducers=${REDUCERS:-shrinkray whittle}
if [ $# -gt 0 ]; then
    task_list=("$@")
else
    mapfile -t task_list < <(task_dirs "$bench_dir" "$examples_dir")
fi
case " $reducers " in *" whittle "*) whittle=$(whittle_binary) ;; esac
mkdir -p "$(dirname "$out_csv")"
[ -s "$out_csv" ] || echo "task,reducer,pipeline,output_nonws,output_bytes,oracle_runs,wall_s,whittle_tests,whittle_timeouts,capped" >"$out_csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The oracle wrapper: one line in COUNT per call, then the task's own oracle on the candidate
# (its path as the argument, or the input's name in the working directory for a test called
# without one, as C-Vise calls it); an interesting candidate's time since the start (the file
# COURSE.start), non-whitespace characters and bytes (measured before its test) are appended
# to COURSE.
wrap() {
    local oracle=$1 count=$2 wrapper=$3 input=$4 course=$5
    cat >"$wrapper" <<EOF
#!/bin/bash
echo >>"$count"
candidate=\${1:-\$PWD/$input}
# Measured before the test: a reducer may delete a candidate's directory once another won.
nonws=\$(tr -d ' \\t\\n\\r\\v\\f' <"\$candidate" | wc -c)
bytes=\$(wc -c <"\$candidate")
"$oracle" "\$candidate" || exit \$?
now=\$(date +%s.%N)
echo "\$now \$(cat "$course.start") \$nonws \$bytes" | awk '{ printf "%.3f %d %d\\n", \$1 - \$2, \$3, \$4 }' >>"$course"
EOF
    chmod +x "$wrapper"
    : >"$count"
    : >"$course"
}

now() { date +%s.%N; }

record() { # task reducer pipeline file count start end whittle_tests whittle_timeouts capped
    python3 - "$@" >>"$out_csv" <<'PY'
import csv, sys
task, reducer, pipeline, path, count, start, end, tests, timeouts, capped = sys.argv[1:]
data = open(path, "rb").read()
nonws = sum(1 for b in data if b not in b" \t\n\r\x0b\x0c")
runs = sum(1 for _ in open(count, "rb"))
csv.writer(sys.stdout, lineterminator="\n").writerow(
    [task, reducer, pipeline, nonws, len(data), runs, f"{float(end) - float(start):.1f}", tests,
     timeouts, capped])
PY
    tail -1 "$out_csv"
}

done_already() { grep -qF -e "$1,$2,$3," -e "$1,$2,\"$3\"," "$out_csv"; }

keep() { [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && cp "$1" "$KEEP/$2"; }; }

for dir in "${task_list[@]}"; do
    dir=$(cd "$dir" && pwd)
    task=$(basename "$dir")
    input=$(task_input "$dir")
    for reducer in $reducers; do
        if [ "$reducer" = shrinkray ] || [ "$reducer" = cvise ]; then
            pipelines=("$reducer")
        elif [ "$reducer" = treereduce ]; then
            case "$input" in
            *.c) pipelines=(treereduce-c) ;;
            *.java) pipelines=(treereduce-java) ;;
            *) continue ;;
            esac
        else
            mapfile -t pipelines <<<"${PIPELINES:-default}"
        fi
        for pipeline in "${pipelines[@]}"; do
            [ -n "$pipeline" ] || continue
            done_already "$task" "$reducer" "$pipeline" && continue
            work=$tmp/$task.$reducer
            rm -rf "$work" && mkdir -p "$work"
            cp "$dir/$input" "$work/$input"
            wrap "$dir/oracle.sh" "$work/count" "$work/test.sh" "$input" "$work/course"
            start=$(now)
            echo "$start" >"$work/course.start"
            status=0
            if [ "$reducer" = shrinkray ]; then
                (cd "$work" && timeout --kill-after=10 "$cap" "$shrinkray" --ui basic --no-llm \
                    --no-restart --parallelism "$jobs" "$work/test.sh" "$work/$input" \
                    </dev/null >"$work/log" 2>&1) || status=$?
                result=$work/$input
                tests=""
                timeouts=""
            elif [ "$reducer" = cvise ]; then
                # C-Vise's C passes (clang_delta) only where the input is C or C++.
                not_c=(--not-c)
                case "$input" in *.c | *.h | *.cc | *.cpp | *.cxx | *.hpp | *.ii | *.i) not_c=() ;; esac
                (cd "$work" && timeout --kill-after=10 "$cap" "${CVISE:-cvise}" --n "$jobs" \
                    "${not_c[@]}" "$work/test.sh" "$input" </dev/null >"$work/log" 2>&1) \
                    || status=$?
                result=$work/$input
                tests=""
                timeouts=""
            elif [ "$reducer" = treereduce ]; then
                # treereduce's candidate files have names of their own; the test gets a copy
                # named as the input (javac wants a public class in a file of its name).
                cat >"$work/named.sh" <<EOF
#!/bin/bash
d=\$(mktemp -d "$work/named.XXXXXX") && cp "\$1" "\$d/$input" && "$work/test.sh" "\$d/$input"
status=\$?; rm -rf "\$d"; exit \$status
EOF
                chmod +x "$work/named.sh"
                (cd "$work" && timeout --kill-after=10 "$cap" "$treereduce_dir/$pipeline" \
                    --source "$work/$input" -o "$work/result" -j "$jobs" --temp-dir "$work" \
                    -- "$work/named.sh" @@ </dev/null >"$work/log" 2>&1) || status=$?
                result=$work/result
                [ -f "$result" ] || cp "$work/$input" "$result"
                tests=""
                timeouts=""
            else
                options=()
                case "$pipeline" in
                default) ;;
                --*) read -r -a options <<<"$pipeline" ;;
                *) options=(-a "$pipeline") ;;
                esac
                timeout --kill-after=10 "$cap" "$whittle" reduce "$work/$input" --no-tui \
                    -j "$jobs" -o "$work/result" --stats-json "$work/stats.json" \
                    "${options[@]}" -- "$work/test.sh" </dev/null >"$work/log" 2>&1 || status=$?
                result=$work/result
                tests=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tests"])' \
                    "$work/stats.json" 2>/dev/null || echo "")
                timeouts=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timeouts"])' \
                    "$work/stats.json" 2>/dev/null || echo "")
            fi
            end=$(now)
            capped=$([ "$status" = 124 ] && echo yes || echo no)
            if [ "$status" != 0 ] && [ "$status" != 124 ] && ! grep -q "trivial test case" "$work/log"; then
                echo "$task $reducer $pipeline: exit $status" >&2
                tail -5 "$work/log" >&2
            fi
            [ -f "$result" ] || { echo "$task $reducer $pipeline: no result" >&2; continue; }
            record "$task" "$reducer" "$pipeline" "$result" "$work/count" "$start" "$end" "$tests" \
                "$timeouts" "$capped"
            name=$task.$reducer.${pipeline//[:, \/()*+]/-}
            keep "$result" "$name.out"
            [ ! -f "$work/stats.json" ] || keep "$work/stats.json" "$name.json"
            keep "$work/course" "$name.course"
        done
    done
done
