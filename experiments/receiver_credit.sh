#!/bin/sh
# receiver_credit.sh: EQDS and UET's receiver-credit congestion control,
# side by side with the reference simulator (htsim) on the reference's own
# flags: the slowest flow's FCT (tail) of each, their ratio, the medians,
# the retransmissions, and wall time with the speedup. Writes
# experiments/receiver_credit.md (the table, the exact commands, notes).
#   sh experiments/receiver_credit.sh        (from the project root, after make)
# The reference binaries are looked for in $HTSIM_DIR (default: the build
# described in /work/ref/README.md). Without them the script says so and
# fills the reference columns with the numbers that README recorded.
# htsim writes logout.dat and idmap.txt into its working directory: it runs
# in a scratch directory that is removed afterwards.
# The spraysim side, with htsim's tails as recorded values and a verdict per
# case, is the sweep experiments/receiver_credit.toml (make figures); this
# script stays as the separate step that runs the reference binaries side by
# side (their tails, medians, retransmissions and wall times, the speedup).
set -u
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
HTSIM_DIR=${HTSIM_DIR:-/work/ref/uet-htsim/htsim/sim/build/datacenter}
OUT=${OUT:-experiments/receiver_credit.md}
M=$SHARED/data/htsim/matrices
T=$SHARED/data/htsim/topologies

[ -x "$SPRAYSIM" ] || { echo "receiver_credit.sh: $SPRAYSIM not found; run make first" >&2; exit 1; }
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
case $SHARED in /*) ;; *) SHARED=$(pwd)/$SHARED; M=$SHARED/data/htsim/matrices; T=$SHARED/data/htsim/topologies ;; esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/receiver_credit.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'rm -rf "$WORK"; exit 1' HUP INT TERM
printf 'Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n5->0 id 2 start 0 size 4000000\n' >"$WORK/2to1.cm"

have_ref=1
for b in htsim_uec htsim_eqds; do
    [ -x "$HTSIM_DIR/$b" ] || have_ref=0
done
if [ $have_ref = 0 ]; then
    echo "receiver_credit.sh: reference binaries not found in $HTSIM_DIR (set HTSIM_DIR);" \
        "the reference columns show the numbers /work/ref/README.md recorded" >&2
fi

now() { date +%s.%N; }
# the largest and the median "finished at" of an htsim log
ref_stats() {
    awk '/finished at/ { for (i = 1; i < NF; i++) if ($i == "at") { print $(i+1) + 0; break } }' "$1" | sort -n |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "none none 0"; exit } print v[NR], v[int((NR + 1) / 2)], NR }'
}

ROWS=$WORK/rows
: >"$ROWS"
# case NAME RECORDED_TAIL HTSIM_BINARY "HTSIM FLAGS" "SPRAYSIM FLAGS" MATRIX_AND_REST...
case_row() {
    name=$1 recorded=$2 bin=$3 hflags=$4 sflags=$5
    shift 5
    t0=$(now)
    # shellcheck disable=SC2086
    "$SPRAYSIM" $sflags "$@" >"$WORK/s.out" 2>"$WORK/s.err"
    t1=$(now)
    s_tail=$(sed -n 's/^FCT: median [0-9.]* us, p99 [0-9.]* us, max \([0-9.]*\) us.*/\1/p' "$WORK/s.out")
    s_med=$(sed -n 's/^FCT: median \([0-9.]*\) us.*/\1/p' "$WORK/s.out")
    s_fin=$(sed -n 's/^flows: \([0-9]* of [0-9]*\) finished.*/\1/p' "$WORK/s.out")
    s_rtx=$(sed -n 's/^packets: [0-9]* data sent, \([0-9]*\) retransmitted.*/\1/p' "$WORK/s.out")
    s_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    if [ $have_ref = 1 ]; then
        t0=$(now)
        # shellcheck disable=SC2086
        (cd "$WORK" && "$HTSIM_DIR/$bin" $hflags "$@" >"$WORK/h.out" 2>&1)
        t1=$(now)
        set -- $(ref_stats "$WORK/h.out")
        h_tail=$1 h_med=$2 h_n=$3
        h_rtx=$(sed -n 's/^New: [0-9]* Rtx: \([0-9]*\).*/\1/p' "$WORK/h.out")
        h_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
        speed=$(awk -v s="$s_wall" -v h="$h_wall" 'BEGIN { if (s > 0) printf "%.1fx", h / s; else print "-" }')
    else
        h_tail=$recorded h_med="-" h_n="-" h_rtx="-" h_wall="-" speed="-"
    fi
    ratio=$(awk -v s="${s_tail:-0}" -v h="$h_tail" 'BEGIN { if (h + 0 > 0) printf "%.3f", s / h; else print "-" }')
    echo "| $name | $s_tail | $h_tail | $ratio | $s_med | $h_med | ${s_fin% of *} / $h_n of ${s_fin#* of } | $s_rtx | $h_rtx | $s_wall | $h_wall | $speed |" >>"$ROWS"
    echo "$name: spraysim $s_tail us, htsim $h_tail us (ratio $ratio)" >&2
}

P128="$M/perm_128n_128c_2MB.cm -paths 128"
P1024="$M/perm_1024n_1024c_0u_2000000b.cm -paths 128"
# receiver credit only
case_row "2to1, receiver credit" 658.388 htsim_uec "-receiver_cc_only" "-receiver_cc_only" -tm "$WORK/2to1.cm" -paths 1 -end 5000
case_row "incast, receiver credit" 2464.44 htsim_uec "-receiver_cc_only" "-receiver_cc_only" -tm "$M/incast.cm" -end 5000
case_row "perm_128, receiver credit" 199.126 htsim_uec "-receiver_cc_only" "-receiver_cc_only" -tm $P128 -end 5000
case_row "perm_1024 leaf-spine 4:1, receiver credit" 749.717 htsim_uec "-receiver_cc_only" "-receiver_cc_only" \
    -tm $P1024 -topo "$T/leaf_spine_1024_oversub.topo" -end 4000
# receiver credit and the sender window
case_row "2to1, credit + window" 654.367 htsim_uec "-receiver_cc_only -sender_cc" "-receiver_cc_only -sender_cc" -tm "$WORK/2to1.cm" -paths 1 -end 5000
case_row "incast, credit + window" 2462.92 htsim_uec "-receiver_cc_only -sender_cc" "-receiver_cc_only -sender_cc" -tm "$M/incast.cm" -end 5000
case_row "perm_128, credit + window" 201.873 htsim_uec "-receiver_cc_only -sender_cc" "-receiver_cc_only -sender_cc" -tm $P128 -end 5000
# EQDS
case_row "2to1, EQDS" 658.388 htsim_eqds "" "--transport eqds" -tm "$WORK/2to1.cm" -paths 1 -end 5000
case_row "incast, EQDS" 2470.33 htsim_eqds "" "--transport eqds" -tm "$M/incast.cm" -end 5000
case_row "perm_128, EQDS" 213.073 htsim_eqds "" "--transport eqds" -tm $P128 -end 5000
case_row "perm_1024, EQDS" 205.896 htsim_eqds "" "--transport eqds" -tm $P1024 -end 5000

{
    echo "# EQDS and UET receiver credit, side by side with the reference simulator"
    echo
    echo "Written by \`sh experiments/receiver_credit.sh\` ($(date -u +%Y-%m-%d), spraysim $("$SPRAYSIM" --version | sed 's/^spraysim //'))."
    if [ $have_ref = 1 ]; then
        echo "Reference: \`$HTSIM_DIR\` (htsim at ultraethernet/uet-htsim 40ccb05)."
    else
        echo "Reference binaries absent: its columns hold the tails /work/ref/README.md recorded, nothing else."
    fi
    echo "Tail = the slowest flow's FCT; every flow starts at 0. Wall times are single runs on a shared 2-core"
    echo "machine (run-to-run spread up to 2x); the speedup is htsim's wall time over spraysim's."
    echo
    echo "| case | spraysim tail (us) | htsim tail (us) | ratio | spraysim median | htsim median | finished (spraysim / htsim) | spraysim rtx | htsim rtx | spraysim s | htsim s | speedup |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    cat "$ROWS"
    echo
    echo "Commands (M = shared/data/htsim/matrices, T = shared/data/htsim/topologies, 2to1.cm ="
    echo "\`Nodes 16\`, \`1->0\` and \`5->0\`, 4 MB each, as /work/ref/cm/2to1.cm):"
    echo
    echo '```'
    echo "htsim_uec -receiver_cc_only -tm CM ...          spraysim -receiver_cc_only -tm CM ..."
    echo "htsim_uec -receiver_cc_only -sender_cc -tm CM   spraysim -receiver_cc_only -sender_cc -tm CM ..."
    echo "htsim_eqds -tm CM ...                           spraysim --transport eqds -tm CM ...   (or a link named htsim_eqds)"
    echo "CM ...: 2to1.cm -paths 1 -end 5000 | M/incast.cm -end 5000 | M/perm_128n_128c_2MB.cm -paths 128 -end 5000"
    echo "        M/perm_1024n_1024c_0u_2000000b.cm -paths 128 [-topo T/leaf_spine_1024_oversub.topo -end 4000 | -end 5000]"
    echo '```'
    echo
    cat <<'NOTES'
What the comparison shows:

- Every case is within 4% of the reference; the 2-to-1 cases and the receiver-credit incast land on
  htsim's tails to its printed digits, and a single 2 MB flow too (EQDS 177.823 vs 177.822 us,
  receiver credit 177.368 vs 177.368 us). The unit tests pin several of these (short EQDS flows
  to 1 ns, the 2-to-1 receiver-credit case with htsim's 499 ACKs).
- The largest gap, perm_128 under EQDS (spraysim about 3% faster), is in the tail only: the medians
  agree to 0.01 us (197.5 us both). htsim's own tail moves with its seed: 213.1, 207.9, 207.7 and
  210.2 us for seeds 13, 1, 2, 3 (mean 209.7), spraysim's 206.4, 206.0, 204.5, 204.1 us (mean 205.3),
  so about 2% remains after averaging, and htsim retransmits more (757 to 1077 packets per run
  against 508 to 714). Ruled out by trying them: the load balancer (mixed, oblivious, bitmap and
  REPS give 205-208 us; oblivious even retransmits as much as htsim, 1109 packets, at 206.5 us) and
  the switch queue's choice of what to trim (htsim's composite queue trims the arriving packet or,
  on a coin flip, the one queued last; doing the same in spraysim's queue for this run gave
  204.1-207.0 us over the four seeds). Not ruled out: the ECMP hash itself (same inputs, another
  function, so other path collisions among the speculative first windows) and the NIC's sharing
  between data and control (htsim gives data 1 turn in 11 while control waits; spraysim's NIC
  sends control first).
- The leaf-spine case needs the receivers' pull-rate control that htsim switches on by itself for
  oversubscribed trees without a sender window (oversubscribed_cc.cpp); without it the 4:1 core
  trims far more. spraysim retransmits more there than htsim (about 61,000 against 48,000 packets),
  yet the tails agree within 0.2%.
- With -sender_cc, htsim's NSCC leaves its window alone for a trim at the last hop when receiver
  credit is on; spraysim's CC modules hear every NACK. The receiver's pacing dominates these runs,
  so the tails still agree within 0.3%.

Reproduced reference quirks (not fixed, so that the two agree): a short EQDS flow to a host in its
own rack stops for a whole RTO (219.7 us) when its first ACK ends speculation before it has sent
everything, because its pull target is only announced on data packets it cannot send without
pulled credit (0->1, 20 packets: 234.064 us in both).
Departure: a flow whose speculative credit outlasts its data (a lone 4->7 flow of 138,235 B)
never finishes in htsim_eqds; spraysim's sender then gives that credit up and sends one RTS with
the true pull target, and the flow finishes at 37.3 us.
NOTES
} >"$OUT"
echo "wrote $OUT" >&2
