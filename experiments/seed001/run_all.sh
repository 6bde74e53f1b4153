#!/bin/sh
# Everything experiments/seed001 measures, most important first (2 runs at a
# time): the load sweeps of WKb and WKc in the three configurations, the
# Sec. 5.5 studies, then WKa's sweeps (the slowest: 7-13 M messages/s per
# host), the longer windows, Fig. 9/10 and the idle-network latencies (two
# sweeps, whose reports go to experiments/reports/), the
# invariants under the checked binary (when `make asan` has built it), the
# speed comparison, and the reports. About 50 minutes on the 2 shared cores.
set -u
cd "$(dirname "$0")/../.." || exit 1
t0=$(date +%s)
WKS="wkb wkc" sh experiments/seed001/eval.sh
STUDIES="fig7 fig3 unsch prio priosat pace bslow step wkbc" sh experiments/seed001/sens.sh
WKS=wka sh experiments/seed001/eval.sh
STUDIES="long longrd sat sat50" sh experiments/seed001/sens.sh
SWEEPS="seed001_fig9_fig10 seed001_idle" sh experiments/figures.sh >/dev/null
if [ -x build-asan/spraysim ]; then sh experiments/seed001/invariants.sh >/dev/null; fi
sh experiments/seed001/speed.sh >/dev/null
/usr/bin/python3 experiments/seed001/eval_report.py
/usr/bin/python3 experiments/seed001/sens_report.py
echo "run_all.sh: $(($(date +%s) - t0)) s" >&2
