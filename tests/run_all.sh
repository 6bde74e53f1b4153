#!/bin/sh
# Runs every cmocka test binary given as an argument, then the command-line
# tests (tests/cli_test.sh), the generated flag reference against the
# binary (tests/docs_test.sh), --out's safety (tests/outdir_test.sh),
# summary.json against the flags and stdout (tests/summary_test.sh), the
# golden outputs (tests/golden.sh), the option ranges at both ends
# (tests/option_bounds.sh), parallel
# runs against plain ones (tests/mpi_test.sh, skipped without MPI), the
# transport contract (tests/contract_test.sh), the
# replay of every saved fuzz input (tests/fuzz/replay.sh) and the sweep
# tool's tests (tests/sweep_test.sh), make mutation's bookkeeping
# (tests/mutation_tool_test.sh), the Python package
# (tests/python_test.sh), and prints one
# closing line "N passed, N failed",
# followed by ", N skipped" when some check could not run here (a skipped
# check is neither passed nor failed). Each program gets at most
# TEST_TIMEOUT seconds (default 600): a test that hangs fails instead of
# hanging the suite. Exit status is non-zero when anything failed.
passed=0
failed=0
skipped=0
limit=${TEST_TIMEOUT:-600}
# run PROGRAM ARGS...: with a time limit when timeout(1) is here
run_limited() {
    if command -v timeout >/dev/null 2>&1; then
        timeout "$limit" "$@"
    else
        "$@"
    fi
}
for t in "$@"; do
    out=$(run_limited "$t" 2>&1)
    rc=$?
    echo "$out" | grep -E '^\[  (PASSED|FAILED|SKIPPED)|^\[  ERROR|FAILED TEST' || true
    p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    k=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    skipped=$((skipped + ${k:-0}))
    if [ "$rc" -eq 124 ]; then
        echo "$t: timed out after $limit s"
        failed=$((failed + 1))
    elif [ "$rc" -ne 0 ] && [ -z "$f" ]; then
        echo "$out" | tail -20
        echo "$t: exited $rc"
        failed=$((failed + 1))
    fi
    if [ "${k:-0}" -gt 0 ]; then
        echo "  $(basename "$t"): ${p:-0} passed, ${f:-0} failed, $k skipped"
    else
        echo "  $(basename "$t"): ${p:-0} passed, ${f:-0} failed"
    fi
done
for script in tests/cli_test.sh tests/docs_test.sh tests/goal_test.sh tests/outdir_test.sh tests/summary_test.sh tests/contract_test.sh tests/golden.sh tests/option_bounds.sh tests/mpi_test.sh tests/fuzz/replay.sh tests/sweep_test.sh tests/mutation_tool_test.sh tests/python_test.sh; do
    [ -f "$script" ] || continue
    out=$(run_limited sh "$script" 2>&1)
    rc=$?
    echo "$out" | grep -E '^(FAIL|skip)' || true
    p=$(echo "$out" | grep -c '^ok')
    f=$(echo "$out" | grep -c '^FAIL')
    k=$(echo "$out" | grep -c '^skip')
    if [ "$rc" -eq 124 ]; then
        echo "$script: timed out after $limit s"
        f=$((f + 1))
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # a script that stopped early (a syntax error, a crash) has no FAIL
        # line for what it never ran: its exit status is the failure
        echo "$out" | tail -5
        echo "$script: exited $rc"
        f=$((f + 1))
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + k))
    if [ "$k" -gt 0 ]; then
        echo "  $(basename "$script"): $p passed, $f failed, $k skipped"
    else
        echo "  $(basename "$script"): $p passed, $f failed"
    fi
done
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
