#!/bin/sh
# tools/mutation.py's bookkeeping (tests/test_mutation_tool.py): one "ok" or
# "FAIL" line per check, as tests/run_all.sh counts them. Needs Debian's
# /usr/bin/python3 (the Makefile's test target installs it when missing).
if [ ! -x /usr/bin/python3 ]; then
    echo "FAIL mutation tool: /usr/bin/python3 missing (make test installs python3)"
    exit 1
fi
exec /usr/bin/python3 tests/test_mutation_tool.py
