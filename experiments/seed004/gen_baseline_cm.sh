#!/bin/sh
# gen_baseline_cm.sh N ELEPHANTS PERM_SIZE ELEPHANT_SIZE SEED
# Seed 004 Sec. IV-A baseline workload: pick ELEPHANTS random hosts and draw a
# random permutation (no self-sends) among them: long-lived ECMP flows,
# marked "lb ecmp". Then a random permutation (no self-sends) of the other
# N-ELEPHANTS hosts, PERM_SIZE bytes each, sprayed (the run's --lb).
# Elephants get ids 1..ELEPHANTS, permutation flows the ids after.
# Park-Miller generator as in tools/gen_cm.sh: same SEED, same file, any awk.
[ $# -eq 5 ] || { echo "usage: gen_baseline_cm.sh N ELEPHANTS PERM_SIZE ELEPHANT_SIZE SEED" >&2; exit 2; }
awk -v n="$1" -v ne="$2" -v size="$3" -v esize="$4" -v seed="$5" '
function rnd(m) {
    x = (x * 16807) % 2147483647
    return int(x / 2147483647 * m)
}
# derangement of a[0..k-1] into d[]: Fisher-Yates then fix fixed points
function derange(a, k, d,    i, j, t, kk) {
    for (i = 0; i < k; i++) d[i] = a[i]
    for (i = k - 1; i > 0; i--) { j = rnd(i + 1); t = d[i]; d[i] = d[j]; d[j] = t }
    for (i = 0; i < k; i++) {
        if (d[i] != a[i]) continue
        kk = rnd(k - 1); if (kk >= i) kk++
        t = d[i]; d[i] = d[kk]; d[kk] = t
    }
}
BEGIN {
    if (n < 4 || ne < 2 || n - ne < 2) { print "gen_baseline_cm.sh: bad sizes" > "/dev/stderr"; exit 2 }
    x = (seed % 2147483646) + 1
    for (i = 0; i < 8; i++) rnd(1)
    # random choice of the elephant hosts: shuffle 0..n-1, take the first ne
    for (i = 0; i < n; i++) h[i] = i
    for (i = n - 1; i > 0; i--) { j = rnd(i + 1); t = h[i]; h[i] = h[j]; h[j] = t }
    ke = 0; kp = 0
    for (i = 0; i < n; i++) isel[h[i]] = (i < ne)
    for (i = 0; i < n; i++) if (isel[i]) e[ke++] = i; else r[kp++] = i
    derange(e, ke, ed)
    derange(r, kp, rd)
    printf "Nodes %d\nConnections %d\n", n, ke + kp
    id = 0
    for (i = 0; i < ke; i++)
        printf "%d->%d id %d start 0 size %s lb ecmp\n", e[i], ed[i], ++id, esize
    for (i = 0; i < kp; i++)
        printf "%d->%d id %d start 0 size %d\n", r[i], rd[i], ++id, size
}'
