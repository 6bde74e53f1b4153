"""Figures and self-contained HTML reports of a sweep or of one run.

Figures are drawn by matplotlib (Debian's python3-matplotlib, Agg backend)
and inlined as base64 PNG, tables as HTML: the report is one file that opens
offline. What a sweep's report shows comes from its [report] table (docs/sweeps.md
"Sweeps and results"); without one it shows FCT CDFs, slowdown against
size, utilization heatmaps and the summary metrics of every combination,
and for open-loop (--workload poisson) runs slowdown by size group first.

Unfinished messages (docs/outputs.md "Unfinished messages"): every FCT and slowdown
figure counts a message unfinished at the run's end at (end - start), a
lower bound, as spraysim's own summary does, and says how many of its
population are unfinished ('>=' marks a lower bound). FCTs are the sender's
last ACK (flows.csv fct_us, the summary's FCT figures); slowdowns the
receiver's completion (slowdown_rcv, the Poisson summary's).

Time series: spraysim's time-series capture (a separate work item) writes
CSV files into the run directory; every file matching TIMESERIES_GLOBS is
plotted by plot_timeseries(): one panel per value column against the time
column (the first column named time_us / t_us / time, else the first),
one line per id (flow_id, port, host, node or id, at most MAX_SERIES);
a column is numeric when any row has a number in it (a first row with an
empty field does not hide it).
"""
import base64
import glob
import html
import io
import json
import math
import os
import re
import sqlite3

from . import db
from .spec import SpecError

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:  # one line from tools/sweep, not a traceback
    raise SpecError(f"reports need matplotlib for /usr/bin/python3 ({e}): `make plot-deps` "
                    "installs Debian's python3-matplotlib") from None

TIMESERIES_GLOBS = ["timeseries*.csv", "ts_*.csv", "*_timeseries.csv", "series_*.csv"]
MAX_SERIES = 16
MAX_CDF_LINES = 12
MAX_HEATMAPS = 4
plt.rcParams.update({"figure.dpi": 100, "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                     "svg.hashsalt": "spraysim"})


def fig_html(fig, alt):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    b = base64.b64encode(buf.getvalue()).decode()
    return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{b}"><figcaption>{html.escape(alt)}</figcaption></figure>'


def esc(s):
    return html.escape(str(s))


def text_html(s):
    """Paragraphs from plain text; `code` spans; lines starting '- ' as lists."""
    out = []
    for para in re.split(r"\n\s*\n", s.strip()):
        lines = [ln.strip() for ln in para.splitlines()]
        conv = [re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(ln)) for ln in lines]
        if all(ln.startswith("- ") for ln in lines if ln):
            out.append("<ul>" + "".join(f"<li>{c[2:]}</li>" for c in conv if c) + "</ul>")
        else:
            out.append("<p>" + " ".join(conv) + "</p>")
    return "\n".join(out)


def table_html(header, rows, cls=""):
    h = "".join(f"<th>{esc(x)}</th>" for x in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(fmt(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>'


def fmt(x):
    if x is None:
        return ""
    if isinstance(x, float):
        if x == 0 or abs(x) < 1e4 and abs(x) >= 1e-3:
            return f"{x:.4g}"  # 4 significant digits: 1.003, 176.2, 0.9662
        if abs(x) >= 1e7 or abs(x) < 1e-3:
            return f"{x:.4g}"
        return f"{x:,.0f}"
    return str(x)


CSS = """
body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}
table{border-collapse:collapse;margin:0.8em 0;font-size:0.85em}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}
td:first-child,th:first-child{text-align:left}table.claim td{text-align:left}
figure{display:inline-block;margin:0.5em;vertical-align:top}figure img{max-width:100%}
figcaption{font-size:0.8em;color:#555}code{background:#f3f3f3;padding:0 2px}
.agrees{color:#070;font-weight:bold}.partly{color:#b50;font-weight:bold}.disagrees{color:#a00;font-weight:bold}.open{color:#a60;font-weight:bold}
.meta{color:#555;font-size:0.85em}
"""


def page(title, body):
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>\n{body}\n</body></html>\n")


# -- single-run figures (from a run directory or the database) ------------
def ecdf(values):
    """Empirical CDF as step points, starting from 0 at the smallest value
    (so one flow still draws a visible step)."""
    xs = sorted(values)
    n = len(xs)
    return [xs[0]] + xs, [0.0] + [(i + 1) / n for i in range(n)]


def plot_cdf(series, title, xlabel="FCT (us)", ylabel="fraction of flows", logx=False):
    """series: [(label, [values])]; logx: a logarithmic x axis (open-loop
    FCTs span orders of magnitude), over the positive values"""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for label, vals in series[:MAX_CDF_LINES]:
        if logx:
            vals = [v for v in vals if v > 0]
        if vals:
            x, y = ecdf(vals)
            ax.step(x, y, where="post", label=label, lw=1.2)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(series) > 1:
        ax.legend(fontsize=7)
    return fig_html(fig, title)


def plot_slowdown(series, title):
    """series: [(label, [(size_bytes, slowdown)])]: median and p99 per size bin."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for i, (label, pts) in enumerate(series[:MAX_CDF_LINES]):
        pts = [(s, d) for s, d in pts if s and d is not None]
        if not pts:
            continue
        bins = {}
        for s, d in pts:
            bins.setdefault(int(round(math.log2(s) * 2)), []).append((s, d))
        xs, med, p99 = [], [], []
        for k in sorted(bins):
            b = bins[k]
            ds = sorted(d for _, d in b)
            xs.append(sorted(s for s, _ in b)[len(b) // 2])
            med.append(ds[(len(ds) - 1) // 2])
            p99.append(ds[max(0, math.ceil(0.99 * len(ds)) - 1)])
        c = f"C{i % 10}"
        ax.plot(xs, med, "o-", color=c, label=f"{label} median", ms=3)
        ax.plot(xs, p99, "x--", color=c, label=f"{label} p99", ms=3, lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("flow size (bytes)")
    ax.set_ylabel("slowdown (receiver's FCT / ideal)")
    ax.set_title(title)
    ax.legend(fontsize=6)
    return fig_html(fig, title)


def plot_heatmap(ports, simulated_us, title):
    """ports: dicts with node, node_kind, peer, direction, rate_gbps, tx_bytes.
    One row per switch (grouped by kind), one column per port; colour =
    utilization = bytes sent / (rate x simulated time)."""
    if not simulated_us:
        return ""
    by_node = {}
    kinds = {}
    for p in ports:
        if p["node_kind"] == "host":
            continue
        by_node.setdefault(p["node"], []).append(p)
        kinds[p["node"]] = p["node_kind"]
    if not by_node:
        return ""
    order = {"tor": 0, "leaf": 0, "agg": 1, "spine": 1, "core": 2}
    nodes = sorted(by_node, key=lambda n: (order.get(kinds[n], 9), kinds[n], n))
    width = max(len(v) for v in by_node.values())
    grid = []
    for n in nodes:
        ps = sorted(by_node[n], key=lambda p: (p["direction"], p["peer"]))
        row = [p["tx_bytes"] * 8 / (p["rate_gbps"] * 1e3 * simulated_us) if p["rate_gbps"] else float("nan")
               for p in ps]
        grid.append(row + [float("nan")] * (width - len(row)))
    fig, ax = plt.subplots(figsize=(5.5, min(8, 1.5 + 0.012 * len(nodes) + 2)))
    im = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0, vmax=1)
    fig.colorbar(im, ax=ax, label="utilization")
    ax.set_xlabel("port (down ports first, then up, by peer)")
    ax.set_ylabel("switch")
    ticks, labels, last = [], [], None
    for i, n in enumerate(nodes):
        if kinds[n] != last:
            ticks.append(i)
            labels.append(kinds[n])
            last = kinds[n]
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels)
    ax.grid(False)
    ax.set_title(title)
    return fig_html(fig, title)


def find_timeseries(rundir):
    files = []
    for g in TIMESERIES_GLOBS:
        files += glob.glob(os.path.join(rundir, g))
    return sorted(set(files))


def plot_timeseries(path, title):
    """Hook for the time-series CSVs (see the module comment)."""
    import csv
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        return ""
    header = rows[0]
    tcol = next((i for i, h in enumerate(header) if h in ("time_us", "t_us", "time")), 0)
    idcol = next((i for i, h in enumerate(header) if h in ("flow_id", "flow", "port", "host", "node", "id")), None)
    vcols = [i for i, h in enumerate(header) if i not in (tcol, idcol)]

    def num(s):
        try:
            return float(s)
        except ValueError:
            return None

    def cell(r, c):
        v = num(r[c]) if c < len(r) else None
        return float("nan") if v is None else v
    vcols = [i for i in vcols if any(i < len(r) and num(r[i]) is not None for r in rows[1:])]
    if not vcols:
        return ""
    series = {}
    for r in rows[1:]:
        key = r[idcol] if idcol is not None else ""
        if key not in series and len(series) >= MAX_SERIES:
            continue
        series.setdefault(key, []).append(r)
    fig, axes = plt.subplots(len(vcols), 1, figsize=(6, 1.9 * len(vcols) + 0.6), sharex=True, squeeze=False)
    for ax, c in zip(axes[:, 0], vcols):
        for key, rs in series.items():
            # an empty field is a gap in the line (NaN), not the end of the panel
            ax.plot([num(r[tcol]) for r in rs], [cell(r, c) for r in rs], lw=0.9,
                    label=f"{header[idcol]} {key}" if idcol is not None else None)
        ax.set_ylabel(header[c], fontsize=7)
    axes[-1, 0].set_xlabel(header[tcol])
    if idcol is not None and len(series) <= 8:
        axes[0, 0].legend(fontsize=6)
    axes[0, 0].set_title(title)
    return fig_html(fig, title)


def read_run(rundir):
    rows = {}
    for name in ("flows", "queues"):
        header, data = db.read_csv(os.path.join(rundir, name + ".csv"))
        rows[name] = [{h: db.convert(v, "REAL") if h not in ("node_kind", "peer_kind", "direction", "poisson_group") else v
                       for h, v in zip(header, r)} for r in data]
    with open(os.path.join(rundir, "summary.json")) as f:
        rows["summary"] = json.load(f)
    return rows


def run_report(rundir, out):
    """One run's page: summary, FCT CDF, slowdown against size, heatmap, time series."""
    try:
        r = read_run(rundir)
    except (OSError, ValueError, StopIteration) as e:
        from .spec import SpecError
        raise SpecError(f"{rundir}: not a complete spraysim output directory ({e})")
    s = r["summary"]
    fl = r["flows"]
    end = s["run"]["simulated_us"]
    f_s = s["flows"]
    fct_unf = f_s.get("fct_unfinished")
    fct_pop = ("" if fct_unf is None else
               f" ({f_s['fct_n']} messages, {fct_unf} unfinished" + (" counted at the run's end: lower bounds" if fct_unf else "") + ")")
    parts = [f"<h1>spraysim run {esc(os.path.basename(rundir.rstrip('/')))}</h1>",
             f"<p class=meta>{esc(s.get('tool'))} {esc(s.get('version'))} commit {esc(s.get('commit'))}; "
             f"inputs {esc(json.dumps(s.get('inputs')))}</p>"]
    parts.append(table_html(["metric", "value"], [
        ("flows finished", f"{s['flows']['finished']} of {s['flows']['total']}"),
        ("FCT median / p99 / max (us), sender's last ACK",
         f"{'>= ' if fct_unf else ''}{fmt(f_s['fct_median_us'])} / {fmt(f_s['fct_p99_us'])} / {fmt(f_s['fct_max_us'])}{fct_pop}"),
        ("base RTT (us)", s["network"]["base_rtt_us"]),
        ("simulated (us)", s["run"]["simulated_us"]), ("events", s["run"]["events"])]))
    parts.append(table_html(["config", "value"], [(k, json.dumps(v)) for k, v in s["config"].items()]))
    po = s.get("poisson")
    if po:
        parts.append(group_table([("", po["slowdown"])]))
    # unfinished flows at the run's end (lower bounds), as the summary counts them
    started = [f for f in fl if f.get("start_us") is not None]
    fcts = [f["fct_us"] if f["fct_us"] is not None else end - f["start_us"] for f in started]
    unf = sum(1 for f in started if f["fct_us"] is None)
    parts.append(plot_cdf([(f"flows ({unf} unfinished, at the run's end)", fcts)],
                          "FCT CDF (sender's last ACK)", logx=bool(po)))
    if fl and "slowdown_rcv" in fl[0]:
        measured = [f for f in started if not po or f.get("poisson_group") in GROUPS]
        sd = [(f["size_bytes"], f["slowdown_rcv"] if f["slowdown_rcv"] is not None
               else (end - f["start_us"]) / f["ideal_rcv_us"]) for f in measured]
    else:  # an output from before slowdown_rcv
        sd = [(f["size_bytes"], f.get("slowdown")) for f in fl]
    parts.append(plot_slowdown([("flows", sd)], "Slowdown against size (unfinished at the run's end)"))
    parts.append(plot_heatmap(r["queues"], s["run"]["simulated_us"], "Per-port utilization"))
    for ts in find_timeseries(rundir):
        parts.append(plot_timeseries(ts, os.path.basename(ts)))
    db.write_atomic(out, page(f"spraysim run {os.path.basename(rundir)}", "\n".join(parts)))


# -- sweep report ---------------------------------------------------------
def combo_label(combo_json):
    d = json.loads(combo_json)
    return ", ".join(f"{k.lstrip('-')}={v}" for k, v in d.items()) or "all"


def selector_where(conn, sel):
    cols = db.columns(conn, "runs")
    parts, args = [], []
    for k, v in sel.items():
        c = db.column_name(k)
        if c not in cols:
            raise ValueError(f"selector {k!r}: no runs column {c!r}")
        parts.append(f'r."{c}" = ?')
        args.append(v)
    return " AND ".join(parts) or "1", args


DEFINES = {}  # [report.define]: metric name -> SQL expression


def resolve(metric):
    return DEFINES.get(metric, metric)


def metric_by_seed(conn, metric, sel, where=None):
    m = db.metric_expr(conn, resolve(metric))
    w, args = selector_where(conn, sel)
    q = (f"SELECT r.seed, {m} FROM runs r LEFT JOIN summaries s USING(point_id) "
         f"WHERE {db.LIVE} AND {w}" + (f" AND ({where})" if where else ""))
    out = {}
    for seed, v in conn.execute(q, args):
        if v is not None:
            out.setdefault(seed, []).append(v)
    return {k: sum(v) / len(v) for k, v in out.items()}


def claim_what(c):
    """The text of what a claim measures (its metric over its selections),
    as the report prints it before the measured value."""
    metric = c.get("metric", "fct_max_us")
    if "ratio" in c:
        a_sel, b_sel = c["ratio"]
        return f"{metric}[{fmt_sel(a_sel)}] / {metric}[{fmt_sel(b_sel)}]"
    if "diff" in c:
        a_sel, b_sel = c["diff"]
        return (f"({metric}[{fmt_sel(a_sel)}] - {metric}[{fmt_sel(b_sel)}])" +
                (f" / {c['scale']}" if "scale" in c else ""))
    return f"{metric}[{fmt_sel(c.get('select', {}))}]"


def claim_html(conn, c, i):
    """A paper's statement, what we measured, and the verdict. A claim
    compares metric over selected runs: `ratio = [A, B]` (A / B per seed),
    `diff = [A, B]` (A - B per seed, divided by `scale`, a metric of B's
    runs, when given) or `select = A` (the value itself); then `expect` with
    `tolerance` (relative), or `at_most` / `at_least`, gives the verdict."""
    metric = c.get("metric", "fct_max_us")
    where = c.get("where")
    try:
        if "ratio" in c or "diff" in c:
            a_sel, b_sel = c.get("ratio") or c.get("diff")
            a = metric_by_seed(conn, metric, a_sel, where)
            b = metric_by_seed(conn, metric, b_sel, where)
            sc = metric_by_seed(conn, c["scale"], b_sel, where) if "scale" in c else None
            vals = []
            for seed in sorted(set(a) & set(b)):
                # a zero denominator (0/0 most often: both sides measured
                # nothing) has no ratio; it must not read as a disagreement
                if "ratio" in c and not b[seed]:
                    raise ValueError(f"{metric} of [{fmt_sel(b_sel)}] is 0 for seed {seed} "
                                     f"(ratio {fmt(a[seed])} / 0)")
                if "ratio" in c:
                    vals.append(a[seed] / b[seed])
                elif sc is not None and not sc.get(seed):
                    raise ValueError(f"scale {c['scale']} of [{fmt_sel(b_sel)}] is "
                                     f"{'0' if seed in sc else 'missing'} for seed {seed}")
                else:
                    d = a[seed] - b[seed]
                    vals.append(d / sc[seed] if sc is not None else d)
        else:
            a = metric_by_seed(conn, metric, c.get("select", {}), where)
            vals = list(a.values())
    except (ValueError, sqlite3.Error, KeyError, TypeError) as e:
        return (f"<h3>{esc(c.get('figure', f'Claim {i}'))}</h3>"
                f'<p>Verdict: <span class="open">cannot be evaluated: {esc(e)}</span></p>')
    n, m, h = db.mean_ci95(vals)
    return claim_render(c, i, claim_what(c), n, m, h, vals, claim_censor(conn, c, metric, where))


def claim_verdict(c, n, m, h, vals=None):
    """(verdict text, css class) of claim c for n seeds of mean m and 95% CI
    half-width h (None with one seed); vals, the per-seed values, are needed
    only for an `all_seeds` claim over several seeds."""
    if m is None:
        return "no verdict (no data or no expectation)", "open"
    # the verdict follows the mean over seeds; "within noise" when the
    # 95% CI also reaches the other side of the bound
    lo, hi = (m - h, m + h) if h is not None else (m, m)
    noise = ""
    if c.get("direction"):
        # the paper gives only a direction: judged against noise, never
        # against a margin of our own
        if h is not None:
            noise = f"the 95% CI over {n} seeds"
        elif "noise" in c:
            lo, hi = m - c["noise"], m + c["noise"]
            noise = f"one seed, +-{fmt(c['noise'])} as the claim states"
        else:
            return "open: a direction claim with one seed and no noise measure (give `noise`)", "open"
    ok, noisy, want = judge(c, m, lo, hi)
    if ok is None:
        return "no verdict (no data or no expectation)", "open"
    verdict = ("agrees" if ok else "disagrees") + f": {want}"
    cls = "agrees" if ok else "disagrees"
    if c.get("all_seeds") and n > 1 and vals is None:
        raise ValueError("an all_seeds claim needs the per-seed values (rerun the sweep)")
    held = sum(1 for v in vals if judge(c, v, v, v)[0]) if vals is not None else n
    if ok and c.get("all_seeds") and held < n:
        # the paper says "always": every seed (each a different
        # random placement) must meet the bound, noise or not
        verdict = f"partly: {want} on the mean, but only {held} of {n} seeds meet it (the paper says always)"
        cls = "partly"
    elif noisy:
        verdict += (f" (within noise: {noise} reaches the other side)" if noise else
                    " (within noise: the 95% CI over seeds reaches the other side)")
        cls = "open"
    elif ok and c.get("subset"):
        # met on part of what the paper states: no more than partly
        verdict = f"partly: {want}, met on a subset of what the paper states (see the note)"
        cls = "partly"
    elif not ok and "partly" in c and judge(c["partly"], m, m, m)[0]:
        # the weaker bound (the direction, or a subset) holds
        verdict = f"partly: {want} is not met; {judge(c['partly'], m, m, m)[2]} (the weaker reading) is"
        cls = "partly"
    elif c.get("direction"):
        # an agreement no stronger than the paper's own words
        verdict = (f"agrees, direction only: {want} (noise: {noise}, clear of it; the paper gives no number)" if ok
                   else f"disagrees: {want}, the direction the paper states (noise: {noise}, clear of it)")
    return verdict, cls


def claim_render(c, i, what, n, m, h, vals=None, censor=""):
    """A claim's heading, its paper/threshold/measured table and verdict."""
    verdict, cls = claim_verdict(c, n, m, h, vals)
    meas = "no data" if m is None else (f"{fmt(m)}" + (f" (95% CI {fmt(m - h)} .. {fmt(m + h)}, {n} seeds)"
                                                     if h is not None else f" ({n} seed)"))
    out = [f"<h3>{esc(c.get('figure', f'Claim {i}'))}</h3>",
           table_html(["", ""], [("paper", c.get("paper", "")), ("threshold from", c.get("source", "")),
                                 ("measured", f"{what} = {meas}{censor}")], "claim"),
           f'<p>Verdict: <span class="{cls}">{esc(verdict)}</span></p>']
    if c.get("note"):
        out.append(text_html(c["note"]))
    return "\n".join(out)


# one claim block of a written report: its heading, the claim table (the
# measured row last), the verdict, and any note paragraphs up to the next
# heading
CLAIM_BLOCK_RE = re.compile(r'<h3>(?P<title>[^<]*)</h3>\n<table class="claim">.*?<td>measured</td><td>(?P<meas>[^<]*)'
                            r'</td></tr></tbody></table>\n<p>Verdict: <span class="[a-z]+">[^<]*</span></p>'
                            r'(?P<note>(?:\n(?!<h[123]>)[^\n]*)*)')
MEASURED_RE = re.compile(r'^(?P<what>.*?) = (?:no data|(?P<m>-?[0-9.,]+(?:e[-+]?[0-9]+)?|-?inf|nan) '
                         r'(?:\(95% CI (?P<lo>\S+) \.\. (?P<hi>\S+), (?P<n>[0-9]+) seeds\)|\((?P<n1>[0-9]+) seed\)))'
                         r'(?P<censor>.*)$')
REJUDGED_NOTE = ('<p class=meta>The verdicts below were re-judged from the measurements this page recorded '
                 '(<code>tools/sweep report --from-page</code>): the thresholds and sources are the sweep file\'s '
                 'current ones; the runs, tables and figures are those of the run above (its database was not kept).</p>')


def rejudge_page(sweep, path):
    """Re-judges the claims of the written report PATH against SWEEP's
    current claims without its results database: each claim's verdict is
    recomputed from the mean, 95% CI and seed count the page printed. A
    claim whose measured expression changed (metric or selection) cannot be
    re-judged this way: a SpecError naming it (rerun the sweep). Returns the
    number of claims re-judged."""
    from .spec import SpecError
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise SpecError(f"{path}: {e.strerror}")
    claims = {esc(c.get("figure", f"Claim {i + 1}")): (i + 1, c) for i, c in enumerate(sweep.report.get("claim", []))}
    done = set()

    def num(x):
        return float(x.replace(",", ""))

    def one(mt):
        title = mt.group("title")
        if title not in claims:
            raise SpecError(f"{path}: claim '{html.unescape(title)}' is not in {sweep.path} (rerun the sweep)")
        i, c = claims[title]
        meas = html.unescape(mt.group("meas"))
        mm = MEASURED_RE.match(meas)
        if not mm:
            raise SpecError(f"{path}: claim '{html.unescape(title)}': cannot read its measured value {meas!r}")
        if mm.group("what") != claim_what(c):
            raise SpecError(f"{path}: claim '{html.unescape(title)}' now measures {claim_what(c)}, the page "
                            f"{mm.group('what')} (rerun the sweep)")
        if mm.group("m") is None:
            n, m, h = 0, None, None
        elif mm.group("n"):
            n, m = int(mm.group("n")), num(mm.group("m"))
            h = (num(mm.group("hi")) - num(mm.group("lo"))) / 2
        else:
            n, m, h = int(mm.group("n1")), num(mm.group("m")), None
        try:
            block = claim_render(c, i, mm.group("what"), n, m, h, None, mm.group("censor"))
        except ValueError as e:
            raise SpecError(f"{path}: claim '{html.unescape(title)}': {e}")
        done.add(title)
        return block

    out = CLAIM_BLOCK_RE.sub(one, text)
    missing = [html.unescape(t) for t in claims if t not in done]
    if missing:
        raise SpecError(f"{path}: claim '{missing[0]}' of {sweep.path} has no measurement on the page (rerun the sweep)")
    if REJUDGED_NOTE not in out:
        out = out.replace("<h2>The paper's statements and our verdicts</h2>",
                          "<h2>The paper's statements and our verdicts</h2>\n" + REJUDGED_NOTE, 1)
    db.write_atomic(path, out)
    return len(done)


def judge(bound, m, lo, hi):
    """(met, within noise, wording) of one bound (`expect` with `tolerance`,
    `at_most` or `at_least`) for mean m and 95% interval lo..hi; met is None
    when the table gives no bound."""
    if "expect" in bound:
        tol = bound.get("tolerance", 0.1)
        e = bound["expect"]
        a, b = sorted((e * (1 - tol), e * (1 + tol)))
        ok = a <= m <= b
        return ok, (lo < a or hi > b) if ok else (lo <= b and hi >= a), f"expected {fmt(e)} within {tol:.0%}"
    if "at_most" in bound:
        return m <= bound["at_most"], lo <= bound["at_most"] <= hi, f"expected at most {fmt(bound['at_most'])}"
    if "at_least" in bound:
        return m >= bound["at_least"], lo <= bound["at_least"] <= hi, f"expected at least {fmt(bound['at_least'])}"
    return None, None, ""


def fmt_sel(sel):
    return ", ".join(f"{k.lstrip('-')}={v}" for k, v in sel.items())


# -- unfinished messages (docs/outputs.md "Unfinished messages") ---
GROUPS = ("A", "B", "C", "D")
# summary figures that count unfinished messages, and the columns giving
# their population and its unfinished part
CENSORED_FIGURES = [
    (re.compile(r"\bfct_(?:median|p99|max|mean)_us\b"), lambda m: ("fct_n", "fct_unfinished")),
    (re.compile(r"\bpoisson_slowdown_(all|a|b|c|d)_slowdown_(?:median|p99)\b"),
     lambda m: (f"poisson_slowdown_{m.group(1)}_messages", f"poisson_slowdown_{m.group(1)}_unfinished")),
]


def censor_columns(conn, metric):
    """[(population column, unfinished column)] of the summary figures a
    metric rests on (none for other metrics or databases from before)."""
    expr = resolve(metric)
    have = db.columns(conn, "summaries")
    found = []
    for rx, cols in CENSORED_FIGURES:
        for m in rx.finditer(expr):
            c = cols(m)
            if c[0] in have and c[1] in have and c not in found:
                found.append(c)
    return found


def censored_by(conn, metric, by, where=None):
    """{group tuple: (unfinished, population)} summed over the runs and the
    figures the metric rests on; {} when it rests on none."""
    out = {}
    for n_col, u_col in censor_columns(conn, metric):
        for (key, _s, n), (_k, _s2, u) in zip(db.per_run(conn, n_col, by, where), db.per_run(conn, u_col, by, where)):
            t = out.get(key, (0, 0))
            out[key] = (t[0] + (u or 0), t[1] + (n or 0))
    return out


def claim_censor(conn, c, metric, where):
    """'; N of M unfinished ...' over the runs a claim selects, when its
    metric rests on figures that count unfinished messages; else ''."""
    cols = censor_columns(conn, metric)
    if not cols:
        return ""
    sels = c.get("ratio") or c.get("diff") or [c.get("select", {})]
    unf = pop = 0
    try:
        for sel in sels:
            w, args = selector_where(conn, sel)
            for n_col, u_col in cols:
                q = (f'SELECT sum(s."{u_col}"), sum(s."{n_col}") FROM runs r LEFT JOIN summaries s USING(point_id) '
                     f"WHERE {db.LIVE} AND {w}" + (f" AND ({where})" if where else ""))
                u, n = conn.execute(q, args).fetchone()
                unf, pop = unf + (u or 0), pop + (n or 0)
    except (ValueError, sqlite3.Error, TypeError, AttributeError):
        return ""
    return f"; {censor_text(unf, pop)}"


def censor_text(unf, pop):
    return f"{unf} of {pop} unfinished" + (", counted at the run's end: a lower bound" if unf else "")


def open_loop(conn):
    """True when the live runs are open-loop (a Poisson summary)."""
    if "poisson_slowdown_all_messages" not in db.columns(conn, "summaries"):
        return False
    return conn.execute(f"SELECT count(*) FROM runs r JOIN summaries s USING(point_id) WHERE {db.LIVE} "
                        "AND s.poisson_slowdown_all_messages IS NOT NULL").fetchone()[0] > 0


def group_table(rows):
    """Slowdown by size group: rows [(label, {group: {messages, unfinished,
    slowdown_median, slowdown_p99}})], '>=' on a figure with unfinished
    messages (a lower bound)."""
    out = []
    for label, groups in rows:
        for g in ("all",) + GROUPS:
            d = groups.get(g) or {}
            unf = d.get("unfinished") or 0
            lb = ">= " if unf else ""
            cells = [f"{lb}{fmt(d.get(k))}" if d.get(k) is not None else "n/a" for k in ("slowdown_median", "slowdown_p99")]
            out.append(([label] if label else []) + [g, d.get("messages"), unf] + cells)
    head = (["combination"] if rows and rows[0][0] else []) + ["group", "messages", "unfinished", "slowdown p50", "slowdown p99"]
    return "<h3>Slowdown by size group (receiver's completion; unfinished at the run's end)</h3>" + table_html(head, out)


def group_plots(conn, p):
    """Open-loop sweeps: p50 and p99 slowdown by size group, one bar per
    combination (mean over seeds), hatched where the figure counts
    unfinished messages (a lower bound); and the table behind it."""
    where = p.get("where")
    cs = combos(conn, where)[:MAX_CDF_LINES]
    have = db.columns(conn, "summaries")
    if not cs or "poisson_slowdown_all_messages" not in have:
        return ""
    gnames = ("all",) + GROUPS
    data, rows = {}, []
    for c in cs:
        groups = {}
        for g in gnames:
            pre = f"poisson_slowdown_{g.lower()}_"
            cols = [pre + k for k in ("messages", "unfinished", "slowdown_median", "slowdown_p99")]
            q = (f"SELECT {', '.join(f's.{x}' if x in have else 'NULL' for x in cols)} FROM runs r "
                 f"JOIN summaries s USING(point_id) WHERE r.combo = ? AND {db.LIVE}" + (f" AND ({where})" if where else ""))
            vals = conn.execute(q, (c,)).fetchall()
            med = [v[2] for v in vals if v[2] is not None]
            p99 = [v[3] for v in vals if v[3] is not None]
            groups[g] = {"messages": sum(v[0] or 0 for v in vals), "unfinished": sum(v[1] or 0 for v in vals),
                         "slowdown_median": sum(med) / len(med) if med else None,
                         "slowdown_p99": sum(p99) / len(p99) if p99 else None}
        data[c] = groups
        rows.append((combo_label(c), groups))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), squeeze=False)
    width = 0.8 / len(cs)
    for ax, key, name in zip(axes[0], ("slowdown_median", "slowdown_p99"), ("p50", "p99")):
        for i, c in enumerate(cs):
            xs = [k + (i - (len(cs) - 1) / 2) * width for k in range(len(gnames))]
            ys = [data[c][g][key] or 0 for g in gnames]
            hatch = ["//" if data[c][g]["unfinished"] else "" for g in gnames]
            bars = ax.bar(xs, ys, width=width, color=f"C{i % 10}", label=combo_label(c))
            for b, h in zip(bars, hatch):
                b.set_hatch(h)
        ax.set_xticks(range(len(gnames)))
        ax.set_xticklabels(gnames)
        ax.set_ylabel(f"{name} slowdown")
        ax.set_title(f"{name} slowdown by size group (hatched: a lower bound, unfinished counted)", fontsize=7)
    # plain swatches: a hatched first bar would make the legend look censored
    from matplotlib.patches import Patch
    axes[0][0].legend(handles=[Patch(color=f"C{i % 10}", label=combo_label(c)) for i, c in enumerate(cs)], fontsize=6)
    title = p.get("title", "Slowdown by size group (mean over seeds)")
    return fig_html(fig, title) + group_table(rows)


def metric_plot(conn, p):
    """Metric against a parameter with 95% confidence bands, one line per group."""
    x, y = db.column_name(p["x"]), p.get("y", "fct_max_us")
    group = [db.column_name(g) for g in ([p["group"]] if isinstance(p.get("group"), str) else p.get("group", []))]
    rows = db.aggregate(conn, resolve(y), [x] + group, p.get("where"))
    # a metric no run has below zero gets no band below zero (a mean of
    # small positive values with a wide CI would draw one)
    floor = 0.0 if all(v is None or v >= 0 for _k, _s, v in db.per_run(conn, resolve(y), [], p.get("where"))) else None
    lines = {}
    for key, n, m, h in rows:
        lines.setdefault(key[1:], []).append((key[0], m, h))
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    numeric = all(isinstance(v[0], (int, float)) for pts in lines.values() for v in pts)
    cats = []
    if not numeric:
        for pts in lines.values():
            for v in pts:
                if v[0] not in cats:
                    cats.append(v[0])
    for i, (g, pts) in enumerate(lines.items()):
        pts = [v for v in pts if v[1] is not None]
        if numeric:
            pts.sort(key=lambda v: v[0])
        xs = [v[0] if numeric else cats.index(v[0]) + (i - (len(lines) - 1) / 2) * 0.8 / max(1, len(lines)) for v in pts]
        ms = [v[1] for v in pts]
        lo = [v[1] - (v[2] or 0) if floor is None else max(floor, v[1] - (v[2] or 0)) for v in pts]
        hi = [v[1] + (v[2] or 0) for v in pts]
        lab = ", ".join(f"{c}={v}" for c, v in zip(group, g)) or y
        if numeric:
            ax.plot(xs, ms, "o-", label=lab, ms=3)
            ax.fill_between(xs, lo, hi, alpha=0.2)
        else:
            ax.bar(xs, ms, width=0.8 / max(1, len(lines)), label=lab,
                   yerr=[[m - l for m, l in zip(ms, lo)], [h - m for m, h in zip(ms, hi)]], capsize=2)
    if not numeric:
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels([str(c) for c in cats], rotation=20, fontsize=7)
    if p.get("logx") and numeric:
        ax.set_xscale("log")
    if p.get("logy"):
        ax.set_yscale("log")
    ax.set_xlabel(p["x"].lstrip("-"))
    ax.set_ylabel(p.get("ylabel", y))
    title = p.get("title", f"{y} against {p['x'].lstrip('-')} (mean, 95% CI over seeds)")
    ax.set_title(title, fontsize=8)
    if len(lines) > 1 or group:
        ax.legend(fontsize=6)
    return fig_html(fig, title)


def combos(conn, where=None):
    q = f"SELECT combo FROM runs r WHERE {db.LIVE}" + (f" AND ({where})" if where else "") + " GROUP BY combo ORDER BY min(point_index)"
    return [r[0] for r in conn.execute(q)]


def combo_flows(conn, combo, cols, where=None, flow_where=None):
    q = (f"SELECT {cols} FROM flows f JOIN runs r USING(point_id) WHERE r.combo = ? "
         f"AND {db.LIVE}" + (f" AND ({where})" if where else "")
         + (f" AND ({flow_where})" if flow_where else ""))
    return conn.execute(q, (combo,)).fetchall()


def cdf_plot(conn, p):
    where, fw = p.get("where"), p.get("flows_where")
    if "values" in p:
        # any distribution: `values` (an SQL expression) over `from` (a FROM
        # clause that joins runs r), e.g. RTT samples from ts_flows
        q = (f"SELECT {p['values']} FROM {p['from']} WHERE r.combo = ? AND {db.LIVE}"
             + (f" AND ({where})" if where else "") + (f" AND ({p['rows_where']})" if p.get("rows_where") else ""))
        series = [(combo_label(c), [r[0] for r in conn.execute(q, (c,)) if r[0] is not None])
                  for c in combos(conn, where)]
        return plot_cdf(series, p.get("title", "CDF (all seeds pooled)"), p.get("xlabel", p["values"]),
                        p.get("ylabel", "fraction of samples"))
    # every started flow: fct_us, or (the run's end - start) when unfinished
    series = []
    for c in combos(conn, where):
        vals = combo_flows(conn, c, "f.fct_us, r.simulated_us - f.start_us", where,
                           "f.start_us IS NOT NULL" + (f" AND ({fw})" if fw else ""))
        unf = sum(1 for v in vals if v[0] is None)
        series.append((f"{combo_label(c)} ({unf} unfinished)", [v[1] if v[0] is None else v[0] for v in vals]))
    logx = p.get("logx", open_loop(conn))
    return plot_cdf(series, p.get("title", "FCT CDF, sender's last ACK (all seeds pooled; unfinished at the run's end)"),
                    logx=logx)


def slowdown_plot(conn, p):
    where, fw = p.get("where"), p.get("flows_where")
    fcols = db.columns(conn, "flows")
    if "slowdown_rcv" in fcols:
        # the receiver's completion (as the Poisson summary), unfinished at the run's end
        col = "f.size_bytes, coalesce(f.slowdown_rcv, (r.simulated_us - f.start_us) / f.ideal_rcv_us)"
        fw = " AND ".join(x for x in ["f.start_us IS NOT NULL", fw and f"({fw})",
                                      "f.poisson_group IN ('A','B','C','D')" if "poisson_group" in fcols else None] if x)
    else:  # a database from before slowdown_rcv
        col = "f.size_bytes, f.slowdown"
    series = [(combo_label(c), combo_flows(conn, c, col, where, fw)) for c in combos(conn, where)]
    return plot_slowdown(series, p.get("title", "Slowdown against size (all seeds pooled; unfinished at the run's end)"))


def heatmap_plots(conn, p):
    out = []
    where = p.get("where")
    for c in combos(conn, where)[:p.get("max", MAX_HEATMAPS)]:
        row = conn.execute(f"SELECT point_id, simulated_us, seed FROM runs r WHERE combo = ? AND {db.LIVE}"
                           + (f" AND ({where})" if where else "") + " ORDER BY seed LIMIT 1", (c,)).fetchone()
        if not row:
            continue
        cur = conn.execute("SELECT node, node_kind, peer, direction, rate_gbps, tx_bytes FROM queues WHERE point_id = ?", (row[0],))
        ports = [dict(zip(("node", "node_kind", "peer", "direction", "rate_gbps", "tx_bytes"), r)) for r in cur]
        out.append(plot_heatmap(ports, row[1], f"Per-port utilization: {combo_label(c)}, seed {row[2]}"))
    return "".join(out)


def timeseries_plots(conn, outdir, p):
    out = []
    for c in combos(conn, p.get("where"))[:p.get("max", MAX_HEATMAPS)]:
        row = conn.execute(f"SELECT point_id, seed FROM runs r WHERE combo = ? AND {db.LIVE} ORDER BY seed LIMIT 1", (c,)).fetchone()
        if row:
            for ts in find_timeseries(os.path.join(outdir, "runs", row[0])):
                out.append(plot_timeseries(ts, f"{os.path.basename(ts)}: {combo_label(c)}, seed {row[1]}"))
    return "".join(out)


def metrics_table(conn, metrics, by):
    header = list(by) + ["n"] + [f"{m} (mean ± 95% CI)" for m in metrics]
    table = {}
    for m in metrics:
        try:
            rows = db.aggregate(conn, resolve(m), by)
            cens = censored_by(conn, m, by)
        except (ValueError, sqlite3.Error):
            continue
        for key, n, mean, h in rows:
            t = table.setdefault(key, {"n": n})
            unf, pop = cens.get(key, (0, 0))
            t[m] = "" if mean is None else (">= " if unf else "") + fmt(mean) + ("" if h is None else f" ± {fmt(h)}")
            if mean is not None and key in cens:  # the figure's population and its unfinished part
                t[m] += f" ({censor_text(unf, pop)})"
    return table_html(header, [list(k) + [v["n"]] + [v.get(m, "") for m in metrics] for k, v in table.items()])


def sweep_report(sweep, outdir, out):
    path = os.path.join(outdir, "results.db")
    if not os.path.exists(path):
        from .spec import SpecError
        raise SpecError(f"{path}: no results yet (run the sweep first)")
    conn = db.connect(path)
    rep = sweep.report
    DEFINES.clear()
    DEFINES.update(rep.get("define", {}))
    by = [db.column_name(a[0]) for a in sweep.axes]
    cur = "point_index IS NOT NULL"
    status = dict(conn.execute(f"SELECT status, count(*) FROM runs WHERE {cur} GROUP BY status").fetchall())
    versions = [r[0] for r in conn.execute(f"SELECT DISTINCT version FROM runs WHERE {cur}")]
    wall = conn.execute(f"SELECT sum(wall_s), sum(events) FROM runs WHERE {cur}").fetchone()
    parts = [f"<h1>{esc(sweep.title)}</h1>",
             f"<p class=meta>sweep <code>{esc(sweep.name)}</code> ({esc(os.path.relpath(sweep.path))}); "
             f"{sum(status.values())} runs ({', '.join(f'{k} {v}' for k, v in sorted(status.items()))}); "
             f"seeds {esc(', '.join(map(str, sweep.seeds)))}; {esc('; '.join(versions))}; "
             f"{fmt(wall[0] or 0)} s of simulation wall time, {wall[1] or 0:,} events</p>"]
    if sweep.description:
        parts.append(text_html(sweep.description))
    if rep.get("setup"):
        parts += ["<h2>Setup</h2>", text_html(rep["setup"])]
    fixed = [(f, json.dumps(v) if not isinstance(v, str) else v) for f, v in sweep.fixed]
    axes = [(n, ", ".join(str(lab) for lab, _ in pts)) for n, _, pts in sweep.axes]
    parts.append(table_html(["fixed flag", "value"], fixed) + table_html(["axis", "values"], axes))
    claims = rep.get("claim", [])
    if claims:
        parts.append("<h2>The paper's statements and our verdicts</h2>")
        parts += [claim_html(conn, c, i + 1) for i, c in enumerate(claims)]
    parts.append("<h2>Results</h2>")
    ol = open_loop(conn)
    # open-loop runs: the slowdowns by size group are what matters (FCTs of
    # an open-loop run mix every size; the maximum is one message)
    metrics = rep.get("metrics", ["poisson_slowdown_all_slowdown_median", "poisson_slowdown_all_slowdown_p99",
                                  "poisson_slowdown_d_slowdown_p99", "poisson_goodput_gbps_per_host_mean"] if ol else
                      ["fct_median_us", "fct_p99_us", "fct_max_us"])
    parts.append(metrics_table(conn, metrics, by))
    plots = rep.get("plot")
    if plots is None:
        plots = ([{"kind": "groups"}] if ol else []) + [{"kind": "cdf"}, {"kind": "slowdown"}, {"kind": "heatmap"},
                                                        {"kind": "timeseries"}]
        for name, kind, pts in sweep.axes:
            if len(pts) > 1 and kind in ("flag", "var"):
                plots.append({"kind": "metric", "x": name, "y": "poisson_slowdown_all_slowdown_p99" if ol else "fct_max_us",
                              "group": [a[0] for a in sweep.axes if a[0] != name]})
    figs = []
    for p in plots:
        k = p.get("kind")
        try:
            if k == "cdf":
                figs.append(cdf_plot(conn, p))
            elif k == "slowdown":
                figs.append(slowdown_plot(conn, p))
            elif k == "groups":
                figs.append(group_plots(conn, p))
            elif k == "heatmap":
                figs.append(heatmap_plots(conn, p))
            elif k == "metric":
                figs.append(metric_plot(conn, p))
            elif k == "timeseries":
                figs.append(timeseries_plots(conn, outdir, p))
            else:
                figs.append(f"<p class=disagrees>unknown plot kind {esc(k)}</p>")
        except (ValueError, sqlite3.Error, KeyError) as e:
            figs.append(f"<p class=disagrees>plot {esc(json.dumps(p))} failed: {esc(e)}</p>")
    parts.append("\n".join(f for f in figs if f))
    if rep.get("reading"):
        parts += ["<h2>Reading</h2>", text_html(rep["reading"])]
    failed = conn.execute(f"SELECT point_id, combo, seed, error FROM runs WHERE status = 'failed' AND {cur}").fetchall()
    if failed:
        parts += ["<h2>Failed runs</h2>", table_html(["point", "axes", "seed", "error"],
                                                      [(a, combo_label(b), c, d) for a, b, c, d in failed])]
    rows = conn.execute("SELECT r.point_id, r.combo, r.seed, r.status, s.fct_max_us, r.wall_s, r.events, r.command "
                        "FROM runs r LEFT JOIN summaries s USING(point_id) WHERE r.point_index IS NOT NULL ORDER BY r.point_index").fetchall()
    parts.append("<h2>Runs</h2><details><summary>every run and its command</summary>" +
                 table_html(["point", "axes", "seed", "status", "fct_max_us", "wall s", "events", "command"],
                            [(a, combo_label(b), c, d, e, f, g, h) for a, b, c, d, e, f, g, h in rows]) +
                 "</details>")
    db.write_atomic(out, page(sweep.title, "\n".join(parts)))
