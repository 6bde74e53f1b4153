#!/bin/sh
# bench/stream.sh: memory of a long open-loop workload (`make bench-stream`,
# and the last table of `make bench`). POSIX sh + awk only.
#
# Seed 001's WKa (google_all_rpc.cdf, mean 864 B with linear sampling) at
# 50% load on 18 hosts (a 2-tier k=6 fat tree, 100 G, -mtu 1500 -q inf):
# about 7.2 M messages per second per host, so 78 ms simulated create about
# 10 million messages. Three runs, each with GNU time's peak RSS:
#   stream  --stream on (the default for --workload poisson), the full length
#   short   --stream on, a tenth of the length: (stream - short) / (messages
#           difference) is what each extra message costs once it finished
#   off     --stream off at a tenth of the length: the same without recycling
#           (every message's flow state kept to the end)
#   sketch  --stream on --quantiles sketch, the full length: the summary's
#           percentiles from fixed-size histograms, so nothing grows per
#           finished message
# flows.csv of `short` and `off` are compared byte for byte.
#
# Environment: SHARED, SPRAYSIM, BENCH_DIR as bench/run.sh;
#   BENCH_STREAM_END  simulated microseconds of the long run (default 78000)
# Exit status non-zero when the simulator fails or the two outputs differ.

cd "$(dirname "$0")/.." || exit 1
SHARED=${SHARED:-../shared}
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
DIR=${BENCH_DIR:-build/bench}
END=${BENCH_STREAM_END:-78000}
CDF=$SHARED/data/workloads/google_all_rpc.cdf

. bench/lib.sh
case $END in
'' | *[!0-9]* | ? | ??)
    echo "bench-stream: BENCH_STREAM_END must be an integer >= 100 (got '$END')" >&2
    exit 2
    ;;
esac
if [ ! -x "$SPRAYSIM" ]; then
    echo "bench-stream: $SPRAYSIM not found; run make" >&2
    exit 1
fi
if [ ! -f "$CDF" ]; then
    echo "bench-stream: $CDF not found; set SHARED to the shared data directory" >&2
    exit 1
fi
mkdir -p "$DIR" || exit 1
find_gnu_time "$DIR"
if [ -z "$GNU_TIME" ]; then
    echo "bench-stream: needs GNU time (/usr/bin/time -v) for peak memory; apt-get install time" >&2
    exit 1
fi

status=0
ROWS=

# one_run ID END STREAM: sets wall, kb, msgs, events
one_run() {
    id=$1
    end=$2
    mode=$4
    quant=exact
    [ "$id" = sketch ] && quant=sketch
    set -- --no-progress -tiers 2 -mtu 1500 -q inf -end "$end" --stream "$3" --quantiles "$quant" \
        --out "$DIR/$id.out" --workload "poisson:cdf=$CDF,load=0.5,n=18"
    echo "$SPRAYSIM $*" >"$DIR/$id.cmd"
    "$GNU_TIME" -v -o "$DIR/$id.time" "$SPRAYSIM" "$@" >"$DIR/$id.stdout" 2>"$DIR/$id.err"
    rc=$?
    line=$(grep '^run: simulated' "$DIR/$id.stdout" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
        echo "bench-stream: $id failed (exit $rc): $(head -n 3 "$DIR/$id.err" | tr '\n' ' ')" >&2
        status=1
        return 1
    fi
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' "$DIR/$id.time")
    wall=$(sed -n 's/.*Elapsed (wall clock) time[^:]*: *//p' "$DIR/$id.time" |
        awk -F: '{ s = 0; for (k = 1; k <= NF; k++) s = s * 60 + $k; print s }')
    msgs=$(sed -n 's/^poisson: .* generated; \([0-9]*\) messages,.*/\1/p' "$DIR/$id.stdout")
    events=$(echo "$line" | awk '{ for (k = 1; k < NF; k++) if ($(k + 1) == "events,") print $k }')
    ROWS="$ROWS| $id | $mode | $end | $msgs | $events | $wall | $(echo "$kb" | awk '{ printf "%.1f", $1 / 1024 }') |
"
    echo "bench-stream: $id done ($msgs messages, $wall s, $kb KB)" >&2
    return 0
}

short=$((END / 10))
one_run short "$short" on "--stream on" && s_kb=$kb && s_msgs=$msgs
one_run off "$short" off "--stream off" && o_kb=$kb && o_msgs=$msgs
one_run stream "$END" on "--stream on" && l_kb=$kb && l_msgs=$msgs
one_run sketch "$END" on "--stream on --quantiles sketch" && k_kb=$kb
if [ "$status" -eq 0 ] && ! cmp -s "$DIR/short.out/flows.csv" "$DIR/off.out/flows.csv"; then
    echo "bench-stream: flows.csv differs between --stream on and off" >&2
    status=1
fi

echo
echo "WKa at 50% load, 18 hosts (-tiers 2), -mtu 1500 -q inf"
echo
echo "| run | mode | -end us | messages | events | wall s | peak MB |"
echo "|---|---|---|---|---|---|---|"
printf "%s" "$ROWS"
if [ "$status" -eq 0 ]; then
    echo
    echo "$s_kb $s_msgs $l_kb $l_msgs $o_kb $o_msgs" | awk '{
        printf "bytes per extra finished message with --stream on: %.1f (%.1f MB more for %d more messages)\n",
            ($3 - $1) * 1024 / ($4 - $2), ($3 - $1) / 1024, $4 - $2
        printf "bytes per message kept without it (--stream off, short run): %.1f\n", $5 * 1024 / $6
    }'
    echo "$s_kb $k_kb $l_msgs" | awk '{
        printf "with --quantiles sketch: %.1f MB for %d messages\n", $2 / 1024, $3
    }'
fi
exit $status
