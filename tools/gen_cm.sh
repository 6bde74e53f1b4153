#!/bin/sh
# gen_cm.sh: writes a connection matrix (.cm, the reference simulator's
# format) to stdout. POSIX sh + awk only.
#
#   sh tools/gen_cm.sh incast N DST SIZE   every node except DST sends SIZE
#                                          bytes to DST at time 0 (N-1 flows)
#   sh tools/gen_cm.sh perm N SIZE SEED    a random permutation of 0..N-1 with
#                                          no node sending to itself (N flows
#                                          of SIZE bytes at time 0); the same
#                                          SEED gives the same file with any awk
#
# Output: "Nodes N", "Connections C", then "src->dst id K start 0 size B" with
# ids from 1. SIZE is copied as written (any size the simulator accepts, up to
# 20 digits), never through awk's numbers, which some awks print as 32-bit
# integers. Any failure exits non-zero.
set -e

usage() {
    echo "usage: sh tools/gen_cm.sh incast N DST SIZE | perm N SIZE SEED" >&2
    exit 2
}

# isnum NAME VALUE MAXDIGITS: VALUE must be a non-negative decimal integer of
# at most MAXDIGITS digits (so the shell's and awk's arithmetic stay exact)
isnum() {
    case $2 in
    '' | *[!0-9]*)
        echo "gen_cm.sh: $1 '$2' is not a non-negative integer" >&2
        exit 2
        ;;
    esac
    if [ ${#2} -gt "$3" ]; then
        echo "gen_cm.sh: $1 '$2' has more than $3 digits" >&2
        exit 2
    fi
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
incast)
    [ $# -eq 3 ] || usage
    isnum N "$1" 8
    isnum DST "$2" 8
    isnum SIZE "$3" 20
    if [ "$1" -lt 2 ] || [ "$2" -ge "$1" ] || [ "$3" = 0 ] || [ -z "${3##0*}" ]; then
        echo "gen_cm.sh: incast needs N >= 2, DST < N and SIZE >= 1 without leading zeros" >&2
        exit 2
    fi
    awk -v n="$1" -v dst="$2" -v size="$3" 'BEGIN {
        printf "Nodes %d\nConnections %d\n", n, n - 1
        k = 0
        for (i = 0; i < n; i++)
            if (i != dst)
                printf "%d->%d id %d start 0 size %s\n", i, dst, ++k, size
    }'
    ;;
perm)
    [ $# -eq 3 ] || usage
    isnum N "$1" 8
    isnum SIZE "$2" 20
    isnum SEED "$3" 15
    if [ "$1" -lt 2 ] || [ -z "${2##0*}" ]; then
        echo "gen_cm.sh: perm needs N >= 2 and SIZE >= 1 without leading zeros" >&2
        exit 2
    fi
    # Park-Miller minimal standard generator (x = x * 16807 mod 2^31-1): every
    # product stays below 2^53, so it is exact in any awk's doubles, unlike
    # awk's own rand(), which differs between awk implementations.
    awk -v n="$1" -v size="$2" -v seed="$3" '
    function rnd(m) {           # uniform-ish integer in [0, m)
        x = (x * 16807) % 2147483647
        return int(x / 2147483647 * m)
    }
    BEGIN {
        x = (seed % 2147483646) + 1
        for (i = 0; i < 8; i++) rnd(1)      # stir small seeds
        for (i = 0; i < n; i++) p[i] = i
        for (i = n - 1; i > 0; i--) {       # Fisher-Yates shuffle
            j = rnd(i + 1)
            t = p[i]; p[i] = p[j]; p[j] = t
        }
        # Remove fixed points: swapping p[i] = i with any other p[k] leaves
        # p[i] = old p[k] != i and p[k] = i != k, so no new fixed point.
        for (i = 0; i < n; i++) {
            if (p[i] != i) continue
            k = rnd(n - 1); if (k >= i) k++
            t = p[i]; p[i] = p[k]; p[k] = t
        }
        printf "Nodes %d\nConnections %d\n", n, n
        for (i = 0; i < n; i++)
            printf "%d->%d id %d start 0 size %s\n", i, p[i], i + 1, size
    }'
    ;;
*)
    usage
    ;;
esac
