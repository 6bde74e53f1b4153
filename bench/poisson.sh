#!/bin/sh
# bench/poisson.sh: the open-loop Poisson benchmark (`make bench-poisson`, and
# the second table of `make bench`). POSIX sh + awk only.
#
# Seed 001's balanced setup (specs/sird.md Sec. 2.1): 144 hosts, 9 ToRs of 16,
# 4 spines, 100 G hosts, 400 G uplinks (experiments/sird_balanced_144.topo),
# MTU 1500, infinite buffers (-q inf); WKb (facebook_hadoop.cdf) at 50%
# applied load, arrivals for the whole run, 10 ms simulated (-end 10000;
# messages still running then are counted, not drained). Four transports:
#   nscc   the default: NSCC over UET, Mixed spraying, 64 paths
#   dctcp  RFC 8257 DCTCP (not uec-dctcp), one ECMP path per message
#          (-paths 1), as seed 001's DCTCP baseline (sird.md Sec. 2.6); its
#          default loss detection (3 duplicate ACKs) then sees no reordering
#   sird   SIRD (--transport sird), seed 001's defaults, per-packet random spraying
#   homa   Homa (--transport homa, k = 7), per-packet random spraying
#
# Each case runs BENCH_RUNS times (default 3); the table has the medians of
# wall time and events/s, the largest peak memory, and the run's message
# count, achieved load and slowdowns (identical in every run: the simulator
# is deterministic). Then one more run of each at half the length (5 ms)
# gives the memory per message: (peak at 10 ms - peak at 5 ms) / (messages at
# 10 ms - messages at 5 ms). Open-loop runs stream flows.csv and recycle
# finished messages' flow state (--stream, on by default), so what grows per
# message is only what the summary keeps of it (bench/stream.sh measures it
# on 10 million messages).
#
# Environment: SHARED, SPRAYSIM, BENCH_RUNS, BENCH_DIR as bench/run.sh;
#   BENCH_POISSON_END  simulated microseconds (default 10000)
# Exit status non-zero only when the simulator fails.

cd "$(dirname "$0")/.." || exit 1
SHARED=${SHARED:-../shared}
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
RUNS=${BENCH_RUNS:-3}
DIR=${BENCH_DIR:-build/bench}
END=${BENCH_POISSON_END:-10000}
TOPO=experiments/sird_balanced_144.topo
CDF=$SHARED/data/workloads/facebook_hadoop.cdf

. bench/lib.sh
check_runs bench-poisson "$RUNS"
case $END in
'' | *[!0-9]* | 0 | 1)
    echo "bench-poisson: BENCH_POISSON_END must be an integer >= 2 (got '$END')" >&2
    exit 2
    ;;
esac
if [ ! -x "$SPRAYSIM" ]; then
    echo "bench-poisson: $SPRAYSIM not found; run make" >&2
    exit 1
fi
if [ ! -f "$CDF" ]; then
    echo "bench-poisson: $CDF not found; set SHARED to the shared data directory" >&2
    exit 1
fi
mkdir -p "$DIR" || exit 1

find_gnu_time "$DIR"

status=0
ROWS=
MEMROWS=


# one_run LOG END ARGS...: runs the simulator once; sets w rt e p (KB) msgs
# load slow; returns non-zero on failure.
one_run() {
    log=$1
    end=$2
    shift 2
    set -- --no-progress -topo "$TOPO" -mtu 1500 -q inf -end "$end" \
        --workload "poisson:cdf=$CDF,load=0.5,n=144" "$@"
    echo "$SPRAYSIM $*" >"$log.cmd"
    if [ -n "$GNU_TIME" ]; then
        "$GNU_TIME" -v -o "$log.time" "$SPRAYSIM" "$@" >"$log.out" 2>"$log.err"
    else
        "$SPRAYSIM" "$@" >"$log.out" 2>"$log.err"
    fi
    rc=$?
    line=$(grep '^run: simulated' "$log.out" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
        echo "bench-poisson: $log failed (exit $rc): $(head -n 3 "$log.err" 2>/dev/null | tr '\n' ' ')" >&2
        return 1
    fi
    # "run: simulated X us in W s wall, E events, R M events/s, peak memory P MB"
    w=$(echo "$line" | awk '{ for (k = 1; k < NF; k++) if ($(k + 1) == "s" && $(k + 2) == "wall,") print $k }')
    e=$(echo "$line" | awk '{ for (k = 1; k < NF; k++) if ($(k + 1) == "events,") print $k }')
    rt=$(echo "$line" | awk '{ for (k = 1; k < NF; k++) if ($(k + 1) == "M" && $(k + 2) == "events/s,") print $k }')
    p=$(echo "$line" | awk '{ for (k = 2; k <= NF; k++) if ($(k - 1) == "memory") print int($k * 1024) }')
    if [ -n "$GNU_TIME" ]; then
        r=$(sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' "$log.time")
        [ "${r:-0}" -gt "${p:-0}" ] && p=$r
        # wall time of the whole process ("Elapsed (wall clock) time (h:mm:ss or m:ss): 0:02.51")
        ew=$(sed -n 's/.*Elapsed (wall clock) time[^:]*: *//p' "$log.time" |
            awk -F: '{ s = 0; for (k = 1; k <= NF; k++) s = s * 60 + $k; print s }')
    else
        ew=$w
    fi
    # "poisson: load 0.5000 requested, 0.5128 achieved; ... B generated; 6680 messages, ..."
    load=$(sed -n 's/^poisson: load [0-9.]* requested, \([0-9.]*\) achieved.*/\1/p' "$log.out")
    msgs=$(sed -n 's/^poisson: .* generated; \([0-9]*\) messages,.*/\1/p' "$log.out")
    deliv=$(sed -n 's/^poisson: .* \([0-9]*\) delivered.*/\1/p' "$log.out")
    # "slowdown (median/p99): all >=1.019/4.570 (6680, 270 unfinished), A ..." ('>=': a
    # lower bound, unfinished messages counted at the run's end; kept in the table)
    slow=$(sed -n 's/^slowdown (median\/p99): all \([>=]*[0-9.]*\/[0-9.]*\) .*/\1/p' "$log.out")
    return 0
}

# poisson_case ID LABEL ARGS...
poisson_case() {
    id=$1
    name=$2
    shift 2
    walls=
    ewalls=
    rates=
    peak_kb=0
    i=1
    while [ "$i" -le "$RUNS" ]; do
        if ! one_run "$DIR/$id.run$i" "$END" "$@"; then
            status=1
            ROWS="$ROWS| $name | FAILED | | | | | | | |
"
            return
        fi
        walls="$walls $w"
        ewalls="$ewalls $ew"
        rates="$rates $rt"
        [ "${p:-0}" -gt "$peak_kb" ] && peak_kb=$p
        i=$((i + 1))
    done
    row=$(echo "$(median $walls) $(median $ewalls) $e $(median $rates) $peak_kb $msgs $deliv $load $slow" | awk '{
        printf "%.3f | %.2f | %s | %.2f | %.1f | %s | %s | %s | %s", $1, $2, $3, $4, $5 / 1024, $6, $7, $8, $9
    }')
    ROWS="$ROWS| $name | $row |
"
    echo "bench-poisson: $name done (median wall $(median $walls) s over $RUNS runs)" >&2
    # memory per message from a run of half the length
    full_kb=$peak_kb
    full_msgs=$msgs
    half=$((END / 2))
    if ! one_run "$DIR/$id.half" "$half" "$@"; then
        status=1
        return
    fi
    MEMROWS="$MEMROWS$(echo "$name $half $p $msgs $END $full_kb $full_msgs" | awk '{
        dm = $7 - $4
        printf "| %s | %.1f MB, %d messages | %.1f MB, %d messages | %s |", $1, $3 / 1024, $4, $6 / 1024, $7,
            (dm > 0) ? sprintf("%.0f", ($6 - $3) * 1024 / dm) : "n/a"
    }')
"
}

echo "bench-poisson: $RUNS run(s) per case, binary $SPRAYSIM, logs in $DIR" >&2

poisson_case pn nscc --cc nscc
poisson_case pd dctcp --cc dctcp -paths 1
poisson_case ps sird --transport sird --lb random
poisson_case ph homa --transport homa --lb random

echo
echo "seed 001 balanced: $TOPO, WKb at 50% load, -mtu 1500 -q inf -end $END"
echo
echo "| cc | median wall s (run line) | median wall s (process) | events | M events/s | peak MB | messages | delivered | achieved load | slowdown median/p99 |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf "%s" "$ROWS"
echo
echo "| cc | $((END / 2)) us run: peak, messages | $END us run: peak, messages | bytes per extra message |"
echo "|---|---|---|---|"
printf "%s" "$MEMROWS"
[ "$status" -eq 0 ] || echo "bench-poisson: the simulator FAILED in at least one case (see above)" >&2
exit $status
