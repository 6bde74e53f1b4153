#!/bin/sh
# Seed 001 (SIRD) Sec. 5.5 and Sec. 6 sensitivity studies, on the presets of
# experiments/seed001/common.sh (WKc balanced unless said), most important first:
#   fig7   max goodput and queuing vs B for SThr = 0.5 BDP and inf, 95% offered
#   fig3   Homa's overcommitment k at the same offered load (against fig7's SIRD)
#   unsch  UnschT at 50% (Fig. 8 left), and UnschT 4 vs 16 BDP in the incast configuration
#   prio   no priorities / control only / control + unscheduled at 50% (Fig. 8 right)
#   priosat the same at 95% (goodput: Fig. 8 right's +2%)
#   pace   credit pacing off, at 50% and 95% (P Sec. 4.5)
#   bslow  B at 50%: Fig. 7's slowdowns (SThr 0.5 BDP)
#   step   WKc sampled as HomaSim does (sampling=step: mean 2.43 MB, no sub-MSS messages)
#   wkbc   WKb balanced 50%: the SIRD AIMD constants behind its group C tail
#   long   WKb balanced, the main comparison with a 10 ms window
#   sat    fig7/fig3 with an 18 ms window at 85% and 95% (is 6 ms enough?)
#   sat50  SIRD and Homa at 95% with 48 ms measured
#   longrd SIRD and Homa, the other five WKb/WKc scenarios with long's window
# (Fig. 9 pacing and Fig. 10, the congested sender, are the sweep
# experiments/seed001_fig9_fig10.toml.) The same 84 runs as a sweep, with the
# paper's statements as verdicts: experiments/seed001/seed001_sens.toml; this
# script stays because sens_report.py reads its results/sens/*/stdout.
#
#   sh experiments/seed001/sens.sh            STUDIES="fig7 fig3" sh experiments/seed001/sens.sh
# Runs go to $RUNS/<study>_<variant>/stdout (default
# experiments/seed001/results/sens); existing ones are kept. Two at a time.
set -u
cd "$(dirname "$0")/../.." || exit 1
RUNS=${RUNS:-experiments/seed001/results/sens}
STUDIES=${STUDIES:-"fig7 fig3 unsch prio priosat pace bslow step wkbc long longrd sat sat50"}
JOBS=${JOBS:-2}
mkdir -p "$RUNS"
list=$RUNS/.jobs
: >"$list"
add() { # NAME ENV PROTO SCEN WK LOAD [flags]
    n=$1; shift
    [ -s "$RUNS/$n/stdout" ] || echo "$RUNS/$n $*" >>"$list"
}
# saturation runs: 6 ms measured after 2 ms, no drain (goodput and queues only)
SAT="S1_WARM_US=2000,S1_STOP_US=8000,S1_END_US=8000"
for st in $STUDIES; do
    case $st in
    fig7)
        for b in 1.25 1.5 2 3; do for s in 0.5 inf; do
            add "fig7_B${b}_sthr$s" "$SAT" sird balanced wkc 0.95 --sird-opt B=$b --sird-opt sthr=$s
        done; done ;;
    fig3)
        for k in 1 2 4 7; do add "fig3_homa_k$k" "$SAT" homa balanced wkc 0.95 --homa-opt k=$k; done ;;
    unsch)
        for u in 0.25 0.5 2 4; do add "unsch_$u" - sird balanced wkc 0.5 --sird-opt unscht=$u; done
        for u in 4 16; do add "unsch_incast_$u" - sird incast wkc 0.5 --sird-opt unscht=$u; done ;;
    prio)
        for p in none ctl; do add "prio_$p" - sird balanced wkc 0.5 --sird-opt prio=$p; done ;;
    priosat)
        for p in none ctl; do add "priosat_$p" "$SAT" sird balanced wkc 0.95 --sird-opt prio=$p; done ;;
    pace)
        add pace_off - sird balanced wkc 0.5 --sird-opt pacing=0
        add pacesat_off "$SAT" sird balanced wkc 0.95 --sird-opt pacing=0 ;;
    bslow)
        for b in 1.25 2 3; do add "bslow_B$b" - sird balanced wkc 0.5 --sird-opt B=$b; done ;;
    step)
        for p in sird homa; do add "step_$p" S1_SAMPLING=step $p balanced wkc 0.5; done ;;
    wkbc)
        add wkbc_alpha0_0 - sird balanced wkb 0.5 --sird-opt alpha0=0
        add wkbc_sthr_inf - sird balanced wkb 0.5 --sird-opt sthr=inf ;;
    sat)
        # is fig7's 6 ms window long enough? SIRD (both SThr) and Homa k = 7,
        # 18 ms measured, at 85% and 95%
        for l in 0.85 0.95; do
            for s in 0.5 inf; do add "sat_sird_sthr${s}_$l" "S1_WARM_US=2000,S1_STOP_US=20000,S1_END_US=20000" sird balanced wkc $l --sird-opt sthr=$s; done
            add "sat_homa_$l" "S1_WARM_US=2000,S1_STOP_US=20000,S1_END_US=20000" homa balanced wkc $l
        done ;;
    sat50)
        # longer still: 48 ms measured at 95%, SIRD and Homa
        add sat50_sird "S1_WARM_US=2000,S1_STOP_US=50000,S1_END_US=50000" sird balanced wkc 0.95
        add sat50_homa "S1_WARM_US=2000,S1_STOP_US=50000,S1_END_US=50000" homa balanced wkc 0.95 ;;
    longrd)
        # SIRD and Homa in the six WKb/WKc scenarios, 10 ms measured: the
        # Homa/SIRD queuing ratio with longer windows
        for sc in balanced core incast; do for wk in wkb wkc; do for l in 0.5 0.7 0.9; do for p in sird homa; do
            [ $sc = balanced ] && [ $wk = wkb ] && continue # = "long"
            add "longrd_${sc}_${wk}_${p}_$l" "S1_WARM_US=3000,S1_STOP_US=13000,S1_END_US=16000" $p $sc $wk $l
        done; done; done; done ;;
    long)
        for l in 0.5 0.7 0.9; do for p in sird homa dctcp swift nscc; do
            add "long_${p}_$l" "S1_WARM_US=3000,S1_STOP_US=13000,S1_END_US=16000" $p balanced wkb $l
        done; done ;;
    *) echo "sens.sh: unknown study $st" >&2; exit 2 ;;
    esac
done
echo "sens.sh: $(wc -l <"$list") runs to do, $JOBS at a time" >&2
start=$(date +%s)
# each line: DIR ENV PROTO SCEN WK LOAD [flags]; ENV "-" or VAR=V,VAR=V
[ -n "${DRY:-}" ] && { cat "$list"; exit 0; }
xargs -P "$JOBS" -L 1 sh -c 'd=$1; e=$2; shift 2; [ "$e" = - ] || eval "export $(echo "$e" | tr , " ")"; . experiments/seed001/common.sh; s1_run "$d" "$@"' sh <"$list"
echo "sens.sh: done in $(($(date +%s) - start)) s" >&2
