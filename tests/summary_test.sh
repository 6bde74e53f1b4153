#!/bin/sh
# summary_test.sh: summary.json (docs/outputs.md "Outputs") says what the run
# was given and agrees with the summary on stdout. Three small runs with
# many of its optional parts (a 2-tier tree with adaptive routing, DRR,
# SACK loss detection, a third class, an algorithm option, bounce
# rerouting, random failures and switch statistics; the 3-tier default
# tree with infinite queues, ev-mod routing and a quick-adapt gate; RoCE
# with PFC and a time series; an open-loop Poisson run with an incast
# overlay): each summary.json must be valid JSON, its
# config section must hold the flags' values, its network section the
# tree's shape, and every figure printed on stdout as well (flows, FCT,
# packets, reroute, switch buffers, PFC, the run's time and events) must
# be the same number in both; queues.csv's per-port drops, trims, ECN
# marks and failure drops add up to its packet counts, and switches.csv
# (--switch-stats) gives its per-tier buffer figures. Issue 26: mutants of summary.json's writer
# (report.c) survived where no test read the field.
# Prints one "ok" or "FAIL" line per run (run_all.sh counts them).
# Environment: SPRAYSIM (default bin/spraysim), SHARED (default ../shared).
SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
PY=/usr/bin/python3
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-summary.XXXXXX") || { echo "FAIL summary: mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM
nfail=0

if [ ! -x "$PY" ]; then
    echo "skip summary.json checks: no $PY"
    exit 0
fi

printf 'Nodes 8\nConnections 2\n0->5 start 0 size 200000\n1->5 start 0 size 200000\n' >"$T/inc8.cm"
printf 'Nodes 16\nConnections 3\n0->13 start 0 size 300000\n1->13 start 0 size 300000\n4->9 start 5 size 100000\n' >"$T/inc16.cm"

# check NAME PYTHON-ASSERTIONS ARGS...: runs ARGS with --out, then checks
# the summary (j: summary.json, out: stdout's lines by their first word)
check() {
    name=$1 asserts=$2
    shift 2
    if ! "$SPRAYSIM" "$@" --no-progress --out "$T/$name" >"$T/$name.out" 2>"$T/$name.err"; then
        echo "FAIL summary $name: the run failed: $(head -n 1 "$T/$name.err")"
        nfail=$((nfail + 1))
        return
    fi
    if "$PY" - "$T/$name/summary.json" "$T/$name.out" >"$T/$name.py" 2>&1 <<EOF
import json, re, sys
j = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
out = {l.split(":")[0]: l for l in lines}
def nums(line):
    """the numbers of a stdout line, in order (not those in names: p99, 2-tier)"""
    return [float(x) for x in re.findall(r"(?<![A-Za-z0-9_.-])[0-9]+(?:\.[0-9]+)?(?![A-Za-z0-9-])", line)]
c, n, f, p, r = j["config"], j["network"], j["flows"], j["packets"], j["run"]
# every summary: flows, FCT, packets and the run's line as on stdout
fl = nums(out["flows"])
assert fl[:2] == [f["finished"], f["total"]], (fl, f)
assert f["unfinished"] == f["total"] - f["finished"]
fct = nums(out["FCT"])
assert fct[:4] == [round(f[k], 3) for k in ("fct_median_us", "fct_p99_us", "fct_max_us", "fct_mean_us")], (fct, f)
assert fct[4:6] == [f["fct_n"], f["fct_unfinished"]], (fct, f)
pk = nums(out["packets"])
assert pk == [p[k] for k in ("data_sent", "retransmits", "acks", "nacks", "trims", "bounced", "drops", "ecn_marks",
                             "timeouts")], (pk, p)
run = nums(out["run"])
assert run[0] == round(r["simulated_us"], 3) and run[2] == r["events"], (run, r)
net = nums(out["network"])
assert net[0] == round(n["base_rtt_us"], 3) and net[1] == n["bdp_bytes"], (net, n)
tiers = n["queue_bytes_by_tier"]
assert [t["tier"] for t in tiers] == list(range(n["tiers"])) and tiers[-1]["up"] is None, tiers
# queues.csv: one row per port; its drops, trims and ECN marks add up to the packets'
import csv, os
d = os.path.dirname(sys.argv[1])
q = list(csv.DictReader(open(os.path.join(d, "queues.csv"))))
assert [int(x["port"]) for x in q] == list(range(n["ports"])), len(q)
for col, key in (("drops", "drops"), ("trims", "trims"), ("ecn_marks", "ecn_marks"), ("failure_drops", "failure_drops")):
    assert sum(int(x[col]) for x in q) == p[key], (col, p[key])
# switches.csv (--switch-stats): per tier, the largest peak and the mean and largest of the time-averaged bytes
if "switch_buffers" in j:
    sw_rows = list(csv.DictReader(open(os.path.join(d, "switches.csv"))))
    assert [int(x["node"]) for x in sw_rows] == list(range(n["hosts"], n["hosts"] + n["switches"]))
    for b in j["switch_buffers"]:
        mine = [x for x in sw_rows if x["kind"] == b["kind"]]
        assert len(mine) == b["switches"] and [int(x["index"]) for x in mine] == list(range(len(mine))), b
        assert max(int(x["peak_buffered_bytes"]) for x in mine) == b["max_peak_bytes"], b
        means = [float(x["mean_buffered_bytes"]) for x in mine]
        assert max(means) == b["max_mean_bytes"], (means, b)  # the same value at one decimal
        # each mean rounded to 0.05 and their mean too: within 0.1
        assert abs(sum(means) / len(means) - b["mean_mean_bytes"]) <= 0.1 + 1e-9, (means, b)
$asserts
EOF
    then
        echo "ok summary.json of $name: valid, its config and the stdout figures agree"
    else
        echo "FAIL summary $name: $(tail -n 2 "$T/$name.py" | tr '\n' ' ')"
        nfail=$((nfail + 1))
    fi
}

# a 2-tier k=4 tree: 4 ToRs, 2 spines, 8 ToR-spine links
check leafspine '
assert c["linkspeed_gbps"] == 40 and c["end_us"] == 500 and c["target_qdelay_us"] == 3 and c["qa_gate"] is None
assert c["routing"] == "ar" and c["sched"] == "drr" and c["detect_us"] == 7 and c["random_failures"] == 0.1
assert c["loss_detect"] == "sack" and c["switch_stats"] is True and c["switch_classes"] == 3 and c["seed"] == 5
assert c["class_options"] == {"2:queue_bytes": 100000} and c["cc_options"] == {"md": 0.5}, c
assert c["cc"] == "smartt" and c["trimming"] is True and c["sleek"] is False and c["transport"] == "uet"
assert (n["hosts"], n["switches"], n["tiers"], n["inter_switch_links"]) == (8, 6, 2, 8), n
assert 0 <= n["random_failed_links"] <= 8
assert tiers[0]["down"] == tiers[0]["up"] == tiers[1]["down"] == n["queue_bytes"], tiers
rr = nums(out["reroute bounce"])
assert j["reroute"] == {"mode": "bounce", "valleys": rr[0], "valley_limit_hits": rr[1]}, (rr, j["reroute"])
sb = j["switch_buffers"]
assert [(b["kind"], b["switches"]) for b in sb] == [("tor", 4), ("spine", 2)], sb
sw = nums(out["switch buffers (all ports and classes, B)"])
want = []
for t, b in enumerate(sb):
    want += [t, b["max_peak_bytes"], round(b["mean_mean_bytes"]), round(b["max_mean_bytes"])]
assert sw == want, (sw, want)
rf = nums(out["random failures"])
assert rf[:2] == [n["random_failed_links"], n["inter_switch_links"]], rf
' -tm "$T/inc8.cm" -tiers 2 -linkspeed 40000 -end 500 -target_q_delay 3 --routing ar --sched drr --detect-us 7 \
    --loss-detect sack --switch-stats --classes 3 --class-opt 2:queue_bytes=100000 --cc smartt --cc-opt md=0.5 \
    --reroute bounce --random-failures 0.1 -seed 5

# the default 3-tier tree of 16 hosts: 8 ToRs, 8 aggregation, 4 core
check fattree '
assert c["qa_gate"] == 4 and c["routing"] == "ev-mod" and c["sched"] == "fifo" and c["loss_detect"] == "dupack"
assert c["target_qdelay_us"] is None and c["random_failures"] == 0 and c["class_options"] == {} and c["cc_options"] == {}
assert c["end_us"] == 1000 and c["linkspeed_gbps"] == 100 and c["paths"] == 16 and c["switch_stats"] is True
assert (n["hosts"], n["switches"], n["tiers"]) == (16, 20, 3), n
assert n["queue_bytes"] is None and n["inter_switch_links"] is None and n["random_failed_links"] is None
assert [t["down"] for t in tiers] == [None] * 3 and [t["up"] for t in tiers] == [None] * 3, tiers
assert "reroute" not in j and "pfc" not in j and "timeseries" not in j
assert [(b["kind"], b["switches"]) for b in j["switch_buffers"]] == [("tor", 8), ("agg", 8), ("core", 4)]
' -tm "$T/inc16.cm" -q inf -qa_gate 4 --routing ev-mod --loss-detect dupack -paths 16 --switch-stats

# RoCE with PFC on, and a time series every 2 us
check roce '
assert c["transport"] == "roce" and "pfc" in j and "timeseries" in j, sorted(j)
pf = nums(out["pfc"])
assert pf[0] == j["pfc"]["pauses"] and j["pfc"]["deadlock"] is False, (pf, j["pfc"])
ts = j["timeseries"]
assert ts["interval_us"] == 2 and ts["rows_ports"] > 0 and ts["rows_hosts"] > 0 and ts["rows_flows"] == 0, ts
' -tm "$T/inc16.cm" --transport roce -end 300 --ts-ports 0-20 --ts-hosts 13 --ts-interval 2

# an open-loop run with an incast overlay, cut at 300 us: the Poisson
# section (load, sizes, messages, window, rate; slowdowns by group, each a
# lower bound when some of its messages are unfinished; goodput; switch
# buffers in the window; the overlay) against its stdout lines
W=$SHARED/data/workloads
check poisson '
ps = j["poisson"]
line = nums(out["poisson"])
want = [round(ps["load_requested"], 4), round(ps["load_achieved"], 4), round(ps["mean_bytes_cdf"], 1),
        round(ps["mean_bytes_generated"], 1), ps["messages"], ps["measured"], round(ps["window_start_us"], 3),
        round(ps["window_end_us"], 3), float("%.4g" % ps["messages_per_s_per_host"]), ps["delivered"]]
assert line == want, (line, want)
sd_line = out["slowdown (median/p99)"]
want = []
for g in ("all", "A", "B", "C", "D"):
    x = ps["slowdown"][g]
    want += [round(x["slowdown_median"], 3), round(x["slowdown_p99"], 3), x["messages"], x["unfinished"]] if x["messages"] else [0]
    assert x["lower_bound"] == (x["unfinished"] > 0), x
gp = ps["goodput_gbps_per_host"]
want += [ps["mss_bytes"], ps["bdp_bytes"], round(gp["mean"], 3), round(gp["min"], 3), round(gp["max"], 3)]
assert nums(sd_line) == want, (nums(sd_line), want)
# the groups by name, in order, ">=" before a lower bound
names = re.findall(r"(?:: |, )(all|A|B|C|D) (>=)?", sd_line)
assert [g for g, _ in names] == ["all", "A", "B", "C", "D"], names
assert [lb == ">=" for _, lb in names] == [ps["slowdown"][g]["lower_bound"] for g, _ in names], names
assert ps["slowdown"]["all"]["unfinished"] > 0 and ps["slowdown"]["all"]["messages"] > 0
win = nums(out["switch buffers in the window (all ports and classes, B)"])
assert len(win) == 3 * len(ps["switch_buffers_window"])
for k, t in enumerate(ps["switch_buffers_window"]):
    assert win[3 * k:3 * k + 2] == [t["tier"], t["max_peak_bytes"]] and abs(win[3 * k + 2] - t["mean_mean_bytes"]) <= 0.55, (win, t)
inc = ps["incast"]
assert nums(out["incast overlay"]) == [round(inc["share"], 4), inc["senders"], inc["bytes"], round(inc["period_us"], 3),
                                       inc["measured"], inc["delivered"]], (out["incast overlay"], inc)
' --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=16,incast=0.1,incast_senders=3,incast_bytes=20000" -end 300 \
    --switch-stats


# ---- mutmw (issue 26): the run line's wall time --------------------------
# stdout's "run: simulated T us in W s wall, E events, R M events/s" (not
# in summary.json: it would not repeat) measures the run itself: W is at
# least 0 and at most the time the whole process took, as this script
# measures it around the run; R is E / W in millions (0 when W rounds to 0);
# the peak memory it reports is above 0.
# Mutants of main.c's clock (the seconds and nanoseconds of
# CLOCK_MONOTONIC added the wrong way) went unnoticed.
t0=$(date +%s.%N)
"$SPRAYSIM" -tm "$T/inc16.cm" --no-progress >"$T/wall.out" 2>"$T/wall.err"
rc=$?
t1=$(date +%s.%N)
if [ "$rc" -ne 0 ]; then
    echo "FAIL summary wall: the run failed: $(head -n 1 "$T/wall.err")"
    nfail=$((nfail + 1))
elif "$PY" - "$T/wall.out" "$t0" "$t1" >"$T/wall.py" 2>&1 <<'EOF'
import re, sys
line = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("run: ")][0]
m = re.match(r"run: simulated [0-9.]+ us in (-?[0-9.e+]+) s wall, ([0-9]+) events, (-?[0-9.e+]+) M events/s", line)
assert m, line
wall, events, rate = float(m.group(1)), int(m.group(2)), float(m.group(3))
elapsed = float(sys.argv[3]) - float(sys.argv[2])
assert 0 <= wall <= elapsed + 0.0005, (wall, elapsed, line)
assert rate >= 0 and (wall == 0 or rate <= events / max(wall - 0.0005, 1e-9) / 1e6 + 0.005), (rate, events, wall)
mem = re.search(r"peak memory ([0-9.]+) MB$", line)
assert mem and float(mem.group(1)) > 0, line  # getrusage's peak: a running process has some
EOF
then
    echo "ok summary wall time: between 0 and the time the process took; peak memory above 0"
else
    echo "FAIL summary wall: $(tail -n 2 "$T/wall.py" | tr '\n' ' ')"
    nfail=$((nfail + 1))
fi

# summary.json names the .cm file as given: a space (0x20, the first byte
# that needs no escape) and a tilde (0x7e, the last) stay literal, a tab
# (0x1f and below) and DEL (0x7f) become \u escapes
d="$T/a b~$(printf '\t')c$(printf '\177')"
mkdir -p "$d" && printf 'Nodes 16\nConnections 1\n0->5 start 0 size 1000\n' >"$d/one.cm"
"$SPRAYSIM" -tm "$d/one.cm" --out "$T/esc" >/dev/null 2>&1
if grep -qF '/a b~\u0009c\u007f/one.cm"' "$T/esc/summary.json" 2>/dev/null &&
    $PY -c 'import json,sys; assert json.load(open(sys.argv[1]))["inputs"]["tm"] == sys.argv[2]' "$T/esc/summary.json" "$d/one.cm" 2>/dev/null; then
    echo "ok summary: the .cm path with a space, a tilde, a tab and DEL, escaped only where JSON needs it"
else
    echo "FAIL summary: path escapes: $(grep -o '"tm": "[^"]*"' "$T/esc/summary.json" 2>/dev/null | od -c | head -3 | tr '\n' ' ')"
    nfail=$((nfail + 1))
fi

[ "$nfail" -eq 0 ]
