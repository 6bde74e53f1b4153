"""spraysim.sweep and spraysim.load_sweep: the sweep tool (tools/sweep) run
from Python, and its results database (results.db, SQLite; docs/sweeps.md "The
results database" lists the tables and columns) read into tables.

The sweep itself runs in the sweep tool, as from the shell, so a sweep run
from Python and one run from a terminal resume each other."""
import os
import sqlite3
import subprocess
import sys

from . import _checkout
from ._run import SpraysimError, binary_path
from ._tables import rows_to_table


def _sweep_tool():
    path = os.path.join(_checkout.ROOT, "tools", "sweep")
    if not os.path.isfile(path):
        raise SpraysimError(f"no sweep tool at {path}: spraysim.sweep needs the checkout "
                            "the package was installed from")
    return path


def _python():
    # the sweep tool needs Python 3.11 (tomllib); Debian's python3 has it
    if sys.version_info >= (3, 11):
        return sys.executable
    return "/usr/bin/python3"


class SweepResults:
    """A sweep's results database. runs, summaries, flows, queues: those
    tables; table(name): any table; sql(query, params): any query; all as
    tables (DataFrames when pandas is here and frames is not False)."""

    def __init__(self, path, frames=None):
        self.db_path = path
        self.frames = frames
        self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def close(self):
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def table_names(self):
        rows = self._conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").fetchall()
        return [r[0] for r in rows]

    def sql(self, query, params=()):
        cur = self._conn.execute(query, params)
        columns = [d[0] for d in cur.description] if cur.description else []
        return rows_to_table(columns, cur.fetchall(), self.frames)

    def table(self, name):
        if name not in self.table_names():
            raise KeyError(f"{self.db_path}: no table {name!r} (tables: {', '.join(self.table_names())})")
        return self.sql(f'SELECT * FROM "{name}"')

    @property
    def runs(self):
        return self.table("runs")

    @property
    def summaries(self):
        return self.table("summaries")

    @property
    def flows(self):
        return self.table("flows")

    @property
    def queues(self):
        return self.table("queues")

    def meta(self):
        return dict(self._conn.execute("SELECT key, value FROM meta").fetchall())


def load_sweep(path, frames=None):
    """A sweep's results: its folder (results/NAME) or its results.db."""
    path = os.fspath(path)
    db = path if path.endswith(".db") else os.path.join(path, "results.db")
    if not os.path.isfile(db):
        raise FileNotFoundError(f"{db}: no results database (has the sweep run?)")
    return SweepResults(db, frames)


def sweep(file, *, out=None, jobs=None, binary=None, fresh=False, retry_failed=False, report=False,
          limit=None, quiet=True, frames=None):
    """Runs a sweep file's points not done yet (tools/sweep run) and returns
    its SweepResults. out: the results folder (default results/NAME of the
    checkout, as the tool's). Raises SpraysimError with the tool's one-line
    message when the sweep file is bad or a point could not run."""
    cmd = [_python(), _sweep_tool(), "run", os.fspath(file), "--binary", binary_path(binary)]
    if out is not None:
        cmd += ["--out", os.fspath(out)]
    if jobs is not None:
        cmd += ["-j", str(int(jobs))]
    cmd += ["--fresh"] * bool(fresh) + ["--retry-failed"] * bool(retry_failed) + ["--report"] * bool(report)
    if limit is not None:
        cmd += ["--limit", str(int(limit))]
    if quiet:
        cmd.append("--quiet")
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        lines = [ln for ln in (p.stderr + p.stdout).splitlines() if ln.strip()]
        raise SpraysimError(lines[-1] if lines else f"tools/sweep exited {p.returncode}", p.returncode, cmd,
                            p.stderr)
    return load_sweep(out if out is not None else default_out(file), frames)


def default_out(file):
    """The results folder tools/sweep uses when --out is not given:
    results/NAME of the checkout, NAME from the file's [sweep] name."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the tool itself runs on Debian's python3
        raise SpraysimError(f"{file}: reading a sweep file needs Python 3.11 (tomllib); pass out=") from None
    with open(file, "rb") as f:
        name = tomllib.load(f).get("sweep", {}).get("name")
    if not isinstance(name, str):
        raise SpraysimError(f"{file}: [sweep] name missing")
    return os.path.join(_checkout.ROOT, "results", name)
