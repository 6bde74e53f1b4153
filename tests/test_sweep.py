#!/usr/bin/python3
"""Tests of tools/sweep (the fast ones; make test runs them through
tests/sweep_test.sh): expansion and ids, bad sweep files, a 2-point sweep
end to end, resume after a kill and after a crash before the ingest,
extending the repetitions, the Slurm script with a hand-set task id, the
mean / 95% CI helper, the figure coverage table (experiments/coverage.tsv
against the sweep files and docs/fidelity.md) and seed 000 Fig. 16c's ring
all-to-all generator; and what issue 20 item 4 asks: a point killed by a
signal, names that would overwrite the runs table's columns, seeds in the
database's range, bad sweep files (tests/sweep/corpus and a bounded fuzz of
them), spraysim --check at expansion, a full disk, a missing matplotlib,
a 0/0 claim. Prints one 'ok NAME' or 'FAIL NAME' line per test.
Needs bin/spraysim (SPRAYSIM overrides) and ../shared (SHARED overrides)."""
import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from sweeplib import db, spec  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "sweep")
# tools/sweep as a module (it has no .py name), for the in-process fuzz test
import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402
_loader = importlib.machinery.SourceFileLoader("sweep_cli", TOOL)
SWEEP_CLI = importlib.util.module_from_spec(importlib.util.spec_from_loader("sweep_cli", _loader))
_loader.exec_module(SWEEP_CLI)
BIN = os.path.abspath(os.environ.get("SPRAYSIM", os.path.join(ROOT, "bin", "spraysim")))
TINY = """
[sweep]
name = "tiny"
seeds = [1]

[fixed]
"-tm" = "{shared}/data/htsim/matrices/one.cm"
"-end" = 2000

[axes.variant]
trim = {}
notrim = { "-disable_trim" = true }
"""


def sweep_cmd(*args, env=None, check=True, cwd=ROOT):
    e = dict(os.environ, SPRAYSIM=BIN)
    if "SHARED" in e:  # relative to the current directory: pin it before changing it
        e["SHARED"] = os.path.abspath(e["SHARED"])
    if env:
        e.update(env)
    p = subprocess.run(["/usr/bin/python3", TOOL] + list(args), capture_output=True, text=True, env=e, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError(f"tools/sweep {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p


class SweepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sweeptest")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, text, name="s.toml"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def q(self, sql):
        conn = sqlite3.connect(os.path.join(self.out, "results.db"))
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()

    # -- expansion and ids -------------------------------------------------
    def test_expand_product_and_stable_ids(self):
        cm = self.write("Nodes 16\nConnections 1\n0->5 id 1 start 0 size 100000\n", "a.cm")
        f = self.write(f"""
[sweep]
name = "x"
repetitions = 3
seed_base = 5
[fixed]
"-tm" = "a.cm"
"-q" = 10
"-ecn" = "2 8"
"--cc-opt" = ["history=2", "percentile=90"]
[axes]
"--cc" = ["nscc", "smartt"]
"-q" = [8, 16]
""")
        s = spec.Sweep(f)
        pts = spec.expand(s, "spraysim 9 (commit abc)", self.out)
        self.assertEqual(len(pts), 2 * 2 * 3)
        self.assertEqual([p.seed for p in pts[:3]], [5, 6, 7])
        ids = [p.id for p in pts]
        self.assertEqual(len(set(ids)), len(ids))
        self.assertEqual(ids, [p.id for p in spec.expand(spec.Sweep(f), "spraysim 9 (commit abc)", self.out)])
        a = pts[0].argv
        # the axis replaces the fixed -q; two-value and repeated flags
        self.assertEqual(a.count("-q"), 1)
        self.assertEqual(a[a.index("-q") + 1], "8")
        self.assertEqual(a[a.index("-ecn") + 1:a.index("-ecn") + 3], ["2", "8"])
        self.assertEqual(a.count("--cc-opt"), 2)
        self.assertEqual(a[-2:], ["--seed", "5"])
        # another binary version: other ids
        other = spec.expand(s, "spraysim 9 (commit abd)", self.out)
        self.assertFalse(set(ids) & {p.id for p in other})
        # the input's content, not its path, is in the id
        os.rename(cm, os.path.join(self.tmp, "b.cm"))
        with open(f) as fh:
            self.write(fh.read().replace("a.cm", "b.cm"))
        self.assertEqual(ids, [p.id for p in spec.expand(spec.Sweep(f), "spraysim 9 (commit abc)", self.out)])
        with open(os.path.join(self.tmp, "b.cm"), "a") as fh:
            fh.write("\n")
        changed = spec.expand(spec.Sweep(f), "spraysim 9 (commit abc)", self.out)
        self.assertFalse(set(ids) & {p.id for p in changed})

    def test_named_axis_and_generated_input(self):
        f = self.write("""
[sweep]
name = "g"
seeds = [3, 4]
[inputs.m]
command = ["sh", "-c", "printf 'Nodes 16\\nConnections 1\\n0->{seed} id 1 start 0 size 1000\\n'"]
[fixed]
"-tm" = "{input.m}"
[axes.variant]
a = {}
b = { "-sleek" = true, "-disable_trim" = true }
""")
        pts = spec.expand(spec.Sweep(f), "v", self.out)
        self.assertEqual(len(pts), 4)
        self.assertEqual(pts[0].labels, {"variant": "a"})
        self.assertIn("-sleek", pts[2].argv)
        self.assertNotEqual(pts[0].input_hashes["-tm"], pts[1].input_hashes["-tm"])  # per seed
        with open(pts[1].argv[pts[1].argv.index("-tm") + 1]) as fh:
            self.assertIn("0->4 ", fh.read())

    def test_variable_axis(self):
        f = self.write("""
[sweep]
name = "v"
[fixed]
"--workload" = "incast:n=16,degree={degree},size={size_bytes}"
[axes]
degree = [2, 4]
size_bytes = [1000, 2000]
""")
        pts = spec.expand(spec.Sweep(f), "v", self.out)
        self.assertEqual(len(pts), 4)
        self.assertEqual(pts[3].labels, {"degree": 4, "size_bytes": 2000})
        self.assertEqual(pts[3].argv[:2], ["--workload", "incast:n=16,degree=4,size=2000"])
        self.assertEqual(db.param_types(pts)[0]["degree"], "INTEGER")
        with open(f, "a") as fh:
            fh.write('[[exclude]]\ndegree = 4\nsize_bytes = 2000\n[[exclude]]\nsize_bytes = 1000\n')
        pts = spec.expand(spec.Sweep(f), "v", self.out)
        self.assertEqual([p.labels for p in pts], [{"degree": 2, "size_bytes": 2000}])

    def test_bad_sweep_files(self):
        cases = [
            ("[sweep]\nname='a'\nbogus=1\n", "sweep.bogus"),
            ("[sweep]\ntitle='a'\n", "sweep.name"),
            ("[sweep]\nname='a'\n[axes]\n'--cc' = []\n", "axes.--cc"),
            ("[sweep]\nname='a'\n[fixed]\n'--seed' = 3\n", "set by the sweep"),
            ("[sweep]\nname='a'\n[fixed]\n'-ecn' = 3\n", "two values"),
            ("[sweep]\nname='a'\n[fixed]\n'cc' = 3\n", "not a flag"),
            ("[sweep]\nname='a'\nseeds=[1]\nrepetitions=2\n", "not both"),
            ("[sweep]\nname='a'\n[fixed]\n'-tm' = '{nope}'\n", "unknown {nope}"),
            ("[sweep]\nname='a'\n[axes.v]\nx = {}\ny = {}\n", "same command"),
            ("[sweep]\nname='a'\n[axes]\nseed = [1, 2]\n", "axes.seed"),
            ("[sweep]\nname='a'\n[axes]\nx = [1, 2]\n", "same command"),
            ("[sweep]\nname='a'\n[axes]\n'-q' = [1, 2]\n[[exclude]]\n'-q' = 3\n", "not one of"),
            ("[sweep]\nname='a'\n[axes]\n'-q' = [1, 2]\n[[exclude]]\ncc = 3\n", "not an axis"),
            ("[sweep\n", "s.toml"),
            # issue 20 item 4's cases: each one line naming the key, exit 2
            ("[sweep]\nname='a'\njobs=-1\n", "sweep.jobs"),
            ("[sweep]\nname='a'\njobs='4'\n", "sweep.jobs"),
            ("[sweep]\nname='a'\n[fixed]\n'-tm' = 5\n", "fixed.-tm: -tm takes a file name"),
            ("[sweep]\nname='a'\n[axes]\n'-topo' = [1, 2]\n", "axes.-topo"),
            ("[sweep]\nname='a'\n[fixed]\n'-q' = inf\n", "fixed.-q: inf is not a finite number"),
            ("[sweep]\nname='a'\n[axes]\n'-q' = [1, nan]\n", "axes.-q[1]: nan is not a finite number"),
            ("[sweep]\nname='a'\n[axes]\nload = [0.5, -inf]\n", "axes.load: -inf"),
            ("[sweep]\nname='a'\n[fixed]\n'-q' = 99999999999999999999\n", "outside the 64-bit"),
            ("[sweep]\nname='a'\n[fixed]\n'-q' = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
            ("[sweep]\nname='a'\n[inputs.m]\ncommand = ['/nonexistent/gen']\n[fixed]\n'-tm' = '{input.m}'\n",
             "inputs.m.command: /nonexistent/gen: No such file"),
            ("inputs = 5\n[sweep]\nname='a'\n", "s.toml: inputs: tables"),
            ("[sweep]\nname='a'\n[inputs]\nm = 5\n", "inputs.m"),
            ("[sweep]\nname='a'\n[report]\nmetrics = 5\n", "report.metrics"),
            ("[sweep]\nname='a'\n[report]\nbogus = 5\n", "report.bogus: unknown key"),
            ("[sweep]\nname='a'\n[[report.claim]]\nexpect = 'x'\n", "report.claim[0].expect: a number"),
            ("[sweep]\nname='a'\n[[report.claim]]\nratio = [{}]\n", "report.claim[0].ratio"),
            ("[sweep]\nname='a'\n[[report.claim]]\nat_most = nan\n", "report.claim[0].at_most"),
            # a claim names where its threshold comes from (issue 23 item 2)
            ("[sweep]\nname='a'\n[[report.claim]]\nat_most = 1\n", "report.claim[0].source: required"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'mine: x'\nat_most = 1\n", "report.claim[0].source: required"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'paper:'\nat_most = 1\n", "report.claim[0].source: required"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 5\n", "report.claim[0].source: a string"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'ours: x'\npartly = { at_most = 1, at_least = 0 }\n",
             "report.claim[0].partly: one weaker bound"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'ours: x'\npartly = { bogus = 1 }\n",
             "report.claim[0].partly.bogus: unknown key"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'ours: x'\nall_seeds = 1\n",
             "report.claim[0].all_seeds: true or false"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'ours: x'\nsubset = 'yes'\n",
             "report.claim[0].subset: true or false"),
            # a direction claim: two selections, its bound at the neutral point
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'paper: x'\ndirection = true\nat_least = 1\n",
             "report.claim[0].direction: a direction claim compares two selections"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'paper: x'\ndirection = true\n"
             "ratio = [{a = 1}, {a = 2}]\nat_least = 1.05\n", "report.claim[0].direction"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'paper: x'\ndirection = true\n"
             "diff = [{a = 1}, {a = 2}]\nat_least = 1\n", "report.claim[0].direction"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'paper: x'\ndirection = true\n"
             "ratio = [{a = 1}, {a = 2}]\nexpect = 1\n", "report.claim[0].direction"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'paper: x'\nnoise = 0.1\nat_least = 1\n",
             "report.claim[0].noise: a half-width >= 0, for a direction claim only"),
            ("[sweep]\nname='a'\n[[report.claim]]\nsource = 'paper: x'\ndirection = true\n"
             "ratio = [{a = 1}, {a = 2}]\nat_least = 1\nnoise = -1\n", "report.claim[0].noise"),
            ("[sweep]\nname='a'\n[[report.plot]]\nkind = 'pie'\n", "report.plot[0].kind"),
            ("[sweep]\nname='a'\n[[report.plot]]\nkind = 'metric'\n", "report.plot[0].x"),
            ("[sweep]\nname='a'\n[report]\nplot = 5\n", "report.plot"),
            ("[sweep]\nname='a'\nbinary = 5\n", "sweep.binary"),
            ("[sweep]\nname='a'\nrepetitions = 1000000000000\n", "sweep.repetitions"),
        ]
        for text, want in cases:
            f = self.write(text)
            p = sweep_cmd("expand", f, "--out", self.out, check=False)
            self.assertEqual(p.returncode, 2, text[:200])
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(want, p.stderr, text[:200])
            self.assertIn("s.toml", p.stderr)

    def test_names_cannot_overwrite_bookkeeping(self):
        # a flag or axis whose column is one of the runs table's own
        for text, want in (
                ("[axes]\nstatus = [1, 2]\n", "axes.status: name reserved"),
                ("[axes]\nevents = [1, 2]\n", "axes.events: name reserved"),
                ("[axes.version]\na = {}\nb = { '-q' = 3 }\n", "axes.version: name reserved"),
                ("[axes.point_id]\na = {}\nb = { '-q' = 3 }\n", "axes.point_id: name reserved"),
                ("[axes]\nrep = [1, 2]\n", "axes.rep: name reserved"),
                ("[fixed]\n'-status' = 'done'\n", "fixed.-status: its column 'status'"),
                ("[axes]\n'--wall-s' = [1, 2]\n", "axes.--wall-s[0]: its column 'wall_s'")):
            f = self.write("[sweep]\nname='a'\n" + text)
            p = sweep_cmd("expand", f, "--out", self.out, check=False)
            self.assertEqual(p.returncode, 2, text)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(want, p.stderr)

    def test_seeds_in_the_database_range(self):
        # seeds are SQLite INTEGERs: 0 .. 2^63 - 1
        for text, want in (("seeds = [9223372036854775808]", "sweep.seeds"),
                           ("seeds = [-1]", "sweep.seeds"),
                           ("seed_base = 9223372036854775807\nrepetitions = 2", "sweep.seed_base")):
            f = self.write(TINY.replace("seeds = [1]", text))
            p = sweep_cmd("expand", f, "--out", self.out, check=False)
            self.assertEqual(p.returncode, 2, text)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(want, p.stderr)
        f = self.write(TINY.replace("seeds = [1]", "seeds = [9223372036854775807]"))
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        self.assertEqual(self.q("SELECT DISTINCT seed, status FROM runs"), [(2**63 - 1, "done")])

    # -- running -----------------------------------------------------------
    def test_tiny_sweep_end_to_end(self):
        f = self.write(TINY)
        sweep_cmd("run", f, "--out", self.out, "-j", "2", "--quiet")
        runs = self.q("SELECT variant, disable_trim, seed, status, events, wall_s, version, command FROM runs ORDER BY variant")
        self.assertEqual([r[:4] for r in runs], [("notrim", 1, 1, "done"), ("trim", 0, 1, "done")])
        self.assertTrue(all(r[4] > 0 and r[5] > 0 and r[6].startswith("spraysim") for r in runs))
        self.assertIn("-disable_trim", runs[0][7])
        self.assertEqual(self.q("SELECT count(*) FROM flows")[0][0], 2)
        ports = self.q("SELECT count(*) FROM queues")[0][0]
        self.assertEqual(ports, 2 * 96)
        self.assertEqual(self.q("SELECT typeof(fct_us), typeof(size_bytes) FROM flows LIMIT 1")[0], ("real", "integer"))
        self.assertAlmostEqual(self.q("SELECT fct_max_us FROM summaries LIMIT 1")[0][0], 176.19952)
        # a second run does nothing
        logs = sorted(os.listdir(os.path.join(self.out, "logs")))
        mt = [os.stat(os.path.join(self.out, "logs", x)).st_mtime_ns for x in logs]
        p = sweep_cmd("run", f, "--out", self.out)
        self.assertIn("2 done, 0 to run", p.stderr)
        self.assertEqual(mt, [os.stat(os.path.join(self.out, "logs", x)).st_mtime_ns for x in logs])
        self.assertEqual(self.q("SELECT count(*) FROM flows")[0][0], 2)
        self.assertIn("in database: 2 (done 2)", sweep_cmd("status", f, "--out", self.out).stdout)
        # query: mean and CI per axis value
        out = sweep_cmd("query", self.out, "fct_max_us").stdout.splitlines()
        self.assertEqual(out[0].split("\t"), ["variant", "n", "mean", "ci95_low", "ci95_high"])
        self.assertEqual(out[1].split("\t")[:3], ["trim", "1", "176.2"])

    def test_flows_off(self):
        # flows = false: no flows rows, flows.csv deleted, the rest loaded
        f = self.write(TINY.replace('seeds = [1]', 'seeds = [1]\nflows = false'))
        sweep_cmd("run", f, "--out", self.out, "-j", "2", "--quiet")
        self.assertEqual(self.q("SELECT count(*) FROM runs WHERE status = 'done'")[0][0], 2)
        self.assertEqual(self.q("SELECT count(*) FROM flows")[0][0], 0)
        self.assertEqual(self.q("SELECT count(*) FROM queues")[0][0], 2 * 96)
        self.assertAlmostEqual(self.q("SELECT max(fct_max_us) FROM summaries")[0][0], 176.19952)
        for pid in os.listdir(os.path.join(self.out, "runs")):
            self.assertFalse(os.path.exists(os.path.join(self.out, "runs", pid, "flows.csv")))
            self.assertTrue(os.path.exists(os.path.join(self.out, "runs", pid, "queues.csv")))
        bad = self.write(TINY.replace('seeds = [1]', 'seeds = [1]\nflows = "no"'), "bad.toml")
        p = sweep_cmd("expand", bad, "--out", self.out, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("sweep.flows", p.stderr)

    def test_time_series_tables_and_trace_claims(self):
        # the --ts-* files become ts_flows / ts_ports tables (row for row), a
        # claim computes a trace property from them in SQL, and a cdf plot
        # draws a distribution of ts_flows values
        f = self.write(TINY.replace('"-end" = 2000', '"-end" = 2000\n"--ts-flows" = "all"\n"--ts-ports" = "0"\n"--ts-interval" = 5') + """
[report]
[report.define]
peak_cwnd = "(SELECT max(t.cwnd_bytes) FROM ts_flows t WHERE t.point_id = r.point_id)"
[[report.claim]]
figure = "trace"
source = "ours: a test"
metric = "peak_cwnd"
select = { variant = "trim" }
at_least = 1
[[report.plot]]
kind = "cdf"
values = "t.rtt_us"
from = "ts_flows t JOIN runs r USING(point_id)"
title = "rtt samples"
[[report.plot]]
kind = "cdf"
values = "t.no_such_column"
from = "ts_flows t JOIN runs r USING(point_id)"
""")
        sweep_cmd("run", f, "--out", self.out, "-j", "2", "--quiet")
        for table in ("ts_flows", "ts_ports"):
            n = 0
            for pid, in self.q("SELECT point_id FROM runs"):
                with open(os.path.join(self.out, "runs", pid, table + ".csv")) as fh:
                    n += sum(1 for _ in fh) - 1
            self.assertGreater(n, 10)
            self.assertEqual(self.q(f"SELECT count(*) FROM {table}")[0][0], n)
        self.assertEqual(self.q("SELECT typeof(time_us), typeof(cwnd_bytes) FROM ts_flows LIMIT 1")[0], ("real", "integer"))
        html = os.path.join(self.tmp, "r.html")
        sweep_cmd("report", f, "--out", self.out, "--html", html)
        text = open(html).read()
        self.assertIn('Verdict: <span class="agrees"', text)
        self.assertIn('alt="rtt samples"', text)
        self.assertIn("no such column: t.no_such_column", text)  # values is what is drawn

    def test_run_from_another_directory(self):
        # default OUT is results/NAME under the project root, whatever the
        # current directory: a resume from elsewhere finds the same results
        name = f"cwdtest-{os.getpid()}"
        f = self.write(TINY.replace('name = "tiny"', f'name = "{name}"'))
        self.out = os.path.join(ROOT, "results", name)
        try:
            sweep_cmd("run", f, "--quiet", cwd=self.tmp)
            self.assertEqual(self.q("SELECT status FROM runs"), [("done",), ("done",)])
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "results")))
            p = sweep_cmd("run", f, cwd=os.path.join(ROOT, "tools"))
            self.assertIn("2 done, 0 to run", p.stderr)
        finally:
            shutil.rmtree(self.out, ignore_errors=True)
            try:
                os.rmdir(os.path.join(ROOT, "results"))  # only if the test made it
            except OSError:
                pass

    def test_crash_before_ingest_is_ingested_not_rerun(self):
        f = self.write(TINY)
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        # as if the sweep died after the runs but before their ingest
        conn = sqlite3.connect(os.path.join(self.out, "results.db"))
        with conn:
            for t in ("runs", "flows", "queues", "summaries"):
                conn.execute(f"DELETE FROM {t}")
        conn.close()
        ids = [x[:-5] for x in os.listdir(os.path.join(self.out, "logs")) if x.endswith(".json")]
        before = {i: os.stat(os.path.join(self.out, "runs", i, "summary.json")).st_mtime_ns for i in ids}
        p = sweep_cmd("run", f, "--out", self.out)
        self.assertIn("ingested 2 point(s)", p.stderr)
        self.assertIn("0 to run", p.stderr)
        self.assertEqual(before, {i: os.stat(os.path.join(self.out, "runs", i, "summary.json")).st_mtime_ns for i in ids})
        self.assertEqual(self.q("SELECT count(*) FROM runs")[0][0], 2)
        self.assertEqual(self.q("SELECT count(*) FROM flows")[0][0], 2)

    def test_kill_and_resume(self):
        f = self.write(TINY)
        # a binary whose no-trim point hangs: the sweep is killed while it runs
        slow = self.write(f"""#!/bin/sh
case "$*" in *-disable_trim*--check) ;; *-disable_trim*) while :; do sleep 0.1; done;; esac
exec {BIN} "$@"
""", "slow.sh")
        os.chmod(slow, 0o755)
        e = dict(os.environ, SPRAYSIM=slow)
        proc = subprocess.Popen(["/usr/bin/python3", TOOL, "run", f, "--out", self.out, "-j", "2"],
                                env=e, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                if self.q("SELECT count(*) FROM runs")[0][0] == 1:
                    break
            except sqlite3.Error:
                pass
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # the hanging child died with the sweep (no orphan)
        time.sleep(0.3)
        ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
        self.assertNotIn(slow, ps)
        self.assertEqual(self.q("SELECT variant FROM runs"), [("trim",)])
        p = sweep_cmd("run", f, "--out", self.out)
        self.assertIn("1 done, 1 to run", p.stderr)
        self.assertEqual(sorted(self.q("SELECT variant, status FROM runs")), [("notrim", "done"), ("trim", "done")])
        self.assertEqual(self.q("SELECT count(*) FROM flows")[0][0], 2)
        self.assertEqual(self.q("SELECT count(DISTINCT point_id) FROM queues")[0][0], 2)

    def test_more_repetitions_extend_the_database(self):
        f = self.write(TINY)
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        self.write(TINY.replace("seeds = [1]", "seeds = [1, 2]"))
        p = sweep_cmd("run", f, "--out", self.out)
        self.assertIn("4 points, 2 done, 2 to run", p.stderr)
        self.assertEqual(self.q("SELECT seed, count(*) FROM runs GROUP BY seed"), [(1, 2), (2, 2)])
        out = sweep_cmd("query", self.out, "fct_max_us", "--by", "variant").stdout.splitlines()
        self.assertEqual(out[1].split("\t")[1], "2")

    def test_fresh_deletes_only_a_results_directory(self):
        f = self.write(TINY)
        os.makedirs(self.out)
        keep = os.path.join(self.out, "precious.txt")
        open(keep, "w").close()
        p = sweep_cmd("run", f, "--out", self.out, "--fresh", check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not deleting", p.stderr)
        self.assertTrue(os.path.exists(keep))
        os.unlink(keep)
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        sweep_cmd("run", f, "--out", self.out, "--fresh", "--quiet")
        self.assertEqual(self.q("SELECT count(*) FROM runs")[0][0], 2)

    def test_points_removed_from_the_file_leave_the_queries(self):
        f = self.write(TINY)
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        self.write(TINY.replace('notrim = { "-disable_trim" = true }', 'notrim = { "-disable_trim" = true, "-sleek" = true }'))
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        self.assertEqual(self.q("SELECT count(*) FROM runs")[0][0], 3)  # kept
        self.assertEqual(self.q("SELECT count(*) FROM runs WHERE point_index IS NULL")[0][0], 1)
        out = sweep_cmd("query", self.out, "fct_max_us", "--by", "variant,sleek").stdout.splitlines()
        self.assertEqual([ln.split("\t")[:3] for ln in out[1:]], [["trim", "None", "1"], ["notrim", "1", "1"]])

    def test_failed_point_is_recorded(self):
        # a run that fails after its flags passed --check: recorded with its
        # last line (a bad flag itself is refused before running, below)
        fail = self.write(f"""#!/bin/sh
case "$*" in *--check|--version) exec {BIN} "$@";; esac
echo "spraysim: -paths: '0' is out of range" >&2
exit 2
""", "fail.sh")
        os.chmod(fail, 0o755)
        f = self.write(TINY)
        p = sweep_cmd("run", f, "--out", self.out, env={"SPRAYSIM": fail}, check=False)
        self.assertEqual(p.returncode, 1)
        rows = self.q("SELECT status, exit_code, error FROM runs")
        self.assertEqual(len(rows), 2)
        self.assertTrue(all(r[0] == "failed" and r[1] == 2 and "-paths" in r[2] for r in rows), rows)

    def test_signal_killed_point_is_failed_and_sweep_goes_on(self):
        # a run that dies from a signal (a segfault, the OOM killer) is a
        # failed point with the signal named; the other points still run
        crash = self.write(f"""#!/bin/sh
case "$*" in *--check) ;; *-disable_trim*) kill -SEGV $$;; esac
exec {BIN} "$@"
""", "crash.sh")
        os.chmod(crash, 0o755)
        f = self.write(TINY.replace("seeds = [1]", "seeds = [1, 2]"))
        p = sweep_cmd("run", f, "--out", self.out, "-j", "1", env={"SPRAYSIM": crash}, check=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        rows = sorted(self.q("SELECT variant, seed, status, exit_code, error FROM runs"))
        self.assertEqual([r[:4] for r in rows], [("notrim", 1, "failed", -11), ("notrim", 2, "failed", -11),
                                                 ("trim", 1, "done", 0), ("trim", 2, "done", 0)])
        self.assertEqual(rows[0][4], "killed by signal SIGSEGV (11)")
        # a resume says why the failed points are not run again
        p = sweep_cmd("run", f, "--out", self.out, env={"SPRAYSIM": crash}, check=False)
        self.assertIn("4 done, 0 to run", p.stderr)
        self.assertIn("2 of the done points failed and are not run again", p.stderr)
        self.assertIn("--retry-failed", p.stderr)

    def test_unreadable_outputs_are_a_failed_point(self):
        # outputs that cannot be read (a summary without its sections, a
        # truncated flows.csv, an empty queues.csv) make that point failed
        # with the reason; the others are ingested, nothing half-written
        f = self.write(TINY.replace("seeds = [1]", "seeds = [1, 2]"))
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        ids = [r[0] for r in self.q("SELECT point_id FROM runs ORDER BY point_index")]
        run = os.path.join(self.out, "runs")
        with open(os.path.join(run, ids[0], "summary.json"), "w") as fh:
            fh.write("{}")
        with open(os.path.join(run, ids[1], "flows.csv"), "a") as fh:
            fh.write("1,2\n")
        open(os.path.join(run, ids[2], "queues.csv"), "w").close()
        conn = sqlite3.connect(os.path.join(self.out, "results.db"))
        with conn:
            for t in ("runs", "flows", "queues", "summaries"):
                conn.execute(f"DELETE FROM {t}")
        conn.close()
        p = sweep_cmd("run", f, "--out", self.out, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ingested 4 point(s)", p.stderr)
        rows = dict((r[0], r[1:]) for r in self.q("SELECT point_id, status, error FROM runs"))
        self.assertEqual(rows[ids[0]], ("failed", "summary.json: no key 'run'"))
        self.assertEqual(rows[ids[1]][0], "failed")
        self.assertRegex(rows[ids[1]][1], r"^flows.csv: line 3: 2 fields, the header has \d+$")
        self.assertEqual(rows[ids[2]], ("failed", "queues.csv: empty file"))
        self.assertEqual(rows[ids[3]], ("done", None))
        self.assertEqual(self.q("SELECT DISTINCT point_id FROM flows"), [(ids[3],)])
        self.assertEqual(self.q("SELECT count(*) FROM summaries")[0][0], 1)

    def test_check_refuses_bad_flags_before_running(self):
        # spraysim --check: flags and input files as a run reads them,
        # nothing printed, nothing written
        cm = os.path.join(os.environ.get("SHARED", os.path.join(os.path.dirname(ROOT), "shared")),
                          "data", "htsim", "matrices", "one.cm")
        r = subprocess.run([BIN, "-tm", cm, "-end", "100", "--check"], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        r = subprocess.run([BIN, "-tm", cm, "--out", os.path.join(self.tmp, "o"), "--check"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "o")))
        for argv, want in ((["-tm", cm, "--cc", "bogus"], "--cc: unknown algorithm 'bogus'"),
                           (["-tm", os.path.join(self.tmp, "none.cm")], "none.cm"),
                           (["--workload", "poisson:cdf=" + os.path.join(self.tmp, "no.cdf") + ",load=0.5,n=16"],
                            "no.cdf")):
            r = subprocess.run([BIN] + argv + ["--check"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, argv)
            self.assertEqual(r.stdout, "")
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(want, r.stderr)
        # the sweep refuses at expansion, naming the point's flags and the
        # binary's line, and runs nothing
        f = self.write(TINY.replace('notrim = { "-disable_trim" = true }', 'notrim = { "--cc" = "bogus" }'))
        for cmd in ("run", "expand", "slurm"):
            p = sweep_cmd(cmd, f, "--out", self.out, check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn("s.toml: point ", p.stderr)
            self.assertIn("(variant=notrim): spraysim -tm ", p.stderr)
            self.assertIn("--cc bogus: spraysim: --cc: unknown algorithm 'bogus'", p.stderr)
        self.assertEqual(os.listdir(os.path.join(self.out, "logs")), [])

    def test_full_disk_is_one_line(self):
        # a write the system refuses (here a file size limit: EFBIG, as a
        # full disk gives ENOSPC) is one line naming the file, exit 2
        import resource
        f = self.write(TINY.replace("seeds = [1]", "repetitions = 20"))

        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
        e = dict(os.environ, SPRAYSIM=BIN)
        p = subprocess.run(["/usr/bin/python3", TOOL, "run", f, "--out", self.out], capture_output=True,
                           text=True, env=e, cwd=ROOT, preexec_fn=limit)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.strip().splitlines(), [f"sweep: {self.out}/points.json: File too large"])
        self.assertEqual([x for x in os.listdir(self.out) if "tmp" in x], [])

    def test_report_without_matplotlib_is_one_line(self):
        # a python3 without matplotlib: one line saying what to install
        fake = os.path.join(self.tmp, "fake")
        os.makedirs(os.path.join(fake, "matplotlib"))
        with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as fh:
            fh.write("raise ImportError(\"No module named 'matplotlib'\")\n")
        f = self.write(TINY)
        for args in (["report", f, "--out", self.out], ["run", f, "--out", self.out, "--report"],
                     ["report-run", self.tmp]):
            p = sweep_cmd(*args, env={"PYTHONPATH": fake}, check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn("make plot-deps", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "runs")))  # refused before running

    def test_zero_over_zero_claim_cannot_be_evaluated(self):
        f = self.write(TINY + """
[report]
[report.define]
nothing = "(0 * r.seed)"
[[report.claim]]
figure = "zero"
source = "ours: a test"
metric = "nothing"
ratio = [{ variant = "trim" }, { variant = "notrim" }]
expect = 1
[[report.claim]]
figure = "scaled by zero"
source = "ours: a test"
metric = "fct_max_us"
diff = [{ variant = "trim" }, { variant = "notrim" }]
scale = "nothing"
at_most = 1
[[report.claim]]
figure = "fine"
source = "ours: a test"
metric = "fct_max_us"
ratio = [{ variant = "trim" }, { variant = "notrim" }]
at_least = 0
""")
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        html = os.path.join(self.tmp, "r.html")
        sweep_cmd("report", f, "--out", self.out, "--html", html)
        text = open(html).read()
        self.assertEqual(text.count('Verdict: <span class="open">cannot be evaluated'), 2, text)
        self.assertIn("(ratio 0 / 0)", text)
        self.assertNotIn('class="disagrees"', text)
        self.assertEqual(text.count('Verdict: <span class="agrees"'), 1)

    def test_partly_verdicts_and_threshold_sources(self):
        # a claim whose paper bound fails while its weaker `partly` bound (the
        # direction) holds reads "partly"; one whose bound holds on the mean
        # but not in every seed, where the paper says always (`all_seeds`),
        # reads "partly" too; the report shows each claim's threshold source
        # and the index counts partly verdicts and the sources
        f = self.write(TINY.replace("seeds = [1]", "seeds = [1, 2]") + """
[report]
[report.define]
seedval = "(r.seed * 1.0)"
[[report.claim]]
figure = "direction only"
source = "paper: Fig. 4 text, 'some 13x'"
metric = "seedval"
select = { variant = "trim" }
at_least = 13
partly = { at_least = 1 }
[[report.claim]]
figure = "always"
source = "paper: Sec. 7, 'always within two'"
metric = "seedval"
select = { variant = "trim" }
at_most = 1.6
all_seeds = true
[[report.claim]]
figure = "always, every seed"
source = "ours: a bound every seed meets"
metric = "seedval"
select = { variant = "trim" }
at_most = 100
all_seeds = true
[[report.claim]]
figure = "a subset"
source = "paper: a mean over nine scenarios, here one"
metric = "seedval"
select = { variant = "trim" }
at_most = 100
subset = true
[[report.claim]]
figure = "neither"
source = "reference: a number"
metric = "seedval"
select = { variant = "trim" }
at_least = 13
partly = { at_least = 5 }
""")
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        html = os.path.join(self.tmp, "r.html")
        sweep_cmd("report", f, "--out", self.out, "--html", html)
        text = open(html).read()
        self.assertEqual(text.count('Verdict: <span class="partly">partly: '), 3, text)
        self.has(text, "partly: expected at most 100, met on a subset of what the paper states")
        self.has(text, "partly: expected at least 13 is not met; expected at least 1 (the weaker reading) is")
        self.has(text, "partly: expected at most 1.6 on the mean, but only 1 of 2 seeds meet it")
        self.assertEqual(text.count('Verdict: <span class="agrees">'), 1)
        self.assertEqual(text.count('Verdict: <span class="disagrees">'), 1)
        self.has(text, "<td>threshold from</td><td>paper: Fig. 4 text, &#x27;some 13x&#x27;</td>")
        from sweeplib import index
        self.assertEqual(index.verdicts(html), (1, 3, 1, 0))
        self.assertEqual(index.sources([{"source": "paper: a"}, {"source": "ours: b"}, {"source": "paper: c"},
                                        {"source": "reference: d"}]), (2, 1, 1))

    def test_direction_claims_and_rejudging_a_page(self):
        # a claim marked `direction` (the paper says only "better" or
        # "grows") agrees "direction only" when the 95% CI over seeds, or
        # with one seed its stated `noise`, clears the neutral point; it is
        # within noise when that reaches across, and open with one seed and
        # no noise measure. `report --from-page` re-judges a written page's
        # claims from the values it printed, with the sweep file's current
        # thresholds, and refuses one whose measured expression changed
        claims = """
[report]
[report.define]
dirval = "(r.seed * (CASE WHEN r.variant = 'trim' THEN 10.0 ELSE 1.0 END))"
[[report.claim]]
figure = "clear of noise"
source = "paper: Sec. 1, 'better' (direction only)"
metric = "dirval"
ratio = [{ variant = "trim" }, { variant = "notrim" }]
direction = true
at_least = 1
[[report.claim]]
figure = "the other way"
source = "paper: Sec. 1, 'smaller' (direction only)"
metric = "dirval"
ratio = [{ variant = "trim" }, { variant = "notrim" }]
direction = true
at_most = 1
[[report.claim]]
figure = "a difference"
source = "paper: Sec. 1, 'later' (direction only)"
metric = "dirval"
diff = [{ variant = "trim" }, { variant = "notrim" }]
direction = true
at_least = 0
"""
        one = self.write(TINY + claims.replace("at_least = 0\n", "at_least = 0\nnoise = 20\n"))
        sweep_cmd("run", one, "--out", self.out, "--quiet")
        html = os.path.join(self.tmp, "r.html")
        sweep_cmd("report", one, "--out", self.out, "--html", html)
        text = open(html).read()
        # one seed: 10 / 1; the first two have no noise measure, the
        # difference (9) is within its stated +-20
        self.assertEqual(text.count("open: a direction claim with one seed and no noise measure"), 2, text)
        self.has(text, "agrees: expected at least 0 (within noise: one seed, +-20 as the claim states "
                       "reaches the other side)")
        two = self.write(TINY.replace("seeds = [1]", "seeds = [1, 2]") + claims)
        out2 = os.path.join(self.tmp, "two")
        sweep_cmd("run", two, "--out", out2, "--quiet")
        sweep_cmd("report", two, "--out", out2, "--html", html)
        text = open(html).read()
        # seeds 1 and 2: ratios 10 and 10 (no spread), differences 9 and 18
        # (a 95% CI of +-57 over two seeds)
        self.has(text, "agrees, direction only: expected at least 1 (noise: the 95% CI over 2 seeds, clear of it; "
                       "the paper gives no number)")
        self.has(text, "disagrees: expected at most 1, the direction the paper states (noise: the 95% CI over 2 seeds, clear of it)")
        from sweeplib import index
        self.has(text, "agrees: expected at least 0 (within noise: the 95% CI over 2 seeds reaches the other side)")
        self.assertEqual(index.verdicts(html), (1, 0, 1, 1))
        self.assertEqual(index.direction_only(html), 1)
        # re-judged from the page with the thresholds changed: the same
        # measured values, new verdicts, and a note saying so
        before = open(html).read()
        changed = self.write(TINY.replace("seeds = [1, 2]", "seeds = [1]").replace("seeds = [1]", "seeds = [1, 2]") +
                             claims.replace("direction = true\nat_most = 1\n", "at_most = 20\n")
                                   .replace("'smaller' (direction only)", "'at most 20x'"))
        sweep_cmd("report", changed, "--out", os.path.join(self.tmp, "nothing-here"), "--html", html, "--from-page")
        text = open(html).read()
        self.assertEqual(index.verdicts(html), (2, 0, 0, 1))
        self.has(text, "re-judged from the measurements this page recorded")
        self.has(text, "<td>threshold from</td><td>paper: Sec. 1, &#x27;at most 20x&#x27;</td>")
        self.assertEqual(before.split("<h2>Results</h2>")[1], text.split("<h2>Results</h2>")[1])
        # the same thresholds again: nothing moves (the verdicts and note are stable)
        sweep_cmd("report", changed, "--out", out2, "--html", html, "--from-page")
        self.assertEqual(open(html).read(), text)
        # a changed metric cannot be re-judged from the page
        moved = self.write(TINY + claims.replace('metric = "dirval"\nratio', 'metric = "fct_max_us"\nratio', 1))
        p = sweep_cmd("report", moved, "--out", out2, "--html", html, "--from-page", check=False)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("claim 'clear of noise' now measures fct_max_us", p.stderr)
        self.assertIn("(rerun the sweep)", p.stderr)
        self.assertEqual(open(html).read(), text)

    # -- the sweep file reader under random input ----------------------------
    def expand_in_process(self, path):
        """tools/sweep expand PATH run in this process: (exit status, stderr);
        an exception escaping tools/sweep's cli() is a traceback, a failure."""
        import contextlib
        import io
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                rc = SWEEP_CLI.cli(["expand", path, "--out", self.out, "--binary", BIN])
            except SystemExit as e:  # argparse
                rc = e.code
        return rc, err.getvalue()

    def test_sweep_file_corpus(self):
        # tests/sweep/corpus: one file per case of issue 20 item 4 (and valid
        # ones to mutate); its first line says the exit status and what the
        # one line on stderr names
        corpus = os.path.join(ROOT, "tests", "sweep", "corpus")
        names = sorted(os.listdir(corpus))
        self.assertGreaterEqual(len(names), 20)
        for name in names:
            path = os.path.join(corpus, name)
            with open(path) as fh:
                want = fh.readline().strip().removeprefix("# expect: ").split(" ", 1)
            rc, err = self.expand_in_process(path)
            self.assertEqual(rc, int(want[0]), f"{name}: {err}")
            if rc:
                self.assertEqual(len(err.strip().splitlines()), 1, f"{name}: {err}")
                self.assertTrue(err.startswith(f"sweep: {path}: "), f"{name}: {err}")
                self.assertIn(want[1], err, name)
            else:
                self.assertEqual(err, "", name)

    def test_sweep_file_fuzz(self):
        # random mutations of the corpus (fixed seed, bounded count): every
        # outcome is exit 0, or exit 2 with one line on stderr naming the
        # file; never a traceback
        import random
        rng = random.Random(int(os.environ.get("SWEEP_FUZZ_SEED", "20")))
        corpus = os.path.join(ROOT, "tests", "sweep", "corpus")
        texts, valid = [], []
        for name in sorted(os.listdir(corpus)):
            with open(os.path.join(corpus, name)) as fh:
                texts.append(fh.read())
            if name.startswith("valid"):
                valid.append(texts[-1])
        numbers = ["-1", "0", "inf", "nan", "-inf", "1e400", "9223372036854775808", "9223372036854775807",
                   "1" * 30, "1.5", "true", '"x"', "[]", "{}", "[[1]]", "[1, [2]]", "1979-05-27", "{ a = 1 }"]
        strings = ["5", '""', '"{nope}"', '"{seed}"', '"{input.x}"', '"-q"', "[1, 2]", "true", '"status"',
                   '"/nonexistent"', '"{shared}"', '"a\\u0000b"', "-3", "[]"]
        keys = ["status", "version", "rep", "events", "point_id", "seed", "\"--seed\"", "\"-q\"", "x",
                "\"-tm\"", "jobs", "metrics", "kind", "ratio", "command", "\"-ecn\""]
        snippets = ["[report]\nmetrics = 5", "jobs = -1", '"-tm" = 5', "status = [1, 2]", "[[exclude]]\nx = 1",
                    "[inputs.q]\ncommand = ['no-such-command']", "x = " + "[" * 2000 + "]" * 2000,
                    "[axes.events]\na = {}", "seeds = [9223372036854775808]", "[[report.claim]]\nratio = [1]",
                    "[[report.plot]]\nkind = 5", "[report.define]\nx = 1", "[sweep]", "[fixed]", "[axes]",
                    "flows = 1", "repetitions = 0", '"-paths" = 0', '"-q" = nan']
        tok = __import__("re").compile(r'-?\d[\d.e+-]*|"[^"\n]*"|[A-Za-z_][A-Za-z0-9_]*(?= *=)')
        iterations = int(os.environ.get("SWEEP_FUZZ_ITERATIONS", "300"))
        path = os.path.join(self.tmp, "fuzz.toml")
        seen = {0: 0, 2: 0}
        for i in range(iterations):
            # half from a valid file, so that mutations also reach the expansion
            text = rng.choice(valid if rng.random() < 0.5 else texts)
            for _ in range(rng.randint(1, 3)):
                lines = text.split("\n")
                op = rng.randrange(7)
                ms = list(tok.finditer(text))
                if op == 0 and ms:
                    m = rng.choice(ms)
                    pool = numbers if m.group()[0] in "-0123456789" else strings if m.group()[0] == '"' else keys
                    text = text[:m.start()] + rng.choice(pool) + text[m.end():]
                elif op == 1 and len(lines) > 1:
                    del lines[rng.randrange(len(lines))]
                    text = "\n".join(lines)
                elif op == 2:
                    j = rng.randrange(len(lines))
                    lines.insert(j, lines[j])
                    text = "\n".join(lines)
                elif op == 3:
                    lines.insert(rng.randrange(len(lines) + 1), rng.choice(snippets))
                    text = "\n".join(lines)
                elif op == 4 and text:
                    j = rng.randrange(len(text))
                    text = text[:j] + chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 32), 0xe9])) + text[j + 1:]
                elif op == 5 and text:
                    j = rng.randrange(len(text))
                    text = text[:j] + text[j + rng.randint(1, 20):]
                else:
                    other = rng.choice(texts).split("\n")
                    j = rng.randrange(len(other))
                    lines[rng.randrange(len(lines)):rng.randrange(len(lines) + 1)] = other[j:j + rng.randint(1, 5)]
                    text = "\n".join(lines)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(text)
            shutil.rmtree(self.out, ignore_errors=True)
            rc, err = self.expand_in_process(path)
            self.assertIn(rc, (0, 2), f"iteration {i}: exit {rc}: {err}\n{text[:2000]}")
            seen[rc] += 1
            if rc == 2:
                self.assertEqual(len(err.strip().splitlines()), 1, f"iteration {i}: {err}\n{text[:2000]}")
                self.assertTrue(err.startswith("sweep: "), f"iteration {i}: {err}")
            else:
                self.assertEqual(err, "", f"iteration {i}: {err}")
        # the mutations reach both sides (a fuzzer whose every input is
        # refused would test only the first check)
        self.assertTrue(seen[0] and seen[2], seen)

    # -- Slurm -------------------------------------------------------------
    def test_slurm_script_with_hand_set_task_id(self):
        f = self.write(TINY)
        p = sweep_cmd("slurm", f, "--out", self.out, "--chunk", "1", "--sbatch=--time=00:10:00")
        script = os.path.join(self.out, "slurm.sh")
        self.assertIn("2 points in 2 array task(s)", p.stdout)
        with open(script) as fh:
            text = fh.read()
        self.assertIn("#SBATCH --array=0-1\n", text)
        self.assertIn("#SBATCH --time=00:10:00\n", text)
        with open(os.path.join(self.out, "points.json")) as fh:
            pts = json.load(fh)["points"]
        e = dict(os.environ, SPRAYSIM=BIN)
        e.pop("SLURM_ARRAY_TASK_ID", None)
        r = subprocess.run(["sh", script], env=e, capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("SLURM_ARRAY_TASK_ID", r.stderr)
        r = subprocess.run(["sh", script], env=dict(e, SLURM_ARRAY_TASK_ID="1"), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        done = {x[:-5] for x in os.listdir(os.path.join(self.out, "logs")) if x.endswith(".json")}
        self.assertEqual(done, {pts[1]["id"]})
        self.assertEqual(self.q("SELECT count(*) FROM runs")[0][0] if os.path.exists(os.path.join(self.out, "results.db")) else 0, 0)
        r = subprocess.run(["sh", script], env=dict(e, SLURM_ARRAY_TASK_ID="2"), capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("out of range", r.stderr)
        subprocess.run(["sh", script], env=dict(e, SLURM_ARRAY_TASK_ID="0"), check=True, capture_output=True)
        sweep_cmd("ingest", f, "--out", self.out)
        self.assertEqual(sorted(r[0] for r in self.q("SELECT point_id FROM runs")), sorted(p["id"] for p in pts))
        # a second pass of a task reruns nothing
        r = subprocess.run(["sh", script], env=dict(e, SLURM_ARRAY_TASK_ID="0"), capture_output=True, text=True)
        self.assertIn("1 already run", r.stderr)

    # -- figure coverage (experiments/coverage.tsv) ---------------------------
    def test_coverage_table_matches_experiments(self):
        from sweeplib import index
        self.assertEqual(index.check(os.path.join(ROOT, "experiments")), [])
        rows = index.read(os.path.join(ROOT, "experiments"))
        self.assertIn(("003", "4"), [(r["seed"], r["figure"]) for r in rows])

    def test_fidelity_page_is_generated_from_the_reports(self):
        # docs/fidelity.md's block is what tools/sweep fidelity writes from
        # the committed reports and coverage.tsv (verdicts, coverage)
        from sweeplib import index
        doc = os.path.join(ROOT, "docs", "fidelity.md")
        self.assertFalse(index.write_fidelity(os.path.join(ROOT, "experiments"), doc, check_only=True),
                         "docs/fidelity.md's generated block is out of date: run tools/sweep fidelity")
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        self.assertIn(index.markdown(os.path.join(ROOT, "experiments"), "../"), text)
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "sweep"), "fidelity", "--check",
                            os.path.join(ROOT, "experiments")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_fidelity_block_follows_claims_and_keeps_the_rest(self):
        from sweeplib import index
        exp = os.path.join(self.tmp, "exp")
        os.makedirs(os.path.join(exp, "reports"))
        with open(os.path.join(exp, "a.toml"), "w") as f:
            f.write('[sweep]\nname = "a"\ntitle = "Sweep a"\n[[report.claim]]\nsource = "paper: x"\n'
                    '[[report.claim]]\nsource = "ours: y"\n')
        with open(os.path.join(exp, "coverage.tsv"), "w") as f:
            f.write("seed\tfigure\tcontent\tstatus\twhere\treason\n000\t1\tx | y\treproduced\ta\t\n")
        claim = ('<h3>Seed 000 Fig. 1: {h}</h3>\n<table class="claim"><tbody><tr><td>measured</td>'
                 '<td>m[cc=a] = {v} (2 seeds)</td></tr></tbody></table>\n<p>Verdict: <span class="{c}">{t}</span></p>\n')
        rep = os.path.join(exp, "reports", "a.html")
        with open(rep, "w") as f:
            f.write("<h3>A figure</h3><img>\n" + claim.format(h="A &amp; B", v="1.5", c="agrees", t="agrees: expected at most 2")
                    + claim.format(h="C", v="3", c="open", t="no verdict (no data or no expectation)"))
        self.assertEqual(index.claims(rep), [("Seed 000 Fig. 1: A & B", "m[cc=a] = 1.5 (2 seeds)", "agrees", "agrees: expected at most 2"),
                                             ("Seed 000 Fig. 1: C", "m[cc=a] = 3 (2 seeds)", "open", "no verdict (no data or no expectation)")])
        doc = os.path.join(self.tmp, "fidelity.md")
        with open(doc, "w") as f:
            f.write("# Page\n\nintro\n\n" + index.FIDELITY_BEGIN + "\nstale\n" + index.FIDELITY_END + "\n\nafter\n")
        self.assertTrue(index.write_fidelity(exp, doc, check_only=True))
        self.assertIn("stale", open(doc).read())   # --check writes nothing
        self.assertTrue(index.write_fidelity(exp, doc))
        text = open(doc).read()
        self.assertTrue(text.startswith("# Page\n\nintro\n\n" + index.FIDELITY_BEGIN))
        self.assertTrue(text.endswith(index.FIDELITY_END + "\n\nafter\n"))
        self.assertNotIn("stale", text)
        self.assertIn("| [a](../experiments/reports/a.html) | Sweep a | 1 | 0 | 0 | 0 | 1 | 1 | 0 | 1 |", text)
        self.assertIn("| Seed 000 Fig. 1: A & B | m[cc=a] = 1.5 (2 seeds) | agrees: expected at most 2 |", text)
        self.assertIn("| within noise or open: no verdict (no data or no expectation) |", text)
        self.assertIn("| 000 | 1 | x \\| y | reproduced | [a](../experiments/reports/a.html) |", text)
        self.assertFalse(index.write_fidelity(exp, doc))   # now current
        # a verdict that changes in the report makes the page stale
        with open(rep, "a") as f:
            f.write(claim.format(h="D", v="9", c="disagrees", t="disagrees: expected at most 2"))
        self.assertTrue(index.write_fidelity(exp, doc, check_only=True))
        with open(doc, "w") as f:
            f.write("# no markers\n")
        with self.assertRaises(spec.SpecError) as cm:
            index.write_fidelity(exp, doc)
        self.assertIn(doc, str(cm.exception))

    def test_coverage_catches_missing_and_unreferenced_sweeps(self):
        from sweeplib import index
        exp = os.path.join(self.tmp, "exp")
        os.makedirs(os.path.join(exp, "reports"))
        for name in ("a", "b"):
            with open(os.path.join(exp, name + ".toml"), "w") as f:
                f.write(f'[sweep]\nname = "{name}"\ntitle = "Sweep {name}"\n')
        with open(os.path.join(exp, "run.sh"), "w") as f:
            f.write("true\n")
        head = "# comment\nseed\tfigure\tcontent\tstatus\twhere\treason\n"
        with open(os.path.join(exp, "coverage.tsv"), "w") as f:
            f.write(head + "000\t1\tx\treproduced\ta gone\t\n000\t2\ty\tproxy\trun.sh\t\n"
                    "000\t3\tz\tdiagram\t\t\n000\t4\tw\tpartial\t\t\n")
        p = index.check(exp)
        self.assertEqual(len(p), 3, p)
        self.assertIn(":3: gone: neither", p[0])
        self.assertIn(":6: status partial needs", p[1])
        self.assertIn("experiments/b.toml is referenced by no figure", p[2])
        with open(os.path.join(exp, "reports", "a.html"), "w") as f:
            f.write('Verdict: <span class="agrees">x</span> Verdict: <span class="open">y</span>')
        page = open(index.write_index(exp)).read()
        self.assertIn('<a href="a.html">Sweep a</a></td><td>1</td><td>0</td><td>0</td><td>0</td><td>1</td>', page)
        self.assertIn('<a href="../run.sh">run.sh</a>', page)
        self.assertIn("gone", page)
        r = sweep_cmd("coverage", exp, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("[a](experiments/reports/a.html)", r.stdout)
        with open(os.path.join(exp, "coverage.tsv"), "w") as f:
            f.write(head + "000\t1\tx\tdone\ta\t\n")
        r = sweep_cmd("coverage", exp, check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("coverage.tsv:3: status 'done' is not one of", r.stderr)

    def test_coverage_nested_sweeps(self):
        # a sweep one directory down (experiments/large/NAME.toml, a separate
        # step) is a sweep: its report is reports/NAME.html, the index lists it
        from sweeplib import index
        exp = os.path.join(self.tmp, "expn")
        os.makedirs(os.path.join(exp, "reports"))
        os.makedirs(os.path.join(exp, "large"))
        with open(os.path.join(exp, "large", "big.toml"), "w") as f:
            f.write('[sweep]\nname = "big"\ntitle = "Big sweep"\n')
        with open(os.path.join(exp, "coverage.tsv"), "w") as f:
            f.write("seed\tfigure\tcontent\tstatus\twhere\treason\n000\t1\tx\treproduced\tlarge/big\t\n")
        self.assertEqual(index.check(exp), [])
        self.assertIn("[large/big](experiments/reports/big.html)", index.markdown(exp))
        with open(os.path.join(exp, "reports", "big.html"), "w") as f:
            f.write('Verdict: <span class="disagrees">x</span>')
        page = open(index.write_index(exp)).read()
        self.assertIn('<a href="big.html">Big sweep</a></td><td>0</td><td>0</td><td>0</td><td>1</td><td>0</td>', page)
        self.assertIn('<a href="big.html">large/big</a>', page)
        self.assertFalse(index.is_sweep(exp, "../large/big"))
        # a sweep file that is not TOML: one line naming it, no traceback
        with open(os.path.join(exp, "large", "big.toml"), "w") as f:
            f.write("[sweep\n")
        r = sweep_cmd("index", exp, check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("large/big.toml: ", r.stderr)

    def test_ring_alltoall_generator(self):
        # experiments/inputs/gen_ring_alltoall.sh (seed000_fig16c_ring_a2a):
        # in the sync reading host h's iteration i+1 starts only when its
        # iteration-i send is acknowledged and its iteration-i receive is
        # complete; every message finishes with UET and with RoCE
        gen = os.path.join(ROOT, "experiments", "inputs", "gen_ring_alltoall.sh")
        cm = os.path.join(self.tmp, "ring.cm")
        with open(cm, "w") as f:
            subprocess.run(["sh", gen, "16", "100000", "sync"], stdout=f, check=True)
        for extra in ([], ["--transport", "roce"]):
            out = os.path.join(self.tmp, "o" + "".join(extra))
            subprocess.run([BIN, "-tm", cm, "-end", "5000", "--out", out] + extra, check=True,
                           capture_output=True, text=True)
            with open(os.path.join(out, "flows.csv")) as f:
                rows = {int(r["flow_id"]): r for r in csv.DictReader(f)}
            self.assertEqual(len(rows), 240)
            self.assertTrue(all(r["finish_us"] for r in rows.values()), extra)
            for i in range(2, 16):    # iteration i, host h: flow (i-1)*16 + h + 1
                for h in range(16):
                    prev_send = rows[(i - 2) * 16 + h + 1]
                    prev_recv = rows[(i - 2) * 16 + (h - (i - 1)) % 16 + 1]
                    start = float(rows[(i - 1) * 16 + h + 1]["start_us"])
                    self.assertEqual(int(prev_recv["dst"]), h)
                    self.assertAlmostEqual(start, max(float(prev_send["finish_us"]),
                                                      float(prev_recv["rcv_finish_us"])), places=5)
        p = subprocess.run(["sh", gen, "4", "100", "ring"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("MODE 'ring' is not send or sync", p.stderr)

    # -- unfinished messages and open-loop reports (issue 20 items 1, 8) ------
    def capture_figs(self):
        """Keeps report.py's figures instead of rendering them (restored after the test)."""
        from sweeplib import report
        figs = []
        orig = report.fig_html
        report.fig_html = lambda fig, alt: figs.append(fig) or ""
        self.addCleanup(setattr, report, "fig_html", orig)
        return report, figs

    def has(self, text, part):
        self.assertTrue(part in text, part)  # not assertIn: it would print the whole page

    def test_open_loop_sweep_counts_unfinished(self):
        # a Poisson sweep with messages unfinished at -end: the database has
        # each figure's population and unfinished count, the report's
        # metrics, size groups and claims say how many are unfinished and
        # flag lower bounds, and its FCT CDF has a log axis
        f = self.write(TINY.replace('"-tm" = "{shared}/data/htsim/matrices/one.cm"\n"-end" = 2000',
                                    '"--workload" = "poisson:cdf={shared}/data/workloads/facebook_hadoop.cdf,'
                                    'load=0.6,n=32,warmup_us=50,stop_us=400"\n"-tiers" = 2\n"-end" = 600') + """
[report]
[[report.claim]]
figure = "D tail"
source = "ours: a test"
metric = "poisson_slowdown_d_slowdown_p99"
select = { variant = "trim" }
at_least = 0
""")
        sweep_cmd("run", f, "--out", self.out, "--quiet")
        rows = self.q("SELECT r.point_id, s.fct_n, s.fct_unfinished, s.fct_lower_bound, s.poisson_slowdown_d_messages, "
                      "s.poisson_slowdown_d_unfinished, s.poisson_slowdown_d_lower_bound FROM runs r JOIN summaries s "
                      "USING(point_id) WHERE r.variant = 'trim'")
        pid, n, unf, lb, d_n, d_unf, d_lb = rows[0]
        self.assertGreater(unf, 0)
        self.assertEqual((lb, d_lb), (1, 1))
        # the database's flows give the same counts
        self.assertEqual(self.q(f"SELECT count(*), sum(fct_us IS NULL) FROM flows WHERE point_id = '{pid}' "
                                "AND start_us IS NOT NULL")[0], (n, unf))
        self.assertEqual(self.q(f"SELECT count(*), sum(slowdown_rcv IS NULL) FROM flows WHERE point_id = '{pid}' "
                                "AND poisson_group = 'D'")[0], (d_n, d_unf))
        html = os.path.join(self.tmp, "r.html")
        sweep_cmd("report", f, "--out", self.out, "--html", html)
        text = open(html).read()
        self.has(text, "Slowdown by size group")
        self.has(text, f"(1 seed); {d_unf} of {d_n} unfinished, counted at the run&#x27;s end: a lower bound")  # claim
        self.has(text, "&gt;= ")  # a flagged figure in the metrics and group tables
        self.has(text, f"<td>D</td><td>{d_n}</td><td>{d_unf}</td><td>&gt;= ")
        report, figs = self.capture_figs()
        conn = db.connect(os.path.join(self.out, "results.db"))
        report.cdf_plot(conn, {})
        self.assertEqual(figs[-1].axes[0].get_xscale(), "log")
        report.cdf_plot(conn, {"logx": False})
        self.assertEqual(figs[-1].axes[0].get_xscale(), "linear")
        # one run's page: the FCT figures' population and the size groups
        run = os.path.join(self.out, "runs", pid)
        sweep_cmd("report-run", run, "--html", html)
        text = open(html).read()
        self.has(text, f"({n} messages, {unf} unfinished counted at the run&#x27;s end: lower bounds)")
        self.has(text, f"<td>D</td><td>{d_n}</td><td>{d_unf}</td><td>&gt;= ")

    def test_metric_band_not_below_zero(self):
        # a metric no run has below zero: the 95% band stops at 0 (at load 1
        # the values 0.1 and 5 have a CI half-width of 31)
        path = os.path.join(self.tmp, "m.db")
        conn = db.connect(path)
        conn.execute("ALTER TABLE runs ADD COLUMN load REAL")
        conn.execute("ALTER TABLE summaries ADD COLUMN m REAL")
        for i, (load, seed, m) in enumerate([(1, 1, 0.1), (1, 2, 5.0), (2, 1, 1.0), (2, 2, 1.2)]):
            conn.execute("INSERT INTO runs (point_id, sweep, seed, rep, point_index, combo, command, status, load) "
                         "VALUES (?, 's', ?, 0, ?, '{}', 'x', 'done', ?)", (f"p{i}", seed, i, load))
            conn.execute("INSERT INTO summaries (point_id, m) VALUES (?, ?)", (f"p{i}", m))
        report, figs = self.capture_figs()
        report.metric_plot(conn, {"x": "load", "y": "m"})
        band = figs[-1].axes[0].collections[0].get_paths()[0].vertices
        self.assertAlmostEqual(min(band[:, 1]), 0.0)
        self.assertGreater(max(band[:, 1]), 30)
        # a metric with a negative value keeps its whole band
        conn.execute("UPDATE summaries SET m = -0.1 WHERE point_id = 'p0'")
        report.metric_plot(conn, {"x": "load", "y": "m"})
        self.assertLess(min(figs[-1].axes[0].collections[0].get_paths()[0].vertices[:, 1]), -20)

    def test_timeseries_every_numeric_column(self):
        # rtt_us and goodput_gbps are empty in the first row (no sample yet):
        # they still get their panels, as every numeric column does
        path = self.write("time_us,flow_id,cwnd_bytes,rtt_us,goodput_gbps,state\n"
                          "0.000000,1,1000,,,open\n1.000000,1,2000,12.5,3.25,open\n2.000000,1,3000,13.0,4.0,open\n",
                          "ts_flows.csv")
        report, figs = self.capture_figs()
        report.plot_timeseries(path, "t")
        self.assertEqual([ax.get_ylabel() for ax in figs[-1].axes], ["cwnd_bytes", "rtt_us", "goodput_gbps"])

    # -- statistics --------------------------------------------------------
    def test_mean_ci95(self):
        n, m, h = db.mean_ci95([1, 2, 3])
        self.assertEqual((n, m), (3, 2.0))
        self.assertAlmostEqual(h, 4.303 / 3 ** 0.5)
        self.assertEqual(db.mean_ci95([5]), (1, 5.0, None))
        self.assertEqual(db.mean_ci95([]), (0, None, None))
        self.assertAlmostEqual(db.mean_ci95(list(range(40)))[2], 1.96 * (sum((x - 19.5) ** 2 for x in range(40)) / 39 / 40) ** 0.5)


class Printer(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test)
        print(f"ok {test._testMethodName}", flush=True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        print(f"FAIL {test._testMethodName}: {self._exc_info_to_string(err, test)}", flush=True)

    def addError(self, test, err):
        super().addError(test, err)
        print(f"FAIL {test._testMethodName}: {self._exc_info_to_string(err, test)}", flush=True)


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(SweepTest)
    if len(sys.argv) > 1:
        suite = unittest.TestSuite(t for t in suite if t._testMethodName in sys.argv[1:])
    r = unittest.TextTestRunner(resultclass=Printer, stream=open(os.devnull, "w"), verbosity=0).run(suite)
    sys.exit(0 if r.wasSuccessful() else 1)
