#!/bin/sh
# contract_test.sh: the transport contract from the command line (issue 21;
# src/transport/transport.h, docs/contributing-transport.md). Run from the
# repository root by tests/run_all.sh, with SPRAYSIM (default bin/spraysim).
#   - every transport sets up and finishes a tiny workload on an 18,522-host
#     (k = 42) fat tree, SIRD's receivers beyond host 16,383 included (its
#     credit pacer was a flow timer carrying the host in 14 bits);
#   - two transports that need different things of one switch class are
#     refused with one line naming both; in separate classes they run, and
#     summary.json records each class's policy and who set it;
#   - no file under src/transport or src/cc writes a switch port (the
#     fabric's policy is net/'s: transports declare needs, fabric_needs).
# Prints one "ok", "FAIL" or "skip" line per check. About 5 s.

SPRAYSIM=${SPRAYSIM:-bin/spraysim}
case $SPRAYSIM in /*) ;; *) SPRAYSIM=$(pwd)/$SPRAYSIM ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/spraysim-contract.XXXXXX") || { echo "FAIL mktemp -d"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'rm -rf "$T"; exit 1' HUP INT TERM
nfail=0
ok() { echo "ok $*"; }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }

# ---- every transport on k = 42 (18,522 hosts, 2,205 switches) ----------------------
# three messages: across the tree, into a low host, and two senders into the
# last host (18,521), whose receiver state (SIRD's pacer, Homa's and EQDS's
# schedulers) sits past 2^14
printf 'Nodes 18522\nConnections 3\n0->18521 id 1 start 0 size 100000\n18000->3 id 2 start 0 size 50000\n17000->18521 id 3 start 0 size 2000\n' >"$T/k42.cm"
# every registered transport (the names --help lists from the registry),
# and the variants that set up differently
registered=$("$SPRAYSIM" --help | sed -n "s/.*--transport NAME.*'transport' key: \([a-z0-9_, ]*\) (default.*/\1/p" | tr -d ',')
[ -n "$registered" ] || { echo "FAIL contract: --help lists no transports"; registered=uet; }
for v in $registered "uet -receiver_cc" "roce -dcqcn 10"; do
    name=$(echo "$v" | tr ' ' '_')
    # shellcheck disable=SC2086
    "$SPRAYSIM" -tm "$T/k42.cm" --transport $v --no-progress --out "$T/k42_$name" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && grep -q "^flows: 3 of 3 finished" "$T/out" &&
        grep -q "^spraysim: 18522 hosts, 2205 switches, 3-tier tree" "$T/out"; then
        ok "k = 42 fat tree (18,522 hosts): --transport $v sets up and finishes 3 messages"
    else
        fail "k = 42 fat tree, --transport $v: rc $rc, $(grep '^flows:' "$T/out") $(head -n 1 "$T/err")"
    fi
done

# ---- conflicting needs refused, separate classes run ---------------------------------
printf 'Nodes 16\nConnections 2\n1->0 id 1 start 0 size 200000\n14->15 id 2 start 0 size 2000 transport sird\n' >"$T/clash.cm"
"$SPRAYSIM" -tm "$T/clash.cm" --no-progress --out "$T/clash" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
    grep -q "^spraysim: switch class 1: uet needs ECN marking as configured (RED) but sird needs ECN step marking above [0-9]* bytes; give one of them another class" "$T/err"; then
    ok "UET and SIRD in one class: refused with one line naming both ($(head -c 90 "$T/err")...)"
else
    fail "UET and SIRD in one class: rc $rc, $(head -n 2 "$T/err" | tr '\n' '|')"
fi
printf 'Nodes 16\nConnections 2\n1->0 id 1 start 0 size 200000\n14->15 id 2 start 0 size 2000 transport roce\n' >"$T/roce.cm"
"$SPRAYSIM" -tm "$T/roce.cm" --pfc off --no-progress --out "$T/roce" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
    grep -q "^spraysim: switch class 1: uet needs trimming but roce needs no trimming" "$T/err"; then
    ok "UET and lossy RoCE (--pfc off) in one class: refused, trimming named"
else
    fail "UET and lossy RoCE in one class: rc $rc, $(head -n 2 "$T/err" | tr '\n' '|')"
fi
sed 's/transport sird$/transport sird priority 2/' "$T/clash.cm" >"$T/apart.cm"
"$SPRAYSIM" -tm "$T/apart.cm" --classes 3 --no-progress --out "$T/apart" >"$T/out" 2>"$T/err"
rc=$?
pol=$(grep -o '"class_policy": \[.*\]}\]' "$T/apart/summary.json" 2>/dev/null)
case $pol in
*'{"class": 1, "ecn": "red", "ecn_last_hop": true, "trim": true, "lossless": false, "sched": "strict", "set_by": ["uet"]}, {"class": 2, "ecn": "step", "ecn_step_bytes": '*', "ecn_last_hop": true, "trim": false, "lossless": false, "sched": "strict", "set_by": ["sird"]}]'*)
    if [ "$rc" -eq 0 ] && grep -q "^flows: 2 of 2 finished" "$T/out"; then
        ok "UET in class 1, SIRD in class 2: both finish; summary.json class_policy says RED + trim for uet, step + no trim for sird"
    else
        fail "UET and SIRD in two classes: rc $rc, $(grep '^flows:' "$T/out") $(head -n 1 "$T/err")"
    fi
    ;;
*) fail "summary.json class_policy: rc $rc, got '$pol'" ;;
esac

# ---- the configuration is read, never written, by transports ---------------------------
# a transport that rewrote the shared configuration (SIRD set cfg.trimming and
# the summary's ECN band when it was the run's transport, so every UET flow of
# a mixed run had its CC told "no trimming") changes what others see; what a
# class does is net/'s policy, read with net_class_trims / net_class_ecn
cfgw=$(grep -nE '(cfg(->|[.])[a-z_]+(\[[^]]*\])?([.][a-z_]+)?|ecn_km(in|ax)_bytes_default)[[:space:]]*([-+|&^]?=[^=]|\+\+|--)' \
    src/transport/*.c src/transport/*.h src/cc/*.c src/cc/*.h src/lb/*.c src/lb/*.h 2>/dev/null)
if [ -z "$cfgw" ]; then
    ok "no configuration field written under src/transport, src/cc or src/lb"
else
    fail "a transport writes the configuration: $(echo "$cfgw" | head -n 3 | tr '\n' '|')"
fi
# SIRD as the run's transport: the summary shows its class (step marking, no
# trimming) from the policy, and the configuration as given
"$SPRAYSIM" -tm "$SHARED/data/htsim/matrices/one.cm" --transport sird -end 200 --out "$T/sirdsum" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'trimming off' "$T/out" && grep -q 'ECN step at' "$T/out" &&
    grep -q '"trimming": true' "$T/sirdsum/summary.json" && grep -q '"class": 1, "ecn": "step"' "$T/sirdsum/summary.json"; then
    ok "SIRD's summary: its class's policy (trimming off, ECN step) with the configuration unchanged"
else
    fail "SIRD's summary: rc $rc, $(head -n 2 "$T/out" | tr '\n' '|')"
fi

# a UET incast in class 2 runs the same rows alone (--transport uet) and
# beside a SIRD message with SIRD the run's transport: before, SIRD's
# rewrite of cfg.trimming gave the UET flows' NSCC "no trimming" parameters
# (a 1.0 base-RTT target delay instead of 0.75) and their rows changed
printf 'Nodes 16\nConnections 4\n0->4 id 1 start 0 size 2000000 transport uet priority 2\n1->4 id 2 start 0 size 2000000 transport uet priority 2\n2->4 id 3 start 0 size 2000000 transport uet priority 2\n3->4 id 4 start 0 size 2000000 transport uet priority 2\n' >"$T/uet2.cm"
sed 's/Connections 4/Connections 5/' "$T/uet2.cm" >"$T/uet2sird.cm"
printf '14->15 id 9 start 0 size 20000 transport sird\n' >>"$T/uet2sird.cm"
"$SPRAYSIM" -tm "$T/uet2.cm" --transport uet -ecn 20 40 --classes 3 -q 50 --out "$T/alone" --no-progress >/dev/null 2>&1
rca=$?
"$SPRAYSIM" -tm "$T/uet2sird.cm" --transport sird -ecn 20 40 --classes 3 -q 50 --out "$T/beside" --no-progress >/dev/null 2>&1
rcb=$?
if [ "$rca" -eq 0 ] && [ "$rcb" -eq 0 ] && [ "$(cut -d, -f1-9 "$T/alone/flows.csv")" = "$(grep -v '^9,' "$T/beside/flows.csv" | cut -d, -f1-9)" ]; then
    ok "UET flows in class 2: the same rows alone and beside SIRD as the run's transport"
else
    fail "UET flows in class 2 change beside SIRD as the run's transport (rc $rca/$rcb)"
fi

# ---- ports are written by net/ only ---------------------------------------------------
# a write to a port (ports[...] assigned or changed, a non-const pointer to
# a port or class, a PORTF_ flag set or cleared) under src/transport or src/cc
writes=$(grep -nE '(->|[.])ports\[[^]]*\][.a-z_>-]*[[:space:]]*([-+|&^]?=[^=]|\+\+|--)|(^|[^t][[:space:]])struct port(_class)?[[:space:]]*\*|PORTF_[A-Z_]*[[:space:]]*\)?[[:space:]]*;' \
    src/transport/*.c src/transport/*.h src/cc/*.c src/cc/*.h 2>/dev/null | grep -v 'const struct port')
if [ -z "$writes" ]; then
    ok "no switch port written under src/transport or src/cc (fabric policy is net/'s)"
else
    fail "a transport writes ports: $(echo "$writes" | head -n 3 | tr '\n' '|')"
fi

# ---- the NIC picks the port (-planes) ------------------------------------------------
# a transport hands what it sends outside nic_pull to nic_send (net.h); a
# NIC port named under src/transport or src/cc would bypass the NIC's choice
named=$(grep -nE 'nic_port|host_nic_port' src/transport/*.c src/transport/*.h src/cc/*.c src/cc/*.h 2>/dev/null)
if [ -z "$named" ]; then
    ok "no NIC port named under src/transport or src/cc (the NIC chooses, nic_send)"
else
    fail "a transport names a NIC port: $(echo "$named" | head -n 3 | tr '\n' '|')"
fi
# every transport at -planes 2: its messages finish, and every host that
# sent or answered used both its ports (their control packets included)
printf 'Nodes 16\nConnections 4\n0->5 id 1 start 0 size 400000\n1->5 id 2 start 0 size 400000\n6->12 id 3 start 0 size 400000\n12->0 id 4 start 0 size 400000\n' >"$T/planes.cm"
for v in $registered; do
    "$SPRAYSIM" -tm "$T/planes.cm" --transport "$v" -planes 2 --no-progress --out "$T/planes_$v" >"$T/out" 2>"$T/err"
    rc=$?
    # hosts 0, 1, 5, 6, 12: packets on their plane 0 and plane 1 ports
    used=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "plane") c = i; next }
        $3 == "host" && $9 > 0 { seen[$2 "," $c] = 1 }
        END { n = 0; split("0 1 5 6 12", h, " "); for (k in h) n += seen[h[k] ",0"] + seen[h[k] ",1"]; print n }' "$T/planes_$v/queues.csv" 2>/dev/null)
    if [ "$rc" -eq 0 ] && grep -q "^flows: 4 of 4 finished" "$T/out" && [ "$used" = 10 ]; then
        ok "-planes 2: --transport $v finishes 4 messages, its 5 hosts send on both planes"
    else
        fail "-planes 2, --transport $v: rc $rc, $(grep '^flows:' "$T/out") ports used $used of 10, $(head -n 1 "$T/err")"
    fi
done

[ "$nfail" -eq 0 ]
