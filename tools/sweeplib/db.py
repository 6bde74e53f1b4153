"""The results database of one sweep (SQLite): schema, ingest and statistics.

Tables (docs/sweeps.md, "The results database", lists every column):
  meta(key, value)         sweep name, sweep file text, binary version
  runs(point_id, ...)      one row per finished point: seed, rep, one column
                           per axis and per flag, command, version, commit,
                           input hashes, wall time, events, status
  flows(point_id, ...)     flows.csv rows
  queues(point_id, ...)    queues.csv rows
  summaries(point_id, ...) summary.json flattened ('flows.fct_max_us' ->
                           fct_max_us; lists as JSON text)
  ts_flows, ts_ports, ts_hosts (point_id, ...)  the time-series capture's
                           ts_*.csv rows, when a run wrote them, so report
                           claims can compute properties of a trace in SQL
CSV columns vary with the transport and congestion control, so a column seen
for the first time is added (ALTER TABLE) with the type its values have.
A point is ingested in one transaction whose last statement writes its runs
row: a point is complete exactly when its runs row exists, and a point
ingested twice (after a crash between the run and the ingest) replaces its
own rows instead of duplicating them.
"""
import csv
import json
import math
import os
import sqlite3
import threading

from .spec import column_name

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs (
  point_id TEXT PRIMARY KEY, sweep TEXT NOT NULL, seed INTEGER NOT NULL,
  rep INTEGER NOT NULL, point_index INTEGER, combo TEXT NOT NULL, command TEXT NOT NULL,
  version TEXT, "commit" TEXT, input_hashes TEXT, wall_s REAL, events INTEGER,
  simulated_us REAL, flows_total INTEGER, flows_finished INTEGER,
  status TEXT NOT NULL, exit_code INTEGER, error TEXT, finished_at TEXT);
CREATE TABLE IF NOT EXISTS flows (point_id TEXT NOT NULL, flow_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS queues (point_id TEXT NOT NULL, port INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS summaries (point_id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS ts_flows (point_id TEXT NOT NULL, time_us REAL NOT NULL);
CREATE TABLE IF NOT EXISTS ts_ports (point_id TEXT NOT NULL, time_us REAL NOT NULL);
CREATE TABLE IF NOT EXISTS ts_hosts (point_id TEXT NOT NULL, time_us REAL NOT NULL);
CREATE INDEX IF NOT EXISTS ts_flows_pt ON ts_flows(point_id, time_us);
CREATE INDEX IF NOT EXISTS ts_ports_pt ON ts_ports(point_id, time_us);
CREATE INDEX IF NOT EXISTS ts_hosts_pt ON ts_hosts(point_id, time_us);
CREATE INDEX IF NOT EXISTS runs_seed ON runs(seed);
CREATE INDEX IF NOT EXISTS runs_combo ON runs(combo);
CREATE UNIQUE INDEX IF NOT EXISTS flows_pk ON flows(point_id, flow_id);
CREATE UNIQUE INDEX IF NOT EXISTS queues_pk ON queues(point_id, port);
"""
# extra indexes once their columns exist: the usual queries select flows by
# size (slowdown against size) and ports by kind and direction (heatmaps)
LATE_INDEXES = {
    "flows": [("flows_size", "point_id, size_bytes")],
    "queues": [("queues_kind", "point_id, node_kind, direction")],
}


TS_TABLES = ("ts_flows", "ts_ports", "ts_hosts")


def connect(path):
    conn = sqlite3.connect(path, timeout=60)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(SCHEMA)
    return conn


def columns(conn, table):
    return {r[1]: r[2] for r in conn.execute(f'PRAGMA table_info("{table}")')}


def sql_type(values):
    """INTEGER, REAL or TEXT: the narrowest type every non-empty value fits;
    NUMERIC when every value is empty (the type is not known yet)."""
    t = "INTEGER"
    if all(v is None or v == "" for v in values):
        return "NUMERIC"
    for v in values:
        if v is None or v == "":
            continue
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            continue
        if isinstance(v, float):
            t = "REAL"
            continue
        s = str(v)
        try:
            int(s)
            continue
        except ValueError:
            pass
        try:
            float(s)
            t = "REAL"
        except ValueError:
            return "TEXT"
    return t


def convert(v, t):
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        return int(v)
    if t == "INTEGER":
        try:
            return int(v)
        except (ValueError, TypeError):
            return v
    if t == "REAL":
        try:
            return float(v)
        except (ValueError, TypeError):
            return v
    return v if isinstance(v, (int, float)) else str(v)


def ensure_columns(conn, table, sample):
    """Adds the columns of sample {name: [values]} the table lacks."""
    have = columns(conn, table)
    for name, values in sample.items():
        if name not in have:
            t = sql_type(values)
            conn.execute(f'ALTER TABLE "{table}" ADD COLUMN "{name}" {t}')
            have[name] = t
    for iname, cols in LATE_INDEXES.get(table, []):
        if all(c.strip() in have for c in cols.split(",")):
            conn.execute(f'CREATE INDEX IF NOT EXISTS {iname} ON "{table}"({cols})')
    return have


def insert_rows(conn, table, header, rows, point_id):
    sample = {h: [r[i] for r in rows[:2000]] for i, h in enumerate(header)}
    types = ensure_columns(conn, table, sample)
    cols = ["point_id"] + header
    q = f'INSERT INTO "{table}" ({",".join(chr(34) + c + chr(34) for c in cols)}) VALUES ({",".join("?" * len(cols))})'
    tl = [types[h] for h in header]
    conn.executemany(q, ([point_id] + [convert(v, t) for v, t in zip(r, tl)] for r in rows))


def read_csv(path):
    """(column names, rows); a row whose width differs from the header's (a
    truncated file) is a ValueError naming its line."""
    with open(path, newline="") as f:
        rd = csv.reader(f)
        header = next(rd)
        rows = [r for r in rd]
    for n, r in enumerate(rows, 2):
        if len(r) != len(header):
            raise ValueError(f"line {n}: {len(r)} fields, the header has {len(header)}")
    return [column_name(h) for h in header], rows


def flatten(d, prefix="", out=None):
    """summary.json -> {column: value}; the top level's section names are
    dropped where they add nothing ('flows.fct_max_us' -> 'fct_max_us'),
    kept where names would clash ('packets.retransmits' -> 'packets_retransmits')."""
    if out is None:
        out = {}
    for k, v in d.items():
        name = f"{prefix}_{k}" if prefix else k
        if isinstance(v, dict) and v and not prefix:
            flatten(v, k, out)
        elif isinstance(v, dict) and v:
            flatten(v, name, out)
        elif isinstance(v, (list, dict)):
            out[column_name(name)] = json.dumps(v, sort_keys=True)
        else:
            out[column_name(name)] = v
    return out


def summary_columns(summary):
    flat = flatten(summary)
    # friendlier names for the ones every query uses
    ren = {"flows_fct_median_us": "fct_median_us", "flows_fct_p99_us": "fct_p99_us",
           "flows_fct_max_us": "fct_max_us", "flows_fct_mean_us": "fct_mean_us",
           "flows_total": "flows_total", "flows_finished": "flows_finished",
           # the FCT figures' population and how much of it is censored
           # (docs/outputs.md "Unfinished messages")
           "flows_fct_n": "fct_n", "flows_fct_unfinished": "fct_unfinished",
           "flows_fct_lower_bound": "fct_lower_bound"}
    return {ren.get(k, k): v for k, v in flat.items()}


def ingest(conn, sweep_name, point, rundir, meta, ptypes, keep_flows=True):
    """Ingests one finished point in one transaction; the runs row goes last.
    keep_flows=False (the sweep file's `flows = false`): flows.csv is not
    loaded, and is deleted once the point is in the database."""
    pid = point.id
    summ = None
    status, err = "done", None
    tables = []  # (table, header, rows), read before the transaction
    if meta["exit_code"] != 0:
        status, err = "failed", meta.get("error")
    else:
        # outputs that cannot be read (truncated, edited, a file missing)
        # make the point failed with the reason, never a half-ingested
        # point or a traceback that stops the sweep
        fname = "summary.json"
        try:
            with open(os.path.join(rundir, fname)) as f:
                summ = json.load(f)
            counts = (summ["run"]["events"], summ["run"]["simulated_us"],
                      summ["flows"]["total"], summ["flows"]["finished"])
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in counts):
                raise ValueError("run.events, run.simulated_us, flows.total, flows.finished must be numbers")
            for table, fname in (("flows", "flows.csv"), ("queues", "queues.csv")):
                if table == "flows" and not keep_flows:
                    continue
                tables.append((table,) + read_csv(os.path.join(rundir, fname)))
            for table in TS_TABLES:  # the time-series capture's files, if any
                fname = table + ".csv"
                f = os.path.join(rundir, fname)
                if os.path.exists(f):
                    header, rows = read_csv(f)
                    if rows:
                        tables.append((table, header, rows))
        except (OSError, ValueError, KeyError, TypeError, StopIteration, csv.Error) as e:
            why = {KeyError: "no key", StopIteration: "empty file"}.get(type(e), "")
            status, err, summ, tables = "failed", f"{fname}: {why} {e}".replace("  ", " ").strip(), None, []
    with conn:
        for t in ("flows", "queues", "summaries") + TS_TABLES:
            conn.execute(f'DELETE FROM "{t}" WHERE point_id = ?', (pid,))
        conn.execute("DELETE FROM runs WHERE point_id = ?", (pid,))
        if summ is not None:
            for table, header, rows in tables:
                insert_rows(conn, table, header, rows, pid)
            flat = summary_columns(summ)
            names = list(flat)
            insert_rows(conn, "summaries", names, [[flat[n] for n in names]], pid)
            if status == "done" and summ["flows"]["finished"] < summ["flows"]["total"]:
                status = "unfinished"
        row = {
            "point_id": pid, "sweep": sweep_name, "seed": point.seed, "rep": point.rep,
            "point_index": point.index,
            "combo": combo_key(point.labels), "command": meta["command"],
            "version": meta["version"], "commit": meta.get("commit"),
            "input_hashes": json.dumps(point.input_hashes, sort_keys=True),
            "wall_s": meta["wall_s"], "status": status, "exit_code": meta["exit_code"],
            "error": err, "finished_at": meta["finished_at"],
        }
        if summ is not None:
            row.update(events=summ["run"]["events"], simulated_us=summ["run"]["simulated_us"],
                       flows_total=summ["flows"]["total"], flows_finished=summ["flows"]["finished"])
        param_types, defaults = ptypes
        params = dict(defaults)
        params.update(point_params(point))
        have = columns(conn, "runs")
        for name, v in params.items():
            if name not in have:
                conn.execute(f'ALTER TABLE runs ADD COLUMN "{name}" {param_types.get(name, "TEXT")}')
                conn.execute(f'CREATE INDEX IF NOT EXISTS "runs_{name}" ON runs("{name}")')
                have[name] = param_types.get(name, "TEXT")
            row[name] = convert(v, have[name])
        cols = list(row)
        conn.execute(f'INSERT INTO runs ({",".join(chr(34) + c + chr(34) for c in cols)}) '
                     f'VALUES ({",".join("?" * len(cols))})', [row[c] for c in cols])
    if not keep_flows:
        try:
            os.unlink(os.path.join(rundir, "flows.csv"))
        except FileNotFoundError:
            pass
    return status


def combo_key(labels):
    """The point's axis values without the seed: groups repetitions."""
    return json.dumps(labels, sort_keys=True, separators=(",", ":"))


def point_params(point):
    """{column: value}: every named axis's label and every flag's value
    (flags and axis values share one namespace of columns)."""
    out = {}
    for flag, v in point.flags:
        c = column_name(flag)
        if isinstance(v, list):
            v = " ".join(str(x) for x in v)
        elif isinstance(v, bool):
            v = int(v)
        out[c] = v
    for axis, label in point.labels.items():
        if not axis.startswith("-"):
            out[column_name(axis)] = label
    return out


def param_types(points):
    """{column: SQL type} over every point; a flag given as true/false in
    some points gets 0 in the points that leave it out, so the column says
    'off' rather than NULL. Returns (types, {column: default})."""
    vals, bools = {}, set()
    for p in points:
        for flag, v in p.flags:
            if isinstance(v, bool):
                bools.add(column_name(flag))
        for k, v in point_params(p).items():
            vals.setdefault(k, []).append(v)
    return {k: sql_type(v) for k, v in vals.items()}, {k: 0 for k in bools}


# the runs that count: finished, and still points of the sweep file
LIVE = "r.status IN ('done','unfinished') AND r.point_index IS NOT NULL"


def renumber(conn, points):
    """Keeps runs.point_index (the order of the sweep file's expansion, which
    tables and plots follow) current after the file gains axes or seeds; a
    point the file no longer has (an axis value removed or changed) keeps
    its rows but gets NULL, which leaves it out of queries and reports."""
    with conn:
        conn.execute("UPDATE runs SET point_index = NULL")
        conn.executemany("UPDATE runs SET point_index = ? WHERE point_id = ?",
                         [(p.index, p.id) for p in points])


def done_ids(conn):
    return {r[0] for r in conn.execute("SELECT point_id FROM runs")}


# -- statistics -----------------------------------------------------------
# two-sided 95% Student t quantiles, df = 1..30 (standard tables)
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def mean_ci95(values):
    """(n, mean, half-width of the 95% confidence interval of the mean, by
    Student's t over the values: None with fewer than two)."""
    xs = [float(v) for v in values if v is not None]
    n = len(xs)
    if n == 0:
        return 0, None, None
    m = sum(xs) / n
    if n < 2:
        return n, m, None
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    if var <= (1e-12 * m) ** 2:  # equal values up to rounding: no spread
        var = 0.0
    t = T95[n - 2] if n - 1 <= len(T95) else 1.96
    return n, m, t * math.sqrt(var / n)


def metric_expr(conn, metric):
    """SQL for a metric: a summaries or runs column name, or an SQL
    expression over runs r and summaries s (it may use r.point_id in a
    subquery of flows or queues)."""
    if metric in columns(conn, "summaries"):
        return f's."{metric}"'
    if metric in columns(conn, "runs"):
        return f'r."{metric}"'
    return f"({metric})"


def per_run(conn, metric, by, where=None):
    """[(group values tuple, seed, metric value)] for finished points."""
    m = metric_expr(conn, metric)
    rc = columns(conn, "runs")
    for b in by:
        if b not in rc:
            raise ValueError(f"no runs column {b!r} (have: {', '.join(sorted(rc))})")
    g = ",".join(f'r."{b}"' for b in by) or "NULL"
    q = (f"SELECT {g}, r.seed, {m} FROM runs r LEFT JOIN summaries s USING(point_id) "
         f"WHERE {LIVE}" + (f" AND ({where})" if where else "") +
         " ORDER BY r.point_index, r.rowid")
    return [(tuple(row[:len(by)]) if by else (), row[-2], row[-1]) for row in conn.execute(q)]


def aggregate(conn, metric, by, where=None):
    """[(group tuple, n, mean, ci95 half-width)] in first-seen order."""
    groups = {}
    for key, _seed, v in per_run(conn, metric, by, where):
        groups.setdefault(key, []).append(v)
    return [(k,) + mean_ci95(vs) for k, vs in groups.items()]


def write_atomic(path, text):
    """Writes path by write-and-rename; a failed write (a full disk) leaves
    the old file and no temporary, and names path in its error. One copy for
    the runner and the reports."""
    tmp = f"{path}.tmp.{os.getpid()}.{threading.get_ident()}"
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OSError(e.errno, e.strerror, path) from None
