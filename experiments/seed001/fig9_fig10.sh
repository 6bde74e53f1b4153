#!/bin/sh
# Seed 001 (SIRD) Sec. 6, Fig. 9 and Fig. 10 in simulation, on seed 001's
# balanced 144-host network (experiments/sird_balanced_144.topo, MTU 1500,
# infinite buffers, --lb random):
#   Fig. 9  a 6-to-1 incast of 10 MB messages, credit pacing on and off: the
#           receiver's downlink queue (peak and time average over the run).
#           Senders in the receiver's rack (hosts 1-6 -> 0, as the paper's one-ToR
#           testbed) and in other racks (hosts 16, 32, ..., 96 -> 0).
#   Fig. 10 the congested sender: host 0 sends 20 MB to each of hosts 16-19
#           (rack 1), hosts 32-35 (rack 2) one 20 MB message each to 16-19;
#           the payload delivered to 16-19 in [100, 500) us (two runs, -end 100
#           and -end 500, differenced) over 4 x 100 Gb/s; SThr = inf and
#           0.5 BDP, with the SIRD BDP the path's (bdp=auto, sird.md Sec. 1.6),
#           under round robin at receivers and the whole uplink fair-shared
#           (the paper's testbed policy, sird.md Sec. 1.6) and under the defaults.
# Writes experiments/seed001/results/fig9_fig10.txt; about 1 minute.
set -u
cd "$(dirname "$0")/../.." || exit 1
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
R=${RUNS:-experiments/seed001/results/fig9_fig10}
OUT=experiments/seed001/results/fig9_fig10.txt
mkdir -p "$R"
NET="-topo experiments/sird_balanced_144.topo -mtu 1500 -q inf --no-progress --transport sird --lb random"
{
printf 'Nodes 144\nConnections 6\n' >"$R/in_rack.cm"
for s in 1 2 3 4 5 6; do echo "$s->0 start 0 size 10000000" >>"$R/in_rack.cm"; done
printf 'Nodes 144\nConnections 6\n' >"$R/cross.cm"
for s in 16 32 48 64 80 96; do echo "$s->0 start 0 size 10000000" >>"$R/cross.cm"; done
echo "# Fig. 9: 6 x 10 MB into host 0; downlink tor0 -> host 0 over the run (-end 2000 us)"
echo "senders  pacing  peak_bytes  mean_bytes  peak_pkts  mean_pkts  downlink_util"
for cm in in_rack cross; do for pc in 1 0; do
    d=$R/fig9_${cm}_p$pc
    rm -rf "$d"
    $SPRAYSIM $NET -tm "$R/$cm.cm" -end 2000 --sird-opt pacing=$pc --out "$d" >"$d.stdout" 2>&1
    # the ToR's port facing host 0: node 144, peer 0, direction down
    awk -F, -v c=$cm -v p=$pc '$2==144 && $4==0 && $6=="down" {
        printf "%-8s %-7s %-11s %-11.0f %-10.1f %-10.2f %.3f\n", c, p, $11, $12, $11/1500, $12/1500, $10*8/2000e-6/100e9 }' "$d/queues.csv"
done; done
echo
echo "# Fig. 10: payload to hosts 16-19 in [100, 500) us / (4 x 100 Gb/s) (tx bytes of their downlinks x 1436/1500)"
printf 'Nodes 144\nConnections 8\n' >"$R/fig10.cm"
for r in 16 17 18 19; do echo "0->$r start 0 size 20000000" >>"$R/fig10.cm"; done
for r in 16 17 18 19; do echo "$((r + 16))->$r start 0 size 20000000" >>"$R/fig10.cm"; done
echo "policy            sthr  utilisation  congested_sender_share"
for pol in rr default; do for s in inf 0.5; do
    po="--sird-opt bdp=auto --sird-opt sthr=$s"
    [ $pol = rr ] && po="$po --sird-opt rx_policy=rr --sird-opt tx_fair_share=1"
    for e in 100 500; do
        d=$R/fig10_${pol}_${s}_$e
        rm -rf "$d"
        $SPRAYSIM $NET -tm "$R/fig10.cm" -end $e $po --out "$d" >"$d.stdout" 2>&1
    done
    # tx bytes of tor1's ports to hosts 16-19; host 0's uplink for its share
    awk -F, -v pol=$pol -v s=$s '
        FNR == 1 { f++ }
        $2==145 && $4>=16 && $4<=19 && $6=="down" { b[f] += $10 }
        $2==0 && $6=="up" { u[f] = $10 }
        END { util = (b[2] - b[1]) * 1436 / 1500 * 8 / 400e-6 / 400e9
              share = (u[2] - u[1]) / (b[2] - b[1])
              printf "%-17s %-5s %-12.3f %.3f\n", pol, s, util, share }' \
        "$R/fig10_${pol}_${s}_100/queues.csv" "$R/fig10_${pol}_${s}_500/queues.csv"
done; done
} >"$OUT"
cat "$OUT"
