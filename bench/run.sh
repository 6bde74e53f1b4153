#!/bin/sh
# bench/run.sh: the benchmark suite (`make bench`). POSIX sh + awk only.
#
# Runs each case BENCH_RUNS times (default 3) and prints a markdown table with
# the median wall time, events, events per second and peak memory, then the
# performance targets. It is a report: missing a target is not a failure; the
# exit status is non-zero only when the simulator itself fails.
#
# Environment:
#   SHARED       shared data directory (default ../shared)
#   SPRAYSIM     the binary (default bin/spraysim)
#   BENCH_RUNS   runs per case (default 3)
#   BENCH_QUICK  1 = skip the slow 8192-node case (d)
#   BENCH_DIR    where generated matrices and run logs go (default build/bench)
#
# Wall time and events come from the simulator's own summary line
#   run: simulated X us in W s wall, E events, R M events/s, peak memory P MB
# (W covers setup and the run, not process start-up or output files). The
# events/s column is the median of that line's rate (computed by the simulator
# from its unrounded wall time, so tiny cases are not distorted by the
# 3-decimal W). Peak
# memory is the larger of that line's figure and /usr/bin/time -v's maximum
# resident set size when GNU time is available.

cd "$(dirname "$0")/.." || exit 1
SHARED=${SHARED:-../shared}
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
RUNS=${BENCH_RUNS:-3}
DIR=${BENCH_DIR:-build/bench}
M=$SHARED/data/htsim/matrices

. bench/lib.sh
check_runs bench "$RUNS"
if [ ! -x "$SPRAYSIM" ]; then
    echo "bench: $SPRAYSIM not found; run make" >&2
    exit 1
fi
if [ ! -f "$M/one.cm" ]; then
    echo "bench: $M/one.cm not found; set SHARED to the shared data directory" >&2
    exit 1
fi
mkdir -p "$DIR" || exit 1

find_gnu_time "$DIR"

status=0
ROWS=


# bench_case ID LABEL ARGS...: runs the simulator RUNS times (logs in
# $DIR/ID.runN.*) and appends a table row.
bench_case() {
    id=$1
    name=$2
    shift 2
    walls=
    rates=
    events=
    peak_kb=0
    fin=
    failed=
    i=1
    while [ "$i" -le "$RUNS" ]; do
        log=$DIR/$id.run$i
        if [ -n "$GNU_TIME" ]; then
            "$GNU_TIME" -v -o "$log.time" "$SPRAYSIM" --no-progress "$@" >"$log.out" 2>"$log.err"
        else
            "$SPRAYSIM" --no-progress "$@" >"$log.out" 2>"$log.err"
        fi
        rc=$?
        line=$(grep '^run: simulated' "$log.out" | tail -n 1)
        if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
            echo "bench: case $name run $i failed (exit $rc): $(head -n 3 "$log.err" 2>/dev/null | tr '\n' ' ')" >&2
            failed=1
            break
        fi
        # "run: simulated X us in W s wall, E events, R M events/s, peak memory P MB"
        w=$(echo "$line" | awk '{ for (k = 1; k < NF; k++) if ($(k + 1) == "s" && $(k + 2) == "wall,") print $k }')
        e=$(echo "$line" | awk '{ for (k = 1; k < NF; k++) if ($(k + 1) == "events,") print $k }')
        rt=$(echo "$line" | awk '{ for (k = 1; k < NF; k++) if ($(k + 1) == "M" && $(k + 2) == "events/s,") print $k }')
        p=$(echo "$line" | awk '{ for (k = 2; k <= NF; k++) if ($(k - 1) == "memory") print int($k * 1024) }')
        walls="$walls $w"
        rates="$rates $rt"
        events=$e
        [ "${p:-0}" -gt "$peak_kb" ] && peak_kb=$p
        if [ -n "$GNU_TIME" ]; then
            r=$(sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' "$log.time")
            [ "${r:-0}" -gt "$peak_kb" ] && peak_kb=$r
        fi
        fin=$(sed -n 's/^flows: \([0-9]*\) of \([0-9]*\) finished.*/\1 \2/p' "$log.out")
        i=$((i + 1))
    done
    if [ -n "$failed" ]; then
        status=1
        ROWS="$ROWS| $name | FAILED | | | | |
"
        return
    fi
    med=$(median $walls)
    medrate=$(median $rates)
    row=$(echo "$med $events $medrate $peak_kb $fin" | awk '{
        done = ($5 == $6) ? "yes (" $5 "/" $6 ")" : "NO (" $5 "/" $6 ")"
        printf "%.3f | %s | %.2f | %.1f | %s", $1, $2, $3, $4 / 1024, done
    }')
    ROWS="$ROWS| $name | $row |
"
    echo "bench: $name done (median wall $med s over $RUNS runs)" >&2
}

echo "bench: $RUNS run(s) per case, binary $SPRAYSIM, logs in $DIR" >&2

# generated inputs (not committed)
sh tools/gen_cm.sh incast 1024 0 100000 >"$DIR/incast_1023to1_100KB.cm" || status=1
if [ "${BENCH_QUICK:-0}" != 1 ]; then
    sh tools/gen_cm.sh perm 8192 2000000 1 >"$DIR/perm_8192n_2MB.cm" || status=1
fi

# chain_cm MODE: 40,000 flows of 10 KB, 2,500 per sender on 16 hosts. chain:
# each sender's flows start one after the other through oneshot triggers
# (send_done_trigger -> trigger); times: the same flows without triggers,
# started 13.3 us apart (the chained run's mean step), so both runs carry
# the same traffic and differ in the triggers (issue 9's target: the chained
# run at no less than half the unchained run's events per second).
chain_cm() {
    awk -v hosts=16 -v per=2500 -v size=10000 -v mode="$1" 'BEGIN {
        n = hosts * per
        print "Nodes " hosts
        print "Connections " n
        if (mode == "chain") print "Triggers " hosts * (per - 1)
        id = 0
        for (h = 0; h < hosts; h++)
            for (k = 0; k < per; k++) {
                id++
                d = (h + 1 + k % (hosts - 1)) % hosts
                line = h "->" d " id " id
                if (mode != "chain") line = line " start " sprintf("%.3f", k * 13.3)
                else if (k == 0) line = line " start 0"
                else line = line " trigger " (id - 1)
                line = line " size " size
                if (mode == "chain" && k < per - 1) line = line " send_done_trigger " id
                print line
            }
        if (mode == "chain")
            for (h = 0; h < hosts; h++)
                for (k = 0; k < per - 1; k++) print "trigger id " (h * per + k + 1) " oneshot"
    }'
}
chain_cm chain >"$DIR/chain_40000.cm" || status=1
chain_cm times >"$DIR/unchained_40000.cm" || status=1

bench_case a "(a) one.cm" -tm "$M/one.cm"
bench_case b "(b) perm 1024n 2MB, 128 paths" -tm "$M/perm_1024n_1024c_0u_2000000b.cm" -paths 128 -end 3000
bench_case c "(c) incast 1023-to-1 100KB, 128 paths" -tm "$DIR/incast_1023to1_100KB.cm" -paths 128 -end 20000
if [ "${BENCH_QUICK:-0}" != 1 ]; then
    bench_case d "(d) perm 8192n 2MB, 128 paths" -tm "$DIR/perm_8192n_2MB.cm" -paths 128 -end 5000
else
    ROWS="$ROWS| (d) perm 8192n 2MB, 128 paths | skipped (BENCH_QUICK=1) | | | | |
"
fi

bench_case e "(e) 40,000 flows chained by triggers" -tm "$DIR/chain_40000.cm" -end 1000000
bench_case f "(f) the same 40,000 flows, start times" -tm "$DIR/unchained_40000.cm" -end 1000000

echo
echo "| case | median wall s | events | M events/s | peak MB | all flows finished? |"
echo "|---|---|---|---|---|---|"
printf "%s" "$ROWS"
echo
echo "targets: (b) <= 1.2 s, (d) <= 20 s and <= 1 GB, (e) >= half the events/s of (f)"
[ "$status" -eq 0 ] || echo "bench: the simulator FAILED in at least one case (see above)" >&2
exit $status
