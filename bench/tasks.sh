# Sourced by the benchmark scripts: where the tasks are, which of them to run, their inputs and
# the whittle binary. Set ROOT before sourcing it (the repository).
# Environment: WHITTLE_BENCH_DIR (a folder of task folders, or one task folder; default
# ROOT/../shared/bench), TASKS (a regex selecting tasks by name), WHITTLE (a binary to use instead
# of building the release one), KEEP (any value: each run's result is kept, see keep_output). A task folder holds the input, an executable oracle.sh (the
# candidate's path is its argument, exit status 0 means interesting) and helpers of the oracle.

bench_dir=${WHITTLE_BENCH_DIR:-$ROOT/../shared/bench}
# The papers' examples of the repository are tasks too.
examples_dir=$ROOT/examples
# Where the results of the runs go when KEEP is set (ignored by git: they are reproduced by
# running the scripts again).
outputs_dir=$ROOT/bench/results/outputs

# task_dirs FOLDER...: the task folders (with an executable oracle.sh) in the given folders, or
# the folders themselves when they are tasks, whose names match TASKS, one a line.
task_dirs() {
    local parent dir
    for parent in "$@"; do
        parent=${parent%/}
        if [ -x "$parent/oracle.sh" ]; then
            [[ "$(basename "$parent")" =~ ${TASKS:-.} ]] && echo "$parent"
            continue
        fi
        for dir in "$parent"/*/; do
            dir=${dir%/}
            [ -x "$dir/oracle.sh" ] || continue
            [[ "$(basename "$dir")" =~ ${TASKS:-.} ]] || continue
            echo "$dir"
        done
    done
}

# task_input DIR: the file name of the task's input (what is neither the oracle nor its helpers;
# folders are helpers).
task_input() {
    ls -p "$1" | grep -vE '^(oracle\.sh|prelude\.js|SOURCE\.txt|expected.*|.*/)$' | head -1
}

# whittle_binary: $WHITTLE, or the release build of ROOT (built first).
whittle_binary() {
    if [ -n "${WHITTLE:-}" ]; then
        echo "$WHITTLE"
    else
        cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" >&2
        echo "$ROOT/target/release/whittle"
    fi
}

# bench_tasks: the task folders of WHITTLE_BENCH_DIR (none, with a note, when it is missing).
bench_tasks() {
    if [ ! -d "$bench_dir" ]; then
        echo "note: no benchmark tasks at $bench_dir (set WHITTLE_BENCH_DIR)" >&2
        return 0
    fi
    task_dirs "$bench_dir"
}

# require_bench_dir: exits when WHITTLE_BENCH_DIR (or its default) is not a folder.
require_bench_dir() {
    if [ ! -d "$bench_dir" ]; then
        echo "no benchmark tasks at $bench_dir: set WHITTLE_BENCH_DIR to a folder of task folders (or one task folder)" >&2
        exit 2
    fi
}

# keep_output FILE NAME: with KEEP set (any value), copies FILE (a run's result) to
# outputs_dir/NAME.out.
keep_output() {
    [ -n "${KEEP:-}" ] || return 0
    mkdir -p "$outputs_dir" && cp "$1" "$outputs_dir/$2.out"
}
