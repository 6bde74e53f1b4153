#!/bin/sh
# Seed 001 Sec. 3 (sird.md Sec. 3, starred): on an idle network a message of
# at most UnschT = 1 BDP is sent unscheduled and arrives at hardware latency;
# a larger one waits one RTT for its first credit: +9% for a 10 x BDP
# message, +200% for a single-packet message (here: UnschT = 0, so one packet
# is scheduled). One message alone, host 0 -> host 16 (another rack), on
# seed 001's balanced network; slowdown = flows.csv's fct_us / ideal_fct_us.
# Writes experiments/seed001/results/idle.txt (a second).
set -u
cd "$(dirname "$0")/../.." || exit 1
R=${RUNS:-/tmp/seed001_idle}
OUT=experiments/seed001/results/idle.txt
mkdir -p "$R"
NET="-topo experiments/sird_balanced_144.topo -mtu 1500 -q inf --no-progress --lb random"
{
echo "size_bytes  transport  options        fct_us     ideal_us   slowdown"
for c in "100000 sird -" "100001 sird -" "1000000 sird -" "1436 sird unscht=0" "1436 sird -" "1000000 homa -"; do
    set -- $c
    printf 'Nodes 144\nConnections 1\n0->16 start 0 size %s\n' "$1" >"$R/one.cm"
    o=""; [ "$3" = - ] || o="--sird-opt $3"
    rm -rf "$R/o"
    # shellcheck disable=SC2086
    bin/spraysim $NET -tm "$R/one.cm" --transport $2 $o --out "$R/o" >/dev/null 2>&1
    awk -F, -v sz=$1 -v t=$2 -v o=$3 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { printf "%-11s %-10s %-14s %-10.3f %-10.3f %.3f\n", sz, t, o, $col["fct_us"], $col["ideal_fct_us"], $col["fct_us"] / $col["ideal_fct_us"] }' "$R/o/flows.csv"
done
} >"$OUT"
cat "$OUT"
