#!/usr/bin/python3
"""tests/test_mutation_tool.py: tools/mutation.py's bookkeeping (make
mutation): which function a site is in, and how tools/mutation_equivalent.tsv
rows match sites: a 6-field row anywhere its line text occurs in its file, a
7-field row only inside the function it names (for a text that occurs twice
where only one mutant is equivalent). One "ok NAME" / "FAIL NAME" line per
check, as tests/run_all.sh counts them."""
import importlib.util
import os
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
spec = importlib.util.spec_from_file_location("mutation", os.path.join(ROOT, "tools", "mutation.py"))
mutation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation)

failed = 0


def check(name, cond, detail=""):
    global failed
    if cond:
        print("ok mutation tool: " + name)
    else:
        failed += 1
        print("FAIL mutation tool: %s %s" % (name, detail))


SRC = """/* a file */
#include <stdint.h>
static int h(int x);
static int first(int x)
{
    return x < 3;
}

int
second(const char *s, int x) /* a ( in a comment */
{
    if (x < 3)
        return 1;
    return 0;
}

static __attribute__((noinline)) int third(int x)
{
    return x - 1;
}
"""


def main():
    masked = mutation.mask_source(SRC).split("\n")
    funcs = mutation.enclosing_functions(masked)
    check("a body's lines are in its function", funcs[5] == "first" and funcs[11] == "second", repr(funcs))
    check("an __attribute__ before the name is skipped", funcs[18] == "third", repr(funcs))
    check("lines outside bodies are in none", funcs[2] is None and funcs[7] is None and funcs[8] is None,
          repr(funcs))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "src"))
        os.makedirs(os.path.join(tmp, "tools"))
        with open(os.path.join(tmp, "src", "a.c"), "w") as f:
            f.write(SRC.replace("return x < 3;", "if (x < 3)\n        return 1;\n    return 0;"))
        saved = mutation.ROOT
        mutation.ROOT = tmp
        try:
            sites = [s for s in mutation.scan_file("src/a.c") if s["op"] == "<"]
            check("the same text in two functions is two sites", sorted(s["func"] for s in sites) ==
                  ["first", "second"], repr(sites))

            def equiv(rows):
                with open(os.path.join(tmp, mutation.EQUIV_FILE), "w") as f:
                    f.write("# test\n" + "".join("\t".join(r) + "\n" for r in rows))
                eq = mutation.load_equivalents()
                return sorted(s["func"] for s in sites if mutation.is_equivalent(s, eq))

            row = ["src/a.c", "<", "<=", "1", "if (x < 3)", "a reason"]
            check("a 6-field row matches its text in every function", equiv([row]) == ["first", "second"])
            check("a 7-field row matches only in its function", equiv([row + ["second"]]) == ["second"])
            check("a 7-field row of another function matches none", equiv([row + ["third"]]) == [])
            try:
                equiv([row + ["not a name"]])
                check("a 7th field that is not a name is refused", False)
            except mutation.BadInput as e:
                check("a 7th field that is not a name is refused", "6 or 7 tab-separated fields" in str(e), str(e))
        finally:
            mutation.ROOT = saved
    # a rerun finds a survivor by its line's text: the log names it
    # FILE:LINE:COL, its listing gives the text, and a later survivor line
    # of the same site wins over an earlier kill (and the other way round)
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "run.log")
        with open(log, "w") as f:
            f.write("[1/3] src/a.c:12:11 < -> <=: survived (3.0 s)\n"
                    "[2/3] src/a.c:6:14 < -> <=: killed by test_x (0.5 s)\n"
                    "[3/3] src/b.c:4:9 1 -> 2: survived (2.0 s)\n"
                    "\nsurvivors (file, operator, replacement, occurrence, line text; ...):\n"
                    "  src/a.c:12:11\tsrc/a.c\t<\t<=\t1\tif (x < 3)\n")
        rerun = os.path.join(tmp, "rerun.log")
        with open(rerun, "w") as f:
            f.write("[1/1] src/a.c:6:14 < -> <=: survived (3.0 s)\n")
        got = mutation.survivors_of([log])
        check("a rerun names a listed survivor by its text", got == [("src/a.c:12:11", "src/a.c:if (x < 3):<:1"),
                                                                     ("src/b.c:4:9", "src/b.c:4:9")], repr(got))
        got = mutation.survivors_of([log, rerun])
        check("the last log's outcome of a site counts", [w for w, _ in got] ==
              ["src/a.c:12:11", "src/a.c:6:14", "src/b.c:4:9"], repr(got))
    # the project's own list loads (a malformed row makes make mutation exit 2)
    try:
        n = len(mutation.load_equivalents())
        check("tools/mutation_equivalent.tsv loads (%d rows)" % n, n > 0)
    except mutation.BadInput as e:
        check("tools/mutation_equivalent.tsv loads", False, str(e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
