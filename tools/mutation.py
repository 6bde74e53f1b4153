#!/usr/bin/python3
"""tools/mutation.py: mutation testing of spraysim's C sources (`make mutation`).

Why: a test suite that passes is only worth something if it fails when the
code is wrong. This script makes one small wrong change (a mutant) at a time
-- a comparison operator flipped (< <=, > >=, == !=), an arithmetic operator
swapped (+ -, * /) or an integer constant moved by one -- at sites sampled
with a fixed seed across every src/ module, rebuilds, runs the test programs
that cover that module and counts the mutant as killed (a test failed or ran
past its time limit), survived (every test passed), or did not build.

The mutants are made in a copy of the working tree (a temporary directory,
removed at the end): src/ is never touched, even when the script is killed.
The objects (build-mut: -O1, -fPIC, no LTO) make one shared library that
the test programs and build-mut/spraysim load, so a mutant recompiles one
object and relinks one library: seconds.

The invariant checks (invariant() in src/core/core.h) are compiled in only
with SPRAYSIM_CHECKS, and that is how they are tested (make debug, make
asan; test_invariants skips without them). So a second tree, build-mut-chk,
is built as `make asan` builds: -DSPRAYSIM_CHECKS with AddressSanitizer and
UndefinedBehaviorSanitizer. A mutant that the plain build's tests do not
kill -- an invariant's argument, code that feeds only a check, a wrong state
that only a check notices, a read one past an array or a shift by the
word's width -- runs the same tests there too; "killed by T (checks)" says a
check, a sanitizer or a checks-build test saw it. A mutant
whose object is byte-identical to the unmutated one in both builds is
equivalent without review (the compiler proved it); identical in the
plain build alone, it skips the plain tests (they cannot fail).

Mutants that cannot change behaviour (equivalent mutants) are listed once,
with the reason, in tools/mutation_equivalent.tsv and no longer count.
A site is named by its file, the text of its line (stripped), the operator
and its occurrence among that line's sites of the same operator, so the list
survives edits elsewhere in the file. Where the same text occurs twice in a
file and only one of the two mutants is equivalent, a row's optional
seventh field names the function the line is in (the name before the
first "(" of the definition whose body holds the line), and only that
function's line matches. --site takes either FILE:LINE:COL (as
a report prints it; 1-based column) or FILE:TEXT:OP:OCC (the stripped line
text, the operator or constant, its occurrence on the line: stable across
edits elsewhere), and any site of the tree, sampled or not.

  tools/mutation.py [--sites N] [--seed S] [--module M ...] [--site SITE ...]
                    [--rerun-survivors LOG ...] [--summarize LOG ...]
                    [--min-score PCT] [--list] [--keep DIR]

Prints one line per mutant, then killed / survived / equivalent / did not
build per module with the survivors listed, and the seconds per mutant.
Exit status 0 when every module kills at least --min-score percent of its
non-equivalent mutants that built, 1 when one does not, 2 on bad input.
"""
import argparse
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EQUIV_FILE = os.path.join("tools", "mutation_equivalent.tsv")
BUILD = "build-mut"
CHK_BUILD = "build-mut-chk"
BUILDS = (BUILD, CHK_BUILD)


# What `make asan` adds: a mutant that reads past an array or shifts by
# the word's width is caught there, as it would be by the suite under
# make asan, though the plain build's tests pass.
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]

# The checks build's compiler: clang where it is installed (MUT_CHECK_CC
# overrides), as `make asan-clang` builds. gcc's AddressSanitizer (12.2)
# leaves tables of pointers without redzones -- the option table, the
# registries -- so a loop that reads one entry past such a table went
# unseen; clang's catches it (a global-buffer-overflow). The plain build
# stays on cc, the compiler `make` uses.
CHECK_CC = os.environ.get("MUT_CHECK_CC") or ("clang" if shutil.which("clang") else "cc")


def compiler(build):
    return CHECK_CC if build == CHK_BUILD else "cc"


def make_vars(build):
    """-O1: a mutant's object compiles in about a second, and the tests still
    run at near the speed of the shipped -O2 build. CHK_BUILD has the checks
    and the sanitizers of `make asan`."""
    if build == CHK_BUILD:
        return ["CC=" + compiler(build), "BUILD=" + build, "BIN=" + build + "/spraysim", "LTO=", "STATIC=",
                "OPT=-O1 -g " + " ".join(SANITIZE), "CFLAGS=-fPIC", "CHECKS=-DSPRAYSIM_CHECKS"]
    return ["BUILD=" + build, "BIN=" + build + "/spraysim", "LTO=", "STATIC=", "OPT=-O1",
            "CFLAGS=-fPIC", "CHECKS="]


def link_flags(build):
    return SANITIZE if build == CHK_BUILD else []

# Test programs per module (directory under src/; "sim" is src/sim.c). The
# unit tests come first; golden.sh (whole runs, 34 scenarios, ~4 s),
# option_bounds.sh (--cc-opt ranges at both ends, ~5 s) and cli_test.sh (the
# binary's flags and outputs, ~20 s) and goal_test.sh (--goal schedules
# from the command line, ~1 s) and, for src/cli, docs_test.sh (the
# generated docs/flags.md and man page against --help-format, ~2 s) cover
# what no unit test reaches. Within a module the programs run fastest first and stop at the
# first failure, so a killed mutant costs less than a survivor.
GOLDEN = "tests/golden.sh"
CLI = "tests/cli_test.sh"
BOUNDS = "tests/option_bounds.sh"
OUTDIR = "tests/outdir_test.sh"
CONTRACT = "tests/contract_test.sh"
GOALT = "tests/goal_test.sh"
DOCST = "tests/docs_test.sh"  # the generated flag reference against the binary (~2 s)
SUMMARY = "tests/summary_test.sh"  # summary.json against the flags and stdout, three runs (~1 s)
MODULE_TESTS = {
    "cc": ["test_cc_edges", "test_cc_fixed", "test_cc_baselines", "test_nscc", "test_swift", "test_timely",
           "test_hpcc", "test_roce", "test_scenario", GOLDEN, BOUNDS],
    "cli": ["test_mw_edges", "test_options", "test_timeseries", DOCST, SUMMARY, GOLDEN, BOUNDS, CLI],
    "core": ["test_core_edges", "test_strbuf", "test_core", "test_invariants", "test_cm", "test_messages", "test_net", GOLDEN, CLI],
    "lb": ["test_lb_edges", "test_lb", "test_lb_adaptive", "test_lb_reps_alg4", "test_invariants", "test_scenario",
           "test_receiver_credit", "test_transport", GOLDEN, CLI],
    "metrics": ["test_metrics_edges2", "test_mw_edges", "test_report", "test_timeseries", "test_vcollect", "test_failures", "test_sird", "test_homa",
                "test_poisson", SUMMARY, GOALT, BOUNDS, GOLDEN, CLI, OUTDIR],
    "net": ["test_net_edges2", "test_net_edges", "test_net", "test_contract", "test_invariants", "test_pull_pacer", "test_roce", "test_failures",
            "test_topo", "test_scenario", "test_transport", "test_planes", GOLDEN, CONTRACT, CLI],
    "sim": ["test_metrics_edges2", "test_net_edges", "test_transport", "test_contract", "test_invariants", "test_scenario", "test_messages", "test_net",
            "test_failures", GOLDEN, BOUNDS, CLI, CONTRACT, GOALT],
    "topo": ["test_topo_edges", "test_topo", "test_failures", "test_scenario", "test_planes", GOLDEN, CLI],
    "transport": ["test_tp_edges", "test_transport", "test_contract", "test_messages", "test_invariants", "test_pull_pacer",
                  "test_receiver_credit", "test_homa", "test_sird", "test_hpcc", "test_roce",
                  "test_timely", "test_scenario", "test_poisson", "test_failures", "test_ndp", GOLDEN, BOUNDS, CLI, CONTRACT],
    "workload": ["test_mw_edges", "test_goal_read", "test_cm", "test_gen", "test_poisson", "test_messages", "test_goal", GOLDEN, GOALT,
                 CLI],
}


def unmapped_tests():
    """Test programs (tests/test_*.c) that no module runs: a new test file
    must be added to MODULE_TESTS, or its mutants count as survivors."""
    mapped = {t for ts in MODULE_TESTS.values() for t in ts}
    return sorted(os.path.basename(f)[:-2] for f in glob.glob(os.path.join(ROOT, "tests", "test_*.c"))
                  if os.path.basename(f)[:-2] not in mapped)
# src/mpi/ is left out: it builds only with mpicc (make mpi) and its test,
# tests/mpi_test.sh, needs an MPI launcher.
SKIP_DIRS = {"mpi"}

TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed",
              "unsigned", "const", "volatile", "restrict", "static", "struct", "union",
              "enum", "bool", "_Bool", "size_t", "FILE"}
KEYWORDS = TYPE_WORDS | {"return", "case", "sizeof", "if", "while", "for", "do", "else",
                         "switch", "goto", "break", "continue", "default", "typedef",
                         "extern", "inline", "register", "_Alignof", "_Static_assert"}
SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
        "+": "-", "-": "+", "*": "/", "/": "*"}
TOKEN = re.compile(r"""
    (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+\.\d*(?:[eE][-+]?\d+)?[fFlL]?|\.\d+(?:[eE][-+]?\d+)?[fFlL]?
           |\d+[eE][-+]?\d+[fFlL]?|\d+[uUlL]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[<>+\-*/])
  | (?P<other>\S)
""", re.X)


class BadInput(Exception):
    pass


def mask_source(text):
    """The source with comments, string and character literals and
    preprocessor lines blanked (newlines kept), so the scanner sees only code."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":
            # a preprocessor line, with its backslash continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                out[i] = " "
                i += 1
            continue
        line_start = False
        if c == "\n":
            line_start = True
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def scan_file(rel):
    """Every mutation site of one file: dicts with file, line (1-based), col
    (0-based), op, repl, occ (occurrence among the line's sites with that
    op) and text (the stripped line)."""
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        text = f.read()
    masked = mask_source(text).split("\n")
    lines = text.split("\n")
    funcs = enclosing_functions(masked)
    sites = []
    for ln, code in enumerate(masked):
        toks = [(m.lastgroup, m.group(), m.start()) for m in TOKEN.finditer(code)]
        seen = {}
        for i, (kind, tok, col) in enumerate(toks):
            prev = toks[i - 1] if i > 0 else (None, None, None)
            prev2 = toks[i - 2] if i > 1 else (None, None, None)
            nxt = toks[i + 1] if i + 1 < len(toks) else (None, None, None)
            repl = None
            if kind == "op" and tok in ("<", "<=", ">", ">=", "==", "!="):
                repl = SWAP[tok]
            elif kind == "op" and tok in "+-*/":
                # binary only: after an operand, not a keyword (return -1)
                operand = (prev[0] == "num" or prev[1] in (")", "]")
                           or (prev[0] == "id" and prev[1] not in KEYWORDS))
                if not operand:
                    continue
                if tok == "*":
                    # not a pointer declarator or a cast: int *p, foo_t *, (struct s *)
                    if prev[0] == "id" and (prev[1].endswith("_t") or prev2[1] in (
                            "struct", "union", "enum", "const") or prev[1] in TYPE_WORDS):
                        continue
                    if nxt[1] in (")", ",", "*", "const", ";") or nxt[1] is None:
                        continue
                    if prev2[1] in (None, "(", ";", "{", "}", ",") and nxt[0] == "id" and (
                            i + 2 < len(toks) and toks[i + 2][1] in ("=", ";", ",", ")", "[")):
                        # "type *name = ..." at a statement or parameter start
                        continue
                repl = SWAP[tok]
            elif kind == "num" and re.fullmatch(r"\d+[uUlL]*", tok):
                # a boundary constant, moved by one; array sizes and case labels too
                digits = re.match(r"\d+", tok).group()
                if prev[1] == "[" and nxt[1] == "]":
                    continue
                repl = str(int(digits) + 1) + tok[len(digits):]
            if repl is None:
                continue
            key = tok
            seen[key] = seen.get(key, 0) + 1
            sites.append({"file": rel, "line": ln + 1, "col": col, "op": tok, "repl": repl,
                          "occ": seen[key], "text": lines[ln].strip(), "func": funcs[ln]})
    return sites


FUNC_HEAD = re.compile(r"(\w+)\s*\(")
# __attribute__((noinline)) before a definition's name is not its name
ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)")


def enclosing_functions(masked):
    """The function each line of a file (comments and strings masked) is in,
    or None outside any: the house style opens a definition's body with a
    "{" in column 0 and closes it with a "}" there, and the definition's
    name is the identifier before the first "(" of the nearest earlier line
    that starts in column 0 with a letter or underscore (an
    __attribute__((...)) before it skipped)."""
    out = []
    head = None
    current = None
    for code in masked:
        if code[:1].isalpha() or code[:1] == "_":
            m = FUNC_HEAD.search(ATTRIBUTE.sub("", code))
            head = m.group(1) if m else head
        if code.startswith("{"):
            current = head
        out.append(current)
        if code.startswith("}"):
            current = None
    return out


def module_of(rel):
    parts = rel.split("/")
    return "sim" if len(parts) == 2 else parts[1]


def all_sites(modules):
    out = []
    for d, _, files in sorted(os.walk(os.path.join(ROOT, "src"))):
        for fn in sorted(files):
            if not fn.endswith(".c"):
                continue
            rel = os.path.relpath(os.path.join(d, fn), ROOT)
            mod = module_of(rel)
            if mod in SKIP_DIRS or (modules and mod not in modules):
                continue
            out.extend(scan_file(rel))
    return out


def site_key(s):
    return (s["file"], s["op"], s["repl"], s["occ"], s["text"])


def is_equivalent(s, equiv):
    """A row without a function matches the text anywhere in its file; one
    with a function only inside that function."""
    return site_key(s) + (None,) in equiv or site_key(s) + (s.get("func"),) in equiv


def load_equivalents():
    """tools/mutation_equivalent.tsv: file, op, replacement, occurrence, line
    text, reason and optionally the enclosing function; tab-separated, #
    comments. Returns {key + (function or None,): reason}."""
    path = os.path.join(ROOT, EQUIV_FILE)
    eq = {}
    if not os.path.exists(path):
        return eq
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) not in (6, 7) or not cols[3].isdigit() or not cols[5].strip() or (
                    len(cols) == 7 and not re.fullmatch(r"\w+", cols[6])):
                raise BadInput("%s:%d: want 6 or 7 tab-separated fields: file, operator, replacement, "
                               "occurrence (a number), line text, reason[, function]" % (EQUIV_FILE, n))
            key = (cols[0], cols[1], cols[2], int(cols[3]), cols[4], cols[6] if len(cols) == 7 else None)
            if key in eq:
                raise BadInput("%s:%d: listed twice" % (EQUIV_FILE, n))
            eq[key] = cols[5]
    return eq


def sample_sites(sites, n, seed, min_per_module):
    """n sites drawn with the seed, then each module topped up to
    min_per_module (a module with few operators still gets a score)."""
    rng = random.Random(seed)
    chosen = set(rng.sample(range(len(sites)), min(n, len(sites))))
    by_mod = {}
    for i, s in enumerate(sites):
        by_mod.setdefault(module_of(s["file"]), []).append(i)
    for mod, idx in sorted(by_mod.items()):
        have = [i for i in idx if i in chosen]
        rest = [i for i in idx if i not in chosen]
        need = min(min_per_module - len(have), len(rest))
        if need > 0:
            chosen.update(rng.sample(rest, need))
    return [sites[i] for i in sorted(chosen)]


def copy_tree(dst):
    """The working tree as git sees it (tracked and untracked, not ignored)."""
    try:
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                               check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        files = None
    if files is None:
        shutil.copytree(ROOT, dst, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("build*", "bin", "results", ".git"))
        return
    for rel in files:
        if not rel or not os.path.isfile(os.path.join(ROOT, rel)):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(dst, rel))


def make(work, build, targets, quiet=True):
    r = subprocess.run(["make", "-j1", "--no-print-directory"] + make_vars(build) + targets, cwd=work,
                       stdout=subprocess.DEVNULL if quiet else None,
                       stderr=subprocess.DEVNULL if quiet else None)
    return r.returncode == 0


def objects(work, build):
    """The objects make builds from src/ (src/mpi/ aside): (library, main)."""
    lib = []
    for d, _, files in sorted(os.walk(os.path.join(work, "src"))):
        for fn in sorted(files):
            rel = os.path.relpath(os.path.join(d, fn), work)
            if fn.endswith(".c") and module_of(rel) not in SKIP_DIRS and rel != "src/cli/main.c":
                lib.append(build + "/" + rel[4:-2] + ".o")
    return lib, build + "/cli/main.o"


def cc(work, build, args):
    r = subprocess.run([compiler(build)] + args, cwd=work, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return r.returncode == 0


def link_lib(work, build, lib_objs):
    # The library is shared, so a mutant relinks one .so and no test program.
    return cc(work, build, ["-shared", "-o", build + "/libspraysim.so"] + lib_objs + ["-lm"] + link_flags(build))


def link_bin(work, build):
    return cc(work, build, ["-o", build + "/spraysim", build + "/cli/main.o", "-L" + build,
                     "-lspraysim", "-lm", "-Wl,-rpath,$ORIGIN"] + link_flags(build))


def link_test(work, build, t):
    # test programs see the checks too (test_invariants runs only with them)
    os.makedirs(os.path.join(work, build, "tests"), exist_ok=True)
    chk = ["-DSPRAYSIM_CHECKS"] + SANITIZE if build == CHK_BUILD else []
    return cc(work, build, ["-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O1", "-g"] + chk + ["-Isrc", "-o",
                     build + "/tests/" + t, "tests/" + t + ".c", "-L" + build, "-lspraysim",
                     "-lcmocka", "-lm", "-Wl,-rpath,$ORIGIN/.."])


def run_test(work, build, t, env, limit_s, show=False):
    """True when the test passed within limit_s seconds. The test runs in a
    session of its own, and a test past its time is killed with everything
    it started (a script's simulator runs too, or a mutant that loops would
    outlive it). show: print the end of a failing test's output."""
    cmd = ["sh", t] if t.startswith("tests/") else [build + "/tests/" + t]
    p = subprocess.Popen(cmd, cwd=work, env=env[build], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        if show:
            print("%s: past its %.0f s" % (t, limit_s), file=sys.stderr)
        return False
    finally:
        # whatever the test left running in its session goes too
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    ok = p.returncode == 0 and not (t.startswith("tests/") and re.search(rb"^FAIL", out, re.M))
    if not ok and show:
        lines = out.decode(errors="replace").splitlines()
        fails = [ln for ln in lines if ln.startswith("FAIL") or "FAILED" in ln or "ERROR" in ln]
        print("\n".join((fails or lines)[-10:]), file=sys.stderr)
    return ok


def site_name(s):
    return "%s:%d:%d" % (s["file"], s["line"], s["col"] + 1)


def find_sites(wanted, sites, every):
    """The sites that --site names: FILE:LINE:COL among the sample (as the
    report prints them) or the tree, or FILE:TEXT:OP:OCC anywhere in the
    tree. Raises BadInput naming the argument."""
    by_where = {site_name(s): s for s in every}
    by_key = {(s["file"], s["text"], s["op"], s["occ"]): s for s in every}
    out = []
    for w in wanted:
        m = re.fullmatch(r"([^:]+):(\d+):(\d+)", w)
        if m:
            if w not in by_where:
                raise BadInput("--site %s: no mutation site at that line and column (see --list)" % w)
            out.append(by_where[w])
            continue
        parts = w.split(":", 1)
        rest = parts[1].rsplit(":", 2) if len(parts) == 2 else []
        if len(rest) != 3 or not rest[2].isdigit():
            raise BadInput("--site %s: want FILE:LINE:COL or FILE:TEXT:OP:OCC (the line's stripped "
                           "text, the operator, its occurrence on the line)" % w)
        key = (parts[0], rest[0].strip(), rest[1], int(rest[2]))
        if key not in by_key:
            raise BadInput("--site %s: no site with that file, line text, operator and occurrence" % w)
        out.append(by_key[key])
    return out


def main(argv):
    missing = unmapped_tests()
    if missing:
        print("mutation: no module runs %s: add it to MODULE_TESTS in tools/mutation.py" % ", ".join(missing),
              file=sys.stderr)
        return 2
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sites", type=int, default=200, help="sites to sample (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (default 1)")
    ap.add_argument("--min-per-module", type=int, default=10,
                    help="top each module up to this many sites (default 10)")
    ap.add_argument("--module", action="append", default=[],
                    help="only the sampled sites of this module (repeatable): " + ", ".join(sorted(MODULE_TESTS)))
    ap.add_argument("--min-score", type=float, default=90.0,
                    help="percent of non-equivalent mutants each module must kill (default 90)")
    ap.add_argument("--site", action="append", default=[], metavar="SITE",
                    help="only this site, sampled or not (repeatable): FILE:LINE:COL as the report "
                         "prints it, or FILE:TEXT:OP:OCC (stripped line text, operator, occurrence)")
    ap.add_argument("--summarize", nargs="+", metavar="LOG",
                    help="no run: the table from these runs' printed lines (later lines win, so a "
                         "rerun's log goes last), with the equivalents list as it is now")
    ap.add_argument("--rerun-survivors", nargs="+", metavar="LOG",
                    help="only the sites these runs' printed lines report as survived (later lines win): "
                         "a rerun after tests were added; its log goes last to --summarize")
    ap.add_argument("--list", action="store_true", help="list the sampled sites and stop")
    ap.add_argument("--keep", metavar="DIR",
                    help="work in DIR and keep it (a second run reuses its build)")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    for m in a.module:
        if m not in MODULE_TESTS:
            print("mutation: --module %s: not a module (%s)" % (m, ", ".join(sorted(MODULE_TESTS))),
                  file=sys.stderr)
            return 2
    if a.sites < 1 or a.min_per_module < 0 or not 0 <= a.min_score <= 100:
        print("mutation: --sites must be >= 1, --min-per-module >= 0, --min-score 0..100",
              file=sys.stderr)
        return 2
    try:
        equiv = load_equivalents()
    except BadInput as e:
        print("mutation: " + str(e), file=sys.stderr)
        return 2
    # the sample is drawn from every module, then cut to --module: the same
    # sites as a whole run's, so runs of parts add up to it
    every = all_sites(set())
    sites = [s for s in sample_sites(every, a.sites, a.seed, a.min_per_module)
             if not a.module or module_of(s["file"]) in a.module]
    if a.rerun_survivors:
        if a.site or a.summarize:
            print("mutation: --rerun-survivors with --site or --summarize: give one", file=sys.stderr)
            return 2
        try:
            survivors = survivors_of(a.rerun_survivors)
        except BadInput as e:
            print("mutation: " + str(e), file=sys.stderr)
            return 2
        if not survivors:
            print("mutation: no survivors in %s" % " ".join(a.rerun_survivors))
            return 0
        # each under the name its log gave it, so --summarize of the logs
        # counts the rerun's outcome in its place; a site whose line text
        # is gone from the tree (rewritten since) cannot be rerun: named
        sites = []
        for name, key in survivors:
            try:
                found = find_sites([key], sites, every)[0]
            except BadInput:
                print("mutation: %s (%s): its line is gone from the tree (rewritten since that run); not rerun"
                      % (name, key))
                continue
            sites.append(dict(found, shown=name))
        if not sites:
            return 0
    elif a.site:
        if a.summarize:
            print("mutation: --site and --summarize: give one", file=sys.stderr)
            return 2
        try:
            sites = find_sites(a.site, sites, every)
        except BadInput as e:
            print("mutation: " + str(e), file=sys.stderr)
            return 2
    if a.summarize:
        return summarize_logs(a, sites, equiv, every)
    if a.list:
        for s in sites:
            print("%s:%d:%d %s -> %s   %s" % (s["file"], s["line"], s["col"] + 1, s["op"], s["repl"],
                                             s["text"]))
        return 0
    shared = os.path.abspath(os.environ.get("SHARED", os.path.join(ROOT, "..", "shared")))
    if not os.path.isdir(os.path.join(shared, "data")):
        print("mutation: SHARED=%s has no data/ (set SHARED)" % shared, file=sys.stderr)
        return 2
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="spraysim-mut.")
    try:
        return run(a, sites, equiv, work, shared)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def restore_leftovers(work):
    """A --keep directory whose run was killed mid-mutant (SIGKILL: no
    finally block ran) still holds the mutant's object and library, newer
    than the restored source, so make would keep them: the saved originals
    go back first."""
    for b in BUILDS:
        for d, _, files in os.walk(os.path.join(work, b)):
            for fn in files:
                if fn.endswith(".orig"):
                    shutil.move(os.path.join(d, fn), os.path.join(d, fn[:-5]))


def run(a, sites, equiv, work, shared):
    os.makedirs(work, exist_ok=True)
    restore_leftovers(work)
    copy_tree(work)
    env = {b: dict(os.environ, SHARED=shared, SPRAYSIM=b + "/spraysim", BUILD=b, TEST_TIMEOUT="120")
           for b in BUILDS}
    mods = sorted({module_of(s["file"]) for s in sites})
    tests = sorted({t for m in mods for t in MODULE_TESTS[m]})
    print("mutation: %d sites, seed %d, in %s; building the unmutated tree, plain and with the checks" %
          (len(sites), a.seed, work), flush=True)
    lib_objs = {}
    for b in BUILDS:
        lib_objs[b], main_obj = objects(work, b)
        if not (make(work, b, lib_objs[b] + [main_obj], quiet=False) and link_lib(work, b, lib_objs[b])
                and link_bin(work, b) and all(link_test(work, b, t) for t in tests if "/" not in t)):
            print("mutation: the unmutated tree does not build (%s)" % b, file=sys.stderr)
            return 1
    base_s = {}
    for b in BUILDS:
        for t in tests:
            t0 = time.monotonic()
            if not run_test(work, b, t, env, 600, show=True):
                print("mutation: %s fails on the unmutated tree (%s)" % (t, b), file=sys.stderr)
                return 1
            base_s[b, t] = time.monotonic() - t0
    order = {m: sorted(MODULE_TESTS[m], key=lambda t: base_s[BUILD, t]) for m in mods}
    results = []
    t_start = time.monotonic()
    for i, s in enumerate(sites):
        mod = module_of(s["file"])
        where = "%s %s -> %s" % (s.get("shown") or site_name(s), s["op"], s["repl"])
        if is_equivalent(s, equiv):
            results.append((s, "equivalent", None))
            print("[%d/%d] %s: equivalent" % (i + 1, len(sites), where), flush=True)
            continue
        t0 = time.monotonic()
        outcome, by = mutate_and_test(work, s, order[mod], env, base_s, lib_objs)
        results.append((s, outcome, by))
        print("[%d/%d] %s: %s%s (%.1f s)" % (i + 1, len(sites), where, outcome,
                                             " by " + by if by else "", time.monotonic() - t0),
              flush=True)
    return summarize(a, results, mods, time.monotonic() - t_start)


def same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def mutate_and_test(work, s, tests, env, base_s, lib_objs):
    """Build the mutant in the plain tree and run the tests; if none fails,
    build it with the checks and run them there. Returns (outcome, by)."""
    src = os.path.join(work, s["file"])
    is_main = s["file"] == "src/cli/main.c"
    with open(src, encoding="utf-8") as f:
        orig = f.read()
    st = os.stat(src)
    lines = orig.split("\n")
    line = lines[s["line"] - 1]
    col = s["col"]
    if line[col:col + len(s["op"])] != s["op"]:
        raise RuntimeError("%s:%d: site moved" % (s["file"], s["line"]))
    lines[s["line"] - 1] = line[:col] + s["repl"] + line[col + len(s["op"]):]
    saved = []
    try:
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        same = []
        for b in BUILDS:
            rel_obj = b + "/" + s["file"][4:-2] + ".o"
            obj = os.path.join(work, rel_obj)
            linked = os.path.join(work, b, "spraysim" if is_main else "libspraysim.so")
            for p in (obj, linked):
                shutil.copy2(p, p + ".orig")
                saved.append(p)
            if not make(work, b, [rel_obj]):
                return "not built", None
            if same_file(obj, obj + ".orig"):
                # the compiler proved the mutant changes nothing in this build
                same.append(b)
                continue
            if not (link_bin(work, b) if is_main else link_lib(work, b, lib_objs[b])):
                return "not built", None
            for t in tests:
                if not run_test(work, b, t, env, max(10.0, 5 * base_s[b, t])):
                    return "killed", t + (" (checks)" if b == CHK_BUILD else "")
        if len(same) == len(BUILDS):
            return "equivalent", "the same object code"
        return "survived", None
    finally:
        # the original source (with its old time), objects and libraries
        with open(src, "w", encoding="utf-8") as f:
            f.write(orig)
        os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
        for p in saved:
            shutil.move(p + ".orig", p)


LOG_LINE = re.compile(r"^\[\d+/\d+\] (\S+:\d+:\d+) \S+ -> \S+: (killed|survived|not built|equivalent)"
                      r"(?: by (\S+(?: \(checks\))?|the same object code))?(?: \(([\d.]+) s\))?$")


LISTING_LINE = re.compile(r"^  (\S+:\d+:\d+)\t([^\t]+)\t([^\t]+)\t([^\t]+)\t(\d+)\t(.*)$")


def listed_sites(logs):
    """{FILE:LINE:COL: (file, op, repl, occ, text)} from the survivors
    listings of these logs. Raises BadInput naming a log that cannot be
    read."""
    listed = {}
    for path in logs:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    m = LISTING_LINE.match(line.rstrip("\n"))
                    if m:
                        listed[m.group(1)] = (m.group(2), m.group(3), m.group(4), int(m.group(5)), m.group(6))
        except OSError as e:
            raise BadInput("%s: %s" % (path, e.strerror))
    return listed


def survivors_of(logs):
    """(name, site) for every site whose last line in these logs says
    survived: the name as the logs print it (FILE:LINE:COL), the site as
    FILE:TEXT:OP:OCC where a survivors listing gives its text (so a rerun
    finds it after edits elsewhere moved its line), else the name. Raises
    BadInput naming a log that cannot be read."""
    last = {}
    for path in logs:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    m = LOG_LINE.match(line.rstrip("\n"))
                    if m:
                        last[m.group(1)] = m.group(2)
        except OSError as e:
            raise BadInput("%s: %s" % (path, e.strerror))
    listed = listed_sites(logs)
    out = []
    for w, outcome in last.items():
        if outcome != "survived":
            continue
        if w in listed:
            file, op, _, occ, text = listed[w]
            out.append((w, "%s:%s:%s:%d" % (file, text, op, occ)))
        else:
            out.append((w, w))
    return out


def summarize_logs(a, sites, equiv, every):
    """The per-module table from the lines of earlier runs (parts of one
    sample, or a rerun of some sites), so the runs need not be one. A line
    naming a site that the current tree has elsewhere (the tree changed
    since the run: lines moved) counts in its file's module; a survivor's
    reviewed-equivalent test then uses the text its log's listing gives."""
    where = {"%s:%d:%d" % (s["file"], s["line"], s["col"] + 1): s for s in sites}
    try:
        listed = listed_sites(a.summarize)
    except BadInput as e:
        print("mutation: " + str(e), file=sys.stderr)
        return 2
    by_key = {(s["file"], s["text"], s["op"], s["occ"]): s for s in every}
    got, secs = {}, {}
    for path in a.summarize:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    m = LOG_LINE.match(line.rstrip("\n"))
                    if not m:
                        continue
                    got[m.group(1)] = (m.group(2), m.group(3))
                    if m.group(4):
                        secs[m.group(1)] = float(m.group(4))
        except OSError as e:
            print("mutation: %s: %s" % (path, e.strerror), file=sys.stderr)
            return 2
    results = []
    moved = 0
    for w, (outcome, by) in got.items():
        s = where.get(w)
        if s is None:
            moved += 1
            if w in listed:
                file, op, repl, occ, text = listed[w]
                s = dict(by_key.get((file, text, op, occ)) or
                         {"file": file, "op": op, "repl": repl, "occ": occ, "text": text})
            else:
                s = {"file": w.rsplit(":", 2)[0], "op": None, "repl": None, "occ": 0, "text": None}
            fl, ln, col = w.rsplit(":", 2)
            s.update({"line": int(ln), "col": int(col) - 1, "shown": w})
        if outcome == "survived" and s["text"] is not None and is_equivalent(s, equiv):
            outcome, by = "equivalent", None
        elif outcome != "survived" and where.get(w) is not None and is_equivalent(s, equiv):
            outcome, by = "equivalent", None
        results.append((s, outcome, by))
    if moved:
        print("%d of the %d results name sites that are not this tree's sample at those lines (the tree "
              "changed since those runs); each counts in its file's module" % (moved, len(got)))
    else:
        missing = len(where) - len(results)
        if missing:
            print("%d of the %d sampled sites have no result in these logs" % (missing, len(where)))
    mods = sorted({module_of(s["file"]) for s, _, _ in results})
    return summarize(a, results, mods, sum(secs.values()))


def summarize(a, results, mods, secs):
    print()
    print("%-10s %6s %6s %8s %10s %9s %7s" % ("module", "sites", "killed", "survived",
                                              "equivalent", "not built", "score"))
    ok = True
    tot = {"killed": 0, "survived": 0, "equivalent": 0, "not built": 0}
    survivors = []
    for m in mods:
        c = {"killed": 0, "survived": 0, "equivalent": 0, "not built": 0}
        for s, outcome, _ in results:
            if module_of(s["file"]) == m:
                c[outcome] += 1
        for k in tot:
            tot[k] += c[k]
        live = c["killed"] + c["survived"]
        score = 100.0 * c["killed"] / live if live else 100.0
        if score < a.min_score:
            ok = False
        print("%-10s %6d %6d %8d %10d %9d %6.1f%%" % (m, sum(c.values()), c["killed"],
                                                      c["survived"], c["equivalent"],
                                                      c["not built"], score))
    live = tot["killed"] + tot["survived"]
    print("%-10s %6d %6d %8d %10d %9d %6.1f%%" % ("all", sum(tot.values()), tot["killed"],
                                                  tot["survived"], tot["equivalent"],
                                                  tot["not built"],
                                                  100.0 * tot["killed"] / live if live else 100.0))
    tested = sum(1 for _, o, _ in results if o != "equivalent")
    print("%.0f s for %d mutants, %.1f s per mutant" % (secs, tested, secs / tested if tested else 0))
    for s, outcome, _ in results:
        if outcome == "survived":
            survivors.append(s)
    if survivors:
        print("\nsurvivors (file, operator, replacement, occurrence, line text; a reviewed "
              "equivalent goes into %s with its reason):" % EQUIV_FILE)
        for s in survivors:
            print("  %s\t%s\t%s\t%s\t%d\t%s" % (s.get("shown") or site_name(s), s["file"], s["op"], s["repl"],
                                                s["occ"], s["text"]))
    return 0 if ok else 1


def on_sigterm(signum, frame):
    # kill(1) and a make that is stopped send SIGTERM: raising SystemExit
    # runs the finally blocks, which put the unmutated source, object and
    # library back
    sys.exit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        # the reader (head) stopped reading: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
