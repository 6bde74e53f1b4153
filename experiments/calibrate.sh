#!/bin/sh
# Calibration against the reference simulator's published bounds
# (shared/data/htsim/README.md): runs the eight scenarios with the reference
# flags, prints our slowest-flow FCT beside each bound as a markdown table,
# and exits 1 if any scenario misses its bound or leaves flows unfinished.
#   sh experiments/calibrate.sh            (from the project root, after make)
set -u
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
M=$SHARED/data/htsim/matrices
T=$SHARED/data/htsim/topologies
status=0
echo "| scenario | flags | bound (us) | spraysim tail FCT (us) | median FCT (us) | finished |"
echo "|---|---|---|---|---|---|"
row() {
    name=$1 bound=$2
    shift 2
    out=$("$SPRAYSIM" "$@" -sender_cc_only -end 5000 2>&1) || { echo "| $name | $* | $bound | ERROR | | |"; status=1; return; }
    max=$(echo "$out" | sed -n 's/^FCT: median \([0-9.]*\) us, p99 [0-9.]* us, max \([0-9.]*\) us.*/\2/p')
    med=$(echo "$out" | sed -n 's/^FCT: median \([0-9.]*\) us.*/\1/p')
    fin=$(echo "$out" | sed -n 's/^flows: \([0-9]* of [0-9]*\) finished.*/\1/p')
    flags=$(echo "$*" | sed "s|$SHARED/data/htsim/||g")
    echo "| $name | \`$flags\` | $bound | $max | $med | $fin |"
    ok=$(awk -v m="$max" -v b="$bound" 'BEGIN{print (m+0 < b+0) ? 1 : 0}')
    a=${fin% of *}; b=${fin#* of }
    [ "$ok" = 1 ] && [ "$a" = "$b" ] || status=1
}
row "single 2 MB connection" 190 -tm "$M/one.cm"
row "two connections, opposite directions" 190 -tm "$M/bidir.cm"
row "15-to-1 incast, 2 MB each" 2550 -tm "$M/incast.cm"
row "16-node permutation, sprayed" 210 -tm "$M/perm_16n_16c_2MB.cm" -paths 128
row "16-node permutation, one path" 1300 -tm "$M/perm_16n_16c_2MB.cm" -paths 1
row "1024-node permutation, sprayed" 220 -tm "$M/perm_1024n_1024c_0u_2000000b.cm" -paths 128
row "1024-node permutation, one path" 1300 -tm "$M/perm_1024n_1024c_0u_2000000b.cm" -paths 1
row "1024-node permutation, 4:1 leaf-spine" 880 -tm "$M/perm_1024n_1024c_0u_2000000b.cm" -topo "$T/leaf_spine_1024_oversub.topo" -paths 128
exit $status
