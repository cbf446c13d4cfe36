# Sourced by the benchmark scripts: where the tasks are, which of them to run, their inputs and
# the whittle binary. Set ROOT before sourcing it (the repository).
# Environment: SHARED_DIR (default ROOT/../shared), TASKS (a regex selecting tasks by name),
# WHITTLE (a binary to use instead of building the release one).

shared=${SHARED_DIR:-$ROOT/../shared}

# task_dirs FOLDER...: the task folders (with an executable oracle.sh) in the given folders
# whose names match TASKS, one a line.
task_dirs() {
    local parent dir
    for parent in "$@"; do
        for dir in "$parent"/*/; do
            dir=${dir%/}
            [ -x "$dir/oracle.sh" ] || continue
            [[ "$(basename "$dir")" =~ ${TASKS:-.} ]] || continue
            echo "$dir"
        done
    done
}

# task_input DIR: the file name of the task's input (what is neither the oracle nor its helpers).
task_input() {
    ls "$1" | grep -vE '^(oracle\.sh|prelude\.js|SOURCE\.txt|expected.*)$' | head -1
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
