"""spraysim.run: one simulation, its outputs as tables.

Flags come as a list (exactly as on the command line) and/or as keywords.
A keyword names a flag without its dashes, with '_' for '-' where the flag
uses '-': tm="x.cm" is -tm, sender_cc_only=True is -sender_cc_only,
workload="perm:n=16,size=65536" is --workload, cc_opt="fd=0.8" is --cc-opt.
Which spelling exists is read from the binary's --help, so a keyword the
binary does not know is refused before anything runs, with the nearest
flag. Values: True gives the bare flag, False or None leaves it out, a
tuple gives one flag several values (ecn=(20, 80) is -ecn 20 80), a list
repeats the flag (fail=["link tor0 agg1 down at 5", ...]).
"""
import difflib
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from . import _checkout
from ._tables import read_csv


class SpraysimError(RuntimeError):
    """The binary refused the run (exit 2: bad input, `message` is its one
    line naming the flag or file) or failed otherwise."""

    def __init__(self, message, returncode=None, command=None, stderr=""):
        super().__init__(message)
        self.message = message
        self.returncode = returncode
        self.command = command
        self.stderr = stderr


def binary_path(binary=None):
    """The simulator to call: `binary`, else $SPRAYSIM, else the checkout's
    bin/spraysim, else `spraysim` on PATH."""
    for candidate in (binary, os.environ.get("SPRAYSIM"),
                      os.path.join(_checkout.ROOT, "bin", "spraysim")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
        if candidate and candidate is binary:
            raise SpraysimError(f"binary {binary!r}: not an executable file")
    found = shutil.which("spraysim")
    if found:
        return found
    raise SpraysimError(f"no spraysim binary: build it with `make` in {_checkout.ROOT}, "
                        "or set SPRAYSIM=/path/to/spraysim, or pass binary=")


_FLAG_LINE = re.compile(r"^ {1,4}(-{1,2}[A-Za-z][\w-]*(?:, -{1,2}[A-Za-z][\w-]*)*)")


@functools.lru_cache(maxsize=None)
def _flags_of(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=False).stdout
    names = set()
    for line in out.splitlines():
        m = _FLAG_LINE.match(line)
        if m:
            names.update(n.strip() for n in m.group(1).split(","))
    if not names:
        raise SpraysimError(f"{binary} --help lists no flags: is it spraysim?")
    return frozenset(names)


def flag_names(binary=None):
    """Every flag the binary's --help lists, with its dashes."""
    return sorted(_flags_of(binary_path(binary)))


def version(binary=None):
    """The binary's `--version` line."""
    return subprocess.run([binary_path(binary), "--version"], capture_output=True, text=True,
                          check=False).stdout.strip()


def _flag_for(keyword, names):
    candidates = ["--" + keyword.replace("_", "-"), "-" + keyword, "--" + keyword]
    for c in candidates:
        if c in names:
            return c
    near = difflib.get_close_matches(candidates[0], names, n=1) or \
        difflib.get_close_matches(candidates[1], names, n=1)
    hint = f" (did you mean {near[0]}?)" if near else ""
    raise TypeError(f"spraysim.run: keyword {keyword!r} is no spraysim flag{hint}")


def _values(flag, value):
    if value is True:
        return [flag]
    if isinstance(value, tuple):
        return [flag] + [str(v) for v in value]
    return [flag, str(value)]


def keywords_to_args(options, binary=None):
    """The command-line arguments the keywords stand for (see the module)."""
    names = _flags_of(binary_path(binary))
    args = []
    for keyword, value in options.items():
        if value is None or value is False:
            continue
        flag = _flag_for(keyword, names)
        for v in (value if isinstance(value, list) else [value]):
            args += _values(flag, v)
    return args


class Result:
    """One run's outputs. summary: summary.json as a dict; flows, queues:
    flows.csv and queues.csv as tables; tables: every CSV the run wrote
    (ts_flows, switches, ...) by name; stdout, stderr: the binary's text;
    command: the argument list; out: the output folder (None when it was a
    temporary one, removed after loading)."""

    def __init__(self, command, out, stdout, stderr, summary, tables):
        self.command = command
        self.out = out
        self.stdout = stdout
        self.stderr = stderr
        self.summary = summary
        self.tables = tables

    @property
    def flows(self):
        return self.tables.get("flows")

    @property
    def queues(self):
        return self.tables.get("queues")

    def __repr__(self):
        f = self.summary.get("flows", {})
        return (f"<spraysim.Result {f.get('finished', '?')} of {f.get('total', '?')} flows finished, "
                f"out={self.out!r}>")


def _load(out, frames):
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    tables = {}
    for name in sorted(os.listdir(out)):
        if name.endswith(".csv"):
            tables[name[:-4]] = read_csv(os.path.join(out, name), frames)
    return summary, tables


def run(args=None, *, binary=None, out=None, frames=None, timeout=None, cwd=None, check=True, **options):
    """Runs spraysim once and returns a Result.

    args: a list of command-line arguments, or one string split as a shell
    would; options: keywords for flags (see the module). out: a folder to
    keep the outputs in (default: a temporary one, removed once loaded).
    frames: tables as DataFrames (None: when pandas is here). timeout:
    seconds before the run is killed (SpraysimError). check: raise
    SpraysimError when the binary exits non-zero (else the Result has
    summary None when the run wrote nothing)."""
    exe = binary_path(binary)
    argv = shlex.split(args) if isinstance(args, str) else [str(a) for a in (args or [])]
    argv += keywords_to_args(options, exe)
    if any(a in ("--out", "-out") or a.startswith("--out=") for a in argv):
        raise TypeError("spraysim.run: give the output folder as out=, not as a flag")
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="spraysim-run-")
        target = os.path.join(tmp, "out")
    else:
        target = os.fspath(out)
    command = [exe] + argv + ["--out", target, "--no-progress"]
    try:
        try:
            p = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False)
        except subprocess.TimeoutExpired as e:
            raise SpraysimError(f"spraysim did not finish in {timeout} s (killed)", None, command,
                                e.stderr or "") from None
        if p.returncode != 0:
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            msg = lines[-1] if lines else f"spraysim exited {p.returncode}"
            if check:
                raise SpraysimError(msg, p.returncode, command, p.stderr)
        if not os.path.isfile(os.path.join(target, "summary.json")):
            if check:
                raise SpraysimError(f"spraysim wrote no summary.json in {target}", p.returncode, command, p.stderr)
            return Result(command, None if tmp else target, p.stdout, p.stderr, None, {})
        summary, tables = _load(target, frames)
        return Result(command, None if tmp else target, p.stdout, p.stderr, summary, tables)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
