#!/bin/sh
# option_bounds.sh: every range a --cc-opt accepts, at both ends. For each
# option in the table below, the binary must take the lowest and the highest
# value of its range (a closed end) and refuse, with exit status 2 and one
# line naming the option, a value just beyond each end (and an open end
# itself). Issue 26: flipping a range test (<= to <) or moving an end by one
# went unnoticed where only values inside the range were ever tried.
# Ranges are the ones the code states (src/cc/*.c opt_in, cc_opt_uint,
# the percentile checks); --sird-opt's are in test_sird.c. Then flags
# at both ends of their ranges (-q, -pfc_thresholds, --drr-quantum,
# --reps-buffer, then every get_uint/get_real range of src/cli/options.c),
# flags given fewer values than they take, and --class-opt's 32-entry limit;
# then htsim_uec's ranged flags, limits between two flags at equality and
# one beyond, and the --ts-* selections against the run's flows, ports,
# hosts and -end.
# Run from the repository root by tests/run_all.sh, with SPRAYSIM and SHARED
# as tests/cli_test.sh takes them. Prints one "ok"/"FAIL" line per option.

SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
M=$SHARED/data/htsim/matrices
T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-bounds.XXXXXX") || { echo "FAIL option_bounds: mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM
nfail=0

# run CC OPT=VALUE: the exit status of a 1 us run with that option
run() {
    "$SPRAYSIM" -tm "$M/one.cm" -end 1 --quiet --no-progress --out "$T/o" --cc "$1" --cc-opt "$2" \
        >"$T/out" 2>"$T/err" </dev/null
}

# check CC NAME LO HI BELOW ABOVE [open]: LO and HI taken (LO refused when
# "open"), BELOW and ABOVE refused with exit 2 and one line naming NAME
check() {
    cc=$1 name=$2 lo=$3 hi=$4 below=$5 above=$6 open=$7
    why=""
    if [ "$open" = open ]; then
        run "$cc" "$name=$lo"
        [ $? -eq 2 ] || why="$why $name=$lo taken (the end is open);"
    else
        run "$cc" "$name=$lo" || why="$why $name=$lo refused: $(head -1 "$T/err");"
    fi
    run "$cc" "$name=$hi" || why="$why $name=$hi refused: $(head -1 "$T/err");"
    for v in "$below" "$above"; do
        run "$cc" "$name=$v"
        rc=$?
        if [ $rc -ne 2 ]; then
            why="$why $name=$v: exit $rc, want 2;"
        elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q -- "$name" "$T/err"; then
            why="$why $name=$v: not one line naming it: $(head -2 "$T/err" | tr '\n' ' ');"
        fi
    done
    if [ -z "$why" ]; then
        echo "ok --cc $cc --cc-opt $name: [$lo, $hi] at both ends"
    else
        echo "FAIL --cc $cc --cc-opt $name:$why"
        nfail=$((nfail + 1))
    fi
}

if [ ! -x "$SPRAYSIM" ] || [ ! -f "$M/one.cm" ]; then
    echo "FAIL option_bounds: $SPRAYSIM or $M/one.cm missing"
    exit 1
fi

# cc name lo hi below above [open]; BELOW/ABOVE are the nearest values
# beyond each end at the option's scale (a count steps by one).
while read -r cc name lo hi below above open; do
    case $cc in '#'* | '') continue ;; esac
    check "$cc" "$name" "$lo" "$hi" "$below" "$above" "$open"
done <<'TABLE'
# smartt and smartt-fixed: opt_in's ranges, then the whole-number switches
smartt maxwnd_bdp 0.01 1000 0.0099999 1000.0001
smartt md 0 1000 -0.0000001 1000.0001
smartt fd 0 1000 -0.0000001 1000.0001
smartt fi 0 1000 -0.0000001 1000.0001
smartt k 0 1000 -0.0000001 1000.0001
smartt qa_scaling 0.01 10 0.0099999 10.000001
smartt wtd_alpha 0 1 -0.0000001 1.0000001
smartt wtd_threshold 0 1 -0.0000001 1.0000001
smartt trtt_mult 1.01 100 1.0099999 100.00001
smartt md_form 0 1 -1 2
smartt react_every 1 1000000 0 1000001
smartt quick_adapt 0 1 -1 2
smartt fair_increase 0 1 -1 2
smartt qa_ignore 0 1 -1 2
smartt qa_ignore_loss 0 1 -1 2
smartt fast_increase 0 1 -1 2
smartt ecn_only 0 1 -1 2
smartt delay_only 0 1 -1 2
smartt-fixed maxwnd_bdp 0.01 1000 0.0099999 1000.0001
smartt-fixed md 0 1000 -0.0000001 1000.0001
smartt-fixed fd 0 1000 -0.0000001 1000.0001
smartt-fixed fi 0 1000 -0.0000001 1000.0001
smartt-fixed k 0 1000 -0.0000001 1000.0001
smartt-fixed qa_scaling 0.01 10 0.0099999 10.000001
smartt-fixed wtd_alpha 0 1 -0.0000001 1.0000001
smartt-fixed wtd_threshold 0 1 -0.0000001 1.0000001
smartt-fixed trtt_mult 1.01 100 1.0099999 100.00001
smartt-fixed qa_ignore 0 1 -1 2
smartt-fixed quick_adapt 0 1 -1 2
smartt-fixed fast_increase 0 1 -1 2
smartt-fixed fair_increase 0 1 -1 2
# NSCC family: switches and the median's history and percentile
nscc quick_adapt 0 1 -1 2
nscc fast_increase 0 1 -1 2
nscc-fixed qa_ignore 0 1 -1 2
nscc qa_ignore 0 1 -1 2
nscc-fixed quick_adapt 0 1 -1 2
nscc-fixed fast_increase 0 1 -1 2
mnscc history 0 1024 -1 1025
mnscc percentile 0 100 -0.0000001 100.00001 open
# Swift family: counts, history, percentile
swift retx_reset 1 1000000 0 1000001
# Swift's opt_nonneg ranges, [0, hi] (max_mdf: [0, 1), its end checked below;
# min_cwnd above 0; fs_min_cwnd and fs_max_cwnd bound each other)
swift base_target_us 0 1000000 -0.0000001 1000000.1
swift hop_scale_us 0 1000000 -0.0000001 1000000.1
swift fs_range_us 0 1000000 -0.0000001 1000000.1
swift ai 0 1000000 -0.0000001 1000000.1
swift beta 0 1000000 -0.0000001 1000000.1
swift max_mdf 0 0.9999999 -0.0000001 1
swift min_cwnd 0 1000000 -0.0000001 1000000.1 open
swift max_cwnd_bdp 0 1000 -0.0000001 1000.0001
swift-ref max_cwnd 0 1000000 -0.0000001 1000000.1
lswift delayed_pkts 1 1000000 0 1000001
mswift history 0 1024 -1 1025
mswift percentile 0 100 -0.0000001 100.00001 open
TABLE

# Flags at the ends of what they take. A flag of two values given one, last
# on the line (reading past argv's end before), and --class-opt's table of
# 32 entries: 6 classes x 6 names give 36 distinct ones; the 33rd is refused.
# bad DESCRIPTION TEXT ARGS...: exit 2 and one line containing TEXT
bad() {
    desc=$1 want=$2
    shift 2
    "$SPRAYSIM" -tm "$M/one.cm" -end 1 --quiet --no-progress --out "$T/o" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$want" "$T/err"; then
        echo "ok $desc"
    else
        echo "FAIL $desc: exit $rc, $(head -2 "$T/err" | tr '\n' ' ') (want exit 2, one line with '$want')"
        nfail=$((nfail + 1))
    fi
}
# good DESCRIPTION ARGS...: a 1 us run with ARGS exits 0
good() {
    desc=$1
    shift
    if "$SPRAYSIM" -tm "$M/one.cm" -end 1 --quiet --no-progress --out "$T/o" "$@" >"$T/out" 2>"$T/err" </dev/null; then
        echo "ok $desc"
    else
        echo "FAIL $desc: exit $?, $(head -1 "$T/err")"
        nfail=$((nfail + 1))
    fi
}
# -q: 1 to 1000000 packets, and at most 2^31 - 1 bytes with the 4150-byte
# default MTU: 517465 packets (2147479750 bytes) is the largest queue
good "-q 1 (with -ecn 1 1), the smallest queue" -q 1 -ecn 1 1
bad "-q 0" "-q: '0' is out of range (1 to 1000000)" -q 0
# max_mdf's range is [0, 1] (opt_nonneg), then 1 itself is refused: 1.5
# is out of the range, and the message says so
bad "--cc swift --cc-opt max_mdf=1.5" "max_mdf=1.5: must be from 0 to 1" --cc swift --cc-opt max_mdf=1.5
bad "--cc swift --cc-opt max_mdf=1" "max_mdf=1: must be below 1" --cc swift --cc-opt max_mdf=1
good "-q 517465, the largest queue in bytes" -q 517465
bad "-q 517466, one packet more than 2^31 - 1 bytes" "-q 517466: a queue of 2147483900 bytes" -q 517466
good "--progress-every 0.01, the shortest interval" --progress-every 0.01
bad "--progress-every 0.009" "--progress-every: '0.009' is out of range" --progress-every 0.009
good "--progress-every 86400, the longest" --progress-every 86400
bad "--progress-every 86401" "--progress-every: '86401' is out of range" --progress-every 86401
# -pfc_thresholds: each value 1 to 1000000 packets (a small -mtu keeps the
# high one under 2^31 bytes); the low end is checked before low <= high
good "-pfc_thresholds 1 1" --transport roce -mtu 1000 -pfc_thresholds 1 1
good "-pfc_thresholds 1000000 1000000" --transport roce -mtu 1000 -pfc_thresholds 1000000 1000000
bad "-pfc_thresholds low 0" "-pfc_thresholds (low): '0' is out of range (1 to 1000000)" --transport roce -mtu 1000 -pfc_thresholds 0 10
bad "-pfc_thresholds low 1000001" "-pfc_thresholds (low): '1000001' is out of range (1 to 1000000)" --transport roce -mtu 1000 -pfc_thresholds 1000001 1000000
bad "-pfc_thresholds high 0" "-pfc_thresholds (high): '0' is out of range (1 to 1000000)" --transport roce -mtu 1000 -pfc_thresholds 1 0
bad "-pfc_thresholds high 1000001" "-pfc_thresholds (high): '1000001' is out of range (1 to 1000000)" --transport roce -mtu 1000 -pfc_thresholds 1 1000001
# --drr-quantum: 64 B to 2^24 B
good "--drr-quantum 64" --sched drr --drr-quantum 64
good "--drr-quantum 16777216" --sched drr --drr-quantum 16777216
bad "--drr-quantum 63" "--drr-quantum: '63' is out of range (64 to 16777216)" --sched drr --drr-quantum 63
bad "--drr-quantum 16777217" "--drr-quantum: '16777217' is out of range (64 to 16777216)" --sched drr --drr-quantum 16777217
# --reps-buffer: 1 to 256 entries
good "--reps-buffer 1" --lb reps --reps-buffer 1
good "--reps-buffer 256" --lb reps --reps-buffer 256
bad "--reps-buffer 0" "--reps-buffer: '0' is out of range (1 to 256)" --lb reps --reps-buffer 0
bad "--reps-buffer 257" "--reps-buffer: '257' is out of range (1 to 256)" --lb reps --reps-buffer 257
bad "-timely_thresholds with one value, last" "-timely_thresholds needs two values" -timely_thresholds 5
bad "-ecn with one value, last" "-ecn needs two values" -ecn 5
bad "-pfc_thresholds with one value, last" "-pfc_thresholds needs two values" -pfc_thresholds 5
set --
for c in 2 3 4 5 6 7; do
    for n in queue_bytes ecn_kmin_bytes ecn_kmax_bytes trim ecn lossless; do
        set -- "$@" --class-opt "$c:$n=1"
    done
done
# "$@" is now 36 options; 32 are the most, given or repeated
while [ $# -gt 66 ]; do shift 2; done
bad "--class-opt: 33 distinct options" "--class-opt: at most 32 options" --classes 8 "$@"

# Every flag's range at both ends (src/cli/options.c's get_uint/get_real
# ranges): LO and HI get past the range check (the run may still stop for
# another reason: -nodes 1 fits no tree), BELOW and ABOVE are refused with
# exit 2 and one line "NAME: 'VALUE' is out of range" (BELOW "-": the
# range starts at 0 and "-1" is refused as not a whole number instead).
# range NAME LO HI BELOW ABOVE ARGS...: @ in ARGS stands for the value
range() {
    name=$1 lo=$2 hi=$3 below=$4 above=$5
    shift 5
    tmpl=$* # the arguments hold no spaces: split again below
    why=""
    for v in "$lo" "$hi" "$below" "$above"; do
        [ "$v" = - ] && continue # nothing below 0 is a whole number: no value to try
        # shellcheck disable=SC2046
        "$SPRAYSIM" -tm "$M/one.cm" -end 1 --quiet --no-progress --out "$T/o" $(echo "$tmpl" | sed "s/@/$v/") \
            >"$T/out" 2>"$T/err" </dev/null
        rc=$?
        refused=false
        grep -q -F -- "$name: '$v' is out of range" "$T/err" && refused=true
        if [ "$v" = "$lo" ] || [ "$v" = "$hi" ]; then
            if $refused || [ $rc -gt 2 ]; then
                why="$why $v: exit $rc, $(head -n 1 "$T/err");"
            fi
        elif ! $refused || [ $rc -ne 2 ] || [ "$(wc -l <"$T/err")" -ne 1 ]; then
            why="$why $v: exit $rc, want 2 and one line '$name: '$v' is out of range': $(head -n 2 "$T/err" | tr '\n' ' ');"
        fi
    done
    if [ -z "$why" ]; then
        echo "ok $name: [$lo, $hi] at both ends"
    else
        echo "FAIL $name:$why"
        nfail=$((nfail + 1))
    fi
}
range --random-failures 0 1 -0.0000001 1.0000001 --random-failures @
range -end 1e-6 1e9 0.99e-6 1.0000001e9 -end @
range -nodes 1 16777216 0 16777217 -nodes @
range -tiers 2 3 1 4 -tiers @
range -linkspeed 1 100000000 0 100000001 -linkspeed @
range -mtu 256 65535 255 65536 -mtu @
range -q 1 1000000 0 1000001 -q @
range "-ecn (low)" 1 1000000 0 1000001 -ecn @ 1000000
range "-ecn (high)" 1 1000000 0 1000001 -ecn 1 @
range "-timely_thresholds (low)" 1e-3 1e6 0.99e-3 1.0000001e6 --transport roce -timely -timely_thresholds @ 1e6
range "-timely_thresholds (high)" 1e-3 1e6 0.99e-3 1.0000001e6 --transport roce -timely -timely_thresholds 1e-3 @
range --pfc-deadlock-us 1e-3 1e9 0.99e-3 1.0000001e9 --transport roce --pfc-deadlock-us @
range -dcqcn 1 1000000 0 1000001 --transport roce -dcqcn @
range -cwnd 1 1000000 0 1000001 -cwnd @
range -paths 1 65536 0 65537 -paths @
range -seed 0 18446744073709551615 - 18446744073709551616 -seed @
range -use_reps 0 1 - 2 -use_reps @
range -target_q_delay 0.001 1e6 0.00099 1.0000001e6 -target_q_delay @
range -qa_gate 0 30 - 31 -qa_gate @
range -hop_latency 0 1e6 -0.0000001 1.0000001e6 -hop_latency @
range -switch_latency 0 1e6 -0.0000001 1.0000001e6 -switch_latency @
range -sack_threshold 1 1073741824 0 1073741825 -sack_threshold @
range --q3-pressure 0 0.5 -0.0000001 0.5000001 --q3-pressure @
range --ar-quantum 1 1073741824 0 1073741825 --routing ar --ar-quantum @
range -failed 0 1048576 - 1048577 -failed @
range --min-rto-us 0.001 1e9 0.00099 1.0000001e9 --min-rto-us @
range --detect-us 0 1e9 -0.0000001 1.0000001e9 --detect-us @
range --classes 2 8 1 9 --classes @
# htsim_uec's flags parsed with a range (options.c parse_htsim_flag): the
# flowlet gap in us, the logging period in ms (-logtime) and us
# (-logtime_us), the trimmed size in bytes (1 and 65535 pass the range and
# are then refused against the header and -mtu)
range -ar_sticky_delta 0 1e9 -0.0000001 1.0000001e9 -ar_sticky_delta @
range -logtime 1e-6 1e6 0.99e-6 1.0000001e6 -logtime @
range -logtime_us 1e-3 1e9 0.99e-3 1.0000001e9 -logtime_us @
range -trimsize 1 65535 0 65536 -trimsize @
# limits between two flags, at equality (taken) and one beyond (refused):
# a trimmed size up to -mtu, a class's ECN band with kmin = kmax, and its
# kmax up to its own queue
good "-trimsize 4150, the default -mtu" -trimsize 4150
bad "-trimsize 4151, one above -mtu" "-trimsize 4151: a trimmed packet keeps at least its 64-byte header and at most -mtu 4150" -trimsize 4151
good "--class-opt kmin = kmax" --classes 3 --class-opt 2:ecn_kmin_bytes=40000 --class-opt 2:ecn_kmax_bytes=40000
bad "--class-opt kmin one above kmax" "--class-opt 2:ecn_kmin_bytes=40001 exceeds 2:ecn_kmax_bytes=40000" --classes 3 --class-opt 2:ecn_kmin_bytes=40001 --class-opt 2:ecn_kmax_bytes=40000
good "--class-opt kmax = its queue" --classes 3 --class-opt 2:queue_bytes=60000 --class-opt 2:ecn_kmax_bytes=60000
bad "--class-opt kmax one above its queue" "--class-opt 2:ecn_kmax_bytes=60001 exceeds 2:queue_bytes=60000" --classes 3 --class-opt 2:queue_bytes=60000 --class-opt 2:ecn_kmax_bytes=60001
# --ts-* selections against the run (timeseries.c ts_setup): one.cm has
# one flow (id 1), 16 hosts and 96 ports; incast.cm 15 flows (ids 1-15);
# a window starts before -end
good "--ts-flows 1, the only flow" --ts-flows 1
bad "--ts-flows 2, no such flow" "--ts-flows: no flow has id 2" --ts-flows 2
good "--ts-ports 95, the last port" --ts-ports 95
bad "--ts-ports 96, one past the last" "--ts-ports: port 96 does not exist (this run has port 0 to 95)" --ts-ports 96
good "--ts-hosts 15, the last host" --ts-hosts 15
bad "--ts-hosts 16, one past the last" "--ts-hosts: host 16 does not exist (this run has host 0 to 15)" --ts-hosts 16
good "--ts-window starting before -end" --ts-hosts 0 --ts-window 0.999999:2
bad "--ts-window starting at -end" "--ts-window: START 1 us is not before -end 1 us" --ts-hosts 0 --ts-window 1:2
bad_tm() { # bad with incast.cm's 15 flows
    desc=$1 want=$2
    shift 2
    "$SPRAYSIM" -tm "$M/incast.cm" -end 1 --quiet --no-progress --out "$T/o" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$want" "$T/err"; then
        echo "ok $desc"
    else
        echo "FAIL $desc: exit $rc, $(head -2 "$T/err" | tr '\n' ' ') (want exit 2, one line with '$want')"
        nfail=$((nfail + 1))
    fi
}
if "$SPRAYSIM" -tm "$M/incast.cm" -end 1 --quiet --no-progress --out "$T/o" --ts-flows 1-15 >"$T/out" 2>"$T/err"; then
    echo "ok --ts-flows 1-15, every flow of incast.cm"
else
    echo "FAIL --ts-flows 1-15: exit $?, $(head -n 1 "$T/err")"
    nfail=$((nfail + 1))
fi
bad_tm "--ts-flows 1-16, one longer than the flows" "--ts-flows: the range 1-16 is longer than the 15 flows of the run" --ts-flows 1-16
bad_tm "--ts-flows 14-16, its last id no flow's" "--ts-flows: no flow has id 16" --ts-flows 14-16

[ "$nfail" -eq 0 ]
