#!/usr/bin/env bash
# How many test durations a reduction takes with wide testing windows, as on a cluster: each
# task's test is made to last SLEEP seconds more (default 2) and runs through the Slurm executor
# with stand-ins for srun, squeue and scancel that run every step on this machine (no Slurm
# needed, and no cap of this machine's CPUs on the window). Sleeping tests cost no CPU, so the
# wall time divided by SLEEP is the number of waves of tests: times 60 s, what a reduction with a
# 60-second test takes (docs/benchmarks.md, section 9). The Slurm overhead is not in it
# (bench/slurm.sh measures that). -j 1 runs without the sleep (its waves are its runs).
#   bench/slurm-window.sh                     # py-rust-missing-colon, lines, -j 1 4 16 64
#   TASKS=json-swerv JOBS="1 64" SLEEP=1 bench/slurm-window.sh -a ddmin --atoms line
# Arguments are whittle options (default: -a ddmin --atoms line). Environment: TASKS (default
# py-rust-missing-colon), JOBS (windows to try, default "1 4 16 64"), SLEEP, PARALLEL (default
# stable), WHITTLE_BENCH_DIR, WHITTLE.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TASKS=${TASKS:-py-rust-missing-colon}
. "$ROOT/bench/tasks.sh"
require_bench_dir
whittle=$(whittle_binary)
jobs_list=${JOBS:-1 4 16 64}
sleep_secs=${SLEEP:-2}
parallel=${PARALLEL:-stable}
[ $# -gt 0 ] || set -- -a ddmin --atoms line

tmp=$(mktemp -d -p "$PWD" .whittle-bench-window.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# srun: drops Slurm's options and runs the step program in --chdir; squeue sees no steps.
cat >"$tmp/srun" <<'EOF'
#!/bin/sh
dir=.
while [ $# -gt 0 ]; do
    case "$1" in
        --chdir=*) dir=${1#--chdir=}; shift ;;
        --*) shift ;;
        *) break ;;
    esac
done
cd "$dir" && exec "$@"
EOF
printf '#!/bin/sh\nexit 0\n' >"$tmp/squeue"
printf '#!/bin/sh\nexit 0\n' >"$tmp/scancel"
chmod +x "$tmp/srun" "$tmp/squeue" "$tmp/scancel"

echo "task,jobs,parallel,tests,oracle_runs,wasted,cache_hits,wall_seconds,waves,hours_at_60s"
for dir in $(bench_tasks); do
    name=$(basename "$dir")
    input=$(task_input "$dir")
    printf '#!/bin/sh\nsleep "$WINDOW_SLEEP"\nexec %s "$1"\n' "$dir/oracle.sh" >"$tmp/test.sh"
    chmod +x "$tmp/test.sh"
    for jobs in $jobs_list; do
        work="$tmp/$name-$jobs"
        mkdir -p "$work/scratch"
        cp "$dir/$input" "$work/$input"
        if [ "$jobs" = 1 ]; then
            pause=0
            executor=(-j 1)
        else
            pause=$sleep_secs
            executor=(-j "$jobs" --parallel "$parallel" --executor slurm --scratch-dir "$work/scratch")
        fi
        (cd "$work" && WINDOW_SLEEP=$pause WHITTLE_SRUN="$tmp/srun" WHITTLE_SQUEUE="$tmp/squeue" \
            WHITTLE_SCANCEL="$tmp/scancel" "$whittle" reduce "$input" --no-tui "$@" "${executor[@]}" \
            -o out --stats-json stats.json -- "$tmp/test.sh" >log 2>&1) \
            || { echo "$name -j $jobs: whittle failed" >&2; tail -5 "$work/log" >&2; continue; }
        if [ "$jobs" != 1 ] && ! cmp -s "$tmp/$name-1/out" "$work/out" 2>/dev/null; then
            echo "$name -j $jobs: the result differs from -j 1" >&2
        fi
        python3 - "$name" "$jobs" "$parallel" "$pause" "$work/stats.json" <<'PY'
import json, sys
name, jobs, parallel, pause, path = sys.argv[1:]
s = json.load(open(path))
pause = float(pause)
waves = s["oracle_runs"] if pause == 0 else s["wall_seconds"] / pause
print(f"{name},{jobs},{parallel},{s['tests']},{s['oracle_runs']},{s.get('wasted', 0)},"
      f"{s['cache_hits']},{s['wall_seconds']:.1f},{waves:.1f},{waves * 60 / 3600:.2f}")
PY
    done
done
