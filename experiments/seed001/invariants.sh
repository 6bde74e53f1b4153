#!/bin/sh
# sird.md Sec. 3 acceptance check 3: SIRD's invariants (b <= B, per-sender
# outstanding credit sums to b, credit conservation, bucket bounds, csn and
# credit accounting at the sender; docs/models.md "Transport: SIRD") asserted in
# every one of the nine scenarios, at 70% load, with the checked and
# sanitised binary of `make asan` (SPRAYSIM_CHECKS): a short window each
# (WKb, WKc: 0.5 ms measured, WKa 0.2 ms), Homa alongside. A violated
# invariant aborts the run (non-zero exit). Writes results/invariants.txt.
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${ASAN_BIN:-build-asan/spraysim}
[ -x "$BIN" ] || { echo "invariants.sh: $BIN missing: run make asan" >&2; exit 1; }
OUT=experiments/seed001/results/invariants.txt
R=${RUNS:-/tmp/seed001_inv}
mkdir -p "$R"
{
echo "# $BIN (SPRAYSIM_CHECKS, ASan, UBSan), load 0.7"
for sc in balanced core incast; do for wk in wka wkb wkc; do for p in sird homa; do
    if [ $wk = wka ]; then w="S1_WARM_US=50 S1_STOP_US=250 S1_END_US=600"; else w="S1_WARM_US=100 S1_STOP_US=600 S1_END_US=1500"; fi
    d=$R/${sc}_${wk}_$p
    rm -rf "$d"
    env $w SPRAYSIM=$BIN sh -c ". experiments/seed001/common.sh; s1_run $d $p $sc $wk 0.7"
    rc=$(grep -c '^run: simulated' "$d/stdout")
    printf '%-9s %-4s %-5s %s  %s\n' $sc $wk $p "$( [ "$rc" = 1 ] && ! grep -qi 'invariant\|runtime error\|AddressSanitizer' "$d/stdout" && echo ok || echo FAILED)" \
        "$(sed -n 's/^flows: \(.*\)/\1/p' "$d/stdout" | cut -c1-40)"
done; done; done
} >"$OUT"
cat "$OUT"
