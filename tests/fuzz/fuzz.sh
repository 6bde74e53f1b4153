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

# coverage NAME LOGFILE: "cov ft" from the last status line of a libFuzzer log
# (one-process lines read "cov: 480 ft: 989", fork-mode lines the same)
coverage() {
    sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' "$1" | tail -1
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

    # coverage before: load everything once, fuzz nothing
    "$bin" -runs=0 $dict "$work/corpus-new" "$corpus" >"$work/before.log" 2>&1
    set -- $(coverage "$work/before.log")
    cov0=${1:-0} ft0=${2:-0}
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
    execs=$(sed -n 's/^#\([0-9][0-9]*\)[: ].*/\1/p' "$work/fuzz.log" | tail -1)
    done_line=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/fuzz.log")
    [ -n "$done_line" ] && execs=$done_line
    execs=${execs:-0}
    set -- $(coverage "$work/fuzz.log")
    cov1=${1:-$cov0} ft1=${2:-$ft0}
    n_new=$(($(ls "$work/corpus-new" | wc -l) - n_new0))
    ls "$crashes" >"$work/crashes.after"
    found=$(comm -13 "$work/crashes.before" "$work/crashes.after")
    n_found=$(echo "$found" | grep -c .)

    echo "fuzz_$h: $execs executions in $secs s ($((execs / secs))/s), coverage $cov0 -> $cov1 edges," \
        "$ft0 -> $ft1 features, $n_new new inputs in $work/corpus-new, $n_found crashes"
    for f in $found; do
        what=$(grep -m1 -E '^SUMMARY: |fuzz check failed|ERROR: libFuzzer' "$work/fuzz.log" | sed 's/^SUMMARY: //')
        echo "  CRASH $crashes/$f: ${what:-see $work/fuzz.log}"
    done
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
    mkdir -p "$work/corpus-new" "$corpus"
    before=$(ls "$corpus" | wc -l)
    # -merge=1 adds to the first directory only the inputs of the others that
    # cover something it does not
    if ! "$bin" -merge=1 -timeout=5 "$corpus" "$work/corpus-new" >"$work/merge.log" 2>&1; then
        echo "fuzz_$h: merge failed; see $work/merge.log"
        return 1
    fi
    after=$(ls "$corpus" | wc -l)
    size=$(du -sk "$corpus" | cut -f1)
    echo "fuzz_$h: $((after - before)) inputs added to $corpus (now $after files, $size KB)"
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
