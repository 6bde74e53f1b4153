#!/bin/sh
# Converts one of HomaSim's message-size files (PlatformLab/HomaSimulation,
# RpcTransportDesign/OMNeT++Simulation/homatransport/sizeDistributions/) to
# spraysim's CDF format (one "SIZE_BYTES PROBABILITY" pair a line, '#'
# comments). HomaSim's file: a first line holding the distribution's mean,
# then "SIZE CUMULATIVE_PROBABILITY" lines that HomaSim samples as a step
# function (MsgSizeDistributions::getInterarrivalSizeFromVec: the first size
# whose probability reaches the draw), so the converted file is meant for
# `sampling=step`. DCTCP_MsgSizeDist.txt counts sizes in packets, which
# HomaSim multiplies by maxDataBytesPerPkt; PKT_BYTES (default 1, bytes)
# does the same here (1442 for that file: 1500 - 20 IP - 8 UDP - 30 Homa
# header, specs/sird.md Sec. 2.2).
#   sh data/workloads/homasim_convert.sh IN [PKT_BYTES] > OUT.cdf
set -eu
in=$1
pkt=${2:-1}
awk -v pkt="$pkt" -v src="$in" '
NR == 1 { printf "# converted from %s by data/workloads/homasim_convert.sh (sizes x %s)\n", src, pkt
          printf "# HomaSim header mean: %s (x %s = %.1f B); sample with sampling=step\n", $1, pkt, $1 * pkt; next }
NF == 0 { next }
NF != 2 { printf "%s:%d: expected SIZE PROBABILITY\n", src, NR > "/dev/stderr"; exit 2 }
{ printf "%d %s\n", $1 * pkt, $2 }' "$in"
