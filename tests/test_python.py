"""Checks of the spraysim Python package, run by tests/python_test.sh in a
fresh virtual environment where `pip install .` put it. Prints one line per
check: "ok NAME" or "FAIL NAME: why" (tests/run_all.sh counts them).

Environment: ROOT (the checkout), REF_BINARY (the binary the suite built;
the asan build's, say), SHARED (../shared)."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

import spraysim

ROOT = os.environ["ROOT"]
BIN = os.environ.get("REF_BINARY") or os.path.join(ROOT, "bin", "spraysim")
BIN = BIN if os.path.isabs(BIN) else os.path.join(ROOT, BIN)
SHARED = os.environ.get("SHARED") or os.path.join(ROOT, "..", "shared")
SHARED = SHARED if os.path.isabs(SHARED) else os.path.join(ROOT, SHARED)
os.environ["SHARED"] = SHARED  # the sweep tool's {shared}
failures = 0


def check(name, cond, why=""):
    global failures
    if cond:
        print(f"ok python: {name}")
    else:
        failures += 1
        print(f"FAIL python: {name}: {why}")


def expect_raises(exc, fn):
    try:
        fn()
    except exc as e:
        return e
    return None


WORKLOAD = "perm:n=16,size=65536"

# 1. keywords give the same run as the command line, tables equal the files
with tempfile.TemporaryDirectory() as tmp:
    direct = os.path.join(tmp, "direct")
    subprocess.run([BIN, "--workload", WORKLOAD, "-end", "2000", "-sender_cc_only", "--cc", "nscc",
                    "--out", direct, "--quiet"], check=True)
    kept = os.path.join(tmp, "kept")
    r = spraysim.run(binary=BIN, out=kept, frames=False, workload=WORKLOAD, end=2000, sender_cc_only=True,
                     cc="nscc")
    with open(os.path.join(direct, "flows.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    check("keywords become flags (-end, -sender_cc_only, --workload, --cc)",
          r.command[1:7] == ["--workload", WORKLOAD, "-end", "2000", "-sender_cc_only", "--cc"], r.command)
    check("flows as dicts equal flows.csv of the same run from the shell",
          len(r.flows) == len(rows) == 16 and all(
              str(a["flow_id"]) == b["flow_id"] and abs(a["fct_us"] - float(b["fct_us"])) == 0.0
              for a, b in zip(r.flows, rows)), f"{len(r.flows)} rows against {len(rows)}")
    with open(os.path.join(direct, "summary.json")) as f:
        ref = json.load(f)
    check("summary equals summary.json (run section aside)",
          {k: v for k, v in r.summary.items() if k not in ("run", "inputs", "config")} ==
          {k: v for k, v in ref.items() if k not in ("run", "inputs", "config")})
    check("out= keeps the outputs", r.out == kept and os.path.isfile(os.path.join(kept, "flows.csv")), r.out)
    check("numbers are numbers without pandas", isinstance(r.flows[0]["fct_us"], float) and
          isinstance(r.flows[0]["size_bytes"], int), repr(r.flows[0])[:120])
    check("queues.csv is loaded", isinstance(r.queues, list) and len(r.queues) > 0 and "port" in r.queues[0])

# 2. a temporary output folder is removed; the result stays usable
r = spraysim.run(binary=BIN, frames=False, workload=WORKLOAD, end=2000)
check("temporary outputs removed, result loaded", r.out is None and len(r.flows) == 16 and
      r.summary["flows"]["total"] == 16, repr(r))

# 3. DataFrames when pandas is here
if spraysim.have_pandas():
    r = spraysim.run(binary=BIN, workload=WORKLOAD, end=2000)
    import pandas
    check("tables are DataFrames with pandas", isinstance(r.flows, pandas.DataFrame) and len(r.flows) == 16 and
          r.flows["fct_us"].max() == r.summary["flows"]["fct_max_us"],
          f"{type(r.flows)} max {getattr(r.flows, 'fct_us', None)}")
else:
    e = expect_raises(ImportError, lambda: spraysim.run(binary=BIN, frames=True, workload=WORKLOAD))
    check("frames=True without pandas says pandas is missing", e is not None and "pandas" in str(e), e)

# 4. bad input: the binary's one line, exit status 2
e = expect_raises(spraysim.SpraysimError, lambda: spraysim.run(binary=BIN, workload="perm:n=16,size=0"))
check("a bad flag value raises SpraysimError with the binary's line and status 2",
      e is not None and e.returncode == 2 and "--workload" in e.message and "\n" not in e.message, e)
e = expect_raises(TypeError, lambda: spraysim.run(binary=BIN, workloda=WORKLOAD))
check("an unknown keyword is refused before running, with the nearest flag",
      e is not None and "workloda" in str(e) and "--workload" in str(e), e)
e = expect_raises(TypeError, lambda: spraysim.run(["--out", "/tmp/x"], binary=BIN, workload=WORKLOAD))
check("--out among the flags is refused (out= is the package's)", e is not None and "out=" in str(e), e)
e = expect_raises(spraysim.SpraysimError, lambda: spraysim.run(binary="/nonexistent/spraysim"))
check("a missing binary is one clear error", e is not None and "/nonexistent/spraysim" in str(e), e)

# 5. a string of arguments, tuples for several values, lists repeat a flag
cm = os.path.join(SHARED, "data", "htsim", "matrices", "one.cm")
r = spraysim.run(f"-tm {cm} -end 300", binary=BIN, frames=False, ecn=(10, 30), q=40,
                 cc_opt=["quick_adapt=1", "fast_increase=1"])
check("string args, tuple values and repeated flags", r.command[1:] [:4] == ["-tm", cm, "-end", "300"] and
      r.command.count("--cc-opt") == 2 and "-ecn" in r.command and
      r.command[r.command.index("-ecn") + 1:r.command.index("-ecn") + 3] == ["10", "30"], r.command)

# 6. the package finds the checkout's binary by itself
if os.path.isfile(os.path.join(ROOT, "bin", "spraysim")):
    check("finds the checkout's bin/spraysim without SPRAYSIM",
          spraysim.binary_path() == os.path.realpath(os.path.join(ROOT, "bin", "spraysim")) or
          os.path.samefile(spraysim.binary_path(), os.path.join(ROOT, "bin", "spraysim")), spraysim.binary_path())
else:
    print("skip python: bin/spraysim not built (asan build): binary discovery not checked")
check("__version__ is the binary's version", spraysim.__version__ in spraysim.version(BIN),
      f"{spraysim.__version__} vs {spraysim.version(BIN)}")

# 7. a sweep run from Python, then loaded again
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "tiny")
    s = spraysim.sweep(os.path.join(ROOT, "tests", "sweep", "tiny.toml"), out=out, jobs=1, binary=BIN,
                       frames=False)
    runs = s.runs
    check("sweep runs every point into results.db", len(runs) == 2 and all(x["status"] == "done" for x in runs),
          runs)
    with spraysim.load_sweep(out, frames=False) as again:
        summ = again.summaries
        check("load_sweep reads the same database", len(summ) == 2 and
              set(again.table_names()) >= {"runs", "flows", "queues", "summaries", "meta"} and
              again.meta().get("sweep", again.meta().get("name")) is not None, again.table_names())
        q = again.sql("SELECT COUNT(*) AS n FROM flows")
        check("sql() answers a query", q == [{"n": 2}], q)
    bad = os.path.join(tmp, "bad.toml")
    with open(bad, "w") as f:
        f.write("[sweep]\nname = 'bad'\nseeds = [1]\n[fixed]\n'-end' = 'soon'\n")
    e = expect_raises(spraysim.SpraysimError, lambda: spraysim.sweep(bad, out=os.path.join(tmp, "b"), binary=BIN))
    check("a bad sweep file raises SpraysimError with the tool's one line", e is not None and
          "bad.toml" in e.message and e.returncode == 2, e and (e.message, e.returncode))
    e = expect_raises(FileNotFoundError, lambda: spraysim.load_sweep(os.path.join(tmp, "none")))
    check("load_sweep of a folder without results.db says so", e is not None and "results.db" in str(e), e)

sys.exit(1 if failures else 0)
