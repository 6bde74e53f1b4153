"""Sweep files: read a TOML sweep file, check it, and expand it into points.

A sweep file names fixed flags, parameter axes (any spraysim flag, or a named
axis whose values are sets of flags), seeds or repetitions, and optional
generated inputs (see docs/sweeps.md for the format). A point is
one spraysim command; its id is a hash of its arguments (input files by their
content hash, not their path), its seed and the binary's `--version` line, so
the same point always has the same id, and a new binary or a changed input
gives new ids instead of reusing stale results.
"""
import hashlib
import itertools
import json
import math
import os
import re
import subprocess
import tomllib

# spraysim flags that take two values (docs/running.md "Flags"); every other flag with
# a value takes one.
TWO_VALUE_FLAGS = {"-ecn", "-pfc_thresholds", "-timely_thresholds"}
# flags whose value is a file: hashed into the point id.
FILE_FLAGS = {"-tm", "-topo"}
# flags the sweep sets itself
RESERVED_FLAGS = {"-seed", "--seed", "--out", "-out", "--quiet", "--progress",
                  "--no-progress", "--version", "--help", "-h", "-help"}
SWEEP_KEYS = {"name", "title", "description", "binary", "seeds", "repetitions",
              "seed_base", "jobs", "flows"}
TOP_KEYS = {"sweep", "fixed", "axes", "inputs", "report", "exclude"}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z0-9_-]+))?\}")
BUILTIN_PLACEHOLDERS = {"shared", "root", "sweepdir", "seed", "input"}
# the runs table's own columns (db.SCHEMA): a flag or an axis whose column
# name is one of these would overwrite the sweep's bookkeeping in its row
RUNS_COLUMNS = {"point_id", "sweep", "seed", "rep", "point_index", "combo", "command",
                "version", "commit", "input_hashes", "wall_s", "events", "simulated_us",
                "flows_total", "flows_finished", "status", "exit_code", "error", "finished_at"}
# seeds go into SQLite INTEGER columns (signed 64-bit); spraysim itself takes
# 0 .. 2^64-1, the database only the lower half
SEED_MAX = 2**63 - 1
# repetitions beyond this are a typo, not a sweep (the expansion would build
# the whole list in memory before running anything)
MAX_REPETITIONS = 100000
# [report]'s keys, and the keys and value types of a claim and of a plot
# (report.py claim_html and sweep_report read them)
REPORT_KEYS = {"claim", "define", "metrics", "plot", "setup", "reading"}
NUM = (int, float)
CLAIM_KEYS = {"figure": str, "paper": str, "note": str, "metric": str, "where": str, "scale": str,
              "ratio": list, "diff": list, "select": dict, "expect": NUM, "tolerance": NUM,
              "at_most": NUM, "at_least": NUM, "source": str, "partly": dict, "all_seeds": bool,
              "subset": bool, "direction": bool, "noise": NUM}
# where a claim's threshold comes from (issue 23 item 2): the paper's text or
# figure, the reference simulator's recorded numbers, or a bound we chose;
# every claim names one, so no verdict rests on a threshold of unknown origin
SOURCE_KINDS = ("paper", "reference", "ours")
# a claim's weaker bound (`partly`): met while the main one is not, the
# verdict is "partly" (only the direction, or only a subset, holds); a claim
# marked `subset` tests part of what the paper states (one scenario of a
# mean over nine, one load of "every load"): met, it reads "partly" too
# a claim marked `direction` tests only which way a comparison goes, because
# that is all the paper says ("better", "grows", "meaningful"): its bound is
# the neutral point (a ratio at 1, a difference at 0), its agreement reads
# "direction only", and it is judged against noise: the 95% CI over seeds,
# or with one seed `noise`, a half-width around the measurement whose origin
# the claim's source or note states
BOUND_KEYS = {"expect": NUM, "tolerance": NUM, "at_most": NUM, "at_least": NUM}
PLOT_KEYS = {"kind": str, "x": str, "y": str, "group": (str, list), "where": str, "flows_where": str,
             "rows_where": str, "values": str, "from": str, "title": str, "xlabel": str, "ylabel": str,
             "logx": bool, "logy": bool, "max": int}
PLOT_KINDS = {"cdf", "slowdown", "heatmap", "metric", "timeseries"}


class SpecError(Exception):
    """A bad sweep file: the message names the file and the key."""


def root_dir():
    """The project root: the parent of tools/."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shared_dir():
    """$SHARED (relative to the current directory), else ../shared beside the project."""
    env = os.environ.get("SHARED")
    return os.path.abspath(env) if env else os.path.join(os.path.dirname(root_dir()), "shared")


def is_int(v):
    """A TOML integer (bool is an int subclass in Python, not one here)."""
    return isinstance(v, int) and not isinstance(v, bool)


def column_name(flag):
    """runs-table column of a flag: '--cc-opt' -> 'cc_opt', '-q' -> 'q'."""
    return re.sub(r"[^A-Za-z0-9_]", "_", flag.lstrip("-")).lower()


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Sweep:
    """A parsed sweep file."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.dir = os.path.dirname(self.path)
        try:
            with open(path, "rb") as f:
                self.text = f.read().decode("utf-8")
            data = tomllib.loads(self.text)
        except OSError as e:
            raise SpecError(f"{path}: {e.strerror}")
        except RecursionError:
            raise SpecError(f"{path}: arrays or tables nested too deeply")
        except ValueError as e:  # TOMLDecodeError, UnicodeDecodeError, an integer of thousands of digits
            raise SpecError(f"{path}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        self._parse(data)

    def err(self, where, msg):
        return SpecError(f"{self.path}: {where}: {msg}")

    def _parse(self, data):
        for k in data:
            if k not in TOP_KEYS:
                raise self.err(k, f"unknown table (expected one of {', '.join(sorted(TOP_KEYS))})")
        sw = data.get("sweep")
        if not isinstance(sw, dict):
            raise self.err("[sweep]", "missing")
        for k in sw:
            if k not in SWEEP_KEYS:
                raise self.err(f"sweep.{k}", "unknown key")
        self.name = sw.get("name")
        if not isinstance(self.name, str) or not NAME_RE.match(self.name):
            raise self.err("sweep.name", "required: letters, digits, '_', '-', '.'")
        self.title = str(sw.get("title", self.name))
        self.description = str(sw.get("description", ""))
        self.binary = sw.get("binary", "bin/spraysim")
        if not isinstance(self.binary, str) or not self.binary or "\0" in self.binary:
            raise self.err("sweep.binary", "a path to the spraysim binary")
        self.jobs = sw.get("jobs")
        if self.jobs is not None and (not is_int(self.jobs) or not 1 <= self.jobs <= 4096):
            raise self.err("sweep.jobs", "a whole number of parallel runs, 1 to 4096")
        # flows = false: flows.csv is neither loaded into the database nor
        # kept (open-loop runs of millions of messages; the summary has
        # their statistics)
        self.keep_flows = sw.get("flows", True)
        if not isinstance(self.keep_flows, bool):
            raise self.err("sweep.flows", "true or false")
        if "seeds" in sw and "repetitions" in sw:
            raise self.err("sweep.seeds", "give seeds or repetitions, not both")
        if "seeds" in sw:
            seeds = sw["seeds"]
            if (not isinstance(seeds, list) or not seeds or
                    not all(is_int(s) and 0 <= s <= SEED_MAX for s in seeds)):
                raise self.err("sweep.seeds", f"a non-empty list of seeds from 0 to {SEED_MAX} (2^63 - 1)")
            if len(set(seeds)) != len(seeds):
                raise self.err("sweep.seeds", "repeated seed")
            self.seeds = list(seeds)
        else:
            reps = sw.get("repetitions", 1)
            base = sw.get("seed_base", 1)
            for k, v in (("repetitions", reps), ("seed_base", base)):
                if not is_int(v) or v < (1 if k == "repetitions" else 0):
                    raise self.err(f"sweep.{k}", "a whole number" + (" >= 1" if k == "repetitions" else " >= 0"))
            if reps > MAX_REPETITIONS:
                raise self.err("sweep.repetitions", f"at most {MAX_REPETITIONS}")
            if base + reps - 1 > SEED_MAX:
                raise self.err("sweep.seed_base", f"the last seed, seed_base + repetitions - 1, "
                               f"must be at most {SEED_MAX} (2^63 - 1)")
            self.seeds = list(range(base, base + reps))
        self.inputs = {}
        if not isinstance(data.get("inputs", {}), dict):
            raise self.err("inputs", "tables [inputs.NAME]")
        for name, spec in data.get("inputs", {}).items():
            where = f"inputs.{name}"
            if not NAME_RE.match(name) or not isinstance(spec, dict):
                raise self.err(where, "a table with a name of letters, digits, '_', '-'")
            cmd = spec.get("command")
            if not isinstance(cmd, list) or not cmd or not all(isinstance(c, str) for c in cmd):
                raise self.err(f"{where}.command", "a non-empty list of strings (argv; stdout is the file)")
            for c in cmd:
                self._check_number(c, f"{where}.command")
            for k in spec:
                if k != "command":
                    raise self.err(f"{where}.{k}", "unknown key")
            self.inputs[name] = cmd
        self.fixed = self._flagset(data.get("fixed", {}), "fixed")
        # (name, kind, [(label, flagset)]): kind "flag" (a flag's values),
        # "named" (labelled flag sets) or "var" (values for {NAME} in flags)
        self.axes = []
        axes = data.get("axes", {})
        if not isinstance(axes, dict):
            raise self.err("axes", "a table")
        for name, values in axes.items():
            where = f"axes.{name}"
            if name.startswith("-"):
                if not isinstance(values, list) or not values:
                    raise self.err(where, "a non-empty list of values")
                pts = []
                for i, v in enumerate(values):
                    fs = self._flagset({name: v}, f"{where}[{i}]")
                    pts.append((self._label(v), fs))
            elif isinstance(values, list):
                # a variable: its values go into flags through {NAME}
                if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) or name in BUILTIN_PLACEHOLDERS:
                    raise self.err(where, "a variable's name: letters, digits and '_', not "
                                   + ", ".join(sorted(BUILTIN_PLACEHOLDERS)))
                if column_name(name) in RUNS_COLUMNS:
                    raise self.err(where, f"name reserved (the runs table's column {column_name(name)!r})")
                if not values or not all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in values):
                    raise self.err(where, "a non-empty list of numbers or strings")
                for v in values:
                    self._check_number(v, where)
                self.axes.append((name, "var", [(v, []) for v in values]))
                if len(set(values)) != len(values):
                    raise self.err(where, "repeated value")
                continue
            else:
                if not NAME_RE.match(name) or not isinstance(values, dict) or not values:
                    raise self.err(where, "a flag (\"--cc\" = [...]), a variable (degree = [8, 16]) "
                                   "or a named axis: a table of labelled flag sets")
                if column_name(name) in RUNS_COLUMNS:
                    raise self.err(where, f"name reserved (the runs table's column {column_name(name)!r})")
                pts = []
                for label, fl in values.items():
                    if not isinstance(fl, dict):
                        raise self.err(f"{where}.{label}", "a table of flags")
                    pts.append((label, self._flagset(fl, f"{where}.{label}")))
            labels = [p[0] for p in pts]
            if len(set(labels)) != len(labels):
                raise self.err(where, "repeated value")
            self.axes.append((name, "flag" if name.startswith("-") else "named", pts))
        # [[exclude]]: combinations to skip, each a table {axis: value}; a
        # combination is skipped when it matches every pair of one table
        self.excludes = []
        labels_of = {name: {str(lab) for lab, _ in pts} for name, _, pts in self.axes}
        excl = data.get("exclude", [])
        if not isinstance(excl, list):
            raise self.err("exclude", "an array of tables: [[exclude]]")
        for i, e in enumerate(excl):
            where = f"exclude[{i}]"
            if not isinstance(e, dict) or not e:
                raise self.err(where, "a non-empty table {axis = value}")
            for k, v in e.items():
                if k not in labels_of:
                    raise self.err(f"{where}.{k}", "not an axis")
                if self._label(v) not in labels_of[k]:
                    raise self.err(f"{where}.{k}", f"{v!r} is not one of the axis's values")
            self.excludes.append({k: self._label(v) for k, v in e.items()})
        self.report = data.get("report", {})
        self._check_report(self.report)

    def _check_number(self, v, where):
        """A value that goes into a flag or a database column: finite, and an
        integer inside SQLite's signed 64 bits."""
        if isinstance(v, float) and not math.isfinite(v):
            raise self.err(where, f"{v} is not a finite number")
        if isinstance(v, str) and "\0" in v:
            raise self.err(where, "a NUL character (\\u0000) cannot go into a command line")
        if is_int(v) and not -2**63 <= v <= 2**63 - 1:
            raise self.err(where, f"{v} is outside the 64-bit integer range")

    def _check_report(self, rep):
        """[report]'s keys and value types (what report.py reads), so a bad
        report table is refused with the sweep file, not found by a
        traceback after the runs."""
        if not isinstance(rep, dict):
            raise self.err("report", "a table")
        for k, v in rep.items():
            where = f"report.{k}"
            if k not in REPORT_KEYS:
                raise self.err(where, f"unknown key (expected one of {', '.join(sorted(REPORT_KEYS))})")
            if k in ("setup", "reading") and not isinstance(v, str):
                raise self.err(where, "a string")
            if k == "metrics" and (not isinstance(v, list) or not all(isinstance(x, str) and x for x in v)):
                raise self.err(where, "a list of metric names (strings)")
            if k == "define" and (not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values())):
                raise self.err(where, "a table of NAME = \"SQL expression\"")
            if k in ("claim", "plot"):
                if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
                    raise self.err(where, f"an array of tables: [[report.{k}]]")
                for i, t in enumerate(v):
                    self._check_table(t, CLAIM_KEYS if k == "claim" else PLOT_KEYS, f"{where}[{i}]")
                    if k == "plot" and t.get("kind") not in PLOT_KINDS:
                        raise self.err(f"{where}[{i}].kind", f"one of {', '.join(sorted(PLOT_KINDS))}")
                    if k == "plot" and t.get("kind") == "metric" and "x" not in t:
                        raise self.err(f"{where}[{i}].x", "required by a metric plot")
                    if k == "plot" and "group" in t and isinstance(t["group"], list) and \
                            not all(isinstance(g, str) for g in t["group"]):
                        raise self.err(f"{where}[{i}].group", "an axis name or a list of them")
                    if k == "plot" and "values" in t and "from" not in t:
                        raise self.err(f"{where}[{i}].from", "required with values")
                    if k == "claim":
                        self._check_claim(t, f"{where}[{i}]")

    def _check_table(self, t, keys, where):
        for k, v in t.items():
            if k not in keys:
                raise self.err(f"{where}.{k}", f"unknown key (expected one of {', '.join(sorted(keys))})")
            want = keys[k]
            if not isinstance(v, want) or (isinstance(v, bool) and want is not bool):
                names = {str: "a string", list: "a list", dict: "a table", bool: "true or false", int: "a whole number"}
                raise self.err(f"{where}.{k}", names.get(want, "a number") if not isinstance(want, tuple) or want == NUM
                               else " or ".join(names[w] for w in want))
            if isinstance(v, float) and not math.isfinite(v):
                raise self.err(f"{where}.{k}", f"{v} is not a finite number")

    def _check_claim(self, c, where):
        for k in ("ratio", "diff"):
            if k in c and (len(c[k]) != 2 or not all(isinstance(x, dict) for x in c[k])):
                raise self.err(f"{where}.{k}", "two selections: [{axis = value}, {axis = value}]")
        if "ratio" in c and "diff" in c:
            raise self.err(f"{where}.ratio", "give ratio, diff or select, one of them")
        if "tolerance" in c and c["tolerance"] < 0:
            raise self.err(f"{where}.tolerance", "a relative tolerance >= 0")
        src = c.get("source")
        if src is None or not re.match(rf"^({'|'.join(SOURCE_KINDS)}): *\S", src):
            kinds = ", ".join(f"'{k}: ...'" for k in SOURCE_KINDS)
            raise self.err(f"{where}.source", f"required: where the threshold comes from, {kinds} "
                           "(e.g. source = \"paper: Sec. 7, 'always within two base RTTs'\")")
        if c.get("direction"):
            neutral = 1 if "ratio" in c else 0 if "diff" in c else None
            bound = [k for k in ("at_least", "at_most") if k in c]
            if neutral is None or "expect" in c or len(bound) != 1 or c[bound[0]] != neutral:
                raise self.err(f"{where}.direction", "a direction claim compares two selections (ratio or diff) "
                               "with at_least or at_most at the neutral point (1 for a ratio, 0 for a difference)")
        if "noise" in c and (not c.get("direction") or not 0 <= c["noise"] < 1e9):
            raise self.err(f"{where}.noise", "a half-width >= 0, for a direction claim only")
        if "partly" in c:
            self._check_table(c["partly"], BOUND_KEYS, f"{where}.partly")
            if sum(k in c["partly"] for k in ("expect", "at_most", "at_least")) != 1:
                raise self.err(f"{where}.partly", "one weaker bound: expect (with tolerance), at_most or at_least")

    @staticmethod
    def _label(v):
        if isinstance(v, list):
            return " ".join(str(x) for x in v)
        if isinstance(v, bool):
            return "on" if v else "off"
        return str(v)

    def _flagset(self, table, where):
        """Checks a table of flags; returns [(flag, value)] in file order."""
        if not isinstance(table, dict):
            raise self.err(where, "a table of flags")
        out = []
        for flag, v in table.items():
            w = f"{where}.{flag}" if not where.startswith("axes.-") else where
            if not re.match(r"^--?[A-Za-z][A-Za-z0-9_-]*$", flag):
                raise self.err(w, "not a flag (flags start with - or --)")
            if flag in RESERVED_FLAGS:
                raise self.err(w, "set by the sweep itself (seeds go in [sweep] seeds or repetitions)")
            if column_name(flag) in RUNS_COLUMNS:
                raise self.err(w, f"its column {column_name(flag)!r} is one of the runs table's own; "
                               "spraysim has no such flag")
            self._check_value(flag, v, w)
            out.append((flag, v))
        return out

    def _check_value(self, flag, v, where):
        scalar = (str, int, float, bool)
        for x in (v if isinstance(v, list) else [v]):
            self._check_number(x, where)
        if flag in FILE_FLAGS and not isinstance(v, str):
            raise self.err(where, f"{flag} takes a file name (a string)")
        if isinstance(v, list):
            if flag in TWO_VALUE_FLAGS:
                if len(v) != 2 or not all(isinstance(x, (int, float, str)) and not isinstance(x, bool) for x in v):
                    raise self.err(where, f"{flag} takes two values: [LOW, HIGH]")
            elif not v or not all(isinstance(x, scalar) and not isinstance(x, bool) for x in v):
                raise self.err(where, "a list repeats the flag: a non-empty list of values")
        elif isinstance(v, bool):
            if flag in TWO_VALUE_FLAGS or flag in FILE_FLAGS:
                raise self.err(where, f"{flag} needs a value")
        elif isinstance(v, (int, float, str)):
            if flag in TWO_VALUE_FLAGS:
                if len(str(v).split()) != 2:
                    raise self.err(where, f"{flag} takes two values: \"LOW HIGH\" or [LOW, HIGH]")
        else:
            raise self.err(where, "a string, number, true/false or a list")

    # -- expansion --------------------------------------------------------
    def substitute(self, s, seed, input_paths, variables=None):
        variables = variables or {}

        def rep(m):
            key, arg = m.group(1), m.group(2)
            if key in variables and arg is None:
                return str(variables[key])
            if key == "shared" and arg is None:
                return shared_dir()
            if key == "root" and arg is None:
                return root_dir()
            if key == "sweepdir" and arg is None:
                return self.dir
            if key == "seed" and arg is None:
                return str(seed)
            if key == "input" and arg is not None:
                if arg not in input_paths:
                    raise self.err("placeholder", f"{{input.{arg}}}: no [inputs.{arg}]")
                return input_paths[arg]
            raise self.err("placeholder", f"unknown {m.group(0)} (known: {{shared}}, {{root}}, {{sweepdir}}, {{seed}}, {{input.NAME}}, {{VARIABLE}})")
        return PLACEHOLDER_RE.sub(rep, s)

    def combos(self):
        """Every combination of axis values: [(labels {axis: label}, flags)]."""
        lists = [[(name, label, fs) for label, fs in pts] for name, _, pts in self.axes]
        for prod in itertools.product(*lists):
            labels = {name: label for name, label, _ in prod}
            if any(all(self._label(labels[k]) == v for k, v in e.items()) for e in self.excludes):
                continue
            flags = list(self.fixed)
            for _, _, fs in prod:
                for flag, v in fs:
                    flags = [(f, x) for f, x in flags if f != flag]  # an axis overrides a fixed flag
                    flags.append((flag, v))
            yield labels, flags


def flag_argv(flag, v):
    """argv of one flag entry."""
    if isinstance(v, bool):
        return [flag] if v else []
    if flag in TWO_VALUE_FLAGS:
        vals = v if isinstance(v, list) else str(v).split()
        return [flag] + [fmt_value(x) for x in vals]
    if isinstance(v, list):
        out = []
        for x in v:
            out += [flag, fmt_value(x)]
        return out
    return [flag, fmt_value(v)]


def fmt_value(x):
    if isinstance(x, float):
        return repr(x) if x != int(x) else str(int(x)) if abs(x) < 1e15 else repr(x)
    return str(x)


def binary_version(binary):
    """The binary's --version line, e.g. 'spraysim 0.4.0 (commit 1a2b3c4d5e6f)'."""
    try:
        p = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        raise SpecError(f"{binary}: {e.strerror}")
    line = p.stdout.strip().splitlines()[0] if p.stdout.strip() else ""
    if p.returncode != 0 or not line.startswith("spraysim"):
        raise SpecError(f"{binary}: --version failed (exit {p.returncode})")
    return line


def version_commit(version):
    m = re.search(r"commit ([0-9a-f]+(?:-dirty)?)", version)
    return m.group(1) if m else None


class Point:
    """One spraysim run of a sweep."""
    __slots__ = ("id", "seed", "rep", "labels", "flags", "argv", "input_hashes", "index")

    def to_json(self):
        return {k: getattr(self, k) for k in self.__slots__}

    @classmethod
    def from_json(cls, d):
        p = cls()
        for k in cls.__slots__:
            setattr(p, k, d[k])
        p.flags = [tuple(x) for x in p.flags]
        return p


def generate_inputs(sweep, outdir, seeds):
    """Runs each [inputs.NAME] command once per seed that uses it (only
    commands with {seed} differ by seed), writing the file atomically under
    outdir/inputs/. Returns {seed: {name: path}}."""
    res = {s: {} for s in seeds}
    if not sweep.inputs:
        return res
    os.makedirs(os.path.join(outdir, "inputs"), exist_ok=True)
    for name, cmd in sweep.inputs.items():
        per_seed = any("{seed}" in c for c in cmd)
        for s in (seeds if per_seed else seeds[:1]):
            argv = [sweep.substitute(c, s, {}) for c in cmd]
            path = os.path.join(outdir, "inputs", f"{name}-{s}" if per_seed else name)
            if not os.path.exists(path):
                tmp = path + ".tmp." + str(os.getpid())
                with open(tmp, "wb") as f:
                    try:
                        p = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, cwd=root_dir())
                    except OSError as e:
                        os.unlink(tmp)
                        raise SpecError(f"{sweep.path}: inputs.{name}.command: {argv[0]}: {e.strerror}")
                if p.returncode != 0:
                    os.unlink(tmp)
                    raise SpecError(f"{sweep.path}: inputs.{name}: command failed (exit {p.returncode}): "
                                    + p.stderr.decode(errors="replace").strip()[:300])
                os.replace(tmp, path)
            if per_seed:
                res[s][name] = path
            else:
                for s2 in seeds:
                    res[s2][name] = path
    return res


def expand(sweep, version, outdir):
    """Every point of the sweep, in a fixed order (combination-major, then seed)."""
    inputs = generate_inputs(sweep, outdir, sweep.seeds)
    hashes = {}

    def h(path, where):
        if path not in hashes:
            try:
                hashes[path] = file_sha256(path)
            except OSError as e:
                raise SpecError(f"{sweep.path}: {where}: {path}: {e.strerror}")
        return hashes[path]

    points = []
    seen = {}
    for labels, flags in sweep.combos():
        for rep, seed in enumerate(sweep.seeds):
            p = Point()
            p.seed, p.rep, p.labels = seed, rep, labels
            p.flags, argv, ident, ihash = [], [], [], {}
            variables = {n: labels[n] for n, kind, _ in sweep.axes if kind == "var"}
            for flag, v in flags:
                if isinstance(v, str):
                    v = sweep.substitute(v, seed, inputs[seed], variables)
                elif isinstance(v, list):
                    v = [sweep.substitute(x, seed, inputs[seed], variables) if isinstance(x, str) else x for x in v]
                if flag in FILE_FLAGS:
                    path = v if os.path.isabs(v) else os.path.join(sweep.dir, v)
                    if not os.path.exists(path) and os.path.exists(os.path.join(root_dir(), v)):
                        path = os.path.join(root_dir(), v)
                    path = os.path.normpath(path)
                    digest = h(path, f"{flag}")
                    ihash[flag] = digest
                    v = path
                    ident.append([flag, "sha256:" + digest])
                elif flag == "--workload" and isinstance(v, str) and "cdf=" in v:
                    m = re.search(r"cdf=([^,]+)", v)
                    cdf = m.group(1)
                    digest = h(cdf if os.path.isabs(cdf) else os.path.join(root_dir(), cdf), flag)
                    ihash["cdf"] = digest
                    ident.append([flag, v.replace(cdf, "sha256:" + digest)])
                else:
                    ident.append([flag, v])
                p.flags.append((flag, v))
                argv += flag_argv(flag, v)
            canon = json.dumps({"args": ident, "seed": seed, "version": version},
                               sort_keys=True, separators=(",", ":"))
            p.id = hashlib.sha256(canon.encode()).hexdigest()[:16]
            if p.id in seen:
                raise SpecError(f"{sweep.path}: two points run the same command "
                                f"({seen[p.id]} and {labels}): a repeated axis value, or a variable no flag uses")
            seen[p.id] = labels
            p.argv = argv + ["--seed", str(seed)]
            p.input_hashes = ihash
            p.index = len(points)
            points.append(p)
    return points
