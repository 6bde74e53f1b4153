#!/bin/sh
# gen_ring_alltoall.sh N SIZE MODE: seed 000 Fig. 16c's sequential all-to-all
# (Sec. V-C) as a connection matrix on stdout. The N hosts form a logical
# ring; in iteration i (1 .. N-1) host h sends SIZE bytes to host (h + i)
# mod N, "in effect, a sequence of permutations". Iteration 1 starts at 0;
# host h starts iteration i+1 when
#   MODE send: its own iteration-i send is done (it holds the last ACK):
#              a oneshot trigger fired by that connection's send_done_trigger
#              (the same schedule as --workload alltoall:window=1);
#   MODE sync: its iteration-i send is done AND its iteration-i receive (from
#              host h - i) is complete: a barrier of count 2 fired by that
#              send's send_done_trigger and that receive's recv_done_trigger.
# The paper does not say which dependency its libfabric test app used.
# Connection c(h, i) has id (i - 1) N + h + 1; trigger T(h, i) (what starts
# c(h, i + 1)) has id (i - 1) N + h + 1 too. POSIX sh + awk.
set -e
if [ $# -ne 3 ]; then
    echo "usage: sh experiments/inputs/gen_ring_alltoall.sh N SIZE send|sync" >&2
    exit 2
fi
case $1 in '' | *[!0-9]*) echo "gen_ring_alltoall.sh: N '$1' is not a whole number" >&2; exit 2 ;; esac
case $2 in '' | *[!0-9]*) echo "gen_ring_alltoall.sh: SIZE '$2' is not a whole number" >&2; exit 2 ;; esac
case $3 in send | sync) ;; *) echo "gen_ring_alltoall.sh: MODE '$3' is not send or sync" >&2; exit 2 ;; esac
if [ "$1" -lt 3 ] || [ "$1" -gt 4096 ] || [ ${#2} -gt 12 ] || [ "$2" -lt 1 ]; then
    echo "gen_ring_alltoall.sh: needs 3 <= N <= 4096 and 1 <= SIZE < 10^12" >&2
    exit 2
fi
awk -v n="$1" -v size="$2" -v mode="$3" 'BEGIN {
    printf "# sequential ring all-to-all (seed 000 Fig. 16c): %d hosts, %s bytes, next iteration after %s\n", n, size, \
        (mode == "send" ? "the send is done" : "the send and the receive are done")
    printf "Nodes %d\nConnections %d\nTriggers %d\n", n, n * (n - 1), n * (n - 2)
    for (i = 1; i <= n - 1; i++)
        for (h = 0; h < n; h++) {
            line = sprintf("%d->%d id %d", h, (h + i) % n, (i - 1) * n + h + 1)
            line = line (i == 1 ? " start 0" : sprintf(" trigger %d", (i - 2) * n + h + 1))
            line = line " size " size
            if (i <= n - 2) {
                line = line sprintf(" send_done_trigger %d", (i - 1) * n + h + 1)
                if (mode == "sync")
                    line = line sprintf(" recv_done_trigger %d", (i - 1) * n + (h + i) % n + 1)
            }
            print line
        }
    for (i = 1; i <= n - 2; i++)
        for (h = 0; h < n; h++)
            printf "trigger id %d %s\n", (i - 1) * n + h + 1, (mode == "send" ? "oneshot" : "barrier count 2")
}'
