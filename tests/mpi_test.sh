#!/bin/sh
# mpi_test.sh: parallel runs (docs/parallel.md "Parallel runs (MPI)") give the plain
# binary's outputs byte for byte. A 128-host fat-tree permutation (8 pods)
# runs in the plain binary and in bin/spraysim-mpi under mpirun with 1, 2
# and 3 processes (3 splits the pods unevenly), and with 2 a 2-tier
# leaf-spine and a lossy incast (drops, timeouts); then UET receiver
# credit, EQDS, NDP, Homa, SIRD, RoCE with and without PFC, DCQCN, HPCC, UET over PFC,
# UET messages pipelined over connections, a mixed
# fabric (UET, EQDS, RoCE in a lossless class), failures,
# triggers within a process, --switch-stats and --htsim-output at 1-3
# processes, GOAL schedules under --goal-send-done path at 1-3 processes
# (their ranks.csv, goal_ops.csv, stdout and stderr too); flows.csv, queues.csv and summary.json (and switches.csv,
# stdout) must be identical; time series (ports, hosts, flows within one
# process; interval and change mode) at 1-3 processes. Then what parallel runs refuse is
# refused with exit 2 and one
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
    for f in flows.csv queues.csv summary.json; do
        # summary.json names the commit each binary was built from: the two
        # may be built from different states of a tree (one -dirty)
        if ! cmp -s "$T/$name-plain/$f" "$T/$name-$np/$f" &&
            { [ $f != summary.json ] || ! grep -v '^  "commit": ' "$T/$name-plain/$f" >"$T/a.json" ||
                ! grep -v '^  "commit": ' "$T/$name-$np/$f" >"$T/b.json" || ! cmp -s "$T/a.json" "$T/b.json"; }; then
            echo "FAIL mpi $name -np $np: $f differs from the plain run's (events $(events "$T/$name-$np"), plain $(events "$T/$name-plain"))"
            return
        fi
    done
    echo "ok mpi $name -np $np: flows.csv, queues.csv and summary.json are the plain run's"
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

# plain NAME ARGS...: the plain run into $T/NAME-plain
plain() {
    name=$1
    shift
    "$SPRAYSIM" "$@" --quiet --no-progress --out "$T/$name-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain $name run failed"
}

# Transports other than UET's sender window (docs/parallel.md "Parallel runs (MPI)"):
# each host's events touch only its own state, the receiver making its half
# of a flow's state when the first packet reaches it.
# regression: UET receiver credit ran on 2 processes and finished 60 of 128
# flows with exit 0 (the receiver's process had no credit state and pulled
# nothing)
RC="-tm $M/perm_128n_128c_2MB.cm -receiver_cc_only"
plain rc $RC
same rc 2 $RC
same rc 3 $RC
RCW="-tm $M/incast.cm -receiver_cc -end 3000"
plain rcw $RCW
same rcw 2 $RCW
# EQDS: the receiver's state (its pull client, ACK counting, bitmap) comes
# with the first packet on its process (else a NULL state: a crash)
EQ="-tm $M/perm_128n_128c_2MB.cm --transport eqds"
plain eqds $EQ
for np in 1 2 3; do
    same eqds $np $EQ
done
EQI="-tm $M/incast.cm --transport eqds -sender_cc -end 3000"
plain eqdsi $EQI
same eqdsi 2 $EQI
# RoCE without PFC, with ECN: the receiver's CNP count is summed into
# flows.csv's cnps_sent from the receiver's process (rank 0 had only its own)
RO="-tm $M/incast.cm --transport roce --pfc off -ecn 2 8 -end 3000"
plain roce $RO
same roce 2 $RO
same roce 3 $RO
ROT="-tm $M/perm_128n_128c_2MB.cm --transport roce --pfc off -timely -out_of_order"
plain rocet $ROT
same rocet 2 $ROT

# NDP: the receiver's half of a flow's state (its bitmap, pull number, its
# place in the host's pull pacer) comes with the first packet on its
# process (else a NULL state: a crash); trims, NACKs and paced PULLs cross
# processes in the incast (host 15 on the last process, its senders on the
# first), the permutation and a 2-tier leaf-spine
ND="-tm $M/perm_128n_128c_2MB.cm --transport ndp"
plain ndp $ND
for np in 1 2 3; do
    same ndp $np $ND
done
NDI="-tm $M/incast.cm --transport ndp -end 3000"
plain ndpi $NDI
if grep -q '"nacks": 0' "$T/ndpi-plain/summary.json"; then
    echo "FAIL mpi ndpi: the NDP incast had no NACKs (the check needs them)"
else
    same ndpi 2 $NDI
    same ndpi 3 $NDI
fi
NDL="--transport ndp $LS"
plain ndpl $NDL
same ndpl 2 $NDL

# Homa: the receiver's process makes its half of a message's state on the
# first packet; the sender learns completion from the receiver's DONE (it
# was told at the receiver's instant: another process's state); grants and
# resends draw entropy from their receiving host's stream (one run-wide
# stream was drawn in another order by each process); lossy with
# timeouts, RESENDs and NEED_DONEs in the incast
HO_="-tm $M/perm_128n_128c_2MB.cm --transport homa"
plain homa $HO_
for np in 1 2 3; do
    same homa $np $HO_
done
HOI="-tm $M/incast.cm --transport homa -end 3000 --homa-opt timeout_us=20 -q 20"
plain homai $HOI
if grep -q '"timeouts": 0' "$T/homai-plain/summary.json"; then
    echo "FAIL mpi homai: the Homa incast had no timeouts (the check needs them)"
else
    same homai 2 $HOI
    same homai 3 $HOI
fi
HOL="--transport homa $LS"
plain homal $HOL
same homal 2 $HOL

# SIRD: the same (state on the first packet, completion from the DONE,
# which also returns the credit the sender held); lossy with -q 4 (drops,
# receiver timeouts, RESENDs) in the incast and the permutation
SI="-tm $M/perm_128n_128c_2MB.cm --transport sird"
plain sird $SI
for np in 1 2 3; do
    same sird $np $SI
done
SIQ="-tm $M/incast.cm --transport sird -end 3000 -q 4"
plain sirdq $SIQ
if grep -q '"timeouts": 0' "$T/sirdq-plain/summary.json"; then
    echo "FAIL mpi sirdq: the SIRD incast had no timeouts (the check needs them)"
else
    same sirdq 2 $SIQ
    same sirdq 3 $SIQ
fi
SIP="-tm $M/perm_128n_128c_2MB.cm --transport sird -q 4"
plain sirdp $SIP
same sirdp 2 $SIP
SIL="--transport sird $LS"
plain sirdl $SIL
same sirdl 2 $SIL

# failures: every process applies each link change, and routing's learning
# of it, to its copy of the fabric at the same instant (before, only rank
# 0 did: the other processes routed into dead links)
FA="-tm $M/perm_128n_128c_2MB.cm --fail 'link tor0 agg1 down at 30 up at 120' --fail 'link agg0 core0 delay 5' --fail 'link agg4 core4 rate 50' --fail 'switch core2 down at 60' --detect-us 10 --reroute bounce"
eval "plain fail $FA"
eval "same fail 2 $FA"
eval "same fail 3 $FA"
RF="-tm $M/perm_128n_128c_2MB.cm --random-failures 0.05"
plain rfail $RF
same rfail 2 $RF

# PFC: a PAUSE or RESUME acts on the port it reaches, in that port's
# process, one link latency after its switch sent it (a message between
# processes like a packet); RoCE's default lossless fabric, DCQCN over it
# and UET over PFC, with many pauses (the incast); the deadlock check,
# which reads every switch, is set beyond -end
PF="-tm $M/incast.cm --transport roce --pfc-deadlock-us 3001 -end 3000"
plain pfc $PF
if grep -q '"pauses": 0' "$T/pfc-plain/summary.json"; then
    echo "FAIL mpi pfc: the plain run had no PFC pauses (the check needs them)"
else
    same pfc 2 $PF
    same pfc 3 $PF
fi
PD="-tm $M/perm_128n_128c_2MB.cm --transport roce -dcqcn 10 --pfc-deadlock-us 1001"
plain dcqcn $PD
same dcqcn 2 $PD
PU="-tm $M/incast.cm --pfc on --pfc-deadlock-us 3001 -end 3000"
plain upfc $PU
same upfc 2 $PU

# a mixed fabric: the permutation's connections by turns UET, EQDS (class
# 1) and RoCE in a lossless class 2 with PFC
awk 'NR <= 3 { print; next }
     /->/ { n++; print $0 (n % 3 == 0 ? " transport eqds" : n % 3 == 2 ? " transport roce priority 2" : ""); next }
     { print }' "$M/perm_128n_128c_2MB.cm" >"$T/mixed.cm"
MX="-tm $T/mixed.cm --classes 3 --class-opt 2:lossless=1 --pfc-deadlock-us 2000"
plain mixed $MX
if ! grep -q '"pfc": {.*"pauses": [1-9]' "$T/mixed-plain/summary.json"; then
    echo "FAIL mpi mixed: the plain run had no PFC pauses (the check needs them)"
else
    same mixed 2 $MX
    same mixed 3 $MX
fi

# HPCC: each data packet's in-band telemetry (a side table by packet slot,
# hpcc.h) and the ACK's copy of it cross processes beside the packet (the
# slot's stale row was read on arrival: an internal error); the incast
# with PFC pauses, the permutation and a leaf-spine
HP="-tm $M/perm_128n_128c_2MB.cm --transport roce -hpcc --pfc-deadlock-us 1001"
plain hpcc $HP
for np in 1 2 3; do
    same hpcc $np $HP
done
HPI="-tm $M/incast.cm --transport roce -hpcc -mtu 1500 -end 3000 --pfc-deadlock-us 3001"
plain hpcci $HPI
same hpcci 2 $HPI
same hpcci 3 $HPI
HPL="--transport roce -hpcc --pfc-deadlock-us 1001 $LS"
plain hpccl $HPL
same hpccl 2 $HPL

# --switch-stats: each switch's buffer totals come from its process
SS="-tm $M/perm_128n_128c_2MB.cm --switch-stats"
plain ss $SS
same ss 2 $SS
if cmp -s "$T/ss-plain/switches.csv" "$T/ss-2/switches.csv"; then
    echo "ok mpi ss -np 2: switches.csv is the plain run's"
else
    echo "FAIL mpi ss -np 2: switches.csv differs from the plain run's"
fi
# --htsim-output: every process's lines, printed by rank 0 in the order of
# the events that printed them (stdout but the run's wall-clock line)
HO="-tm $M/perm_128n_128c_2MB.cm --htsim-output"
"$SPRAYSIM" $HO --no-progress --out "$T/ho-plain" 2>/dev/null | grep -v '^run: ' >"$T/ho-plain.out"
for np in 2 3; do
    $MPIRUN -np "$np" "$SPRAYSIM_MPI" $HO --no-progress --out "$T/ho-$np" 2>/dev/null | grep -v '^run: ' >"$T/ho-$np.out"
    if [ "$(grep -c '^Flow ' "$T/ho-plain.out")" -ne 256 ]; then
        echo "FAIL mpi ho: the plain run printed $(grep -c '^Flow ' "$T/ho-plain.out") of 256 flow lines"
    elif cmp -s "$T/ho-plain.out" "$T/ho-$np.out"; then
        echo "ok mpi ho -np $np: --htsim-output's stdout is the plain run's"
    else
        echo "FAIL mpi ho -np $np: --htsim-output's stdout differs from the plain run's"
    fi
done

# triggers whose hosts share a pod (16 hosts): in each pod a barrier of
# two send_done flows (one leaving the pod) starts a flow whose
# recv_done starts two flows into other pods; its --htsim-output lines
# interleave start and finish lines at one instant, where an event
# schedules a start with a smaller key than its own
awk 'BEGIN {
    print "Nodes 128"; print "Connections 40"; print "Triggers 16"; id = 1
    for (p = 0; p < 8; p++) {
        b = 16 * p
        printf "%d->%d id %d start 0 size 300000 send_done_trigger %d\n", b, b + 1, id++, p + 1
        printf "%d->%d id %d start 0 size 300000 send_done_trigger %d\n", b + 5, (b + 21) % 128, id++, p + 1
        printf "%d->%d id %d trigger %d size 200000 recv_done_trigger %d\n", b + 2, b + 3, id++, p + 1, 100 + p
        printf "%d->%d id %d trigger %d size 200000\n", b + 4, (b + 20) % 128, id++, 100 + p
        printf "%d->%d id %d trigger %d size 100000\n", b + 6, (b + 40) % 128, id++, 100 + p
    }
    for (p = 0; p < 8; p++) {
        printf "trigger id %d barrier count 2\n", p + 1
        printf "trigger id %d oneshot\n", 100 + p
    }
}' >"$T/trig.cm"
TR="-tm $T/trig.cm --htsim-output"
"$SPRAYSIM" $TR --no-progress --out "$T/tr-plain" 2>/dev/null | grep -v '^run: ' >"$T/tr-plain.out"
for np in 2 3; do
    same tr $np $TR
    $MPIRUN -np "$np" "$SPRAYSIM_MPI" $TR --no-progress --out "$T/tr-$np-out" 2>/dev/null | grep -v '^run: ' >"$T/tr-$np.out"
    if [ "$(grep -c '^Flow .* finished' "$T/tr-plain.out")" -ne 40 ]; then
        echo "FAIL mpi tr: the plain run finished $(grep -c '^Flow .* finished' "$T/tr-plain.out") of 40 flows"
    elif cmp -s "$T/tr-plain.out" "$T/tr-$np.out"; then
        echo "ok mpi tr -np $np: --htsim-output's stdout is the plain run's"
    else
        echo "FAIL mpi tr -np $np: --htsim-output's stdout differs from the plain run's"
    fi
done

# triggers across processes with --trigger-delay path (issue 22): an
# activation reaches each waiting connection's source after a control
# packet's minimum one-way latency, an event for that host exchanged
# between processes like a packet; barriers whose two activating hosts are
# in different pods, oneshots whose waiting connections start in other
# pods (recv_done at the destination, send_done at the source) and a
# multishot fed from every pod; --htsim-output's stdout too
awk 'BEGIN {
    print "Nodes 128"; print "Connections 40"; print "Triggers 17"; id = 1
    for (p = 0; p < 8; p++) {
        b = 16 * p
        printf "%d->%d id %d start 0 size 300000 send_done_trigger %d\n", b, b + 1, id++, p + 1
        printf "%d->%d id %d start 0 size 300000 send_done_trigger %d\n", b + 5, (b + 21) % 128, id++, p + 1
        printf "%d->%d id %d trigger %d size 200000 recv_done_trigger %d\n", (b + 50) % 128, b + 3, id++, p + 1, 100 + p
        printf "%d->%d id %d trigger %d size 200000 send_done_trigger 200\n", (b + 70) % 128, (b + 20) % 128, id++, 100 + p
        printf "%d->%d id %d trigger %d size 100000\n", (b + 100) % 128, (b + 40) % 128, id++, (p % 2) ? 200 : 100 + p
    }
    for (p = 0; p < 8; p++) {
        printf "trigger id %d barrier count 2\n", p + 1
        printf "trigger id %d oneshot\n", 100 + p
    }
    print "trigger id 200 multishot"
}' >"$T/trigp.cm"
TP="-tm $T/trigp.cm --trigger-delay path --htsim-output"
"$SPRAYSIM" $TP --no-progress --out "$T/tp-plain" 2>/dev/null | grep -v '^run: ' >"$T/tp-plain.out"
for np in 1 2 3; do
    same tp $np $TP
    $MPIRUN -np "$np" "$SPRAYSIM_MPI" $TP --no-progress --out "$T/tp-$np-out" 2>/dev/null | grep -v '^run: ' >"$T/tp-$np.out"
    if [ "$(grep -c '^Flow .* finished' "$T/tp-plain.out")" -ne 40 ]; then
        echo "FAIL mpi tp: the plain run finished $(grep -c '^Flow .* finished' "$T/tp-plain.out") of 40 flows"
    elif cmp -s "$T/tp-plain.out" "$T/tp-$np.out"; then
        echo "ok mpi tp -np $np: --htsim-output's stdout is the plain run's"
    else
        echo "FAIL mpi tp -np $np: --htsim-output's stdout differs from the plain run's"
    fi
done

# time series (--ts-*): each process samples the ports and hosts it owns
# and the flows it sends, rank 0 merges the rows in the plain run's order
# (same instant: the event's place, then the object's number); every
# process schedules the next sample and the run's end drops those the plain
# run would not have taken (it stops sampling when nothing is pending)
# same_ts NAME NP ARGS...: same, and every ts_*.csv (and switches.csv) of the plain run identical
same_ts() {
    name=$1 np=$2
    shift 2
    same "$name" "$np" "$@"
    for f in ts_flows.csv ts_ports.csv ts_hosts.csv switches.csv; do
        [ -f "$T/$name-plain/$f" ] || continue
        if cmp -s "$T/$name-plain/$f" "$T/$name-$np/$f"; then
            echo "ok mpi $name -np $np: $f is the plain run's"
        else
            echo "FAIL mpi $name -np $np: $f differs from the plain run's"
        fi
    done
}
TS="-tm $M/perm_128n_128c_2MB.cm --ts-ports 0-40,300-340 --ts-hosts all --ts-interval 7"
plain ts $TS
for np in 1 2 3; do
    same_ts ts $np $TS
done
# change mode, with link changes every process applies (rows after them come from every process)
TSC="-tm $M/perm_128n_128c_2MB.cm --fail 'link tor0 agg1 down at 30 up at 120' --fail 'switch core2 down at 60' --detect-us 10 --reroute bounce --ts-ports 0-10,500-520,700-767 --ts-hosts 0-3,100 --ts-interval change -end 150"
eval "plain tsc $TSC"
for np in 2 3; do
    eval "same_ts tsc $np $TSC"
done
# flows within one process (pods 0-3 and 4-7 at 2 processes), several samples per window
printf '%s\n' "Nodes 128" "Connections 6" "0->5 id 1 start 0 size 300000" "70->80 id 2 start 3 size 200000" \
    "127->120 id 3 start 1 size 100000" "3->100 id 4 start 0 size 100000" "33->40 id 5 start 2 size 500000" \
    "100->3 id 6 start 0 size 10000" >"$T/tsf.cm"
TSF="-tm $T/tsf.cm --ts-flows 1-3,5 --ts-hosts all --ts-ports 0-3 --ts-interval 0.4"
plain tsf $TSF
for np in 1 2 3; do
    same_ts tsf $np $TSF
done
# regression: with nothing pending after the first sample the plain run
# stops sampling (one row per object at 0, one at -end); the processes,
# which cannot see each other's queues, had sampled on to -end. And a run
# without flows stopped at once on 2 processes (every process's flows
# "finished"), 0 us simulated against the plain run's -end
printf '%s\n' "Nodes 128" "Connections 0" >"$T/empty.cm"
TSE="-tm $T/empty.cm --ts-hosts 0-3 --ts-ports 0-2,700 --ts-interval 7"
plain tse $TSE
same_ts tse 2 $TSE
same_ts tse 3 $TSE
TSE2="-tm $T/empty.cm --fail 'link tor0 agg1 down at 30 up at 120' --ts-ports 700 --ts-interval 7"
eval "plain tse2 $TSE2"
eval "same_ts tse2 2 $TSE2"

# GOAL schedules with one process under --goal-send-done match (the
# default; the stop test counts the messages the schedule makes during the
# run and waits for its end); with more processes match is refused (below):
# a send op completes when its receiver matches the message
for g in ring8 alltoall8; do
    plain "goal$g" --goal "tests/goal/$g.goal"
    same "goal$g" 1 --goal "tests/goal/$g.goal"
done
# GOAL schedules at 1-3 processes under --goal-send-done path (issue 22):
# a send completes when a note from its receiver's host reaches its
# sender's, an event that crosses processes like a packet; each process
# runs its own ranks; the schedule's end and deadlock are decided from
# every process's counts at window ends; rank 0 gathers each op's and
# rank's state. Ranks are spread over the pods of the 128-host fat tree
# (rank r on host 16 r), so messages and notes cross processes. Besides
# flows.csv, queues.csv and summary.json (with its goal section), stdout
# (but the wall-clock line), stderr's deadlock or -end warning, ranks.csv
# and goal_ops.csv must be the plain run's. A ring, an all-to-all,
# recursive doubling read from the binary format, EQDS on a broadcast, a
# schedule with calcs that deadlocks after its exchanges (ranks 0 and 1
# finish, 2 and 3 wait for each other), a ring left unfinished by -end,
# and a rank with two NICs on two hosts of one pod
for r in 0 1 2 3 4 5 6 7; do echo "$r $((16 * r))"; done >"$T/spread8.map"
cat >"$T/calcdead.goal" <<'G'
num_ranks 4
rank 0 {
a: send 50000b to 1 tag 1
b: calc 2000
b requires a
c: recv 50000b from 1 tag 2
c requires b
}
rank 1 {
a: recv 50000b from 0 tag 1
b: calc 3000
b requires a
c: send 50000b to 0 tag 2
c requires b
}
rank 2 {
x: send 20000b to 3 tag 7
y: calc 4000
y requires x
a: recv 1000b from 3 tag 5
a requires y
b: send 1000b to 3 tag 5
b requires a
}
rank 3 {
x: recv 20000b from 2 tag 7
a: recv 1000b from 2 tag 5
a requires x
b: send 1000b to 2 tag 5
b requires a
}
G
printf '0 0\n1 120\n2 40\n3 80\n' >"$T/calcdead.map"
printf 'num_ranks 2\nrank 0 {\ns: send 100000b to 1 tag 0 nic 1\nt: send 1000b to 1 tag 1\n}\nrank 1 {\nr: recv 100000b from 0 tag 0 nic 1\nq: recv 1000b from 0 tag 1\n}\n' >"$T/nic.goal"
printf '0 0 1\n1 120 121\n' >"$T/nic.map"
# goal_plain NAME ARGS... and goal_same NAME NP ARGS...: as plain and same,
# with the schedule's outputs and stdout and stderr compared too
goal_plain() {
    name=$1
    shift
    "$SPRAYSIM" "$@" --goal-ops --no-progress --out "$T/$name-plain" >"$T/$name-plain.out" 2>"$T/$name-plain.err" ||
        echo "FAIL mpi: the plain $name run failed: $(head -n 1 "$T/$name-plain.err")"
}
goal_same() {
    name=$1 np=$2
    shift 2
    if ! $MPIRUN -np "$np" "$SPRAYSIM_MPI" "$@" --goal-ops --no-progress --out "$T/$name-$np" >"$T/$name-$np.out" 2>"$T/$name-$np.err"; then
        echo "FAIL mpi $name -np $np: the run failed: $(grep -v '^$' "$T/$name-$np.err" | head -n 1)"
        return
    fi
    for f in flows.csv queues.csv ranks.csv goal_ops.csv; do
        if ! cmp -s "$T/$name-plain/$f" "$T/$name-$np/$f"; then
            echo "FAIL mpi $name -np $np: $f differs from the plain run's"
            return
        fi
    done
    grep -v '^  "commit": ' "$T/$name-plain/summary.json" >"$T/a.json"
    grep -v '^  "commit": ' "$T/$name-$np/summary.json" >"$T/b.json"
    grep -av '^run: simulated' "$T/$name-plain.out" >"$T/a.out"
    grep -av '^run: simulated' "$T/$name-$np.out" >"$T/b.out"
    if ! cmp -s "$T/a.json" "$T/b.json"; then
        echo "FAIL mpi $name -np $np: summary.json differs from the plain run's: $(diff "$T/a.json" "$T/b.json" | head -c 300)"
    elif ! grep -q '"goal": {' "$T/b.json" || ! cmp -s "$T/a.out" "$T/b.out"; then
        echo "FAIL mpi $name -np $np: stdout differs from the plain run's: $(diff "$T/a.out" "$T/b.out" | head -c 300)"
    elif ! cmp -s "$T/$name-plain.err" "$T/$name-$np.err"; then
        echo "FAIL mpi $name -np $np: stderr differs from the plain run's: $(diff "$T/$name-plain.err" "$T/$name-$np.err" | head -c 300)"
    else
        echo "ok mpi $name -np $np: a GOAL schedule's outputs, stdout and stderr are the plain run's"
    fi
}
GP="--goal-send-done path --stream off -nodes 128"
goal_plain gpring --goal tests/goal/ring8.goal --goal-map "$T/spread8.map" $GP
goal_plain gpa2a --goal tests/goal/alltoall8.goal --goal-map "$T/spread8.map" $GP
goal_plain gpbin --goal tests/goal/recdoub8.bin --goal-map "$T/spread8.map" $GP
goal_plain gpeqds --goal tests/goal/bcast8.goal --goal-map "$T/spread8.map" $GP --transport eqds
goal_plain gpdead --goal "$T/calcdead.goal" --goal-map "$T/calcdead.map" $GP
goal_plain gpend --goal tests/goal/ring8.goal --goal-map "$T/spread8.map" $GP -end 100
goal_plain gpnic --goal "$T/nic.goal" --goal-map "$T/nic.map" $GP
# the checks need what they name: a completion, a deadlock after the
# exchanges, a schedule cut by -end
grep -q '"status": "complete"' "$T/gpring-plain/summary.json" &&
    grep -q '^goal: .*calcdead.goal, .*deadlocked at [1-9][0-9.]* us, 9 of 13 ops done' "$T/gpdead-plain.out" &&
    grep -q '"status": "unfinished"' "$T/gpend-plain/summary.json" ||
    echo "FAIL mpi: the plain GOAL runs are not complete, deadlocked and unfinished: $(cat "$T/gpdead-plain.out" | head -c 300)"
for np in 1 2 3; do
    goal_same gpring $np --goal tests/goal/ring8.goal --goal-map "$T/spread8.map" $GP
    goal_same gpdead $np --goal "$T/calcdead.goal" --goal-map "$T/calcdead.map" $GP
done
for np in 2 3; do
    goal_same gpa2a $np --goal tests/goal/alltoall8.goal --goal-map "$T/spread8.map" $GP
    goal_same gpbin $np --goal tests/goal/recdoub8.bin --goal-map "$T/spread8.map" $GP
    goal_same gpend $np --goal tests/goal/ring8.goal --goal-map "$T/spread8.map" $GP -end 100
done
goal_same gpeqds 3 --goal tests/goal/bcast8.goal --goal-map "$T/spread8.map" $GP --transport eqds
goal_same gpnic 2 --goal "$T/nic.goal" --goal-map "$T/nic.map" $GP

# open-loop Poisson arrivals (issue 22): every process draws every host's
# arrivals and makes every message's flow slot in the same order (so slots
# and message numbers agree), only the source's process starts it; the
# stop test counts the messages made during the run and waits for the
# arrivals' end; the window's goodput and switch buffers come from each
# host's and switch's process. Messages cross pods (3 processes split
# them unevenly), with the incast overlay, failures every process
# applies, --switch-stats and time series in change mode; with
# --stream off (refused across processes, below), and with one process
# also streamed (the default)
WL=$SHARED/data/workloads
PW="poisson:cdf=$WL/websearch.cdf,load=0.6,n=128,warmup_us=10,stop_us=120,incast=0.1,incast_senders=8,incast_bytes=50000"
PO="--workload $PW -end 200 --fail 'link tor0 agg1 down at 30 up at 120' --fail 'switch core2 down at 60' --detect-us 10 --reroute bounce --switch-stats --ts-ports 0-10,500-520,700-767 --ts-hosts 0-3,100 --ts-interval change"
eval "plain poi $PO --stream off"
for np in 1 2 3; do
    eval "same_ts poi $np $PO --stream off"
done
eval "plain pois $PO"
eval "same_ts pois 1 $PO"
# receiver-driven transports (their receivers' state on the first packet)
# and seed 001's pools of persistent connections (conns=K: each pool lives
# at its sender's process)
for tp in sird homa; do
    plain "poi$tp" --workload "$PW" --transport $tp -end 200 --stream off
    same "poi$tp" 2 --workload "$PW" --transport $tp -end 200 --stream off
done
PC="--workload poisson:cdf=$WL/websearch.cdf,load=0.6,n=128,conns=2,warmup_us=10,stop_us=120 --cc dctcp -end 200 --stream off"
plain poic $PC
same poic 2 $PC
same poic 3 $PC
# a run that ends before its window does (every message done before
# stop_us): each host's payload at the end comes from its receiver's process
PE="--workload poisson:cdf=$WL/websearch.cdf,load=0.001,n=128,warmup_us=5,stop_us=20000 -end 30000 --seed 1 --stream off --switch-stats"
plain poie $PE
if ! grep -q '"simulated_us": 1[0-9][0-9][0-9][0-9]\.' "$T/poie-plain/summary.json"; then
    echo "FAIL mpi poie: the plain run did not end before its window's end, 20000 us (the check needs it to)"
else
    same_ts poie 2 $PE
    same_ts poie 3 $PE
fi

# Progress and failure (issue 22 item 5). Rank 0's progress line reaches a
# batch log (stderr not a terminal) as whole lines, as the plain run's do
$MPIRUN -np 2 "$SPRAYSIM_MPI" -tm "$M/perm_128n_128c_2MB.cm" --quiet --progress-every 0.01 --out "$T/prog" >/dev/null 2>"$T/prog.err"
if grep -q '^spraysim: progress \[[0-9]* s\] simulated .* on 2 processes' "$T/prog.err"; then
    echo "ok mpi: rank 0's progress lines reach a batch log"
else
    echo "FAIL mpi: no 'spraysim: progress' line in a batch log: $(head -n 1 "$T/prog.err")"
fi
# regression: a process killed (kill -9) while the run goes on stops the
# run with a non-zero exit and leaves no staging directory: under MPICH's
# mpiexec rank 0 was killed too and its hidden .NAME.spraysim-* staging
# folder stayed (rank 0 now makes it only after the run)
KD=$T/kill
mkdir -p "$KD"
$MPIRUN -np 2 "$SPRAYSIM_MPI" -tm "$M/perm_1024n_1024c_0u_2000000b.cm" --quiet --no-progress --out "$KD/out" >"$KD/o" 2>"$KD/e" &
launcher=$!
victim=
for _ in $(seq 1 200); do
    for p in $(pgrep -f "$SPRAYSIM_MPI -tm $M/perm_1024n"); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1\|PMI_RANK=1'; then
            victim=$p
        fi
    done
    [ -n "$victim" ] && break
    sleep 0.05
done
if [ -z "$victim" ]; then
    wait "$launcher"
    echo "FAIL mpi: rank 1 of the run to kill was not found"
else
    sleep 0.5
    kill -9 "$victim"
    wait "$launcher"
    rc=$?
    left=$(ls -A "$KD" | grep -v '^[oe]$' | head -n 1)
    if [ "$rc" -eq 0 ] || [ -n "$left" ]; then
        echo "FAIL mpi: killing rank 1: exit $rc, left behind: ${left:-nothing}"
    else
        echo "ok mpi: killing rank 1 stops the run (exit $rc) and leaves no staging directory"
    fi
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
# a trigger whose hosts are on two processes (pods 0 and 6)
printf '%s\n' "Nodes 128" "Connections 2" "Triggers 1" "0->1 id 1 start 0 size 10000 send_done_trigger 1" \
    "100->101 id 2 trigger 1 size 10000" "trigger id 1 oneshot" >"$T/trigx.cm"
refuse "a trigger across processes" "trigx.cm:6: trigger 1 is fired or waited for on hosts of processes 0 and 1.*--trigger-delay path only" \
    -tm "$T/trigx.cm"
# UET pipelines a connection's messages at the sender (uet_msg_pipeline):
# the receiver learns each message's span from its packets (it read the
# sender's span list and grown packet count: another process's state), and
# flows.csv's ideal counts a message's own packets (it counted the
# carrier's grown sequence space, which only the sender's process had);
# identical at 1-3 processes, and one after another with --msg-cc fresh
printf '%s\n' "Nodes 16" "Connections 3" "0->9 id 1 start 0 size 300000" "0->9 id 1 start 0 size 200000" \
    "3->12 id 2 start 0 size 100000" >"$T/msgs.cm"
"$SPRAYSIM" -tm "$T/msgs.cm" --quiet --no-progress --out "$T/msgs-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain messages run failed"
for np in 1 2 3; do
    same msgs $np -tm "$T/msgs.cm"
done
# three messages per connection of a permutation (the later ones posted
# while the first is in flight), and a 15-to-1 incast of two each, with
# trims, with timeouts (no trimming) and with receiver credit
awk 'BEGIN { print "Nodes 128"; print "Connections 384"
    for (i = 0; i < 128; i++) { d = (i + 37) % 128
        printf "%d->%d id %d start 0 size 500000\n", i, d, i + 1
        printf "%d->%d id %d start 5 size 300000\n", i, d, i + 1
        printf "%d->%d id %d start 20 size 200000\n", i, d, i + 1 } }' >"$T/pmsgs.cm"
plain pmsgs -tm "$T/pmsgs.cm"
same pmsgs 2 -tm "$T/pmsgs.cm"
same pmsgs 3 -tm "$T/pmsgs.cm"
awk 'BEGIN { print "Nodes 16"; print "Connections 30"
    for (i = 0; i < 15; i++) {
        printf "%d->15 id %d start 0 size 300000\n", i, i + 1
        printf "%d->15 id %d start 10 size 200000\n", i, i + 1 } }' >"$T/imsgs.cm"
plain imsgs -tm "$T/imsgs.cm" -end 3000
same imsgs 2 -tm "$T/imsgs.cm" -end 3000
same imsgs 3 -tm "$T/imsgs.cm" -end 3000
plain imsgsd -tm "$T/imsgs.cm" -end 3000 -disable_trim -q 12 -ecn 2 8
same imsgsd 2 -tm "$T/imsgs.cm" -end 3000 -disable_trim -q 12 -ecn 2 8
plain imsgsr -tm "$T/imsgs.cm" -end 3000 -receiver_cc
same imsgsr 2 -tm "$T/imsgs.cm" -end 3000 -receiver_cc
"$SPRAYSIM" -tm "$T/msgs.cm" --msg-cc fresh --quiet --no-progress --out "$T/msgsf-plain" >/dev/null 2>&1 || echo "FAIL mpi: the plain fresh messages run failed"
same msgsf 2 -tm "$T/msgs.cm" --msg-cc fresh
refuse "a time series of a flow across processes" "--ts-flows: flow 1 runs from host 13 (process 1) to host 6 (process 0): its rows join" -tm "$M/perm_16n_16c_2MB.cm" --ts-flows all --out "$T/tsr"
refuse "the PFC deadlock check" "parallel runs need it beyond -end (above 1000 us here)" -tm "$M/perm_16n_16c_2MB.cm" --transport roce
refuse "--goal streamed" "--stream: parallel runs keep every message's flow slot .*give --stream off (GOAL schedules stream by default)" \
    --goal tests/goal/ring8.goal --goal-send-done path
refuse "--goal under --goal-send-done match" "--goal with more than one process needs --goal-send-done path: under --goal-send-done match (the default) a send op completes the instant" \
    --goal tests/goal/ring8.goal --stream off
printf '0 0 120\n1 1 121\n' >"$T/nicx.map"
refuse "a GOAL rank's NICs on two processes" "nic.goal: rank 0's NICs are on hosts 0 and 120, of processes 0 and 1; parallel runs need a rank's hosts on one process" \
    --goal "$T/nic.goal" --goal-map "$T/nicx.map" --goal-send-done path --stream off -nodes 128
refuse "--stream" "--stream: parallel runs keep every message's flow slot .*give --stream off (open-loop workloads stream by default)" \
    --workload "poisson:cdf=$SHARED/data/workloads/websearch.cdf,load=0.5,n=128" -end 50

# -planes N: a pod spans the planes (a host joins a ToR in each), so a NIC's
# N ports, its own control queue and its round robin stay on its process;
# receiver pacing at N ports (EQDS, SIRD) and plane-0 failures cross as packets
PL="-tm $M/perm_128n_128c_2MB.cm -planes 2 -end 400"
plain planes $PL
same planes 2 $PL
same planes 3 $PL
PLE="-tm $M/perm_128n_128c_2MB.cm -planes 3 --transport eqds -end 400 -failed 2"
plain planese $PLE
same planese 2 $PLE
PLS="-tm $M/perm_128n_128c_2MB.cm -planes 2 --transport sird -end 400"
plain planess $PLS
same planess 3 $PLS

# Every congestion control the binary lists (--help's --cc line), on a
# 128-host permutation with 40-packet queues so trims, NACKs and
# retransmissions happen: a CC's state and timers live with its flow's
# sender, so each must give the plain run's outputs at 2 processes. The
# rate controls of RoCE (refused without --transport roce) run under RoCE
# with ECN marking (DCQCN over PFC, as it must).
CCS=$("$SPRAYSIM" --help 2>&1 | sed -n 's/^  --cc NAME .*: \([a-z0-9, -]*\) (default.*/\1/p' | tr -d ',')
if [ -z "$CCS" ]; then
    echo "FAIL mpi: no --cc list in --help (the every-CC check needs it)"
fi
for cc in $CCS; do
    CA="-tm $M/perm_128n_128c_2MB.cm --cc $cc -q 40 -end 400"
    if ! "$SPRAYSIM" $CA --quiet --no-progress --out "$T/cc$cc-plain" >"$T/out" 2>&1; then
        if grep -q "give --transport roce" "$T/out"; then
            # DCQCN runs over PFC with its own marking threshold (-dcqcn K, packets)
            mark="--pfc off -ecn 2 8"
            [ "$cc" != dcqcn ] || mark="-dcqcn 8"
            CA="-tm $M/perm_128n_128c_2MB.cm --transport roce --cc $cc $mark -end 400"
            plain cc$cc $CA
        else
            echo "FAIL mpi: the plain --cc $cc run failed: $(head -n 1 "$T/out")"
            continue
        fi
    fi
    same cc$cc 2 $CA
done

# Every load balancer (--help's --lb line) and switch forwarding mode on
# the same lossy permutation: a balancer's state (REPS's cache, PLB's
# repaths, bitmap penalties) lives with its flow's sender, adaptive routing
# reads the queues of the switch's own process.
LBS=$("$SPRAYSIM" --help 2>&1 | sed -n 's/^  --lb, -load_balancing_algo NAME .*: \(.*\) (default.*/\1/p' | sed 's/ (alias [a-z]*)//g' | tr -d ',')
if [ -z "$LBS" ]; then
    echo "FAIL mpi: no --lb list in --help (the every-balancer check needs it)"
fi
for lb in $LBS; do
    LA="-tm $M/perm_128n_128c_2MB.cm --lb $lb -q 40 -end 400"
    plain lb$lb $LA
    same lb$lb 2 $LA
done
for r in "--routing ar" "--routing ev-mod" "-strat ecmp_ar"; do
    n=$(echo "$r" | tr -dc 'a-z')
    RA="-tm $M/perm_128n_128c_2MB.cm $r -q 40 -end 400"
    plain rt$n $RA
    same rt$n 2 $RA
done

# Every built-in closed-loop workload (docs/workloads.md) at 2 processes:
# incast, uneven, parallel permutations, windowed all-to-all (a sender's
# next message follows its own completions) and the ring collective in
# both placements (a step waits for the previous GPU's data).
i=0
for w in "incast:n=128,size=200000,degree=16" "uneven:n=128,size=1000000" "parallel:n=128,size=500000,count=3" \
    "alltoall:n=128,size=20000,window=4" "alltoall:n=128,size=20000,window=2,order=random" \
    "ring:n=128,gpus=8,size=2000000" "ring:n=128,gpus=8,size=2000000,placement=host"; do
    i=$((i + 1))
    plain wl$i-${w%%:*} --workload "$w" -end 2000
    same wl$i-${w%%:*} 2 --workload "$w" -end 2000
done

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
