#!/usr/bin/env python3
"""fct_compare.py A/flows.csv B/flows.csv [A2 B2 ...]: per-flow FCT relative
difference of B against A (max and median over the flows finished in both)
and of the tail (largest FCT); with several pairs, one line per pair and a
last line pooling every flow of every pair. Used by bench/cc_fixed_suite.sh
to compare a CC module with its fixed-point variant."""
import csv, statistics, sys


def load(p):
    with open(p) as f:
        return {r["flow_id"]: float(r["fct_us"]) for r in csv.DictReader(f) if r["fct_us"]}


def line(d, ta, tb, n, na, nb):
    if not d:
        return f"flows 0/{na}/{nb}: nothing to compare"
    return (f"flows {n}/{na}/{nb}  per-flow |dFCT|/FCT max {100*max(d):.3f}% median {100*statistics.median(d):.3f}%"
            f"  tail {ta:.2f} vs {tb:.2f} us ({100*(tb-ta)/ta:+.3f}%)")


args = sys.argv[1:]
pooled, tails = [], []
for i in range(0, len(args) - 1, 2):
    try:
        a, b = load(args[i]), load(args[i + 1])
    except OSError as e:
        print(f"missing: {e.filename}")
        continue
    common = [k for k in a if k in b]
    d = [abs(b[k] - a[k]) / a[k] for k in common]
    ta, tb = (max(a.values()) if a else 0), (max(b.values()) if b else 0)
    pooled += d
    if ta and tb:
        tails.append(abs(tb - ta) / ta)
    if len(args) == 2:
        print(line(d, ta, tb, len(common), len(a), len(b)))
if len(args) > 2 and pooled:
    print(f"pooled: {len(pooled)} flows, per-flow |dFCT|/FCT max {100*max(pooled):.3f}% median "
          f"{100*statistics.median(pooled):.3f}%; |dtail|/tail over {len(tails)} scenarios max {100*max(tails):.3f}% "
          f"median {100*statistics.median(tails):.3f}%")
