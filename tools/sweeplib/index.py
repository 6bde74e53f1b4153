"""The experiments' index page and the figure coverage table.

experiments/coverage.tsv names every figure of seeds 000, 003 and 004
(specs/seeds-figures.md Sec. 2.2, 2.3, 2.5) and what reproduces it: sweeps
(experiments/NAME.toml, whose report is experiments/reports/NAME.html) or
other files under experiments/ (a shell script and its write-up), or why
nothing does (a diagram, hardware only, not run yet). check() keeps it
honest against the directory: every reference exists and every sweep file
is referenced by some row, so a sweep cannot be added, renamed or dropped
without the table following. write_index() writes reports/index.html (each
report with its verdict counts, then the coverage table); markdown() prints
the same table in markdown, and fidelity() the block of docs/fidelity.md
that write_fidelity() keeps current: verdict counts per report, every
claim's verdict as its report states it, and the coverage table, all read
from the committed reports, so the manual cannot drift from them. Standard
library only: make test runs the checks without matplotlib.
"""
import html
import os
import re
import tomllib

from .spec import SpecError

COLUMNS = ["seed", "figure", "content", "status", "where", "reason"]
# reproduced: a sweep on the paper's setup (or as close as stated); proxy: a
# simulation standing in for a hardware figure; partial: some panels or
# claims; not yet: expressible, not run; diagram: no data to reproduce.
STATUSES = ["reproduced", "proxy", "partial", "not yet", "diagram", "not expressible"]
NEEDS_WHERE = {"reproduced", "proxy", "partial"}


def read(expdir):
    """The rows of EXPDIR/coverage.tsv as dicts (with 'line'); a malformed
    line is a SpecError naming file:line."""
    path = os.path.join(expdir, "coverage.tsv")
    rows = []
    header = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                if cells != COLUMNS:
                    raise SpecError(f"{path}:{n}: header must be {' '.join(COLUMNS)} (tab-separated)")
                header = cells
                continue
            if len(cells) != len(COLUMNS):
                raise SpecError(f"{path}:{n}: {len(cells)} fields, expected {len(COLUMNS)} (tab-separated)")
            row = dict(zip(COLUMNS, (c.strip() for c in cells)))
            row["line"] = n
            if row["status"] not in STATUSES:
                raise SpecError(f"{path}:{n}: status {row['status']!r} is not one of {', '.join(STATUSES)}")
            if not row["figure"]:
                raise SpecError(f"{path}:{n}: empty figure")
            rows.append(row)
    if header is None:
        raise SpecError(f"{path}: no header line")
    return rows


def refs(row):
    return row["where"].split()


def is_sweep(expdir, ref):
    """A sweep: experiments/NAME.toml, or DIR/NAME.toml one level down (the
    separate steps, e.g. large/, seed001/), whose report is reports/NAME.html."""
    parts = ref.split("/")
    return (len(parts) <= 2 and "." not in ref and ".." not in parts and not ref.startswith("/")
            and os.path.exists(os.path.join(expdir, ref + ".toml")))


def report_name(ref):
    """A sweep reference's report name: the sweep file's base name."""
    return ref.rsplit("/", 1)[-1]


def sweep_files(expdir):
    """Every sweep file: experiments/*.toml (make figures), then those one
    directory down (separate steps), as paths relative to EXPDIR."""
    top = sorted(f for f in os.listdir(expdir) if f.endswith(".toml"))
    sub = sorted(os.path.join(d, f) for d in os.listdir(expdir) if os.path.isdir(os.path.join(expdir, d)) and d != "reports"
                 for f in os.listdir(os.path.join(expdir, d)) if f.endswith(".toml"))
    return top + sub


def check(expdir):
    """Problems of the coverage table against EXPDIR, one line each (empty:
    consistent): unknown references, rows that need a reference and have
    none, duplicate figures, and sweep files no row references."""
    path = os.path.join(expdir, "coverage.tsv")
    problems = []
    rows = read(expdir)
    seen = {}
    used = set()
    for r in rows:
        key = (r["seed"], r["figure"])
        if key in seen:
            problems.append(f"{path}:{r['line']}: seed {r['seed']} figure {r['figure']} already on line {seen[key]}")
        seen[key] = r["line"]
        if r["status"] in NEEDS_WHERE and not refs(r):
            problems.append(f"{path}:{r['line']}: status {r['status']} needs a sweep or file in 'where'")
        for ref in refs(r):
            if is_sweep(expdir, ref):
                used.add(ref)
            elif not os.path.isfile(os.path.join(expdir, ref)) or ref.startswith("/") or ".." in ref.split("/"):
                problems.append(f"{path}:{r['line']}: {ref}: neither experiments/{ref}.toml nor a file under experiments/")
    for f in sorted(os.listdir(expdir)):
        if f.endswith(".toml") and f[:-5] not in used:
            problems.append(f"{path}: experiments/{f} is referenced by no figure (add it to a row's 'where')")
    return problems


def cell(text):
    """A markdown table cell: '|' escaped, whitespace runs as one blank."""
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown(expdir, root=""):
    """The coverage table in markdown; links are ROOT + the path from the
    project root ('' for a page at the root, '../' for one under docs/)."""
    rows = read(expdir)
    out = ["| seed | figure | content | status | reproduced by | notes |", "|---|---|---|---|---|---|"]
    for r in rows:
        links = []
        for ref in refs(r):
            if is_sweep(expdir, ref):
                links.append(f"[{ref}]({root}experiments/reports/{report_name(ref)}.html)")
            else:
                links.append(f"[{ref}]({root}experiments/{ref})")
        cells = [r["seed"], r["figure"], r["content"], r["status"], ", ".join(links) or "-", r["reason"]]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"


def verdicts(report_html):
    """Counts of agreeing, partly agreeing, disagreeing and within-noise/open
    claims in a report."""
    text = open(report_html, encoding="utf-8").read()
    return tuple(len(re.findall(rf'Verdict: <span class="{c}"', text))
                 for c in ("agrees", "partly", "disagrees", "open"))


def direction_only(report_html):
    """How many of a report's agreeing claims agree on a direction only (the
    paper gave no number: `direction` claims)."""
    text = open(report_html, encoding="utf-8").read()
    return text.count('Verdict: <span class="agrees">agrees, direction only:')


CLAIM_RE = re.compile(r'<h3>(.*?)</h3>(.*?)<p>Verdict: <span class="(\w+)">(.*?)</span></p>', re.S)
MEASURED_RE = re.compile(r"<td>measured</td><td>(.*?)</td>", re.S)


def claims(report_html):
    """Every claim of a report as (heading, measured, class, verdict
    wording), in the report's order; class is agrees, partly, disagrees or
    open; measured is '' when the claim could not be evaluated. A heading
    without a verdict after it (a figure's) is not a claim."""
    text = open(report_html, encoding="utf-8").read()
    out = []
    for m in CLAIM_RE.finditer(text):
        head = m.group(1)
        body = m.group(2)
        if "<h3>" in body:   # a figure's heading ran into the next claim's
            head = body.rsplit("<h3>", 1)[1].split("</h3>", 1)[0]
            body = body.rsplit("</h3>", 1)[1]
        meas = MEASURED_RE.search(body)
        plain = (lambda t: html.unescape(re.sub(r"<[^>]+>", "", t)))
        out.append((plain(head), plain(meas.group(1)) if meas else "", m.group(3), plain(m.group(4))))
    return out


def sources(claims):
    """How many claims take their threshold from the paper, the reference
    simulator and ourselves (a claim's `source`, 'KIND: ...')."""
    kinds = [str(c.get("source", "")).split(":", 1)[0].strip() for c in claims]
    return tuple(kinds.count(k) for k in ("paper", "reference", "ours"))


def report_rows(expdir):
    """(name, title, (agrees, direction only, partly, disagrees, open),
    (paper, reference, ours)) of every sweep whose report exists, in
    sweep_files() order; "direction only" counts agreeing claims that agree
    on a direction only (they are also in agrees)."""
    reports = os.path.join(expdir, "reports")
    rows = []
    for f in sweep_files(expdir):
        name = report_name(f[:-5])
        rep = os.path.join(reports, name + ".html")
        if not os.path.exists(rep):
            continue
        try:
            with open(os.path.join(expdir, f), "rb") as fh:
                spec = tomllib.load(fh)
        except ValueError as e:  # TOMLDecodeError: one line, as tools/sweep reports bad sweep files
            raise SpecError(f"{os.path.join(expdir, f)}: {e}")
        title = spec.get("sweep", {}).get("title", name)
        cl = spec.get("report", {}).get("claim", [])
        cl = cl if isinstance(cl, list) else []
        ok, part, bad, noisy = verdicts(rep)
        rows.append((name, title, (ok, direction_only(rep), part, bad, noisy),
                     sources(c for c in cl if isinstance(c, dict))))
    return rows


FIDELITY_BEGIN = "<!-- BEGIN generated by tools/sweep fidelity: do not edit by hand -->"
FIDELITY_END = "<!-- END generated by tools/sweep fidelity -->"
VERDICT_WORD = {"agrees": "agrees", "partly": "partly", "disagrees": "disagrees", "open": "within noise or open"}


def fidelity(expdir, root="../"):
    """The generated block of docs/fidelity.md (markers excluded): verdict
    counts per report with their totals, every claim's verdict, then the
    coverage table; links are ROOT + the path from the project root."""
    rep_rows = report_rows(expdir)
    out = ["### Verdicts per report", "",
           "| report | sweep | agrees | of which direction only | partly | disagrees | within noise or open | thresholds from the paper | from the reference | ours |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total = [0] * 8
    for name, title, v, src in rep_rows:
        total = [a + b for a, b in zip(total, v + src)]
        out.append(f"| [{name}]({root}experiments/reports/{name}.html) | {cell(title)} | "
                   + " | ".join(str(n) for n in v + src) + " |")
    out.append("| **total** | | " + " | ".join(f"**{n}**" for n in total) + " |")
    out += ["", "### Every claim", "",
            "Each claim as its report states it: the figure and statement, then the verdict "
            "with the bound it was judged against.", "",
            "| report | claim | measured | verdict |", "|---|---|---|---|"]
    for name, _, _, _ in rep_rows:
        for head, meas, cls, text in claims(os.path.join(expdir, "reports", name + ".html")):
            word = VERDICT_WORD.get(cls, cls)
            detail = text if text.startswith(word.split()[0]) else f"{word}: {text}"
            out.append(f"| [{name}]({root}experiments/reports/{name}.html) | {cell(head)} | {cell(meas)} | {cell(detail)} |")
    rows = read(expdir)
    counts = ", ".join(f"{n} {s}" for s, n in ((s, sum(1 for r in rows if r["status"] == s)) for s in STATUSES) if n)
    out += ["", "### Figure coverage", "", f"{len(rows)} rows: {counts}.", "", markdown(expdir, root).rstrip("\n")]
    return "\n".join(out) + "\n"


def write_fidelity(expdir, doc, check_only=False):
    """Replaces the text between FIDELITY_BEGIN and FIDELITY_END in DOC with
    fidelity(); True when DOC changed (or, with check_only, would change:
    DOC is then left alone). Missing or misordered markers are a SpecError
    naming DOC."""
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    a, b = text.find(FIDELITY_BEGIN), text.find(FIDELITY_END)
    if a < 0 or b < a or text.count(FIDELITY_BEGIN) != 1 or text.count(FIDELITY_END) != 1:
        raise SpecError(f"{doc}: needs one line '{FIDELITY_BEGIN}' and, after it, one '{FIDELITY_END}'")
    new = text[:a] + FIDELITY_BEGIN + "\n\n" + fidelity(expdir) + "\n" + text[b:]
    if new == text:
        return False
    if not check_only:
        tmp = doc + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, doc)
    return True


def write_index(expdir, out=None):
    """EXPDIR/reports/index.html (or OUT): one row per report with its title
    and verdict counts, then the figure coverage table. Returns the path."""
    reports = os.path.join(expdir, "reports")
    out = out or os.path.join(reports, "index.html")
    esc = html.escape
    rows = []
    total = [[0] * 8]
    for name, title, (ok, dirn, part, bad, noisy), src in report_rows(expdir):
        total[0] = [a + b for a, b in zip(total[0], (ok, dirn, part, bad, noisy) + src)]
        rows.append(f'<tr><td><a href="{esc(name)}.html">{esc(title)}</a></td><td>{ok}</td><td>{dirn}</td><td>{part}</td>'
                    f'<td>{bad}</td><td>{noisy}</td><td>{src[0]}</td><td>{src[1]}</td><td>{src[2]}</td></tr>')
    cov = []
    for r in read(expdir):
        links = []
        for ref in refs(r):
            if is_sweep(expdir, ref):
                if os.path.exists(os.path.join(reports, report_name(ref) + ".html")):
                    links.append(f'<a href="{esc(report_name(ref))}.html">{esc(ref)}</a>')
                else:
                    links.append(f"{esc(ref)} (no report yet)")
            else:
                links.append(f'<a href="../{esc(ref)}">{esc(ref)}</a>')
        cls = r["status"].replace(" ", "_")
        cov.append(f'<tr><td>{esc(r["seed"])}</td><td>{esc(r["figure"])}</td><td>{esc(r["content"])}</td>'
                   f'<td class="{cls}">{esc(r["status"])}</td><td>{", ".join(links) or "-"}</td><td>{esc(r["reason"])}</td></tr>')
    counts = {s: sum(1 for r in read(expdir) if r["status"] == s) for s in STATUSES}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>spraysim reports</title>"
            "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}td,th{border:1px solid #ccc;padding:3px 8px;vertical-align:top}"
            "table{border-collapse:collapse}.reproduced{color:#070}.proxy{color:#06a}.partial,.not_yet{color:#a60}"
            ".diagram,.not_expressible{color:#666}</style></head><body><h1>spraysim experiment reports</h1>"
            "<p>Written by <code>make figures</code>; each report is self-contained. A claim agrees, agrees "
            "<em>partly</em> (only the direction or a subset holds, or the paper's \"always\" holds on the mean but "
            "not in every seed), disagrees, or is within noise or open. Where the paper states only a direction "
            "(\"better\", \"grows\") the claim is a direction claim: it agrees <em>direction only</em> when the "
            "noise (the 95% CI over seeds, or a stated half-width for one seed) clears the neutral point. A claim's "
            "threshold comes from the paper, the "
            "reference simulator's recorded numbers, or from us (each claim's <code>source</code>, shown in its "
            "report).</p><table><tr><th>report</th><th>claims agreeing</th><th>of which direction only</th><th>partly</th><th>disagreeing</th>"
            "<th>within noise or open</th><th>thresholds from the paper</th><th>from the reference</th>"
            "<th>ours</th></tr>" + "".join(rows) +
            "<tr><th>total</th>" + "".join(f"<th>{n}</th>" for n in total[0]) + "</tr></table>"
            "<h2 id=\"coverage\">Figure coverage: seeds 000, 003 and 004</h2>"
            f"<p>Every figure of the three seeds and what reproduces it ({esc(summary)}); from "
            "<code>experiments/coverage.tsv</code>.</p><table><tr><th>seed</th><th>figure</th><th>content</th>"
            "<th>status</th><th>reproduced by</th><th>notes</th></tr>" + "".join(cov) + "</table></body></html>\n")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, out)
    return out
