"""recompute_summary.py: recomputes a run's summary figures from its
flows.csv columns alone and compares them with summary.json, to hold the
docs/outputs.md's promise that every figure can be recomputed (docs/outputs.md "Unfinished
messages"). Usage: recompute_summary.py RUNDIR [LABEL]

Prints one "ok" or "FAIL" line (tests/cli_test.sh counts them) and exits 0
or 1. The run must use --quantiles exact (a sketch is within 0.1% only).

The rules recomputed:
  FCT figures      over every started message (start_us set): fct_us when
                   finished, else (run's end - start_us), the run's end being
                   summary.json's run.simulated_us; nearest-rank median and
                   p99, max, mean from the exact sum in picoseconds.
  Poisson figures  over the rows whose poisson_group is A-D (measured
                   background messages): slowdown_rcv when delivered, else
                   (run's end - start_us) / ideal_rcv_us; the same per group.
Times are read as exact picoseconds (six decimals), so the figures must
match summary.json to the last printed digit.
"""
import csv
import json
import math
import os
import sys


def ps(text):
    """'12.345678' microseconds -> 12345678 picoseconds, exactly."""
    whole, _, frac = text.partition(".")
    return int(whole) * 1000000 + int((frac + "000000")[:6])


def nearest_rank(sorted_values, p):
    if not sorted_values:
        return None
    rank = math.ceil(p / 100.0 * len(sorted_values))
    return sorted_values[max(rank, 1) - 1]


def f6(x):
    return None if x is None else "%.6f" % x


def main():
    rundir = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else rundir
    with open(os.path.join(rundir, "summary.json")) as f:
        summ = json.load(f)
    with open(os.path.join(rundir, "flows.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    end_ps = ps("%.6f" % summ["run"]["simulated_us"])
    bad = []

    def check(what, got, want):
        if got != want:
            bad.append(f"{what}: flows.csv gives {got}, summary.json {want}")

    # closed-loop FCT figures
    fl = summ["flows"]
    started = [r for r in rows if r["start_us"]]
    fct = sorted(ps(r["fct_us"]) if r["fct_us"] else end_ps - ps(r["start_us"]) for r in started)
    check("total", len(rows), fl["total"])
    check("finished", sum(1 for r in rows if r["fct_us"]), fl["finished"])
    check("not_started", len(rows) - len(started), fl["not_started"])
    check("fct_n", len(fct), fl["fct_n"])
    check("fct_unfinished", sum(1 for r in started if not r["fct_us"]), fl["fct_unfinished"])
    check("fct_lower_bound", any(not r["fct_us"] for r in started), fl["fct_lower_bound"])
    n = len(fct)
    if n:
        total = sum(fct)
        # as report.c: the mean from the exact sum, whole part first
        mean = (total // n) / 1e6 + (total % n) / n / 1e6
        figs = {"fct_median_us": nearest_rank(fct, 50) / 1e6, "fct_p99_us": nearest_rank(fct, 99) / 1e6,
                "fct_max_us": fct[-1] / 1e6, "fct_mean_us": mean}
    else:
        figs = dict.fromkeys(("fct_median_us", "fct_p99_us", "fct_max_us", "fct_mean_us"))
    for k, v in figs.items():
        check(k, f6(v), f6(fl[k]))

    # open-loop slowdowns by size group
    po = summ.get("poisson")
    if po:
        groups = {"all": []}
        for g in "ABCD":
            groups[g] = []
        for r in rows:
            g = r["poisson_group"]
            if g not in ("A", "B", "C", "D"):
                continue
            if r["slowdown_rcv"]:
                v = (float(r["slowdown_rcv"]), True)
            else:
                # int / int: correctly rounded, as report.c's double division of exact ps
                v = ((end_ps - ps(r["start_us"])) / ps(r["ideal_rcv_us"]), False)
            groups[g].append(v)
            groups["all"].append(v)
        for g, vals in groups.items():
            want = po["slowdown"][g]
            sd = sorted(v for v, _ in vals)
            check(f"{g} messages", len(vals), want["messages"])
            check(f"{g} delivered", sum(1 for _, d in vals if d), want["delivered"])
            check(f"{g} unfinished", sum(1 for _, d in vals if not d), want["unfinished"])
            check(f"{g} lower_bound", any(not d for _, d in vals), want["lower_bound"])
            check(f"{g} median", f6(nearest_rank(sd, 50)), f6(want["slowdown_median"]))
            check(f"{g} p99", f6(nearest_rank(sd, 99)), f6(want["slowdown_p99"]))
    if bad:
        print(f"FAIL {label}: summary not recomputable from flows.csv: " + "; ".join(bad[:6]))
        return 1
    print(f"ok {label}: every summary figure recomputed from flows.csv ({n} messages, "
          f"{fl['fct_unfinished']} unfinished" + (f", {po['slowdown']['all']['unfinished']} measured unfinished"
                                                  if po else "") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
