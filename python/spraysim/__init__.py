"""spraysim: run the spraysim simulator from Python and get its outputs as
tables.

    import spraysim
    r = spraysim.run(workload="perm:n=16,size=65536", end=2000)
    r.summary["flows"]["fct_p99_us"]      # summary.json, a dict
    r.flows                                # flows.csv: a pandas DataFrame
    r.queues                               # queues.csv

    s = spraysim.sweep("experiments/trimming.toml", jobs=2)
    s.runs                                 # one row per point (results.db)
    spraysim.load_sweep("results/trimming").table("summaries")

The package calls the built binary (bin/spraysim of the checkout it was
installed from, or $SPRAYSIM, or `spraysim` on PATH) and the sweep tool
(tools/sweep); it never reimplements the simulator. Tables are pandas
DataFrames when pandas is installed and `frames` is not False, else lists of
dicts with numbers converted. docs/python.md is the manual.
"""
from ._run import Result, SpraysimError, binary_path, flag_names, run, version
from ._sweep import SweepResults, load_sweep, sweep
from ._tables import have_pandas, read_csv


def _package_version():
    try:
        from importlib.metadata import PackageNotFoundError, version as _v
        try:
            return _v("spraysim")
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover
        pass
    import re
    from . import _checkout
    try:
        with open(f"{_checkout.ROOT}/src/core/version.c", encoding="utf-8") as f:
            return re.search(r'spraysim_version\[\]\s*=\s*"([^"]+)"', f.read()).group(1)
    except (OSError, AttributeError):
        return "unknown"


__version__ = _package_version()

__all__ = ["run", "Result", "SpraysimError", "sweep", "load_sweep", "SweepResults",
           "read_csv", "binary_path", "flag_names", "version", "have_pandas", "__version__"]
