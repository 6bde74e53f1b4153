#!/bin/sh
# SIRD and Homa speed beside NSCC and DCTCP on bench/poisson.sh's run (seed
# 001 balanced, WKb at 50%, 10 ms simulated, arrivals to the end): wall time,
# events, events/s and peak memory from the summary's run line and GNU time,
# and instructions from `perf stat -e instructions` (instructions do not
# depend on what else loads this shared machine; wall times do).
# Writes experiments/seed001/results/speed.txt.
set -u
cd "$(dirname "$0")/../.." || exit 1
W=${W1:-../shared/data/workloads}
OUT=experiments/seed001/results/speed.txt
B="--no-progress -topo experiments/sird_balanced_144.topo -mtu 1500 -q inf -end 10000 --workload poisson:cdf=$W/facebook_hadoop.cdf,load=0.5,n=144"
{
echo "# $(date -u +%F) commit $(git rev-parse --short HEAD); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# bin/spraysim $B <transport flags>"
echo "case | wall s (run line) | events | M events/s | instructions (G) | instructions per event | peak RSS MB | slowdown median/p99"
for c in "nscc --cc nscc" "dctcp --cc dctcp -paths 1" "sird --transport sird --lb random" "homa --transport homa --lb random"; do
    set -- $c
    name=$1; shift
    # shellcheck disable=SC2086
    perf stat -x, -e instructions -o /tmp/seed001_speed_$name.perf /usr/bin/time -v -o /tmp/seed001_speed_$name.time \
        bin/spraysim $B "$@" >/tmp/seed001_speed_$name.out 2>&1
    ins=$(grep instructions /tmp/seed001_speed_$name.perf | cut -d, -f1)
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' /tmp/seed001_speed_$name.time)
    awk -v n=$name -v ins="$ins" -v rss="$rss" '
        /^run: simulated/ { w = $6; e = $9; r = $11 }
        /^slowdown/ { s = $4; sub(/,$/, "", s) }
        END { printf "%s | %s | %s | %s | %.2f | %.0f | %.1f | %s\n", n, w, e, r, ins / 1e9, ins / e, rss / 1024, s }' \
        /tmp/seed001_speed_$name.out
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT"
cat "$OUT"
