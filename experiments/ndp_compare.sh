#!/bin/sh
# ndp_compare.sh: NDP side by side with the reference's htsim_ndp on the same
# connection matrices (experiments/ndp.md records a run). For each case it
# prints the last flow's finish time (us, absolute, from each simulator's
# per-flow "finished at" lines), the flows finished and the retransmissions,
# for htsim_ndp (-strat perm, its defaults: 9000-byte payload, 15-packet
# queues and first window) and spraysim (--transport ndp -mtu 9064 --lb
# oblivious: the same packet on the wire and htsim's path permutation), and
# their ratio.
#   HTSIM_NDP  the reference binary (default: uet-htsim's build under /work/ref)
#   HTSIM_CM   its datacenter/connection_matrices folder
#   SHARED     this project's shared folder (default ../shared)
#   SPRAYSIM   default bin/spraysim
#   QUICK=1    skips the two 1024-host cases (htsim_ndp takes about a minute each)
# Run from the repository root.
HTSIM_NDP=${HTSIM_NDP:-/work/ref/uet-htsim/htsim/sim/datacenter/htsim_ndp}
HTSIM_CM=${HTSIM_CM:-$(dirname "$HTSIM_NDP")/connection_matrices}
SHARED=${SHARED:-../shared}
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
case $HTSIM_NDP in /*) ;; *) HTSIM_NDP=$(pwd)/$HTSIM_NDP ;; esac
case $SHARED in /*) ;; *) SHARED=$(pwd)/$SHARED ;; esac
case $HTSIM_CM in /*) ;; *) HTSIM_CM=$(pwd)/$HTSIM_CM ;; esac
M=$SHARED/data/htsim/matrices
for x in "$HTSIM_NDP" "$SPRAYSIM"; do
    [ -x "$x" ] || { echo "ndp_compare.sh: $x is not an executable (set HTSIM_NDP / SPRAYSIM)" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/ndp-compare.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM

# last "finished at" time, finished count
finish() {
    awk '/finished at/ { n++; for (i = 1; i < NF; i++) if ($i == "at" && $(i + 1) + 0 > t) t = $(i + 1) + 0 }
         END { printf "%s %d", (n ? t : "-"), n }' "$1"
}

printf '%-34s %-12s %10s %6s %7s %10s %6s %7s %7s\n' case flags htsim_us done rtx spraysim_us done rtx ratio
# case: name nodes file end_us [extra flags for both]
run() {
    name=$1 nodes=$2 cm=$3 end=$4
    shift 4
    [ -f "$cm" ] || { printf '%-34s missing %s\n' "$name" "$cm"; return; }
    # in $T: htsim writes logout.dat and idmap.txt into its working directory
    # shellcheck disable=SC2068
    (cd "$T" && "$HTSIM_NDP" -nodes "$nodes" -tm "$cm" -strat perm -end "$end" $@ >"$T/h" 2>&1)
    # shellcheck disable=SC2068
    "$SPRAYSIM" --transport ndp -tm "$cm" -mtu 9064 --lb oblivious -end "$end" --htsim-output --no-progress $@ >"$T/s" 2>&1
    set -- $(finish "$T/h") $(finish "$T/s")
    hr=$(sed -n 's/^New: [0-9]* Rtx: \([0-9]*\).*/\1/p' "$T/h")
    sr=$(sed -n 's/^packets: .* \([0-9]*\) retransmitted.*/\1/p' "$T/s")
    ratio=$(awk -v a="$1" -v b="$3" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", b / a; else print "-" }')
    printf '%-34s %-12s %10s %6s %7s %10s %6s %7s %7s\n' "$name" "${flags:--}" "$1" "$2" "${hr:--}" "$3" "$4" "${sr:--}" "$ratio"
}
flags=; run incast.cm 16 "$M/incast.cm" 10000
flags="-q 8"; run incast.cm 16 "$M/incast.cm" 10000 -q 8
flags=; run perm_16n_16c_2MB.cm 16 "$M/perm_16n_16c_2MB.cm" 10000
flags=; run perm_128n_128c_2MB.cm 128 "$M/perm_128n_128c_2MB.cm" 10000
flags=; run incast_2to1_size4194304B.cm 128 "$HTSIM_CM/incast_2to1_size4194304B.cm" 10000
flags=; run incast_128.cm 128 "$HTSIM_CM/incast_128.cm" 100000
flags=; run incast_collateral_128.cm 128 "$HTSIM_CM/incast_collateral_128.cm" 100000
flags=; run outcast_incast.cm 128 "$HTSIM_CM/outcast_incast.cm" 100000
flags=; run alltoall_serial_16n.cm 16 "$HTSIM_CM/alltoall_serial_16n.cm" 100000
for seed in 1 2 3; do
    flags="-paths 1 -seed $seed"; run perm_128n_128c_2MB.cm 128 "$M/perm_128n_128c_2MB.cm" 10000 -paths 1 -seed $seed
done
if [ "${QUICK:-0}" != 1 ]; then
    flags=; run perm_1024n_1024c_0u_2000000b.cm 1024 "$M/perm_1024n_1024c_0u_2000000b.cm" 10000
    flags=; run incast_1024_100K.cm 1024 "$HTSIM_CM/incast_1024_100K.cm" 200000
fi
