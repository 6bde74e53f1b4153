#!/bin/sh
# pfc_pathologies.sh: PFC's pathologies shown with spraysim's own counters
# (docs/models.md "Lossless RoCEv2"; issue 11 item 5, first half; seed 000 Sec. I
# and VII: "PFC storms"):
#   1. head-of-line blocking: a victim flow whose destination is idle,
#      paused hop by hop because it shares an aggregation-to-ToR downlink
#      with an incast (16 hosts, 3-tier k=4 tree);
#   2. a pause storm: an incast whose PAUSEs climb from the ToR downlink to
#      aggregation, core and back down to the NICs of hosts that do not
#      send to the incast (128 hosts, k=8 tree), per tier from queues.csv;
#   3. cyclic buffer dependency: link failures with up-down rerouting under
#      the storm's load (no deadlock); two link failures in a leaf-spine with
#      valley rerouting (--reroute bounce), which closes a cycle of PFC
#      buffer dependencies and deadlocks, against the same workload with
#      up-down routing or without PFC; the same at scale (a 128-host
#      permutation under random link failures); the detector on a slow
#      fabric.
# Writes experiments/pfc_pathologies.md; every number in it comes from
# this run. Takes a few seconds. The same runs are the sweep
# experiments/pfc_pathologies.toml (make figures), whose report gives the
# numbers the conclusions rest on with a verdict each; this script stays
# for the per-port reconstructions (the victim's path hop by hop, per-tier
# and per-pod pause tables, the deadlock ring and the flows behind it).
#   sh experiments/pfc_pathologies.sh   (from the project root, after make)
set -u
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
PY=${PY:-/usr/bin/python3}
OUT=${OUT:-experiments/pfc_pathologies.md}
[ -x "$SPRAYSIM" ] || { echo "pfc_pathologies.sh: $SPRAYSIM not found; run make first" >&2; exit 1; }
[ -x "$PY" ] || PY=python3
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pfc_patho.XXXXXX") || exit 1
# KEEP=1 keeps the runs' directories (their path is printed)
if [ "${KEEP:-0}" = 1 ]; then echo "pfc_pathologies.sh: runs kept in $WORK" >&2; else
    trap 'rm -rf "$WORK"' EXIT
    trap 'rm -rf "$WORK"; exit 1' HUP INT TERM
fi

CMDS=$WORK/commands
: >"$CMDS"
# run NAME ARGS...: one spraysim run into $WORK/NAME (stdout and stderr kept)
run() {
    name=$1
    shift
    line="spraysim"
    for a in "$@"; do
        case $a in *" "*) line="$line \"$a\"" ;; *) line="$line $a" ;; esac
    done
    echo "$line --out $name" | sed "s|$WORK/||g" >>"$CMDS"
    "$SPRAYSIM" "$@" --quiet --out "$WORK/$name" >"$WORK/$name.stdout" 2>"$WORK/$name.stderr"
    rc=$?
    [ $rc = 0 ] || { echo "pfc_pathologies.sh: run $name exited $rc" >&2; cat "$WORK/$name.stderr" >&2; exit 1; }
    echo "$name: done" >&2
}
ROCE="--transport roce -paths 1"

# ---- 1. head-of-line blocking (16 hosts: 2 per ToR, k=4 tree) ------------
# incast: hosts 2..15 except 6 send 1 MB each to host 0 from t=0; victim
# (id 99): host 6 -> host 1, 1 MB from t=10 us. Host 1 shares ToR 0 with
# host 0 but receives nothing else. The ECMP hash uses the connection's
# position in the matrix, so the victim is the first line of both matrices
# and takes the same path in every run.
{
    echo "Nodes 16"
    echo "Connections 14"
    echo "6->1 id 99 start 10 size 1000000"
    id=1
    for h in 2 3 4 5 7 8 9 10 11 12 13 14 15; do
        echo "$h->0 id $id start 0 size 1000000"
        id=$((id + 1))
    done
} >"$WORK/hol.cm"
printf 'Nodes 16\nConnections 1\n6->1 id 99 start 10 size 1000000\n' >"$WORK/victim.cm"
run hol_alone $ROCE -tm "$WORK/victim.cm" -end 20000
run hol_pfc $ROCE -tm "$WORK/hol.cm" -end 20000
run hol_lossy $ROCE --pfc off -tm "$WORK/hol.cm" -end 20000
run hol_dcqcn $ROCE -dcqcn 10 -tm "$WORK/hol.cm" -end 20000

# ---- 2. pause storm (128 hosts: 4 per ToR, 4 ToRs and 4 aggs per pod) ----
# incast: in pods 1..3 (hosts 16..63) the hosts h with h%4 in {0,1} send
# 2 MB each to host 0 (24 senders); "innocent": the hosts of pods 1..3
# with h%4 = 2 send 1 MB to h+64 (pods 5..7), sharing only their ToR
# uplinks and aggregation switches with the incast (one per ToR, so that
# without the incast they rarely collide); "far": in pods 4 and 6 the
# hosts with h%4 = 0 send 1 MB to h+16 (pods 5 and 7), sharing only core
# switches with the incast. Hosts with h%4 = 3 in pods 1..3 stay idle.
mk_storm() {
    with_incast=$1
    {
        echo "Nodes 128"
        n=0
        body=$WORK/body
        : >"$body"
        h=16
        while [ $h -lt 64 ]; do
            m=$((h % 4))
            if [ $m -lt 2 ]; then
                [ "$with_incast" = 1 ] && { echo "$h->0 id $((1000 + h)) start 0 size 2000000" >>"$body"; n=$((n + 1)); }
            elif [ $m = 2 ]; then
                echo "$h->$((h + 64)) id $((2000 + h)) start 0 size 1000000" >>"$body"
                n=$((n + 1))
            fi
            h=$((h + 1))
        done
        for base in 64 96; do
            h=$base
            while [ $h -lt $((base + 16)) ]; do
                [ $((h % 4)) = 0 ] && { echo "$h->$((h + 16)) id $((3000 + h)) start 0 size 1000000" >>"$body"; n=$((n + 1)); }
                h=$((h + 1))
            done
        done
        echo "Connections $n"
        cat "$body"
    }
}
mk_storm 1 >"$WORK/storm.cm"
mk_storm 0 >"$WORK/storm_bg.cm"
run storm $ROCE -tm "$WORK/storm.cm" -end 20000
run storm_bg $ROCE -tm "$WORK/storm_bg.cm" -end 20000

# ---- 3. failures with rerouting, and the deadlock detector ----------------
# Four inter-switch links of the storm's paths go down: known to routing
# from the start (--detect-us 0), or failing at 300 us and learned 50 us later.
run fail_known $ROCE -tm "$WORK/storm.cm" -end 20000 --detect-us 0 \
    --fail "link tor0 agg0 down" --fail "link tor4 agg5 down" --fail "link agg1 core5 down" --fail "link agg8 core0 down"
run fail_mid $ROCE -tm "$WORK/storm.cm" -end 20000 --detect-us 50 \
    --fail "link tor0 agg0 down at 300" --fail "link tor4 agg5 down at 300" --fail "link agg1 core5 down at 300" --fail "link agg8 core0 down at 300"
run fail_known_bounce $ROCE -tm "$WORK/storm.cm" -end 20000 --detect-us 0 --reroute bounce \
    --fail "link tor0 agg0 down" --fail "link tor4 agg5 down" --fail "link agg1 core5 down" --fail "link agg8 core0 down"
# Valleys: a leaf-spine of 4 ToRs (2 hosts each) and 2 spines. Links
# tor0-spine1 and tor1-spine0 fail at 300 us and routing learns at 350 us;
# ToRs 0 and 1 then have no up-down path to each other, and with --reroute
# bounce spine 0 (spine 1) sends their packets down into ToR 2 or 3, which
# climb to the other spine. Workload: 8 MB each way between ToRs 0 and 1
# (hosts 0->2, 1->3, 2->0, 3->1) and between ToRs 2 and 3 (4->6, 5->7,
# 6->4, 7->5), all from t=0.
printf 'Nodes 8\nTiers 2\nPodsize 8\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n' >"$WORK/ls4x2.topo"
# mk_valley K: the workload; with K > 0 only flow K starts at 0 and the
# others after -end (a matrix keeps every line's position, which the ECMP
# hash uses, so flow K takes the path it takes in the full workload)
mk_valley() {
    echo "Nodes 8"
    echo "Connections 8"
    id=1
    for p in 0:2 1:3 2:0 3:1 4:6 5:7 6:4 7:5; do
        st=0
        [ "$1" -gt 0 ] && [ "$id" != "$1" ] && st=1000000
        echo "${p%:*}->${p#*:} id $id start $st size 8000000"
        id=$((id + 1))
    done
}
mk_valley 0 >"$WORK/valley.cm"
VT="-topo $WORK/ls4x2.topo"
run valley_nofail $ROCE $VT -tm "$WORK/valley.cm" -end 20000
run valley_pfc $ROCE $VT -tm "$WORK/valley.cm" -end 20000 --detect-us 50 --reroute bounce \
    --fail "link tor0 spine1 down at 300" --fail "link tor1 spine0 down at 300"
run valley_pfc_2000 $ROCE $VT -tm "$WORK/valley.cm" -end 2000 --detect-us 50 --reroute bounce --pfc-deadlock-us 1000000000 \
    --ts-flows all --ts-interval 100 \
    --fail "link tor0 spine1 down at 300" --fail "link tor1 spine0 down at 300"
run valley_pfc_20000 $ROCE $VT -tm "$WORK/valley.cm" -end 20000 --detect-us 50 --reroute bounce --pfc-deadlock-us 1000000000 \
    --fail "link tor0 spine1 down at 300" --fail "link tor1 spine0 down at 300"
run valley_updown $ROCE $VT -tm "$WORK/valley.cm" -end 20000 --detect-us 50 \
    --fail "link tor0 spine1 down at 300" --fail "link tor1 spine0 down at 300"
run valley_lossy $ROCE $VT -tm "$WORK/valley.cm" -end 20000 --detect-us 50 --reroute bounce --pfc off \
    --fail "link tor0 spine1 down at 300" --fail "link tor1 spine0 down at 300"
# each flow's path after the failures, alone (failures known from t=0)
for k in 1 2 3 4 5 6 7 8; do
    mk_valley $k >"$WORK/valley_$k.cm"
    run valley_path_$k $ROCE $VT -tm "$WORK/valley_$k.cm" -end 20000 --detect-us 0 --reroute bounce \
        --fail "link tor0 spine1 down" --fail "link tor1 spine0 down"
done
# At scale: seed 004's random failures (each inter-switch link down from
# t=0 with probability P, known at once) under htsim's 128-host
# permutation, RoCE one path per connection, up-down routing against
# --reroute bounce (and bounce without PFC at the largest P).
cp "$SHARED/data/htsim/matrices/perm_128n_128c_2MB.cm" "$WORK/perm128.cm" ||
    { echo "pfc_pathologies.sh: $SHARED/data/htsim/matrices/perm_128n_128c_2MB.cm not found (set SHARED)" >&2; exit 1; }
for p in 0.1 0.2 0.3 0.4; do
    run rand_${p}_updown $ROCE -tm "$WORK/perm128.cm" -end 20000 --detect-us 0 --random-failures $p
    run rand_${p}_bounce $ROCE -tm "$WORK/perm128.cm" -end 20000 --detect-us 0 --random-failures $p --reroute bounce
done
run rand_0.4_bounce_lossy $ROCE -tm "$WORK/perm128.cm" -end 20000 --detect-us 0 --random-failures 0.4 --reroute bounce --pfc off
# The detector on a slow fabric: two flows crossing in pod 0 (host 2 ->
# host 0 and host 1 -> host 3) towards two host links degraded to 0.5 Gb/s.
# Every flow progresses (a packet every 66 us at the slow links) while the
# pauses stay still for over 500 us: no deadlock, and none is reported.
printf 'Nodes 16\nConnections 2\n2->0 id 1 start 0 size 400000\n1->3 id 2 start 0 size 400000\n' >"$WORK/slow.cm"
run slow_detect $ROCE -tm "$WORK/slow.cm" -end 200000 --fail "link host0 tor0 rate 0.5" --fail "link host3 tor1 rate 0.5"
run slow_nodetect $ROCE -tm "$WORK/slow.cm" -end 200000 --pfc-deadlock-us 1000000000 \
    --fail "link host0 tor0 rate 0.5" --fail "link host3 tor1 rate 0.5"

VERSION=$("$SPRAYSIM" --version | sed 's/^spraysim //')
"$PY" - "$WORK" "$OUT" "$VERSION" "$(date -u +%Y-%m-%d)" <<'PYEOF'
import csv, json, math, os, sys
work, out, version, day = sys.argv[1:5]

def rd(name):
    d = os.path.join(work, name)
    with open(os.path.join(d, "flows.csv")) as f:
        flows = {int(r["flow_id"]): r for r in csv.DictReader(f)}
    with open(os.path.join(d, "queues.csv")) as f:
        ports = list(csv.DictReader(f))
    with open(os.path.join(d, "summary.json")) as f:
        summ = json.load(f)
    with open(os.path.join(d.rstrip("/") + ".stderr")) as f:
        err = f.read()
    return flows, ports, summ, err

def namer(ports):
    first = {}
    for p in ports:
        for n, k in ((int(p["node"]), p["node_kind"]), (int(p["peer"]), p["peer_kind"])):
            first[k] = min(first.get(k, n), n)
    return lambda n, k: "%s%d" % (k, n - first[k])

def med(v):
    v = sorted(v)
    return v[(len(v) + 1) // 2 - 1] if v else None

def fnum(x, d=1):
    return "-" if x in ("", None) else ("%.*f" % (d, float(x)))

with open(os.path.join(work, "commands")) as f:
    commands = f.read()
L = []
w = L.append
w("# PFC pathologies: head-of-line blocking, pause storms, deadlock")
w("")
w("Written by `sh experiments/pfc_pathologies.sh` (%s, spraysim %s); every number below comes from" % (day, version))
w("that run. The same runs are the sweep `experiments/pfc_pathologies.toml` (`SWEEPS=pfc_pathologies make figures`),")
w("whose report, `experiments/reports/pfc_pathologies.html`, gives the numbers below that the conclusions rest on, with a verdict each.")
w("RoCEv2 (`--transport roce -paths 1`: one ECMP path per connection, no congestion control")
w("unless stated), PFC at LOW/HIGH = 12/15 packets, default 3-tier k-ary fat trees, 100 Gb/s, 1 us links.")
w("Port names are `node -> peer` (`tor0 -> agg1` is ToR 0's port up to aggregation switch 1); in `queues.csv`")
w("`pfc_pauses_sent` counts PAUSEs a switch sent out of that port (pausing the peer), `pfc_pauses_received`")
w("the PAUSEs that stopped that port, and `pfc_paused_us` how long it was stopped.")
w("")

# ---------------- 1 ----------------
fa, pa, sa, _ = rd("hol_alone")
fp, pp, sp, _ = rd("hol_pfc")
fl, pl, sl, _ = rd("hol_lossy")
fd, pd, sd, _ = rd("hol_dcqcn")
nm = namer(pp)
V = 99
vsize = int(fa[V]["size_bytes"])
# the victim's data path: ports that carried at least its bytes when it ran alone
path = [p for p in pa if int(p["tx_bytes"]) >= vsize]
order = {"host": 0, "tor": 1, "agg": 2, "core": 3}
def hop_key(p):
    # up ports in rising tier, then down ports in falling tier
    t = order[p["node_kind"]]
    return (0, t) if p["direction"] == "up" else (1, -t)
path.sort(key=hop_key)
byport = {p["port"]: p for p in pp}
inc = [r for i, r in fp.items() if i != V]
w("## 1. Head-of-line blocking")
w("")
w("16 hosts (2 per ToR). Incast: the 13 hosts 2..15 except 6 send 1 MB each to host 0 from t = 0.")
w("Victim (flow 99): host 6 -> host 1, 1 MB from t = 10 us. Host 1 is on ToR 0 with host 0 but")
w("nothing else is sent to it, and host 6 sends nothing else. The ECMP hash uses a connection's position")
w("in the matrix, so the victim is the first line of every matrix and takes the same path in every run;")
w("that path is read from the victim-alone run (the ports that carried at least its 1 MB).")
w("")
w("| run | victim FCT (us) | victim slowdown | victim go-back-N | incast median / max FCT (us) | PFC pauses | drops |")
w("|---|---|---|---|---|---|---|")
def incst(fl_):
    v = sorted(float(r["fct_us"]) for i, r in fl_.items() if i != V and r["fct_us"] != "")
    return ("%.1f / %.1f" % (v[(len(v) + 1) // 2 - 1], v[-1])) if v else "-"
for label, f_, s_ in (("victim alone (no incast), PFC", fa, sa), ("with the incast, PFC", fp, sp),
                      ("with the incast, PFC off (lossy, 15-packet queues)", fl, sl),
                      ("with the incast, PFC + DCQCN (`-dcqcn 10`)", fd, sd)):
    v = f_[V]
    w("| %s | %s | %s | %s | %s | %s | %d |" % (label, fnum(v["fct_us"]), fnum(v["slowdown_ack"], 2), v["go_back_n"] or "0",
        incst(f_) if len(f_) > 1 else "-", s_["pfc"]["pauses"] if s_.get("pfc") else "off", s_["packets"]["drops"]))
w("")
w("The victim's path in the run with the incast and PFC (`queues.csv` of `hol_pfc`; victim-alone")
w("values for the same ports in brackets; the victim itself sends 245 data packets):")
w("")
w("| hop | port | tx packets (alone) | peak queue bytes (alone) | PAUSEs received | paused us |")
w("|---|---|---|---|---|---|")
tot_paused = 0.0
for i, p in enumerate(path):
    q = byport[p["port"]]
    tot_paused += float(q["pfc_paused_us"])
    w("| %d | %s -> %s | %s (%s) | %s (%s) | %s | %s |" % (i + 1, nm(int(q["node"]), q["node_kind"]), nm(int(q["peer"]), q["peer_kind"]),
        q["tx_packets"], p["tx_packets"], q["peak_bytes"], p["peak_bytes"], q["pfc_pauses_received"], fnum(q["pfc_paused_us"])))
dst_port = [p for p in pp if p["node_kind"] == "tor" and p["peer_kind"] == "host" and int(p["peer"]) == 0][0]
w("")
w("The incast's own bottleneck, `%s -> host0`: %s packets, peak %s bytes, paused %s us (hosts send no PAUSE)." % (
    nm(int(dst_port["node"]), "tor"), dst_port["tx_packets"], dst_port["peak_bytes"], fnum(dst_port["pfc_paused_us"])))
vp = float(fp[V]["fct_us"]); va = float(fa[V]["fct_us"])
last = byport[path[-1]["port"]]
w("")
w("**What the counters prove.** The victim's FCT grows from %.1f us alone to %.1f us (%.1fx) next to an incast" % (va, vp, vp / va))
w("it has nothing to do with: its destination port (`%s -> %s`, the last row) peaks at %s bytes and is never" % (
    nm(int(last["node"]), last["node_kind"]), nm(int(last["peer"]), last["peer_kind"]), last["peak_bytes"]))
w("paused, so host 1 was never the bottleneck. Every other port on its path was paused (the `PAUSEs received`")
w("column), %.0f port-us in all, each by the switch it feeds, whose ingress count for that link crossed HIGH" % tot_paused)
w("because of the incast's bytes: ToR 0 pauses the aggregation downlink carrying the incast's packets for host 0,")
w("the aggregation switch then pauses its own upstream links, and so on back to the victim's own NIC.")
w("PFC stops a link, not a flow, so the victim waits behind the incast's packets and finishes near the")
w("incast flows (median %.1f us) instead of at its own line-rate time." % med([float(r["fct_us"]) for i, r in fp.items() if i != V and r["fct_us"]]))
imx = lambda f_: max(float(r["fct_us"]) for i, r in f_.items() if i != V and r["fct_us"])
if fl[V]["fct_us"] and float(fl[V]["fct_us"]) < vp:
    vlo = float(fl[V]["fct_us"])
    w("Without PFC (lossy, 15-packet queues) the victim finishes in %.1f us, %.1fx sooner, although it loses" % (vlo, vp / vlo))
    w("packets and goes back %s times: the shared queue drops packets but never holds the victim behind a" % (fl[V]["go_back_n"] or "0"))
    w("paused link; the incast pays instead (slowest incast flow %.1f us lossy, %.1f us with PFC)." % (imx(fl), imx(fp)))
else:
    w("Without PFC (lossy, 15-packet queues) the victim finishes in %s us (%s go-back-N)." % (fnum(fl[V]["fct_us"]), fl[V]["go_back_n"] or "0"))
w("With DCQCN (`-dcqcn 10`) the fabric sends %d PAUSEs instead of %d and the victim finishes in %.1f us." % (
    sd["pfc"]["pauses"], sp["pfc"]["pauses"], float(fd[V]["fct_us"])))
w("")

# ---------------- 2 ----------------
fs, ps, ss, _ = rd("storm")
fb, pb, sb, _ = rd("storm_bg")
nm2 = namer(ps)
w("## 2. Pause storm spreading up the tree")
w("")
w("128 hosts (4 per ToR, 16 per pod, 8 pods, 16 cores). Incast: in pods 1..3 the hosts h with h % 4 in {0, 1}")
w("(24 hosts) send 2 MB each to host 0. Innocent: the 12 hosts of pods 1..3 with h % 4 = 2 (one per ToR) send")
w("1 MB each to h + 64 (pods 5..7); they share ToR uplinks and aggregation switches with incast senders, never")
w("a destination. Hosts with h % 4 = 3 in pods 1..3 send nothing.")
w("Far: in pods 4 and 6 the hosts with h % 4 = 0 (one per ToR) send 1 MB to h + 16 (pods 5 and 7); they share only")
w("core switches with the incast. Background run: the same innocent and far flows without the incast.")
w("")
groups = [("tor", "down", "ToR -> host"), ("agg", "down", "aggregation -> ToR"),
          ("core", "down", "core -> aggregation"), ("agg", "up", "aggregation -> core"), ("tor", "up", "ToR -> aggregation"),
          ("host", "up", "host NIC -> ToR")]
def pod(p):
    # a port's pod: that of its end outside the core layer (16 hosts, 4 ToRs, 4 aggregation switches per pod)
    k, n = (p["peer_kind"], int(p["peer"])) if p["node_kind"] == "core" else (p["node_kind"], int(p["node"]))
    i = int(nm2(n, k)[len(k):])
    return i // 16 if k == "host" else i // 4
def stats(ports_, k, d):
    g = [p for p in ports_ if p["node_kind"] == k and p["direction"] == d]
    return (g, [p for p in g if int(p["pfc_pauses_sent"]) > 0], [p for p in g if int(p["pfc_pauses_received"]) > 0])
w("Per tier, from the incast's bottleneck upward (`queues.csv`; a port \"sent\" PAUSEs when its switch paused")
w("the peer through it, it was \"paused\" when PAUSEs stopped it; incast run / background run):")
w("")
w("| ports | count | ports that sent PAUSEs | ports paused | PAUSEs received | paused port-us | longest paused, incast run (us) |")
w("|---|---|---|---|---|---|---|")
for k, d, label in groups:
    g, snt, rcv = stats(ps, k, d)
    gb, sntb, rcvb = stats(pb, k, d)
    w("| %s | %d | %d / %d | %d / %d | %d / %d | %.0f / %.0f | %.1f |" % (label, len(g), len(snt), len(sntb), len(rcv), len(rcvb),
        sum(int(p["pfc_pauses_received"]) for p in g), sum(int(p["pfc_pauses_received"]) for p in gb),
        sum(float(p["pfc_paused_us"]) for p in g), sum(float(p["pfc_paused_us"]) for p in gb),
        max([float(p["pfc_paused_us"]) for p in g] + [0])))
w("")
w("All ports: %d PAUSEs in the incast run, %d in the background run." % (ss["pfc"]["pauses"], sb["pfc"]["pauses"]))
w("")
w("By pod (a core port counts in the pod of the aggregation switch it connects to; incast run / background run):")
w("")
w("| pods | role | ports paused | paused port-us |")
w("|---|---|---|---|")
regions = ((0, 1, "0", "incast receiver's pod"), (1, 4, "1..3", "incast and innocent senders"), (4, 8, "4..7", "far flows, innocent receivers"))
for lo, hi, label, role in regions:
    r = [p for p in ps if lo <= pod(p) < hi and int(p["pfc_pauses_received"]) > 0]
    rb = [p for p in pb if lo <= pod(p) < hi and int(p["pfc_pauses_received"]) > 0]
    w("| %s | %s | %d / %d | %.0f / %.0f |" % (label, role, len(r), len(rb), sum(float(p["pfc_paused_us"]) for p in r),
        sum(float(p["pfc_paused_us"]) for p in rb)))
w("")
def hostclass(h):
    if h == 0: return "incast receiver"
    if 16 <= h < 64 and h % 4 < 3: return "incast sender" if h % 4 < 2 else "innocent sender"
    if (64 <= h < 80 or 96 <= h < 112) and h % 4 == 0: return "far sender"
    return "other (receiver only or idle)"
w("Host NICs by role, and the flows they send:")
w("")
w("| hosts | count | NICs paused, incast / background | mean paused us, incast / background | median FCT, background (us) | median FCT, with incast (us) | max FCT, with incast (us) |")
w("|---|---|---|---|---|---|---|")
nics = {int(p["node"]): p for p in ps if p["node_kind"] == "host"}
nicsb = {int(p["node"]): p for p in pb if p["node_kind"] == "host"}
for role in ("incast sender", "innocent sender", "far sender", "other (receiver only or idle)", "incast receiver"):
    hs = [h for h in nics if hostclass(h) == role]
    paused = [h for h in hs if int(nics[h]["pfc_pauses_received"]) > 0]
    pausedb = [h for h in hs if int(nicsb[h]["pfc_pauses_received"]) > 0]
    mp = sum(float(nics[h]["pfc_paused_us"]) for h in hs) / len(hs)
    mpb = sum(float(nicsb[h]["pfc_paused_us"]) for h in hs) / len(hs)
    src = set(hs)
    fw = [float(r["fct_us"]) for r in fs.values() if int(r["src"]) in src and r["fct_us"]]
    fbg = [float(r["fct_us"]) for r in fb.values() if int(r["src"]) in src and r["fct_us"]]
    w("| %s | %d | %d / %d | %.1f / %.1f | %s | %s | %s |" % (role, len(hs), len(paused), len(pausedb), mp, mpb,
        fnum(med(fbg)) if fbg else "-", fnum(med(fw)) if fw else "-", fnum(max(fw)) if fw else "-"))
w("")
core_paused = [p for p in ps if p["node_kind"] == "core" and int(p["pfc_pauses_received"]) > 0]
core_paused_b = [p for p in pb if p["node_kind"] == "core" and int(p["pfc_pauses_received"]) > 0]
inn = [float(r["fct_us"]) for r in fs.values() if 2000 <= int(r["flow_id"]) < 3000 and r["fct_us"]]
innb = [float(r["fct_us"]) for r in fb.values() if 2000 <= int(r["flow_id"]) < 3000 and r["fct_us"]]
far = [float(r["fct_us"]) for r in fs.values() if int(r["flow_id"]) >= 3000 and r["fct_us"]]
farb = [float(r["fct_us"]) for r in fb.values() if int(r["flow_id"]) >= 3000 and r["fct_us"]]
innh = [h for h in nics if hostclass(h) == "innocent sender"]
w("**What the counters prove.** The incast congests one port, ToR 0's downlink to host 0, and hosts send no")
w("PAUSE, yet PAUSEs were received at every tier above it: the aggregation downlinks into ToR 0, core ports")
w("(%d paused with the incast, %d without), the aggregation uplinks of pods 1..3, their ToR uplinks and host" % (len(core_paused), len(core_paused_b)))
w("NICs, each tier paused by the one below (the \"sent\" count of a tier matches the \"paused\" count of the")
mi = sum(float(nics[h]["pfc_paused_us"]) for h in innh) / len(innh)
mib = sum(float(nicsb[h]["pfc_paused_us"]) for h in innh) / len(innh)
w("tier feeding it). It reaches hosts that are not in the incast: %d of the %d innocent senders' NICs were" % (
    len([h for h in innh if int(nics[h]["pfc_pauses_received"]) > 0]), len(innh)))
w("paused, %.1f us on average over the group, against %d NICs and %.1f us from ECMP collisions without the" % (
    mi, len([h for h in innh if int(nicsb[h]["pfc_pauses_received"]) > 0]), mib))
w("incast. They send nothing to host 0, but their packets wait in the same")
w("paused ToR uplinks and aggregation ports as the incast's; their median FCT goes from %.1f us to %.1f us and" % (med(innb), med(inn)))
w("the slowest from %.1f to %.1f us. The storm follows the incast's paths: pods 4..7, whose far flows cross" % (max(innb), max(inn)))
w("the same cores, see the pauses of their own ECMP collisions, as without the incast, and the far flows'")
w("median FCT is %.1f us with the incast, %.1f us without." % (med(far), med(farb)))
w("")

# ---------------- 3 ----------------
fk, pk, sk, ek = rd("fail_known")
fm, pm, sm, em = rd("fail_mid")
fx, px, sx, ex = rd("slow_detect")
fy, py, sy, ey = rd("slow_nodetect")
w("## 3. Cyclic buffer dependency (deadlock) under failures")
w("")
w("A PFC deadlock needs a cycle of buffer dependencies: switch A's buffer waits on B's, ..., back to A.")
w("On a tree that takes a route going down and then up again (a valley), which is what rerouting around")
w("a failure does in fabrics with local fast reroute (F10; Hu et al., HotNets 2016; Guo et al., SIGCOMM 2016).")
w("spraysim's default routing cannot produce one: at every switch the candidate")
w("ports (`candidates()` in `src/topo/fabric.c`) are either all its up ports (destination not below it)")
w("or the down port toward the destination's ToR; after routing learns of a failure it only removes")
w("candidates that are down or from which the destination is no longer reachable going up then down")
w("(`reaches()`), and if none remains it hashes over the same up/down set. A packet thus climbs, turns once,")
w("and descends; buffer dependencies run up -> up, up -> down and down -> down only, never down -> up, so")
w("they cannot close a cycle (up*/down* routing is deadlock-free), whatever fails. `--reroute bounce` adds")
w("the valley: a switch left with no up-down way on sends the packet down to another lower switch that")
w("still reaches the destination, and that switch sends it up again (section 3b). That closes cycles.")
w("")
w("### 3a. Up-down rerouting: no deadlock")
w("")
failed = [("tor0", "agg0"), ("tor4", "agg5"), ("agg1", "core5"), ("agg8", "core0")]
carried = sum(int(p["tx_packets"]) for p in ps
              if (nm2(int(p["node"]), p["node_kind"]), nm2(int(p["peer"]), p["peer_kind"])) in failed + [(b, a) for a, b in failed])
w("The counters agree. The storm workload of section 2 with four inter-switch links on its paths down")
w("(`tor0-agg0`, `tor4-agg5`, `agg1-core5`, `agg8-core0`; without failures they carry %d packets):" % carried)
w("")
def hops(src, dst):
    if src // 4 == dst // 4: return 1
    if src // 16 == dst // 16: return 3
    return 5
def expected(flows):
    # every data packet and its ACK cross hops(src, dst) switch egress ports each
    return sum(2 * math.ceil(int(r["size_bytes"]) / 4086) * hops(int(r["src"]), int(r["dst"])) for r in flows.values())
def swtx(ports):
    return sum(int(p["tx_packets"]) for p in ports if p["node_kind"] != "host")
w("| run | flows finished | max FCT (us) | PAUSEs | drops (by down links) | retransmitted | switch egress transmissions | if every packet took a shortest up-down path | pfc.deadlock |")
w("|---|---|---|---|---|---|---|---|---|")
for label, f_, p_, s_ in (("no failure (`storm`)", fs, ps, ss), ("4 links down from t=0, known (`--detect-us 0`)", fk, pk, sk),
                          ("4 links down at 300 us, learned at 350 us (`--detect-us 50`)", fm, pm, sm)):
    w("| %s | %d of %d | %s | %d | %d (%d) | %d | %d | %d | %s |" % (label, s_["flows"]["finished"], s_["flows"]["total"],
        fnum(s_["flows"]["fct_max_us"]), s_["pfc"]["pauses"], s_["packets"]["drops"], s_["packets"]["failure_drops"],
        s_["packets"]["retransmits"], swtx(p_), expected(f_), str(s_["pfc"]["deadlock"]).lower()))
w("")
w("With the failures known from the start, the switches' transmissions equal exactly what shortest")
w("up-down paths need (a data packet or ACK between pods crosses 5 switch egress ports, within a pod 3):")
w("no packet took a detour, let alone a valley, and nothing deadlocked. With failures mid-run, the")
w("packets lost on the dead links are resent by go-back-N (hence more transmissions than the shortest-path")
w("count), yet pauses never freeze into a cycle.")
w("")
fb2, pb2, sb2, _ = rd("fail_known_bounce")
w("The same 4 failures known from the start with `--reroute bounce` change nothing: %d valleys, %d switch" % (
    sb2["reroute"]["valleys"], swtx(pb2)))
w("egress transmissions, max FCT %s us, `pfc.deadlock` %s. Every switch kept an up-down way on, so the" % (
    fnum(sb2["flows"]["fct_max_us"]), str(sb2["pfc"]["deadlock"]).lower()))
w("option, a last resort, never acted.")
w("")

# ---- 3b valleys ----
vruns = {n: rd(n) for n in ("valley_nofail", "valley_pfc", "valley_pfc_2000", "valley_pfc_20000", "valley_updown", "valley_lossy")}
vpaths = {k: rd("valley_path_%d" % k) for k in range(1, 9)}
fv, pv, sv, ev = vruns["valley_pfc"]
nmv = namer(pv)
def pname(p):
    return "%s->%s" % (nmv(int(p["node"]), p["node_kind"]), nmv(int(p["peer"]), p["peer_kind"]))
def flow_path(k):
    # the ports that carried at least flow k's bytes when it ran alone, in hop order
    f_, p_, s_, _ = vpaths[k]
    r = f_[k]
    size = int(r["size_bytes"])
    ports = [p for p in p_ if int(p["tx_bytes"]) >= size]
    node, hops_, names = int(r["src"]), [], []
    while node != int(r["dst"]) and len(hops_) < 10:
        nxt = [p for p in ports if int(p["node"]) == node]
        if len(nxt) != 1:
            break
        hops_.append(pname(nxt[0]))
        node = int(nxt[0]["peer"])
    return hops_
paths = {k: flow_path(k) for k in range(1, 9)}
cycle = sv["pfc"].get("deadlock_cycle", [])
w("### 3b. Valley rerouting (`--reroute bounce`): deadlock")
w("")
w("A leaf-spine of 4 ToRs (2 hosts each) and 2 spines, 100 Gb/s, 1 us links. Links `tor0-spine1` and")
w("`tor1-spine0` fail at 300 us; routing learns at 350 us (`--detect-us 50`). ToR 0 then reaches only")
w("spine 0, which has lost ToR 1, and ToR 1 only spine 1, which has lost ToR 0: up-down routing has no")
w("path between ToRs 0 and 1. With `--reroute bounce`, ToR 0 still sends up to spine 0 (from which one")
w("valley gets there), spine 0 sends the packet down to ToR 2 or 3 (hashed, as ECMP does), and that ToR")
w("climbs to spine 1, which delivers it; ToR 1's traffic does the mirror image through spine 1. Workload:")
w("8 MB each way between ToRs 0 and 1 (flows 1-4: hosts 0->2, 1->3, 2->0, 3->1) and between ToRs 2 and 3")
w("(flows 5-8: 4->6, 5->7, 6->4, 7->5), all from t = 0, RoCE with PFC, one path per connection.")
w("")
w("Each flow's data path once the failures are known (each flow run alone, the failures known from t = 0;")
w("a flow keeps its line of the matrix, so the ECMP hash gives it the same path as in the full workload):")
w("")
w("| flow | hosts | path | valley |")
w("|---|---|---|---|")
for k in range(1, 9):
    r = vpaths[k][0][k]
    hp = paths[k]
    valley = "-"
    for a, b in zip(hp, hp[1:]):
        if a.split("->")[0].startswith("spine") and b.split("->")[1].startswith("spine"):
            valley = "down into %s, up again" % a.split("->")[1]
    w("| %d | %s -> %s | %s | %s |" % (k, r["src"], r["dst"], " ".join("`%s`" % h for h in hp), valley))
w("")
def vrow(label, name):
    f_, p_, s_, _ = vruns[name]
    pf = s_.get("pfc")
    dl = "-" if not pf else ("**true**, since %.3f us" % pf["deadlock_since_us"] if pf["deadlock"] else "false")
    return "| %s | %.1f | %d of %d | %d | %s | %s | %d (%d) | %s |" % (label, s_["run"]["simulated_us"],
        s_["flows"]["finished"], s_["flows"]["total"], s_["packets"]["data_delivered"],
        s_["reroute"]["valleys"] if "reroute" in s_ else "-", pf["pauses"] if pf else "off",
        s_["packets"]["drops"], s_["packets"]["failure_drops"], dl)
w("| run | simulated (us) | flows finished | data packets delivered | valleys | PAUSEs | drops (by down links) | pfc.deadlock |")
w("|---|---|---|---|---|---|---|---|")
w(vrow("no failure, PFC (`valley_nofail`)", "valley_nofail"))
w(vrow("failures, `--reroute bounce`, PFC: the detector stops the run (`valley_pfc`)", "valley_pfc"))
w(vrow("same, detector off, `-end 2000`", "valley_pfc_2000"))
w(vrow("same, detector off, `-end 20000`", "valley_pfc_20000"))
w(vrow("failures, up-down routing (no `--reroute`), PFC (`valley_updown`)", "valley_updown"))
w(vrow("failures, `--reroute bounce`, lossy (`--pfc off`, `valley_lossy`)", "valley_lossy"))
w("")
w("The detector's report (stderr of `valley_pfc`):")
w("")
w("```")
for line in ev.strip().split("\n"):
    if "deadlock" in line:
        w(line)
w("```")
w("")
w("`summary.json` of `valley_pfc`: `\"pfc\": %s`" % json.dumps(sv["pfc"]))
w("")
byname = {pname(p): p for p in pv}
w("The cycle's ports in `valley_pfc` (`queues.csv`, at the stop), and which flows' data makes each wait on")
w("the next (the flows whose path crosses the port and then the next one):")
w("")
w("| port | tx packets | peak queue bytes | PAUSEs received | paused us | waits on | because of flows |")
w("|---|---|---|---|---|---|---|")
for i, c in enumerate(cycle):
    nxt = cycle[(i + 1) % len(cycle)]
    q = byname[c]
    via = [k for k in range(1, 9) if any(a == c and b == nxt for a, b in zip(paths[k], paths[k][1:]))]
    w("| `%s` | %s | %s | %s | %s | `%s` | %s |" % (c, q["tx_packets"], q["peak_bytes"], q["pfc_pauses_received"],
        fnum(q["pfc_paused_us"]), nxt, ", ".join(str(k) for k in via) or "-"))
w("")
def node_of(port, end):
    return port.split("->")[end]
chain = []
for i, c in enumerate(cycle):
    nxt = cycle[(i + 1) % len(cycle)]
    via = [k for k in range(1, 9) if any(a == c and b == nxt for a, b in zip(paths[k], paths[k][1:]))]
    chain.append("%s holds %s's packets that came from %s and wait for `%s`" % (node_of(c, 1),
        "flow " + str(via[0]) if len(via) == 1 else "flows " + ", ".join(str(k) for k in via), node_of(c, 0), nxt))
w("Read as buffers: " + "; ".join(chain) + ", the first port of the ring. Each wait is")
w("a PAUSE: a switch pauses the link its held packets came over while its count for that link is above")
w("XOFF (HIGH), and resumes it only once the count falls to XON (LOW), which needs the next port of the ring")
w("to move.")
w("")
d2, d20 = vruns["valley_pfc_2000"][2], vruns["valley_pfc_20000"][2]
w("**What the counters prove.** The four ports form a ring, spine -> ToR -> other spine -> other ToR ->")
w("back, and each is paused by the switch it feeds while that switch holds data which came over it and")
w("waits for the next port of the ring, which is paused too. The two ToR -> spine hops of the ring are")
w("the valleys' climbs: a packet that came down from one spine goes back up to the other, a down -> up")
w("dependency up-down routing never makes. The two spine -> ToR hops carry the valleys' descents and the")
w("ToR 2 <-> ToR 3 flows, which share those links. With every link of the ring oversubscribed, each")
w("switch's ingress count for the ring link never falls to XON, no PAUSE is ever lifted, and nothing on")
w("the ring can move: no PAUSE or RESUME after %.3f us, and the detector reports it %d us later." % (
    sv["pfc"]["deadlock_since_us"], round(sv["run"]["simulated_us"] - sv["pfc"]["deadlock_since_us"])))
w("Throughput stops with it: with the detector off the fabric has delivered %d data packets at 2000 us" % d2["packets"]["data_delivered"])
w("and %d at 20000 us (%d when the detector stopped the run at %.1f us); flows finished: %d of 8." % (
    d20["packets"]["data_delivered"], sv["packets"]["data_delivered"], sv["run"]["simulated_us"], d20["flows"]["finished"]))
# delivered bytes per flow over time (ts_flows.csv of valley_pfc_2000; a finished flow has no more rows)
ts = {}
with open(os.path.join(work, "valley_pfc_2000", "ts_flows.csv")) as f:
    for r in csv.DictReader(f):
        ts[(round(float(r["time_us"])), int(r["flow_id"]))] = int(r["delivered_bytes"])
f2k = vruns["valley_pfc_2000"][0]
w("")
w("Delivered MB per flow over time with the detector off (`--ts-flows all --ts-interval 100` on the")
w("`-end 2000` run, `ts_flows.csv`; \"done\" once the flow has finished):")
w("")
times = [200, 300, 400, 500, 600, 700, 800, 1000, 1500, 2000]
w("| flow | " + " | ".join("%d us" % t for t in times) + " |")
w("|---|" + "---|" * len(times))
for k in range(1, 9):
    cells = []
    for t in times:
        v = ts.get((t, k))
        fin = f2k[k]["finish_us"]
        cells.append("%.2f" % (v / 1e6) if v is not None else ("done" if fin and float(fin) <= t else "-"))
    w("| %d | %s |" % (k, " | ".join(cells)))
fin5 = [k for k in range(1, 9) if f2k[k]["finish_us"]]
w("")
stuck = [k for k in range(1, 9) if not f2k[k]["finish_us"]]
last_move = max(max([t for t in range(0, 2001, 100) if (t, k) in ts and ts[(t, k)] != ts[(2000, k)]] + [0]) + 100
                for k in stuck)
ring_flows = sorted(k for k in range(1, 9) if set(paths[k]) & set(cycle))
others = [k for k in stuck if k not in ring_flows]
def paused_on(k):
    # ports of its path paused for at least the whole deadlock (from its start to the stop)
    frozen = sv["run"]["simulated_us"] - sv["pfc"]["deadlock_since_us"]
    return [h for h in paths[k] if h in byname and byname[h]["node_kind"] != "host" and float(byname[h]["pfc_paused_us"]) >= frozen]
pp_ = sorted(set(h for k in others for h in paused_on(k)))
w("Flows %s cross the ring. %s %s not, but %s behind ring traffic in paused switch ports shared with it (%s, paused" % (
    ", ".join(str(k) for k in ring_flows), "Flows " + " and ".join(str(k) for k in others) if len(others) > 1 else
    "Flow %s" % others[0] if others else "No other flow", "do" if len(others) != 1 else "does",
    "wait" if len(others) != 1 else "waits", ", ".join("`%s`" % h for h in pp_)))
w("from the deadlock's start to the stop): head-of-line blocking, as in section 1. The unfinished flows (%s) deliver nothing after %d us (the last" % (
    ", ".join(str(k) for k in stuck), last_move))
w("100 us sample at which any of them still grew, up to 2000 us).")
w("%s, whose path (`%s`) crosses none of the ring's ports and none of those paused, finishes at %s us. From then on" % (
    ", ".join("Flow %d" % k for k in fin5), " ".join(paths[fin5[0]]) if fin5 else "-",
    ", ".join(fnum(f2k[k]["finish_us"]) for k in fin5)))
w("the fabric delivers nothing at all.")
w("")
su, sl = vruns["valley_updown"][2], vruns["valley_lossy"][2]
w("The same failures with up-down routing deadlock nothing (`pfc.deadlock` %s), but ToRs 0 and 1 are cut" % str(su["pfc"]["deadlock"]).lower())
fu = vruns["valley_updown"][0]
w("apart: flows %s never finish (%d of 8 finish; %d packets die on the dead links). Without PFC the" % (
    ", ".join(str(k) for k in sorted(fu) if not fu[k]["fct_us"]), su["flows"]["finished"], su["packets"]["failure_drops"]))
w("valleys deliver everything (%d of 8 finish; %d drops from full queues, %d on the dead links before routing" % (
    sl["flows"]["finished"], sl["packets"]["drops"] - sl["packets"]["failure_drops"], sl["packets"]["failure_drops"]))
w("learnt; no pause to freeze). The cycle")
w("needs both the valley, which makes a down -> up dependency, and PFC, which turns a full buffer into a")
w("wait instead of a drop. This is the trade the papers describe: valley rerouting restores connectivity")
w("that up-down routing loses, and under PFC it can lock the fabric.")
w("")
w("**At scale.** htsim's 128-host permutation (`perm_128n_128c_2MB.cm`, 2 MB per host, default k = 8 tree)")
w("with seed 004's random failures (`--random-failures P`: each of the 256 inter-switch links down from")
w("t = 0 with probability P, known at once), RoCE with PFC, one path per connection:")
w("")
w("| P | links down | up-down: flows finished | `--reroute bounce`: flows finished | valleys | pfc.deadlock with `--reroute bounce` (up-down: never) |")
w("|---|---|---|---|---|---|")
assert not any(rd("rand_%s_updown" % pr)[2]["pfc"]["deadlock"] for pr in ("0.1", "0.2", "0.3", "0.4"))
for pr in ("0.1", "0.2", "0.3", "0.4"):
    _, _, a_, _ = rd("rand_%s_updown" % pr)
    _, _, b_, _ = rd("rand_%s_bounce" % pr)
    pf = b_["pfc"]
    w("| %s | %d | %d of %d | %d of %d | %d | %s |" % (pr, b_["network"]["random_failed_links"], a_["flows"]["finished"],
        a_["flows"]["total"], b_["flows"]["finished"], b_["flows"]["total"], b_["reroute"]["valleys"],
        ("**true**: a cycle of %d ports since %.1f us" % (pf["deadlock_cycle_ports"], pf["deadlock_since_us"])) if pf["deadlock"]
        else "false"))
_, _, c_, _ = rd("rand_0.4_bounce_lossy")
_, _, a4, _ = rd("rand_0.4_updown")
w("")
R = {pr: (rd("rand_%s_updown" % pr)[2], rd("rand_%s_bounce" % pr)[2]) for pr in ("0.1", "0.2", "0.3", "0.4")}
def ftext(name):
    with open(os.path.join(work, name, "flows.csv")) as f:
        return f.read()
same01 = ftext("rand_0.1_updown") == ftext("rand_0.1_bounce")
tiers4 = sorted(set("".join(c for c in end if not c.isdigit()) for port in R["0.4"][1]["pfc"].get("deadlock_cycle", [])
                    for end in port.split("->")))
w("At P = 0.1 no switch on the workload's paths runs out of up-down ways, so the option never acts (%d valleys; flows.csv %s)." % (
    R["0.1"][1]["reroute"]["valleys"], "byte-identical to up-down routing's" if same01 else "differs from up-down routing's"))
w("At P = 0.2 and 0.3 up-down routing strands the flows whose ToRs it can no longer join")
w("(%d and %d unfinished: RoCE retries them on dead links until the end), and valleys deliver every flow" % (
    R["0.2"][0]["flows"]["unfinished"], R["0.3"][0]["flows"]["unfinished"]))
w("without a deadlock. At P = 0.4 the valleys close a cycle of %d ports (through %s switches) and the" % (
    R["0.4"][1]["pfc"].get("deadlock_cycle_ports", 0), ", ".join(t for t in tiers4)))
w("fabric locks: %d flows finish, against %d with up-down routing (no deadlock). Without PFC the same valleys" % (
    R["0.4"][1]["flows"]["finished"], R["0.4"][0]["flows"]["finished"]))
w("finish %d of %d flows (%d drops)." % (c_["flows"]["finished"], c_["flows"]["total"], c_["packets"]["drops"]))
w("")
w("### 3c. The detector on a slow fabric")
w("")
w("The detector (`src/net/pfc.c`) reports a deadlock when no PAUSE or")
w("RESUME happened anywhere for `--pfc-deadlock-us` and its wait-for graph has a cycle: a paused port waits")
w("on the paused ports of the next switch that hold data which came over the paused port's own link. Two")
w("flows crossing inside pod 0, host 2 -> host 0 and host 1 -> host 3, with the links of hosts 0 and 3")
w("degraded to 0.5 Gb/s (`--fail \"link host0 tor0 rate 0.5\"`): the ToRs and the aggregation switch between")
w("them pause each other's ports while both hold data, and at one packet per 66 us at the slow links the")
w("pause state stays unchanged for over 500 us. Before this report was written the graph let a paused port")
w("wait on any paused port holding any data, and the detector stopped this run at 522.6 us with a false")
w("\"cycle of 3 paused ports\" (the 3 was also wrong: it counted the search's depth from host 1's NIC, not")
w("the cycle's length). Both are fixed, with regression tests in tests/test_roce.c; the run now goes on:")
w("")
w("`summary.json` of `slow_detect`: `\"pfc\": %s`" % json.dumps(sx["pfc"]))
w("")
w("| run | simulated (us) | flows finished | FCTs (us) | retransmitted | PAUSEs | paused port-us |")
w("|---|---|---|---|---|---|---|")
for label, f_, s_ in (("default detector (500 us)", fx, sx), ("detector off (`--pfc-deadlock-us 1000000000`)", fy, sy)):
    w("| %s | %.3f | %d of %d | %s | %d | %d | %.0f |" % (label, s_["run"]["simulated_us"], s_["flows"]["finished"], s_["flows"]["total"],
        ", ".join(fnum(r["fct_us"]) for r in f_.values()), s_["packets"]["retransmits"], s_["pfc"]["pauses"],
        sum(float(p["pfc_paused_us"]) for p in (py if f_ is fy else px))))
w("")
w("Both runs are identical: the detector no longer mistakes a slow fabric for a deadlock. A true cycle")
w("(each port of a pair holding data that came over the other's link, both paused) is still reported")
w("within `--pfc-deadlock-us`: the unit tests in tests/test_roce.c build one by hand, and section 3b's fabric")
w("builds one with valley rerouting (tests/cli_test.sh checks that the detector names its four ports).")
w("")
w("## Commands")
w("")
w("Matrices and `ls4x2.topo` are written by the script (see its comments), except `perm128.cm`, a copy of")
w("`../shared/data/htsim/matrices/perm_128n_128c_2MB.cm`; run names are the `--out` directories.")
w("")
w("```")
L.extend(commands.rstrip("\n").split("\n"))
w("```")
with open(out, "w") as f:
    f.write("\n".join(L) + "\n")
PYEOF
rc=$?
[ $rc = 0 ] || { echo "pfc_pathologies.sh: report failed" >&2; exit 1; }
echo "wrote $OUT" >&2
