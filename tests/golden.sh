#!/bin/sh
# golden.sh: outputs that must not change by accident. Runs a set of small
# scenarios covering every congestion control, every load balancer, SLEEK,
# no trimming, failures, adaptive routing, DRR, single paths, a .topo
# file and the other transports (SIRD, Homa, EQDS, RoCE with HPCC and
# DCQCN), and compares the SHA-256 of each flows.csv and queues.csv with the
# stored ones in tests/golden/outputs.sha256. A refactor must leave them all
# unchanged; a change of behaviour updates them on purpose:
#
#   sh tests/golden.sh --update     # rewrite the stored sums (say why in the commit)
#
# Prints one "ok" or "FAIL" line per scenario (run_all.sh counts them).
# Environment: SPRAYSIM (default bin/spraysim), SHARED (default ../shared).

SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
M=$SHARED/data/htsim/matrices
TOPOS=$SHARED/data/htsim/topologies
SUMS=tests/golden/outputs.sha256
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-golden.XXXXXX") || { echo "FAIL golden: mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM

# name|arguments (paths relative to the matrices and topologies directories)
scenarios() {
    cat <<'L'
one|-tm M/one.cm
perm16|-tm M/perm_16n_16c_2MB.cm -paths 128
incast|-tm M/incast.cm -end 3000
reps|-tm M/perm_16n_16c_2MB.cm --lb reps
bitmap_sleek|-tm M/perm_16n_16c_2MB.cm --lb bitmap -sleek
oblivious_notrim_sleek|-tm M/perm_16n_16c_2MB.cm --lb oblivious -disable_trim -sleek
single_path|-tm M/perm_16n_16c_2MB.cm -paths 1 -end 3000
smartt_incast|-tm M/incast.cm --cc smartt -end 3000
smartt_md_form1|-tm M/perm_16n_16c_2MB.cm --cc smartt --cc-opt md_form=1
swift|-tm M/perm_16n_16c_2MB.cm --cc swift
mswift_p90|-tm M/perm_16n_16c_2MB.cm --cc mswift --cc-opt percentile=90
lswift|-tm M/perm_16n_16c_2MB.cm --cc lswift
mnscc|-tm M/perm_16n_16c_2MB.cm --cc mnscc
dctcp_single|-tm M/perm_16n_16c_2MB.cm --cc dctcp -paths 1 -end 3000
mprdma|-tm M/perm_16n_16c_2MB.cm --cc mprdma
newreno_single|-tm M/perm_16n_16c_2MB.cm --cc newreno -paths 1 -end 3000
link_failure|-tm M/perm_16n_16c_2MB.cm --lb reps --fail "link agg0 core0 down at 50" --detect-us 500
ar_drr|-tm M/perm_16n_16c_2MB.cm --routing ar --sched drr
evmod_failed|-tm M/perm_16n_16c_2MB.cm --routing ev-mod -failed 1
topo128|-tm M/perm_128n_128c_2MB.cm -topo T/fat_tree_128_1os.topo -paths 64
plb|-tm M/perm_16n_16c_2MB.cm --lb plb
sleek_receiver_cc_incast|-tm M/incast.cm -sleek -receiver_cc -end 3000
nscc_fixed_qa_ignore0_incast|-tm M/incast.cm --cc nscc-fixed --cc-opt qa_ignore=0 -end 3000
smartt_fixed_notrim_qa_ignore0|-tm M/incast.cm --cc smartt-fixed -disable_trim --cc-opt qa_ignore=0 -end 3000
sird_perm|-tm M/perm_16n_16c_2MB.cm --transport sird
sird_incast|-tm M/incast.cm --transport sird -end 3000
sird_alltoall|--workload alltoall:n=16,size=300000 --transport sird -end 2000
homa_perm|-tm M/perm_16n_16c_2MB.cm --transport homa
homa_timeouts|-tm M/incast.cm --transport homa -end 3000 --homa-opt timeout_us=20 -q 20
homa_incast|-tm M/incast.cm --transport homa -end 3000
eqds_perm|-tm M/perm_16n_16c_2MB.cm --transport eqds
roce_hpcc_incast|-tm M/incast.cm --transport roce -hpcc -mtu 1500 -end 3000
roce_dcqcn_perm|-tm M/perm_16n_16c_2MB.cm --transport roce -dcqcn 10
roce_dcqcn_alltoall|--workload alltoall:n=16,size=300000 --transport roce -dcqcn 10 -end 3000
L
}

update=false
[ "${1:-}" = --update ] && update=true
: >"$T/sums"
nfail=0
scenarios >"$T/list"
while IFS='|' read -r name args; do
    args=$(echo "$args" | sed "s#M/#$M/#g; s#T/#$TOPOS/#g")
    if ! eval "\"\$SPRAYSIM\" $args --quiet --no-progress --out \"\$T/\$name\"" >/dev/null 2>"$T/err"; then
        echo "FAIL golden $name: the run failed: $(head -n 1 "$T/err")"
        nfail=$((nfail + 1))
        continue
    fi
    for f in flows.csv queues.csv; do
        echo "$(sha256sum <"$T/$name/$f" | cut -d' ' -f1)  $name/$f" >>"$T/sums"
    done
done <"$T/list"
if $update; then
    cp "$T/sums" "$SUMS"
    echo "ok golden: stored $(wc -l <"$SUMS" | tr -d ' ') sums in $SUMS"
    exit 0
fi
while read -r sum file; do
    want=$(grep "  $file\$" "$SUMS" 2>/dev/null | cut -d' ' -f1)
    if [ -z "$want" ]; then
        echo "FAIL golden $file: no stored sum (run sh tests/golden.sh --update)"
        nfail=$((nfail + 1))
    elif [ "$want" != "$sum" ]; then
        echo "FAIL golden $file: output changed (a refactor must not change it; a change of behaviour runs sh tests/golden.sh --update)"
        nfail=$((nfail + 1))
    else
        echo "ok golden $file"
    fi
done <"$T/sums"
[ "$nfail" -eq 0 ]
