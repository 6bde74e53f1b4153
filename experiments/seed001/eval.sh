#!/bin/sh
# Seed 001 (SIRD) Sec. 5.2-5.4, Fig. 4, 5, 6, 11, 12: SIRD, Homa, DCTCP, Swift
# and NSCC in the nine scenarios (balanced, core, incast x WKa, WKb, WKc)
# over a load sweep. Presets: experiments/seed001/common.sh.
#
#   sh experiments/seed001/eval.sh                 (from the project root)
#   LOADS="0.5" SCENS=balanced WKS=wkb sh experiments/seed001/eval.sh
#
# Runs go to $RUNS/<scenario>_<wk>_<proto>_<load>/stdout (default
# experiments/seed001/results/eval); a run whose stdout exists is not run
# again. Two at a time (xargs -P 2: the machine has 2 cores). Then
# experiments/seed001/eval_report.py writes eval.md's tables and figures.
# The same runs as a sweep, with the paper's statements as verdicts:
# experiments/seed001/seed001_eval.toml (and its 30-run reduced form,
# experiments/seed001_eval50.toml, in make figures); this script stays
# because eval_report.py reads its results/eval/*/stdout.
set -u
cd "$(dirname "$0")/../.." || exit 1
RUNS=${RUNS:-experiments/seed001/results/eval}
LOADS=${LOADS:-"0.25 0.5 0.7 0.9"}
SCENS=${SCENS:-"balanced core incast"}
WKS=${WKS:-"wkb wkc wka"}
PROTOS=${PROTOS:-"sird homa dctcp swift nscc"}
JOBS=${JOBS:-2}
mkdir -p "$RUNS"
list=$RUNS/.jobs
: >"$list"
for sc in $SCENS; do for wk in $WKS; do for l in $LOADS; do for p in $PROTOS; do
    d=$RUNS/${sc}_${wk}_${p}_$l
    [ -s "$d/stdout" ] || echo "$d $p $sc $wk $l" >>"$list"
done; done; done; done
echo "eval.sh: $(wc -l <"$list") runs to do, $JOBS at a time" >&2
start=$(date +%s)
xargs -P "$JOBS" -L 1 sh -c '. experiments/seed001/common.sh; s1_run "$@"' sh <"$list"
echo "eval.sh: done in $(($(date +%s) - start)) s" >&2
