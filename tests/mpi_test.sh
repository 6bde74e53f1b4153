#!/bin/sh
# mpi_test.sh: parallel runs (README "Parallel runs (MPI)") give the plain
# binary's outputs byte for byte. A 128-host fat-tree permutation (8 pods)
# runs in the plain binary and in bin/spraysim-mpi under mpirun with 1, 2
# and 3 processes (3 splits the pods unevenly), and with 2 a 2-tier
# leaf-spine and a lossy incast (drops, timeouts); flows.csv and queues.csv
# must be identical, and summary.json's event count too; one process with
# change-mode time series gives the same ts_ports.csv. Then what parallel runs refuse is refused with exit 2 and one
# line. Prints one "ok", "FAIL" or "skip" line per check (run_all.sh counts
# them); skips everything when no MPI launcher or the MPI binary is
# missing. Works with Open MPI and MPICH alike (the launcher is picked to
# match the binary's MPI library).
# Environment: SPRAYSIM (default bin/spraysim), SPRAYSIM_MPI (default
# bin/spraysim-mpi), SHARED (default ../shared), MPIRUN (default: found).

SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SPRAYSIM_MPI=${SPRAYSIM_MPI:-bin/spraysim-mpi}
SHARED=${SHARED:-../shared}
M=$SHARED/data/htsim/matrices
if [ ! -x "$SPRAYSIM_MPI" ]; then
    echo "skip mpi: $SPRAYSIM_MPI is not built (make mpi)"
    exit 0
fi
# The launcher of the MPI the binary was built with (Debian installs Open
# MPI's as mpirun.openmpi, MPICH's as mpiexec.mpich; plain mpirun is
# whichever the alternatives pick). Open MPI's mpirun needs --oversubscribe
# to start more processes than there are cores, and --allow-run-as-root as
# root; MPICH's mpiexec (hydra) needs neither and rejects both. MPIRUN in
# the environment overrides the choice (used as given).
if [ -z "$MPIRUN" ]; then
    case $(ldd "$SPRAYSIM_MPI" 2>/dev/null) in
    *libmpich*) launchers="mpiexec.mpich mpirun.mpich mpiexec mpirun" ;;
    *libmpi.so*) launchers="mpirun.openmpi mpiexec.openmpi mpirun mpiexec" ;;
    *) launchers="mpirun mpiexec" ;;
    esac
    for l in $launchers; do
        if command -v "$l" >/dev/null 2>&1; then
            MPIRUN=$l
            break
        fi
    done
    if [ -z "$MPIRUN" ]; then
        echo "skip mpi: no MPI launcher (tried $launchers; make mpi installs Open MPI)"
        exit 0
    fi
    case $("$MPIRUN" --version 2>&1) in
    *"Open MPI"* | *OpenRTE*)
        MPIRUN="$MPIRUN --oversubscribe"
        [ "$(id -u)" != 0 ] || MPIRUN="$MPIRUN --allow-run-as-root"
        ;;
    esac
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-mpi.XXXXXX") || { echo "FAIL mpi: mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM

events() { sed -n 's/.*"run": {.*"events": \([0-9]*\).*/\1/p' "$1/summary.json"; }

# same NAME NP ARGS...: the MPI run with NP processes against the plain run in $T/NAME-plain
same() {
    name=$1 np=$2
    shift 2
    if ! $MPIRUN -np "$np" "$SPRAYSIM_MPI" "$@" --quiet --no-progress --out "$T/$name-$np" >"$T/out" 2>&1; then
        echo "FAIL mpi $name -np $np: the run failed: $(grep -v '^$' "$T/out" | head -n 1)"
        return
    fi
    for f in flows.csv queues.csv; do
        if ! cmp -s "$T/$name-plain/$f" "$T/$name-$np/$f"; then
            echo "FAIL mpi $name -np $np: $f differs from the plain run's"
            return
        fi
    done
    if [ "$(events "$T/$name-plain")" != "$(events "$T/$name-$np")" ]; then
        echo "FAIL mpi $name -np $np: summary.json's events $(events "$T/$name-$np"), plain $(events "$T/$name-plain")"
        return
    fi
    echo "ok mpi $name -np $np: flows.csv, queues.csv and the event count are the plain run's"
}

ARGS="-tm $M/perm_128n_128c_2MB.cm"
"$SPRAYSIM" $ARGS --quiet --no-progress --out "$T/fat-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain fat-tree run failed"
for np in 1 2 3; do
    same fat $np $ARGS
done
LS="--workload perm:n=32,size=1000000 -topo $SHARED/data/htsim/topologies/leaf_spine_tiny.topo"
"$SPRAYSIM" $LS --quiet --no-progress --out "$T/ls-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain leaf-spine run failed"
same ls 2 $LS

# losses: no trimming and small queues, so packets drop and timers retransmit on both processes
DROP="-tm $M/incast.cm -disable_trim -q 12 -ecn 2 8 -end 3000"
"$SPRAYSIM" $DROP --quiet --no-progress --out "$T/drop-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain lossy run failed"
if grep -q '"timeouts": 0' "$T/drop-plain/summary.json"; then
    echo "FAIL mpi drop: the lossy run had no timeouts (the check needs them)"
else
    same drop 2 $DROP
fi

# one process runs what the plain binary runs, events of no node too:
# change-mode time-series rows (every event) come out the same
TS="-tm $M/perm_16n_16c_2MB.cm --ts-ports 1-5 --ts-interval change"
"$SPRAYSIM" $TS --quiet --no-progress --out "$T/ts-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain time-series run failed"
same ts 1 $TS
if cmp -s "$T/ts-plain/ts_ports.csv" "$T/ts-1/ts_ports.csv"; then
    echo "ok mpi ts -np 1: ts_ports.csv is the plain run's"
else
    echo "FAIL mpi ts -np 1: ts_ports.csv differs from the plain run's"
fi

# refuse NAME PATTERN ARGS...: a 2-process run must exit 2 with one line matching PATTERN
refuse() {
    name=$1 pat=$2
    shift 2
    $MPIRUN -np 2 "$SPRAYSIM_MPI" "$@" --quiet --no-progress >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -eq 0 ] || ! grep -q "^spraysim: .*$pat" "$T/err"; then
        echo "FAIL mpi refuses $name: exit $rc, stderr: $(head -n 1 "$T/err")"
    else
        echo "ok mpi refuses $name"
    fi
}
refuse eqds "parallel runs support only uet" -tm "$M/perm_16n_16c_2MB.cm" --transport eqds
refuse failures "failures act on every process" -tm "$M/perm_16n_16c_2MB.cm" --fail "link agg0 core0 down at 50"
printf '%s\n' "Nodes 16" "Connections 2" "Triggers 1" "0->1 id 1 start 0 size 10000 send_done_trigger 1" \
    "2->3 id 2 trigger 1 size 10000" "trigger id 1 oneshot" >"$T/trig.cm"
refuse triggers "triggers start flows" -tm "$T/trig.cm"
# UET pipelines a connection's messages at the sender (uet_msg_pipeline): refused on 2 processes,
# identical to the plain run on one, and one after another with --msg-cc fresh on two
printf '%s\n' "Nodes 16" "Connections 3" "0->9 id 1 start 0 size 300000" "0->9 id 1 start 0 size 200000" \
    "3->12 id 2 start 0 size 100000" >"$T/msgs.cm"
refuse "pipelined messages" "messages over connections .* are pipelined" -tm "$T/msgs.cm"
"$SPRAYSIM" -tm "$T/msgs.cm" --quiet --no-progress --out "$T/msgs-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain messages run failed"
same msgs 1 -tm "$T/msgs.cm"
"$SPRAYSIM" -tm "$T/msgs.cm" --msg-cc fresh --quiet --no-progress --out "$T/msgsf-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain fresh messages run failed"
same msgsf 2 -tm "$T/msgs.cm" --msg-cc fresh
refuse "time series" "time series are not gathered" -tm "$M/perm_16n_16c_2MB.cm" --ts-ports all --out "$T/tsr"
refuse poisson "needs a closed workload" --workload "poisson:cdf=$SHARED/data/workloads/websearch.cdf,load=0.5,n=8" -tiers 2 -end 200
# regression: receiver credit ran on 2 processes and finished 60 of 128 flows with exit 0
refuse "receiver credit" "receiver credit is not exact across processes" -tm "$M/perm_16n_16c_2MB.cm" -receiver_cc_only
refuse "receiver credit with the window" "receiver credit is not exact across processes" -tm "$M/perm_16n_16c_2MB.cm" -receiver_cc

# regression: MPICH 4.0.x reduces MPI_MIN/MPI_MAX on unsigned types as signed
# (pmodels/mpich issue 6083), which emptied every rcv_finish_us of a parallel
# run there; src/mpi/ reduces MIN and MAX over signed types only (the runs
# above catch it only under such an MPI)
SRC_MPI=${SRC_MPI:-src/mpi}
if [ -d "$SRC_MPI" ]; then
    bad=$(grep -n 'MPI_MIN\|MPI_MAX' "$SRC_MPI"/*.c | grep 'MPI_UINT\|MPI_UNSIGNED\|MPI_UINT64_T\|MPI_SIZE_T\|MPI_AINT\|MPI_BYTE' | head -n 1)
    if [ -n "$bad" ]; then
        echo "FAIL mpi: a MIN/MAX reduction over an unsigned type: $bad"
    else
        echo "ok mpi: MIN/MAX reductions are over signed types only"
    fi
fi
