#!/usr/bin/python3
"""gen_schedule.py: writes GOAL text schedules (docs/goal.md) of collectives
for spraysim's --goal, where LogGOPSim's Schedgen is not at hand, and the
training-step schedule that measures scale (issue 25 item 5).

  gen_schedule.py ring N BYTES            ring allreduce of BYTES on N ranks (2(N-1) steps of BYTES/N)
  gen_schedule.py recdoub N BYTES         recursive halving then doubling (N a power of two)
  gen_schedule.py alltoall N BYTES        every rank sends BYTES to every other, all at once
  gen_schedule.py steps N BYTES ITERS NS  ITERS training steps: calc NS ns, then a recursive-doubling
                                          allreduce of BYTES tagged with the step (N a power of two)

Writes the schedule on stdout. Each rank's block lists its operations with
labels and "requires" lines; the same arguments give the same bytes. The
layouts follow the collectives' textbook definitions, not Schedgen's code.
"""
import sys


def die(msg):
    sys.stderr.write("gen_schedule.py: %s\n" % msg)
    sys.exit(2)


def pos_int(text, what):
    try:
        v = int(text)
    except ValueError:
        die("%s: '%s' is not a whole number" % (what, text))
    if v < 1:
        die("%s: %d must be at least 1" % (what, v))
    return v


def power_of_two(n):
    if n < 2 or n & (n - 1):
        die("N: %d must be a power of two, at least 2" % n)
    return n.bit_length() - 1


class Rank:
    """One rank's block: ops get labels o1, o2, ... in order."""

    def __init__(self):
        self.lines = []
        self.n = 0

    def op(self, text, after=None):
        self.n += 1
        label = "o%d" % self.n
        self.lines.append("%s: %s" % (label, text))
        for a in after or []:
            if a:
                self.lines.append("%s requires %s" % (label, a))
        return label


def ring(n, size):
    chunk = max(1, size // n)
    out = []
    for r in range(n):
        rk = Rank()
        prev = None
        for _ in range(2 * (n - 1)):  # reduce-scatter then allgather: each step sends one chunk on
            rk.op("send %db to %d tag 0" % (chunk, (r + 1) % n), [prev])
            prev = rk.op("recv %db from %d tag 0" % (chunk, (r - 1) % n), [prev])
        out.append(rk)
    return out


def recdoub_into(ranks, n, size, tag, first_dep):
    """Recursive halving (distances n/2 .. 1, sizes size/2 .. size/n) then
    doubling back; returns each rank's last label."""
    m = power_of_two(n)
    last = []
    for r in range(n):
        rk = ranks[r]
        prev = first_dep[r]
        steps = [(n >> (k + 1), size >> (k + 1)) for k in range(m)]
        for dist, b in steps + steps[::-1]:
            peer = r ^ dist
            rk.op("send %db to %d tag %d" % (max(1, b), peer, tag), [prev])
            prev = rk.op("recv %db from %d tag %d" % (max(1, b), peer, tag), [prev])
        last.append(prev)
    return last


def alltoall(n, size):
    out = []
    for r in range(n):
        rk = Rank()
        for k in range(1, n):
            rk.op("send %db to %d tag 0" % (size, (r + k) % n))
            rk.op("recv %db from %d tag 0" % (size, (r - k) % n))
        out.append(rk)
    return out


def steps(n, size, iters, calc_ns):
    ranks = [Rank() for _ in range(n)]
    last = [None] * n
    for it in range(iters):
        first = [ranks[r].op("calc %d" % calc_ns, [last[r]]) for r in range(n)]
        last = recdoub_into(ranks, n, size, it, first)
    return ranks


def main(argv):
    if len(argv) < 4:
        die("usage: gen_schedule.py ring|recdoub|alltoall N BYTES | steps N BYTES ITERS NS")
    kind, n, size = argv[1], pos_int(argv[2], "N"), pos_int(argv[3], "BYTES")
    if kind == "ring":
        ranks = ring(n, size)
    elif kind == "recdoub":
        ranks = [Rank() for _ in range(n)]
        recdoub_into(ranks, n, size, 0, [None] * n)
    elif kind == "alltoall":
        ranks = alltoall(n, size)
    elif kind == "steps":
        if len(argv) != 6:
            die("steps needs N BYTES ITERS NS")
        ranks = steps(n, size, pos_int(argv[4], "ITERS"), pos_int(argv[5], "NS"))
    else:
        die("unknown kind '%s' (ring, recdoub, alltoall, steps)" % kind)
    w = sys.stdout.write
    w("num_ranks %d\n" % n)
    for r, rk in enumerate(ranks):
        w("\nrank %d {\n" % r)
        w("\n".join(rk.lines))
        w("\n}\n")


if __name__ == "__main__":
    main(sys.argv)
