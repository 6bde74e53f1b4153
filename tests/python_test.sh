#!/bin/sh
# The Python package (python/spraysim, docs/python.md): installed with
# `pip install .` into a fresh virtual environment, offline (--no-index:
# the in-tree build backend needs nothing from the network), then
# tests/test_python.py drives it against the built binary. One "ok" or
# "FAIL" line per check; "skip" when this machine has no python3 venv
# (`make deps` installs it).
cd "$(dirname "$0")/.." || exit 1
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" -c 'import ensurepip, venv' 2>/dev/null; then
    echo "skip python package: no python3 venv here (apt-get install python3-venv)"
    exit 0
fi
# SHARED may be relative to the checkout: the test runs elsewhere
case "${SHARED:=../shared}" in /*) ;; *) SHARED="$PWD/$SHARED" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# --system-site-packages: Debian's pandas, when installed, is seen
if ! "$PY" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1; then
    echo "FAIL python package: python3 -m venv failed: $(tail -1 "$tmp/venv.log")"
    exit 1
fi
if "$tmp/venv/bin/pip" install --no-index --no-cache-dir --disable-pip-version-check -q . >"$tmp/pip.log" 2>&1; then
    echo "ok python package: pip install . (offline) into a fresh venv"
else
    echo "FAIL python package: pip install . offline: $(tail -3 "$tmp/pip.log" | tr '\n' ' ')"
    exit 1
fi
# from another folder, without SPRAYSIM: the package must find the
# checkout's binary itself (the test compares with $SPRAYSIM's when set)
(cd "$tmp" && env -u SPRAYSIM REF_BINARY="${SPRAYSIM:-}" SHARED="$SHARED" ROOT="$OLDPWD" \
    "$tmp/venv/bin/python" "$OLDPWD/tests/test_python.py")
