#!/usr/bin/env bash
# Runs picire (line ddmin, content cache, sequential: the baseline of the benchmark tasks' README)
# on the benchmark tasks (WHITTLE_BENCH_DIR, default ../shared/bench) and the repository's
# examples/ whose name matches TASKS (a regex) and
# prints one CSV line per task: task, tests, output bytes, non-whitespace characters, wall
# seconds. Tests are counted by a wrapper around the task's oracle. With KEEP set (any value),
# each result is kept as bench/results/outputs/TASK.picire.out.
#   TASKS=^localized bench/picire.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
command -v picire >/dev/null || { echo "picire is not installed (pip install picire==21.8)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "task,tests,output_bytes,output_nonws,wall_s"
mapfile -t task_list < <(bench_tasks; task_dirs "$examples_dir")
for dir in "${task_list[@]}"; do
    task=$(basename "$dir")
    input=$(task_input "$dir")
    work="$tmp/$task"
    mkdir -p "$work"
    : >"$work/count"
    cat >"$work/test.sh" <<WRAP
#!/usr/bin/env bash
echo >>"$work/count"
exec "$dir/oracle.sh" "\$@"
WRAP
    chmod +x "$work/test.sh"
    started=$(date +%s.%N)
    picire -i "$dir/$input" --test "$work/test.sh" --atom line --cache content \
        -o "$work/out" -l ERROR >"$work/log" 2>&1 || { echo "$task: picire failed" >&2; continue; }
    ended=$(date +%s.%N)
    out="$work/out/$input"
    python3 - "$task" "$work/count" "$out" "$started" "$ended" <<'PY'
import sys
task, count, out, started, ended = sys.argv[1:]
tests = sum(1 for _ in open(count))
data = open(out, "rb").read()
nonws = sum(1 for b in data if not chr(b).isspace())
print(f"{task},{tests},{len(data)},{nonws},{float(ended) - float(started):.1f}")
PY
    keep_output "$out" "$task.picire"
done
