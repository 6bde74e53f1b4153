#!/bin/sh
# roce.sh: lossless RoCEv2 over PFC, side by side with the reference
# simulator's htsim_roce (no CC) on its own cases and flags, then DCQCN
# against first principles (htsim_roce -dcqcn never finishes, see
# /work/shared/specs/reference-simulator.md): N-to-1 bottlenecks with
# long flows, the bytes each sender and the bottleneck sent between two
# instants after convergence, as shares of the link. Writes
# experiments/roce.md (tables, exact commands, notes).
#   sh experiments/roce.sh        (from the project root, after make)
# htsim binaries from $HTSIM_DIR (default: the build of /work/ref/README.md);
# without them the reference column holds the tails reference-simulator.md
# recorded. htsim writes logout.dat and idmap.txt into its working
# directory: it runs in a scratch directory removed afterwards.
set -u
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
HTSIM_DIR=${HTSIM_DIR:-/work/ref/uet-htsim/htsim/sim/build/datacenter}
OUT=${OUT:-experiments/roce.md}
[ -x "$SPRAYSIM" ] || { echo "roce.sh: $SPRAYSIM not found; run make first" >&2; exit 1; }
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
case $SHARED in /*) ;; *) SHARED=$(pwd)/$SHARED ;; esac
M=$SHARED/data/htsim/matrices
WORK=$(mktemp -d "${TMPDIR:-/tmp}/roce.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'rm -rf "$WORK"; exit 1' HUP INT TERM
printf 'Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n5->0 id 2 start 0 size 4000000\n' >"$WORK/2to1.cm"
have_ref=1
[ -x "$HTSIM_DIR/htsim_roce" ] || { have_ref=0; echo "roce.sh: $HTSIM_DIR/htsim_roce not found: recorded tails used" >&2; }

now() { date +%s.%N; }
ROWS=$WORK/rows
: >"$ROWS"
# ref_row NAME RECORDED_TAIL MATRIX
ref_row() {
    name=$1 recorded=$2 cm=$3
    nodes=$(sed -n 's/^Nodes \([0-9]*\).*/\1/p' "$cm")
    t0=$(now)
    "$SPRAYSIM" --transport roce -tm "$cm" -paths 1 -end 5000 --out "$WORK/s" >"$WORK/s.out" 2>&1
    t1=$(now)
    s_tail=$(sed -n 's/^FCT: median [0-9.]* us, p99 [0-9.]* us, max \([0-9.]*\) us.*/\1/p' "$WORK/s.out")
    s_med=$(sed -n 's/^FCT: median \([0-9.]*\) us.*/\1/p' "$WORK/s.out")
    s_fin=$(sed -n 's/^flows: \([0-9]* of [0-9]*\) finished.*/\1/p' "$WORK/s.out")
    s_drops=$(sed -n 's/^packets: .* \([0-9]*\) drops.*/\1/p' "$WORK/s.out")
    s_pauses=$(sed -n 's/^pfc: \([0-9]*\) pauses.*/\1/p' "$WORK/s.out")
    s_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    if [ $have_ref = 1 ]; then
        t0=$(now)
        (cd "$WORK" && "$HTSIM_DIR/htsim_roce" -tm "$cm" -strat ecmp_host -paths 1 -nodes "$nodes" -end 5000 >"$WORK/h.out" 2>&1)
        t1=$(now)
        set -- $(awk '/finished at/ { for (i = 1; i < NF; i++) if ($i == "at") { print $(i+1) + 0; break } }' "$WORK/h.out" |
            sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "none none 0"; else print v[NR], v[int((NR + 1) / 2)], NR }')
        h_tail=$1 h_med=$2 h_n=$3
        h_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    else
        h_tail=$recorded h_med="-" h_n="-" h_wall="-"
    fi
    ratio=$(awk -v s="${s_tail:-0}" -v h="$h_tail" 'BEGIN { if (h + 0 > 0) printf "%.3f", s / h; else print "-" }')
    echo "| $name | $s_tail | $h_tail | $ratio | $s_med | $h_med | ${s_fin% of *} / $h_n of ${s_fin#* of } | $s_drops | $s_pauses | $s_wall | $h_wall |" >>"$ROWS"
    echo "$name: spraysim $s_tail us, htsim $h_tail us (ratio $ratio)" >&2
}
ref_row "2to1" 658.9 "$WORK/2to1.cm"
ref_row "incast" 2451.3 "$M/incast.cm"
ref_row "perm_128, 1 path" 821.6 "$M/perm_128n_128c_2MB.cm"

# DCQCN: N senders (hosts 1..N) of SIZE bytes each into host 0; bytes sent
# between FROM and TO us by each sender's NIC and by the ToR port into host 0
DROWS=$WORK/drows
: >"$DROWS"
dcqcn_row() {
    n=$1 size=$2 from=$3 to=$4 k=$5
    cm=$WORK/${n}to1.cm
    { echo "Nodes 16"; echo "Connections $n"; i=1; while [ $i -le "$n" ]; do echo "$i->0 id $i start 0 size $size"; i=$((i + 1)); done; } >"$cm"
    for e in "$from" "$to"; do
        "$SPRAYSIM" --transport roce -dcqcn "$k" -tm "$cm" -paths 1 -end "$e" --out "$WORK/d$e" >"$WORK/d$e.out" 2>&1
    done
    awk -F, -v n="$n" -v win="$((to - from))" -v k="$k" -v from="$from" -v to="$to" -v size="$size" '
        FNR == 1 { file++ ; next }
        file == 1 { if ($3 == "host") a[$1] = $10; if ($2 == 16 && $4 == 0) ab = $10; d1 += $16; next }
        { if ($3 == "host" && $1 >= 1 && $1 <= n) { s = ($10 - a[$1]) * 8 / (win * 100000); sh[$1] = s; sum += s; sq += s * s }
          if ($2 == 16 && $4 == 0) util = ($10 - ab) * 8 / (win * 100000); drops += $16; pauses += $19 }
        END { fair = util / n; lo = 1e9; hi = 0
              for (i = 1; i <= n; i++) { r = sh[i] / fair; if (r < lo) lo = r; if (r > hi) hi = r }
              printf "| %d-to-1, %d MB each, K %d | %d .. %d | %.1f%% | %.3f .. %.3f | %.4f | %d | %d |\n",
                     n, size / 1000000, k, from / 1000, to / 1000, 100 * util, lo, hi, sum * sum / (n * sq), drops, pauses }' \
        "$WORK/d$from/queues.csv" "$WORK/d$to/queues.csv" >>"$DROWS"
    tail -1 "$DROWS" >&2
}
# DCQCN on the reference's own cases: short flows, far from converged
TROWS=$WORK/trows
: >"$TROWS"
for c in "2to1:$WORK/2to1.cm" "incast:$M/incast.cm" "perm_128, 1 path:$M/perm_128n_128c_2MB.cm"; do
    name=${c%%:*} cm=${c#*:}
    "$SPRAYSIM" --transport roce -tm "$cm" -paths 1 -end 20000 >"$WORK/t0.out" 2>&1
    "$SPRAYSIM" --transport roce -dcqcn 10 -tm "$cm" -paths 1 -end 20000 >"$WORK/t1.out" 2>&1
    a=$(sed -n 's/^FCT: median [0-9.]* us, p99 [0-9.]* us, max \([0-9.]*\) us.*/\1/p' "$WORK/t0.out")
    b=$(sed -n 's/^FCT: median [0-9.]* us, p99 [0-9.]* us, max \([0-9.]*\) us.*/\1/p' "$WORK/t1.out")
    pa=$(sed -n 's/^pfc: \([0-9]*\) pauses.*/\1/p' "$WORK/t0.out")
    pb=$(sed -n 's/^pfc: \([0-9]*\) pauses.*/\1/p' "$WORK/t1.out")
    db=$(sed -n 's/^packets: .* \([0-9]*\) drops.*/\1/p' "$WORK/t1.out")
    echo "| $name | $a | $b | $pa | $pb | $db |" >>"$TROWS"
done
dcqcn_row 2 400000000 12000 20000 10
dcqcn_row 8 100000000 20000 40000 10
dcqcn_row 15 300000000 80000 200000 10

{
    echo "# RoCEv2 over PFC, side by side with htsim_roce; DCQCN against first principles"
    echo
    echo "Written by \`sh experiments/roce.sh\` ($(date -u +%Y-%m-%d), spraysim $("$SPRAYSIM" --version | sed 's/^spraysim //'))."
    if [ $have_ref = 1 ]; then
        echo "Reference: \`$HTSIM_DIR/htsim_roce\` (htsim at ultraethernet/uet-htsim 40ccb05)."
    else
        echo "Reference binary absent: its tails are those /work/shared/specs/reference-simulator.md recorded."
    fi
    echo "Tail = the slowest flow's FCT (every flow starts at 0); no congestion control, PFC at 12/15 packets."
    echo
    echo "| case | spraysim tail (us) | htsim tail (us) | ratio | spraysim median | htsim median | finished (spraysim / htsim) | spraysim drops | spraysim pauses | spraysim s | htsim s |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    cat "$ROWS"
    echo
    echo "Commands (M = shared/data/htsim/matrices; 2to1.cm = \`Nodes 16\`, \`1->0\` and \`5->0\`, 4 MB each,"
    echo "as /work/ref/cm/2to1.cm; N = the matrix's Nodes):"
    echo
    echo '```'
    echo "htsim_roce -tm CM -strat ecmp_host -paths 1 -nodes N -end 5000"
    echo "spraysim --transport roce -tm CM -paths 1 -end 5000"
    echo "CM: 2to1.cm | M/incast.cm | M/perm_128n_128c_2MB.cm"
    echo '```'
    echo
    echo "DCQCN (\`spraysim --transport roce -dcqcn K -tm NTO1.cm -paths 1 -end T\` at T = FROM and TO;"
    echo "senders are hosts 1..N, the receiver host 0; utilization = bytes the ToR port into host 0 sent"
    echo "in the window over the link's capacity; shares = each sender NIC's bytes in the window over"
    echo "the fair share utilization/N; Jain = Jain's index of the shares; drops and pauses over the run to TO):"
    echo
    echo "| case | window (ms) | utilization | share / fair (min .. max) | Jain | drops | PFC pauses |"
    echo "|---|---|---|---|---|---|---|"
    cat "$DROWS"
    echo
    echo "DCQCN on the reference's cases (\`-dcqcn 10\`, same flags otherwise; tails in us):"
    echo
    echo "| case | tail, no CC | tail, DCQCN | PFC pauses, no CC | PFC pauses, DCQCN | drops, DCQCN |"
    echo "|---|---|---|---|---|---|"
    cat "$TROWS"
    echo
    cat <<'NOTES'
Notes:

- Without CC every case is PFC's doing: the senders start at line rate, the bottleneck's ingress
  links pause their upstream ports, and the pauses spread back to the senders' NICs; spraysim
  drops and retransmits nothing (htsim's lossless queues cannot drop either).
- DCQCN converges slowly: a CNP cut and fast recovery both scale a flow's rate by the same factor
  whatever the rate, so the start's unequal rates persist until additive increase (only after five
  quiet 55 us stages) evens them out. Shares measured over the first milliseconds are further from
  fair (2-to-1 over 2..6 ms: 0.405 and 0.506 of the link); the windows above start after that.
- K must sit below what PFC lets an egress queue reach, or it never marks: at the ToR into host 0
  the queue is bounded by about 15 packets per ingress link (plus a link's worth in flight), so
  -dcqcn 50 on the 2-to-1 marks nothing and PFC alone paces the senders.
- htsim_roce -dcqcn K does not finish (reference-simulator.md), so DCQCN has no reference run.
- On the reference's short-flow cases DCQCN never converges: its first CNPs halve every sender
  (alpha starts at 1) and recovery takes hundreds of microseconds, so the tails are longer than
  with PFC alone, which keeps the bottleneck busy; DCQCN's gain is fewer pauses.
NOTES
} >"$OUT"
echo "wrote $OUT" >&2
