"""Sweep files: read a TOML sweep file, check it, and expand it into points.

A sweep file names fixed flags, parameter axes (any spraysim flag, or a named
axis whose values are sets of flags), seeds or repetitions, and optional
generated inputs (see README "Sweeps and results" for the format). A point is
one spraysim command; its id is a hash of its arguments (input files by their
content hash, not their path), its seed and the binary's `--version` line, so
the same point always has the same id, and a new binary or a changed input
gives new ids instead of reusing stale results.
"""
import hashlib
import itertools
import json
import os
import re
import subprocess
import tomllib

# spraysim flags that take two values (README "Flags"); every other flag with
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


class SpecError(Exception):
    """A bad sweep file: the message names the file and the key."""


def root_dir():
    """The project root: the parent of tools/."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shared_dir():
    """$SHARED (relative to the current directory), else ../shared beside the project."""
    env = os.environ.get("SHARED")
    return os.path.abspath(env) if env else os.path.join(os.path.dirname(root_dir()), "shared")


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
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise SpecError(f"{path}: {e}")
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
        self.jobs = sw.get("jobs")
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
                    not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)):
                raise self.err("sweep.seeds", "a non-empty list of seeds >= 0")
            if len(set(seeds)) != len(seeds):
                raise self.err("sweep.seeds", "repeated seed")
            self.seeds = list(seeds)
        else:
            reps = sw.get("repetitions", 1)
            base = sw.get("seed_base", 1)
            for k, v in (("repetitions", reps), ("seed_base", base)):
                if not isinstance(v, int) or isinstance(v, bool) or v < (1 if k == "repetitions" else 0):
                    raise self.err(f"sweep.{k}", "a whole number" + (" >= 1" if k == "repetitions" else " >= 0"))
            self.seeds = list(range(base, base + reps))
        self.inputs = {}
        for name, spec in data.get("inputs", {}).items():
            where = f"inputs.{name}"
            if not NAME_RE.match(name) or not isinstance(spec, dict):
                raise self.err(where, "a table with a name of letters, digits, '_', '-'")
            cmd = spec.get("command")
            if not isinstance(cmd, list) or not cmd or not all(isinstance(c, str) for c in cmd):
                raise self.err(f"{where}.command", "a non-empty list of strings (argv; stdout is the file)")
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
                if not values or not all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in values):
                    raise self.err(where, "a non-empty list of numbers or strings")
                self.axes.append((name, "var", [(v, []) for v in values]))
                if len(set(values)) != len(values):
                    raise self.err(where, "repeated value")
                continue
            else:
                if not NAME_RE.match(name) or not isinstance(values, dict) or not values:
                    raise self.err(where, "a flag (\"--cc\" = [...]), a variable (degree = [8, 16]) "
                                   "or a named axis: a table of labelled flag sets")
                if column_name(name) in ("seed", "rep", "point_id"):
                    raise self.err(where, "name reserved")
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
        if not isinstance(self.report, dict):
            raise self.err("report", "a table")

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
            self._check_value(flag, v, w)
            out.append((flag, v))
        return out

    def _check_value(self, flag, v, where):
        scalar = (str, int, float, bool)
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
                    p = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, cwd=root_dir())
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
