"""Running a sweep's points: locally in parallel, or as Slurm array tasks.

Local engine: a pool of threads, each starting one spraysim process and
waiting for it; the main thread alone writes the database, ingesting each
point as it finishes. We chose this over GNU parallel because the ingest must
be serial (one SQLite writer) and interleaved with the runs, resume needs the
same point list and completion test as the Slurm path, and it adds no
dependency (GNU parallel is not installed by default on Debian).

Resume: each run writes its outputs into outdir/runs/ID through spraysim's
own atomic --out, and then its record outdir/logs/ID.json (exit code, wall
time, command) by write-and-rename. A point counts as done once its runs row
is in the database, which the ingest writes in the same transaction as its
data. On a restart, points with a record but no runs row (killed between the
run and the ingest, or run by Slurm) are ingested without rerunning; points
without a record are run again.
"""
import ctypes
import datetime
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from . import db
from .spec import Point, SpecError, binary_version, expand, root_dir, version_commit


def default_outdir(sweep):
    """results/NAME under the project root, whatever the current directory
    (the same sweep resumes into the same directory from anywhere)."""
    return os.path.join(root_dir(), "results", sweep.name)


def resolve_binary(sweep, override=None):
    b = override or os.environ.get("SPRAYSIM") or sweep.binary
    if not os.path.isabs(b):
        b = os.path.join(root_dir(), b)
    return b


def save_points(outdir, sweep, version, points, binary):
    db.write_atomic(os.path.join(outdir, "points.json"), json.dumps({
        "sweep": sweep.name, "sweep_file": sweep.path, "version": version, "binary": binary,
        "points": [p.to_json() for p in points]}, indent=1))


def load_points(outdir):
    try:
        with open(os.path.join(outdir, "points.json")) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise SpecError(f"{outdir}/points.json: {e}")
    return d, [Point.from_json(p) for p in d["points"]]


def read_meta(outdir, pid):
    try:
        with open(os.path.join(outdir, "logs", pid + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


_libc = None


def _die_with_parent():
    """In the child: SIGKILL it when the thread that started it dies (a
    killed sweep leaves no orphan simulations writing into its directory)."""
    global _libc
    try:
        if _libc is None:
            _libc = ctypes.CDLL(None)
        _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


_active = set()
_active_lock = threading.Lock()
# set when the sweep terminates its own runs (interrupted): their deaths by
# signal are not results
_stopping = threading.Event()


def signal_name(num):
    try:
        return f"{signal.Signals(num).name} ({num})"
    except ValueError:
        return str(num)


def run_point(binary, version, point, outdir):
    """Runs one point; writes its record last. Returns the record."""
    rundir = os.path.join(outdir, "runs", point.id)
    logpath = os.path.join(outdir, "logs", point.id + ".log")
    argv = [binary] + point.argv + ["--out", rundir, "--no-progress"]
    t0 = time.monotonic()
    with open(logpath, "w") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=root_dir(),
                                preexec_fn=_die_with_parent)
        with _active_lock:
            _active.add(proc)
        try:
            rc = proc.wait()
        finally:
            with _active_lock:
                _active.discard(proc)
    wall = time.monotonic() - t0
    if rc < 0 and (_stopping.is_set() or -rc == signal.SIGINT):
        # the sweep is being interrupted (we terminated it, or Ctrl-C went
        # to the whole process group): not a result, run it again next time
        return None
    err = None
    if rc < 0:
        # a crash or the OOM killer: a result of this point (it would die
        # the same way again), recorded as failed with the signal
        err = f"killed by signal {signal_name(-rc)}"
    elif rc != 0:
        try:
            with open(logpath) as f:
                lines = [ln.strip() for ln in f if ln.strip()]
            err = lines[-1] if lines else f"exit {rc}"
        except OSError:
            err = f"exit {rc}"
    meta = {"point_id": point.id, "exit_code": rc, "wall_s": round(wall, 6),
            "command": shlex.join([os.path.relpath(binary, root_dir())] + point.argv),
            "version": version, "commit": version_commit(version), "error": err,
            "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    db.write_atomic(os.path.join(outdir, "logs", point.id + ".json"), json.dumps(meta))
    return meta


def check_commands(sweep, binary, points, outdir, jobs=1):
    """Runs `spraysim ARGS --check` once per distinct command line of the
    points (the seed aside: it changes no flag's validity): the binary
    parses every flag and reads every input file as a run would, so a bad
    flag refuses the sweep here, with the point's flags and the binary's
    own line, instead of failing every point that has it. The check gets
    the --out and --no-progress a run gets (flags such as --ts-flows need
    --out); --check writes nothing there."""
    firsts = {}
    for p in points:
        key = tuple(p.argv[:-2]) if p.argv[-2:-1] == ["--seed"] else tuple(p.argv)
        firsts.setdefault(key, p)
    if not firsts:
        return

    def check(p):
        try:
            r = subprocess.run([binary] + p.argv + ["--out", os.path.join(outdir, "runs", p.id),
                                                    "--no-progress", "--check"],
                               capture_output=True, text=True, cwd=root_dir(), timeout=600,
                               preexec_fn=_die_with_parent)
        except OSError as e:
            return f"{binary}: {e.strerror}"
        except subprocess.TimeoutExpired:
            return "--check took more than 600 s"
        if r.returncode == 0:
            return None
        lines = [ln.strip() for ln in (r.stderr + r.stdout).splitlines() if ln.strip()]
        if r.returncode < 0:
            return f"killed by signal {signal_name(-r.returncode)}"
        return lines[-1] if lines else f"exit {r.returncode}"

    todo = list(firsts.values())
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(todo)))) as pool:
        results = list(pool.map(check, todo))
    for p, why in zip(todo, results):
        if why is not None:
            flags = shlex.join(p.argv[:-2] if p.argv[-2:-1] == ["--seed"] else p.argv)
            lab = " ".join(f"{k}={v}" for k, v in p.labels.items())
            raise SpecError(f"{sweep.path}: point {p.id}{' (' + lab + ')' if lab else ''}: "
                            f"spraysim {flags}: {why}")


def prepare(sweep, outdir, binary):
    version = binary_version(binary)
    os.makedirs(os.path.join(outdir, "runs"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "logs"), exist_ok=True)
    points = expand(sweep, version, outdir)
    save_points(outdir, sweep, version, points, binary)
    return version, points


def open_db(sweep, outdir, version):
    conn = db.connect(os.path.join(outdir, "results.db"))
    with conn:
        for k, v in (("sweep", sweep.name), ("title", sweep.title), ("sweep_file", sweep.path),
                     ("sweep_text", sweep.text), ("version", version)):
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (k, v))
    return conn


def ingest_finished(sweep, outdir, points, conn, ptypes, quiet=False):
    """Ingests every point that has a record but no runs row; returns the
    points still to run."""
    done = db.done_ids(conn)
    todo = []
    n = 0
    for p in points:
        if p.id in done:
            continue
        meta = read_meta(outdir, p.id)
        if meta is None or (meta["exit_code"] == 0 and
                            not os.path.exists(os.path.join(outdir, "runs", p.id, "summary.json"))):
            todo.append(p)
            continue
        db.ingest(conn, sweep.name, p, os.path.join(outdir, "runs", p.id), meta, ptypes, sweep.keep_flows)
        n += 1
    if n and not quiet:
        print(f"sweep: ingested {n} point(s) finished earlier", file=sys.stderr)
    return todo


def describe(p):
    lab = " ".join(f"{k}={v}" for k, v in p.labels.items())
    return f"{p.id} {lab} seed={p.seed}".replace("  ", " ")


def run_local(sweep, outdir, binary, jobs, retry_failed=False, limit=None, quiet=False):
    version, points = prepare(sweep, outdir, binary)
    conn = open_db(sweep, outdir, version)
    ptypes = db.param_types(points)
    if retry_failed:
        ids = [r[0] for r in conn.execute("SELECT point_id FROM runs WHERE status = 'failed'")]
        with conn:
            for pid in ids:
                conn.execute("DELETE FROM runs WHERE point_id = ?", (pid,))
                try:
                    os.unlink(os.path.join(outdir, "logs", pid + ".json"))
                except FileNotFoundError:
                    pass
    todo = ingest_finished(sweep, outdir, points, conn, ptypes, quiet)
    db.renumber(conn, points)
    skipped = len(points) - len(todo)
    if limit is not None:
        todo = todo[:limit]
    check_commands(sweep, binary, todo, outdir, jobs)
    failed = conn.execute("SELECT count(*) FROM runs WHERE status = 'failed' AND point_index IS NOT NULL").fetchone()[0]
    if not quiet:
        print(f"sweep {sweep.name}: {len(points)} points, {skipped} done, {len(todo)} to run "
              f"on {jobs} job(s); {version}", file=sys.stderr)
        if failed:
            print(f"sweep {sweep.name}: {failed} of the done points failed and are not run again (the same "
                  f"command and binary fail the same way; --retry-failed runs them again)", file=sys.stderr)
    counts = {"done": 0, "failed": 0, "unfinished": 0}
    t0 = time.monotonic()

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_signal)
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futs = {pool.submit(run_point, binary, version, p, outdir): p for p in todo}
        for i, fut in enumerate(as_completed(futs), 1):
            p = futs[fut]
            meta = fut.result()
            if meta is None:  # killed by SIGINT: not recorded, runs again next time
                if not quiet:
                    print(f"[{i}/{len(todo)}] {describe(p)} interrupted (SIGINT); not recorded", file=sys.stderr)
                continue
            st = db.ingest(conn, sweep.name, p, os.path.join(outdir, "runs", p.id), meta, ptypes, sweep.keep_flows)
            counts[st] += 1
            if not quiet:
                extra = f": {meta['error']}" if meta.get("error") else ""
                print(f"[{i}/{len(todo)}] {describe(p)} {st} {meta['wall_s']:.2f} s{extra}",
                      file=sys.stderr)
    except (KeyboardInterrupt, OSError, sqlite3.Error) as e:
        # interrupted, or the system refused a write (a full disk): stop the
        # runs still going (they are not recorded: they run again on resume)
        _stopping.set()
        with _active_lock:
            for proc in list(_active):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        if not isinstance(e, KeyboardInterrupt):
            raise
        print("sweep: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
    pool.shutdown(wait=True)
    if not quiet:
        print(f"sweep {sweep.name}: ran {len(todo)} in {time.monotonic() - t0:.1f} s: "
              f"{counts['done']} done, {counts['unfinished']} with unfinished flows, "
              f"{counts['failed']} failed; results in {os.path.join(outdir, 'results.db')}",
              file=sys.stderr)
    return 1 if counts["failed"] else 0


def ingest_only(sweep, outdir, binary):
    version, points = prepare(sweep, outdir, binary)
    conn = open_db(sweep, outdir, version)
    todo = ingest_finished(sweep, outdir, points, conn, db.param_types(points))
    db.renumber(conn, points)
    print(f"sweep {sweep.name}: {len(points) - len(todo)} of {len(points)} points in the database, "
          f"{len(todo)} not run yet", file=sys.stderr)
    return 0


def status(sweep, outdir, binary):
    version, points = prepare(sweep, outdir, binary)
    conn = open_db(sweep, outdir, version)
    st = dict(conn.execute("SELECT status, count(*) FROM runs WHERE point_id IN (%s) GROUP BY status"
                           % ",".join("?" * len(points)), [p.id for p in points]).fetchall()) if points else {}
    n_in = sum(st.values())
    recorded = sum(1 for p in points if read_meta(outdir, p.id) is not None)
    print(f"{sweep.name}: {len(points)} points; in database: {n_in} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(st.items())) or 'none'}); "
          f"run but not ingested: {max(0, recorded - n_in)}; not run: {len(points) - max(recorded, n_in)}")
    return 0


# -- Slurm ---------------------------------------------------------------
def slurm_script(sweep, outdir, binary, chunk, sbatch_opts):
    version, points = prepare(sweep, outdir, binary)
    check_commands(sweep, binary, points, outdir, os.cpu_count() or 1)
    os.makedirs(os.path.join(outdir, "slurm"), exist_ok=True)
    ntasks = max(1, (len(points) + chunk - 1) // chunk)
    absout = os.path.abspath(outdir)
    tool = os.path.join(root_dir(), "tools", "sweep")
    lines = [
        "#!/bin/sh",
        f"#SBATCH --job-name=sweep-{sweep.name}",
        f"#SBATCH --array=0-{ntasks - 1}",
        "#SBATCH --ntasks=1",
        "#SBATCH --cpus-per-task=1",
        f"#SBATCH --output={absout}/slurm/task-%a.out",
    ] + [f"#SBATCH {o}" for o in sbatch_opts] + [
        f"# Sweep {sweep.name}: {len(points)} points in {ntasks} array task(s) of at most {chunk},",
        f"# written by tools/sweep slurm for {version}.",
        "# Each task runs its chunk of points.json; finished points are skipped, so a",
        "# resubmitted array (or one task run again) resumes. Tasks never write the",
        "# database (SQLite on a shared file system): when all have ended, run",
        f"#   {tool} ingest {sweep.path} --out {absout}",
        "# (tools/sweep slurm --submit queues that as a dependent job).",
        "# Without Slurm, run a task by hand: SLURM_ARRAY_TASK_ID=0 sh slurm.sh",
        "set -eu",
        f"cd {shlex.quote(root_dir())}",
        f"exec /usr/bin/python3 {shlex.quote(tool)} run-chunk --out {shlex.quote(absout)} "
        f"--chunk-size {chunk} --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" "
        "\"${SLURM_ARRAY_TASK_ID:?SLURM_ARRAY_TASK_ID is not set: submit with sbatch or set it by hand}\"",
        "",
    ]
    path = os.path.join(outdir, "slurm.sh")
    db.write_atomic(path, "\n".join(lines))
    os.chmod(path, 0o755)
    return path, ntasks, len(points)


def run_chunk(outdir, task, chunk, jobs, binary_override=None):
    d, points = load_points(outdir)
    binary = binary_override or os.environ.get("SPRAYSIM") or d.get("binary") or os.path.join(root_dir(), "bin", "spraysim")
    version = binary_version(binary)
    if version != d["version"]:
        raise SpecError(f"{outdir}/points.json was written for '{d['version']}' but {binary} is "
                        f"'{version}': point ids would not match; rewrite the script (tools/sweep slurm)")
    ntasks = max(1, (len(points) + chunk - 1) // chunk)
    if task < 0 or task >= ntasks:
        raise SpecError(f"task {task}: out of range 0..{ntasks - 1}")
    mine = points[task * chunk:(task + 1) * chunk]
    todo = [p for p in mine if read_meta(outdir, p.id) is None]
    print(f"task {task}: points {task * chunk}..{task * chunk + len(mine) - 1}, "
          f"{len(mine) - len(todo)} already run", file=sys.stderr)
    rc = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for p, meta in zip(todo, pool.map(lambda q: run_point(binary, version, q, outdir), todo)):
            if meta is None or meta["exit_code"] != 0:
                rc = 1
            print(f"{describe(p)} exit {meta['exit_code'] if meta else 'killed'}", file=sys.stderr)
    return rc


def submit(sweep, outdir, script):
    try:
        out = subprocess.run(["sbatch", "--parsable", script], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SpecError(f"sbatch failed: {getattr(e, 'stderr', '') or e}")
    job = out.stdout.strip().split(";")[0]
    tool = os.path.join(root_dir(), "tools", "sweep")
    wrap = f"/usr/bin/python3 {shlex.quote(tool)} ingest {shlex.quote(sweep.path)} --out {shlex.quote(os.path.abspath(outdir))}"
    out2 = subprocess.run(["sbatch", "--parsable", f"--dependency=afterany:{job}", "--job-name",
                           f"ingest-{sweep.name}", "--output", os.path.join(os.path.abspath(outdir), "slurm", "ingest.out"),
                           "--wrap", wrap], capture_output=True, text=True)
    if out2.returncode != 0:
        raise SpecError(f"sbatch (ingest job) failed: {out2.stderr.strip()}")
    return job, out2.stdout.strip().split(";")[0]
