#!/usr/bin/env bash
# The cost of a test run as a Slurm job step against a local run: a trivial test (`cmp` of the
# candidate with the input: interesting only for the input itself, about a millisecond) run
# many times by whittle with -j 1 and no cache, on this machine, as steps inside an allocation
# (salloc) and as jobs of their own; then -j 2 inside an allocation of two tasks; and, for
# reference, bare `srun true` in a loop. Prints milliseconds per test.
#   bench/slurm.sh
# Needs a running Slurm (scripts/slurm-local.sh start; its SLURM_CONF is taken when
# SLURM_CONF is not set). Environment: WHITTLE (default: the release build), TESTS (tests per
# local and in-allocation run, default 300), OWN_TESTS (tests as jobs of their own, default
# 40), RAW (bare sruns in an allocation, default 100).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/tasks.sh"
whittle=$(whittle_binary)
tests=${TESTS:-300}
own_tests=${OWN_TESTS:-40}
raw=${RAW:-100}
if [ -z "${SLURM_CONF:-}" ]; then
    eval "$("$ROOT/scripts/slurm-local.sh" env)"
fi
sinfo -h >/dev/null || { echo "no Slurm answers (scripts/slurm-local.sh start)" >&2; exit 1; }

tmp=$(mktemp -d -p "$PWD" .whittle-bench-slurm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
seq 1 400 | sed 's/^/line /' >"$tmp/input.txt"
printf '#!/bin/sh\nexec cmp -s %s "$1"\n' "$tmp/input.txt" >"$tmp/test.sh"
chmod +x "$tmp/test.sh"

# run NAME LIMIT LAUNCHER [WHITTLE-OPTIONS...]: one whittle run, under LAUNCHER (a command
# prefix: `env` or an salloc); prints NAME, runs of the test, wall seconds, ms per run.
run() {
    local name=$1 limit=$2 launcher=$3
    shift 3
    rm -f "$tmp/out.txt" "$tmp/stats.json"
    # shellcheck disable=SC2086 # the launcher is a word list
    (cd "$tmp" && $launcher "$whittle" reduce input.txt --no-tui -a ddmin --atoms line \
        --cache none --limit-tests "$limit" -o out.txt --stats-json stats.json "$@" \
        -- ./test.sh >log 2>&1) \
        || { echo "$name: whittle failed" >&2; tail -5 "$tmp/log" >&2; return 1; }
    python3 - "$name" "$tmp/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[2]))
runs = s["oracle_runs"]
print(f"{sys.argv[1]:<40} {runs:>5} runs {s['wall_seconds']:>8.2f} s {1000 * s['wall_seconds'] / runs:>8.1f} ms/test")
PY
}

# raw NAME N LAUNCHER: N bare `srun true`, one after the other, under LAUNCHER.
raw() {
    local name=$1 n=$2 launcher=$3 start end
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    $launcher bash -c "for i in \$(seq $n); do srun --ntasks=1 --quiet \${SLURM_JOB_ID:+--exact} true; done"
    end=$(date +%s.%N)
    python3 -c "import sys; n=$n; t=$end-$start; print(f'{sys.argv[1]:<40} {n:>5} runs {t:>8.2f} s {1000*t/n:>8.1f} ms/test')" "$name"
}

alloc1="salloc --quiet --ntasks=1"
alloc2="salloc --quiet --ntasks=2"
echo "$("$whittle" --version), $(sinfo --version), $(nproc) CPUs"
run "local, -j 1" "$tests" env -j 1
run "Slurm steps in an allocation, -j 1" "$tests" "$alloc1" -j 1 --executor slurm
run "Slurm jobs of their own, -j 1" "$own_tests" env -j 1 --executor slurm
run "local, -j 2" "$tests" env -j 2
run "Slurm steps in an allocation of 2, -j 2" "$tests" "$alloc2" -j 2 --executor slurm
raw "bare srun true, steps in an allocation" "$raw" "$alloc1"
raw "bare srun true, jobs of their own" "$((raw / 5))" env
