#!/bin/sh
# Runs every cmocka test binary given as an argument, then the command-line
# tests (tests/cli_test.sh), and prints one closing line "N passed, N failed",
# followed by ", N skipped" when some check could not run here (a skipped
# check is neither passed nor failed). Exit status is non-zero when anything
# failed.
passed=0
failed=0
skipped=0
for t in "$@"; do
    out=$("$t" 2>&1)
    rc=$?
    echo "$out" | grep -E '^\[  (PASSED|FAILED|SKIPPED)|^\[  ERROR|FAILED TEST' || true
    p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    k=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    skipped=$((skipped + ${k:-0}))
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
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
if [ -f tests/cli_test.sh ]; then
    out=$(sh tests/cli_test.sh 2>&1)
    echo "$out" | grep -E '^(FAIL|skip)' || true
    p=$(echo "$out" | grep -c '^ok')
    f=$(echo "$out" | grep -c '^FAIL')
    k=$(echo "$out" | grep -c '^skip')
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + k))
    if [ "$k" -gt 0 ]; then
        echo "  cli_test.sh: $p passed, $f failed, $k skipped"
    else
        echo "  cli_test.sh: $p passed, $f failed"
    fi
fi
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
