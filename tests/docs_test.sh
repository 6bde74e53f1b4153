#!/bin/sh
# docs_test.sh: the flag reference cannot drift from the binary (issue 24).
# docs/flags.md and man/spraysim.1 are generated from the option table
# (src/cli/option_table.c) and the registries by `make docs`; this fails when
#   - either committed file differs from what the binary generates now
#     (an edited reference, or a flag changed without `make docs`);
#   - a flag in the reference has no help text;
#   - a flag name written in the source as a string ("-foo", "--foo", in an
#     error message, a flag table or a comparison anywhere under src/) is
#     not in the reference, apart from the few names below that are no
#     spraysim flag;
#   - the man page gives groff warnings (skipped without groff).
# (The table's own rules, empty help included, are also checked at every
# start-up and by tests/test_options.c.)
# Prints one "ok", "FAIL" or "skip" line per check (run_all.sh counts them).
# Environment: SPRAYSIM (default bin/spraysim).
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-docs.XXXXXX") || { echo "FAIL docs: mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM
ok() { echo "ok $1"; }
fail() { echo "FAIL $1"; }

# Names that look like flags in the source's strings but are none of
# spraysim's, each with where it comes from:
#   --flag, -flag   placeholders in prose ("--flag VALUE", "-flag (low)")
#   --ts            the --ts-* family as a whole ("time series with --ts-*")
#   --save-mem      LogGOPSim's flag, named in goal.c's error for its files
#   -dirty          the suffix of an uncommitted build's commit id
#   -l              man's flag, in the reference's "man -l man/spraysim.1"
NOT_FLAGS="--flag -flag --ts --save-mem -dirty -l"

for fmt in markdown man; do
    case $fmt in markdown) file=docs/flags.md ;; man) file=man/spraysim.1 ;; esac
    "$SPRAYSIM" --help-format=$fmt >"$T/$fmt" 2>"$T/$fmt.err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "--help-format=$fmt: exit $rc, $(head -1 "$T/$fmt.err")"
    elif [ ! -f "$file" ]; then
        fail "$file is missing (make docs writes it)"
    elif cmp -s "$T/$fmt" "$file"; then
        ok "$file is what --help-format=$fmt generates"
    else
        fail "$file differs from --help-format=$fmt (run make docs; a generated file is not edited by hand): $(diff "$file" "$T/$fmt" | sed -n 2,3p | tr '\n' ' ' | cut -c1-200)"
    fi
done

# every flag row of the reference has a meaning: its last cell is not empty
empty=$(awk '/^\| `-/ { line = $0; sub(/\|[ ]*$/, "", line); n = split(line, c, "|"); if (c[n] ~ /^ *$/) print c[2] }' "$T/markdown" | tr -d '`' | tr '\n' ' ')
rows=$(grep -c '^| `-' "$T/markdown")
if [ "$rows" -gt 50 ] && [ -z "$empty" ]; then
    ok "every flag in the reference has help ($rows flag rows)"
else
    fail "flags without help in the reference: ${empty:-none} ($rows flag rows)"
fi

# every flag name in the source's strings is in the reference
grep -o '`-[^`]*`' "$T/markdown" | tr -d '`' | sort -u >"$T/documented"
# string literals of every C file; a name starts after a character that
# cannot be part of a word or an escape (troff's "\-" is not a flag)
find src -name '*.[ch]' -o -name '*.def' | sort | xargs grep -hoE '"([^"\\]|\\.)*"' |
    grep -oE '(^|[^A-Za-z0-9_.\\-])--?[a-z][a-z0-9_]*(-[a-z0-9_]+)*' | sed 's/^[^-]*//' | sort -u >"$T/named"
missing=
for f in $(comm -23 "$T/named" "$T/documented"); do
    case " $NOT_FLAGS " in *" $f "*) ;; *) missing="$missing $f" ;; esac
done
if [ "$(wc -l <"$T/named")" -gt 50 ] && [ -z "$missing" ]; then
    ok "every flag named in the source is in the reference ($(wc -l <"$T/named" | tr -d ' ') names)"
else
    fail "flags named in the source but missing from docs/flags.md (an option table or transport flag entry):$missing"
fi
# and the exceptions are still needed (a stale one would hide a real flag)
for f in $NOT_FLAGS; do
    grep -qx -e "$f" "$T/named" || fail "NOT_FLAGS lists $f, which no source string names any more"
    grep -qx -e "$f" "$T/documented" && fail "NOT_FLAGS lists $f, which is a documented flag"
done

if command -v groff >/dev/null 2>&1; then
    groff -man -Tutf8 -ww "$T/man" >/dev/null 2>"$T/groff"
    if [ -s "$T/groff" ]; then
        fail "groff warns on the man page: $(head -3 "$T/groff" | tr '\n' ' ')"
    else
        ok "the man page renders without groff warnings"
    fi
else
    echo "skip the man page's groff check: no groff here"
fi
