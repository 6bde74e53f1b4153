#!/bin/sh
# replay.sh: the fuzz part of the test suite. For every harness
# tests/fuzz/fuzz_NAME.c, runs its replay build ($BUILD/fuzz-replay/fuzz_NAME,
# made by `make test` with gcc, or under the sanitizers by `make asan`) on
# every committed input: tests/fuzz/NAME/corpus and tests/fuzz/NAME/crashes.
# Prints one line per harness, "ok ..." or "FAIL ..." (run_all.sh counts
# them); a FAIL names the input that failed and how. Run from the
# repository root. POSIX sh; takes about a second.

BUILD=${BUILD:-build}
nfail=0
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    h=${name#fuzz_}
    bin=$BUILD/fuzz-replay/$name
    if [ ! -x "$bin" ]; then
        echo "FAIL $name: $bin is not built"
        nfail=$((nfail + 1))
        continue
    fi
    out=$("$bin" "tests/fuzz/$h/corpus" "tests/fuzz/$h/crashes" 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "ok $name: $(echo "$out" | tail -1) from tests/fuzz/$h/{corpus,crashes}"
    else
        input=$(echo "$out" | sed -n 's/^replay: //p' | tail -1)
        why=$(echo "$out" | grep -m1 -E 'fuzz check failed|^SUMMARY: |runtime error|ERROR: ' | sed 's/^SUMMARY: //')
        echo "FAIL $name: input $input: ${why:-exit status $rc} (rerun: $bin $input)"
        nfail=$((nfail + 1))
    fi
done
[ "$nfail" -eq 0 ]
