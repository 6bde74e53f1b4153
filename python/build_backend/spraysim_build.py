"""spraysim_build: the in-tree PEP 517 / PEP 660 build backend of the
spraysim Python package, standard library only.

Why not setuptools: pip builds a package in an isolated environment into
which it downloads the backend named in pyproject.toml; on a machine
without the network (a cluster's compute node, CI) that fails before
anything is built. This backend needs nothing, so `pip install .` works
offline. It builds one pure-Python wheel from python/spraysim, plus a
generated spraysim/_checkout.py that records the checkout the wheel was
built from (where bin/spraysim and tools/sweep are). The version is read
from src/core/version.c, the simulator's own, so the two cannot drift.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "spraysim"
PKG_DIR = os.path.join(ROOT, "python", NAME)


def _version():
    path = os.path.join(ROOT, "src", "core", "version.c")
    with open(path, encoding="utf-8") as f:
        m = re.search(r'spraysim_version\[\]\s*=\s*"([^"]+)"', f.read())
    if not m:
        raise RuntimeError(f"{path}: no spraysim_version string")
    return m.group(1)


def _metadata(version):
    summary = "Run the spraysim packet-level datacenter network simulator from Python"
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {summary}\n"
            "Requires-Python: >=3.9\nProvides-Extra: pandas\n"
            "Requires-Dist: pandas; extra == \"pandas\"\n")


WHEEL_TEXT = "Wheel-Version: 1.0\nGenerator: spraysim_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory, files):
    """files: [(arcname, bytes)] of the package; adds dist-info and RECORD."""
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    files = list(files) + [(f"{dist_info}/METADATA", _metadata(version).encode()),
                           (f"{dist_info}/WHEEL", WHEEL_TEXT.encode())]
    record = [_record_line(a, d) for a, d in files] + [f"{dist_info}/RECORD,,"]
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    name = f"{NAME}-{version}-py3-none-any.whl"
    path = os.path.join(wheel_directory, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return name


def _checkout_module():
    return (f'"""Written by the build: the checkout this package was installed from."""\n'
            f"ROOT = {ROOT!r}\n").encode()


def _package_files():
    out = []
    for name in sorted(os.listdir(PKG_DIR)):
        if name.endswith(".py") and name != "_checkout.py":
            with open(os.path.join(PKG_DIR, name), "rb") as f:
                out.append((f"{NAME}/{name}", f.read()))
    out.append((f"{NAME}/_checkout.py", _checkout_module()))
    return out


# ---- PEP 517 ---------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a .pth that puts python/ on sys.path, so edits take effect
    without reinstalling (the package finds its checkout from __file__)."""
    pth = (os.path.join(ROOT, "python") + "\n").encode()
    return _write_wheel(wheel_directory, [(f"__editable__.{NAME}.pth", pth)])


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = f"{NAME}-{version}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "docs/python.md", "src/core/version.c",
                    "python/build_backend/spraysim_build.py"] + \
                   [f"python/{NAME}/{n}" for n in sorted(os.listdir(PKG_DIR)) if n.endswith(".py")
                    and n != "_checkout.py"]:
            t.add(os.path.join(ROOT, rel), arcname=f"{base}/{rel}")
        meta = _metadata(version).encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(meta)
        t.addfile(info, io.BytesIO(meta))
    return name
