#!/bin/sh
# cc_cost.sh: `make bench-cc`. Instructions per call of every CC module on
# every stream of bench/cc_cost.c, from valgrind's instruction count (the
# run with CALLS events minus the run with none, divided by CALLS), and each
# module's per-flow state (for the -fixed integer variants: the NIC's bytes
# per flow, + per host, and the simulator's struct). Prints a markdown table. Needs valgrind (Debian's
# package; installed by the Makefile target when missing).
BIN=${CC_COST:-build/bench/cc_cost}
CALLS=${CC_COST_CALLS:-20000}
ALGOS=${CC_COST_ALGOS:-"nscc nscc-fixed mnscc smartt smartt-fixed swift swift-ref lswift mswift dctcp uec-dctcp bbr mprdma newreno"}
STREAMS=${CC_COST_STREAMS:-"core-fd core-md core-fi core-mi core-mix fast-inc nack"}

ir() { # ir ALGO STREAM RUN: total instructions of one run (RUN 0: the events made, not fed)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" "$CALLS" "$3" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

printf '| module | state B |'
for s in $STREAMS; do printf ' %s |' "$s"; done
printf '\n|---|---|'
for s in $STREAMS; do printf -- '---|'; done
printf '\n'
for a in $ALGOS; do
    # a module the driver cannot run (unknown name, stale binary) stops the
    # table rather than printing a row of zeros
    "$BIN" "$a" core-mix 1 1 >/dev/null || { echo "cc_cost.sh: $BIN cannot run '$a'" >&2; exit 1; }
    state=$("$BIN" "$a" core-mix 1 1 | sed -n 's/.*state \([0-9]*\) bytes, nic \([0-9]*\) per flow \([0-9]*\) global.*/\2 (+\3 global; sim \1)/p; s/.*state \([0-9]*\) bytes$/\1/p')
    printf '| %s | %s |' "$a" "$state"
    for s in $STREAMS; do
        base=$(ir "$a" "$s" 0)
        full=$(ir "$a" "$s" 1)
        printf ' %s |' "$(awk -v b="$base" -v f="$full" -v n="$CALLS" 'BEGIN { printf "%.0f", (f - b) / n }')"
    done
    printf '\n'
done
