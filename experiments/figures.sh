#!/bin/sh
# make figures: every sweep file experiments/*.toml is run from scratch
# (its results directory build/sweeps/NAME is deleted first) and its HTML
# report written to experiments/reports/NAME.html; then
# experiments/reports/index.html links them all. Prints each sweep's wall
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
# the index: one line per report, its title and its verdicts
$PY - experiments/*.toml <<'PYEOF'
import html, os, re, sys, tomllib
rows = []
for f in sorted(sys.argv[1:]):
    name = os.path.basename(f)[:-5]
    rep = f"experiments/reports/{name}.html"
    if not os.path.exists(rep):
        continue
    with open(f, "rb") as fh:
        title = tomllib.load(fh).get("sweep", {}).get("title", name)
    text = open(rep).read()
    ok = len(re.findall(r'Verdict: <span class="agrees"', text))
    bad = len(re.findall(r'Verdict: <span class="disagrees"', text))
    noisy = len(re.findall(r'Verdict: <span class="open"', text))
    rows.append(f'<tr><td><a href="{name}.html">{html.escape(title)}</a></td><td>{ok}</td><td>{bad}</td><td>{noisy}</td></tr>')
page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>spraysim reports</title>"
        "<style>body{font-family:sans-serif;max-width:900px;margin:2em auto}td,th{border:1px solid #ccc;padding:3px 8px}"
        "table{border-collapse:collapse}</style></head><body><h1>spraysim experiment reports</h1>"
        "<p>Written by <code>make figures</code>; each report is self-contained.</p><table><tr><th>report</th>"
        "<th>claims agreeing</th><th>disagreeing</th><th>within noise or open</th></tr>" + "".join(rows) + "</table></body></html>\n")
open("experiments/reports/index.html", "w").write(page)
PYEOF
echo "figures: all done in $(( $(date +%s) - t0 )) s (JOBS=$JOBS); index: experiments/reports/index.html"
exit $status
