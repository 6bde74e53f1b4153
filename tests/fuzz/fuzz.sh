#!/bin/sh
# fuzz.sh: runs the libFuzzer harnesses built by `make fuzz-build`, and
# merges what they found into the committed corpus. Called by the Makefile:
#   sh tests/fuzz/fuzz.sh run NAME...     (make fuzz)
#   sh tests/fuzz/fuzz.sh merge NAME...   (make fuzz-merge)
# from the repository root, with
#   FUZZ_BUILD    where the harnesses and scratch files live (build/fuzz)
#   FUZZ_SECONDS  how long each harness runs (run)
#   FUZZ_JOBS     processes per harness: 1 fuzzes in one process, N > 1 in
#                 libFuzzer's fork mode with N workers
#   FUZZ_FLAGS    more libFuzzer flags, e.g. -seed=1 or -max_len=8192
# Harness NAME is $FUZZ_BUILD/fuzz/fuzz_NAME; its committed corpus
# tests/fuzz/NAME/corpus and dictionary tests/fuzz/NAME/dict (if any) are
# read, never written by `run`. New inputs go to $FUZZ_BUILD/NAME/corpus-new,
# crashes, leaks and timeouts to tests/fuzz/NAME/crashes-new/, the log to
# $FUZZ_BUILD/NAME/fuzz.log. A harness stops at its first crash. Prints one
# summary line per harness (and one per crash); exit status 1 when anything
# crashed. POSIX sh.

FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-180}
FUZZ_JOBS=${FUZZ_JOBS:-1}
mode=$1
shift

# coverage BIN LOG DIR...: prints "cov ft" (code edges and features reached)
# of the inputs in DIR..., or "n/a n/a" when one of them crashes. Measured by
# loading them without fuzzing, the same way before and after a run (fork
# mode's status lines count differently).
coverage() {
    cbin=$1 clog=$2
    shift 2
    "$cbin" -runs=0 -timeout=5 -artifact_prefix="${clog%.log}-" "$@" >"$clog" 2>&1
    c=$(sed -n 's/.*INITED cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' "$clog" | tail -1)
    echo "${c:-n/a n/a}"
}

run_one() {
    h=$1
    bin=$FUZZ_BUILD/fuzz/fuzz_$h
    work=$FUZZ_BUILD/$h
    corpus=tests/fuzz/$h/corpus
    crashes=tests/fuzz/$h/crashes-new
    mkdir -p "$work/corpus-new" "$crashes" "$corpus"
    dict=
    [ -f "tests/fuzz/$h/dict" ] && dict=-dict=tests/fuzz/$h/dict
    parallel=
    [ "$FUZZ_JOBS" -gt 1 ] && parallel=-fork=$FUZZ_JOBS

    set -- $(coverage "$bin" "$work/before.log" "$work/corpus-new" "$corpus")
    cov0=$1 ft0=$2
    ls "$crashes" >"$work/crashes.before"
    n_new0=$(ls "$work/corpus-new" | wc -l)

    start=$(date +%s)
    # -timeout: a parser taking seconds on one input is a bug (libFuzzer's
    # default is 20 minutes)
    "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=5 -print_final_stats=1 $parallel $dict \
        -artifact_prefix="$crashes/" $FUZZ_FLAGS "$work/corpus-new" "$corpus" >"$work/fuzz.log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    [ "$secs" -gt 0 ] || secs=1

    # executions: the last status line "#N ..." (or "#N: ..." in fork mode)
    execs=$(sed -n 's/^#\([0-9][0-9]*\)[^0-9].*/\1/p' "$work/fuzz.log" | tail -1)
    done_line=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/fuzz.log")
    [ -n "$done_line" ] && execs=$done_line
    execs=${execs:-0}
    set -- $(coverage "$bin" "$work/after.log" "$work/corpus-new" "$corpus")
    cov1=$1 ft1=$2
    n_new=$(($(ls "$work/corpus-new" | wc -l) - n_new0))
    ls "$crashes" >"$work/crashes.after"
    found=$(comm -13 "$work/crashes.before" "$work/crashes.after")
    n_found=$(echo "$found" | grep -c .)

    echo "fuzz_$h: $execs executions in $secs s ($((execs / secs))/s), coverage $cov0 -> $cov1 edges," \
        "$ft0 -> $ft1 features, $n_new new inputs in $work/corpus-new, $n_found crashes"
    for f in $found; do
        # run the one input again for its own diagnosis (a fork-mode log mixes many)
        what=$("$bin" -timeout=5 "$crashes/$f" 2>&1 | grep -m1 -E '^SUMMARY: |fuzz check failed|ERROR: libFuzzer' |
            sed 's/^SUMMARY: //')
        echo "  CRASH $crashes/$f: ${what:-see $work/fuzz.log}"
    done
    [ "$cov0" = n/a ] && echo "  an input of $corpus or $work/corpus-new itself fails (see $work/before.log)"
    if [ "$n_found" -eq 0 ] && [ "$rc" -ne 0 ]; then
        echo "  fuzz_$h exited $rc without saving an input; see $work/fuzz.log"
        n_found=1
    fi
    [ "$n_found" -eq 0 ]
}

merge_one() {
    h=$1
    bin=$FUZZ_BUILD/fuzz/fuzz_$h
    work=$FUZZ_BUILD/$h
    corpus=tests/fuzz/$h/corpus
    crashes=tests/fuzz/$h/crashes-new
    mkdir -p "$work/corpus-new" "$corpus" "$crashes"
    before=$(ls "$corpus" | wc -l)
    ls "$crashes" >"$work/crashes.before"
    # -merge=1 adds to the first directory only the inputs of the others that
    # reach code it does not; -use_counters=0 counts code edges only, not how
    # often each runs, which keeps the committed corpus small. An input that
    # crashes is left out (and saved in crashes-new).
    if ! "$bin" -merge=1 -use_counters=0 -timeout=5 -artifact_prefix="$crashes/" "$corpus" "$work/corpus-new" \
        >"$work/merge.log" 2>&1; then
        echo "fuzz_$h: merge failed; see $work/merge.log"
        return 1
    fi
    after=$(ls "$corpus" | wc -l)
    size=$(du -sk --apparent-size "$corpus" | cut -f1)
    ls "$crashes" >"$work/crashes.after"
    n_found=$(comm -13 "$work/crashes.before" "$work/crashes.after" | grep -c .)
    echo "fuzz_$h: $((after - before)) inputs added to $corpus (now $after files, $size KB)" \
        "$(grep -o '[0-9]* new coverage edges' "$work/merge.log" | tail -1)"
    [ "$n_found" -eq 0 ] || echo "  $n_found inputs of $work/corpus-new crash: saved in $crashes"
}

status=0
for h in "$@"; do
    if [ ! -x "$FUZZ_BUILD/fuzz/fuzz_$h" ]; then
        echo "fuzz_$h: $FUZZ_BUILD/fuzz/fuzz_$h is not built (make fuzz-build)"
        status=1
        continue
    fi
    case $mode in
    run) run_one "$h" || status=1 ;;
    merge) merge_one "$h" || status=1 ;;
    *) echo "usage: fuzz.sh run|merge NAME..." >&2; exit 2 ;;
    esac
done
exit $status
