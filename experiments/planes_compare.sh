#!/bin/sh
# planes_compare.sh: multi-plane fabrics (-planes N) side by side with the
# reference's htsim_eqds on the same files and the same command line. For
# -planes 1, 2 and 4 on the reference's 16-host permutation and incast
# (2 MB per flow, k = 4 fat tree at 100 Gb/s), it runs htsim_eqds and
# spraysim through a link named htsim_eqds (EQDS, htsim's per-flow lines),
# and prints each one's slowest and mean FCT (from the "finished at" lines),
# their ratio, and each simulator's speed-up over its own -planes 1 run.
# Writes experiments/planes.md (the table and the exact commands).
#   sh experiments/planes_compare.sh        (from the project root, after make)
#   HTSIM_DIR   the reference build (default: the one /work/ref/README.md describes)
#   SHARED      this project's shared folder (default ../shared)
#   SPRAYSIM    default bin/spraysim
#   OUT         default experiments/planes.md
# htsim writes logout.dat and idmap.txt into its working directory: both run
# in a scratch directory that is removed afterwards.
set -u
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
HTSIM_DIR=${HTSIM_DIR:-/work/ref/uet-htsim/htsim/sim/build/datacenter}
OUT=${OUT:-experiments/planes.md}
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
case $SHARED in /*) ;; *) SHARED=$(pwd)/$SHARED ;; esac
M=$SHARED/data/htsim/matrices
for x in "$HTSIM_DIR/htsim_eqds" "$SPRAYSIM"; do
    [ -x "$x" ] || { echo "planes_compare.sh: $x is not an executable (set HTSIM_DIR / SPRAYSIM)" >&2; exit 2; }
done
for f in perm_16n_16c_2MB.cm incast.cm; do
    [ -f "$M/$f" ] || { echo "planes_compare.sh: $M/$f not found (set SHARED)" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/planes_compare.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'rm -rf "$WORK"; exit 1' HUP INT TERM
mkdir "$WORK/ref" "$WORK/ours"
ln -s "$SPRAYSIM" "$WORK/ours/htsim_eqds" # invoked as htsim_eqds: EQDS, htsim's per-flow lines

# "MAX MEAN N" of an output's "finished at" lines (us)
stats() {
    awk '/finished at/ { for (i = 1; i < NF; i++) if ($i == "at") { v = $(i + 1) + 0; n++; s += v; if (v > m) m = v; break } }
         END { if (n) printf "%.3f %.3f %d", m, s / n, n; else print "- - 0" }' "$1"
}

ROWS=$WORK/rows
: >"$ROWS"
for cm in perm_16n_16c_2MB.cm incast.cm; do
    for p in 1 2 4; do
        args="-tm $M/$cm -end 10000 -planes $p"
        # shellcheck disable=SC2086
        (cd "$WORK/ref" && "$HTSIM_DIR/htsim_eqds" $args >"$WORK/h.out" 2>&1)
        # shellcheck disable=SC2086
        (cd "$WORK/ours" && ./htsim_eqds $args >"$WORK/s.out" 2>&1)
        set -- $(stats "$WORK/h.out") $(stats "$WORK/s.out")
        h_max=$1 h_mean=$2 h_n=$3 s_max=$4 s_mean=$5 s_n=$6
        [ "$p" = 1 ] && { h1=$h_max; s1=$s_max; }
        row=$(awk -v hm="$h_max" -v sm="$s_max" -v h1="$h1" -v s1="$s1" 'BEGIN {
            printf "%.3f | %.2f | %.2f", sm / hm, h1 / hm, s1 / sm }')
        echo "| $cm | $p | $h_max | $s_max | $h_mean | $s_mean | $h_n / $s_n | $row |" >>"$ROWS"
        echo "$cm -planes $p: htsim_eqds $h_max us, spraysim $s_max us" >&2
    done
done

{
    echo "# -planes N: spraysim's EQDS beside htsim_eqds"
    echo
    echo "Written by \`sh experiments/planes_compare.sh\` ($(date -u +%Y-%m-%d), spraysim $("$SPRAYSIM" --version | sed 's/^spraysim //'))."
    echo "Reference: \`$HTSIM_DIR/htsim_eqds\` (htsim at ultraethernet/uet-htsim 40ccb05; htsim_uec stops on -planes > 1)."
    echo "Both run the same command line; spraysim through a link named htsim_eqds (EQDS, htsim's per-flow lines)."
    echo "Tail and mean: the slowest and the mean \"finished at\" time of the flows (all start at 0), in us."
    echo "Speed-up: each simulator's -planes 1 tail over its tail at that N (N = ideal for the incast, whose"
    echo "bottleneck is the receiver's N downlinks)."
    echo
    echo "| matrix | planes | htsim tail | spraysim tail | htsim mean | spraysim mean | finished (htsim / spraysim) | tail ratio spraysim/htsim | htsim speed-up | spraysim speed-up |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    cat "$ROWS"
    echo
    echo "Commands (M = shared/data/htsim/matrices, N = 1, 2, 4):"
    echo
    echo '```'
    echo "htsim_eqds -tm M/perm_16n_16c_2MB.cm -end 10000 -planes N"
    echo "htsim_eqds -tm M/incast.cm -end 10000 -planes N"
    echo "(spraysim: the same lines with bin/spraysim linked as htsim_eqds, or"
    echo " bin/spraysim --transport eqds --htsim-output -tm ... -end 10000 -planes N)"
    echo '```'
} >"$OUT"
echo "wrote $OUT" >&2
