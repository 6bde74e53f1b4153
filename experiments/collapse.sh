#!/bin/sh
# Seed 004's throughput-collapse model (Sec. II, Table I, Thm. 1-6, App. A)
# against the simulator. One long flow, host 0 -> host n, sprays round robin
# over n paths (oblivious spraying, -paths n, --routing ev-mod: the ToR's up
# port is entropy mod n, so one cycle of n packets crosses every spine once);
# the path through spine0 has a fixed extra delay (--fail "link tor0 spine0
# delay D": D microseconds of propagation on that link, both directions), so a
# packet takes the congested path with probability q = 1/n.
#
# Fabric (experiments/collapse/leafspine_n<N>.topo, written by this script):
# 2 tiers, Nodes 2n, Podsize 2n, tier 0 Radix_Down n / Radix_Up n, tier 1
# Radix_Down 2, every link 100 Gb/s and 1 us, no switch latency. Derivation
# (src/topo/topo.c topo_derive): 2 ToRs, each with n uplinks, n spines, each
# spine reaching both ToRs. Host 0 sits under tor0, host n under tor1.
#
# Model assumptions met as far as the simulator allows (App. A):
#   - the receiver ACKs every packet: -sack_threshold 1;
#   - no loss and no other congestion: -disable_trim (drop-tail) with the
#     default 5-BDP queues; one flow on an idle fabric, so no queue builds;
#   - the reordering signal is TCP's: NewReno 3 duplicate ACKs, Swift a SACK
#     hole with 3 later packets acknowledged (both fixed in src/cc/);
#   - Swift parameters of Thm. 3: ai = 1, mm = max_mdf = 0.5 (defaults), and
#     one extra row with max_mdf = 0.25 to test the mm-dependence;
#   - Thm. 5's "perfect reordering-resilient Swift": LSwift with
#     --cc-opt delayed_pkts=1 (decrease on every delayed ACK), and the same
#     for MSwift, so that the median alone is what Thm. 6 credits.
# Two delays: D = 4 us (T_l = T_s + 2D = 1.86 T_s: Thm. 3's T_l < 2 T_s) and
# D = 20 us (T_l = 5.3 T_s: reordering is detected at every q).
# q from 1/64 to 1/4 (the router handles any number of equal-cost ports;
# an early version used only 63, which the "64 uplinks" check guards).
#
# Writes experiments/collapse.md (override with OUT=) and prints it.
#   sh experiments/collapse.sh            (from the project root, after make)
set -u
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
OUT=${OUT:-experiments/collapse.md}
DIR=${DIR:-experiments/collapse}
SIZE=${SIZE:-100000000}        # bytes of the long flow (24,474 packets)
NS=${NS:-"64 32 16 8 4"}
DS=${DS:-"4 20"}
MTU=4150                       # default -mtu; payload = MTU - 64
PAYLOAD=4086
COMMON="--routing ev-mod --lb oblivious -sack_threshold 1 -disable_trim -end 10000000 --no-progress"
status=0
mkdir -p "$DIR" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# Algorithms: label|--cc arguments|model (newreno, swift:MM, or -)
ALGS='NewReno|--cc newreno|tcp
Swift|--cc swift|swift:0.5
Swift mm=0.25|--cc swift --cc-opt max_mdf=0.25|swift:0.25
LSwift|--cc lswift|-
LSwift delayed_pkts=1 (Thm. 5)|--cc lswift --cc-opt delayed_pkts=1|-
MSwift|--cc mswift|-
MSwift delayed_pkts=1|--cc mswift --cc-opt delayed_pkts=1|-
SMaRTT|--cc smartt|-
NSCC|--cc nscc|-
MNSCC|--cc mnscc|-'

write_topo() { # n
    cat >"$DIR/leafspine_n$1.topo" <<EOF
# seed 004 collapse experiment: 2 ToRs x $1 hosts, $1 spines, 100 Gb/s, 1 us links
Nodes $(($1 * 2))
Tiers 2
Podsize $(($1 * 2))

Tier 0
Downlink_speed_Gbps 100
Radix_Down $1
Radix_Up $1
Downlink_Latency_ns 1000
Switch_Latency_ns 0

Tier 1
Downlink_speed_Gbps 100
Radix_Down 2
Downlink_Latency_ns 1000
Switch_Latency_ns 0
EOF
    cat >"$DIR/flow_n$1.cm" <<EOF
# one long flow from host 0 (under tor0) to host $1 (under tor1)
Nodes $(($1 * 2))
Connections 1
0->$1 id 1 start 0 size $SIZE
EOF
}

# run N D ARGS...: one simulation; appends "alg n D gbps pkts rtx fct rtt" to results
run() {
    n=$1 d=$2 label=$3
    shift 3
    o=$tmp/o
    rm -rf "$o"
    if ! sum=$("$SPRAYSIM" -tm "$DIR/flow_n$n.cm" -topo "$DIR/leafspine_n$n.topo" -paths "$n" $COMMON \
        --fail "link tor0 spine0 ${FAILKIND:-delay} $d" --out "$o" "$@" 2>&1); then
        echo "collapse.sh: spraysim failed for $label n=$n D=$d:" >&2
        echo "$sum" >&2
        status=1
        return
    fi
    rtt=$(echo "$sum" | awk '/^network:/ { print $4 }')
    awk -F, -v l="$label" -v n="$n" -v d="$d" -v rtt="$rtt" -v kind="${FAILKIND:-delay}" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "md_dec" || $i == "multi_dec") dec = i }
    NR == 2 {
        if ($7 == "") { printf "%s\t%s\t%s\tunfinished\n", l, n, d; exit }
        printf "%s\t%s\t%s\t%.4f\t%s\t%s\t%s\t%s\t%s\t%s\n", l, n, d, $4 * 8 / $7 / 1000, $11, $12, $7, rtt,
            dec ? $dec : "-", kind
    }' "$o/flows.csv" >>"$tmp/results"
}

for n in $NS 64; do write_topo "$n"; done
: >"$tmp/results"
echo "$ALGS" | while IFS='|' read -r label args model; do
    for d in $DS; do
        for n in $NS; do
            # shellcheck disable=SC2086
            run "$n" "$d" "$label" $args
        done
    done
done
# Supplement: a slow link instead of a delay (data 16.6 us longer, ACK 0.26 us)
for label in NewReno Swift "LSwift delayed_pkts=1 (Thm. 5)" "MSwift delayed_pkts=1" NSCC MNSCC; do
    args=$(echo "$ALGS" | awk -F'|' -v l="$label" '$1 == l { print $2 }')
    for n in $NS; do
        # shellcheck disable=SC2086
        FAILKIND=rate run "$n" 2 "$label" $args
    done
done
# Regression check: 64 uplinks behave as q = 1/64 (one retransmission per long-path packet)
for n in 64 63 32; do run "$n" 20 "bugcheck" --cc newreno; done
grep -q unfinished "$tmp/results" && status=1

RTT=$(awk -F'\t' 'NR == 1 { print $8 }' "$tmp/results")

{
cat <<EOF
# Throughput collapse with one congested path (seed 004 Sec. II, Table I)

Generated by \`sh experiments/collapse.sh\` (POSIX sh + awk). One flow of
$SIZE bytes from host 0 to host n sprays over n paths; the path through
spine0 has an extra propagation delay D on link tor0-spine0 (both
directions), so q = 1/n of the packets take the long path.
Throughput = payload bytes x 8 / FCT (FCT = sender holds the last ACK;
includes start-up, under 1% of the run here).

## Set-up and commands

Fabric \`$DIR/leafspine_n<n>.topo\`: 2 tiers, Nodes 2n, Podsize 2n, tier 0
Radix_Down n, Radix_Up n, tier 1 Radix_Down 2, all links 100 Gb/s and 1 us,
no switch latency: 2 ToRs, n spines; host 0 under tor0, host n under tor1.
Base RTT (every short path, unloaded, from the simulator's summary)
T_s = $RTT us; MSS = $PAYLOAD B of payload ($MTU B on the wire).

\`\`\`sh
bin/spraysim -tm $DIR/flow_n<n>.cm -topo $DIR/leafspine_n<n>.topo -paths <n> \\
    $COMMON \\
    --fail "link tor0 spine0 delay <D>" --cc <cc> [--cc-opt ...]
\`\`\`

n = $NS (q = 1/n), D = $DS us.
<cc>: newreno; swift (ai = 1, max_mdf = 0.5); swift --cc-opt max_mdf=0.25;
lswift; lswift --cc-opt delayed_pkts=1 (decreases on every delayed ACK:
Thm. 5's perfect reordering-resilient Swift); mswift; mswift --cc-opt
delayed_pkts=1; smartt; nscc; mnscc.

How the set-up meets App. A's assumptions:

| assumption (App. A) | here |
|---|---|
| receiver ACKs every packet, no delay | \`-sack_threshold 1\` (every data packet is ACKed at once) |
| round-robin spraying, one congested path of n | oblivious spraying walks all n entropies once per cycle (XOR-permuted order inside a cycle, so the gap between two long-path packets varies from 1 to 2n-1, mean n); \`--routing ev-mod\` maps entropy e to spine e |
| constant extra delay on the long path, T_l vs T_s | propagation delay D on tor0-spine0; data and ACK both cross it, so the long packet's own ACK returns after T_l = T_s + 2D (D = 4: 17.35 us = 1.86 T_s; D = 20: 49.35 us = 5.3 T_s) |
| loss probability negligible, no other congestion | one flow on an idle non-blocking fabric, drop-tail 5-BDP queues: 0 drops, 0 timeouts, 0 ECN marks in every run |
| long-path packet => 3 dup ACKs (TCP) / a SACK hole (Swift) | NewReno: 3 duplicate cumulative ACKs; Swift: hole with 3 later packets SACKed. Needs 3 later short-path packets to reach the receiver within the data's one-way extra delay D, i.e. D x rate >= 3 packets (and the ACK clock sends in bursts, so more in practice): met at D = 20 for every q (rtx per long-path packet ~1), at D = 4 only partly (rtx 0.1-0.3 for Swift) |
| Thm. 3: T_s < target_delay, T_l < 2 T_s, no pacing | target = 2 T_s + flow scaling; D = 4 gives T_l = 1.86 T_s (met); D = 20 violates T_l < 2 T_s; cwnd stays >= 2 packets (no pacing) |
| Thm. 1/3: MSS/T_s per window | windows are counted in wire packets ($MTU B); the model is evaluated as packets per T_s x $PAYLOAD B payload |
| not met: | windows are whole packets (the model neglects rounding); NewReno freezes growth during the ~1 RTT of recovery (Mathis' 1.22 ignores it); retransmissions of falsely "lost" long-path packets cost sender slots |

Model (Table I): Thm. 1, NewReno: MSS/T_s x 1.22/sqrt(q).
Thm. 3, Swift: MSS/T_s x sqrt((1/mm - 1/2) ai)/sqrt(q): with ai = 1,
mm = 0.5 this is 1.2247/sqrt(q), the same as Thm. 1; with mm = 0.25 it is
1.8708/sqrt(q). Thm. 2 (DCTCP) is not run (no ECN on a pure delay).
Thm. 4, 5: Theta(1/sqrt(q)) without closed form; Thm. 6: the median variants
avoid collapse for q < 1/3.

EOF

for d in $DS; do
    awk -F'\t' -v d="$d" -v ns="$NS" -v rtt="$RTT" -v mss="$PAYLOAD" -v algs="$ALGS" '
    BEGIN {
        nn = split(ns, N, " ")
        na = split(algs, A, "\n")
        unit = mss * 8 / (rtt * 1000)   # Gb/s of one MSS per T_s
    }
    $3 == d && $1 != "bugcheck" && $10 == "delay" { g[$1, $2] = $4; pk[$1, $2] = $5; rx[$1, $2] = $6; md[$1, $2] = $9 }
    function model(m, n,   mm) {
        if (m == "tcp") return unit * 1.22 * sqrt(n)
        if (m ~ /^swift:/) { mm = substr(m, 7) + 0; return unit * sqrt((1 / mm - 0.5) * 1) * sqrt(n) }
        return -1
    }
    END {
        printf "## D = %s us (T_l = T_s + 2D = %.2f us = %.2f T_s)\n\n", d, rtt + 2 * d, (rtt + 2 * d) / rtt
        printf "Simulated throughput, Gb/s (model of Table I in brackets):\n\n"
        printf "| algorithm |"; for (i = 1; i <= nn; i++) printf " q = 1/%s |", N[i]; printf "\n|---|"
        for (i = 1; i <= nn; i++) printf "---:|"; printf "\n"
        for (a = 1; a <= na; a++) {
            split(A[a], f, "|"); l = f[1]; m = f[3]
            printf "| %s |", l
            for (i = 1; i <= nn; i++) {
                v = g[l, N[i]]; mo = model(m, N[i])
                if (v == "") printf " - |"
                else if (mo > 0) printf " %.2f [%.2f] |", v, mo
                else printf " %.2f |", v
            }
            printf "\n"
        }
        printf "\nThroughput x sqrt(q), Gb/s (constant across a row = Theta(1/sqrt(q)); model in brackets):\n\n"
        printf "| algorithm |"; for (i = 1; i <= nn; i++) printf " q = 1/%s |", N[i]; printf " max/min |\n|---|"
        for (i = 1; i <= nn; i++) printf "---:|"; printf "---:|\n"
        for (a = 1; a <= na; a++) {
            split(A[a], f, "|"); l = f[1]; m = f[3]
            printf "| %s |", l; lo = 1e18; hi = 0
            for (i = 1; i <= nn; i++) {
                v = g[l, N[i]]
                if (v == "") { printf " - |"; continue }
                x = v / sqrt(N[i]); if (x < lo) lo = x; if (x > hi) hi = x
                mo = model(m, N[i])
                if (mo > 0) printf " %.2f [%.2f] |", x, mo / sqrt(N[i]); else printf " %.2f |", x
            }
            printf " %.2f |\n", hi / lo
        }
        printf "\nSimulated / model, and retransmissions per long-path packet (packets sent / n):\n\n"
        printf "| algorithm |"; for (i = 1; i <= nn; i++) printf " q = 1/%s |", N[i]; printf "\n|---|"
        for (i = 1; i <= nn; i++) printf "---:|"; printf "\n"
        for (a = 1; a <= na; a++) {
            split(A[a], f, "|"); l = f[1]; m = f[3]
            printf "| %s |", l
            for (i = 1; i <= nn; i++) {
                v = g[l, N[i]]; mo = model(m, N[i])
                if (v == "") { printf " - |"; continue }
                r = rx[l, N[i]] / (pk[l, N[i]] / N[i])
                if (mo > 0) printf " %.2f, rtx %.2f |", v / mo, r; else printf " rtx %.2f |", r
            }
            printf "\n"
        }
        printf "\nWindow removed by delay-driven decreases (Swift family: md_dec; SMaRTT, NSCC: multi_dec), bytes over the whole run:\n\n"
        printf "| algorithm |"; for (i = 1; i <= nn; i++) printf " q = 1/%s |", N[i]; printf "\n|---|"
        for (i = 1; i <= nn; i++) printf "---:|"; printf "\n"
        for (a = 1; a <= na; a++) {
            split(A[a], f, "|"); l = f[1]
            if (l == "NewReno") continue
            printf "| %s |", l
            for (i = 1; i <= nn; i++) printf " %s |", md[l, N[i]] == "" ? "-" : sprintf("%.0f", md[l, N[i]])
            printf "\n"
        }
        printf "\n"
    }' "$tmp/results"
done

awk -F'\t' -v ns="$NS" '
BEGIN { nn = split(ns, N, " ") }
$10 == "rate" { g[$1, $2] = $4; rx[$1, $2] = $6; if (!($1 in seen)) { seen[$1] = 1; L[++nl] = $1 } }
END {
    printf "## Supplement: the long path as a 2 Gb/s link (--fail \"link tor0 spine0 rate 2\")\n\n"
    printf "Not the model: a 4150 B data packet takes 16.6 us on the slow link but a 64 B ACK only 0.26 us, so the long packet'"'"'s own ACK comes back first and its RTT sample is seen; but the path also has a capacity of 2 Gb/s, so spraying 1/n of the flow over it caps throughput at n x 2 Gb/s (128, 64, 32, 16, 8 Gb/s) and a queue builds once the flow exceeds that. Only q = 1/64 is free of that cap. Throughput Gb/s (retransmissions):\n\n"
    printf "| algorithm |"; for (i = 1; i <= nn; i++) printf " q = 1/%s |", N[i]; printf "\n|---|"
    for (i = 1; i <= nn; i++) printf "---:|"; printf "\n"
    printf "| cap n x 2 Gb/s |"; for (i = 1; i <= nn; i++) printf " %d |", 2 * N[i]; printf "\n"
    for (a = 1; a <= nl; a++) {
        printf "| %s |", L[a]
        for (i = 1; i <= nn; i++) printf " %.2f (%d) |", g[L[a], N[i]], rx[L[a], N[i]]
        printf "\n"
    }
    printf "\n"
}' "$tmp/results"

awk -F'\t' '$1 == "bugcheck" { g[$2] = $4; rx[$2] = $6; pk[$2] = $5 }
END {
    printf "## Check: 64 uplinks\n\nNewReno, D = 20 us. With 64 spines q is 1/64: about one retransmission per packet that crossed spine0 (packets / n), and throughput between the 63- and 32-spine cases would show if a port were left out:\n\n"
    printf "| spines n | throughput Gb/s | retransmissions | packets / n |\n|---:|---:|---:|---:|\n"
    split("64 63 32", N, " ")
    for (i = 1; i <= 3; i++) printf "| %s | %.2f | %d | %.0f |\n", N[i], g[N[i]], rx[N[i]], pk[N[i]] / N[i]
    printf "\n"
}' "$tmp/results"

cat "$DIR/reading.md" 2>/dev/null
} >"$OUT"
cat "$OUT"
exit $status
