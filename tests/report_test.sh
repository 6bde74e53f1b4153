#!/bin/sh
# make test-report: a 2-point sweep, its HTML report, one run's page and the
# same run with time-series files (the plotting hook), each
# rendered by headless Chromium (Debian's) with the network off; checks that
# the HTML is self-contained (no external src or href) and that the
# screenshot is not blank (enough non-white pixels and colours). Prints one
# "ok NAME" / "FAIL NAME" line per check, then "N passed, N failed".
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
PY=/usr/bin/python3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0 failed=0
ok() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

SPRAYSIM=$SPRAYSIM $PY tools/sweep run tests/sweep/tiny.toml --out "$tmp/out" --quiet --report \
    && [ -s "$tmp/out/report.html" ] && ok sweep_report_written || fail sweep_report_written
run=$(ls -d "$tmp"/out/runs/* | head -1)
$PY tools/sweep report-run "$run" --html "$tmp/run.html" >/dev/null \
    && [ -s "$tmp/run.html" ] && ok run_report_written || fail run_report_written

# the time-series hook: a run directory with ts_flows.csv / ts_ports.csv in
# the capture's format gets one more figure per file
cp -r "$run" "$tmp/tsrun"
printf 'time_us,flow_id,cwnd_bytes,rate_gbps,rtt_us,delivered_bytes,in_flight_bytes\n0.000000,1,175284,100.000,14.023,0,175284\n14.023000,1,180000,99.000,15.000,175284,180000\n28.046000,1,185000,98.000,16.000,350568,185000\n' >"$tmp/tsrun/ts_flows.csv"
printf 'time_us,port,data_bytes,ctl_bytes,tx_bytes,ecn_marks,trims,drops\n0.000000,20,0,0,0,0,0,0\n14.023000,20,8300,64,20750,0,0,0\n' >"$tmp/tsrun/ts_ports.csv"
$PY tools/sweep report-run "$tmp/tsrun" --html "$tmp/tsrun.html" >/dev/null
n0=$(grep -o '<img' "$tmp/run.html" | wc -l)
n1=$(grep -o '<img' "$tmp/tsrun.html" | wc -l)
[ "$n1" -eq $((n0 + 2)) ] && ok timeseries_hook || { fail timeseries_hook; echo "  $n0 figures without, $n1 with two time-series files"; }

for page in "$tmp/out/report.html" "$tmp/run.html" "$tmp/tsrun.html"; do
    name=$(basename "$page" .html)
    # self-contained: every src/href is inline data or a same-page anchor
    if grep -Eio '(src|href)="[^"#d][^"]*"' "$page" | grep -v '^src="data:' | grep -q .; then
        fail "${name}_self_contained"
    else
        ok "${name}_self_contained"
    fi
    rm -f "$tmp/shot.png"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --proxy-server=127.0.0.1:9 --window-size=1200,1800 --hide-scrollbars \
        --screenshot="$tmp/shot.png" "file://$page" >"$tmp/chromium.log" 2>&1
    if [ ! -s "$tmp/shot.png" ]; then
        fail "${name}_renders"; tail -3 "$tmp/chromium.log"; continue
    fi
    # not blank: >= 3% of pixels not white and >= 50 distinct colours (the
    # figures), not just the text
    if $PY - "$tmp/shot.png" <<'PYEOF'
import sys
import matplotlib.image as mpimg
import numpy as np
img = mpimg.imread(sys.argv[1])[:, :, :3]
nonwhite = (img < 0.97).any(axis=2).mean()
colours = len(np.unique((img * 255).astype(np.uint8).reshape(-1, 3), axis=0))
print(f"  screenshot: {nonwhite:.1%} non-white pixels, {colours} colours")
sys.exit(0 if nonwhite >= 0.03 and colours >= 50 else 1)
PYEOF
    then ok "${name}_not_blank"; else fail "${name}_not_blank"; fi
    [ -n "${KEEP_SHOTS:-}" ] && cp "$tmp/shot.png" "$KEEP_SHOTS/$name.png"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
