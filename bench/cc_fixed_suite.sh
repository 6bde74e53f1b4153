#!/bin/sh
# cc_fixed_suite.sh [OUTDIR]: the float CC modules against their NIC-style
# integer variants (nscc vs nscc-fixed, smartt vs smartt-fixed) on the
# regression scenarios that use the default CC (listed below), plus the
# reference 2-to-1; per-flow FCT differences (max, median)
# and the tail FCT. A third column runs the float module with -seed 14
# instead of 13: the spread any perturbation causes, for scale.
BIN=${SPRAYSIM:-bin/spraysim}
O=${1:-/tmp/cc_fixed_suite}
M=${SHARED:-../shared}/data/htsim/matrices
T=${SHARED:-../shared}/data/htsim/topologies
J=${JOBS:-8}
mkdir -p "$O"
# the reference's 2-to-1 (Nodes 16, 1->0 and 5->0, 4 MB each), written here
# unless TWO_TO_ONE names a copy
[ -n "${TWO_TO_ONE:-}" ] || { TWO_TO_ONE=$O/2to1.cm
    printf 'Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n5->0 id 2 start 0 size 4000000\n' >"$TWO_TO_ONE"; }
SCEN="one|-tm $M/one.cm
perm16|-tm $M/perm_16n_16c_2MB.cm -paths 128
incast|-tm $M/incast.cm -end 3000
incast128|-tm $M/incast.cm -paths 128 -end 5000
perm128|-tm $M/perm_128n_128c_2MB.cm -paths 128
reps|-tm $M/perm_16n_16c_2MB.cm --lb reps
bitmap|-tm $M/perm_16n_16c_2MB.cm --lb bitmap -sleek
obl|-tm $M/perm_16n_16c_2MB.cm --lb oblivious -disable_trim -sleek
single|-tm $M/perm_16n_16c_2MB.cm -paths 1 -end 3000
fail|-tm $M/perm_16n_16c_2MB.cm --lb reps --fail \"link agg0 core0 down at 50\" --detect-us 500
ar|-tm $M/perm_16n_16c_2MB.cm --routing ar --sched drr
evmod|-tm $M/perm_16n_16c_2MB.cm --routing ev-mod -failed 1
ls|-tm $M/perm_128n_128c_2MB.cm -topo $T/fat_tree_128_1os.topo -paths 64
2to1|-tm $TWO_TO_ONE -paths 1"
echo "$SCEN" | while IFS='|' read -r name args; do
    for cc in nscc nscc-fixed smartt smartt-fixed; do
        echo "$BIN $args --cc $cc --quiet --out $O/$name.$cc"
    done
    echo "$BIN $args --cc nscc -seed 14 --quiet --out $O/$name.nscc-seed14"
    echo "$BIN $args --cc smartt -seed 14 --quiet --out $O/$name.smartt-seed14"
done | xargs -d '\n' -P "$J" -I{} sh -c '{} >/dev/null 2>&1 || echo "failed: {}"'
for a in nscc smartt; do
    echo "## $a vs $a-fixed (and vs $a -seed 14)"
    echo "$SCEN" | while IFS='|' read -r name args; do
        printf '%-10s fixed: %s\n' "$name" "$(python3 tools/fct_compare.py "$O/$name.$a/flows.csv" "$O/$name.$a-fixed/flows.csv")"
        printf '%-10s seed:  %s\n' "" "$(python3 tools/fct_compare.py "$O/$name.$a/flows.csv" "$O/$name.$a-seed14/flows.csv")"
    done
    for v in fixed seed14; do
        printf '%-17s ' "all, $v:"
        python3 tools/fct_compare.py $(echo "$SCEN" | while IFS='|' read -r name args; do
            echo "$O/$name.$a/flows.csv $O/$name.$a-$v/flows.csv"; done)
    done
done
