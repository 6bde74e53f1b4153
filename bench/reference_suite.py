#!/usr/bin/python3
"""The reference simulator's own regression suite, run on spraysim.

uet-htsim keeps its regression experiments in sim/datacenter/validate*.txt:
each experiment is a connection matrix, the binary that runs it and its
flags (validate.py's format: the .cm path on one line, then "!Experiment
NAME", "!Binary ./htsim_uec", "!Param FLAGS" and "!tailFCT US" lines).
This script runs every htsim_uec experiment of those files on spraysim,
with the same files and flags, from the reference's datacenter folder (the
files name matrices and topologies relative to it), and compares the
makespan (the slowest flow's completion time) with the reference's:

- with HTSIM=path/to/htsim_uec, side by side: the reference runs too, and
  its makespan is the largest FCT of its "finished" lines, as validate.py
  reads them;
- without it, against the makespans recorded in bench/reference_suite.tsv
  (written by --record from a side-by-side run).

Usage (Debian's python3):
  HTSIM_SRC=/path/uet-htsim/htsim/sim/datacenter [HTSIM=.../htsim_uec] \\
    bench/reference_suite.py [--spraysim bin/spraysim] [-j N] [--files GLOB]
    [--only REGEX] [--record] [--markdown FILE]

--only keeps the experiments whose tag (FILE#INDEX, e.g.
validate_uec_both.txt#13) matches REGEX (Python re.search), to iterate on
a few; --record refuses it (the record holds the whole suite).

Prints one row per experiment and a closing line with the median ratio and
the shares within 5% and 10% (the goal: every experiment within 10%, at
least 98% within 5%). An experiment where either simulator leaves flows
unfinished, or fails, is listed and counted apart, never as agreeing.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "reference_suite.tsv")


def die(msg):
    print(f"reference_suite: {msg}", file=sys.stderr)
    sys.exit(2)


def read_plan(path):
    """The htsim_uec experiments of one validate file, in order:
    dicts with file, index, name, cm, params (list of tokens)."""
    with open(path) as fh:
        lines = [ln.rstrip("\n") for ln in fh]
    out, i, index = [], 0, 0
    while i < len(lines):
        cm = lines[i].strip()
        i += 1
        if not cm or cm.startswith("#") or cm.startswith("!"):
            continue
        name, binary, params = "", "./htsim_eqds", []  # validate.py's default binary
        while i < len(lines) and lines[i].startswith("!"):
            p = lines[i]
            i += 1
            if "Binary" in p:
                binary = p.split(" ", 1)[1].strip()
            elif "Param" in p:
                params += shlex.split(p.split(" ", 1)[1])
            elif "Experiment" in p:
                name = p.split(" ", 1)[1].strip()
        index += 1
        if os.path.basename(binary) != "htsim_uec":
            continue
        out.append({"file": os.path.basename(path), "index": index, "name": name, "cm": cm,
                    "params": params})
    return out


def ref_makespan(htsim, src, exp):
    """The reference's makespan: the largest FCT (the 9th field) of its
    'finished' lines, and how many flows finished (validate.py's reading:
    a 'total messages' line counts its messages)."""
    cmd = [htsim, "-tm", exp["cm"]] + exp["params"]
    p = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
    if p.returncode != 0:
        return None, 0, f"exit {p.returncode}"
    tail, done = 0.0, 0
    for line in p.stdout.splitlines():
        if "finished" not in line:
            continue
        items = line.split()
        try:
            fct = float(items[8])
        except (IndexError, ValueError):
            continue
        tail = max(tail, fct)
        done += int(items[11]) if "total messages" in line else 1
    return tail, done, ""


def spraysim_makespan(spraysim, src, exp):
    with tempfile.TemporaryDirectory(prefix="refsuite.") as tmp:
        out = os.path.join(tmp, "out")
        cmd = [spraysim, "-tm", exp["cm"]] + exp["params"] + ["--out", out]
        p = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
        if p.returncode != 0:
            err = (p.stderr.strip().splitlines() or [""])[-1]
            return None, 0, 0, f"exit {p.returncode}: {err}"
        with open(os.path.join(out, "summary.json")) as fh:
            flows = json.load(fh)["flows"]
        return flows.get("fct_max_us"), flows["total"], flows["unfinished"], ""


def load_recorded():
    rec = {}
    if not os.path.exists(RECORDED):
        return rec
    with open(RECORDED) as fh:
        for n, line in enumerate(fh, 1):
            if line.startswith("#") or not line.strip():
                continue
            f = line.rstrip("\n").split("\t")
            if len(f) != 5:
                die(f"{RECORDED}:{n}: expected 5 tab-separated fields")
            rec[(f[0], int(f[1]))] = (float(f[3]) if f[3] else None, int(f[4]))
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spraysim", default=os.path.join(os.path.dirname(HERE), "bin", "spraysim"))
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--files", default="validate*.txt", help="which plan files (glob in HTSIM_SRC)")
    ap.add_argument("--only", help="only the experiments whose tag FILE#INDEX matches this regular expression")
    ap.add_argument("--record", action="store_true", help="write the reference's makespans to " + RECORDED)
    ap.add_argument("--markdown", help="also write the table as Markdown to this file")
    a = ap.parse_args()
    src = os.environ.get("HTSIM_SRC", "")
    htsim = os.environ.get("HTSIM", "")
    if not src and htsim:
        src = os.path.normpath(os.path.join(os.path.dirname(htsim), "..", "..", "datacenter"))
    if not src or not os.path.isdir(src):
        print("reference_suite: skipped: set HTSIM_SRC to uet-htsim's htsim/sim/datacenter folder "
              "(its validate*.txt files and matrices), and HTSIM to its htsim_uec to run side by side")
        return 0
    if a.j < 1:
        die("-j must be at least 1")
    if not os.access(a.spraysim, os.X_OK):
        die(f"{a.spraysim}: not an executable (run make)")
    if htsim and not os.access(htsim, os.X_OK):
        die(f"HTSIM={htsim}: not an executable")
    if a.record and not htsim:
        die("--record needs HTSIM (the reference's makespans come from running it)")
    only = None
    if a.only is not None:
        if a.record:
            die("--only: --record writes the whole suite's makespans; run it without --only")
        try:
            only = re.compile(a.only)
        except re.error as e:
            die(f"--only: not a regular expression: {e}")
    spraysim = os.path.abspath(a.spraysim)
    exps = []
    for plan in sorted(glob.glob(os.path.join(src, a.files))):
        exps += read_plan(plan)
    if only:
        exps = [e for e in exps if only.search(f"{e['file']}#{e['index']}")]
    if not exps:
        die(f"no htsim_uec experiments in {src}/{a.files}" + (f" match --only {a.only}" if only else ""))
    recorded = {} if htsim else load_recorded()

    def one(exp):
        try:
            ours = spraysim_makespan(spraysim, src, exp)
        except (OSError, ValueError, KeyError) as e:
            ours = (None, 0, 0, f"spraysim: {e}")
        if htsim:
            try:
                ref = ref_makespan(htsim, src, exp)
            except OSError as e:
                ref = (None, 0, f"reference: {e}")
        else:
            r = recorded.get((exp["file"], exp["index"]))
            ref = (r[0], r[1], "") if r else (None, 0, "not recorded")
        return exp, ours, ref

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as pool:
        results = list(pool.map(one, exps))

    rows, ratios, apart = [], [], []
    for exp, (ms, total, unfinished, err), (rms, rdone, rerr) in results:
        tag = f"{exp['file']}#{exp['index']}"
        if err or rerr or ms is None or not rms:
            apart.append((tag, exp["name"], err or rerr or "no makespan"))
            continue
        if unfinished or rdone != total:
            apart.append((tag, exp["name"], f"unfinished: spraysim {unfinished} of {total}, "
                          f"reference finished {rdone}"))
            continue
        ratio = ms / rms
        ratios.append(ratio)
        rows.append((tag, exp["name"], ms, rms, ratio))
    out = [f"{'experiment':44} {'spraysim us':>12} {'reference us':>12} {'ratio':>7}"]
    for tag, name, ms, rms, ratio in rows:
        mark = "" if abs(ratio - 1) <= 0.05 else ("  >5%" if abs(ratio - 1) <= 0.10 else "  >10%")
        out.append(f"{tag:44} {ms:12.2f} {rms:12.2f} {ratio:7.3f}{mark}")
    for tag, name, why in apart:
        out.append(f"{tag:44} not compared: {why}")
    n = len(exps)
    w5 = sum(abs(r - 1) <= 0.05 for r in ratios)
    w10 = sum(abs(r - 1) <= 0.10 for r in ratios)
    med = statistics.median(ratios) if ratios else float("nan")
    basis = "side by side with " + htsim if htsim else "against " + os.path.relpath(RECORDED)
    goal = (w10 == n and w5 >= 0.98 * n)
    out.append(f"reference suite ({basis}): {n} experiments, {len(ratios)} compared, "
               f"{len(apart)} not compared; median makespan ratio {med:.3f}; "
               f"{w5} within 5%, {w10} within 10%; goal (all within 10%, >=98% within 5%): "
               f"{'met' if goal else 'not met'}")
    print("\n".join(out))
    if a.markdown:
        with open(a.markdown + ".tmp", "w") as fh:
            fh.write("| experiment | name | spraysim makespan (us) | reference (us) | ratio |\n|---|---|---|---|---|\n")
            for tag, name, ms, rms, ratio in rows:
                fh.write(f"| {tag} | {name} | {ms:.2f} | {rms:.2f} | {ratio:.3f} |\n")
            for tag, name, why in apart:
                fh.write(f"| {tag} | {name} | not compared: {why} | | |\n")
            fh.write("\n" + out[-1] + "\n")
        os.replace(a.markdown + ".tmp", a.markdown)
    if a.record:
        with open(RECORDED + ".tmp", "w") as fh:
            fh.write("# The reference's makespans on its validate*.txt htsim_uec experiments (bench/reference_suite.py --record)\n")
            fh.write("# file\tindex\tname\tmakespan_us\tflows_finished\n")
            for exp, _, (rms, rdone, rerr) in results:
                fh.write(f"{exp['file']}\t{exp['index']}\t{exp['name']}\t{'' if rms is None else rms}\t{rdone}\n")
        os.replace(RECORDED + ".tmp", RECORDED)
    return 0


if __name__ == "__main__":
    sys.exit(main())
