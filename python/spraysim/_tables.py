"""Reading spraysim's CSV outputs into tables: pandas DataFrames when pandas
is importable (and not turned off), else lists of dicts whose values are
int, float or str as the text says. Empty cells stay None."""
import csv

try:  # optional: the package works with the standard library alone
    import pandas as _pd
except ImportError:  # pragma: no cover - depends on the machine
    _pd = None


def have_pandas():
    """Whether tables can be DataFrames here."""
    return _pd is not None


def use_frames(frames):
    """frames None: DataFrames when pandas is here; True: required; False: never."""
    if frames is None:
        return _pd is not None
    if frames and _pd is None:
        raise ImportError("frames=True needs pandas, which is not installed (pip install pandas)")
    return bool(frames)


def _number(text):
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_csv(path, frames=None):
    """One CSV file as a table (see the module's paragraph)."""
    if use_frames(frames):
        return _pd.read_csv(path)
    with open(path, newline="", encoding="utf-8") as f:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def rows_to_table(columns, rows, frames=None):
    """SQL rows (tuples) with their column names as a table."""
    if use_frames(frames):
        return _pd.DataFrame.from_records(rows, columns=columns)
    return [dict(zip(columns, r)) for r in rows]
