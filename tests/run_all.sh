#!/bin/sh
# Runs every cmocka test binary given as an argument, then the command-line
# tests (tests/cli_test.sh) and the replay of every saved fuzz input
# (tests/fuzz/replay.sh), and prints one closing line "N passed, N failed".
# Exit status is non-zero when anything failed.
passed=0
failed=0
for t in "$@"; do
    out=$("$t" 2>&1)
    rc=$?
    echo "$out" | grep -E '^\[  (PASSED|FAILED)|^\[  ERROR|FAILED TEST' || true
    p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$rc" -ne 0 ] && [ -z "$f" ]; then
        echo "$out" | tail -20
        echo "$t: exited $rc"
        failed=$((failed + 1))
    fi
    echo "  $(basename "$t"): ${p:-0} passed, ${f:-0} failed"
done
for script in tests/cli_test.sh tests/fuzz/replay.sh; do
    [ -f "$script" ] || continue
    out=$(sh "$script" 2>&1)
    echo "$out" | grep -E '^(FAIL|ok)' | grep FAIL || true
    p=$(echo "$out" | grep -c '^ok')
    f=$(echo "$out" | grep -c '^FAIL')
    passed=$((passed + p))
    failed=$((failed + f))
    echo "  $(basename "$script"): $p passed, $f failed"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
