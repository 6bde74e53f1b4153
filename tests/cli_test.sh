#!/bin/sh
# cli_test.sh: command-line tests of the spraysim binary. Run from the
# repository root by tests/run_all.sh as `sh tests/cli_test.sh`, with
#   SPRAYSIM  the binary (default bin/spraysim)
#   SHARED    the shared data directory (default ../shared)
# Prints one line per check, starting with "ok ", "FAIL " or, for a check that
# could not run here, "skip " (run_all.sh counts the three apart: a skipped
# check has not passed). Never stops early; exit status is non-zero when any
# check failed.
# POSIX sh only. Takes a few seconds.

SPRAYSIM=${SPRAYSIM:-bin/spraysim}
SHARED=${SHARED:-../shared}
M=$SHARED/data/htsim/matrices
TOPOS=$SHARED/data/htsim/topologies

# a relative binary path must survive no cd; make it absolute anyway
case $SPRAYSIM in
/*) ;;
*) SPRAYSIM=$(pwd)/$SPRAYSIM ;;
esac

T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-cli.XXXXXX") || { echo "FAIL mktemp -d"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM

nfail=0
ok() { echo "ok $*"; }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }
skip() { echo "skip $*"; }

# run NAME ARGS...: runs the simulator; status in $rc, outputs in $T/out, $T/err
run() {
    "$SPRAYSIM" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
}

# bad NAME PATTERN ARGS...: the run must exit 2 with exactly one stderr line,
# starting "spraysim: " and containing the fixed string PATTERN.
bad() {
    name=$1
    pat=$2
    shift 2
    run "$@"
    nl=$(wc -l <"$T/err" | tr -d ' ')
    first=$(head -n 1 "$T/err")
    if [ "$rc" -ne 2 ]; then
        fail "$name: exit status $rc, want 2 (stderr: $first)"
    elif [ "$nl" != 1 ]; then
        fail "$name: $nl lines on stderr, want 1: $(head -c 300 "$T/err" | tr '\n' '|')"
    elif [ "$(head -c 10 "$T/err")" != "spraysim: " ]; then
        fail "$name: stderr does not start with 'spraysim: ': $first"
    elif ! grep -F -q -e "$pat" "$T/err"; then
        fail "$name: stderr does not mention '$pat': $first"
    else
        ok "$name: exit 2, one line naming '$pat'"
    fi
}

# warns NAME PATTERN ARGS...: the run must exit 0 with one stderr line,
# "spraysim: warning: ..." containing PATTERN.
warns() {
    name=$1
    pat=$2
    shift 2
    run "$@"
    nl=$(wc -l <"$T/err" | tr -d ' ')
    if [ "$rc" -ne 0 ]; then
        fail "$name: exit status $rc, want 0 (stderr: $(head -n 1 "$T/err"))"
    elif [ "$nl" != 1 ] || [ "$(head -c 19 "$T/err")" != "spraysim: warning: " ]; then
        fail "$name: want one 'spraysim: warning:' line, got: $(head -c 300 "$T/err" | tr '\n' '|')"
    elif ! grep -F -q -e "$pat" "$T/err"; then
        fail "$name: warning does not mention '$pat': $(head -n 1 "$T/err")"
    else
        ok "$name: exit 0, one warning naming '$pat'"
    fi
}

# garbage N SEED: N deterministic pseudo-random bytes (all 256 values, NUL
# included) on stdout. A small LCG keeps every product exact in awk's doubles,
# so every awk produces the same bytes.
garbage() {
    printf "$(awk -v n="$1" -v s="$2" 'BEGIN {
        x = s
        for (i = 0; i < n; i++) { x = (x * 75 + 74) % 65537; printf "\\%03o", x % 256 }
    }')"
}
# the same without NUL bytes and newlines (one long line of binary text)
garbage_text() {
    printf "$(awk -v n="$1" -v s="$2" 'BEGIN {
        x = s
        for (i = 0; i < n; i++) {
            x = (x * 75 + 74) % 65537; b = x % 256
            if (b == 0 || b == 10 || b == 37 || b == 92) b = 32
            printf "\\%03o", b
        }
    }')"
}

if [ ! -x "$SPRAYSIM" ]; then
    fail "binary $SPRAYSIM is missing or not executable (run make)"
fi
if [ ! -f "$M/one.cm" ]; then
    fail "shared data missing: $M/one.cm (set SHARED)"
fi

# ---------------------------------------------------------------- htsim's per-flow lines
run -tm "$M/bidir.cm" --htsim-output
n=$(grep -c " finished at " "$T/out")
t=$(grep " finished at " "$T/out" | head -1 | awk '{print $9}')
if [ "$rc" -eq 0 ] && [ "$n" = 2 ] && [ "$(grep " finished at " "$T/out" | head -1 | awk '{print $8}')" = "at" ] &&
    awk -v t="$t" 'BEGIN { exit !(t > 176 && t < 178) }'; then
    ok "--htsim-output: two 'finished at' lines, time in field 9 (htsim's items[8])"
else
    fail "--htsim-output: rc $rc, $n finished lines, time '$t'"
fi
# EQDS's line (htsim eqds.cpp's) gives the finish time of flows.csv, in us
run -tm "$M/one.cm" --transport eqds --htsim-output --out "$T/hq"
t=$(grep "^Flow Eqds_0_13 flowId 1 eqdsSrc 0 finished at " "$T/out" | awk '{print $9}')
f=$(awk -F, 'NR == 2 {print $6}' "$T/hq/flows.csv" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ -n "$t" ] && awk -v t="$t" -v f="$f" 'BEGIN { exit !(t - f < 0.001 && f - t < 0.001 && f > 0) }'; then
    ok "--htsim-output with EQDS: its 'finished at' time is flows.csv's finish_us"
else
    fail "--htsim-output with EQDS: rc $rc, time '$t', flows.csv finish_us '$f'"
fi
# and its 'starting at' line the flow's start, in us (a flow starting at
# 7 us: 0 would read the same in any unit)
printf 'Nodes 16\nConnections 1\n0->13 start 7 size 4000\n' >"$T/start7.cm"
run -tm "$T/start7.cm" --transport eqds --htsim-output --out "$T/hq7"
t=$(grep "^Flow Eqds_0_13 flowId 1 eqdsSrc 0 starting at " "$T/out" | awk '{print $9}')
f=$(awk -F, 'NR == 2 {print $5}' "$T/hq7/flows.csv" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ "$t" = 7 ] && [ "$f" = 7.000000 ]; then
    ok "--htsim-output with EQDS: its 'starting at' time is the flow's start in us"
else
    fail "--htsim-output with EQDS: rc $rc, starting at '$t', flows.csv start_us '$f' (want 7)"
fi

# ---------------------------------------------------------------- bad input
bad "unknown flag" "-bogus" -tm "$M/one.cm" -bogus
# a mistyped flag gets the nearest of --help's flags; a far one gets none
bad "unknown flag: did you mean (one letter more)" "unknown flag '-endd'; did you mean -end?" -tm "$M/one.cm" -endd 5
bad "unknown flag: did you mean (one letter less, a short name)" "unknown flag '--ot'; did you mean --out?" -tm "$M/one.cm" --ot x
bad "unknown flag: did you mean (two letters swapped)" "did you mean --workload?" --workloda perm:n=16,size=100
bad "unknown flag: did you mean (htsim's spelling of a long flag)" "did you mean -sender_cc_only?" -tm "$M/one.cm" --sender-cc-only
bad "unknown flag: did you mean (native spelling with underscores)" "did you mean --cc-opt?" -tm "$M/one.cm" --cc_opt x=1
# names come from the option table, aliases included; of two as near, the
# one with the mistyped flag's dashes (--out and its alias -out)
bad "unknown flag: did you mean (an alias, single dash)" "did you mean -out?" -tm "$M/one.cm" -outt x
bad "unknown flag: did you mean (an alias, two dashes)" "did you mean --out?" -tm "$M/one.cm" --outt x
bad "unknown flag: did you mean (an htsim flag --help once listed only mid-line)" "did you mean -conn_reuse?" -tm "$M/one.cm" -conn_reus
run -tm "$M/one.cm" --xyzzy
if [ "$rc" -eq 2 ] && grep -q "unknown flag '--xyzzy' (see --help)" "$T/err"; then
    ok "unknown flag: nothing near, no suggestion"
else
    fail "unknown flag far from every flag: exit $rc, $(head -1 "$T/err")"
fi
bad "flag missing its value" "-paths" -tm "$M/one.cm" -paths
bad "non-numeric value" "-paths" -tm "$M/one.cm" -paths abc
printf 'Nodes 16\nConnections 1\n0->5 start 0 size 1000 lb nosuch\n' >"$T/lbx.cm"
bad "unknown per-connection balancer" "lbx.cm:3:" -tm "$T/lbx.cm"
printf 'Nodes 16\nConnections 1\n0->5 start 0 size 1000 class 2\n' >"$T/cls.cm"
bad "traffic class out of range" "cls.cm:3:" -tm "$T/cls.cm"
printf 'Nodes 16\nConnections 1\nFailures 1\n0->5 start 0 size 1000\nfailure link tor0 agg7 down at 10\n' >"$T/fl.cm"
bad "failure naming a missing link" "fl.cm:5:" -tm "$T/fl.cm"
# a core's link ids run 0..k-1 (issue 26: link_id == k accepted survived
# as a mutant of failures.c's bound); k-1 is the last one that exists
printf 'Nodes 16\nConnections 1\nFailures 1\n0->5 start 0 size 1000\nfailure switch_type CORE switch_id 0 link_id 4\n' >"$T/fc4.cm"
bad "failure naming core link k" "fc4.cm:5: core 0 has 4 links; link_id 4 does not exist" -tm "$T/fc4.cm"
printf 'Nodes 16\nConnections 1\nFailures 1\n0->5 start 0 size 1000\nfailure switch_type CORE switch_id 0 link_id 3\n' >"$T/fc3.cm"
run -tm "$T/fc3.cm" --quiet
if [ "$rc" -eq 0 ]; then ok "failure naming core link k-1 runs"; else fail "core link_id 3 of 4: exit $rc"; fi
printf 'Nodes 16\nConnections 1\nFailures 1\n0->5 start 0 size 1000\nfailure link tor0 agg0 down at 5000\n' >"$T/ft.cm"
warns "failure time after -end" "ft.cm:5: the event at 5000 us is at or after -end 1000 us" -tm "$T/ft.cm"
warns "--fail at exactly -end" "--fail: the event at 1000 us is at or after -end 1000 us" -tm "$M/one.cm" --fail "link tor0 agg0 down at 1000"
bad "failure rate above the link's" "--fail" -tm "$M/one.cm" --fail "link tor0 agg0 rate 400"
bad "failure rate of zero" "--fail" -tm "$M/one.cm" --fail "link tor0 agg0 rate 0"
bad "unknown switch scheduler" "--sched" -tm "$M/one.cm" --sched wfq
bad "unknown routing mode" "--routing" -tm "$M/one.cm" --routing spray
bad "unknown cc option" "--cc-opt" -tm "$M/one.cm" --cc-opt nosuch=1
bad "out-of-range -paths 0" "-paths" -tm "$M/one.cm" -paths 0
bad "out-of-range -qa_gate 99" "-qa_gate" -tm "$M/one.cm" -qa_gate 99
bad "-tm of a nonexistent file" "$T/nonexistent.cm" -tm "$T/nonexistent.cm"
bad "no -tm at all" "-tm" -paths 8
bad "negative -end" "-end" -tm "$M/one.cm" -end -5
bad "-ecn missing its second value" "-ecn" -tm "$M/one.cm" -ecn 5

printf 'Nodes 16\nConnections 2\n0->99 start 0 size 10\n1->2 start 0 size 10\n' >"$T/x.cm"
bad ".cm bad connection line" "$T/x.cm:3:" -tm "$T/x.cm"

printf 'Nodes 16\nConnections 3\n0->1 start 0 size 10\n1->2 start 0 size 10\n' >"$T/count.cm"
bad ".cm Connections count disagrees" "$T/count.cm:" -tm "$T/count.cm"

printf 'Nodes 16\nTiers 2\nPodsize 16\n\nTier 0\nBogus_key 3\n' >"$T/bad.topo"
bad ".topo unknown key" "$T/bad.topo:6:" -tm "$M/one.cm" -topo "$T/bad.topo"

bad ".topo Nodes disagrees with .cm" "Nodes" -tm "$M/one.cm" -topo "$TOPOS/leaf_spine_tiny.topo"
bad "-nodes disagrees with .cm" "-nodes" -tm "$M/one.cm" -nodes 32
bad "-ecn low > high" "-ecn" -tm "$M/one.cm" -ecn 30 10
bad "-ecn high above -q" "-ecn" -tm "$M/one.cm" -ecn 10 60 -q 40
bad "--cc unknown" "--cc" -tm "$M/one.cm" --cc nosuchcc
bad "--lb unknown" "--lb" -tm "$M/one.cm" --lb nosuchlb
bad "--cc=unknown" "--cc" -tm "$M/one.cm" --cc=nosuchcc

printf 'Nodes 17\nConnections 1\n0->1 start 0 size 10\n' >"$T/n17.cm"
bad ".cm Nodes 17 fits no fat tree" "$T/n17.cm" -tm "$T/n17.cm"

: >"$T/empty.cm"
bad "empty .cm" "$T/empty.cm" -tm "$T/empty.cm"

garbage 2000 42 >"$T/garbage.cm"
if [ "$(wc -c <"$T/garbage.cm" | tr -d ' ')" = 2000 ]; then
    ok "garbage generator wrote 2000 bytes"
else
    fail "garbage generator wrote $(wc -c <"$T/garbage.cm") bytes, want 2000"
fi
bad "binary-garbage .cm" "$T/garbage.cm" -tm "$T/garbage.cm"

garbage_text 2000 7 >"$T/garbage2.cm"
bad "binary-garbage .cm without NUL bytes" "$T/garbage2.cm:1:" -tm "$T/garbage2.cm"

{
    printf 'Nodes 16\nConnections 4\n'
    garbage_text 1000 9
} >"$T/garbage3.cm"
bad "valid header then binary garbage" "$T/garbage3.cm:3:" -tm "$T/garbage3.cm"

# ---------------------------------------------------------------- audit findings (issue 7)
bad "--out ''" "--out: empty directory name" -tm "$M/one.cm" --out ''
: >"$T/afile"
bad "--out naming a regular file" "exists and is not a directory" -tm "$M/one.cm" --out "$T/afile"
mkdir -p "$T/mine" && echo keep >"$T/mine/notes.txt"
bad "--out into a directory with other files" "'notes.txt', which is not a spraysim output" -tm "$M/one.cm" --out "$T/mine"
if [ "$(cat "$T/mine/notes.txt")" = keep ]; then ok "--out refused: the user's file is untouched"; else fail "--out refused but notes.txt changed"; fi
bad "--out . is refused" "name a directory of its own" -tm "$M/one.cm" --out .
printf 'Nodes 16\nConnections 1\n0->5 start 0 size 18446744073709551615\n' >"$T/huge.cm"
bad "size 2^64-1 (was a 0-packet flow)" "huge.cm:3: size 18446744073709551615 needs more than 2^31 packets" -tm "$T/huge.cm"
# the packet count's limit at both ends (-mtu 256: 192-byte payloads):
# 2^31 - 1 packets run, 2^31 are refused (issue 26: the limit moved to
# 2^32 - 2 survived)
printf 'Nodes 16\nConnections 1\n0->5 start 0 size 412316860224\n' >"$T/p31.cm"
run -tm "$T/p31.cm" -mtu 256 -end 1
if [ "$rc" -eq 0 ]; then ok "a message of 2^31 - 1 packets is taken"; else fail "2^31 - 1 packets: rc $rc, $(head -n 1 "$T/err")"; fi
printf 'Nodes 16\nConnections 1\n0->5 start 0 size 412316860416\n' >"$T/p31.cm"
bad "a message of 2^31 packets" "p31.cm:3: size 412316860416 needs more than 2^31 packets" -tm "$T/p31.cm" -mtu 256 -end 1
bad "-tm /dev/zero (was read until memory ran out)" "/dev/zero:1: contains a NUL byte" -tm /dev/zero
bad "-end 0x10 (hex was accepted)" "-end: '0x10' is not a number" -tm "$M/one.cm" -end 0x10
bad "-end ' 100' (blank was accepted)" "-end: ' 100' is not a number" -tm "$M/one.cm" -end ' 100'
bad "-end inf" "-end: 'inf' is not a number" -tm "$M/one.cm" -end inf
bad "-paths +5" "-paths: '+5' is not a non-negative whole number" -tm "$M/one.cm" -paths +5
bad "a newline inside a flag value stays on one line" "--routing: 'a?b' is not ecmp" -tm "$M/one.cm" --routing "$(printf 'a\nb')"
printf 'Nodes 16\nTiers 2\nPodsize 16\n\nTier 0\nRadix_\033[31mDown 3\n' >"$T/esc.topo"
bad ".topo escape bytes are not echoed" "unknown attribute 'radix_?[31mdown'" -tm "$M/one.cm" -topo "$T/esc.topo"
if grep -q "$(printf '\033')" "$T/err"; then fail ".topo error line carries an ESC byte"; else ok ".topo error line carries no ESC byte"; fi
bad "-topo naming a directory gives the reason" "Is a directory" -tm "$M/one.cm" -topo "$T"
bad "-hop_latency 1e6 blames the latencies, not -q" "-hop_latency, -switch_latency and -linkspeed give a base RTT" -tm "$M/one.cm" -hop_latency 1e6
bad "-q 1 alone blames -q, not -ecn" "-q 1: the queue is smaller than the default ECN high threshold" -tm "$M/one.cm" -q 1
bad "-linkspeed 4000000000 is out of range" "-linkspeed: '4000000000' is out of range" -tm "$M/one.cm" -linkspeed 4000000000
bad "-failed beyond the links the rule applies to" "-failed 1048576: this topology has only 16 aggregation-core links" -tm "$M/one.cm" -failed 1048576
sed 's/^Tier 0$/Queue_Down 1\nTier 0/' "$TOPOS/fat_tree_128_1os.topo" >/dev/null 2>&1
printf 'Nodes 16\nTiers 2\nPodsize 16\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\nQueue_Down 1\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n' >"$T/q1.topo"
bad "per-tier Queue_Down 1 (nothing deliverable)" "q1.topo:9: Queue_Down 1 bytes of tier 0 is smaller than one packet" -tm "$M/one.cm" -topo "$T/q1.topo"
printf 'Nodes 16\nTiers 2\nPodsize 16\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\nQueue_Down 50000\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\n' >"$T/q5.topo"
run -tm "$M/one.cm" -topo "$T/q5.topo" --out "$T/q5"
if [ "$rc" -eq 0 ] && grep -q "queues by tier (down/up B): tier 0 50000/" "$T/out" &&
    grep -q '"queue_bytes_by_tier": \[{"tier": 0, "down": 50000, ' "$T/q5/summary.json"; then
    ok "a .topo Queue_Down shows in the summary and summary.json"
else
    fail "a .topo Queue_Down is not reported: rc $rc, $(grep -i queue "$T/out" | head -2 | tr '\n' '|')"
fi
# one connection's end starts N - 1 others through a oneshot trigger: every
# connection finishes, for connection counts whose per-connection tables
# end exactly at a heap chunk's end (2, 6, 14, 22: 4N bytes = 8 mod 16)
trig_ok=""
for n in 2 6 14 22; do
    {
        printf 'Nodes 16\nConnections %d\nTriggers 1\n0->1 id 1 start 0 size 1000 send_done_trigger 1\n' "$n"
        i=2
        while [ "$i" -le "$n" ]; do
            printf '%d->%d id %d trigger 1 size 1000\n' $((i % 16)) $(((i + 1) % 16)) "$i"
            i=$((i + 1))
        done
        printf 'trigger id 1 oneshot\n'
    } >"$T/trig$n.cm"
    run -tm "$T/trig$n.cm"
    [ "$rc" -eq 0 ] && grep -q "$n of $n finished" "$T/out" && trig_ok="$trig_ok $n"
done
if [ "$trig_ok" = " 2 6 14 22" ]; then
    ok "a oneshot trigger starting N - 1 connections: all N finish (N = 2, 6, 14, 22)"
else
    fail "a oneshot trigger starting N - 1 connections: only N =$trig_ok ran to the end"
fi
printf 'Nodes 16\nConnections 2\nTriggers 1\n0->1 start 0 size 1000\n1->2 trigger 1 size 1000\ntrigger id 1 oneshot\n' >"$T/never.cm"
bad "a trigger nothing fires (connection silently never started)" "never.cm:5: trigger 1 can never fire" -tm "$T/never.cm"
printf 'Nodes 16\nConnections 2\n0->1 start 0 size 1000\n1->2 start 2000 size 10\n' >"$T/late.cm"
warns "a start after -end" "late.cm:4: 1 connection starts at or after -end 1000 us" -tm "$T/late.cm"
bad "--fail out of time order" "'up at 10' comes after 'down at 50'" -tm "$M/one.cm" --fail "link tor0 agg0 down at 50 up at 10"
bad "--fail delay 1e20" "'delay' needs a number from 0 to 1e+09" -tm "$M/one.cm" --fail "link tor0 agg0 delay 1e20"
bad "--fail at 1e300 (printed 300 digits)" "'at' needs a time from 0 to 1e+09" -tm "$M/one.cm" --fail "link tor0 agg0 down at 1e300"

# Unreachable receiver (issue 20 item 6): host 13's only link is down from
# t=0, so nothing the sender sends is ever answered. A transport that gives
# up, backs off or retries at a fixed period adds a bounded number of events
# per period: over [T,2T] and [2T,4T] (here 20 ms and 40 ms, about 20 to
# 80 timeouts of 0.2-1 ms) the events grow by d1 and d2 with d2 = 2 x d1 up to
# one period's rounding, and d2 = d1 = 0 once it gave up. A sender that gains
# a live timer per timeout (EQDS did: each expiry that looked again at once
# left the RTS's timer running too) has events growing with t^2, so
# d2 = (4^2 - 2^2) / (2^2 - 1) x d1 = 4 x d1. The bound 3 x d1 sits between.
events_until() { # events_until END_US ARGS...: the summary's event count
    e=$1
    shift
    "$SPRAYSIM" -tm "$M/one.cm" --fail "link host13 tor6 down" -end "$e" --no-progress "$@" 2>/dev/null |
        sed -n 's/^run: .*, \([0-9][0-9]*\) events, .*/\1/p'
}
for tp in "--transport uet" "--transport uet -receiver_cc_only" "--transport eqds" "--transport eqds -sender_cc" \
    "--transport sird" "--transport homa" "--transport roce"; do
    # shellcheck disable=SC2086 # the transport's flags split on purpose
    e1=$(events_until 20000 $tp)
    # shellcheck disable=SC2086
    e2=$(events_until 40000 $tp)
    # shellcheck disable=SC2086
    e4=$(events_until 80000 $tp)
    if [ -z "$e1" ] || [ -z "$e2" ] || [ -z "$e4" ]; then
        fail "unreachable host, $tp: no event count (runs gave '$e1' '$e2' '$e4')"
    elif [ $((e4 - e2)) -le $((3 * (e2 - e1))) ]; then
        ok "unreachable host, $tp: events at 20/40/80 ms $e1/$e2/$e4 grow at most linearly"
    else
        fail "unreachable host, $tp: events at 20/40/80 ms $e1/$e2/$e4 grow faster than linearly"
    fi
done

# Contradictory or ignored options (issue 20 item 5): refused with one line
# naming the flags, or (an option the transport has no use for, as EQDS and
# Homa say of --cc) one warning.
bad "-tiers with -topo" "-tiers: only for the default fat tree; -topo" -tm "$M/perm_128n_128c_2MB.cm" -topo "$TOPOS/fat_tree_128_1os.topo" -tiers 2
bad "-hop_latency with -topo" "-hop_latency: only for the default fat tree" -tm "$M/perm_128n_128c_2MB.cm" -topo "$TOPOS/fat_tree_128_1os.topo" -hop_latency 2
bad "-switch_latency with -topo" "-switch_latency: only for the default fat tree" -tm "$M/perm_128n_128c_2MB.cm" -topo "$TOPOS/fat_tree_128_1os.topo" -switch_latency 2
bad "-pfc_thresholds without PFC" "-pfc_thresholds: PFC is off in this run" -tm "$M/one.cm" -pfc_thresholds 10 20
bad "-pfc_thresholds with --pfc off" "-pfc_thresholds: PFC is off in this run" -tm "$M/one.cm" --transport roce --pfc off -pfc_thresholds 10 20
bad "--pfc-deadlock-us without PFC" "--pfc-deadlock-us: PFC is off in this run" -tm "$M/one.cm" --pfc-deadlock-us 100
bad "-timely_thresholds without -timely" "-timely_thresholds: TIMELY's thresholds; add -timely" -tm "$M/one.cm" --transport roce -timely_thresholds 3 100
bad "--drr-quantum without DRR" "--drr-quantum: the quantum of DRR; add --sched drr" -tm "$M/one.cm" --drr-quantum 5000
bad "--ar-quantum without adaptive routing" "--ar-quantum: the unit adaptive routing compares queues in; add --routing ar" -tm "$M/one.cm" --ar-quantum 3000
bad "--class-opt kmin > kmax" "--class-opt 2:ecn_kmin_bytes=50000 exceeds 2:ecn_kmax_bytes=40000" -tm "$M/one.cm" --classes 3 --class-opt 2:ecn_kmin_bytes=50000 --class-opt 2:ecn_kmax_bytes=40000
bad "--class-opt kmin above class 1's kmax" "--class-opt 2:ecn_kmin_bytes=150000 exceeds class 1's ECN high threshold of 145250 bytes" -tm "$M/one.cm" --classes 3 --class-opt 2:ecn_kmin_bytes=150000
bad "--class-opt kmax below class 1's kmin" "--class-opt 2:ecn_kmax_bytes=30000 is below class 1's ECN low threshold of 37350 bytes" -tm "$M/one.cm" --classes 3 --class-opt 2:ecn_kmax_bytes=30000
bad "--class-opt thresholds of a class without ECN" "--class-opt 2:ecn_kmin_bytes: class 2 marks no ECN (2:ecn=0)" -tm "$M/one.cm" --classes 3 --class-opt 2:ecn=0 --class-opt 2:ecn_kmin_bytes=4000
bad "--class-opt queue of a lossless class" "--class-opt 2:queue_bytes: class 2 is lossless" -tm "$M/one.cm" --classes 3 --class-opt 2:lossless=1 --class-opt 2:queue_bytes=40000
bad "--class-opt trim on a lossless class" "--class-opt 2:trim=1 and 2:lossless=1" -tm "$M/one.cm" --classes 3 --class-opt 2:lossless=1 --class-opt 2:trim=1
bad "--class-opt kmax above its queue" "--class-opt 2:ecn_kmax_bytes=50000 exceeds 2:queue_bytes=40000" -tm "$M/one.cm" --classes 3 --class-opt 2:queue_bytes=40000 --class-opt 2:ecn_kmax_bytes=50000
bad "poisson incast_senders without incast" "incast_senders is for the incast overlay: give incast=F" --workload "poisson:cdf=$SHARED/data/workloads/websearch.cdf,load=0.3,n=8,incast_senders=4" -tiers 2
bad "poisson incast_bytes with incast=0" "incast_bytes is for the incast overlay" --workload "poisson:cdf=$SHARED/data/workloads/websearch.cdf,load=0.3,n=8,incast=0,incast_bytes=1000" -tiers 2
warns "--cc with SIRD" "--cc swift has no effect on SIRD" -tm "$M/one.cm" --transport sird --cc swift --quiet
warns "--cc with RoCE" "--cc nscc has no effect on RoCE" -tm "$M/one.cm" --transport roce --cc nscc --quiet
# the UET line in a class of its own (priority 2): UET and SIRD cannot share a class (tests/contract_test.sh)
printf 'Nodes 16\nConnections 2\n0->13 start 0 size 20000 transport uet priority 2\n1->12 start 0 size 20000\n' >"$T/mixcc.cm"
run -tm "$T/mixcc.cm" --transport sird --cc swift --classes 3 --quiet
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ]; then ok "--cc in a SIRD run with a UET connection: no warning"; else fail "--cc, SIRD run with a UET line: rc $rc, $(head -n 1 "$T/err")"; fi
run -tm "$M/one.cm" --transport roce --cc dcqcn -dcqcn 10 --quiet
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ]; then ok "--cc dcqcn with RoCE: no warning"; else fail "--cc dcqcn with RoCE: rc $rc, $(head -n 1 "$T/err")"; fi
# issue 20: an option that no connection's transport (or balancer) reads
# warns once, naming the flag and the transports the run uses
warns "-sleek without UET" "-sleek has no effect: no connection of this run uses uet (its transports: sird)" -tm "$M/one.cm" --transport sird -sleek --quiet
warns "--loss-detect without UET" "--loss-detect has no effect: no connection of this run uses uet (its transports: eqds)" -tm "$M/one.cm" --transport eqds --loss-detect sack --quiet
warns "-cwnd without a sender window" "-cwnd has no effect: no connection of this run uses uet or eqds or ndp (its transports: homa)" -tm "$M/one.cm" --transport homa -cwnd 10 --quiet
warns "-sender_cc_only on RoCE" "-sender_cc_only has no effect: no connection of this run uses uet or eqds (its transports: roce)" -tm "$M/one.cm" --transport roce -sender_cc_only --quiet
warns "-receiver_cc on SIRD" "-receiver_cc has no effect: no connection of this run uses uet or eqds (its transports: sird)" -tm "$M/one.cm" --transport sird -receiver_cc --quiet
warns "-recv_oversub_cc without EQDS" "-recv_oversub_cc has no effect: no connection of this run uses eqds (its transports: uet)" -tm "$M/one.cm" -recv_oversub_cc --quiet
warns "-force_disable_oversubscribed_cc without UET" "-force_disable_oversubscribed_cc has no effect: no connection of this run uses uet (its transports: eqds)" -tm "$M/one.cm" --transport eqds -force_disable_oversubscribed_cc --quiet
warns "--reps-buffer without REPS" "--reps-buffer has no effect: no connection of this run uses the reps balancer (its balancers: oblivious)" -tm "$M/one.cm" --lb oblivious --reps-buffer 4 --quiet
# each balancer named once, however many connections use it (issue 26:
# the "seen before" test flipped listed it per connection, unnoticed with
# one connection)
warns "--reps-buffer without REPS, 16 connections" "(its balancers: oblivious)" -tm "$M/perm_16n_16c_2MB.cm" --lb oblivious --reps-buffer 4 --quiet -end 1
warns "--no-reps-freeze without REPS" "--no-reps-freeze has no effect: no connection of this run uses the reps balancer (its balancers: single)" -tm "$M/one.cm" --transport roce --no-reps-freeze --quiet
warns "-sack_threshold without UET or EQDS" "-sack_threshold has no effect: no connection of this run uses uet or eqds (its transports: sird)" -tm "$M/one.cm" --transport sird -sack_threshold 8192 --quiet
printf 'Nodes 16\nConnections 1\n0->13 start 0 size 20000 transport uet\n' >"$T/uetline.cm"
warns "-out_of_order, RoCE run of UET lines" "-out_of_order has no effect: no connection of this run uses roce (its transports: uet)" -tm "$T/uetline.cm" --transport roce --pfc off -out_of_order --quiet
warns "-timely, RoCE run of UET lines" "-timely has no effect: no connection of this run uses roce (its transports: uet)" -tm "$T/uetline.cm" --transport roce --pfc off -timely --quiet
# a .cm line that picks a transport or balancer reading them: no warning
printf 'Nodes 16\nConnections 3\n0->13 start 0 size 20000 transport uet lb reps priority 2\n1->12 start 0 size 20000\n2->11 start 0 size 20000 transport eqds priority 3\n' >"$T/mixopts.cm"
run -tm "$T/mixopts.cm" --transport sird --classes 4 --lb oblivious -sleek -cwnd 10 -sender_cc --loss-detect sack -oversubscribed_cc -recv_oversub_cc -sack_threshold 8192 --reps-buffer 4 --no-reps-freeze --quiet
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ]; then ok "options read by one .cm line's transport or balancer: no warning"; else fail "mixed .cm with per-line transports and lb: rc $rc, $(head -n 1 "$T/err")"; fi
printf '5 1\n' >"$T/five.cdf"
warns "poisson load beyond the links once headers count" "load 0.5 (payload) is 6.9 times the host links' rate once each packet's 64-byte header counts" --workload "poisson:cdf=$T/five.cdf,load=0.5,n=8" -tiers 2 -end 2 --quiet
run --workload "poisson:cdf=$SHARED/data/workloads/google_all_rpc.cdf,load=0.9,n=8" -tiers 2 -end 2 --quiet
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ]; then ok "poisson at 0.98 of the links with headers: no warning"; else fail "poisson load 0.9: rc $rc, $(head -n 1 "$T/err")"; fi

# a flow unfinished at -end counts in the FCT figures at the run's end (a
# lower bound, flagged), never dropped: one.cm's flow starts at 0
run -tm "$M/one.cm" -end 5 --out "$T/none"
if [ "$rc" -eq 0 ] && grep -q "^FCT: median 5.000 us, p99 5.000 us, max 5.000 us, mean 5.000 us (1 message, 1 unfinished counted at the run's end: lower bounds)" "$T/out" &&
    grep -q '"fct_n": 1, "fct_unfinished": 1, "fct_lower_bound": true, "fct_median_us": 5.000000, "fct_p99_us": 5.000000' "$T/none/summary.json" &&
    [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^spraysim: warning: unfinished messages counted at the run's end (5.000 us), so these figures are lower bounds: FCT 1 of 1 message$" "$T/err"; then
    ok "no finished flow: FCT figures count it at the run's end (5 us, flagged lower bounds), one warning line"
else
    fail "no finished flow: rc $rc, $(grep FCT "$T/out"), $(grep -o '"fct_n.*' "$T/none/summary.json"), stderr $(head -c 200 "$T/err")"
fi
# --quiet prints no figure, so it warns of none (summary.json still flags them)
run -tm "$M/one.cm" -end 5 --quiet --out "$T/noneq"
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] && grep -q '"fct_lower_bound": true' "$T/noneq/summary.json"; then
    ok "no finished flow with --quiet: no warning, summary.json flags the lower bound"
else
    fail "no finished flow with --quiet: rc $rc, stderr $(head -c 200 "$T/err")"
fi
# no message started at all: no FCT figure exists (null, never 0)
printf 'Nodes 16\nConnections 1\n0->1 start 2000 size 10\n' >"$T/nostart.cm"
run -tm "$T/nostart.cm" --out "$T/nostart"
if [ "$rc" -eq 0 ] && grep -q "^FCT: n/a (no message started)" "$T/out" &&
    grep -q '"not_started": 1, "fct_n": 0, "fct_unfinished": 0, "fct_lower_bound": false, "fct_median_us": null, "fct_p99_us": null' "$T/nostart/summary.json"; then
    ok "no message started: stdout n/a, summary.json null"
else
    fail "no message started: rc $rc, $(grep FCT "$T/out"), $(grep -o '"not_started.*' "$T/nostart/summary.json")"
fi
run -tm "$M/one.cm" --cc mswift --cc-opt percentile=50 --cc-opt percentile=90 --out "$T/rep"
n=$(grep -o '"percentile"' "$T/rep/summary.json" 2>/dev/null | wc -l | tr -d ' ')
# the whole object: the option and nothing after it (issue 26: the loop
# running one entry past the options, adding '"": 0', went unnoticed)
if [ "$rc" -eq 0 ] && [ "$n" = 1 ] && grep -qF '"cc_options": {"percentile": 90}}' "$T/rep/summary.json"; then
    ok "a repeated --cc-opt: the last value, recorded once"
else
    fail "a repeated --cc-opt: rc $rc, $n keys, $(grep -o '"cc_options".*' "$T/rep/summary.json")"
fi
bad "--cc-opt fraction for a count" "--cc-opt history=2.5: must be a whole number from 0 to 1024" -tm "$M/one.cm" --cc mswift --cc-opt history=2.5
bad "--cc-opt huge count (UB before)" "--cc-opt retx_reset=1e+17: must be a whole number" -tm "$M/one.cm" --cc swift --cc-opt retx_reset=1e17
bad "--cc-opt checked at setup, before any flow starts" "--cc-opt fs_min_cwnd/fs_max_cwnd" -tm "$T/late.cm" -end 1 --cc swift --cc-opt fs_min_cwnd=5 --cc-opt fs_max_cwnd=1
bad "smartt: two single-signal modes at once" "--cc-opt ecn_only=1 and delay_only=1: choose one signal" -tm "$T/late.cm" -end 1 --cc smartt --cc-opt ecn_only=1 --cc-opt delay_only=1
run --version
if [ "$rc" -eq 0 ] && grep -q "^spraysim [0-9][0-9.]* (commit [0-9a-z-]*)$" "$T/out"; then
    ok "--version: 'spraysim X.Y.Z (commit ...)'"
else
    fail "--version: rc $rc, '$(head -n 1 "$T/out")'"
fi
if grep -q '"version": "' "$T/one/summary.json" 2>/dev/null || { run -tm "$M/one.cm" --out "$T/ver" && grep -q '"commit": "' "$T/ver/summary.json"; }; then
    ok "summary.json records the version and commit"
else
    fail "summary.json lacks version/commit"
fi
# regression: under clang's UBSan (make asan-clang) the event queue took an
# offset from a NULL array whenever the first event came after t=0
printf 'Nodes 16\nConnections 1\n0->1 start 5 size 1000\n' >"$T/s5.cm"
run -tm "$T/s5.cm"
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q "1 of 1 finished" "$T/out"; then
    ok "a matrix whose first event is after t=0 runs clean"
else
    fail "first event after t=0: rc $rc, $(head -c 200 "$T/err")"
fi
sh tools/gen_cm.sh perm 4 5000000000 3 >"$T/g5g.cm"
if [ "$(sed -n 3p "$T/g5g.cm")" = "0->1 id 1 start 0 size 5000000000" ] || grep -q "size 5000000000$" "$T/g5g.cm"; then
    ok "gen_cm.sh keeps sizes above 2^31-1"
else
    fail "gen_cm.sh changed a 5 GB size: $(sed -n 3p "$T/g5g.cm")"
fi
if sh tools/gen_cm.sh perm 999999999999 5 3 >/dev/null 2>&1; then
    fail "gen_cm.sh accepted N with 12 digits (shell arithmetic overflows)"
else
    ok "gen_cm.sh refuses N beyond its exact arithmetic"
fi
# -q inf and --switch-stats (seed 001's infinite buffers and ToR queuing)
run -tm "$M/incast.cm" -q inf --switch-stats -end 5000 --out "$T/inf"
if [ "$rc" -eq 0 ] && grep -q "queue inf" "$T/out" && grep -q "0 trims, 0 bounced, 0 drops" "$T/out" &&
    grep -q '"queue_bytes": null' "$T/inf/summary.json" && [ "$(wc -l <"$T/inf/switches.csv" | tr -d ' ')" = 21 ] &&
    grep -q '"switch_buffers": \[{"kind": "tor", "switches": 8, ' "$T/inf/summary.json" &&
    grep -q '"switch_buffers": \[{"kind": "tor", [^]]*}, {"kind": "agg", "switches": 8, [^]]*}, {"kind": "core", "switches": 4, ' "$T/inf/summary.json"; then
    ok "-q inf: nothing trimmed or dropped; --switch-stats writes switches.csv (20 switches) and switch_buffers (tor, agg, core in order)"
else
    fail "-q inf --switch-stats: rc $rc, $(grep -E 'network|packets' "$T/out" | tr '\n' '|')"
fi
run -tm "$M/one.cm" --out "$T/inf"
if [ "$rc" -eq 0 ] && [ ! -e "$T/inf/switches.csv" ]; then
    ok "a rerun without --switch-stats replaces the set, switches.csv included"
else
    fail "rerun into a directory with switches.csv: rc $rc, $(head -n 1 "$T/err")"
fi
bad "-q with neither a count nor inf" "-q: 'infinite' is not a non-negative whole number" -tm "$M/one.cm" -q infinite
# an endless line (no newline for over 1 MiB) stops at the line cap, not at memory's end
{ printf 'Nodes 16\nConnections 1\n'; head -c 1100000 /dev/zero | tr '\000' 'x'; } >"$T/longline.cm"
bad "a .cm line over 1 MiB" "longline.cm:3: line longer than 1048576 bytes" -tm "$T/longline.cm"
# seed 001's balanced network (experiments/sird_balanced_144.topo, used by
# make bench-poisson) derives as specs/sird.md Sec. 2.1 says: 144 hosts, 9 ToRs
# + 4 spines, 2 tiers; a short WKb run at 50% with -q inf drops nothing
if [ -f experiments/sird_balanced_144.topo ] && [ -f "$SHARED/data/workloads/facebook_hadoop.cdf" ]; then
    run -topo experiments/sird_balanced_144.topo -mtu 1500 -q inf -end 50 \
        --workload "poisson:cdf=$SHARED/data/workloads/facebook_hadoop.cdf,load=0.5,n=144"
    if [ "$rc" -eq 0 ] && grep -q '^spraysim: 144 hosts, 13 switches, 2-tier tree' "$T/out" &&
        grep -q '^network: base RTT 7.700 us,.* queue inf' "$T/out" && grep -q ' 0 drops' "$T/out"; then
        ok "sird_balanced_144.topo: 144 hosts, 13 switches, 2 tiers, base RTT 7.700 us, no drops with -q inf"
    else
        fail "sird_balanced_144.topo: rc $rc, $(head -c 400 "$T/out" "$T/err" | tr '\n' '|')"
    fi
else
    skip "sird_balanced_144.topo: experiments/ or the workloads are not here"
fi
# its core variant (experiments/sird_core_144.topo, sird.md Sec. 2.1): the 36
# ToR-spine links (each way) at 200 Gb/s, the host links at 100
if [ -f experiments/sird_core_144.topo ]; then
    run -topo experiments/sird_core_144.topo -mtu 1500 -q inf -end 50 --workload perm:n=144,size=10000 --out "$T/core"
    up=$(awk -F, '$3 == "tor" && $5 == "spine" && $7 == 200' "$T/core/queues.csv" 2>/dev/null | wc -l)
    dn=$(awk -F, '$3 == "spine" && $5 == "tor" && $7 == 200' "$T/core/queues.csv" 2>/dev/null | wc -l)
    hl=$(awk -F, '$3 == "host" && $7 == 100' "$T/core/queues.csv" 2>/dev/null | wc -l)
    if [ "$rc" -eq 0 ] && grep -q '^spraysim: 144 hosts, 13 switches, 2-tier tree' "$T/out" && [ "$up" -eq 36 ] &&
        [ "$dn" -eq 36 ] && [ "$hl" -eq 144 ]; then
        ok "sird_core_144.topo: 13 switches, 36 + 36 ToR-spine ports at 200 Gb/s, 144 host links at 100"
    else
        fail "sird_core_144.topo: rc $rc, up $up, down $dn, host links $hl"
    fi
fi

# a huge .topo latency blames the .topo's latencies, not a -q the user never gave
sed 's/^Downlink_Latency_ns .*/Downlink_Latency_ns 4000000000/' "$TOPOS/leaf_spine_tiny.topo" >"$T/slow.topo"
n=$(sed -n 's/^Nodes[ \t]*\([0-9]*\).*/\1/p' "$T/slow.topo")
printf 'Nodes %s\nConnections 1\n0->1 start 0 size 1000\n' "$n" >"$T/slow.cm"
bad "a huge .topo latency names the .topo, not -q" "the latencies in the .topo file and -linkspeed give a base RTT" -tm "$T/slow.cm" -topo "$T/slow.topo"
# --classes and --class-opt
printf 'Nodes 16\nConnections 2\n4->0 id 1 start 0 size 1000000 priority 2\n8->0 id 2 start 0 size 1000000\n' >"$T/prio.cm"
run -tm "$T/prio.cm" --classes 3 --class-opt 2:queue_bytes=100000 --out "$T/prio"
hdr=$(head -n 1 "$T/prio/queues.csv" 2>/dev/null)
if [ "$rc" -eq 0 ] && grep -q "2 of 2 finished" "$T/out" && [ "${hdr##*,}" = mean_bytes_c2 ] &&
    grep -q '"switch_classes": 3, "class_options": {"2:queue_bytes": 100000}' "$T/prio/summary.json"; then
    ok "--classes 3 with a priority-2 connection: runs, queues.csv has class 2 columns, summary records the options"
else
    fail "--classes 3: rc $rc, header ...${hdr##*,}, $(head -n 1 "$T/err")"
fi
# a class's own occupancy columns account to the end of the run: the same
# three-to-one incast, cut by -end while queues still hold packets, in class
# 2 (priority 2) and in the default class gives each port's class 2 peak and
# mean exactly the default class's peak_bytes and mean_bytes
printf 'Nodes 16\nConnections 3\n4->0 id 1 start 0 size 1000000 priority 2\n8->0 id 2 start 0 size 1000000 priority 2\n12->0 id 3 start 0 size 1000000 priority 2\n' >"$T/prio3.cm"
sed 's/ priority 2//' "$T/prio3.cm" >"$T/prio0.cm"
run -tm "$T/prio3.cm" --classes 3 -end 60 --out "$T/prio3"
rc3=$rc
run -tm "$T/prio0.cm" --classes 3 -end 60 --out "$T/prio0"
sed 1d "$T/prio3/queues.csv" | cut -d, -f18,19 >"$T/prio3.cols"
sed 1d "$T/prio0/queues.csv" | cut -d, -f11,12 >"$T/prio0.cols"
if [ "$rc3" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/prio3.cols" "$T/prio0.cols" &&
    awk -F, '$2 > 100000 { n++ } END { exit !n }' "$T/prio3.cols"; then
    ok "--classes 3: class 2's peak and mean bytes per port are the default class's on the same traffic (cut mid-run)"
else
    fail "--classes 3: class 2 columns differ from the default class's: $(cmp "$T/prio3.cols" "$T/prio0.cols" 2>&1)"
fi
# --class-opt K:ecn=0 turns class K's marking off, ecn=1 leaves it on: the
# priority-2 incast above marks 241 packets by default
ecn_sum() { awk -F, 'NR > 1 { m += $13 } END { print m + 0 }' "$1"; }
run -tm "$T/prio3.cm" --classes 3 -end 60 --class-opt 2:ecn=0 --out "$T/prio3e0"
e0=$(ecn_sum "$T/prio3e0/queues.csv")
run -tm "$T/prio3.cm" --classes 3 -end 60 --class-opt 2:ecn=1 --out "$T/prio3e1"
e1=$(ecn_sum "$T/prio3e1/queues.csv")
if [ "$e0" -eq 0 ] && [ "$e1" -gt 0 ] && [ "$e1" -eq "$(ecn_sum "$T/prio3/queues.csv")" ]; then
    ok "--class-opt 2:ecn=0 marks nothing in class 2; ecn=1 marks as the default does ($e1)"
else
    fail "--class-opt 2:ecn: ecn=0 marked $e0, ecn=1 marked $e1, default $(ecn_sum "$T/prio3/queues.csv")"
fi
# a class --class-opt leaves alone has class 1's ECN thresholds (--help's
# "default: those of class 1"): giving class 1's thresholds explicitly
# changes nothing. Extra classes once copied them before they were set,
# got 0 and 0, and marked every queued packet (304 marks against 19 here).
run -tm "$T/prio.cm" --classes 3 --out "$T/cdef"
k=$(sed -n 's/^network: .*, ECN \([0-9]*\)-\([0-9]*\) B,.*/\1 \2/p' "$T/out")
run -tm "$T/prio.cm" --classes 3 --class-opt "2:ecn_kmin_bytes=${k% *}" --class-opt "2:ecn_kmax_bytes=${k#* }" --out "$T/cset"
if [ "$rc" -eq 0 ] && [ -n "$k" ] && cmp -s "$T/cdef/flows.csv" "$T/cset/flows.csv"; then
    ok "--classes 3: class 2 marks at class 1's thresholds ($k) unless --class-opt says otherwise"
else
    fail "--classes 3: class 2's default ECN thresholds are not class 1's ($k): flows.csv differs"
fi
bad "a priority beyond --classes" "prio.cm:3: priority 2 needs --classes 3 or more" -tm "$T/prio.cm"
bad "--classes 9" "--classes: '9' is out of range (2 to 8)" -tm "$M/one.cm" --classes 9
bad "--class-opt of a class the run lacks" "--class-opt 5:trim: class 5 needs --classes 6 or more" -tm "$M/one.cm" --classes 3 --class-opt 5:trim=0
bad "--class-opt unknown option" "names no class option" -tm "$M/one.cm" --classes 3 --class-opt 2:size=5
bad "--class-opt for class 1" "--class-opt (class): '1' is out of range (2 to 7)" -tm "$M/one.cm" --class-opt 1:trim=0
bad "--class-opt queue below one packet" "--class-opt 2:queue_bytes=100: smaller than one packet" -tm "$M/one.cm" --classes 3 --class-opt 2:queue_bytes=100
# regression: bad input found during setup, after --out was prepared, left a staging directory
mkdir -p "$T/early"
bad "an input error after --out was prepared" "-nodes 5 disagrees" -tm "$M/one.cm" -nodes 5 --out "$T/early/d"
if ls -a "$T/early" | grep -q 'spraysim-'; then fail "an early exit left $(ls -a "$T/early" | grep spraysim-)"; else ok "an early exit leaves no staging directory"; fi
# --loss-detect: spraying's reordering becomes loss under SACK holes, and
# stops being loss for DCTCP with NACK-only detection
run -tm "$M/perm_16n_16c_2MB.cm" -paths 128 --loss-detect sack
r1=$(sed -n 's/.* \([0-9]*\) retransmitted.*/\1/p' "$T/out")
run -tm "$M/perm_16n_16c_2MB.cm" -paths 128
r0=$(sed -n 's/.* \([0-9]*\) retransmitted.*/\1/p' "$T/out")
run -tm "$M/perm_16n_16c_2MB.cm" -paths 128 --cc dctcp
d0=$(sed -n 's/.* \([0-9]*\) retransmitted.*/\1/p' "$T/out")
run -tm "$M/perm_16n_16c_2MB.cm" -paths 128 --cc dctcp --loss-detect nack
d1=$(sed -n 's/.* \([0-9]*\) retransmitted.*/\1/p' "$T/out")
if [ "${r0:-x}" = 0 ] && [ "${r1:-0}" -gt 100 ] && [ "${d0:-0}" -gt 0 ] && [ "${d1:-x}" = 0 ]; then
    ok "--loss-detect: NSCC with sack holes retransmits $r1 (0 by default); DCTCP with nack only 0 (else $d0)"
else
    fail "--loss-detect: NSCC $r0 -> $r1, DCTCP $d0 -> $d1 retransmissions"
fi
bad "--loss-detect unknown" "--loss-detect: 'rack' is not nack, dupack or sack" -tm "$M/one.cm" --loss-detect rack
# the output set is replaced as a whole: a rerun replaces, an interrupted run leaves the old set
run -tm "$M/one.cm" -seed 1 --out "$T/set"
cp "$T/set/summary.json" "$T/set.before"
sh tools/gen_cm.sh incast 1024 0 2000000 >"$T/big.cm" 2>/dev/null
"$SPRAYSIM" -tm "$T/big.cm" -end 100000 --quiet --out "$T/set" >/dev/null 2>&1 &
pid=$!
k=0
while [ $k -lt 100 ] && ! ls -a "$T" | grep -q '^\.set\.spraysim-'; do sleep 0.05; k=$((k + 1)); done
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
if cmp -s "$T/set/summary.json" "$T/set.before" && [ -s "$T/set/flows.csv" ] && ! ls -a "$T" | grep -q 'spraysim-'; then
    ok "a run killed mid-way leaves the earlier output set whole and no staging directory"
else
    fail "a killed run changed the output set or left $(ls -a "$T" | grep spraysim- | head -1)"
fi
run -tm "$M/bidir.cm" --out "$T/set"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/set/flows.csv" | tr -d ' ')" = 3 ] && ! cmp -s "$T/set/summary.json" "$T/set.before"; then
    ok "a rerun into the same --out replaces the set"
else
    fail "a rerun into the same --out: rc $rc, flows.csv $(wc -l <"$T/set/flows.csv") lines"
fi
# every flag docs/running.md's tables list is one of --help's (the other
# way round, every flag in the reference: tests/docs_test.sh, against the
# generated docs/flags.md)
flagdoc=docs/running.md
if [ -f "$flagdoc" ]; then
    "$SPRAYSIM" --help >"$T/help" 2>&1
    missing=
    for f in $(sed -n 's/^| `\(-[-a-z0-9_]*\).*/\1/p' "$flagdoc" | sort -u); do
        grep -q -e "$f\b" "$T/help" || missing="$missing $f"
    done
    if [ -z "$missing" ]; then ok "every flag of $flagdoc's tables is in --help"; else fail "flags of $flagdoc's tables that --help lacks:$missing"; fi
else
    fail "$flagdoc: missing (its flag tables are checked against --help)"
fi

# --help and --version answer on stdout and exit 0 (issue 26: --help
# exiting 1 went unnoticed: only its text was read)
for f in --help --version; do
    "$SPRAYSIM" $f >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -eq 0 ] && [ -s "$T/out" ] && [ ! -s "$T/err" ]; then
        ok "$f: exit 0, stdout only"
    else
        fail "$f: exit $rc, stdout $(wc -c <"$T/out") bytes, stderr: $(head -c 200 "$T/err")"
    fi
done

# ---------------------------------------------------------------- good runs
run -tm "$M/one.cm" --out "$T/one"
if [ "$rc" -eq 0 ] && grep -q "1 of 1 finished" "$T/out"; then
    ok "one.cm runs: exit 0, '1 of 1 finished'"
else
    fail "one.cm: exit $rc, stdout: $(grep flows: "$T/out"), stderr: $(head -n 3 "$T/err")"
fi
if [ ! -s "$T/err" ]; then
    ok "one.cm: nothing on stderr when it is not a terminal"
else
    fail "one.cm: stderr not empty: $(head -c 200 "$T/err")"
fi

missing=
for f in flows.csv queues.csv summary.json; do
    [ -s "$T/one/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
    ok "--out writes flows.csv, queues.csv, summary.json"
else
    fail "--out DIR lacks:$missing"
fi

hdr=$(head -n 1 "$T/one/flows.csv" 2>/dev/null)
case $hdr in
flow_id,src,dst,size_bytes,start_us,finish_us,fct_us,ideal_fct_us,slowdown*)
    ok "flows.csv header starts with the FCT columns" ;;
*) fail "flows.csv header: '$hdr'" ;;
esac
missing=
for c in packets retransmits nacks ecn_acks fair_inc prop_inc fast_inc eta_inc multi_dec quick_dec nack_dec; do
    case ",$hdr," in
    *",$c,"*) ;;
    *) missing="$missing $c" ;;
    esac
done
if [ -z "$missing" ]; then
    ok "flows.csv has packet and NSCC counter columns"
else
    fail "flows.csv header lacks:$missing"
fi

# every row has as many fields as the header
bad_rows=$(awk -F, 'NR == 1 { n = NF; next } NF != n { c++ } END { print c + 0 }' "$T/one/flows.csv" 2>/dev/null)
if [ "${bad_rows:-x}" = 0 ]; then
    ok "flows.csv rows have as many fields as the header"
else
    fail "flows.csv: ${bad_rows:-?} rows with a wrong field count"
fi

# 1 + Connections lines, on a matrix with many connections
run -tm "$M/perm_16n_16c_2MB.cm" -seed 5 --out "$T/p1"
lines=$(wc -l <"$T/p1/flows.csv" 2>/dev/null | tr -d ' ')
conns=$(sed -n 's/^Connections[ \t]*\([0-9]*\).*/\1/p' "$M/perm_16n_16c_2MB.cm")
if [ "$rc" -eq 0 ] && [ "${lines:-0}" -eq $((conns + 1)) ]; then
    ok "flows.csv has 1 + Connections ($conns) lines"
else
    fail "perm_16n_16c_2MB.cm: exit $rc, flows.csv has ${lines:-no} lines, want $((conns + 1))"
fi
lines=$(wc -l <"$T/one/flows.csv" 2>/dev/null | tr -d ' ')
if [ "${lines:-0}" -eq 2 ]; then
    ok "one.cm flows.csv has 2 lines"
else
    fail "one.cm flows.csv has ${lines:-no} lines, want 2"
fi

# Debian's python first: the first python3 on PATH may be another one
if [ -x /usr/bin/python3 ]; then
    PY=/usr/bin/python3
else
    PY=$(command -v python3 2>/dev/null)
fi
if [ -n "$PY" ]; then
    if "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/one/summary.json" 2>"$T/pyerr"; then
        ok "summary.json is valid JSON"
    else
        fail "summary.json is not valid JSON: $(tail -n 1 "$T/pyerr")"
    fi
else
    skip "summary.json JSON validity: no python3"
fi
if grep -q '"finished": 1' "$T/one/summary.json" 2>/dev/null; then
    ok "summary.json reports 1 finished flow"
else
    fail "summary.json lacks '\"finished\": 1'"
fi

leftover=$(ls -a "$T/one" "$T/p1" 2>/dev/null | grep -F '.tmp.')
if [ -z "$leftover" ]; then
    ok "no *.tmp.* files left in --out DIR"
else
    fail "temporary files left in --out DIR: $leftover"
fi

# --out into a path that cannot be a directory
: >"$T/notadir"
bad "--out under a regular file" "--out" -tm "$M/one.cm" --out "$T/notadir/sub"

# ---------------------------------------------------------------- determinism
run -tm "$M/perm_16n_16c_2MB.cm" -seed 5 --out "$T/p2"
if [ "$rc" -eq 0 ] && cmp -s "$T/p1/flows.csv" "$T/p2/flows.csv"; then
    ok "same -seed: byte-identical flows.csv"
else
    fail "same -seed: exit $rc, flows.csv differs between two runs"
fi
if cmp -s "$T/p1/summary.json" "$T/p2/summary.json"; then
    ok "same -seed: byte-identical summary.json"
else
    fail "same -seed: summary.json differs between two runs"
fi
run -tm "$M/perm_16n_16c_2MB.cm" -seed 6 -paths 128 --out "$T/p3"
if [ "$rc" -eq 0 ] && [ -f "$T/p3/flows.csv" ] && ! cmp -s "$T/p1/flows.csv" "$T/p3/flows.csv"; then
    ok "different -seed with -paths 128: flows.csv differs"
else
    fail "different -seed with -paths 128: exit $rc, flows.csv identical to seed 5"
fi
run -tm "$M/perm_16n_16c_2MB.cm" -seed 5 -paths 128 --out "$T/p4"
run -tm "$M/perm_16n_16c_2MB.cm" -seed 6 -paths 128 --out "$T/p5"
if [ "$rc" -eq 0 ] && ! cmp -s "$T/p4/flows.csv" "$T/p5/flows.csv"; then
    ok "-paths 128: seed 5 and seed 6 give different flows.csv"
else
    fail "-paths 128: seed 5 and seed 6 give identical flows.csv (exit $rc)"
fi

# ---------------------------------------------------------------- unfinished flows
run -tm "$M/incast.cm" -end 500 --out "$T/inc"
if [ "$rc" -eq 0 ] && grep -q "0 of 15 finished" "$T/out" && grep -q "unfinished" "$T/out"; then
    ok "incast.cm -end 500: exit 0, '0 of 15 finished', unfinished listed"
else
    fail "incast.cm -end 500: exit $rc, stdout: $(grep flows: "$T/out")"
fi
nonempty=$(awk -F, 'NR > 1 && $6 != "" { c++ } END { print c + 0 }' "$T/inc/flows.csv" 2>/dev/null)
rows=$(awk 'END { print NR - 1 }' "$T/inc/flows.csv" 2>/dev/null)
if [ "${rows:-0}" -eq 15 ] && [ "${nonempty:-x}" = 0 ]; then
    ok "incast.cm -end 500: 15 rows, finish_us empty in every row"
else
    fail "incast.cm -end 500: ${rows:-?} rows, ${nonempty:-?} with a finish_us"
fi
if grep -q '"unfinished": 15' "$T/inc/summary.json" 2>/dev/null; then
    ok "incast.cm -end 500: summary.json says 15 unfinished"
else
    fail "incast.cm -end 500: summary.json lacks '\"unfinished\": 15'"
fi
/usr/bin/python3 tests/recompute_summary.py "$T/inc" "incast.cm -end 500 (all 15 unfinished)"
[ $? -eq 0 ] || nfail=$((nfail + 1))

# ---------------------------------------------------------------- help
for h in -help --help; do
    run "$h"
    if [ "$rc" -eq 0 ] && grep -q -e "-tm" "$T/out" && grep -q -e "--out" "$T/out"; then
        ok "$h: exit 0, mentions -tm and --out"
    else
        fail "$h: exit $rc or usage lacks -tm/--out"
    fi
done

# ---------------------------------------------------------------- generator
if sh tools/gen_cm.sh perm 16 1000 7 >"$T/gen.cm" 2>"$T/generr"; then
    run -tm "$T/gen.cm"
    if [ "$rc" -eq 0 ] && grep -q "16 of 16 finished" "$T/out"; then
        ok "gen_cm.sh perm 16 1000 7 runs: '16 of 16 finished'"
    else
        fail "gen_cm.sh perm 16 1000 7: simulator exit $rc, $(grep flows: "$T/out") $(head -n 1 "$T/err")"
    fi
else
    fail "gen_cm.sh perm 16 1000 7 failed: $(head -n 1 "$T/generr")"
fi
self=$(awk -F'[ >-]+' 'NR > 2 && $1 == $2 { c++ } END { print c + 0 }' "$T/gen.cm" 2>/dev/null)
dsts=$(awk 'NR > 2 { split($1, a, "->"); print a[2] }' "$T/gen.cm" 2>/dev/null | sort -u | wc -l | tr -d ' ')
if [ "${self:-x}" = 0 ] && [ "$dsts" = 16 ]; then
    ok "gen_cm.sh perm: a permutation with no self-sends"
else
    fail "gen_cm.sh perm: ${self:-?} self-sends, $dsts distinct destinations (want 0 and 16)"
fi
sh tools/gen_cm.sh perm 16 1000 7 >"$T/gen2.cm" 2>/dev/null
sh tools/gen_cm.sh perm 16 1000 8 >"$T/gen3.cm" 2>/dev/null
if cmp -s "$T/gen.cm" "$T/gen2.cm" && ! cmp -s "$T/gen.cm" "$T/gen3.cm"; then
    ok "gen_cm.sh perm: same seed same file, other seed other file"
else
    fail "gen_cm.sh perm: not deterministic in its seed"
fi
if sh tools/gen_cm.sh incast 16 0 1000 >"$T/inc16.cm" 2>/dev/null; then
    run -tm "$T/inc16.cm" -end 5000
    if [ "$rc" -eq 0 ] && grep -q "15 of 15 finished" "$T/out"; then
        ok "gen_cm.sh incast 16 0 1000 runs: '15 of 15 finished'"
    else
        fail "gen_cm.sh incast 16 0 1000: simulator exit $rc, $(grep flows: "$T/out") $(head -n 1 "$T/err")"
    fi
else
    fail "gen_cm.sh incast 16 0 1000 failed"
fi
if sh tools/gen_cm.sh bogus >/dev/null 2>&1; then
    fail "gen_cm.sh accepts an unknown subcommand"
else
    ok "gen_cm.sh rejects an unknown subcommand"
fi

# ---------------------------------------------------------------- receiver credit
# flows.csv of a run, for comparing flag spellings: same_flows NAME WANT(same|differ) ARGS1 -- ARGS2
flows_of() {
    rm -rf "$T/fo"
    "$SPRAYSIM" "$@" --quiet --out "$T/fo" >/dev/null 2>"$T/fo.err"
    cat "$T/fo/flows.csv" 2>/dev/null
}
printf 'Nodes 16\nConnections 2\n1->0 id 1 start 0 size 4000000\n5->0 id 2 start 0 size 4000000\n' >"$T/2to1.cm"
run -receiver_cc_only -tm "$M/one.cm"
if [ "$rc" -eq 0 ] && grep -q "1 of 1 finished" "$T/out" && grep -q "^credit: [1-9][0-9]* pulls sent" "$T/out" &&
    grep -q "; transport uet receiver credit, cc none, lb mixed" "$T/out" && [ ! -s "$T/err" ]; then
    ok "-receiver_cc_only runs: the flow finishes on pulled credit, the summary says 'cc none'"
else
    fail "-receiver_cc_only: rc $rc, $(grep -E 'flows:|credit' "$T/out" | tr '\n' '|') $(head -n 1 "$T/err")"
fi
a=$(flows_of -receiver_cc_only -tm "$T/2to1.cm" -paths 1 -end 5000)
b=$(flows_of -receiver_cc_only -sender_cc -tm "$T/2to1.cm" -paths 1 -end 5000)
c=$(flows_of -sender_cc -receiver_cc -tm "$T/2to1.cm" -paths 1 -end 5000)
d=$(flows_of -sender_cc -receiver_cc_only -tm "$T/2to1.cm" -paths 1 -end 5000)
e=$(flows_of -receiver_cc_only -sender_cc_only -tm "$T/2to1.cm" -paths 1 -end 5000)
f=$(flows_of -tm "$T/2to1.cm" -paths 1 -end 5000)
if [ -n "$a" ] && [ "$b" = "$c" ] && [ "$a" != "$b" ]; then
    ok "-receiver_cc_only -sender_cc and -sender_cc -receiver_cc give the same run, unlike -receiver_cc_only"
else
    fail "receiver credit with the sender window: '-receiver_cc_only -sender_cc' and '-sender_cc -receiver_cc' differ, or equal receiver-only"
fi
g=$(flows_of -receiver_cc_only -sender_cc_algo nscc -tm "$T/2to1.cm" -paths 1 -end 5000)
if [ "$d" = "$a" ] && [ "$e" = "$f" ] && [ "$g" = "$b" ] && [ "$a" != "$f" ]; then
    ok "mode flags act in order: -sender_cc -receiver_cc_only is receiver-only, -receiver_cc_only -sender_cc_only the default, -sender_cc_algo turns the window on"
else
    fail "mode flags do not act in htsim's order"
fi
# EQDS with -sender_cc_only: the sender window alone, a pull pacer per
# connection (issue 26: the flag setting sender_cc to 2, which EQDS reads
# as "no window", went unnoticed: only UET, which reads "not 0", was run)
run --transport eqds -sender_cc_only -tm "$T/2to1.cm" -paths 1 -end 5000 --out "$T/eqds-so"
if [ "$rc" -eq 0 ] && grep -q "^flows: 2 of 2 finished" "$T/out"; then
    ok "--transport eqds -sender_cc_only runs with the sender window, both flows finish"
else
    fail "--transport eqds -sender_cc_only: rc $rc, $(grep '^flows:' "$T/out") $(head -n 1 "$T/err")"
fi
# PFC's pause total in summary.json is the sum of queues.csv's
# pfc_pauses_received (issue 26: the sum running one port past the end,
# adding whatever followed the array, went unnoticed)
run --transport roce -tm "$M/incast.cm" -end 200 --out "$T/pfcsum"
sum=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pfc_pauses_received") c = i } NR > 1 { s += $c } END { print s + 0 }' "$T/pfcsum/queues.csv" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ "${sum:-0}" -gt 0 ] && grep -q "\"pfc\": {[^}]*\"pauses\": $sum," "$T/pfcsum/summary.json"; then
    ok "PFC: summary.json's pauses ($sum) is the sum of queues.csv's pfc_pauses_received"
else
    fail "PFC pauses: rc $rc, queues.csv sums to '$sum', summary: $(grep -o '"pfc": {[^}]*' "$T/pfcsum/summary.json" 2>/dev/null)"
fi
run --transport eqds -tm "$M/one.cm" --out "$T/eq1"
if [ "$rc" -eq 0 ] && grep -q "1 of 1 finished" "$T/out" && grep -q "queue 145250 B" "$T/out" && grep -q "min RTO 219.7 us" "$T/out" &&
    grep -q "; transport eqds, cc none, " "$T/out"; then
    ok "--transport eqds runs with EQDS's 35-packet queues and 150 us + 6 drains min RTO"
else
    fail "--transport eqds: rc $rc, $(grep -E 'flows:|network' "$T/out" | tr '\n' '|') $(head -n 1 "$T/err")"
fi
ln -s "$SPRAYSIM" "$T/htsim_eqds"
"$T/htsim_eqds" -tm "$M/one.cm" --out "$T/eq2" >/dev/null 2>&1
if cmp -s "$T/eq1/flows.csv" "$T/eq2/flows.csv"; then
    ok "a binary named htsim_eqds runs EQDS, as the reference picks its protocol"
else
    fail "htsim_eqds: flows.csv differs from --transport eqds"
fi
if [ "$(flows_of --transport eqds -use_reps 1 -tm "$M/perm_16n_16c_2MB.cm")" = "$(flows_of --transport eqds --lb reps -tm "$M/perm_16n_16c_2MB.cm")" ] &&
    [ "$(flows_of --transport eqds -use_reps 0 -tm "$M/perm_16n_16c_2MB.cm")" = "$(flows_of --transport eqds -tm "$M/perm_16n_16c_2MB.cm")" ]; then
    ok "-use_reps 1 is --lb reps, -use_reps 0 changes nothing"
else
    fail "-use_reps does not select REPS (or -use_reps 0 changes the run)"
fi
bad "--sird-opt with another transport" "--sird-opt needs --transport sird" -tm "$M/one.cm" --sird-opt B=2
bad "--sird-opt unknown name" "--sird-opt nosuch=1: unknown option" --transport sird -tm "$M/one.cm" --sird-opt nosuch=1
bad "--sird-opt bad value" "--sird-opt B: 'x' is not a multiple of BDP" --transport sird -tm "$M/one.cm" --sird-opt B=x
bad "--sird-opt without =" "--sird-opt: 'B' is not NAME=VALUE" --transport sird -tm "$M/one.cm" --sird-opt B
bad "--sird-opt bkt_min above bkt_max" "--sird-opt bkt_min" --transport sird -tm "$M/one.cm" --sird-opt bkt_max=0.01
run --transport sird -tm "$M/one.cm" --sird-opt sthr=inf --sird-opt prio=none
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q "1 of 1 finished" "$T/out" && grep -q "; transport sird, cc none, " "$T/out"; then
    ok "--transport sird with --sird-opt runs one flow to the end"
else
    fail "--transport sird: rc $rc, $(grep -E 'flows:' "$T/out") $(head -n 1 "$T/err")"
fi
bad "-use_reps 2 is out of range" "-use_reps: '2' is out of range (0 to 1)" -tm "$M/one.cm" -use_reps 2
bad "-use_reps x is not a number" "-use_reps: 'x' is not a non-negative whole number" -tm "$M/one.cm" -use_reps x
bad "-use_reps needs a value" "-use_reps needs a value" -tm "$M/one.cm" -use_reps
bad "-receiver_cc_only=1 is no flag (single-dash flags take no =value)" "unknown flag '-receiver_cc_only=1'" -tm "$M/one.cm" -receiver_cc_only=1
bad "--transport eqds=x names no transport" "--transport: unknown transport 'eqdsx'" --transport=eqdsx -tm "$M/one.cm"
warns "--cc without a sender window under EQDS" "--cc smartt has no effect on EQDS without a sender window: add -sender_cc" \
    --transport eqds --cc smartt -tm "$M/one.cm"
warns "--cc with receiver credit only" "--cc smartt has no effect with -receiver_cc_only: add -sender_cc after it" \
    --cc smartt -receiver_cc_only -tm "$M/one.cm"
run --transport eqds -sender_cc --cc smartt -tm "$M/one.cm"
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q "1 of 1 finished" "$T/out"; then
    ok "EQDS -sender_cc --cc smartt: the window caps EQDS, no warning"
else
    fail "EQDS -sender_cc --cc smartt: rc $rc, $(head -n 1 "$T/err")"
fi
run --transport eqds -q 1 -tm "$M/one.cm"
if [ "$rc" -eq 0 ] && grep -q "1 of 1 finished" "$T/out"; then
    ok "EQDS -q 1 runs: its switches mark no ECN, so the default thresholds do not apply"
else
    fail "EQDS -q 1: rc $rc, $(head -n 1 "$T/err")"
fi
bad "EQDS -q 1 with -ecn above it" "-ecn: high threshold 25 exceeds the queue size of 1 packets" --transport eqds -q 1 -ecn 10 25 -tm "$M/one.cm"
bad "-sender_cc_algo with an unknown algorithm" "-sender_cc_algo: unknown algorithm 'bogus'" -receiver_cc_only -sender_cc_algo bogus -tm "$M/one.cm"
# ---------------------------------------------------------------- built-in generators (--workload)
run --workload perm:n=16,size=100000 --out "$T/wp"
if [ "$rc" -eq 0 ] && grep -q "16 of 16 finished" "$T/out" && [ ! -s "$T/err" ] &&
    grep -q '"inputs": {"tm": null, "workload": "perm:n=16,size=100000", ' "$T/wp/summary.json"; then
    ok "--workload perm runs: '16 of 16 finished', summary.json records the workload"
else
    fail "--workload perm: rc $rc, $(grep flows: "$T/out") $(head -n 1 "$T/err")"
fi
bad "-tm and --workload together" "-tm and --workload both give the workload" -tm "$M/one.cm" --workload perm:n=16,size=10
bad "neither -tm nor --workload" "give -tm FILE or --workload SPEC" -end 5
bad "--workload unknown kind" "--workload: unknown kind 'shuffle'" --workload shuffle:n=16
bad "--workload unknown parameter" "--workload perm: unknown parameter 'nodes' (perm takes n, size, seed, podsize)" --workload perm:nodes=16,size=10
bad "--workload missing size" "--workload incast: parameter 'size' (bytes per flow) is required" --workload incast:n=16
bad "--workload n out of range" "--workload perm: n '1' is out of range" --workload perm:n=1,size=10
bad "--workload dst beyond n" "--workload incast: dst 16 is out of range (0 to 15 for n=16)" --workload incast:n=16,size=10,dst=16
bad "--workload degree beyond n-1" "--workload incast: degree 20 needs at least 21 hosts" --workload incast:n=16,size=10,degree=20
bad "--workload ring not whole servers" "--workload ring: n 20 is not a whole number of servers of gpus=8" --workload ring:n=20
bad "--workload size with a unit" "--workload perm: size (bytes) '2MB' is not a whole number" --workload perm:n=16,size=2MB
bad "--workload window 0" "--workload alltoall: window '0' is out of range" --workload alltoall:n=16,size=10,window=0
bad "--workload with no value" "--workload needs a value" --workload
bad "--workload n that fits no fat tree" "--workload: 17 nodes fit no" --workload perm:n=17,size=10
bad "--workload n against -nodes" "-nodes 32 disagrees with --workload, which makes n = 16" --workload perm:n=16,size=10 -nodes 32
bad "--workload n against a .topo" "says Nodes 1024 but --workload makes n = 16" --workload perm:n=16,size=10 -topo "$TOPOS/fat_tree_1024.topo"
# both are refused while the flags are read, before --out prepares anything
bad "a bad --workload with --out" "--workload perm: n '1' is out of range" --workload perm:n=1,size=10 --out "$T/early1/d"
bad "-tm and --workload with --out" "-tm and --workload both give the workload" -tm "$M/one.cm" --workload perm:n=16,size=10 --out "$T/early2/d"
if [ ! -e "$T/early1" ] && [ ! -e "$T/early2" ]; then
    ok "a bad --workload is refused before --out creates anything"
else
    fail "a bad --workload left $(ls -a "$T/early1" "$T/early2" 2>/dev/null | tr '\n' ' ')"
fi
# ---------------------------------------------------------------- open-loop Poisson (--workload poisson)
W=$SHARED/data/workloads
run --workload "poisson:cdf=$W/facebook_hadoop.cdf,load=0.3,n=8,warmup_us=20,stop_us=300" -tiers 2 -end 3000 --out "$T/po"
if [ "$rc" -eq 0 ] && grep -q '^poisson: load 0.3000 requested, [0-9.]* achieved; mean size 134854.2 B (CDF, linear), [0-9.]* B generated;' "$T/out" &&
    grep -q '^slowdown (median/p99): all [0-9.]*/[0-9.]* ([0-9]*, 0 unfinished), A ' "$T/out" &&
    grep -q '"poisson": {"cdf": ' "$T/po/summary.json" && grep -q '"load_requested": 0.300000, "load_achieved": ' "$T/po/summary.json"; then
    ok "--workload poisson runs; stdout and summary.json give requested and achieved load, CDF and generated mean"
else
    fail "--workload poisson: rc $rc, $(grep poisson "$T/out") $(head -n 1 "$T/err")"
fi
run --workload "poisson:cdf=$W/facebook_hadoop.cdf,load=0.5,n=32,stop_us=300,incast=0.07" -tiers 2 -end 3000 --out "$T/pi"
if [ "$rc" -eq 0 ] && grep -q '^incast overlay: 0.0700 of the load, 30 senders x 500000 B every 1071.429 us;' "$T/out" &&
    grep -q '"incast": {"share": 0.070000, "senders": 30, "bytes": 500000, "period_us": 1071.428571,' "$T/pi/summary.json"; then
    ok "--workload poisson with incast=0.07: the overlay's period (30 x 500 KB, 7% of 0.5 x 32 x 100 G) on stdout and in summary.json"
else
    fail "--workload poisson incast: rc $rc, $(grep incast "$T/out") $(head -n 1 "$T/err")"
fi
# --switch-stats in the Poisson window: over [0, -end] it is the run's own
# peak and mean; a later, shorter window peaks no higher than the run
run --workload "poisson:cdf=$W/facebook_hadoop.cdf,load=0.5,n=32" -tiers 2 -end 300 --switch-stats
sw_win=$(sed -n 's/^switch buffers in the window (all ports and classes, B): tier 0 peak \([0-9]*\), mean \([0-9]*\);.*/\1 \2/p' "$T/out")
sw_run=$(sed -n 's/^switch buffers (all ports and classes, B): tier 0 peak \([0-9]*\), mean \([0-9]*\) .*/\1 \2/p' "$T/out")
run --workload "poisson:cdf=$W/facebook_hadoop.cdf,load=0.5,n=32,warmup_us=100,stop_us=150" -tiers 2 -end 300 --switch-stats --out "$T/pw"
sw_w2=$(sed -n 's/^switch buffers in the window (all ports and classes, B): tier 0 peak \([0-9]*\), mean.*/\1/p' "$T/out")
sw_r2=$(sed -n 's/^switch buffers (all ports and classes, B): tier 0 peak \([0-9]*\),.*/\1/p' "$T/out")
if [ -n "$sw_win" ] && [ "$sw_win" = "$sw_run" ] && [ -n "$sw_w2" ] && [ "$sw_w2" -gt 0 ] && [ "$sw_w2" -le "$sw_r2" ] &&
    grep -q '"switch_buffers_window": \[{"tier": 0, "max_peak_bytes": ' "$T/pw/summary.json"; then
    ok "--switch-stats with --workload poisson: the window's peak and mean (whole run: the run's own; 100-150 us: peak $sw_w2 <= $sw_r2)"
else
    fail "--switch-stats window: whole '$sw_win' vs run '$sw_run'; window peak '$sw_w2' vs run '$sw_r2'"
fi
# --stream: rows written as messages finish and slots recycled give the same
# files as the whole table written at the end (incast overlay, warm-up,
# unfinished messages at -end and a matrix-free run included)
for sm in on off; do
    run --workload "poisson:cdf=$W/facebook_hadoop.cdf,load=0.6,n=32,warmup_us=50,stop_us=400,incast=0.07" -tiers 2 \
        -end 600 --stream $sm --out "$T/ps_$sm"
    cp "$T/out" "$T/ps_$sm.stdout"
done
if [ "$rc" -eq 0 ] && cmp -s "$T/ps_on/flows.csv" "$T/ps_off/flows.csv" && cmp -s "$T/ps_on/queues.csv" "$T/ps_off/queues.csv" &&
    [ "$(grep -v '"wall_s"' "$T/ps_on/summary.json" | grep -v peak_rss)" = "$(grep -v '"wall_s"' "$T/ps_off/summary.json" | grep -v peak_rss)" ] &&
    grep -q 'unfinished' "$T/ps_on.stdout" && [ "$(wc -l <"$T/ps_on/flows.csv")" -gt 100 ] &&
    [ "$(grep -v '^run: ' "$T/ps_on.stdout")" = "$(grep -v '^run: ' "$T/ps_off.stdout")" ]; then
    ok "--stream on and off: identical flows.csv, queues.csv, summary and stdout (unfinished messages included)"
else
    fail "--stream on/off differ: $(cmp "$T/ps_on/flows.csv" "$T/ps_off/flows.csv" 2>&1) $(cmp "$T/ps_on/queues.csv" "$T/ps_off/queues.csv" 2>&1) $(diff "$T/ps_on/summary.json" "$T/ps_off/summary.json" | head -c 300)"
fi
# the measurement window printed is the one asked for: warmup_us to stop_us
if grep -q '^poisson: .* in \[50\.000, 400\.000) us measured' "$T/ps_on.stdout"; then
    ok "Poisson stdout: the measured window [50.000, 400.000) us of warmup_us=50,stop_us=400"
else
    fail "Poisson stdout: no '[50.000, 400.000) us measured': $(grep '^poisson:' "$T/ps_on.stdout" | head -c 300)"
fi
# unfinished messages (at -end 600, some measured, in group D) count at the
# run's end in every figure; each figure says how many of its population
# are unfinished (as summary.json does), with '>=' and one warning line; and
# summary.json's figures are recomputed from flows.csv's columns alone
# (sender-ACK FCT and receiver slowdown)
J=$T/ps_on/summary.json
fct=$(sed -n 's/.*"fct_n": \([0-9]*\), "fct_unfinished": \([0-9]*\), "fct_lower_bound": true.*/\1 \2/p' "$J")
all=$(sed -n 's/.*"all": {"messages": \([0-9]*\), "delivered": [0-9]*, "unfinished": \([0-9]*\), "lower_bound": true.*/\1 \2/p' "$J")
grd=$(sed -n 's/.*"D": {"messages": \([0-9]*\), "delivered": [0-9]*, "unfinished": \([0-9]*\), "lower_bound": true.*/\1 \2/p' "$J")
set -- $fct $all $grd
if [ $# -eq 6 ] && [ "$2" -gt 0 ] && [ "$4" -gt 0 ] && [ "$6" -gt 0 ] &&
    grep -q "^FCT: median [0-9.]* us, .* ($1 messages, $2 unfinished counted at the run's end: lower bounds)\$" "$T/ps_on.stdout" &&
    grep -q "^slowdown (median/p99): all >=[0-9.]*/[0-9.]* ($3, $4 unfinished), .*, D >=[0-9.]*/[0-9.]* ($5, $6 unfinished) \\[" "$T/ps_on.stdout" &&
    [ "$(grep -c "warning: unfinished messages counted at the run's end (600.000 us), so these figures are lower bounds: FCT $2 of $1 messages, slowdowns $4 of $3 measured\$" "$T/err")" = 1 ] &&
    [ "$(wc -l <"$T/err")" = 1 ]; then
    ok "Poisson with unfinished messages ($2 of $1; $4 of $3 measured, $6 of $5 in D): every figure gives messages and unfinished, '>=' flags, one warning line"
else
    fail "Poisson with unfinished messages: '$fct' '$all' '$grd' $(grep -e '^FCT' -e '^slowdown' "$T/ps_on.stdout" | head -c 400) $(head -c 300 "$T/err")"
fi
for d in ps_on ps_off po pi pw; do
    /usr/bin/python3 tests/recompute_summary.py "$T/$d" "Poisson $d"
    [ $? -eq 0 ] || nfail=$((nfail + 1))
done
bad "--workload poisson: conns too large" "conns '5000' is not a number of connections per host pair from 0 to 4096" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8,conns=5000"
for sm in on off; do
    run --workload "poisson:cdf=$W/facebook_hadoop.cdf,load=0.6,n=32,warmup_us=50,stop_us=400,incast=0.07" -tiers 2 \
        -end 600 --stream $sm --quantiles sketch --out "$T/pq_$sm"
done
if [ "$rc" -eq 0 ] && cmp -s "$T/pq_on/summary.json" "$T/pq_off/summary.json" &&
    cmp -s "$T/pq_on/flows.csv" "$T/ps_on/flows.csv"; then
    ok "--quantiles sketch: the same summary with and without --stream; flows.csv as with exact quantiles"
else
    fail "--quantiles sketch: rc $rc, $(diff "$T/pq_on/summary.json" "$T/pq_off/summary.json" | head -c 300)"
fi
bad "--quantiles approx" "--quantiles: 'approx' is neither exact nor sketch" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8" --quantiles approx
# Homa recycles its slots too (flow_release): the same files either way
for sm in on off; do
    run --workload "poisson:cdf=$W/google_all_rpc.cdf,load=0.5,n=32,stop_us=100" -tiers 2 -mtu 1500 -q inf \
        -end 200 --transport homa --stream $sm --out "$T/ph_$sm"
done
if [ "$rc" -eq 0 ] && cmp -s "$T/ph_on/flows.csv" "$T/ph_off/flows.csv" && cmp -s "$T/ph_on/queues.csv" "$T/ph_off/queues.csv" &&
    cmp -s "$T/ph_on/summary.json" "$T/ph_off/summary.json" && [ "$(wc -l <"$T/ph_on/flows.csv")" -gt 1000 ]; then
    ok "--stream on and off with Homa (slots recycled): identical flows.csv, queues.csv and summary"
else
    fail "--stream with Homa: rc $rc, $(cmp "$T/ph_on/flows.csv" "$T/ph_off/flows.csv" 2>&1)"
fi
bad "--stream maybe" "--stream: 'maybe' is neither on nor off" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8" --stream maybe
bad "--workload poisson: incast with too few hosts" "--workload poisson: incast_senders 30 needs more hosts than n=8" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8,incast=0.07"
printf '# sizes\n100 0.5\n50 1\n' >"$T/bad.cdf"
bad "--workload poisson: a CDF error names file:line" "$T/bad.cdf:3: size 50 is below the previous line's 100" --workload "poisson:cdf=$T/bad.cdf,load=0.3,n=8" -tiers 2
bad "--workload poisson: a missing CDF file" "$T/none.cdf: cannot open" --workload "poisson:cdf=$T/none.cdf,load=0.3,n=8" -tiers 2
bad "--workload poisson: load above 1" "--workload poisson: load '1.5' is not a fraction of the link rate" --workload "poisson:cdf=$W/websearch.cdf,load=1.5,n=8" -tiers 2
bad "--workload poisson: no cdf" "--workload poisson: parameter 'cdf' (the message-size CDF file) is required" --workload poisson:load=0.5,n=8
bad "--workload poisson: bad sampling" "--workload poisson: sampling 'upper' is not linear or step" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8,sampling=upper"
bad "--workload poisson: stop before warm-up" "--workload poisson: stop_us 5 is not after warmup_us 10" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8,warmup_us=10,stop_us=5"
bad "--workload poisson: warm-up beyond -end" "--workload poisson: warmup_us 2000 is not before -end 1000" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8,warmup_us=2000" -tiers 2
bad "--workload poisson with --write-cm" "--write-cm: a poisson workload is generated during the run" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8" -tiers 2 --write-cm "$T/p.cm"
bad "--workload poisson: n against -nodes" "-nodes 16 disagrees with --workload, which makes n = 8" --workload "poisson:cdf=$W/websearch.cdf,load=0.5,n=8" -nodes 16
bad "--random-failures above 1" "--random-failures: '1.5' is out of range (0 to 1)" -tm "$M/one.cm" --random-failures 1.5
bad "--random-failures not a number" "--random-failures: 'often' is not a number" -tm "$M/one.cm" --random-failures often
bad "--write-cm ''" "--write-cm: empty file name" -tm "$M/one.cm" --write-cm ''
bad "--write-cm into a missing directory" "--write-cm: cannot write '$T/nodir/x.cm': No such file or directory" -tm "$M/one.cm" --write-cm "$T/nodir/x.cm"
# a windowed all-to-all with random failures and a --fail: written, then rerun from the file, identical outputs
run --workload alltoall:n=16,size=50000,window=2,order=random --random-failures 0.1 --fail "link tor0 agg0 rate 50" \
    --seed 7 -end 5000 --detect-us 0 --write-cm "$T/a2a.cm" --out "$T/a2a1"
k=$(sed -n 's/^random failures: \([0-9]*\) of 32 inter-switch links down from t=0 (p 0.1)$/\1/p' "$T/out")
if [ "$rc" -eq 0 ] && grep -q "240 of 240 finished" "$T/out" && [ -n "$k" ] && [ "$k" -gt 0 ] &&
    grep -q "\"inter_switch_links\": 32, \"random_failed_links\": $k," "$T/a2a1/summary.json" &&
    grep -q '"random_failures": 0.1,' "$T/a2a1/summary.json"; then
    ok "--random-failures 0.1: stdout and summary.json report the same $k of 32 links"
else
    fail "--random-failures 0.1: rc $rc, '$k', $(grep -E 'flows:|random' "$T/out" | tr '\n' '|') $(head -n 1 "$T/err")"
fi
nf=$(grep -c '^failure ' "$T/a2a.cm")
if [ "$(sed -n 2p "$T/a2a.cm")" = "Nodes 16" ] && grep -q '^Connections 240$' "$T/a2a.cm" && grep -q '^Triggers 16$' "$T/a2a.cm" &&
    grep -q "^Failures $((k + 1))\$" "$T/a2a.cm" && [ "$nf" = $((k + 1)) ] &&
    grep -q '^failure link tor0 agg0 rate 50$' "$T/a2a.cm" && [ "$(grep -c '^failure switch_type ' "$T/a2a.cm")" = "$k" ]; then
    ok "--write-cm: headers, $k random failures in htsim's form and the --fail line"
else
    fail "--write-cm file: $(head -n 5 "$T/a2a.cm" | tr '\n' '|') failures $nf"
fi
run -tm "$T/a2a.cm" --seed 7 -end 5000 --detect-us 0 --out "$T/a2a2"
if [ "$rc" -eq 0 ] && cmp -s "$T/a2a1/flows.csv" "$T/a2a2/flows.csv" && cmp -s "$T/a2a1/queues.csv" "$T/a2a2/queues.csv"; then
    ok "a --write-cm file rerun with -tm gives byte-identical flows.csv and queues.csv"
else
    fail "rerun of the --write-cm file: rc $rc, outputs differ ($(head -n 1 "$T/err"))"
fi
"$SPRAYSIM" --workload incast:n=16,degree=5,size=1000 --seed 9 -end 1 --quiet --write-cm "$T/i1.cm" >/dev/null 2>&1
"$SPRAYSIM" --workload incast:n=16,degree=5,size=1000 --seed 9 -end 1 --quiet --write-cm "$T/i2.cm" >/dev/null 2>&1
"$SPRAYSIM" --workload incast:n=16,degree=5,size=1000 --seed 10 -end 1 --quiet --write-cm "$T/i3.cm" >/dev/null 2>&1
"$SPRAYSIM" --workload incast:n=16,degree=5,size=1000,seed=9 --seed 10 -end 1 --quiet --write-cm "$T/i4.cm" >/dev/null 2>&1
if cmp -s "$T/i1.cm" "$T/i2.cm" && ! cmp -s "$T/i1.cm" "$T/i3.cm" && [ "$(grep -c -e '->' "$T/i1.cm")" = 5 ] &&
    diff "$T/i1.cm" "$T/i4.cm" | grep -q '^[<>] #' && [ "$(diff "$T/i1.cm" "$T/i4.cm" | grep -c '^[<>] [0-9]')" = 0 ]; then
    ok "--workload: same seed same file, other seed other file, seed=S fixes the workload"
else
    fail "--workload determinism: $(diff "$T/i1.cm" "$T/i3.cm" | head -3 | tr '\n' '|')"
fi
ls -a "$T" | grep -q '\.tmp\.' && fail "--write-cm left a temporary file" || ok "--write-cm leaves no temporary file"

# ---------------------------------------------------------------- RoCE, PFC, DCQCN
bad "-pfc_thresholds low > high" "-pfc_thresholds" -tm "$M/one.cm" --transport roce -pfc_thresholds 15 12
bad "-pfc_thresholds missing its second value" "-pfc_thresholds" -tm "$M/one.cm" -pfc_thresholds 12
bad "-pfc_thresholds 0" "-pfc_thresholds (low)" -tm "$M/one.cm" -pfc_thresholds 0 15
bad "-pfc_thresholds beyond 32-bit bytes" "-pfc_thresholds: a high threshold of 1000000 packets" -tm "$M/one.cm" --transport roce -pfc_thresholds 12 1000000 -mtu 9000
bad "-dcqcn with -timely" "-dcqcn and -timely" -tm "$M/one.cm" --transport roce -dcqcn 10 -timely
bad "-timely without roce" "-timely: a RoCE option" -tm "$M/one.cm" -timely
bad "-timely_thresholds low > high" "-timely_thresholds" -tm "$M/one.cm" --transport roce -timely -timely_thresholds 50 10
bad "-timely_thresholds missing its second value" "-timely_thresholds" -tm "$M/one.cm" -timely_thresholds 5
bad "--pfc maybe" "--pfc" -tm "$M/one.cm" --pfc maybe
bad "--min-rto-us 0" "--min-rto-us" -tm "$M/one.cm" --min-rto-us 0
# --aggressive-rto: without trimming (a 5-BDP queue) the min RTO of the 1-BDP queue trimming runs use
run -tm "$M/incast.cm" -disable_trim --aggressive-rto -end 10
a=$(sed -n 's/.*min RTO \([0-9.]*\) us.*/\1/p' "$T/out")
run -tm "$M/incast.cm" -end 10
t=$(sed -n 's/.*min RTO \([0-9.]*\) us.*/\1/p' "$T/out")
run -tm "$M/incast.cm" -disable_trim -end 10
n=$(sed -n 's/.*min RTO \([0-9.]*\) us.*/\1/p' "$T/out")
run -tm "$M/incast.cm" -disable_trim --min-rto-us 50 -end 10
m=$(sed -n 's/.*min RTO \([0-9.]*\) us.*/\1/p' "$T/out")
if [ -n "$a" ] && [ "$a" = "$t" ] && [ "$n" != "$a" ] && [ "$m" = "50.0" ]; then
    ok "--aggressive-rto: min RTO $a us without trimming, as with trimming ($t), not $n; --min-rto-us 50 sets it"
else
    fail "--aggressive-rto / --min-rto-us: got '$a' (trimming '$t', no trim '$n', --min-rto-us 50 '$m')"
fi
bad "--msg-cc sometimes" "--msg-cc: 'sometimes' is neither inherit nor fresh" -tm "$M/one.cm" --msg-cc sometimes
bad "--msg-cc without a value" "--msg-cc" -tm "$M/one.cm" --msg-cc
# --trigger-delay path: an activation reaches a waiting connection's source
# after a control packet's minimum one-way latency; per hop a 64-byte
# header's serialisation at 100 Gb/s (5.12 ns) plus the link's 1 us: hosts
# 0 and 1 share a ToR of the 16-host fat tree (2 hops, 2.01024 us), host 8
# is in another pod (6 hops, 6.03072 us); without it (htsim's) the waiting
# connection starts as the trigger fires
printf '%s\n' "Nodes 16" "Connections 3" "Triggers 1" "0->1 id 1 start 0 size 10000 send_done_trigger 1" \
    "1->0 id 2 trigger 1 size 10000" "8->9 id 3 trigger 1 size 10000" "trigger id 1 oneshot" >"$T/tdelay.cm"
for m in none path; do
    rm -rf "$T/tdelay_$m"
    run -tm "$T/tdelay.cm" --trigger-delay "$m" --quiet --out "$T/tdelay_$m"
done
# start of each waiting connection less the first connection's finish, in us
tdelays() { awk -F, 'NR == 2 { f = $6 } NR > 2 { printf "%s%.6f", (NR > 3 ? " " : ""), $5 - f }' "$1/flows.csv"; }
if [ "$(tdelays "$T/tdelay_none")" = "0.000000 0.000000" ] && [ "$(tdelays "$T/tdelay_path")" = "2.010240 6.030720" ]; then
    ok "--trigger-delay: none starts at once, path after 2.01024 us (same ToR) and 6.03072 us (another pod)"
else
    fail "--trigger-delay: delays none '$(tdelays "$T/tdelay_none")', path '$(tdelays "$T/tdelay_path")', want 0 0 and 2.010240 6.030720"
fi
# a barrier of two activations hears the farther one last: host 1's
# connection waits for host 8's finish plus 6 hops, not host 0's plus 2
printf '%s\n' "Nodes 16" "Connections 3" "Triggers 1" "0->2 id 1 start 0 size 10000 send_done_trigger 1" \
    "8->10 id 2 start 0 size 10000 send_done_trigger 1" "1->0 id 3 trigger 1 size 10000" "trigger id 1 barrier count 2" >"$T/tbar.cm"
rm -rf "$T/tbar"
run -tm "$T/tbar.cm" --trigger-delay path --quiet --out "$T/tbar"
tb=$(awk -F, 'NR == 2 { a = $6 } NR == 3 { b = $6 } NR == 4 { printf "%.6f %.6f", $5 - a, $5 - b }' "$T/tbar/flows.csv")
if [ "$rc" -eq 0 ] && [ "${tb#* }" = 6.030720 ] && [ "$(echo "${tb% *}" | awk '{ print ($1 >= 2.010240) }')" = 1 ]; then
    ok "--trigger-delay path: a barrier fires when its host has heard both activations"
else
    fail "--trigger-delay path barrier: start less each finish '$tb', want the second 6.030720"
fi
bad "--trigger-delay bogus" "--trigger-delay: 'bogus' is neither none nor path" -tm "$M/one.cm" --trigger-delay bogus
bad "--trigger-delay without a value" "--trigger-delay" -tm "$M/one.cm" --trigger-delay
# UET's messages inherit by default: --msg-cc inherit is the default run,
# fresh is another (issue 26: --msg-cc inherit stored as 2 read as fresh)
printf 'Nodes 16\nConnections 3\n0->1 id 1 start 0 size 400000\n0->1 id 1 start 0 size 400000\n2->1 id 2 start 0 size 2000000\n' >"$T/mcc.cm"
for m in default inherit fresh; do
    rm -rf "$T/mcc_$m"
    if [ "$m" = default ]; then run -tm "$T/mcc.cm" --quiet --out "$T/mcc_$m"; else run -tm "$T/mcc.cm" --quiet --msg-cc "$m" --out "$T/mcc_$m"; fi
done
if cmp -s "$T/mcc_default/flows.csv" "$T/mcc_inherit/flows.csv" && ! cmp -s "$T/mcc_default/flows.csv" "$T/mcc_fresh/flows.csv"; then
    ok "--msg-cc inherit is UET's default, fresh differs"
else
    fail "--msg-cc: inherit should equal the default run and fresh differ"
fi
printf 'Nodes 16\nConnections 2\n0->5 id 3 start 0 size 1000\n0->6 id 3 start 0 size 1000\n' >"$T/msgbad.cm"
bad "a connection's messages on two host pairs" "msgbad.cm:4: connection id 3 is also on line 3 with different hosts" -tm "$T/msgbad.cm"
# messages over connections: a msg column, the second message starts when the first finished
printf 'Nodes 16\nConnections 2\n0->5 id 3 start 0 size 100000 msg 4\n0->5 id 3 start 0 size 1000 msg 9\n' >"$T/msg.cm"
run -tm "$T/msg.cm" -conn_reuse --out "$T/msgout" --quiet
f1=$(sed -n 2p "$T/msgout/flows.csv" | cut -d, -f2,7)   # msg, finish_us of the first
s2=$(sed -n 3p "$T/msgout/flows.csv" | cut -d, -f2,6)   # msg, start_us (posted) of the second
if [ "$rc" -eq 0 ] && [ "$(head -n 1 "$T/msgout/flows.csv" | cut -d, -f1-3)" = "flow_id,msg,src" ] &&
    [ "${f1%%,*}" = 4 ] && [ "$s2" = "9,0.000000" ] && [ -n "${f1#*,}" ]; then
    ok "messages over connections: msg column and posting times in flows.csv"
else
    fail "messages over connections: rc $rc, header $(head -n 1 "$T/msgout/flows.csv" | cut -d, -f1-3), rows $f1 / $s2"
fi
bad "-dcqcn 0" "-dcqcn" -tm "$M/one.cm" --transport roce -dcqcn 0
bad "--cc dcqcn without RoCE" "--cc dcqcn: a rate control of RoCE's: give --transport roce" -tm "$M/one.cm" --cc dcqcn -dcqcn 10
bad "--cc dcqcn without -dcqcn K" "--cc dcqcn: give -dcqcn K" -tm "$M/one.cm" --transport roce --cc dcqcn
# RoCE's rate controls by name are their flags
for rc in "timely:-timely" "hpcc:-hpcc" "dcqcn:-dcqcn 10"; do
    name=${rc%%:*} flag=${rc#*:}
    run -tm "$M/incast.cm" --transport roce --cc "$name" $( [ "$name" = dcqcn ] && echo "-dcqcn 10" ) -end 3000 --out "$T/rc_name"
    run -tm "$M/incast.cm" --transport roce $flag -end 3000 --out "$T/rc_flag"
    if [ "$rc" -eq 0 ] && cmp -s "$T/rc_name/flows.csv" "$T/rc_flag/flows.csv" && cmp -s "$T/rc_name/queues.csv" "$T/rc_flag/queues.csv"; then
        ok "--transport roce --cc $name runs as $flag"
    else
        fail "--transport roce --cc $name differs from $flag (rc $rc)"
    fi
done
bad "-dcqcn without PFC" "-dcqcn" -tm "$M/one.cm" --transport roce -dcqcn 10 --pfc off
bad "-dcqcn without RoCE" "-dcqcn: a RoCE option" -tm "$M/one.cm" -dcqcn 10
bad "-out_of_order without RoCE" "-out_of_order: a RoCE option" -tm "$M/one.cm" -out_of_order
bad "--pfc-deadlock-us 0" "--pfc-deadlock-us" -tm "$M/one.cm" --pfc-deadlock-us 0
bad "--reroute maybe" "--reroute: 'maybe' is not none or bounce" -tm "$M/one.cm" --reroute maybe
# A PFC deadlock from valley rerouting (experiments/pfc_pathologies.md
# section 3): 4 ToRs x 2 hosts, 2 spines, links tor0-spine1 and tor1-spine0
# down and known; ToRs 0 and 1 exchange traffic only through valleys, ToRs
# 2 and 3 exchange traffic directly. With --reroute bounce the detector
# names a cycle of 4 paused ports; up-down routing (no --reroute) has none.
printf 'Nodes 8\nTiers 2\nPodsize 8\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 2\nRadix_Up 2\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 4\nDownlink_Latency_ns 1000\nSwitch_Latency_ns 0\n' >"$T/ls4x2.topo"
{
    echo "Nodes 8"
    echo "Connections 8"
    for p in 0:2 1:3 2:0 3:1 4:6 5:7 6:4 7:5; do echo "${p%:*}->${p#*:} start 0 size 2000000"; done
} >"$T/valley.cm"
run --transport roce -paths 1 -topo "$T/ls4x2.topo" -tm "$T/valley.cm" -end 5000 --detect-us 0 --reroute bounce \
    --fail "link tor0 spine1 down" --fail "link tor1 spine0 down" --quiet --out "$T/valley"
if [ "$rc" -eq 0 ] && grep -q '^spraysim: PFC deadlock: a cycle of 4 paused ports' "$T/err" &&
    grep -q '^spraysim: PFC deadlock cycle (each port waits on the next, the last on the first): spine0->tor3 tor3->spine1 spine1->tor2 tor2->spine0$' "$T/err" &&
    grep -q '"deadlock": true, .*"deadlock_cycle": \["spine0->tor3", "tor3->spine1", "spine1->tor2", "tor2->spine0"\]' "$T/valley/summary.json" &&
    grep -q '"reroute": {"mode": "bounce", "valleys": [1-9]' "$T/valley/summary.json"; then
    ok "--reroute bounce under PFC: valleys, and the detector names the 4-port deadlock cycle"
else
    fail "--reroute bounce deadlock: rc $rc, $(head -c 300 "$T/err" | tr '\n' '|')"
fi
run --transport roce -paths 1 -topo "$T/ls4x2.topo" -tm "$T/valley.cm" -end 5000 --detect-us 0 \
    --fail "link tor0 spine1 down" --fail "link tor1 spine0 down" --quiet --out "$T/updown"
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q '"deadlock": false' "$T/updown/summary.json" &&
    ! grep -q '"reroute"' "$T/updown/summary.json"; then
    ok "the same failures with up-down routing: no deadlock"
else
    fail "up-down routing with the valley workload: rc $rc, $(head -c 300 "$T/err" | tr '\n' '|')"
fi
bad "-hpcc without RoCE" "-hpcc: a RoCE option" -tm "$M/one.cm" -hpcc
bad "-hpcc with -dcqcn" "-hpcc and -dcqcn: choose one" -tm "$M/one.cm" --transport roce -hpcc -dcqcn 10
bad "-hpcc with -timely" "-hpcc and -timely: RoCE runs one rate control at a time" -tm "$M/one.cm" --transport roce -hpcc -timely
run -tm "$M/incast.cm" --transport roce -hpcc -paths 1 -end 3000 --out "$T/h1"
if [ "$rc" -eq 0 ] && grep -q '"roce": {"dcqcn_k_pkts": 0, "out_of_order": false, "hpcc": true}' "$T/h1/summary.json"; then
    ok "RoCE with HPCC runs and says so in summary.json"
else
    fail "RoCE with HPCC: exit $rc, or summary.json lacks hpcc"
fi
run -tm "$M/incast.cm" --transport roce -dcqcn 10 -paths 1 -end 3000 --out "$T/r1"
run -tm "$M/incast.cm" --transport roce -dcqcn 10 -paths 1 -end 3000 --out "$T/r2"
if [ "$rc" -eq 0 ] && cmp -s "$T/r1/flows.csv" "$T/r2/flows.csv" && cmp -s "$T/r1/queues.csv" "$T/r2/queues.csv" &&
    head -n 1 "$T/r1/queues.csv" | grep -q ',pfc_pauses_sent,pfc_pauses_received,pfc_paused_us$' &&
    grep -q '"pfc": {"low_pkts": 12, "high_pkts": 15' "$T/r1/summary.json" &&
    grep -q '"roce": {"dcqcn_k_pkts": 10, "out_of_order": false}' "$T/r1/summary.json" &&
    head -n 1 "$T/r1/flows.csv" | grep -q 'go_back_n,cnps_sent,cnps_received'; then
    ok "RoCE with DCQCN: byte-identical reruns, PFC columns in queues.csv, pfc in summary.json"
else
    fail "RoCE reruns: exit $rc, or outputs differ or lack the PFC columns"
fi
# ts_flows.csv's rtt_us is left empty where the rate control has no RTT
# (DCQCN), and filled where it has one (TIMELY, once sampled)
run -tm "$M/incast.cm" --transport roce -dcqcn 10 -paths 1 -end 100 --ts-flows all --out "$T/rtd"
rtt_d=$(awk -F, 'NR > 1 && $5 != ""' "$T/rtd/ts_flows.csv" 2>/dev/null | wc -l | tr -d ' ')
rows_d=$(sed 1d "$T/rtd/ts_flows.csv" 2>/dev/null | wc -l | tr -d ' ')
run -tm "$M/incast.cm" --transport roce -timely -paths 1 -end 100 --ts-flows all --out "$T/rtt"
rtt_t=$(awk -F, 'NR > 1 && $5 != ""' "$T/rtt/ts_flows.csv" 2>/dev/null | wc -l | tr -d ' ')
if [ "$rows_d" -gt 0 ] && [ "$rtt_d" -eq 0 ] && [ "$rtt_t" -gt 0 ]; then
    ok "RoCE time series: no rtt_us under DCQCN ($rows_d rows), rtt_us under TIMELY ($rtt_t rows)"
else
    fail "RoCE time series rtt_us: DCQCN $rtt_d of $rows_d rows, TIMELY $rtt_t rows"
fi
# pfc_paused_us is time spent paused: some ports were paused and resumed in
# this incast, and none was paused longer than the simulated time
sim_us=$(sed -n 's/.*"simulated_us": \([0-9.]*\).*/\1/p' "$T/r1/summary.json")
if awk -F, -v t="$sim_us" 'NR > 1 && $NF > 0 { n++ } NR > 1 && $NF > t { bad++ } END { exit !(t > 0 && n > 0 && !bad) }' "$T/r1/queues.csv"; then
    ok "RoCE with DCQCN: ports paused, each for at most the simulated $sim_us us"
else
    fail "RoCE with DCQCN: pfc_paused_us missing, zero everywhere, or above the simulated $sim_us us"
fi
run -tm "$M/incast.cm" -end 200 --out "$T/r3"
if [ "$rc" -eq 0 ] && ! grep -q pfc "$T/r3/queues.csv" "$T/r3/summary.json"; then
    ok "without PFC: no PFC columns or summary entry"
else
    fail "without PFC: PFC output present (exit $rc)"
fi

# A mixed fabric's summary splits pauses, trims and drops by class: the
# lossless class paused and lost nothing, the lossy one trimmed and paused none.
printf 'Nodes 16\nConnections 8\n0->15 start 0 size 2000000 transport roce lb single\n1->15 start 0 size 3000000\n2->15 start 0 size 500000\n3->15 start 0 size 500000\n4->15 start 0 size 500000\n5->15 start 0 size 500000\n6->15 start 0 size 500000\n7->15 start 0 size 500000\n' >"$T/mixed.cm"
run -tm "$T/mixed.cm" --classes 3 --class-opt 2:lossless=1 --sched class-drr -end 5000 --out "$T/mixed"
c1=$(grep -o '{"class": 1, "lossless": false, "pauses_sent": 0, "trims": [1-9][0-9]*, "drops": 0}' "$T/mixed/summary.json" 2>/dev/null)
c2=$(grep -o '{"class": 2, "lossless": true, "pauses_sent": [1-9][0-9]*, "trims": 0, "drops": 0}' "$T/mixed/summary.json" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ -n "$c1" ] && [ -n "$c2" ]; then
    ok "mixed fabric: summary.json pfc.by_class (lossless class paused, lossy class trimmed)"
else
    fail "mixed fabric: rc $rc, $(grep -o '"by_class".*' "$T/mixed/summary.json" 2>/dev/null)"
fi
# the same fabric cut at 300 us, while the lossless class's queues still
# hold paused packets: the run ends cleanly (with the invariant checks, make
# debug, PFC's per-link ingress counts must match the packets each class
# queue holds at the end) and class 2 has paused
run -tm "$T/mixed.cm" --classes 3 --class-opt 2:lossless=1 --sched class-drr -end 300 --out "$T/mixedcut"
if [ "$rc" -eq 0 ] && grep -q '{"class": 2, "lossless": true, "pauses_sent": [1-9]' "$T/mixedcut/summary.json" &&
    ! grep -q "8 of 8 finished" "$T/out"; then
    ok "mixed fabric cut mid-run with class 2 paused: ends cleanly"
else
    fail "mixed fabric cut at 300 us: rc $rc, $(head -n 1 "$T/err")"
fi
if ! grep -q '"pfc": {' "$T/r1/summary.json" 2>/dev/null || grep -q '"by_class"' "$T/r1/summary.json"; then
    fail "RoCE+PFC without a lossless class: pfc entry missing or by_class written"
else
    ok "RoCE+PFC without a lossless class: no by_class (summary unchanged)"
fi

# Homa messages are one-way: flows.csv's ideal has no ACK's return, so a
# message alone on the network has slowdown 1 (it was 0.96 before: the ideal
# had an ACK that Homa never sends)
printf 'Nodes 144\nConnections 1\n0->16 start 0 size 1000000\n' >"$T/homa1.cm"
run -tm "$T/homa1.cm" -topo experiments/sird_balanced_144.topo -mtu 1500 -q inf --transport homa --out "$T/homa1"
hs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["slowdown"] }' "$T/homa1/flows.csv" 2>/dev/null)
if [ "$rc" -eq 0 ] && awk -v x="$hs" 'BEGIN { exit !(x >= 1 && x < 1.01) }'; then
    ok "--transport homa: a 1 MB message alone has flows.csv slowdown $hs (one-way: no ACK in the ideal)"
else
    fail "--transport homa one-way ideal: rc $rc, slowdown '$hs'"
fi
# Homa (--transport homa, docs/models.md Transport: Homa"): one switch class per
# priority level, every --homa-opt checked before the run
run -tm "$M/one.cm" -mtu 1500 -q inf --transport homa --out "$T/homa"
if [ "$rc" -eq 0 ] && grep -q "1 of 1 finished" "$T/out" && grep -q '"switch_classes": 8' "$T/homa/summary.json" &&
    head -n 1 "$T/homa/flows.csv" | grep -q 'grants,resends'; then
    ok "--transport homa: one message finishes, 8 switch classes, grants and resends in flows.csv"
else
    fail "--transport homa: rc $rc, $(head -c 300 "$T/out" "$T/err" | tr '\n' '|')"
fi
bad "--homa-opt unknown name" "--homa-opt 'nosuch': no such option" -tm "$M/one.cm" --transport homa --homa-opt nosuch=1
bad "--homa-opt without a value" "--homa-opt 'k': not NAME=VALUE" -tm "$M/one.cm" --transport homa --homa-opt k
bad "--homa-opt k=0" "--homa-opt k=0: out of range (1 to 64)" -tm "$M/one.cm" --transport homa --homa-opt k=0
bad "--homa-opt fraction for a count" "--homa-opt levels=2.5: not a whole number" -tm "$M/one.cm" --transport homa --homa-opt levels=2.5
bad "--homa-opt levels=9" "--homa-opt levels=9: out of range (2 to 8)" -tm "$M/one.cm" --transport homa --homa-opt levels=9
bad "--homa-opt no scheduled level" "--homa-opt unsched_levels=4: must leave a scheduled level below levels=4" -tm "$M/one.cm" --transport homa --homa-opt levels=4 --homa-opt unsched_levels=4
bad "--homa-opt cutoffs too few" "--homa-opt cutoffs=1000: 4 unscheduled levels need 3 cutoffs" -tm "$M/one.cm" --transport homa --homa-opt k=4 --homa-opt cutoffs=1000
bad "--homa-opt cutoffs not increasing" "--homa-opt cutoffs=5000:1000:9000: sizes must increase" -tm "$M/one.cm" --transport homa --homa-opt k=4 --homa-opt cutoffs=5000:1000:9000
bad "--homa-opt negative timeout" "--homa-opt timeout_us=-1: out of range" -tm "$M/one.cm" --transport homa --homa-opt timeout_us=-1
bad "--homa-opt without Homa" "--homa-opt: a Homa option; add --transport homa" -tm "$M/one.cm" --homa-opt k=4
bad "Homa with too few --classes" "--classes 4: Homa uses 8 priority levels" -tm "$M/one.cm" --transport homa --classes 4
bad "Homa under class-drr" "--sched class-drr: Homa's priority levels need strict priority" -tm "$M/one.cm" --transport homa --classes 8 --sched class-drr
run -tm "$M/one.cm" --transport homa --classes 4 --homa-opt levels=4
if [ "$rc" -eq 0 ] && grep -q "1 of 1 finished" "$T/out"; then
    ok "--transport homa --classes 4 --homa-opt levels=4 runs"
else
    fail "--homa-opt levels=4: rc $rc, $(head -n 1 "$T/err")"
fi
# seed 001's open-loop runs on its 144-host network: Homa, and DCTCP and
# Swift on one ECMP path per message (sird.md Sec. 2.6)
if [ -f experiments/sird_balanced_144.topo ] && [ -f "$SHARED/data/workloads/facebook_hadoop.cdf" ]; then
    for a in "--transport homa" "--cc dctcp -paths 1" "--cc swift -paths 1"; do
        # shellcheck disable=SC2086
        run -topo experiments/sird_balanced_144.topo -mtu 1500 -q inf -end 100 $a \
            --workload "poisson:cdf=$SHARED/data/workloads/facebook_hadoop.cdf,load=0.5,n=144"
        if [ "$rc" -eq 0 ] && grep -q '^poisson: load 0.5000 requested' "$T/out" && grep -q '^slowdown' "$T/out"; then
            ok "WKb at 50% on sird_balanced_144.topo with -q inf: $a runs"
        else
            fail "WKb on sird_balanced_144.topo, $a: rc $rc, $(head -n 1 "$T/err")"
        fi
    done
else
    skip "Homa/DCTCP/Swift on sird_balanced_144.topo: experiments/ or the workloads are not here"
fi

# Time series (--ts-*): bad flags are one line naming the flag; files appear
# only when asked; a fixed seed gives the same bytes; every change of the
# incast's bottleneck reaches exactly the peak queues.csv reports.
printf 'Nodes 16\nConnections 2\n0->2 start 0 size 2000000\n1->2 start 0 size 2000000\n' >"$T/inc2.cm"
bad "ts empty list" "--ts-flows" -tm "$T/inc2.cm" --out "$T/ts0" --ts-flows ""
bad "ts reversed range" "--ts-ports" -tm "$T/inc2.cm" --out "$T/ts0" --ts-ports 9-3
bad "ts not a list" "--ts-hosts" -tm "$T/inc2.cm" --out "$T/ts0" --ts-hosts 1,x
bad "ts interval zero" "--ts-interval" -tm "$T/inc2.cm" --out "$T/ts0" --ts-flows all --ts-interval 0
bad "ts interval word" "--ts-interval" -tm "$T/inc2.cm" --out "$T/ts0" --ts-flows all --ts-interval often
# an estimate past 1e19 bytes (24,334 hosts sampled every ns for 1000 s)
# is capped at 2^63 bytes, which still converts to a count and adds up
bad "ts runaway estimate capped at 2^63 bytes" "would write about 9223372036855 MB (estimate)" --workload perm:n=24334,size=1000 --out "$T/ts0" --ts-flows all --ts-ports all --ts-hosts all --ts-interval 0.001 -end 1000000000
bad "ts window reversed" "--ts-window" -tm "$T/inc2.cm" --out "$T/ts0" --ts-flows all --ts-window 50:10
bad "ts window after -end" "--ts-window" -tm "$T/inc2.cm" --out "$T/ts0" --ts-flows all --ts-window 2000:3000
bad "ts max-mb zero" "--ts-max-mb" -tm "$T/inc2.cm" --out "$T/ts0" --ts-flows all --ts-max-mb 0
# flow ids checked against a large matrix (2862 flows: the id table is
# sized by the flow count): the flows named, and only they, have rows
run --workload alltoall:n=54,size=4150 -end 5 --out "$T/tsbig" --ts-flows 5,2800-2803
ids=$(cut -d, -f2 "$T/tsbig/ts_flows.csv" 2>/dev/null | sed 1d | sort -un | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$ids" = "5 2800 2801 2802 2803 " ]; then
    ok "--ts-flows 5,2800-2803 of 2862 flows: rows for exactly those flows"
else
    fail "--ts-flows on 2862 flows: rc $rc, flows '$ids', $(head -n 1 "$T/err")"
fi
bad "ts unknown flow id" "--ts-flows: no flow has id 7" -tm "$T/inc2.cm" --out "$T/ts0" --ts-flows 1,7
bad "ts port beyond the fabric" "--ts-ports: port 96" -tm "$T/inc2.cm" --out "$T/ts0" --ts-ports 96
bad "ts host beyond the fabric" "--ts-hosts: host 16" -tm "$T/inc2.cm" --out "$T/ts0" --ts-hosts 3-16
bad "ts without --out" "--out" -tm "$T/inc2.cm" --ts-hosts all
bad "ts interval without a selection" "--ts-interval" -tm "$T/inc2.cm" --out "$T/ts0" --ts-interval 2
bad "ts estimate above the limit" "--ts-max-mb" -tm "$T/inc2.cm" --out "$T/ts0" --ts-ports all --ts-interval change --ts-max-mb 1
if [ -e "$T/ts0" ]; then fail "ts: a rejected run left its --out directory"; else ok "ts: rejected runs leave no output"; fi

run -tm "$T/inc2.cm" --out "$T/ts1" --seed 3
if [ "$rc" -eq 0 ] && [ -z "$(ls "$T/ts1" | grep '^ts_')" ]; then
    ok "ts: no time-series file unless asked"
else
    fail "ts: without --ts-* flags: exit $rc, files $(ls "$T/ts1" | tr '\n' ' ')"
fi
cp "$T/ts1/flows.csv" "$T/ts1.flows"; cp "$T/ts1/queues.csv" "$T/ts1.queues"; cp "$T/ts1/summary.json" "$T/ts1.summary"
run -tm "$T/inc2.cm" --out "$T/ts1" --seed 3 --ts-ports 20 --ts-interval change
if [ "$rc" -eq 0 ] && [ "$(ls "$T/ts1" | grep '^ts_' | tr '\n' ' ')" = "ts_ports.csv " ] &&
    cmp -s "$T/ts1/flows.csv" "$T/ts1.flows" && cmp -s "$T/ts1/queues.csv" "$T/ts1.queues" &&
    head -n 1 "$T/ts1/ts_ports.csv" | grep -qx 'time_us,port,data_bytes,ctl_bytes,tx_bytes,ecn_marks,trims,drops'; then
    ok "ts: --ts-ports writes ts_ports.csv only; flows.csv and queues.csv unchanged; replaces a plain output set"
else
    fail "ts: --ts-ports: exit $rc, files $(ls "$T/ts1" | tr '\n' ' '), or flows/queues changed"
fi
peak=$(awk -F, '$1 == 20 { print $11 }' "$T/ts1/queues.csv")
seen=$(awk -F, 'NR > 1 && $2 == 20 && $3 + 0 > m { m = $3 + 0 } END { print m + 0 }' "$T/ts1/ts_ports.csv")
if [ -n "$peak" ] && [ "$peak" -gt 40000 ] && [ "$seen" = "$peak" ]; then
    ok "ts: 2-to-1 incast, every change: the bottleneck's largest data_bytes ($seen) is queues.csv's peak_bytes"
else
    fail "ts: 2-to-1 incast: largest recorded $seen, queues.csv peak_bytes $peak"
fi
if grep -q '"timeseries": {"interval_us": "change"' "$T/ts1/summary.json" &&
    [ "$(grep -v timeseries "$T/ts1/summary.json" | grep -v '"commit"')" = "$(grep -v '"commit"' "$T/ts1.summary")" ]; then
    ok "ts: summary.json gains a timeseries entry and is otherwise unchanged (events included)"
else
    fail "ts: summary.json: $(grep timeseries "$T/ts1/summary.json")"
fi
run -tm "$T/inc2.cm" --out "$T/ts1" --seed 3
if [ "$rc" -eq 0 ] && [ -z "$(ls "$T/ts1" | grep '^ts_')" ]; then
    ok "ts: a rerun without --ts-* replaces the set, time series included"
else
    fail "ts: rerun without --ts-*: exit $rc, files $(ls "$T/ts1" | tr '\n' ' ')"
fi
run --workload perm:n=16,size=300000 --seed 9 --out "$T/ts2" --ts-flows all --ts-ports 0-40 --ts-hosts all --ts-interval 0.5
run --workload perm:n=16,size=300000 --seed 9 --out "$T/ts3" --ts-flows all --ts-ports 0-40 --ts-hosts all --ts-interval 0.5
same=yes
for f in ts_flows.csv ts_ports.csv ts_hosts.csv; do
    cmp -s "$T/ts2/$f" "$T/ts3/$f" || same=no
    [ "$(wc -l <"$T/ts2/$f")" -gt 100 ] || same=no
done
if [ "$rc" -eq 0 ] && [ $same = yes ]; then
    ok "ts: the same seed gives byte-identical ts_flows.csv, ts_ports.csv, ts_hosts.csv"
else
    fail "ts: reruns with the same seed differ (or are nearly empty)"
fi
run -tm "$T/inc2.cm" --out "$T/ts4" --ts-ports all --ts-interval change --quiet
if [ "$rc" -eq 0 ] && grep -q '^spraysim: time series: about [0-9]* MB (estimate' "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ]; then
    ok "ts: a large capture prints its size estimate first: $(cat "$T/err")"
else
    fail "ts: large capture: exit $rc, stderr $(head -c 200 "$T/err")"
fi

# Time series with recycled slots and messages: --stream on and off give the
# same series (a recycled message's last row and bytes are kept); messages
# over connections add flows.csv's msg column.
W="$SHARED/data/workloads/google_all_rpc.cdf"
run --workload "poisson:cdf=$W,load=0.5,n=16" -end 60 --stream on --out "$T/ts5" --ts-flows all --ts-hosts all --ts-interval 1 --quiet
rc5=$rc
run --workload "poisson:cdf=$W,load=0.5,n=16" -end 60 --stream off --out "$T/ts6" --ts-flows all --ts-hosts all --ts-interval 1 --quiet
if [ "$rc5" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/ts5/ts_flows.csv" "$T/ts6/ts_flows.csv" &&
    cmp -s "$T/ts5/ts_hosts.csv" "$T/ts6/ts_hosts.csv" && [ "$(wc -l <"$T/ts5/ts_flows.csv")" -gt 1000 ]; then
    ok "ts: poisson with --stream on (recycled slots) and off: identical ts_flows.csv and ts_hosts.csv"
else
    fail "ts: poisson --stream on/off: exit $rc5/$rc or the series differ"
fi
printf 'Nodes 16\nConnections 3\n0->2 id 7 start 0 size 500000\n0->2 id 7 start 0 size 300000\n1->2 id 8 start 0 size 400000\n' >"$T/msg.cm"
run -tm "$T/msg.cm" --out "$T/ts7" --ts-flows 7 --ts-hosts 2
if [ "$rc" -eq 0 ] && head -n 1 "$T/ts7/ts_flows.csv" | grep -q '^time_us,flow_id,msg,cwnd_bytes' &&
    [ "$(awk -F, 'NR > 1 { print $2 "," $3 }' "$T/ts7/ts_flows.csv" | sort -u | tr '\n' ' ')" = "7,1 7,2 " ] &&
    [ "$(tail -n 1 "$T/ts7/ts_hosts.csv" | cut -d, -f3)" = 1200000 ]; then
    ok "ts: messages over connections: msg column, both messages of connection 7, 1.2 MB delivered to host 2"
else
    fail "ts: messages: exit $rc, $(head -c 200 "$T/ts7/ts_flows.csv" | tr '\n' '|')"
fi

# Homa and SIRD have no sample(): their rows carry the delivered bytes they report.
run -tm "$T/inc2.cm" --transport homa -mtu 1500 -q inf --out "$T/ts8" --ts-flows all --ts-hosts 2
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$T/ts8/ts_hosts.csv" | cut -d, -f3)" = 4000000 ] &&
    [ "$(awk -F, 'NR > 1 { last[$2] = $6 } END { for (f in last) n += last[f] == 2000000; print n }' "$T/ts8/ts_flows.csv")" -eq 2 ]; then
    ok "ts: Homa incast: each flow's last row delivered 2 MB, host 2 got 4 MB"
else
    fail "ts: Homa: exit $rc, $(tail -n 1 "$T/ts8/ts_hosts.csv" 2>/dev/null)"
fi

# Progress in a batch log (stderr not a terminal): whole lines, no carriage
# returns, at --progress-every; none with --no-progress. 2.3 M events, so
# the check at every 2^20 events runs twice after the interval has passed.
run --workload perm:n=1024,size=2097152 -end 60 --progress-every 0.01 --quiet
np=$(grep -c '^spraysim: progress \[[0-9.]* s\] simulated [0-9.]* of 60.0 us, [0-9]*/1024 flows finished' "$T/err")
if [ "$rc" -eq 0 ] && [ "$np" -ge 1 ] && ! grep -q "$(printf '\r')" "$T/err"; then
    ok "progress: $np whole lines in a batch log at --progress-every 0.01"
else
    fail "progress: exit $rc, $np progress lines: $(head -c 300 "$T/err" | tr '\r\n' '^|')"
fi
# Each line's ETA is the wall time so far scaled by the simulated time
# left over the simulated time done: elapsed x (end - now) / now (an upper
# bound: the run also ends when every flow is done). Checked from the
# printed values, widened by their rounding (0.05 s, 0.05 us, and 0.5 s
# for the ETA's %.0f).
eta_bad=$(awk '/^spraysim: progress \[/ {
        el = $3; gsub(/[^0-9.]/, "", el); now = $6; end = $8
        for (i = 1; i <= NF; i++) if ($i == "<=") eta = $(i + 1)
        if (now > end + 0.05) { print "simulated " now " us past the end, " end " us: " $0; exit }
        if (now <= 0.05) next
        bound = (el + 0.05) * (end - now + 0.05) / (now - 0.05) + 0.5
        if (eta + 0 > bound) print "ETA " eta " s above " bound " s: " $0
    }' "$T/err" | head -n 1)
if [ "$rc" -eq 0 ] && [ "$np" -ge 1 ] && [ -z "$eta_bad" ]; then
    ok "progress: simulated time within -end, every ETA at most elapsed x (end - now) / now"
else
    fail "progress: $eta_bad"
fi
run --workload perm:n=1024,size=2097152 -end 60 --progress-every 0.01 --no-progress --quiet
if [ "$rc" -eq 0 ] && ! grep -q 'progress' "$T/err"; then
    ok "progress: --no-progress prints none"
else
    fail "progress: --no-progress: exit $rc, $(head -c 200 "$T/err")"
fi
bad "progress: --progress-every below 0.01" "--progress-every" --workload perm:n=16,size=1000 --progress-every 0.001
bad "progress: --progress-every needs a number" "--progress-every" --workload perm:n=16,size=1000 --progress-every soon

# Without the shared data, make's targets that read it say how to point at
# it (SHARED=), in one line, before building anything.
if command -v make >/dev/null 2>&1 && [ -f Makefile ]; then
    # a make above this script (make asan runs make test from make) passes
    # -w down in MAKEFLAGS, which would add "Entering directory" lines
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory shared-data SHARED="$T/no-such-shared" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$(wc -l <"$T/out")" -eq 1 ] && grep -q "no shared data at $T/no-such-shared/data" "$T/out" &&
        grep -q 'SHARED=/path/to/shared' "$T/out"; then
        ok "make without the shared data: one line naming SHARED="
    else
        fail "make without the shared data: exit $rc, $(head -c 300 "$T/out" "$T/err" | tr '\n' '|')"
    fi
else
    skip "make without the shared data: no make or Makefile here"
fi

# --help names every parameter the workload generators accept (the names
# are read from the parsers: gen.c's table, poisson.c's comparisons)
if [ -f src/workload/gen.c ] && [ -f src/workload/poisson.c ]; then
    "$SPRAYSIM" --help >"$T/help" 2>&1
    names=$( (sed -n '/param_names\[[A-Z_]*\] = {/,/};/p' src/workload/gen.c | grep -o '"[a-z_]*"';
        grep -o 'strcmp(name, "[a-z_]*")' src/workload/poisson.c | grep -o '"[a-z_]*"') | tr -d '"' | sort -u)
    missing=""
    for n in $names; do grep -q "[,:[]$n=" "$T/help" || missing="$missing $n"; done
    if [ -n "$names" ] && [ -z "$missing" ]; then
        ok "--help names every workload parameter ($(echo $names | wc -w) names)"
    else
        fail "--help misses workload parameters:$missing (found: $(echo $names | tr '\n' ' '))"
    fi
fi

# The rest of htsim_uec's command line: each flag runs with the reference's
# meaning, warns naming what replaces an htsim log, or exits 2 as "not
# modelled" (never "unknown flag").
run -tm "$M/incast.cm" -end 300 --out "$T/trim64"
rc64=$rc
run -tm "$M/incast.cm" -end 300 --out "$T/trimdef" -trimsize 64
rcd=$rc
run -tm "$M/incast.cm" -end 300 --out "$T/trim1k" -trimsize 1000
if [ "$rc64" -eq 0 ] && [ "$rcd" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/trim64/flows.csv" "$T/trimdef/flows.csv" &&
    ! cmp -s "$T/trim64/flows.csv" "$T/trim1k/flows.csv" && [ "$(grep -o '"trims": [0-9]*' "$T/trim1k/summary.json")" != '"trims": 0' ]; then
    ok "-trimsize: 64 is the default (identical flows.csv); 1000-byte trimmed packets change the incast"
else
    fail "-trimsize: exit $rc64/$rcd/$rc or flows.csv not as expected"
fi
bad "-trimsize below the header" "-trimsize 63: a trimmed packet keeps at least its 64-byte header" -tm "$M/one.cm" -trimsize 63
bad "-trimsize above -mtu" "at most -mtu 4150" -tm "$M/one.cm" -trimsize 4151
run -tm "$M/perm_16n_16c_2MB.cm" -end 300 --out "$T/strat" -strat ecmp_ar
run2rc=$rc
run -tm "$M/perm_16n_16c_2MB.cm" -end 300 --out "$T/strat2" -paths 1 --routing ar --ar-quantum bands
if [ "$run2rc" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/strat/flows.csv" "$T/strat2/flows.csv" && cmp -s "$T/strat/queues.csv" "$T/strat2/queues.csv"; then
    ok "-strat ecmp_ar is -paths 1 --routing ar --ar-quantum bands (identical flows.csv and queues.csv)"
else
    fail "-strat ecmp_ar: exit $run2rc/$rc or outputs differ from -paths 1 --routing ar --ar-quantum bands"
fi
run -tm "$M/one.cm" -end 100 -log switch --out "$T/logsw"
if [ "$rc" -eq 0 ] && [ -f "$T/logsw/switches.csv" ]; then ok "-log switch is --switch-stats (switches.csv)"; else fail "-log switch: exit $rc, no switches.csv"; fi
for a in "-o x.log" "-log sink" "-log queue_usage" "-strat perm" "-logtime 0.01" "-ar_sticky_delta 5" "-path_burst 4" "-disable_fd" "-ar_granularity flow" "-ar_method pause"; do
    run -tm "$M/one.cm" -end 100 $a --quiet
    if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^spraysim: warning: ${a%% *}" "$T/err"; then
        ok "$a: runs with one warning line naming it"
    else
        fail "$a: exit $rc, $(head -c 200 "$T/err" | tr '\n' '|')"
    fi
done
for a in "-queue_type aeolus" "-queue_type composite_ecn" "-host_queue_type swift" "-host_queue_type prio" "-ar_method bandwidth" "-ar_method qb" "-strat rr_ecmp" "-conns 4" "-pcie 100"; do
    bad "$a: not modelled" "not" -tm "$M/one.cm" $a
done
# -planes N: htsim asserts 1 <= N <= 8; outside that, one line naming the flag
for v in 0 9 x; do
    bad "-planes $v: refused" "-planes: '$v'" -tm "$M/one.cm" -planes $v
done
# -planes 2 runs: every flow finishes, and queues.csv names each port's plane
run -tm "$M/perm_16n_16c_2MB.cm" -end 2000 -planes 2 --quiet --out "$T/planes2"
if [ "$rc" -eq 0 ] && grep -q '"fct_n": 16, "fct_unfinished": 0,' "$T/planes2/summary.json" &&
    grep -q '"tiers": 3, "planes": 2, ' "$T/planes2/summary.json" &&
    [ "$(head -1 "$T/planes2/queues.csv" | tr ',' '\n' | grep -c '^plane$')" = 1 ] &&
    [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "plane") c = i; next } { n[$c]++ } END { print n[0] == n[1] && length(n) == 2 }' "$T/planes2/queues.csv")" = 1 ]; then
    ok "-planes 2 runs; summary.json says planes 2; queues.csv has a plane column, as many ports in each plane"
else
    fail "-planes 2: exit $rc, $(head -1 "$T/err")"
fi
rm -rf "$T/planes2"
for a in "-queue_type composite" "-host_queue_type fair_prio" "-planes 1" "-ar_method queue" "-ar_granularity packet" "-strat ecmp_host" "-debug" "--lb oblivious -path_burst 4" "-enable_qa_gate" "--cc smartt -disable_fd"; do
    run -tm "$M/one.cm" -end 100 $a --quiet
    if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ]; then ok "$a: the reference's default, accepted silently"; else fail "$a: exit $rc, $(head -1 "$T/err")"; fi
done
# -disable_fd is SMaRTT's --cc-opt fd=0 and -enable_qa_gate NSCC's default
# Quick Adapt gate (maxwnd/8), replacing an earlier -qa_gate: on incast.cm
# each must give the outputs of its equivalent and differ from the run
# without it (so a flag read and dropped fails here)
same_diff() { # NAME "ARGS" "SAME ARGS" "DIFFERENT ARGS"
    run -tm "$M/incast.cm" -end 3000 $2 --quiet --out "$T/sd1"; r1=$rc
    run -tm "$M/incast.cm" -end 3000 $3 --quiet --out "$T/sd2"; r2=$rc
    run -tm "$M/incast.cm" -end 3000 $4 --quiet --out "$T/sd3"; r3=$rc
    if [ "$r1$r2$r3" = 000 ] && cmp -s "$T/sd1/flows.csv" "$T/sd2/flows.csv" && ! cmp -s "$T/sd1/flows.csv" "$T/sd3/flows.csv"; then
        ok "$1"
    else
        fail "$1: exit $r1/$r2/$r3, or flows.csv not equal to '$3' / not different from '$4'"
    fi
    rm -rf "$T/sd1" "$T/sd2" "$T/sd3"
}
same_diff "-disable_fd is SMaRTT's --cc-opt fd=0" "--cc smartt -disable_fd" "--cc smartt --cc-opt fd=0" "--cc smartt"
same_diff "-enable_qa_gate is NSCC's default gate, after -qa_gate 0" "-qa_gate 0 -enable_qa_gate" "" "-qa_gate 0"
same_diff "-ar_granularity packet is the default; flow changes adaptive routing" "-strat ecmp_ar -ar_granularity packet" "-strat ecmp_ar" "-strat ecmp_ar -ar_granularity flow"
# -strat ecmp_ar measures queues in htsim's bands; --ar-quantum BYTES
# (seed 004's shortest queue, --routing ar's default) overrides it
same_diff "-strat ecmp_ar compares htsim's queue bands, not bytes" "-strat ecmp_ar" "-strat ecmp_ar --ar-quantum bands" "-strat ecmp_ar --ar-quantum 4150"
# summary.json says what adaptive routing rested on (a RoCE run's flowlets
# are the transport's default, not a flag)
run -tm "$M/incast.cm" -end 300 --transport roce -strat ecmp_ar --quiet --out "$T/arsum"
if [ "$rc" -eq 0 ] && grep -q '"ar_measure": "bands", "ar_quantum_bytes": 4150, "ar_granularity": "flow"' "$T/arsum/summary.json"; then
    ok "summary.json: ar_measure, ar_quantum_bytes and ar_granularity under adaptive routing"
else
    fail "summary.json lacks ar_measure bands / ar_granularity flow for RoCE -strat ecmp_ar (rc $rc)"
fi
# htsim_roce: per packet only with -out_of_order, flowlets otherwise
same_diff "RoCE's adaptive routing moves flowlets unless -out_of_order" "--transport roce -strat ecmp_ar" "--transport roce -strat ecmp_ar -ar_granularity flow" "--transport roce -strat ecmp_ar -ar_granularity packet"
same_diff "RoCE -out_of_order routes per packet" "--transport roce -strat ecmp_ar -out_of_order" "--transport roce -strat ecmp_ar -out_of_order -ar_granularity packet" "--transport roce -strat ecmp_ar -out_of_order -ar_granularity flow"
# pq compares PFC's pause first: under RoCE's lossless class it routes
# otherwise than queue (were the pause not read, pq would be queue)
same_diff "-ar_method queue is the default; pq reads PFC's pause" "--transport roce -strat ecmp_ar -ar_method queue" "--transport roce -strat ecmp_ar" "--transport roce -strat ecmp_ar -ar_method pq"
bad "-queue_type with no such type" "-queue_type: 'bogus' is no htsim_uec queue type" -tm "$M/one.cm" -queue_type bogus
bad "-host_queue_type with no such type" "-host_queue_type: 'bogus' is no htsim host queue type" -tm "$M/one.cm" -host_queue_type bogus
bad "-ar_method with no such method" "-ar_method: 'bogus' is no htsim AR method" -tm "$M/one.cm" -ar_method bogus
bad "-ar_granularity with no such granularity" "-ar_granularity: 'bogus' is not packet or flow" -tm "$M/one.cm" -ar_granularity bogus
run -tm "$M/one.cm" -end 50 --ts-hosts 0 -logtime_us 5 --out "$T/logtime"
if [ "$rc" -eq 0 ] && [ "$(awk -F, 'NR == 3 { print $1 - 5 }' "$T/logtime/ts_hosts.csv")" = "$(awk -F, 'NR == 2 { print $1 + 0 }' "$T/logtime/ts_hosts.csv")" ]; then
    ok "-logtime_us 5 sets the time series' interval to 5 us"
else
    fail "-logtime_us: exit $rc, $(head -3 "$T/logtime/ts_hosts.csv" 2>/dev/null | tr '\n' '|')"
fi
bad "-strat with no such strategy" "-strat: 'bogus' is no htsim route strategy" -tm "$M/one.cm" -strat bogus
bad "-log with no such kind" "-log: 'bogus' is no htsim log kind" -tm "$M/one.cm" -log bogus
# called as htsim_uec (a symlink), the reference's per-flow lines by default
ln -s "$SPRAYSIM" "$T/htsim_uec"
"$T/htsim_uec" -tm "$M/bidir.cm" >"$T/out" 2>"$T/err"
if [ $? -eq 0 ] && [ "$(grep -c 'finished at' "$T/out")" -eq 2 ]; then
    ok "a binary called htsim_uec prints htsim's per-flow lines by default"
else
    fail "htsim_uec symlink: $(grep -c 'finished at' "$T/out") 'finished at' lines"
fi

[ "$nfail" -eq 0 ]
