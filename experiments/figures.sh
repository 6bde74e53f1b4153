#!/bin/sh
# make figures: every sweep file experiments/*.toml is run from scratch
# (its results directory build/sweeps/NAME is deleted first) and its HTML
# report written to experiments/reports/NAME.html; then
# experiments/reports/index.html links them all and shows which sweep
# reproduces each seed figure (experiments/coverage.tsv). Prints each sweep's wall
# time and the total. SWEEPS="a b" runs only those; JOBS sets the parallel
# runs (default: the CPU count); REPORT_ONLY=1 rewrites the reports from the
# existing results in build/sweeps without running anything.
set -u
cd "$(dirname "$0")/.." || exit 1
PY=/usr/bin/python3
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ -n "${SWEEPS:-}" ]; then
    files=$(for s in $SWEEPS; do echo "experiments/$s.toml"; done)
else
    files=$(ls experiments/*.toml)
fi
mkdir -p experiments/reports
status=0
t0=$(date +%s)
for f in $files; do
    name=$(basename "$f" .toml)
    s0=$(date +%s)
    if { [ -n "${REPORT_ONLY:-}" ] || $PY tools/sweep run "$f" --fresh --out "build/sweeps/$name" -j "$JOBS" --quiet; } &&
       $PY tools/sweep report "$f" --out "build/sweeps/$name" --html "experiments/reports/$name.html" >/dev/null; then
        echo "figures: $name: $(( $(date +%s) - s0 )) s -> experiments/reports/$name.html"
    else
        echo "figures: $name failed" >&2
        status=1
    fi
done
# the index: one line per report (title, verdicts), then the figure
# coverage table from experiments/coverage.tsv (tools/sweeplib/index.py);
# a coverage table out of step with the sweep files fails the run
$PY tools/sweep index experiments >/dev/null || status=1
echo "figures: all done in $(( $(date +%s) - t0 )) s (JOBS=$JOBS); index: experiments/reports/index.html"
exit $status
