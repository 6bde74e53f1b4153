"""Read a spraysim stdout of an open-loop (--workload poisson) run with
--switch-stats into a dict: the numbers experiments/seed001's write-ups use.
Shared by the report scripts of experiments/seed001 (/usr/bin/python3)."""
import re

GROUPS = ["A", "B", "C", "D"]


def parse(path):
    r = {"path": path}
    with open(path) as f:
        text = f.read()
    m = re.search(r"^# (bin/spraysim .*)$", text, re.M)
    r["cmd"] = m.group(1).strip() if m else ""
    m = re.search(r"^poisson: load ([\d.]+) requested, ([\d.]+) achieved; mean size [\d.]+ B \(CDF, \w+\), ([\d.]+) B generated; "
                  r"(\d+) messages, (\d+) in \[[\d.]+, [\d.]+\) us measured \(\S+ per host per s\), (\d+) delivered", text, re.M)
    if not m:
        r["ok"] = False
        return r
    r["ok"] = True
    r["load_req"], r["load_ach"], r["mean_gen"] = float(m.group(1)), float(m.group(2)), float(m.group(3))
    r["messages"], r["measured"], r["delivered"] = int(m.group(4)), int(m.group(5)), int(m.group(6))
    # '>=' marks a figure that counts unfinished messages at the run's end
    # (a lower bound); older outputs have neither it nor the counts
    m = re.search(r"^slowdown \(median/p99\): all (?:>=)?([\d.]+)/([\d.]+)(.*)goodput per host ([\d.]+) Gb/s \(min ([\d.]+), max ([\d.]+)\)",
                  text, re.M)
    r["med_all"], r["p99_all"] = float(m.group(1)), float(m.group(2))
    r["goodput"] = float(m.group(4))
    for g in GROUPS:
        # "(delivered)" in older outputs, "(messages, U unfinished)" now: n_ stays the delivered count
        mg = re.search(r"\b%s (?:>=)?([\d.]+)/([\d.]+) \((\d+)(?:, (\d+) unfinished)?\)" % g, m.group(3))
        if mg:
            r["med_" + g], r["p99_" + g] = float(mg.group(1)), float(mg.group(2))
            r["n_" + g] = int(mg.group(3)) - int(mg.group(4) or 0)
            r["unfinished_" + g] = int(mg.group(4) or 0)
        else:
            r["med_" + g] = r["p99_" + g] = None
            r["n_" + g] = r["unfinished_" + g] = 0
    m = re.search(r"^switch buffers in the window \(all ports and classes, B\): tier 0 peak (\d+), mean (\d+); tier 1 peak (\d+), mean (\d+)",
                  text, re.M)
    r["tor_max"], r["tor_mean"] = int(m.group(1)), int(m.group(2))
    r["spine_max"], r["spine_mean"] = int(m.group(3)), int(m.group(4))
    m = re.search(r"^flows: (\d+) of (\d+) finished", text, re.M)
    r["unfinished"] = int(m.group(2)) - int(m.group(1))
    m = re.search(r"^run: simulated ([\d.]+) us in ([\d.]+) s wall, (\d+) events, ([\d.]+) M events/s, peak memory ([\d.]+) MB",
                  text, re.M)
    r["sim_us"], r["wall_s"], r["events"], r["meps"], r["mem_mb"] = (float(m.group(1)), float(m.group(2)), int(m.group(3)),
                                                                     float(m.group(4)), float(m.group(5)))
    m = re.search(r"^packets: (\d+) data sent.* (\d+) ECN marks", text, re.M)
    r["data_sent"], r["ecn_marks"] = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    return r
