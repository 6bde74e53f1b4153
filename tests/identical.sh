#!/bin/sh
# identical.sh OLD_BIN NEW_BIN: proves that a change meant for speed only
# (event queue, memory layout, prefetching, build flags) leaves every output
# byte-identical. Runs both binaries on scenarios that golden.sh does not
# cover (larger fabrics, EQDS, RoCE over PFC with DCQCN / HPCC / TIMELY, the
# mixed fabric, failures, adaptive routing, Poisson arrivals, triggers,
# receiver credit) and compares flows.csv and queues.csv with cmp.
#
#   sh tests/identical.sh /tmp/old-spraysim bin/spraysim
#   IDENTICAL_QUICK=1 sh tests/identical.sh ...   # skip the 1024-node cases
#   IDENTICAL_LARGE=1 sh tests/identical.sh ...   # add an 8192-node permutation,
#       the only case that takes sim_run's prefetching path (ports > 4 MB)
#
# Prints one "same" or "DIFF" line per scenario and exits non-zero on any
# difference or failed run. Not part of `make test` (about a minute); run it
# before committing a speed change and name it in the commit message.
# Environment: SHARED (default ../shared).

if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
    echo "usage: sh tests/identical.sh OLD_BIN NEW_BIN (both executable)" >&2
    exit 2
fi
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
OLD=$(abs "$1")
NEW=$(abs "$2")
cd "$(dirname "$0")/.." || exit 1
SHARED=${SHARED:-../shared}
case $SHARED in /*) ;; *) SHARED=$(pwd)/$SHARED ;; esac
M=$SHARED/data/htsim/matrices
W=$SHARED/data/workloads
T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-identical.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM

# A mixed fabric matrix: RoCE in a lossless class next to UET flows.
cat >"$T/mixed.cm" <<'L'
Nodes 16
Connections 9
0->15 id 1 start 0 size 2000000 transport roce lb single
1->15 id 2 start 0 size 3000000
2->15 id 3 start 0 size 500000
3->15 id 4 start 0 size 500000
4->15 id 5 start 0 size 500000
5->15 id 6 start 0 size 500000
6->15 id 7 start 0 size 500000
7->15 id 8 start 0 size 500000
8->9 id 9 start 0 size 1000000
L
# Triggers: chains of flows started by send_done and recv_done, a barrier.
cat >"$T/trig.cm" <<'L'
Nodes 16
Connections 8
Triggers 3
0->5 id 1 start 0 size 300000 send_done_trigger 1
1->5 id 2 start 0 size 300000 recv_done_trigger 2
2->7 id 3 trigger 1 size 200000 send_done_trigger 3
3->7 id 4 trigger 2 size 200000 send_done_trigger 3
4->9 id 5 trigger 3 size 100000
6->9 id 6 trigger 3 size 100000
8->1 id 7 start 5 size 400000
10->11 id 8 trigger 1 size 50000
trigger id 1 oneshot
trigger id 2 multishot
trigger id 3 barrier count 2
L

# name|arguments (M/, W/ and X/ expand to the matrices, workloads and this
# run's temporary directory)
scenarios() {
    cat <<'L'
perm128|-tm M/perm_128n_128c_2MB.cm -paths 128 -end 3000
incast1024|--workload incast:n=1024,degree=1023,size=100000,dst=0 -paths 128 -end 3000
eqds_incast|--transport eqds --workload incast:n=128,degree=127,size=200000,dst=0 -end 3000
eqds_perm|--transport eqds -tm M/perm_128n_128c_2MB.cm -use_reps 1 -end 2000
receiver_cc|-tm M/incast.cm -receiver_cc -end 3000
roce_dcqcn|--transport roce -dcqcn 20 -paths 1 --workload incast:n=128,degree=16,size=500000,dst=3 -end 3000
roce_dcqcn_sr|--transport roce -dcqcn 20 -out_of_order -paths 4 -tm M/perm_128n_128c_2MB.cm -end 1000
roce_hpcc|--transport roce -hpcc -paths 1 -tm M/perm_128n_128c_2MB.cm -end 1000
roce_timely|--transport roce -timely -paths 1 --workload incast:n=128,degree=16,size=500000,dst=3 -end 3000
mixed_fabric|-tm X/mixed.cm --classes 3 --class-opt 2:lossless=1 --sched class-drr -end 3000
uet_pfc|--pfc on -tm M/perm_128n_128c_2MB.cm -end 1000
fail_link|-tm M/perm_128n_128c_2MB.cm --lb reps --fail "link agg0 core0 down at 50" --detect-us 200 -end 2000
fail_random|--workload ring --random-failures 0.02 -end 1000
ar_routing|--routing ar -tm M/perm_128n_128c_2MB.cm -end 2000
poisson_nscc|--workload poisson:cdf=W/websearch.cdf,load=0.5,n=32,warmup_us=100,stop_us=1000 -tiers 2 -mtu 1500 -q inf -end 2000
poisson_eqds|--workload poisson:cdf=W/google_all_rpc.cdf,load=0.3,n=8,sampling=step --transport eqds -tiers 2 -end 1000
poisson_incast|--workload poisson:cdf=W/facebook_hadoop.cdf,load=0.5,n=32,warmup_us=100,stop_us=1000,incast=0.07 -tiers 2 -mtu 1500 -q inf -end 2000
triggers|-tm X/trig.cm -end 3000
alltoall|--workload alltoall:n=128,size=65536,window=3 -end 3000
L
    if [ "${IDENTICAL_QUICK:-0}" != 1 ]; then
        cat <<'L'
perm1024|-tm M/perm_1024n_1024c_0u_2000000b.cm -paths 128 -end 600
uneven1024|--workload uneven:n=1024,size=4194304 -end 500
L
    fi
    if [ "${IDENTICAL_LARGE:-0}" = 1 ]; then
        cat <<'L'
perm8192|--workload perm:n=8192,size=2000000 -paths 128 -end 100
L
    fi
}

nfail=0
scenarios >"$T/list"
while IFS='|' read -r name args; do
    args=$(echo "$args" | sed "s#M/#$M/#g; s#W/#$W/#g; s#X/#$T/#g")
    for which in old new; do
        if [ $which = old ]; then bin=$OLD; else bin=$NEW; fi
        if ! eval "\"\$bin\" $args --quiet --no-progress --out \"\$T/\$name.\$which\"" >/dev/null 2>"$T/err"; then
            echo "FAIL $name: the $which binary failed: $(head -n 1 "$T/err")"
            nfail=$((nfail + 1))
            continue 2
        fi
    done
    d=
    for f in flows.csv queues.csv; do
        cmp -s "$T/$name.old/$f" "$T/$name.new/$f" || d="$d $f"
    done
    if [ -n "$d" ]; then
        echo "DIFF $name:$d"
        nfail=$((nfail + 1))
    else
        echo "same $name ($(($(wc -l <"$T/$name.new/flows.csv") - 1)) flows)"
    fi
    rm -rf "$T/$name.old" "$T/$name.new"
done <"$T/list"
[ "$nfail" -eq 0 ] && echo "identical: all scenarios byte-identical" || echo "identical: $nfail scenario(s) differ or failed"
[ "$nfail" -eq 0 ]
