#!/bin/sh
# coverage.sh: line and branch coverage of src/ after a run of the suite on
# a gcov-instrumented build (`make coverage` builds it and calls this).
#   sh tests/coverage.sh BUILD_DIR
# Reads every .gcda file under BUILD_DIR with plain gcov (no other tool) and
# prints, per file under src/ and in total, the executable lines run at least
# once and the branches taken at least once. A header's inline functions are
# compiled into many objects (the tests' too): a line or branch counts once,
# as run when any object ran it. Run from the repository root.

BUILD=${1:-build-cov}
command -v gcov >/dev/null 2>&1 || { echo "coverage.sh: gcov not found"; exit 1; }
gcdas=$(find "$BUILD" -name '*.gcda' | sort)
[ -n "$gcdas" ] || { echo "coverage.sh: no .gcda files under $BUILD (run the tests first)"; exit 1; }

# gcov -t writes the annotated sources to stdout: a "Source:" line opens each
# file, then "COUNT: LINE: text" per line (COUNT "-" when not executable,
# "#####" when never run, a trailing "*" when some block on it never ran) and
# "branch N taken K" / "branch N never executed" after the line they belong to.
# shellcheck disable=SC2086
gcov -b -c -t -r $gcdas 2>/dev/null | awk '
function norm(p) {
    while (sub(/[^\/]+\/\.\.\//, "", p)) ;
    sub(/^\.\//, "", p)
    return p
}
/^ *-: *0:Source:/ { f = $0; sub(/^ *-: *0:Source:/, "", f); f = norm(f); keep = f ~ /^src\//; next }
!keep { next }
/^ *[^ :]+: *[0-9]+:/ {
    c = $0; sub(/^ */, "", c); sub(/:.*/, "", c)
    n = $0; sub(/^ *[^ :]+: */, "", n); sub(/:.*/, "", n)
    line = n + 0
    if (c == "-") next
    files[f] = 1
    k = f SUBSEP line
    if (!(k in lrun)) { lrun[k] = 0; lines[f]++ }
    sub(/\*$/, "", c)
    if (c ~ /^[0-9]+$/ && c + 0 > 0 && !lrun[k]) { lrun[k] = 1; lhit[f]++ }
    next
}
/^branch +[0-9]+ / {
    k = f SUBSEP line SUBSEP $2
    if (!(k in brun)) { brun[k] = 0; br[f]++ }
    if ($3 == "taken" && $4 + 0 > 0 && !brun[k]) { brun[k] = 1; bhit[f]++ }
}
END {
    nf = 0
    for (f in files) names[++nf] = f
    for (i = 2; i <= nf; i++)       # insertion sort: awk has no sort
        for (j = i; j > 1 && names[j - 1] > names[j]; j--) { t = names[j]; names[j] = names[j - 1]; names[j - 1] = t }
    printf "%-28s %17s %17s\n", "file", "lines", "branches"
    for (i = 1; i <= nf; i++) {
        f = names[i]
        L += lines[f]; LH += lhit[f]; B += br[f]; BH += bhit[f]
        printf "%-28s %6d/%-5d %3.0f%% %6d/%-5d %3.0f%%\n", f, lhit[f], lines[f], 100 * lhit[f] / lines[f],
               bhit[f], br[f], br[f] ? 100 * bhit[f] / br[f] : 100
    }
    printf "src/ line coverage: %.1f%% (%d of %d lines)\n", 100 * LH / L, LH, L
    printf "src/ branch coverage: %.1f%% (%d of %d branches taken)\n", 100 * BH / B, BH, B
}'
