# lib.sh: helpers the benchmark scripts share (sourced from the project root).

# check_runs NAME VALUE: VALUE (BENCH_RUNS) must be a positive integer.
check_runs() {
    case $2 in
    '' | *[!0-9]* | 0)
        echo "$1: BENCH_RUNS must be a positive integer (got '$2')" >&2
        exit 2
        ;;
    esac
}

# find_gnu_time DIR: GNU_TIME=/usr/bin/time when GNU time (with -v and the
# maximum resident set size) is there, else empty.
find_gnu_time() {
    GNU_TIME=
    if [ -x /usr/bin/time ] && /usr/bin/time -v -o "$1/.timecheck" true >/dev/null 2>&1 &&
        grep -q "Maximum resident" "$1/.timecheck" 2>/dev/null; then
        GNU_TIME=/usr/bin/time
    fi
    rm -f "$1/.timecheck"
}

# median V...: the median of the numbers given
median() {
    printf '%s\n' "$@" | sort -n | awk '
        { v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
