#!/bin/sh
# The sweep tool's fast tests (tests/test_sweep.py): one "ok NAME" or
# "FAIL NAME" line each, as tests/run_all.sh counts them. Needs Debian's
# /usr/bin/python3 (3.11: tomllib, sqlite3); the Makefile's test target
# installs it when missing.
if [ ! -x /usr/bin/python3 ]; then
    echo "FAIL sweep: /usr/bin/python3 missing (make test installs python3)"
    exit 1
fi
exec /usr/bin/python3 tests/test_sweep.py
